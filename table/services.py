"""Rolling at the live table: every die on the server, every roll numbered and broadcast."""

import secrets

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from campaigns.models import Campaign
from rules.aoristos import dice
from table.broadcast import get_broadcaster
from table.models import RollEvent

rng = secrets.SystemRandom()  # tests replace it with scripted dice


def next_seq(campaign_id: int) -> int:
    """The campaign's next event number. The UPDATE locks the campaign row until commit, so
    concurrent rolls get 1, 2, 3, ... in commit order with no gaps or repeats."""
    Campaign.objects.filter(pk=campaign_id).update(event_seq=F("event_seq") + 1)
    return Campaign.objects.values_list("event_seq", flat=True).get(pk=campaign_id)


@transaction.atomic
def roll_record(
    *,
    campaign: Campaign,
    actor,
    hand: dice.Hand,
    purpose: dice.Purpose = dice.Purpose.TEST,
    character=None,
    label: str = "",
    test_base: int | None = None,
    threshold: int | None = None,
    secret: bool = False,
) -> RollEvent:
    """Roll `hand`, store it as the campaign's next event and broadcast it after commit.
    With a test base and threshold it is a success test (p. 5)."""
    rolled = dice.roll(hand, rng, purpose)
    event = RollEvent.objects.create(
        campaign=campaign,
        seq=next_seq(campaign.pk),
        actor=actor,
        character=character,
        kind=RollEvent.Kind.TEST if threshold is not None else RollEvent.Kind.HAND,
        label=label,
        hand=str(rolled.hand),
        dice=list(rolled.dice),
        counted=list(rolled.counted),
        result=rolled.result,
        test_base=test_base,
        threshold=threshold,
        secret=secret,
    )
    message = payload(event)
    transaction.on_commit(lambda: get_broadcaster().publish(campaign.pk, message))
    return event


def payload(event: RollEvent) -> dict:
    """Everything about a roll, as plain JSON-able data (what the broadcaster carries)."""
    outcome = event.outcome()
    return {
        "seq": event.seq,
        "faces": faces(event.dice, event.counted),
        "kind": event.kind,
        "actor": event.actor.username if event.actor else "",
        "character": event.character.name if event.character else "",
        "label": event.label,
        "hand": event.hand,
        "dice": event.dice,
        "counted": event.counted,
        "result": event.result,
        "test_base": event.test_base,
        "threshold": event.threshold,
        "total": outcome.total if outcome else None,
        "success": outcome.success if outcome else None,
        "margin": outcome.margin if outcome else None,
        "secret": event.secret,
        "created_at": event.created_at.isoformat(),
        "time": timezone.localtime(event.created_at).strftime("%H:%M"),
    }


def faces(rolled: list[int], counted: list[int]) -> list[dict]:
    """Each die with whether it counts (counted is a subsequence of the dice, in order)."""
    marked, remaining = [], list(counted)
    for value in rolled:
        counts = bool(remaining) and remaining[0] == value
        if counts:
            remaining.pop(0)
        marked.append({"value": value, "counted": counts})
    return marked


SECRET_FIELDS = ("seq", "kind", "actor", "secret", "created_at", "time")


def visible(message, *, is_gm: bool) -> dict:
    """What a viewer may see of a roll: a secret roll is the GM's alone; the others learn
    only that the GM rolled in secret (no hand, dice, label or result)."""
    if message["secret"] and not is_gm:
        return {key: message[key] for key in SECRET_FIELDS}
    return dict(message)


def events_after(campaign_id: int, after: int, *, is_gm: bool, limit: int = 500) -> list[dict]:
    """Stored events with seq > after, oldest first, as this viewer may see them."""
    events = (
        RollEvent.objects.filter(campaign_id=campaign_id, seq__gt=after)
        .select_related("actor", "character")
        .order_by("seq")[:limit]
    )
    return [visible(payload(event), is_gm=is_gm) for event in events]


def events_page(campaign_id: int, *, before: int | None, is_gm: bool, size: int = 30):
    """A page of history, newest first, ending before `before`; and the seq to page on."""
    events = RollEvent.objects.filter(campaign_id=campaign_id)
    if before is not None:
        events = events.filter(seq__lt=before)
    page = list(events.select_related("actor", "character").order_by("-seq")[: size + 1])
    older = page[size - 1].seq if len(page) > size else None
    return [visible(payload(event), is_gm=is_gm) for event in page[:size]], older
