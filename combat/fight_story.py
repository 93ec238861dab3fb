"""The fight's story in numbers (issue 29): per combatant its attacks, hits against the
hits its previews expected, damage dealt and taken, KP spent on what, and how lucky its
dice were, read from the stored events by the rule system's own reading
(`rules.story.tell`).

Everyone at the table sees it once the fight is over (the page and the API); the GM also
while it goes on (the API). A fight's story changes only with its version, so it is kept
per process by (encounter, created_at, version): every page that opens it after the end
reads it once.
"""

import dataclasses
import threading
from collections import OrderedDict

from django.utils.translation import gettext_noop

from combat import services
from combat.models import Encounter

CACHE_SIZE = 64
# The systems' damage units (`Story.damage_unit`) for the page's translation: T10's
# "skada" and Phobia's "skadepoäng" are the texts' own words.
UNITS = (gettext_noop("damage"), gettext_noop("skada"), gettext_noop("skadepoäng"))

_cache: "OrderedDict[tuple, object]" = OrderedDict()
_lock = threading.Lock()


def story_of(encounter: Encounter):
    """The fight's story (`rules.story.Story`) at its stored version; None for the
    chronicle, which is no fight."""
    if encounter.kind != Encounter.Kind.COMBAT:
        return None
    key = (encounter.pk, encounter.created_at, encounter.version)
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    from rules import story as rules_story

    engine = services.engine_of(encounter)
    applied = services.folded(encounter, engine).applied
    by_version = {r.version: r for r in services.records(encounter.pk, engine, versions=applied)}
    found = rules_story.tell(
        engine, services.initial_state(encounter, engine), [by_version[v].events for v in applied]
    )
    with _lock:
        _cache[key] = found
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return found


def shown_to(encounter: Encounter, membership) -> bool:
    """Whether the member may read the story now: everyone once the fight is over, the GM
    at any time."""
    return encounter.ended or membership.is_gm


def forget() -> None:
    with _lock:
        _cache.clear()


def told_to(story, membership):
    """The story as `membership` may read it (issue 42). The GM reads it whole. A player
    reads of an NPC only what the encounter page showed them: its attacks, hits, damage
    and luck follow from the log, but its expected hits are the sum of its exact chances
    to hit, which give away its skill, and its KP spent tell what the GM's panel alone
    showed; both are None in a player's rows of NPCs (the page and the API say "hidden")."""
    if story is None or membership.is_gm:
        return story
    rows = tuple(
        dataclasses.replace(row, expected_hits=None, expected_hits_answered=None,
                            kp_spent=None) if row.npc else row
        for row in story.rows
    )
    return dataclasses.replace(story, rows=rows)
