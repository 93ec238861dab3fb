"""Campaign changes that span models, each in one transaction.

The campaign's rules bind every character in it (p. 3: UP and the level cap):

- A character in a campaign carries the campaign's level cap in its own ``level_cap``
  (what the builder checks; the ledger's raises read the campaign's cap directly). Only a
  character whose build has a level above the campaign's cap (one the GM accepted, or one
  that joined before bringing was checked) carries its highest build level instead, so
  its builder still accepts the build it has; its raises stop at the campaign's cap.
- Bringing a character checks it against the campaign's starting UP and cap
  (:func:`bring_check`). A character that fits is seated; one that does not is refused
  with the reasons, and its player may send it to the GM as a request, which the GM
  accepts with a note or declines.
- The GM's change of the campaign's cap reaches every character in the same transaction.
  A lower cap is refused while a character has a level the old cap allowed but the new
  one would not; levels the GM accepted above the old cap stay as they are.
- The UP budget is the character's own: the campaign's starting UP is used for new
  characters and checked when one is brought, and changing it changes no character.

Locks are taken characters first, then the campaign row (as ``member_remove`` and the
table's events do), so two of these never wait for each other in a circle.
"""

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns.models import BringRequest, Campaign, Membership, new_invite_token, new_join_code
from characters.models import Character, DpEntry
from characters.terms import short_label

MAX_NOTE = 1000


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
    membership = Membership.objects.create(campaign=campaign, user=user, seat=(last or 0) + 1)
    from table.services import membership_event_record  # table builds on campaigns

    membership_event_record(
        campaign_id=campaign.pk,
        kind="joined",
        membership_id=membership.pk,
        username=user.username,
    )
    return membership


@transaction.atomic
def member_remove(
    *, campaign: Campaign, membership: Membership, renew_invitation: bool = True
) -> int:
    """Remove a player; their characters stay theirs, detached from the campaign.

    With `renew_invitation` (the default) the campaign gets a new join code and link, so
    the removed player cannot simply join again with the old ones."""
    if membership.is_gm:
        raise CampaignError(_("The GM cannot be removed from their own campaign."))
    # Detached characters keep what they have, their level cap included; this campaign's
    # requests and notes about them go.
    BringRequest.objects.filter(campaign=campaign, character__owner=membership.user).delete()
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
def campaign_update(*, campaign: Campaign) -> int:
    """Save the GM's edit of ``campaign`` (its fields already set) and give its characters
    the new level cap; the number of characters whose cap changed.

    A lower cap is refused (CampaignError, nothing saved) while a character has a level
    above the new cap that the old cap allowed."""
    _lock_characters(campaign)
    old = Campaign.objects.select_for_update().get(pk=campaign.pk)
    characters = _lock_characters(campaign)  # again: one brought while we waited
    if campaign.system.builder != "points":  # no level cap: the house rules are saved
        campaign.save()
        return 0
    if campaign.level_cap < old.level_cap:
        blocked = []
        for character in characters:
            levels = [
                f"{short_label(key)} {level}"
                for key, level in character.levels().items()
                if campaign.level_cap < level <= old.level_cap
            ]
            if levels:
                blocked.append(f"{character.name} ({', '.join(levels)})")
        if blocked:
            raise CampaignError(
                _(
                    "The level cap cannot go below levels characters already have: "
                    "%(characters)s. Keep the cap at least as high, or lower the levels first."
                )
                % {"characters": "; ".join(blocked)}
            )
    campaign.save()
    changed = 0
    for character in characters:
        cap = carried_level_cap(character, campaign)
        if character.level_cap != cap:
            Character.objects.filter(pk=character.pk).update(level_cap=cap)
            changed += 1
    return changed


def _lock_characters(campaign: Campaign) -> list[Character]:
    """The campaign's characters, their rows locked until commit, in primary-key order."""
    return list(Character.objects.select_for_update().filter(campaign=campaign).order_by("pk"))


def highest_build_level(character: Character) -> int:
    return max(character.build_levels().values())


def carried_level_cap(character: Character, campaign: Campaign) -> int:
    """The level cap a character in ``campaign`` carries (what its builder checks): the
    campaign's, or its own highest build level when the GM let it in above the cap."""
    return max(campaign.level_cap, highest_build_level(character))


@dataclass(frozen=True)
class BringCheck:
    """How a character measures up to a campaign's rules (p. 3).

    ``held`` is every UP the character has had: its build budget and its awards, that is
    the UP in its levels (``spent``) and the UP it keeps (``saved``). It may hold at most
    the campaign's starting UP, and no level above the campaign's cap."""

    character: Character
    starting_dp: int
    level_cap: int
    levels_over: tuple[tuple[str, int], ...]
    held: int
    saved: int
    # What else the campaign refuses, in the reader's language: a character of another
    # rule system, or values outside the campaign's house rules.
    problems: tuple[str, ...] = ()

    @property
    def spent(self) -> int:
        return self.held - self.saved

    @property
    def dp_over(self) -> int:
        return max(0, self.held - self.starting_dp)

    @property
    def fits(self) -> bool:
        return not self.levels_over and not self.dp_over and not self.problems

    def reasons(self) -> list[str]:
        """Why the campaign's rules refuse the character, in the reader's language."""
        reasons = list(self.problems)
        if self.levels_over:
            reasons.append(
                _("Levels above the campaign's level cap %(cap)s: %(levels)s.")
                % {
                    "cap": self.level_cap,
                    "levels": ", ".join(f"{short_label(k)} {v}" for k, v in self.levels_over),
                }
            )
        if self.dp_over:
            reasons.append(
                _(
                    "%(held)s UP (%(spent)s spent, %(saved)s saved) where the campaign starts "
                    "characters with %(start)s UP: %(over)s UP too many."
                )
                % {
                    "held": self.held,
                    "spent": self.spent,
                    "saved": self.saved,
                    "start": self.starting_dp,
                    "over": self.dp_over,
                }
            )
        return reasons


def bring_check(*, campaign: Campaign, character: Character) -> BringCheck:
    if character.rule_system != campaign.rule_system or campaign.system.builder != "points":
        return entered_bring_check(campaign=campaign, character=character)
    awards = character.ledger.filter(kind=DpEntry.Kind.AWARD).aggregate(total=Sum("amount"))
    return BringCheck(
        character=character,
        starting_dp=campaign.starting_dp,
        level_cap=campaign.level_cap,
        levels_over=tuple(
            (key, level) for key, level in character.levels().items() if level > campaign.level_cap
        ),
        held=character.dp_budget + (awards["total"] or 0),
        saved=character.saved_dp(),
    )


def entered_bring_check(*, campaign: Campaign, character: Character) -> BringCheck:
    """A character of another rule system never fits; one of a system whose characters are
    entered fits when its values keep the campaign's house rules."""
    problems = []
    if character.rule_system != campaign.rule_system:
        problems.append(
            _("%(name)s is made for %(system)s; this campaign plays %(campaign)s.")
            % {
                "name": character.name,
                "system": character.system.title,
                "campaign": campaign.system.title,
            }
        )
    else:
        system = campaign.system
        terms = {stat.key: stat.term for stat in system.attributes + system.skills}
        for issue in system.check(character.values(), campaign.house()):
            message = _(issue.message) % dict(issue.params)
            term = terms.get(issue.field)
            problems.append(f"{term.short}: {message}" if term else message)
    return BringCheck(
        character=character,
        starting_dp=0,
        level_cap=0,
        levels_over=(),
        held=0,
        saved=0,
        problems=tuple(problems),
    )


class BringRefused(CampaignError):
    """The campaign's rules refuse the character as it is; ``check`` says why."""

    def __init__(self, check: BringCheck):
        super().__init__(" ".join(check.reasons()))
        self.check = check


def _free_and_locked(character: Character, campaign: Campaign) -> tuple[Character, Campaign]:
    """The character (row locked, not yet in a campaign) and the campaign as it is now."""
    character = Character.objects.select_for_update().get(pk=character.pk)
    if character.campaign_id is not None:
        raise CampaignError(_("This character already plays in a campaign."))
    if character.rule_system != campaign.rule_system:
        # No GM can accept it: its values mean nothing under another system's rules.
        raise BringRefused(bring_check(campaign=campaign, character=character))
    return character, Campaign.objects.select_for_update().get(pk=campaign.pk)


def _seat(character: Character, campaign: Campaign) -> None:
    """Put the character in the campaign, with the cap it carries there; its requests
    still waiting, here or elsewhere, are answered by this."""
    character.campaign = campaign
    character.level_cap = carried_level_cap(character, campaign)
    character.save(update_fields=["campaign", "level_cap", "updated_at"])
    BringRequest.objects.filter(character=character, status=BringRequest.Status.PENDING).delete()


@transaction.atomic
def character_bring(*, campaign: Campaign, character: Character) -> None:
    """Bring a character that fits the campaign's rules; BringRefused says why not."""
    character, campaign = _free_and_locked(character, campaign)
    check = bring_check(campaign=campaign, character=character)
    if not check.fits:
        raise BringRefused(check)
    _seat(character, campaign)


@transaction.atomic
def bring_request_create(*, campaign: Campaign, character: Character) -> BringRequest | None:
    """Ask the GM to accept a character the rules refuse. One that fits by now (the GM
    raised the cap) is simply brought: None. Asking twice gives the same request."""
    character, campaign = _free_and_locked(character, campaign)
    if bring_check(campaign=campaign, character=character).fits:
        _seat(character, campaign)
        return None
    request, _created = BringRequest.objects.get_or_create(
        campaign=campaign, character=character, status=BringRequest.Status.PENDING
    )
    return request


def _pending(bring_request: BringRequest) -> BringRequest:
    """The request again, row locked; CampaignError when it is no longer waiting."""
    locked = BringRequest.objects.select_for_update().filter(pk=bring_request.pk).first()
    if locked is None or locked.status != BringRequest.Status.PENDING:
        raise CampaignError(_("This request has already been answered or withdrawn."))
    return locked


def _clean_note(note: str | None, *, required: bool) -> str:
    note = (note or "").replace("\x00", "").strip()
    if required and not note:
        raise CampaignError(_("Write a note to accept: why this character may play here as it is."))
    if len(note) > MAX_NOTE:
        raise CampaignError(
            _("The note may be at most %(max)s characters long.") % {"max": MAX_NOTE}
        )
    return note


@transaction.atomic
def bring_request_accept(*, bring_request: BringRequest, note: str, by) -> Character:
    """The GM lets the character in as it is, with a note the GM and the player see."""
    note = _clean_note(note, required=True)
    character = Character.objects.select_for_update().get(pk=bring_request.character_id)
    bring_request = _pending(bring_request)
    if character.campaign_id is not None:
        raise CampaignError(_("This character already plays in a campaign."))
    campaign = Campaign.objects.select_for_update().get(pk=bring_request.campaign_id)
    if not Membership.objects.filter(campaign=campaign, user_id=character.owner_id).exists():
        raise CampaignError(_("The character's player no longer plays in this campaign."))
    bring_request.status = BringRequest.Status.ACCEPTED
    bring_request.note, bring_request.decided_by = note, by
    bring_request.decided_at = timezone.now()
    bring_request.save(update_fields=["status", "note", "decided_by", "decided_at"])
    _seat(character, campaign)
    return character


@transaction.atomic
def bring_request_decline(*, bring_request: BringRequest, note: str, by) -> None:
    """The GM says no; the note (optional) tells the player why."""
    note = _clean_note(note, required=False)
    bring_request = _pending(bring_request)
    bring_request.status = BringRequest.Status.DECLINED
    bring_request.note, bring_request.decided_by = note, by
    bring_request.decided_at = timezone.now()
    bring_request.save(update_fields=["status", "note", "decided_by", "decided_at"])


@transaction.atomic
def bring_request_withdraw(*, bring_request: BringRequest) -> None:
    """The player takes back a request the GM has not answered."""
    _pending(bring_request).delete()
