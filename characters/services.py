"""Advancement through the UP ledger (p. 3): awards, spends and undoing the latest spend.

Every change is one :class:`~characters.models.DpEntry`; a character's levels are its
build plus its spends that were not undone, its saved UP the build's UP left plus the
ledger's sum. These functions do not check who may act (the views ask
``campaigns.access``); they keep the ledger consistent:

- each call runs in one transaction and first locks the character's row
  (``select_for_update``: a row lock on PostgreSQL; SQLite's IMMEDIATE transactions take
  the write lock at BEGIN), so two spends at the same moment queue and the second sees
  the first one's UP;
- ``dp_before`` is read after the lock, ``dp_after = dp_before + amount``;
- saved UP never go below 0 through a spend;
- an award is a whole number of UP from 1 to 500 (``MAX_AWARD``) with a reason. Negative
  corrections are not part of advancement: a wrong award is corrected by the GM in the
  build (the UP budget) and explained in a new entry's reason, never by editing history;
- with an ``idempotency_key`` (core.db.idempotency) a call repeated by the same user
  changes nothing and returns what the first call made: the key is stored on the entries,
  under a unique constraint that catches the repeat at the INSERT (in a savepoint), and
  a repeat that would now be refused (the UP are spent, the spend is undone) looks for
  the first call's entries before answering with the refusal.
"""

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from campaigns.models import Campaign
from characters.models import Character, DpEntry
from characters.terms import TERMS
from rules import RulesError
from rules.aoristos import advancement
from rules.aoristos import character as rules

__all__ = [
    "MAX_AWARD",
    "MAX_REASON",
    "AdvancementError",
    "dp_award",
    "dp_award_group",
    "dp_spend",
    "dp_undo_last_spend",
    "level_cap_for",
    "undoable_spend",
]

MAX_AWARD = rules.MAX_DP_BUDGET  # 500: as many UP as the largest build budget
MAX_REASON = DpEntry._meta.get_field("reason").max_length


class AdvancementError(Exception):
    """A refused award, spend or undo; ``message`` is for the user, in their language."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def level_cap_for(character: Character) -> int:
    """The highest level a raise may reach: the campaign's cap in a campaign, else the
    character's own (p. 3: level 5 is the realistic human maximum)."""
    if character.campaign_id is not None:
        return character.campaign.level_cap
    return character.level_cap


def undoable_spend(character: Character) -> DpEntry | None:
    """The latest spend if it has not been undone; only that one may be undone."""
    spend = character.ledger.filter(kind=DpEntry.Kind.SPEND).order_by("-pk").first()
    if spend is None or DpEntry.objects.filter(undoes=spend).exists():
        return None
    return spend


def _locked(character: Character) -> Character:
    """The character again, its row locked until commit, with its campaign (for the level
    cap) in the same query. Only the character's row is locked: the campaign row is the
    one every roll's INSERT locks for its number (table.services.insert)."""
    return (
        Character.objects.select_for_update(of=("self",))
        .select_related("campaign")
        .get(pk=character.pk)
    )


def _made_before(idempotency_key: str | None, by, kind: str, character=None) -> list[DpEntry]:
    """The entries an earlier call by `by` with this key made, oldest first (one for a
    spend, an undo or an award to one character; one per character for a group award).
    A key that made another kind of change (a form changed by hand) is refused."""
    if idempotency_key is None:
        return []
    entries = DpEntry.objects.filter(created_by=by, idempotency_key=idempotency_key)
    if character is not None:
        entries = entries.filter(character=character)
    earlier = list(entries.select_related("character").order_by("pk"))
    if any(entry.kind != kind for entry in earlier):
        raise AdvancementError(
            _("This form was already used for another change. Reload the page and try again.")
        )
    return earlier


def _store(entries: list[DpEntry], idempotency_key: str | None, by) -> list[DpEntry]:
    """Insert `entries`; with a key, in a savepoint, and if the key was used already
    (the constraint), nothing is stored and the earlier entries are returned."""
    if idempotency_key is None:
        for entry in entries:
            entry.save(force_insert=True)
        return entries
    try:
        with transaction.atomic():
            for entry in entries:
                entry.idempotency_key = idempotency_key
                entry.save(force_insert=True)
    except IntegrityError:
        character = entries[0].character if len(entries) == 1 else None
        if earlier := _made_before(idempotency_key, by, entries[0].kind, character):
            return earlier
        raise
    return entries


def _refused_or_repeat(error, idempotency_key, by, kind, character=None) -> list[DpEntry]:
    """A refusal, unless the call repeats one that succeeded: then that one's entries."""
    if earlier := _made_before(idempotency_key, by, kind, character):
        return earlier
    raise error


def _check_award(amount: object, reason: object) -> tuple[int, str]:
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise AdvancementError(_("The number of UP must be a whole number."))
    if not 1 <= amount <= MAX_AWARD:
        raise AdvancementError(
            _("An award is from 1 to %(max)s UP, not %(amount)s.")
            % {"max": MAX_AWARD, "amount": amount}
        )
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason:
        raise AdvancementError(_("Give a reason for the award."))
    if len(reason) > MAX_REASON:
        raise AdvancementError(
            _("The reason may be at most %(max)s characters long.") % {"max": MAX_REASON}
        )
    return amount, reason


def _award(character: Character, amount: int, reason: str, by) -> DpEntry:
    dp_before = character.saved_dp()
    return DpEntry(
        character=character,
        kind=DpEntry.Kind.AWARD,
        amount=amount,
        reason=reason,
        dp_before=dp_before,
        dp_after=dp_before + amount,
        created_by=by,
    )


def dp_award(
    *, character: Character, amount: int, reason: str, by, idempotency_key: str | None = None
) -> DpEntry:
    """Give ``character`` ``amount`` UP (1..500) for ``reason`` (p. 3)."""
    try:
        amount, reason = _check_award(amount, reason)
    except AdvancementError as error:
        return _refused_or_repeat(error, idempotency_key, by, DpEntry.Kind.AWARD, character)[0]
    with transaction.atomic():
        entries = [_award(_locked(character), amount, reason, by)]
        stored = _store(entries, idempotency_key, by)
        if stored is entries:
            _tell_the_table(entries, amount, reason, by)
        return stored[0]


def dp_award_group(
    *, campaign: Campaign, amount: int, reason: str, by, idempotency_key: str | None = None
) -> list[DpEntry]:
    """Give every character now in ``campaign`` ``amount`` UP for ``reason``; one entry each.
    Repeated with its key, it returns the first call's entries (the characters then)."""
    try:
        amount, reason = _check_award(amount, reason)
    except AdvancementError as error:
        return _refused_or_repeat(error, idempotency_key, by, DpEntry.Kind.AWARD)
    with transaction.atomic():
        # Lock in primary-key order, the same order every caller uses: no deadlocks.
        characters = list(
            Character.objects.select_for_update().filter(campaign=campaign).order_by("pk")
        )
        if not characters:
            return _refused_or_repeat(
                AdvancementError(_("The campaign has no characters to award.")),
                idempotency_key,
                by,
                DpEntry.Kind.AWARD,
            )
        entries = [_award(character, amount, reason, by) for character in characters]
        stored = _store(entries, idempotency_key, by)
        if stored is entries:
            _tell_the_table(entries, amount, reason, by)
        return stored


def _tell_the_table(entries: list[DpEntry], amount: int, reason: str, by) -> None:
    """A new award reaches the campaign's table as one line of its log (a repeat does not)."""
    campaign_id = entries[0].character.campaign_id
    if campaign_id is None:
        return
    from table.services import notice_record  # the table builds on characters

    notice_record(
        campaign_id=campaign_id,
        kind="award",
        actor=getattr(by, "username", ""),
        amount=amount,
        reason=reason,
        characters=[entry.character.name for entry in entries],
    )


def dp_spend(*, character: Character, key: str, by, idempotency_key: str | None = None) -> DpEntry:
    """Raise attribute or skill ``key`` one level at the book price (p. 3, 17)."""
    try:
        kind = advancement.raise_kind(key)
    except RulesError:
        raise AdvancementError(
            _("There is no attribute or skill called “%(key)s”.") % {"key": key}
        ) from None
    with transaction.atomic():
        character = _locked(character)
        try:
            entry = _spend(character, key, kind, by)
        except AdvancementError as error:
            return _refused_or_repeat(error, idempotency_key, by, DpEntry.Kind.SPEND, character)[0]
        return _store([entry], idempotency_key, by)[0]


def _spend(character: Character, key: str, kind, by) -> DpEntry:
    """The (unsaved) spend raising ``key``, checked against the locked character."""
    name = TERMS[key].swedish
    level = character.levels()[key]
    if level >= rules.MAX_LEVEL:
        raise AdvancementError(
            _("%(name)s is at level %(level)s, the highest there is.")
            % {"name": name, "level": level}
        )
    if character.campaign_id is not None:
        # Read after the lock: the GM's change of the cap locks the campaign's characters
        # first, and the campaign row this lock's query joined may be from before it.
        character.campaign.refresh_from_db(fields=["level_cap"])
    cap = level_cap_for(character)
    if level + 1 > cap:
        raise AdvancementError(
            _("%(name)s %(next)s would be above the level cap %(cap)s.")
            % {"name": name, "next": level + 1, "cap": cap}
        )
    cost = advancement.raise_cost(kind, level)
    dp_before = character.saved_dp()
    if dp_before < cost:
        raise AdvancementError(
            _("%(name)s %(next)s costs %(cost)s UP; %(saved)s UP are saved.")
            % {"name": name, "next": level + 1, "cost": cost, "saved": dp_before}
        )
    return DpEntry(
        character=character,
        kind=DpEntry.Kind.SPEND,
        amount=-cost,
        key=key,
        level_before=level,
        level_after=level + 1,
        dp_before=dp_before,
        dp_after=dp_before - cost,
        created_by=by,
    )


def dp_undo_last_spend(*, character: Character, by, idempotency_key: str | None = None) -> DpEntry:
    """Undo the latest spend: the level goes back down and its UP come back (p. 3).

    Only the ledger's latest spend can be undone, and only once; earlier spends stay.
    """
    with transaction.atomic():
        character = _locked(character)
        spend = undoable_spend(character)
        if spend is None:
            error = AdvancementError(_("There is no spend to undo."))
            return _refused_or_repeat(error, idempotency_key, by, DpEntry.Kind.UNDO, character)[0]
        level = character.levels()[spend.key]
        dp_before = character.saved_dp()
        entry = DpEntry(
            character=character,
            kind=DpEntry.Kind.UNDO,
            amount=-spend.amount,
            key=spend.key,
            level_before=level,
            level_after=level - 1,
            dp_before=dp_before,
            dp_after=dp_before - spend.amount,
            undoes=spend,
            created_by=by,
        )
        return _store([entry], idempotency_key, by)[0]
