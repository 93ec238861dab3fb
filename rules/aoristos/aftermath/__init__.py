"""After the fight (p. 13-15): a campaign's clock and its characters' bodies as a pure
state machine, with the same engine shape as combat (`rules.engine`): the same log of
records, undo, replay and stream in the site.

Modules: ``figures`` (the text's numbers and tables, each with its page), ``state`` (the
chronicle, bodies and wounds), ``commands``, ``events``, ``engine`` (`decide`, `evolve`,
and advancing time in order) and ``view`` (what pages show, and log lines).
"""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from rules.aoristos.aftermath import commands, engine, events, figures, state, view
from rules.aoristos.aftermath.state import Chronicle
from rules.engine import Viewer
from rules.errors import RulesError

__all__ = [
    "ENGINE",
    "AoristosChronicle",
    "commands",
    "engine",
    "events",
    "figures",
    "state",
    "view",
]

# Where the chronicle starts when the GM has not said (a Monday morning; the GM moves the
# clock to the campaign's own date with "advance to").
DEFAULT_START = "2026-01-05T08:00"
HOUSE_RULES = (
    {
        "key": "start",
        "kind": "datetime",
        "default": DEFAULT_START,
        "rule": "s. 14",
        "help": "When the chronicle's clock starts (the weekly healing test falls on the "
        "night to Monday).",
    },
    {
        "key": "rest_hours",
        "kind": "int",
        "default": 8,
        "rule": "s. 14",
        "help": "Hours of rest after which the lasting nervchock is away until activity "
        "brings it back ('tills personen fått vila ut': the text gives no number).",
    },
)


class AoristosChronicle:
    """The Aoristos chronicle engine (see rules.engine.CombatEngine)."""

    system = "aoristos"
    template = "combat/aoristos_chronicle"
    event_types = {
        **events.EVENT_TYPES,
        **{cls.__name__: cls for cls in (state.Body, state.Wound, state.Disorder)},
    }

    def house_rules(self):
        return HOUSE_RULES

    def new_state(self, house_rules: Mapping[str, Any] | None = None, name: str = "") -> Chronicle:
        values = dict(house_rules or {})
        try:
            start = datetime.fromisoformat(str(values.get("start", DEFAULT_START)))
            rest_hours = int(values.get("rest_hours", 8))
        except (TypeError, ValueError):
            raise RulesError("the start is a date and time, the rest a number of hours") from None
        if not 1 <= rest_hours <= 72:
            raise RulesError("the rest that ends lasting nervchock is 1-72 hours")
        return Chronicle(
            clock=start.replace(tzinfo=None, second=0, microsecond=0), rest_hours=rest_hours
        )

    def parse_command(self, data, **_catalogues):
        return commands.parse_command(data)

    def actor_of(self, chronicle: Chronicle, command) -> str | None:
        return None  # the GM's alone

    def timeout_actor(self, chronicle: Chronicle, command) -> str | None:
        return None

    def decide(self, chronicle: Chronicle, command, rng):
        return engine.decide(chronicle, command, rng)

    def evolve(self, chronicle: Chronicle, event) -> Chronicle:
        return engine.evolve(chronicle, event)

    def view(self, chronicle: Chronicle, viewer: Viewer, names=None) -> dict:
        return view.view(chronicle, viewer)

    def describe(self, chronicle: Chronicle, events_, viewer: Viewer, names=None) -> list[dict]:
        return view.describe(chronicle, events_, viewer)

    def preview(self, chronicle: Chronicle, command, viewer: Viewer, names=None) -> dict:
        raise RulesError("the chronicle has no previews")


ENGINE = AoristosChronicle()
