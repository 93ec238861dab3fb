"""A session's luck per player (issue 48): the mean luck of each member's tests this
evening, server dice and their own alike, for everyone at the table.

A roll's luck is its mid-percentile under the exact distribution of its dice
(`table.services.luck_of`, by the functions the fight's story uses): 50 an average
roll, higher luckier. "This evening" is the campaign's tests since the last pause of
`SESSION_GAP` between two of them, within the last day, at most `MOST` of them. The
GM's secret rolls are left out (their luck would tell of them). Kept per process by the
campaign's last event number, so the pages that ask after a roll read it once."""

import threading
from collections import OrderedDict
from datetime import timedelta

from django.utils import timezone

from table.models import RollEvent
from table.services import luck_of

SESSION_GAP = timedelta(hours=4)
MOST = 500
CACHE_SIZE = 64

_cache: "OrderedDict[tuple, list[dict]]" = OrderedDict()
_lock = threading.Lock()


def session_luck(campaign) -> list[dict]:
    """[{"who", "luck", "rolls"}] for each member who rolled a test this evening, the
    luckiest first."""
    # created_at too: a test database (or a restored one) gives an id to another campaign.
    key = (campaign.pk, campaign.created_at, campaign.event_seq)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    found = compute(campaign.pk)
    with _lock:
        _cache[key] = found
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return found


def compute(campaign_id: int) -> list[dict]:
    since = timezone.now() - timedelta(days=1)
    rolls = list(
        RollEvent.objects.filter(campaign_id=campaign_id, kind=RollEvent.Kind.TEST,
                                 secret=False, created_at__gte=since)
        .select_related("actor").order_by("-seq")[:MOST]
    )
    evening = []
    for roll in rolls:  # newest first: stop at the pause before this evening
        if evening and evening[-1].created_at - roll.created_at >= SESSION_GAP:
            break
        evening.append(roll)
    by_member: dict[str, list[float]] = {}
    for roll in evening:
        luck = luck_of(roll)
        if luck is not None and roll.actor is not None:
            by_member.setdefault(roll.actor.username, []).append(luck)
    rows = [{"who": who, "luck": round(sum(values) / len(values)), "rolls": len(values)}
            for who, values in by_member.items()]
    return sorted(rows, key=lambda row: (-row["luck"], row["who"]))


def forget() -> None:
    with _lock:
        _cache.clear()
