"""A session's luck per player (issue 48): the mean luck of each member's tests this
evening, and of their characters' rolls in the evening's fights (`campaign_log.luck`),
server dice and their own alike, for everyone at the table.

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

from campaign_log import luck as campaign_log_luck
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
    timeline = [(roll.created_at, roll.actor.username, luck_of(roll)) for roll in rolls
                if roll.actor is not None]
    # The fights' rolls of the players' characters too (combat.fight_luck).
    timeline += campaign_log_luck.rolls(campaign_id, since)
    timeline.sort(key=lambda item: item[0], reverse=True)
    evening = []
    for item in timeline[:MOST]:  # newest first: stop at the pause before this evening
        if evening and evening[-1][0] - item[0] >= SESSION_GAP:
            break
        evening.append(item)
    by_member: dict[str, list[float]] = {}
    for _when, who, luck in evening:
        if luck is not None:
            by_member.setdefault(who, []).append(luck)
    rows = [{"who": who, "luck": round(sum(values) / len(values)), "rolls": len(values)}
            for who, values in by_member.items()]
    return sorted(rows, key=lambda row: (-row["luck"], row["who"]))


def forget() -> None:
    with _lock:
        _cache.clear()
