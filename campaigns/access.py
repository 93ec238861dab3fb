"""Who may see and change what. Every view asks here; nothing else decides access.

- Non-members of a campaign see nothing of it: 404, as if it did not exist.
- A member who lacks the right (a player at a GM-only page) gets 403.
- A character is edited by its owner and by the GM of its campaign, and seen (its
  public sheet) by the other members of that campaign.
"""

from enum import IntEnum

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404

from campaigns.models import Campaign, Membership
from characters.models import Character


class Access(IntEnum):
    NONE = 0
    VIEW = 1  # the public sheet
    EDIT = 2  # owner: the build, equipment, advancement
    GM = 3  # the campaign's GM: everything, GM notes included


def membership_of(user, campaign: Campaign) -> Membership | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(campaign=campaign, user=user).first()


def get_campaign(request, pk: int, *, gm: bool = False) -> tuple[Campaign, Membership]:
    """The campaign and the user's membership; 404 for non-members, 403 if `gm` is needed."""
    campaign = get_object_or_404(Campaign, pk=pk)
    membership = membership_of(request.user, campaign)
    if membership is None:
        raise Http404
    if gm and not membership.is_gm:
        raise PermissionDenied
    return campaign, membership


def character_access(user, character: Character) -> Access:
    if not user.is_authenticated:
        return Access.NONE
    campaign = character.campaign
    if campaign is not None and campaign.gm_id == user.pk:
        return Access.GM
    if character.owner_id == user.pk:
        return Access.EDIT
    if campaign is not None and Membership.objects.filter(campaign=campaign, user=user).exists():
        return Access.VIEW
    return Access.NONE


def get_character(request, pk: int, need: Access) -> tuple[Character, Access]:
    """The character if the user has at least `need`: 404 when they may not even see it,
    403 when they may see it but not do this."""
    character = get_object_or_404(Character.objects.select_related("campaign"), pk=pk)
    access = character_access(request.user, character)
    if access == Access.NONE:
        raise Http404
    if access < need:
        raise PermissionDenied
    return character, access
