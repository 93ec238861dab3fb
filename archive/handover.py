"""A placeholder of an imported campaign given to an account (issue 30): the member who
has joined the campaign with their own account takes the placeholder's seat, characters,
rolls, ledger entries, journal posts and the fights' combatants it commanded; then the
placeholder's user is deleted. One transaction."""

from django.db import transaction

from archive.models import Placeholder
from campaigns.models import BringRequest, JournalEntry, Membership
from characters.models import Character, DpEntry
from combat.models import CombatRecord, Encounter, Simulation
from table.models import RollEvent


def hand_over(holder: Placeholder, target: Membership) -> None:
    old, new = holder.user, target.user
    campaign = holder.campaign
    with transaction.atomic():
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
