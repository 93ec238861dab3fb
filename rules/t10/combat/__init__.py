"""T10 combat (t10-ap-utdrag.txt, "Initiativ" to "Vapen"; rulings.md § T10) as a pure
state machine, behind the rule-system engine interface of `rules.engine`.

Modules: ``state`` (the encounter's values), ``commands``, ``events``, ``engine``
(`decide` and `evolve`; its docstring states the readings where the excerpt is silent),
the handlers by the text's sections under it (``rounds``, ``actions``, ``attacks``,
``damage``; below them ``reading`` and ``fold``) and ``view`` (what each viewer sees,
prompts, previews and log lines). Rolls are `rules.t10.rolls`'; a character's values
`rules.t10.character`'s. What every system's engine does alike (the roster, reading
commands, the commands and events alike in several systems, the engine object) is
`rules.combat_kit`'s; the battle map's scene `rules.scene`'s.
"""

from collections.abc import Mapping
from typing import Any

from rules.combat_kit import SystemCombat, character_command, house_values
from rules.errors import gettext_noop as _
from rules.t10 import character
from rules.t10.combat import commands, damage, engine, events, policy, starter, state, view
from rules.t10.combat.state import Encounter, HouseRules

__all__ = ["ENGINE", "HOUSE_RULES", "T10Combat", "commands", "engine", "events", "state", "view"]

HOUSE_RULES = (
    {
        "key": "metres_per_ap",
        "label": _("Metres moved per AP"),
        "kind": "int",
        "default": 2,
        "minimum": 1,
        "maximum": 20,
        "rule": "Action points",
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
        "rule": "Spara action points",
        "help": _("Johan spends 3 of his saved AP to throw himself into cover."),
    },
    {
        "key": "cover_modifier",
        "label": _("Modifier on a direct attack against a target in cover"),
        "kind": "int",
        "default": -2,
        "minimum": -10,
        "maximum": 0,
        "rule": "Spara action points",
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
        "rule": "Utmattning och skada",
        "help": _("Paid across rounds when dearer than the AP left."),
    },
    {
        "key": "treat_heal",
        "label": _("Skada healed by a successful Sjukvård roll (+1 per DoS)"),
        "kind": "int",
        "default": 1,
        "minimum": 0,
        "maximum": 10,
        "rule": "Utmattning och skada",
        "help": _("The excerpt does not say how medical care works."),
    },
    {
        "key": "painkiller_ap",
        "label": _("AP to take or give painkillers (smärtstillande)"),
        "kind": "int",
        "default": 2,
        "minimum": 0,
        "maximum": 10,
        "rule": "Utmattning och skada",
        "help": _("With painkillers Utmattning may fall below Skada."),
    },
)


class T10Combat(SystemCombat):
    """The T10 engine (see rules.engine.CombatEngine)."""

    system = "t10"
    template = "combat/t10"
    named_stats = True  # the panel and the log name the abilities as the campaign does
    event_types = {
        **events.EVENT_TYPES,
        **events.VALUE_TYPES,
        **commands.COMMAND_TYPES,
        **state.VALUE_TYPES,
    }

    def new_state(self, house_rules: Mapping[str, Any] | None = None, name: str = "") -> Encounter:
        values = house_values(HOUSE_RULES, house_rules, "{key} must be {minimum} to {maximum}")
        return Encounter(name=name, house=HouseRules(**values))

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

    def damage_sheet(
        self, encounter: Encounter | None, character_id: int, house: Mapping[str, Any]
    ) -> dict:
        """A character's Utmattning and Skada (ten boxes each) for its sheet, with what it
        took in `encounter` (None: nothing yet); `recorded`: whether the encounter has it.
        Plain data for the engine's ``_damage_sheet.html`` (see `view.damage_sheet`)."""
        return view.damage_sheet(encounter, character_id, house)

    def body_of(self, encounter: Encounter, character_id: int) -> dict | None:
        """A campaign character's body in this encounter, as the `carried` field of its
        add_combatant in the next one: None when it is not here, {} when it is unhurt
        (Utmattning and Skada 0)."""
        c = encounter.of_character(character_id)
        return None if c is None else damage.body_of(c, encounter.name)

    unarmed = starter.UNARMED

    def catalogue(self) -> dict[str, dict]:
        """The starter catalogue (`starter`): the excerpt lists no weapons, so a written
        default set, each value's source given (the excerpt's, else "house")."""
        return starter.starter_catalogue()

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

    def character_block(
        self, *, name: str, levels: Mapping[str, int], derived: Mapping[str, int | None]
    ) -> dict:
        """An add_combatant command's fields for a character: `levels` its values keyed by
        `rules.t10.character`'s keys (abilities, skills, Initiativ); the block's skills
        are every skill's effective bonus (`character.bonus`: the skill's, else its
        ability's). `derived` (AP per round) is not needed: AP are 10 − Utmattning."""
        return character_command(
            name,
            initiative=int(levels.get(character.INITIATIVE.key, 0) or 0),
            **{key: int(levels.get(key, 0) or 0) for key in commands.ABILITY_KEYS},
            skills={key: character.bonus(levels, key) for key in commands.SKILL_KEYS},
        )


ENGINE = T10Combat(commands, engine, view, HOUSE_RULES, policy)
