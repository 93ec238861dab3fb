"""Phobia combat (phobia-utdrag.txt lines 613-804, damage lines 806-1130) as a pure
state machine, behind the rule-system engine interface of `rules.engine`.

Modules: ``state`` (the encounter's values), ``commands``, ``events``, ``engine``
(`decide` and `evolve`; its docstring states the readings where the excerpt is silent),
the handlers by the text's chapters under it (``rounds``, ``attacks``, ``damage``; below
them ``reading`` and ``fold``), ``movement`` (what the battle map shows of a move before
it is made) and ``view`` (what each viewer sees, prompts, previews and log lines).
Damage, the serious-injury table and bleeding are `rules.phobia.injuries`'; tests and
odds `rules.phobia.success`'. What every system's engine does alike (the roster, reading
commands, the commands and events alike in several systems, the engine object) is
`rules.combat_kit`'s; the battle map's scene `rules.scene`'s.
"""

from collections.abc import Mapping
from typing import Any

from rules.combat_kit import SystemCombat, character_command, house_values
from rules.errors import gettext_noop as _
from rules.phobia.combat import commands, damage, engine, events, policy, starter, state, view
from rules.phobia.combat.state import ATTRIBUTE_KEYS, Encounter, HouseRules
from rules.phobia.injuries import DEFAULT_COLUMNS, DEFAULT_PER_ROW

__all__ = ["ENGINE", "HOUSE_RULES", "PhobiaCombat", "commands", "engine", "events", "state", "view"]

HOUSE_RULES = (
    {
        "key": "hit_location",
        "label": _("Hit location"),
        "kind": "choice",
        "default": "attacker",
        "choices": [
            ["attacker", _("The attacker names the area")],
            [
                "random",
                "1T10: 1 Skalle, 2 Ansikte, 3 Hals, 4 Bröstkorg, 5 Mage, "
                "6 Underliv, 7-8 Arm, 9-10 Ben",
            ],
        ],
        "rule": "lines 830-835, 944-1004",
        "help": _(
            "The serious-injury table is by area, but the excerpt gives no roll for "
            "where a hit lands."
        ),
    },
    {
        "key": "attack_difficulty",
        "label": _("Attack difficulty (Ob dice)"),
        "kind": "int",
        "default": 3,
        "minimum": 1,
        "maximum": 10,
        "rule": "lines 53-65, 706-723",
        "help": _(
            "The excerpt names no difficulty for an attack test: normal (Ob3T6) before "
            "the modifiers."
        ),
    },
    {
        "key": "roll_base",
        "label": _("Death and shock rolls' base difficulty (Ob dice)"),
        "kind": "int",
        "default": 3,
        "minimum": 0,
        "maximum": 10,
        "rule": "lines 837-839",
        "help": _(
            "The rolls are made 'with the difficulties from the right sections'; their "
            "base is not given: normal (Ob3T6)."
        ),
    },
    {
        "key": "row_difficulty",
        "label": _("Difficulty per filled row"),
        "kind": "int",
        "default": DEFAULT_PER_ROW,
        "minimum": 0,
        "maximum": 5,
        "rule": "lines 1021-1027, 1044-1052, 1114-1122",
        "help": _(
            "Ob dice each full row of Trauma, Smärta or Blodförlust adds (the sheet's "
            "figures, which the excerpt lacks); the campaign's value."
        ),
    },
    {
        "key": "damage_columns",
        "label": _("Damage columns"),
        "kind": "int",
        "default": DEFAULT_COLUMNS,
        "minimum": 1,
        "maximum": 10,
        "rule": "lines 164-171",
        "help": _("Boxes in each of the ten rows of a section; the campaign's value."),
    },
    {
        "key": "turn_order_die",
        "label": _("1T10 added to TO each round"),
        "kind": "bool",
        "default": False,
        "rule": "lines 245-247",
        "help": _("The text's option for a less static order."),
    },
    {
        "key": "stopped_hit_bleeds",
        "label": _("A hit stopped by protection still gives its small bleed"),
        "kind": "bool",
        "default": True,
        "rule": "lines 827-828, 850-852",
        "help": _(
            "The text: every attack with a projectile or cutting weapon always gives one "
            "small bleed. On by default, as the text says; off: a hit protection stops "
            "entirely does nothing at all."
        ),
    },
    {
        "key": "death_stat",
        "label": _("Death roll against"),
        "kind": "choice",
        "default": "endurance",
        "choices": [["endurance", "TÅL"], ["will", "VIL"], ["shock_value", "Chockvärde"]],
        "rule": "lines 837-839",
        "help": _(
            "The excerpt names the death roll, not what it is rolled against; a failure is death."
        ),
    },
    {
        "key": "shock_stat",
        "label": _("Shock roll against"),
        "kind": "choice",
        "default": "shock_value",
        "choices": [["shock_value", "Chockvärde"], ["will", "VIL"], ["endurance", "TÅL"]],
        "rule": "lines 175-181, 837-839",
        "help": _(
            "The excerpt names the shock roll, not what it is rolled against; a failure "
            "is unconsciousness."
        ),
    },
)


class PhobiaCombat(SystemCombat):
    """The Phobia engine (see rules.engine.CombatEngine)."""

    system = "phobia"
    template = "combat/phobia"
    event_types = {
        **events.EVENT_TYPES,
        **events.VALUE_TYPES,
        **commands.COMMAND_TYPES,
        **state.VALUE_TYPES,
    }

    def new_state(self, house_rules: Mapping[str, Any] | None = None, name: str = "") -> Encounter:
        values = house_values(HOUSE_RULES, house_rules, "{key} must be {minimum}-{maximum}")
        return Encounter(name=name, house=HouseRules(**values))

    def timeout_actor(self, encounter: Encounter, command) -> str | None:
        """Once the target has let an attack wait too long, its attacker may answer for
        it with no response (`pass`)."""
        pending = encounter.pending
        if isinstance(command, commands.Pass) and pending and command.id == pending.target:
            return pending.attacker
        return None

    def damage_sheet(
        self, encounter: Encounter | None, character_id: int, house: Mapping[str, Any]
    ) -> dict:
        """A character's Trauma, Smärta and Blodförlust rows for its sheet, as the paper
        form draws them in the campaign's house rules `house`, with what it took in
        `encounter` (None: nothing yet); `recorded`: whether the encounter has it. Plain
        data for the engine's ``_damage_sheet.html`` (see `view.damage_sheet`)."""
        return view.damage_sheet(encounter, character_id, house)

    def body_of(self, encounter: Encounter, character_id: int) -> dict | None:
        """A campaign character's body in this encounter, as the `carried` field of its
        add_combatant in the next one: None when it is not here, {} when it is unhurt. A new fight
        goes on from the wounds of the last (the GM lets time pass in it first)."""
        c = encounter.of_character(character_id)
        return None if c is None else damage.body_of(c, encounter.seconds, encounter.name)

    unarmed = starter.UNARMED

    def catalogue(self) -> dict[str, dict]:
        """The starter catalogue (`starter`): the excerpt lists no weapons, so a written
        default set, each value's source given (the excerpt's, else "house")."""
        return starter.starter_catalogue()

    def catalogue_fields(self) -> dict[str, list[dict]]:
        """The campaign catalogue's forms as data (the app builds them): per kind, each
        field's key, label, kind ("slug", "text", "int", "choice", "bool", or "areas": one
        number per area) and bounds or choices; what `item_from_dict` reads back."""
        stats = [[key, name] for key, name in view.STAT_NAMES.items()
                 if key not in view.DERIVED_TERMS]
        return {
            "weapon": [
                {"key": "key", "label": _("Key"), "kind": "slug"},
                {"key": "name", "label": _("Name"), "kind": "text"},
                {"key": "damage", "label": "Skadevärde (ObT6)", "kind": "int",
                 "minimum": 1, "maximum": 20, "initial": 2},
                {"key": "damage_type", "label": "P/K/H", "kind": "choice",
                 "choices": [["H", "H"], ["P", "P"], ["K", "K"]]},
                {"key": "skill", "label": _("Skill or attribute attacks use"), "kind": "choice",
                 "choices": stats, "initial": "combat_experience"},
                {"key": "ranged", "label": _("Ranged (shoots or is thrown)"), "kind": "bool"},
            ],
            "armour": [
                {"key": "key", "label": _("Key"), "kind": "slug"},
                {"key": "name", "label": _("Name"), "kind": "text"},
                {"key": "areas", "label": _("Protection"), "kind": "areas",
                 "choices": [[area, view.AREA_NAMES[area]] for area in state.AREAS],
                 "minimum": 0, "maximum": 99},
            ],
        }

    def character_block(
        self, *, name: str, levels: Mapping[str, int], derived: Mapping[str, int | None]
    ) -> dict:
        """An add_combatant command's fields for a character: `levels` its values (every
        attribute and skill, `Character.values()`), `derived` its derived values by key
        (`{d.key: d.value for d in system.derived(...)}`: turn_order, shock_value,
        movement; and `burden`, the Ob dice an overload adds to every action, lines
        274-283, from `Character.combat_stats`). A Turordning not rolled yet (None) is
        refused when the block is added."""
        block = character_command(
            name,
            **{key: int(levels[key]) for key in ATTRIBUTE_KEYS if key in levels},
            skills={
                key: int(value)
                for key, value in levels.items()
                if key not in ATTRIBUTE_KEYS and value
            },
        )
        for key in ("turn_order", "shock_value", "movement", "calm", "burden"):
            if derived.get(key) is not None:
                block[key] = int(derived[key])
        if "turn_order" in block:
            block.pop("calm", None)
        return block


ENGINE = PhobiaCombat(commands, engine, view, HOUSE_RULES, policy)
