"""The rolls other apps count in a session's luck (issue 48): the table counts its tests
(`table.luck`), the fights register the rolls of their players' characters here
(`combat.fight_luck`), so the table's page gives each member's luck over every roll of
the evening without the table and the fights knowing each other.

A source is ``source(campaign_id, since) -> [(when, username, luck)]``: each roll's luck
(0-100, its mid-percentile under its exact distribution), whose it is, and when it was
rolled, for rolls since `since`."""

from collections.abc import Callable
from datetime import datetime

Source = Callable[[int, datetime], list[tuple[datetime, str, float]]]
_SOURCES: list[Source] = []


def register(source: Source) -> None:
    if source not in _SOURCES:
        _SOURCES.append(source)


def rolls(campaign_id: int, since: datetime) -> list[tuple[datetime, str, float]]:
    """Every registered source's rolls of the campaign since `since`."""
    return [roll for source in _SOURCES for roll in source(campaign_id, since)]
