"""T10 combat (t10-ap-utdrag.txt, "Initiativ" to "Vapen"; rulings.md § T10) as a pure
state machine, behind the rule-system engine interface of `rules.engine`.

Modules: ``state`` (the encounter's values), ``commands``, ``events``, ``engine``
(`decide` and `evolve`; its docstring states the readings where the excerpt is silent)
and ``view`` (what each viewer sees, prompts, previews and log lines). Rolls are
`rules.t10.rolls`'; a character's values `rules.t10.character`'s.
"""

from collections.abc import Mapping
from typing import Any

from rules.engine import Viewer
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.t10 import character
from rules.t10.combat import commands, engine, events, state, view
from rules.t10.combat.state import Encounter, HouseRules
from rules.t10.combat.view import GM_VIEW

__all__ = ["ENGINE", "HOUSE_RULES", "T10Combat", "commands", "engine", "events", "state", "view"]

HOUSE_RULES = (
    {
        "key": "metres_per_ap",
        "label": _("Metres moved per AP"),
        "kind": "int",
        "default": 2,
        "minimum": 1,
        "maximum": 20,
        "rule": "Action points (the sheet's action page)",
        "help": _("The excerpt's action costs are on the character sheet's action page, "
                  "which it lacks."),
    },
    {
        "key": "cover_ap",
        "label": _("AP to throw oneself into cover"),
        "kind": "int",
        "default": 3,
        "minimum": 0,
        "maximum": 10,
        "rule": "Spara action points (the grenade example)",
        "help": _("Johan spends 3 of his saved AP to throw himself into cover."),
    },
    {
        "key": "cover_modifier",
        "label": _("Modifier on a direct attack against a target in cover"),
        "kind": "int",
        "default": -2,
        "minimum": -10,
        "maximum": 0,
        "rule": "Spara action points (the grenade example)",
        "help": _("The excerpt says cover saves Johan from the explosion, not what it does "
                  "against a shot; an explosive does no damage to a target in cover."),
    },
    {
        "key": "burst_shots",
        "label": _("Rounds an A burst uses"),
        "kind": "int",
        "default": 3,
        "minimum": 1,
        "maximum": 30,
        "rule": "Vapen (Eldgivningssätt)",
        "help": _("The excerpt does not count ammunition; E uses one round."),
    },
    {
        "key": "treat_ap",
        "label": _("AP of medical care (Sjukvård)"),
        "kind": "int",
        "default": 10,
        "minimum": 1,
        "maximum": 30,
        "rule": "Utmattning och skada: only medical care heals Skada",
        "help": _("Paid across rounds when dearer than the AP left."),
    },
    {
        "key": "treat_heal",
        "label": _("Skada healed by a successful Sjukvård roll (+1 per DoS)"),
        "kind": "int",
        "default": 1,
        "minimum": 0,
        "maximum": 10,
        "rule": "Utmattning och skada: only medical care heals Skada",
        "help": _("The excerpt does not say how medical care works."),
    },
    {
        "key": "painkiller_ap",
        "label": _("AP to take or give painkillers (smärtstillande)"),
        "kind": "int",
        "default": 2,
        "minimum": 0,
        "maximum": 10,
        "rule": "Utmattning och skada: smärtstillande",
        "help": _("With painkillers Utmattning may fall below Skada."),
    },
)
_RULES = {rule["key"]: rule for rule in HOUSE_RULES}


def _house_value(key: str, raw: Any) -> int:
    rule = _RULES[key]
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)  # a form's number field
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise RulesError(f"{key} must be a whole number")
    if not rule["minimum"] <= raw <= rule["maximum"]:
        raise RulesError(f"{key} must be {rule['minimum']} to {rule['maximum']}")
    return raw


class T10Combat:
    """The T10 engine (see rules.engine.CombatEngine)."""

    system = "t10"
    template = "combat/t10"
    event_types = {
        **events.EVENT_TYPES,
        **events.VALUE_TYPES,
        **commands.COMMAND_TYPES,
        **{
            cls.__name__: cls
            for cls in (
                state.Combatant,
                state.Weapon,
                state.Armour,
                state.Begun,
                state.Reaction,
                state.Pending,
            )
        },
    }

    def house_rules(self):
        return HOUSE_RULES

    def new_state(self, house_rules: Mapping[str, Any] | None = None, name: str = "") -> Encounter:
        values = {
            key: _house_value(key, raw)
            for key, raw in dict(house_rules or {}).items()
            if key in _RULES
        }
        return Encounter(name=name, house=HouseRules(**values))

    def parse_command(self, data, *, weapons=None, armour=None):
        return commands.parse_command(data, weapons=weapons, armour=armour)

    def actor_of(self, encounter: Encounter, command) -> str | None:
        return engine.actor_of(encounter, command)

    def timeout_actor(self, encounter: Encounter, command) -> str | None:
        """Once a combatant with saved AP has let an attack wait too long, the attacker
        may pass for it."""
        pending = encounter.pending
        if (
            isinstance(command, commands.Pass)
            and pending is not None
            and command.id in pending.unanswered
        ):
            return pending.attacker
        return None

    def decide(self, encounter: Encounter, command, rng):
        return engine.decide(encounter, command, rng)

    def evolve(self, encounter: Encounter, event) -> Encounter:
        return engine.evolve(encounter, event)

    def view(self, encounter: Encounter, viewer: Viewer) -> dict:
        return view.view(encounter, viewer)

    def describe(self, encounter: Encounter, events_, viewer: Viewer) -> list[dict]:
        return view.describe(encounter, events_, viewer)

    def preview(self, encounter: Encounter, command, viewer: Viewer = GM_VIEW) -> dict:
        if not isinstance(command, commands.Attack):
            raise RulesError("only attacks have a preview")
        return view.attack_preview(encounter, command, viewer)

    def damage_sheet(
        self, encounter: Encounter | None, character_id: int, house: Mapping[str, Any]
    ) -> dict:
        """A character's Utmattning and Skada (ten boxes each) for its sheet, with what it
        took in `encounter` (None: nothing yet); `recorded`: whether the encounter has it.
        Plain data for the engine's ``_damage_sheet.html`` (see `view.damage_sheet`)."""
        return view.damage_sheet(encounter, character_id, house)

    def catalogue(self) -> dict[str, dict]:
        """The excerpt lists no weapons or armour: the campaign's own entries only."""
        return {"weapon": {}, "armour": {}}

    def body_of(self, encounter: Encounter, character_id: int) -> dict | None:
        """A campaign character's body in this encounter, as the `carried` field of its
        add_combatant in the next one: None when it is not here, {} when it is unhurt
        (Utmattning and Skada 0)."""
        for c in encounter.combatants:
            if c.character_id == character_id:
                return engine.body_of(c, encounter.name)
        return None

    def catalogue_fields(self) -> dict[str, list[dict]]:
        """The campaign catalogue's forms as data (the app builds them): per kind, each
        field's key, label, kind and bounds or choices; what `item_from_dict` reads back."""
        skills = [[stat.key, stat.term.swedish] for stat in character.SKILLS]
        metres = {"kind": "int", "minimum": 0, "maximum": 10000}
        ap = {"kind": "int", "minimum": 0, "maximum": commands.MAX_AP}
        modifier = {"kind": "int", "minimum": -10, "maximum": 10, "initial": 0}
        return {
            "weapon": [
                {"key": "key", "label": _("Key"), "kind": "slug"},
                {"key": "name", "label": _("Name"), "kind": "text"},
                {"key": "skill", "label": _("Skill attacks use"), "kind": "choice",
                 "choices": skills, "initial": "pistol"},
                {"key": "close", "label": _("Close range (m)"), **metres, "initial": 5},
                {"key": "normal", "label": _("Normal range (m)"), **metres, "initial": 25},
                {"key": "maximum", "label": _("Maximum range (m)"), **metres, "initial": 50},
                {"key": "single", "label": "E", "kind": "bool", "initial": True},
                {"key": "single_modifier", "label": _("Modifier E"), **modifier},
                {"key": "auto", "label": "A", "kind": "bool"},
                {"key": "auto_modifier", "label": _("Modifier A"), **modifier},
                {"key": "damage", "label": _("Damage"), "kind": "int", "minimum": 0,
                 "maximum": 30, "initial": 3},
                {"key": "attack_ap", "label": _("Attack (AP)"), **ap, "minimum": 1,
                 "initial": 3},
                {"key": "reload_ap", "label": _("Reload (AP)"), **ap, "initial": 5},
                {"key": "stance_ap", "label": _("Stance (AP)"), **ap, "initial": 2},
                {"key": "magazine", "label": _("Magazine (0: not counted)"), "kind": "int",
                 "minimum": 0, "maximum": 1000, "initial": 0},
                {"key": "explosive", "label": _("Explosive (area)"), "kind": "bool"},
                {"key": "damage_on_miss", "label": _("Damage on a miss (damage − DoF)"),
                 "kind": "bool"},
            ],
            "armour": [
                {"key": "key", "label": _("Key"), "kind": "slug"},
                {"key": "name", "label": _("Name"), "kind": "text"},
                {"key": "protection", "label": "Kroppsskydd", "kind": "int", "minimum": 0,
                 "maximum": state.MAX_PROTECTION, "initial": 2},
            ],
        }

    def item_from_dict(self, kind: str, data):
        """A campaign's own catalogue entry from its stored JSON; RulesError if malformed."""
        if kind == "weapon":
            return commands.weapon_from_dict(data)
        if kind == "armour":
            return commands.armour_from_dict(data)
        raise RulesError(f"unknown catalogue kind {kind!r}")

    def character_block(
        self, *, name: str, levels: Mapping[str, int], derived: Mapping[str, int | None]
    ) -> dict:
        """An add_combatant command's fields for a character: `levels` its values keyed by
        `rules.t10.character`'s keys (abilities, skills, Initiativ); the block's skills
        are every skill's effective bonus (`character.bonus`: the skill's, else its
        ability's). `derived` (AP per round) is not needed: AP are 10 − Utmattning."""
        block: dict = {
            "type": "add_combatant",
            "name": name[:100],
            "npc": False,
            "initiative": int(levels.get(character.INITIATIVE.key, 0) or 0),
            **{key: int(levels.get(key, 0) or 0) for key in commands.ABILITY_KEYS},
            "skills": {key: character.bonus(levels, key) for key in commands.SKILL_KEYS},
        }
        return block


ENGINE = T10Combat()
