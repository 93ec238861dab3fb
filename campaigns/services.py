"""Campaign changes that span models, each in one transaction."""

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Membership, new_invite_token, new_join_code
from characters.models import Character


class CampaignError(Exception):
    """A change the rules of the site do not allow; the message is for the user."""


@transaction.atomic
def campaign_create(*, gm, **fields) -> Campaign:
    campaign = Campaign.objects.create(gm=gm, **fields)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM, seat=0)
    return campaign


def invitation_renew(*, campaign: Campaign) -> None:
    """A new join code and invitation link; the old ones stop working."""
    campaign.join_code = new_join_code()
    campaign.invite_token = new_invite_token()
    campaign.save(update_fields=["join_code", "invite_token"])


@transaction.atomic
def campaign_join(*, campaign: Campaign, user) -> Membership:
    """Seat a new player after the last one (clockwise from the GM); joining twice is a no-op."""
    Campaign.objects.select_for_update().get(pk=campaign.pk)  # serialise seat numbering
    existing = Membership.objects.filter(campaign=campaign, user=user).first()
    if existing:
        return existing
    last = Membership.objects.filter(campaign=campaign).aggregate(seat=Max("seat"))["seat"]
    return Membership.objects.create(campaign=campaign, user=user, seat=(last or 0) + 1)


@transaction.atomic
def member_remove(
    *, campaign: Campaign, membership: Membership, renew_invitation: bool = True
) -> int:
    """Remove a player; their characters stay theirs, detached from the campaign.

    With `renew_invitation` (the default) the campaign gets a new join code and link, so
    the removed player cannot simply join again with the old ones."""
    if membership.is_gm:
        raise CampaignError(_("The GM cannot be removed from their own campaign."))
    detached = Character.objects.filter(campaign=campaign, owner=membership.user).update(
        campaign=None
    )
    membership_id, username = membership.pk, membership.user.username
    membership.delete()
    from table.services import membership_event_record  # table builds on campaigns

    membership_event_record(
        campaign_id=campaign.pk,
        kind="removed",
        membership_id=membership_id,
        username=username,
    )
    if renew_invitation:
        invitation_renew(campaign=campaign)
    return detached


@transaction.atomic
def seat_move(*, membership: Membership, step: int) -> None:
    """Move a player one seat clockwise (+1) or counter-clockwise (-1); the GM stays first."""
    players = list(
        Membership.objects.select_for_update()
        .filter(campaign_id=membership.campaign_id, role=Membership.Role.PLAYER)
        .order_by("seat", "pk")
    )
    index = next(i for i, m in enumerate(players) if m.pk == membership.pk)
    other = index + step
    if not 0 <= other < len(players):
        return
    players[index], players[other] = players[other], players[index]
    for seat, player in enumerate(players, start=1):
        if player.seat != seat:
            player.seat = seat
            player.save(update_fields=["seat"])


@transaction.atomic
def character_bring(*, campaign: Campaign, character: Character) -> None:
    if character.campaign_id is not None:
        raise CampaignError(_("This character already plays in a campaign."))
    character.campaign = campaign
    character.save(update_fields=["campaign", "updated_at"])
