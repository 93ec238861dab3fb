"""The starter equipment catalogue (p. 5, 7-13): sources, the text's figures, JSON dicts."""

import json
import re
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import RulesError
from rules.aoristos.combat.gear import AREAS, Armour, Weapon
from rules.aoristos.equipment import (
    ARMOUR,
    WEAPONS,
    armour_from_dict,
    armour_to_dict,
    is_source,
    protection,
    total_armour,
    weapon_from_dict,
    weapon_to_dict,
)

SOURCE = re.compile(r"s\. [0-9]+|house")
PAGES_OF_THE_TEXT = range(1, 19)
ALL_ITEMS = [*WEAPONS.values(), *ARMOUR.values()]
ITEM_IDS = [item.key for item in ALL_ITEMS]


def _defaults(cls: type) -> dict[str, object]:
    return {f.name: f.default for f in fields(cls) if f.name not in ("key", "name", "sources")}


# ------------------------------------------------------------------------------ sources


@pytest.mark.parametrize("item", ALL_ITEMS, ids=ITEM_IDS)
def test_sources_are_pages_or_house(item):
    """Every source is "s. N" (a page of the rule text) or "house", once per real field."""
    names = [name for name, _ in item.sources]
    assert len(names) == len(set(names)), item.key
    known = {f.name for f in fields(item)} - {"key", "sources"}
    for name, source in item.sources:
        assert name in known, (item.key, name)
        assert SOURCE.fullmatch(source), (item.key, name, source)
        assert is_source(source)
        if source != "house":
            assert int(source.removeprefix("s. ")) in PAGES_OF_THE_TEXT


@pytest.mark.parametrize("item", ALL_ITEMS, ids=ITEM_IDS)
def test_every_non_default_field_has_a_source(item):
    """Each value an entry sets away from the dataclass default says where it comes from."""
    cited = dict(item.sources)
    for name, default in _defaults(type(item)).items():
        if getattr(item, name) != default:
            assert name in cited, f"{item.key}.{name} has no source"


def test_catalogue_keys_are_the_entries_keys():
    assert all(key == weapon.key for key, weapon in WEAPONS.items())
    assert all(key == armour.key for key, armour in ARMOUR.items())
    assert all(isinstance(w, Weapon) for w in WEAPONS.values())
    assert all(isinstance(a, Armour) for a in ARMOUR.values())


def test_the_named_starter_items_are_there():
    names = {w.name for w in WEAPONS.values()}
    assert {
        "Skyttegravsspade",
        "Slunga",
        "Flintlåsgevär",
        "Automatkarbin",
        "Karbin",
        "Kpist",
        "Pistol",
        "Revolver",
        "Hagelgevär",
        "Lätt armborst",
        "Tungt armborst",
        "Pilbåge",
        "Kastkniv",
        "Gatsten",
        "Handgranat",
        "Kulspruta",
        "Kniv",
        "Svärd",
        "Tvåhandssvärd",
        "Barstol",
        "Knogjärn",
        "Obeväpnad",
    } <= names
    assert {
        "Skyddsväst",
        "Hjälm",
        "Läderrustning",
        "Ringbrynja",
        "Spjutkastarens rustning",
        "Rundsköld",
    } <= {a.name for a in ARMOUR.values()}


# ----------------------------------------------------------------------- the text's items


def test_etka_sling_strength_5_p12():
    """p. 12: "Stenslungans modifikation av styrkan: +5"; a real weapon, neither a throw
    nor contact, so FYS does not count; active strength (1 + 4 + 5) 10."""
    sling = WEAPONS["sling"]
    assert sling.strength == 5
    assert sling.source("strength") == "s. 12"
    assert sling.real
    assert sling.ranged
    assert not sling.thrown
    assert not sling.contact
    assert sling.skill == "sling"
    margin, dice = 6 + 4 - 9, 4
    assert margin + dice + sling.strength == 10
    assert sling.range_categories == ()  # plain range formula (p. 10)


def test_anna_carbine_modes_p11():
    """p. 11: Anna's carbine "1/3/auto+2N": single shot, three-round burst, auto + 2 dice."""
    carbine = WEAPONS["carbine"]
    assert carbine.fire_modes == "1/3/auto+2N"
    assert carbine.source("fire_modes") == "s. 11"
    single, burst, auto = carbine.modes
    assert (single.shots, single.auto, single.random_dice) == (1, False, 0)
    assert (burst.shots, burst.auto, burst.random_dice) == (3, False, 0)
    assert (auto.shots, auto.auto, auto.random_dice) == (0, True, 2)


@pytest.mark.parametrize(
    ("key", "categories"),
    [
        ("cobblestone", ("improvised", "thrown")),  # "gatsten (improviserat kastvapen)"
        ("assault_carbine", ("heavy_or_long", "rifled")),  # long firearm, rifled
        ("smg", ("rifled",)),  # a short firearm, rifled
        ("light_crossbow", ()),  # the plain formula
        ("heavy_crossbow", ("heavy_or_long",)),
        ("bow", ()),
        ("sling", ()),
        ("shotgun", ("heavy_or_long",)),  # "alla moderna eldvapen utom hagelgevär"
        ("carbine", ("heavy_or_long", "rifled")),
        ("pistol", ("rifled",)),
        ("throwing_knife", ("thrown",)),
        ("hand_grenade", ("thrown",)),
    ],
)
def test_range_categories_p10(key, categories):
    """p. 10: the range-malus table and its 37 m example."""
    weapon = WEAPONS[key]
    assert weapon.range_categories == categories
    assert weapon.source("range_categories") == "s. 10"


def _range_malus(weapon: Weapon, metres: int) -> int:
    """The p. 10 formula, successive factors in the table's order, floored each step."""
    malus = metres // 10
    for category in ("improvised", "thrown", "heavy_or_long", "rifled"):
        if category in weapon.range_categories:
            malus = malus * 2 if category in ("improvised", "thrown") else malus // 2
    return malus


@pytest.mark.parametrize(
    ("key", "malus"),
    [("light_crossbow", 3), ("cobblestone", 12), ("smg", 1), ("assault_carbine", 0)],
)
def test_the_37_metre_example_p10(key, malus):
    """p. 10: at 37 m, +3 light crossbow, +12 cobblestone, +1 kpist, ±0 automatkarbin."""
    assert _range_malus(WEAPONS[key], 37) == malus


@pytest.mark.parametrize(
    ("key", "length"),
    [
        ("pistol", "short"),
        ("revolver", "short"),
        ("smg", "short"),
        ("carbine", "long"),
        ("assault_carbine", "long"),
        ("flintlock_rifle", "long"),
        ("shotgun", "long"),
        ("machine_gun", "long"),
        ("light_crossbow", "long"),
        ("heavy_crossbow", "long"),
    ],
)
def test_short_and_long_firearms_p10(key, length):
    """p. 10: pistols and shorter are short; longer than pistols is long (bows too)."""
    weapon = WEAPONS[key]
    assert weapon.firearm == length
    assert weapon.source("firearm") == "s. 10"
    assert weapon.long_in_melee == (length == "long")


def test_a_bow_is_long_in_melee_and_has_windup_and_strength_p7_p10():
    bow = WEAPONS["bow"]
    assert bow.long_in_melee  # "här ingår pilbågar" (p. 10)
    assert bow.windup > 0
    assert bow.bow_strength is not None
    assert bow.reload_cost == 0  # loading is the UL


def test_hand_grenade_has_windup_p7():
    """p. 7: pulling the pin is an UL."""
    grenade = WEAPONS["hand_grenade"]
    assert grenade.windup >= 1
    assert grenade.thrown
    assert grenade.ranged
    assert grenade.real


def test_levi_flintlock_has_no_laser_sight_p8():
    flintlock = WEAPONS["flintlock_rifle"]
    assert not flintlock.laser_sight
    assert flintlock.source("laser_sight") == "s. 8"
    assert "rifled" not in flintlock.range_categories


def test_marx_trench_spade_p9():
    spade = WEAPONS["trench_spade"]
    assert spade.name == "Skyttegravsspade"
    assert spade.source("name") == "s. 9"
    assert spade.real
    assert spade.contact
    assert not spade.ranged


@pytest.mark.parametrize("key", ["unarmed", "brass_knuckles"])
def test_unarmed_attacks_are_not_real_weapons_p8(key):
    """p. 8: fists and knuckledusters are unarmed; p. 9: the skill is Slagsmål."""
    weapon = WEAPONS[key]
    assert not weapon.real
    assert weapon.skill == "brawling"
    assert weapon.contact
    assert weapon.source("real") == "s. 8"


@pytest.mark.parametrize("key", ["bar_stool", "rifle_butt", "knife", "sword"])
def test_held_things_are_real_melee_weapons_p8(key):
    """p. 8: "allt man håller i för att slå med, inklusive barstolar och gevärskolvar"."""
    weapon = WEAPONS[key]
    assert weapon.real
    assert weapon.contact
    assert not weapon.ranged
    assert weapon.skill == "melee_weapons"


def test_every_ranged_weapon_is_real_and_melee_and_thrown_add_fys_p8_p12():
    for weapon in WEAPONS.values():
        if weapon.ranged:
            assert weapon.real, weapon.key
            assert not weapon.contact, weapon.key
        else:
            assert weapon.contact, weapon.key  # every melee entry is a contact attack
        if weapon.skill == "throwing":
            assert weapon.thrown, weapon.key


def test_two_handed_sword_p10():
    sword = WEAPONS["two_handed_sword"]
    assert sword.hands == (1, 2)
    assert sword.two_handed


def test_firearm_reload_defaults_p7_p11():
    """OL 5 for firearms unless given (p. 7); a belt OL 10 (p. 11); "(1)" for revolvers."""
    assert WEAPONS["pistol"].reload_cost == 5
    assert WEAPONS["pistol"].source("reload") == "s. 7"
    assert WEAPONS["machine_gun"].belt
    assert WEAPONS["machine_gun"].reload_cost == 10
    assert WEAPONS["machine_gun"].source("belt") == "s. 11"
    assert WEAPONS["revolver"].reload_each == 1
    assert WEAPONS["light_crossbow"].capacity == 1  # MS default 1 (p. 11)
    assert "rifled" not in WEAPONS["shotgun"].range_categories


# ----------------------------------------------------------------------------- armour


def test_spear_thrower_torso_armour_5_p12():
    """p. 12: the spear thrower's torso armour 5 takes active 10 to final 5."""
    armour = ARMOUR["spear_thrower_armour"]
    assert protection([armour], "torso") == 5
    assert armour.source("areas") == "s. 12"
    assert 10 - protection([armour], "torso") == 5
    assert protection([armour], "head") == 0


def test_miriam_totalrustning_4_p13():
    """p. 13: Miriam's Totalrustning 4; house set soft vest + helmet: (12·3 + 6) // 10."""
    worn = [ARMOUR["soft_vest"], ARMOUR["helmet"]]
    assert total_armour(worn) == 4
    assert (23 - total_armour(worn)) // 3 == 6  # the rest of the example


def test_total_armour_counts_the_torso_three_times_and_floors_p12():
    mail = ARMOUR["mail_shirt"]
    expected = sum(v * (3 if a == "torso" else 1) for a, v in mail.areas) // 10
    assert total_armour([mail]) == expected
    assert total_armour([]) == 0
    assert total_armour([ARMOUR["spear_thrower_armour"]]) == 1  # 15 // 10


def test_shields_are_not_armour_p8():
    shield = ARMOUR["round_shield"]
    assert shield.shield
    assert shield.areas == ()
    assert shield.source("shield") == "s. 8"
    worn = [ARMOUR["soft_vest"], ARMOUR["helmet"], shield]
    assert total_armour(worn) == 4
    assert protection(worn, "torso") == 12
    fake = Armour("big_shield", "Stor sköld", areas=(("torso", 50),), shield=True)
    assert total_armour([fake]) == 0
    assert protection([fake], "torso") == 0


def test_protection_sums_the_worn_pieces():
    worn = [ARMOUR["leather_armour"], ARMOUR["mail_shirt"]]
    assert protection(worn, "torso") == 9
    assert protection(worn, "left_leg") == 3
    assert all(protection([], area) == 0 for area in AREAS)


@pytest.mark.parametrize("area", ["bålen", "", None, 3, "Torso"])
def test_protection_rejects_unknown_areas(area):
    with pytest.raises(RulesError, match="unknown area"):
        protection([ARMOUR["helmet"]], area)


@pytest.mark.parametrize("pieces", [[WEAPONS["knife"]], ["helmet"], None, 5])
def test_armour_functions_reject_non_armour(pieces):
    with pytest.raises(RulesError):
        total_armour(pieces)
    with pytest.raises(RulesError):
        protection(pieces, "torso")


# ------------------------------------------------------------------------- JSON dicts


@pytest.mark.parametrize("weapon", list(WEAPONS.values()), ids=list(WEAPONS))
def test_weapon_dict_round_trip_is_identity(weapon):
    data = weapon_to_dict(weapon)
    assert json.loads(json.dumps(data)) == data  # plain JSON
    again = weapon_from_dict(json.loads(json.dumps(data)))
    assert again == weapon
    assert again.sources == weapon.sources  # sources do not take part in ==
    assert weapon_to_dict(again) == data


@pytest.mark.parametrize("armour", list(ARMOUR.values()), ids=list(ARMOUR))
def test_armour_dict_round_trip_is_identity(armour):
    data = armour_to_dict(armour)
    assert json.loads(json.dumps(data)) == data
    again = armour_from_dict(json.loads(json.dumps(data)))
    assert again == armour
    assert again.sources == armour.sources
    assert armour_to_dict(again) == data


def test_to_dict_writes_lists_and_every_field():
    data = weapon_to_dict(WEAPONS["carbine"])
    assert set(data) == {f.name for f in fields(Weapon)}
    assert data["range_categories"] == ["heavy_or_long", "rifled"]
    assert data["hands"] == [2]
    assert ["fire_modes", "s. 11"] in data["sources"]
    assert armour_to_dict(ARMOUR["helmet"])["areas"] == [["head", 6]]


def test_a_minimal_gm_weapon():
    weapon = weapon_from_dict({"key": "club", "name": "Klubba", "skill": "melee_weapons"})
    assert weapon == Weapon("club", "Klubba", "melee_weapons")


def _carbine(**changes):
    data = weapon_to_dict(WEAPONS["carbine"])
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (["key", "name"], "must be a JSON object"),
        (None, "must be a JSON object"),
        ({"name": "X", "skill": "firearms"}, "'key' is required"),
        ({"key": "x", "skill": "firearms"}, "'name' is required"),
        ({"key": "x", "name": "X"}, "'skill' is required"),
        (_carbine(colour="black"), "unknown field"),
        ({**_carbine(), 3: 1}, "unknown field"),
        (_carbine(key="Karbin 2"), "snake_case"),
        (_carbine(name="  "), "non-blank"),
        (_carbine(skill="rifle"), "must be one of"),
        (_carbine(strength=-1), "between 0 and"),
        (_carbine(strength="5"), "whole number"),
        (_carbine(strength=5.0), "whole number"),
        (_carbine(strength=True), "whole number"),
        (_carbine(magazine=0), "between 1 and"),
        (_carbine(reload=-5), "between 0 and"),
        (_carbine(weapon_bulk=-0.5), "between 0 and"),
        (_carbine(weapon_bulk=float("nan")), "between 0 and"),
        (_carbine(weapon_bulk="3"), "number of FP"),
        (_carbine(real="yes"), "true or false"),
        (_carbine(hands=[3]), "grips"),
        (_carbine(hands=[]), "grips"),
        (_carbine(hands=[1, 1]), "twice"),
        (_carbine(hands=2), "must be a list"),
        (_carbine(range_categories=["scoped"]), "must hold only"),
        (_carbine(fire_modes="1/3/burst"), "not a fire mode"),
        (_carbine(fire_modes="auto-3"), "like '1/3/auto+2N'"),
        (_carbine(fire_modes="auto+-2N"), "like '1/3/auto+2N'"),
        (_carbine(fire_modes="1/0"), "not a fire mode"),
        (_carbine(fire_modes=""), "like '1/3/auto+2N'"),
        (_carbine(fire_modes=3), "like '1/3/auto+2N'"),
        (_carbine(fire_modes="auto+100N"), "dice"),
        (_carbine(max_shots=2), "below a fire mode of 3"),
        (_carbine(firearm="medium"), "must be one of"),
        (_carbine(sources=[["strength", "my book"]]), "source"),
        (_carbine(sources=[["colour", "house"]]), "unknown field"),
        (_carbine(sources=[["strength", "house"], ["strength", "s. 5"]]), "twice"),
        (_carbine(sources=[["strength"]]), "pairs"),
        (_carbine(sources="house"), "must be a list"),
        (_carbine(ranged=False), "only to ranged"),
        (_carbine(contact=True), "contact is melee"),
        (_carbine(real=False), "every ranged weapon is real"),
        (_carbine(belt=True), "MS is a number or 'belt'"),
        (_carbine(bow_strength=5), "belongs to bows"),
    ],
)
def test_weapon_from_dict_rejects_bad_input(data, message):
    with pytest.raises(RulesError, match=re.escape(message)):
        weapon_from_dict(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("helmet", "must be a JSON object"),
        ({"key": "x", "name": "X", "areas": [["tail", 3]]}, "unknown area"),
        ({"key": "x", "name": "X", "areas": [["head", -1]]}, "between 0 and"),
        ({"key": "x", "name": "X", "areas": [["head", 1], ["head", 2]]}, "twice"),
        ({"key": "x", "name": "X", "areas": {"head": 1}}, "must be a list"),
        ({"key": "x", "name": "X", "areas": [["head"]]}, "pairs"),
        ({"key": "x", "name": "X", "shield": True, "areas": [["torso", 2]]}, "shield"),
        ({"key": "x", "name": "X", "weight": 2}, "unknown field"),
        ({"key": "x", "name": "X", "bulk": -1}, "between 0 and"),
        ({"key": "x", "name": "X", "sources": [["areas", "s.12"]]}, "source"),
        ({"name": "X"}, "'key' is required"),
    ],
)
def test_armour_from_dict_rejects_bad_input(data, message):
    with pytest.raises(RulesError, match=re.escape(message)):
        armour_from_dict(data)


def _deep_list(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "data",
    [
        _carbine(strength=10**5000),  # too long for repr()
        {10**5000: 1},
        _carbine(hands=_deep_list(5000)),  # too deep for repr()
        _carbine(skill=_deep_list(5000)),
    ],
)
def test_from_dict_survives_hostile_values(data):
    with pytest.raises(RulesError):
        weapon_from_dict(data)


def test_from_dict_errors_carry_a_code_and_the_field():
    with pytest.raises(RulesError) as caught:
        weapon_from_dict(_carbine(strength=-1))
    assert caught.value.code == "invalid_weapon"
    assert caught.value.params == {"field": "strength"}
    assert "weapon 'carbine'" in str(caught.value)


# ---------------------------------------------------------------------------- fuzzing

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=8,
)
WEAPON_FIELDS = sorted(f.name for f in fields(Weapon))
ARMOUR_FIELDS = sorted(f.name for f in fields(Armour))
FIRE_MODE_TEXT = st.text(alphabet="0123456789autoNnmx+-/ ", max_size=14)


def _field_value(name: str):
    """Random JSON, plus near-valid values for the field so the checks are reached."""
    near = {
        "skill": st.sampled_from(["firearms", "bow", "brawling", "melee_weapons", "x"]),
        "fire_modes": FIRE_MODE_TEXT,
        "hands": st.lists(st.integers(-1, 3), max_size=3),
        "range_categories": st.lists(
            st.sampled_from(["improvised", "thrown", "heavy_or_long", "rifled", "x"]), max_size=3
        ),
        "firearm": st.sampled_from([None, "short", "long", "x"]),
        "areas": st.lists(
            st.tuples(st.sampled_from([*AREAS, "x"]), st.integers(-2, 20)).map(list), max_size=4
        ),
        "sources": st.lists(
            st.tuples(
                st.sampled_from([*WEAPON_FIELDS, "x"]),
                st.sampled_from(["house", "s. 12", "s.1", ""]),
            ).map(list),
            max_size=3,
        ),
    }
    return JSON | near.get(name, st.integers(-3, 40) | st.booleans() | st.none())


def _mutated(base: dict, names: list[str]):
    return st.fixed_dictionaries({}, optional={name: _field_value(name) for name in names}).map(
        lambda changes: {**base, **changes}
    )


def _random_dicts(names: list[str]):
    return st.dictionaries(st.sampled_from(names) | st.text(max_size=8), JSON, max_size=8)


WEAPON_INPUT = (
    JSON
    | _random_dicts(WEAPON_FIELDS)
    | st.sampled_from(list(WEAPONS.values()))
    .map(weapon_to_dict)
    .flatmap(lambda base: _mutated(base, WEAPON_FIELDS))
    | _mutated({"key": "x", "name": "X", "skill": "firearms", "ranged": True}, WEAPON_FIELDS)
)
ARMOUR_INPUT = (
    JSON
    | _random_dicts(ARMOUR_FIELDS)
    | st.sampled_from(list(ARMOUR.values()))
    .map(armour_to_dict)
    .flatmap(lambda base: _mutated(base, ARMOUR_FIELDS))
)


@settings(max_examples=400)
@given(WEAPON_INPUT)
def test_weapon_from_dict_never_raises_anything_but_rules_error(data):
    """Fed user input: anything it rejects is a RulesError; what it accepts round-trips."""
    try:
        weapon = weapon_from_dict(data)
    except RulesError:
        return
    assert isinstance(weapon, Weapon)
    again = weapon_to_dict(weapon)
    assert weapon_from_dict(json.loads(json.dumps(again))) == weapon


@settings(max_examples=200)
@given(ARMOUR_INPUT)
def test_armour_from_dict_never_raises_anything_but_rules_error(data):
    try:
        armour = armour_from_dict(data)
    except RulesError:
        return
    assert isinstance(armour, Armour)
    assert armour_from_dict(json.loads(json.dumps(armour_to_dict(armour)))) == armour
    assert total_armour([armour]) >= 0
