"""A placeholder of an imported campaign given to an account (issue 30): the member who
has joined the campaign with their own account takes the placeholder's seat, characters,
rolls, ledger entries, journal posts and the fights' combatants it commanded; then the
placeholder's user is deleted. One transaction.

Only a member who joined by their own action receives one (issue 42): the GM may not give
a placeholder's history to an account that never chose to be in the campaign. No
membership records how it was made, but only one path makes a membership for an active
account other than a campaign's GM: `campaigns.services.campaign_join`, which the
invitation page calls on the user's own POST. An import seats only its importer (the GM)
and placeholders, which are inactive (`archive.importer`); tests/archive/test_hostile.py
fails if another path appears. So the member who may receive is: of this campaign, an
active account, not its GM, not itself a placeholder.
"""

from django.db import transaction

from archive.models import Placeholder
from campaigns.models import BringRequest, JournalEntry, Membership
from characters.models import Character, DpEntry
from combat.models import CombatRecord, Encounter, Simulation
from table.models import RollEvent


class Refused(Exception):
    """The membership may not receive the placeholder (`receives`)."""


def receives(holder: Placeholder, target: Membership | None) -> bool:
    """Whether `target` is a member who joined `holder`'s campaign by their own action."""
    return (target is not None and target.campaign_id == holder.campaign_id
            and target.role != Membership.Role.GM
            and target.user_id != holder.campaign.gm_id and target.user.is_active
            and not Placeholder.objects.filter(user_id=target.user_id).exists())


def hand_over(holder: Placeholder, target: Membership) -> None:
    """Give `holder`'s place to `target`; Refused (and nothing changed) when `target` may
    not receive it."""
    campaign = holder.campaign
    with transaction.atomic():
        # Read again inside the transaction: what the page was sent may have changed.
        target = Membership.objects.filter(pk=target.pk).select_related("user").first()
        holder = Placeholder.objects.filter(pk=holder.pk).select_related("user").first()
        if holder is None or not receives(holder, target):
            raise Refused
        old, new = holder.user, target.user
        seat = Membership.objects.filter(campaign=campaign, user=old).first()
        Character.objects.filter(owner=old).update(owner=new)
        RollEvent.objects.filter(actor=old).update(actor=new)
        CombatRecord.objects.filter(actor=old).update(actor=new)
        DpEntry.objects.filter(created_by=old).update(created_by=new)
        JournalEntry.objects.filter(author=old).update(author=new)
        BringRequest.objects.filter(decided_by=old).update(decided_by=new)
        Simulation.objects.filter(created_by=old).update(created_by=new)
        for encounter in Encounter.objects.filter(campaign=campaign).select_for_update():
            if old.pk in encounter.controllers.values():
                encounter.controllers = {cid: new.pk if uid == old.pk else uid
                                         for cid, uid in encounter.controllers.items()}
                encounter.save(update_fields=["controllers"])
        if seat is not None:
            Membership.objects.filter(pk=target.pk).update(seat=seat.seat)
        old.delete()  # its membership and the placeholder row go with it
