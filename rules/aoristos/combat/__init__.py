"""Aoristos combat (p. 6-14) as a pure state machine, behind the rule-system engine
interface of `rules.engine`.

Modules: ``gear`` (weapons, armour), ``figures`` (the text's arithmetic, each with its
page), ``state`` (the encounter's values), ``commands``, ``events``, ``engine`` (`decide`
and `evolve`: the front, handing each command to the module of the chapter that rules it:
``activation``, ``movement``, ``items``, ``attacks``, ``vigilance``, ``wounds``; below them
``reading`` and ``fold``) and ``view`` (what each viewer sees, prompts, actions and
previews). What every system's engine does alike (the roster, reading commands, the
commands and events alike in several systems, the engine object) is `rules.combat_kit`'s;
the battle map's scene `rules.scene`'s.
"""

from collections.abc import Mapping
from typing import Any

from rules.aoristos.combat import commands, engine, events, figures, gear, policy, state, view
from rules.aoristos.combat.state import Encounter, HouseRules
from rules.combat_kit import SystemCombat, character_command, item_from_dict
from rules.errors import RulesError
from rules.errors import gettext_noop as _

__all__ = [
    "ENGINE",
    "AoristosCombat",
    "commands",
    "engine",
    "events",
    "figures",
    "gear",
    "state",
    "view",
]

HOUSE_RULES = (
    {
        "key": "movement_by_round_total",
        "kind": "bool",
        "default": True,
        "rule": "s. 7",
        "help": "Movement cost by the round's total distance (the rule's words); off: by "
        "each move on its own (the Ansgar example).",
    },
    {
        "key": "melee_reach",
        "kind": "float",
        "default": 2.0,
        "rule": "s. 10",
        "help": "Metres within which two foes are in melee ('close enough to reach each other').",
    },
    {
        "key": "vigilance_cover_areas",
        "label": _("Areas hidden by cover reached in a vigilance move"),
        "kind": "int",
        "default": 3,
        "minimum": 0,
        "maximum": 6,
        "required": False,
        "rule": "p. 9, 12",
        "help": _(
            "A vigilance move that ends in cover drawn on the map puts the target in "
            "proper cover: a hit with no area loses 1 strength per hidden area. The text "
            "names no number of areas: 3 (torso and legs behind waist-high cover)."
        ),
    },
    {
        "key": "hard_to_locate",
        "label": _("ST when cover makes the target hard to locate"),
        "kind": "int",
        "default": 2,
        "minimum": 0,
        "maximum": 10,
        "required": False,
        "rule": "p. 10",
        "help": _(
            "Cover raises a ranged attack's ST only when it makes it hard to know where "
            "the target is (the GM marks such a target); the text gives no number: +2."
        ),
    },
    {
        "key": "pack_extra_cp",
        "kind": "int",
        "default": 1,
        "minimum": 1,
        "maximum": 10,
        "required": False,
        "rule": "s. 7",
        "help": "The KP more than a draw's 1 to take out an item packed away ('Att plocka fram "
        "saker som är nedstoppade i packning kostar mer'; the text gives no number).",
    },
)


class AoristosCombat(SystemCombat):
    """The Aoristos engine (see rules.engine.CombatEngine)."""

    system = "aoristos"
    template = "combat/aoristos"
    event_types = {**events.EVENT_TYPES, **commands.COMMAND_TYPES, **state.VALUE_TYPES}

    def new_state(self, house_rules: Mapping[str, Any] | None = None, name: str = "") -> Encounter:
        values = dict(house_rules or {})
        try:
            house = HouseRules(
                movement_by_round_total=bool(values.get("movement_by_round_total", True)),
                melee_reach=float(values.get("melee_reach", 2.0)),
                vigilance_cover_areas=int(values.get("vigilance_cover_areas", 3)),
                hard_to_locate=int(values.get("hard_to_locate", 2)),
                pack_extra_cp=int(values.get("pack_extra_cp", 1)),
            )
        except (TypeError, ValueError):
            raise RulesError(
                "house rules must be a yes/no, a number of metres and a number of KP"
            ) from None
        if not 0.5 <= house.melee_reach <= 10:
            raise RulesError("melee reach is 0.5-10 m")
        if not 0 <= house.vigilance_cover_areas <= 6 or not 0 <= house.hard_to_locate <= 10:
            raise RulesError("cover areas are 0-6 and the hard-to-locate ST 0-10")
        if not 1 <= house.pack_extra_cp <= 10:
            raise RulesError("the extra KP to take an item out of a pack are 1-10")
        return Encounter(name=name, house=house)

    def timeout_actor(self, encounter: Encounter, command) -> str | None:
        """Who may give `command` for its actor once its prompt has waited too long: the
        attacker may take the target's offered vigilance (the default)."""
        attack = encounter.attack
        if isinstance(command, commands.Vigilance) and command.default and attack is not None:
            return attack.attacker
        return None

    def catalogue(self) -> dict[str, dict]:
        """The starter catalogue: {"weapon": {key: Weapon}, "armour": {key: Armour}}."""
        from rules.aoristos import equipment

        return {"weapon": dict(equipment.WEAPONS), "armour": dict(equipment.ARMOUR)}

    def item_from_dict(self, kind: str, data):
        """A campaign's own catalogue entry from its stored JSON; RulesError if malformed."""
        from rules.aoristos import equipment

        return item_from_dict(kind, data, equipment.weapon_from_dict, equipment.armour_from_dict)

    def character_block(
        self, *, name: str, levels: Mapping[str, int], derived: Mapping[str, int]
    ) -> dict:
        """An add_combatant command's fields for a character: its current levels (with
        the load's effect on RÖR and Förflyttning already in `levels`/`derived`, p. 5)."""
        from rules.aoristos.character import ATTRIBUTES, SKILLS

        return character_command(
            name,
            **{key: int(levels[key]) for key in ATTRIBUTES},
            skills={key: int(levels[key]) for key in SKILLS if levels.get(key)},
            **{
                key: int(derived[key])
                for key in ("drive", "toughness", "shock_tolerance", "movement")
            },
        )


ENGINE = AoristosCombat(commands, engine, view, HOUSE_RULES, policy)
