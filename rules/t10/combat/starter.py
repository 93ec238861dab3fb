"""T10's starter catalogue (issue 43: a new campaign could not attack). The excerpt lists no
weapons ("Vapen" names only the values a weapon has), so this is a written default set:
each entry's ``sources`` gives, per field, the excerpt's section where its examples give
that value (Johan's pistol takes 5 AP to reload, "Handlingar som går över flera rundor";
the k-pist does 3 damage and the vest protects 2, "Kroppsskydd"; the hand grenade is thrown,
"Spara action points"), and "house" for every other value: our default, which the GM
changes per campaign in the catalogue (an entry of the same name replaces it).

The excerpt has no unarmed attack; "Obeväpnad" is ours, a house rule like the rest."""

from typing import Any

from rules.combat_kit import starter_items
from rules.t10.combat.commands import armour_from_dict, weapon_from_dict
from rules.t10.combat.state import Armour, Weapon

UNARMED = "unarmed"

_SHOT = {"single": True, "single_modifier": 0, "auto": False, "auto_modifier": 0,
         "explosive": False, "damage_on_miss": False}
_CLOSE = {**_SHOT, "close": 1, "normal": 1, "maximum": 2, "reload_ap": 0, "magazine": 0}

# (data, sources other than "house"): every field not named is a house default.
_WEAPONS: tuple[tuple[dict[str, Any], dict[str, str]], ...] = (
    ({"key": "pistol", "name": "Pistol", "skill": "pistol", **_SHOT, "close": 5, "normal": 25,
      "maximum": 50, "damage": 3, "attack_ap": 3, "reload_ap": 5, "stance_ap": 2,
      "magazine": 8},
     {"name": "Färdighetsslag", "skill": "Färdighetsslag",
      "reload_ap": "Handlingar som går över flera rundor"}),
    ({"key": "kpist", "name": "K-pist", "skill": "smg", **_SHOT, "close": 5, "normal": 30,
      "maximum": 100, "auto": True, "auto_modifier": -2, "damage": 3, "attack_ap": 3,
      "reload_ap": 5, "stance_ap": 2, "magazine": 30},
     {"name": "Kroppsskydd", "damage": "Kroppsskydd"}),
    ({"key": "gevar", "name": "Gevär", "skill": "rifle", **_SHOT, "close": 10, "normal": 100,
      "maximum": 300, "damage": 4, "attack_ap": 3, "reload_ap": 5, "stance_ap": 3,
      "magazine": 5}, {}),
    ({"key": "granat", "name": "Handgranat", "skill": "throw", **_SHOT, "close": 5,
      "normal": 15, "maximum": 30, "damage": 6, "attack_ap": 3, "reload_ap": 0,
      "stance_ap": 1, "magazine": 0, "explosive": True},
     {"name": "Spara action points"}),
    ({"key": "kniv", "name": "Kniv", "skill": "melee", **_CLOSE, "damage": 2, "attack_ap": 3,
      "stance_ap": 1}, {}),
    ({"key": UNARMED, "name": "Obeväpnad", "skill": "melee", **_CLOSE, "maximum": 1,
      "damage": 1, "attack_ap": 2, "stance_ap": 0}, {}),
)
_ARMOUR: tuple[tuple[dict[str, Any], dict[str, str]], ...] = (
    ({"key": "vast", "name": "Skyddsväst", "protection": 2},
     {"name": "Kroppsskydd", "protection": "Kroppsskydd"}),
)


def starter_catalogue() -> dict[str, dict[str, Weapon | Armour]]:
    """{"weapon": {key: Weapon}, "armour": {key: Armour}}, each value's source given."""
    return starter_items(_WEAPONS, _ARMOUR, weapon_from_dict, armour_from_dict)
