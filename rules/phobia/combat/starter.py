"""Phobia's starter catalogue (issue 43: a new campaign could not attack). The excerpt
lists no weapons or armour: it names fists and kicks, a fist's crush damage and a knife's
cut (lines 291-298, "Grundskada", with no number), the throwing knife (lines 718-719), a
pistol (line 686) and a sawn-off shotgun (line 203). Each entry's ``sources``
gives, per field, the line that names it, and "house" for every other value: our default,
which the GM changes per campaign in the catalogue (an entry of the same name replaces it).

Attacks roll against an attribute, not Stridsvana (0-3 on a new character, a chance the
dice would almost never make): RÖR in melee, SYN when shooting or throwing. A house
rule too, shown on the catalogue page."""

from typing import Any

from rules.combat_kit import starter_items
from rules.phobia.combat.commands import armour_from_dict, weapon_from_dict
from rules.phobia.combat.state import Armour, Weapon

UNARMED = "unarmed"

# (data, sources other than "house"): every field not named is a house default.
_WEAPONS: tuple[tuple[dict[str, Any], dict[str, str]], ...] = (
    ({"key": UNARMED, "name": "Knytnäve eller spark", "damage": 1, "damage_type": "K",
      "skill": "agility"},
     {"name": "rad 291-292", "damage_type": "rad 296-297"}),
    ({"key": "kniv", "name": "Kniv", "damage": 3, "damage_type": "H", "skill": "agility"},
     {"name": "rad 297-298", "damage_type": "rad 297-298"}),
    ({"key": "batong", "name": "Batong", "damage": 2, "damage_type": "K", "skill": "agility"},
     {}),
    ({"key": "kastkniv", "name": "Kastkniv", "damage": 2, "damage_type": "H", "skill": "sight",
      "ranged": True}, {"name": "rad 718-719", "ranged": "rad 718-719"}),
    ({"key": "pistol", "name": "Pistol", "damage": 4, "damage_type": "P", "skill": "sight",
      "ranged": True}, {"name": "rad 686", "ranged": "rad 712-713"}),
    ({"key": "hagelgevar", "name": "Avsågat hagelgevär", "damage": 5, "damage_type": "P",
      "skill": "sight", "ranged": True}, {"name": "rad 203", "ranged": "rad 203"}),
)
_ARMOUR: tuple[tuple[dict[str, Any], dict[str, str]], ...] = (
    ({"key": "skinnjacka", "name": "Skinnjacka", "areas": [["arm", 1], ["chest", 1],
                                                           ["belly", 1]]}, {}),
    ({"key": "skyddsvast", "name": "Skyddsväst", "areas": [["chest", 4], ["belly", 4]]}, {}),
)


def starter_catalogue() -> dict[str, dict[str, Weapon | Armour]]:
    """{"weapon": {key: Weapon}, "armour": {key: Armour}}, each value's source given."""
    return starter_items(_WEAPONS, _ARMOUR, weapon_from_dict, armour_from_dict)
