"""The campaign's running fights as its other pages show them (issue 26): which fights are
on, and which prompts wait for this member's answer.

A prompt waits for a member when the engine's view marks it theirs (`mine`) and it is for
a combatant they command: a player's own characters, the GM's NPCs (not a player's
character, which the GM's view also marks `mine`). A player learns only of their own.

What a member sees of a fight changes only with its version, so the summary is kept per
process by (encounter, version, viewer): every page of one member (and of every member
with the same view) asks the engine once per record, however often the pages look.
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass

from django.utils import timezone

from combat.models import CombatRecord, Encounter
from combat.services import PROMPT_TIMEOUT, engine_of, folded, viewer_for

CACHE_SIZE = 512


@dataclass(frozen=True)
class Prompt:
    """A prompt that waits for the member: its fight, whom it is for, what it asks."""

    encounter_id: int
    encounter_name: str
    kind: str
    combatant: str  # the combatant's id in the fight
    name: str  # the combatant's name
    attacked: bool  # an attack on the combatant waits for its answer
    opened_at: object  # when the record that opened it was stored (a datetime)
    # "turn": not a prompt but the member's own activation (issue 43): no default is taken
    # for it, so it has no countdown.

    @property
    def timed(self) -> bool:
        """A prompt whose offered default may be taken for an absent player; a turn has
        none, nor the table's dice (the GM may have the server roll them instead)."""
        return self.kind not in ("turn", "dice")

    @property
    def key(self) -> str:
        return f"{self.encounter_id}-{self.kind}-{self.combatant}"

    @property
    def url(self) -> str:
        from django.urls import reverse

        return reverse("combat:page", args=[self.encounter_id])

    def seconds_left(self, now=None) -> int:
        """Seconds until the offered default may be taken for an absent player (20 s)."""
        waited = ((now or timezone.now()) - self.opened_at).total_seconds()
        return max(0, int(PROMPT_TIMEOUT.total_seconds() - waited + 0.999))


@dataclass(frozen=True)
class Fight:
    encounter: Encounter
    started: bool
    prompts: tuple[Prompt, ...]


_cache: "OrderedDict[tuple, tuple[bool, tuple[Prompt, ...]]]" = OrderedDict()
_lock = threading.Lock()


def fights(campaign_id: int, membership) -> list[Fight]:
    """The campaign's fights that have not ended (oldest first), as `membership` sees
    them: whether each has started, and the prompts that wait for this member."""
    encounters = Encounter.objects.filter(
        campaign_id=campaign_id, kind=Encounter.Kind.COMBAT, ended=False
    ).order_by("created_at", "pk")
    return [fight_of(encounter, membership) for encounter in encounters]


def running(campaign_id: int, membership) -> list[Encounter]:
    """The fights of the campaign that are on: started (or a single attack) and not over."""
    return [fight.encounter for fight in fights(campaign_id, membership) if fight.started]


def waiting(campaign_id: int, membership) -> list[Prompt]:
    """The prompts that wait for `membership`'s answer in the campaign's fights."""
    return [prompt for fight in fights(campaign_id, membership) for prompt in fight.prompts]


def progress(encounter: Encounter, membership) -> str:
    """How far a fight has come, as the fights list says it: "ended", "running" or
    "setup" (not started yet). An ended fight is read from its row; the others from the
    summary kept per version, so a list of fights folds each one once per version."""
    if encounter.ended:
        return "ended"
    return "running" if fight_of(encounter, membership).started else "setup"


def fight_of(encounter: Encounter, membership) -> Fight:
    viewer = viewer_for(encounter, membership)
    # created_at too: a test database (or a restored one) gives an id to another fight.
    key = (encounter.pk, encounter.created_at, encounter.version, viewer)
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
    if found is None:
        found = summary(encounter, viewer)
        with _lock:
            _cache[key] = found
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    started, prompts = found
    return Fight(encounter=encounter, started=started, prompts=prompts)


def calls(prompt: dict, viewer, encounter: Encounter) -> bool:
    """Whether a prompt calls this viewer: a player for their own combatant's, the GM for
    an NPC's (the GM may answer a player's prompt, but is not called for it)."""
    return bool(prompt.get("mine")) and (
        prompt["for"] in viewer.controls
        or (viewer.is_gm and prompt["for"] not in encounter.controllers)
    )


def summary(encounter: Encounter, viewer) -> tuple[bool, tuple[Prompt, ...]]:
    view = engine_of(encounter).view(folded(encounter).state, viewer)
    started = bool(view.get("started") or view.get("single")) and not view.get("ended")
    if view.get("ended"):
        return False, ()
    names = {c["id"]: c.get("name", "") for c in view.get("combatants", ())}
    theirs = [p for p in view.get("prompts", ()) if calls(p, viewer, encounter)]
    # A player's own activation finds them as a prompt does (issue 43): the combatant
    # whose turn it is is theirs and has something to do (the GM is at the fight).
    active = view.get("active")
    turn = (not viewer.is_gm and active in viewer.controls and bool(view.get("actions"))
            and not any(p["for"] == active for p in theirs))
    if not theirs and not turn:
        return started, ()
    opened_at = stored_at(encounter) or timezone.now()
    turns = (Prompt(encounter_id=encounter.pk, encounter_name=encounter.name, kind="turn",
                    combatant=active, name=names.get(active, ""), attacked=False,
                    opened_at=opened_at),) if turn else ()
    return started, turns + tuple(
        Prompt(
            encounter_id=encounter.pk,
            encounter_name=encounter.name,
            kind=p["kind"],
            combatant=p["for"],
            name=names.get(p["for"]) or p.get("who") or "",
            # Aoristos's vigilance; Phobia's response and T10's reaction of the target.
            attacked=p["kind"] == "vigilance" or p.get("target") is True,
            opened_at=opened_at,
        )
        for p in theirs
    )


def stored_at(encounter: Encounter):
    """When the record of the encounter's current version was stored (None before the
    first): the moment a prompt it opened started waiting. A record never changes, so the
    answer is kept with the version's summaries."""
    key = ("stored_at", encounter.pk, encounter.created_at, encounter.version)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    found = (
        CombatRecord.objects.filter(encounter_id=encounter.pk, version=encounter.version)
        .values_list("created_at", flat=True)
        .first()
    )
    with _lock:
        _cache[key] = found
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return found


def forget() -> None:
    with _lock:
        _cache.clear()
