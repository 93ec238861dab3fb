"""Phobia characters and tests through the rule-system interface (phobia-utdrag.txt lines
118-350, 406-609; rulings.md § Phobia)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError, get_system
from rules.phobia import character
from rules.phobia.character import OVERLOADED_TESTS, load
from rules.phobia.success import odds

PHOBIA = get_system("phobia")
HOUSE = PHOBIA.house(None)

VALUES = {
    "strength": 12,
    "endurance": 14,
    "agility": 10,
    "personality": 9,
    "psyche": 13,
    "will": 11,
    "education": 8,
    "sight": 15,
    "hearing": 7,
    "luck": 10,
    "combat_experience": 3,
    "climbing": 14,
    "hiding": 15,
    "demolitions": 16,
}


def figures(values=VALUES, calm=(3, 5)):
    return {d.key: d for d in PHOBIA.derived(values, {"calm": list(calm)}, HOUSE)}


def test_the_nine_attributes_and_tur_in_the_texts_order():
    """Lines 123-128: STY TÅL RÖR PER PSY VIL BIL and the senses SYN HÖR; Tur, lines 251-256."""
    assert [s.term.short for s in PHOBIA.attributes] == [
        "STY",
        "TÅL",
        "RÖR",
        "PER",
        "PSY",
        "VIL",
        "BIL",
        "SYN",
        "HÖR",
        "Tur",
    ]
    assert PHOBIA.skills[0].term.swedish == "Stridsvana"  # line 207


def test_chockvarde_is_the_mean_of_sty_tal_vil_rounded_down():
    """Line 181: (STY+TÅL+VIL)/3 = (12+14+11)/3 = 37/3 → 12."""
    assert figures()["shock_value"].value == 12
    assert figures()["shock_value"].formula == "(STY+TÅL+VIL)/3"


def test_mentalvarde_is_the_mean_of_psy_and_vil():
    """Line 192: (PSY+VIL)/2 = 24/2 = 12; (13+12)/2 = 12.5 → 12."""
    assert figures()["mental_value"].value == 12
    assert figures(VALUES | {"will": 12})["mental_value"].value == 12


def test_lugn_is_a_fifth_of_psy_and_vil_plus_the_2t6_rolled_at_creation():
    """Line 231: (PSY+VIL)/5 + 2T6 = 24/5 → 4, + 3 + 5 = 12; the dice are the stored ones."""
    calm = figures()["calm"]
    assert calm.value == 12
    assert "[3 + 5]" in calm.formula
    assert figures(calm=(6, 6))["calm"].value == 16


def test_turordning_counts_lugn_and_twice_stridsvana():
    """Line 243: (RÖR+SYN)/2 + Lugn + 2 × Stridsvana = 25/2 → 12, + 12 + 6 = 30."""
    assert figures()["turn_order"].value == 30


def test_forflyttning_and_barformaga():
    """Line 271: (RÖR+TÅL+10)/4 = 34/4 → 8 m; line 280: (STY+TÅL)/2 = 13 kg."""
    assert (figures()["movement"].value, figures()["movement"].unit) == (8, "m")
    assert (figures()["carrying_capacity"].value, figures()["carrying_capacity"].unit) == (13, "kg")


def test_lugn_2t6_is_rolled_once_with_the_injected_dice(scripted):
    rng = scripted(2, 6)
    assert PHOBIA.creation_rolls(VALUES, rng) == {"calm": [2, 6]}
    assert rng.calls == [(1, 6), (1, 6)]


@pytest.mark.parametrize("rolled", [{"calm": [7, 1]}, {"calm": [3]}, {"calm": "35"}])
def test_derived_values_refuse_an_impossible_lugn_roll(rolled):
    with pytest.raises(RulesError, match="Lugn"):
        PHOBIA.derived(VALUES, rolled, HOUSE)


def test_before_the_roll_lugn_and_turordning_wait_for_it():
    """A character being made has rolled nothing yet: the rest is already known."""
    got = {d.key: d.value for d in PHOBIA.derived(VALUES, {}, HOUSE)}
    assert got == {
        "shock_value": 12,
        "mental_value": 12,
        "calm": None,
        "turn_order": None,
        "movement": 8,
        "carrying_capacity": 13,
    }


def test_attributes_are_checked_against_the_house_rule_bounds():
    """The excerpt gives no way to make attributes: entered 3-18 by default (rulings)."""
    assert PHOBIA.check(VALUES, HOUSE) == ()
    issues = PHOBIA.check(VALUES | {"strength": 2, "sight": 19, "climbing": 100}, HOUSE)
    assert [(i.field, i.code) for i in issues] == [
        ("strength", "below_minimum"),
        ("sight", "above_maximum"),
        ("climbing", "above_maximum"),
    ]
    wider = PHOBIA.house({"attribute_min": 1, "attribute_max": 20})
    assert PHOBIA.check(VALUES | {"strength": 2, "sight": 19}, wider) == ()


@pytest.mark.parametrize(
    "values",
    [
        {"attribute_min": 10, "attribute_max": 5},
        {"damage_columns": 0},
        {"damage_columns": "5"},
        {"row_difficulty": True},
        {"stopped_hit_bleeds": "yes"},
    ],
)
def test_bad_house_rules_are_refused(values):
    with pytest.raises(RulesError):
        PHOBIA.house(values)


def test_house_rules_default_where_none_is_stored():
    assert PHOBIA.house({"damage_columns": 4}) == {
        "attribute_min": 3,
        "attribute_max": 18,
        "damage_columns": 4,
        "overload_levels": 1,
        "stopped_hit_bleeds": True,  # lines 850-851: "alltid"
        "row_difficulty": 1,
    }


def test_lugn_is_testable_beside_every_attribute_and_skill():
    """Lines 210-212: most Lugn rolls are Ob3T6."""
    testables = dict(
        (term.key, value) for term, value in PHOBIA.testables(VALUES, {"calm": [3, 5]}, HOUSE)
    )
    assert testables["calm"] == 12
    assert testables["climbing"] == 14
    assert len(testables) == len(PHOBIA.attributes) + len(PHOBIA.skills) + 1


def test_a_plan_shows_the_exact_odds_before_the_roll():
    plan = PHOBIA.plan_test({"climbing": 14}, {"stat": "climbing", "difficulty": 3}, HOUSE)
    exact = odds(3, 14)
    assert (plan.notation, plan.target, plan.p_success) == ("Ob3T6", 14, exact.success)
    assert plan.odds == {"perfect": exact.perfect, "fumble": exact.fumble}


def test_modifiers_change_the_dice_not_the_result():
    """Lines 533-547: Ob3T6 with +2 −1 +1 −1 +1 is Ob5T6; one level easier is Ob2T6."""
    plan = PHOBIA.plan_test(
        {"climbing": 14},
        {"stat": "climbing", "difficulty": 3, "modifier": 2 - 1 + 1 - 1 + 1},
        HOUSE,
    )
    assert plan.notation == "Ob5T6"
    easier = PHOBIA.plan_test({"climbing": 14}, {"stat": "climbing", "modifier": -1}, HOUSE)
    assert easier.notation == "Ob2T6"


def test_jaces_perfect_climb_rolled_through_the_interface(scripted):
    """Lines 458-467: Klättra 14, Ob3T6 shows 1, 1, 6; the six rerolls 3 and 5: total 10,
    perfect."""
    plan = PHOBIA.plan_test({"climbing": 14}, {"stat": "climbing", "difficulty": 3}, HOUSE)
    result = PHOBIA.roll_test(plan, scripted(1, 1, 6, 3, 5))
    assert (result.first, result.dice, result.total) == ((1, 1, 6), (1, 1, 6, 3, 5), 10)
    assert result.success
    assert result.marks["perfect"]
    assert not result.marks["fumble"]
    assert result.marks["effect"] == 4


def test_jaces_fumble_and_its_stored_form_read_back(scripted):
    """Lines 500-508: Klättra 14, Ob4T6 shows 6, 6, 4, 1; rerolls 5, 3, 2, 1: 16, fumble."""
    plan = PHOBIA.plan_test({"climbing": 14}, {"stat": "climbing", "difficulty": 4}, HOUSE)
    result = PHOBIA.roll_test(plan, scripted(6, 6, 4, 1, 5, 3, 2, 1))
    assert (result.total, result.success, result.marks["fumble"]) == (16, False, True)
    again = PHOBIA.result_of(PHOBIA.stored(result))
    assert (again.dice, again.total, again.marks) == (result.dice, result.total, result.marks)


def test_sinclairs_hiding_has_effect_seven(scripted):
    """Lines 599-604: Gömma 15, lätt (Ob2T6), the dice make 8: effect 15 − 8 = 7."""
    plan = PHOBIA.plan_test({"hiding": 15}, {"stat": "hiding", "difficulty": 2}, HOUSE)
    result = PHOBIA.roll_test(plan, scripted(5, 3))
    assert (result.total, result.marks["effect"], result.success) == (8, 7, True)


@pytest.mark.parametrize(
    "request_",
    [
        {},
        {"stat": "flying"},
        {"stat": "climbing", "difficulty": 21},
        {"stat": "climbing", "difficulty": "3"},
        {"stat": "climbing", "modifier": 11},
        {"stat": "climbing", "difficulty": -1},
    ],
)
def test_a_bad_request_is_refused_with_a_reason(request_):
    with pytest.raises(RulesError):
        PHOBIA.plan_test({"climbing": 14}, request_, HOUSE)


@pytest.mark.parametrize(
    "stored",
    [
        {},
        {"params": {"difficulty": 3}, "first": [1, 1, 6], "rerolls": [], "total": 2, "chance": 14},
    ],
)
def test_a_damaged_stored_roll_is_refused(stored):
    with pytest.raises(RulesError):
        PHOBIA.result_of(stored)


@given(
    st.fixed_dictionaries({stat.key: st.integers(3, 18) for stat in character.ATTRIBUTES}),
    st.tuples(st.integers(1, 6), st.integers(1, 6)),
)
def test_derived_values_are_whole_and_within_their_formulas(values, calm):
    got = {d.key: d.value for d in PHOBIA.derived(values, {"calm": list(calm)}, HOUSE)}
    sty, tal, vil = values["strength"], values["endurance"], values["will"]
    assert got["shock_value"] == int(Fraction(sty + tal + vil, 3))
    assert 2 + 1 <= got["calm"] <= 36 // 5 + 12
    assert got["turn_order"] == (values["agility"] + values["sight"]) // 2 + got["calm"]


# Lugn situations (lines 210-229) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "situation"),
    [
        ((1, 1, 1), "exemplary"),  # perfect: 3 against Lugn 12
        ((3, 4, 2), "calm"),  # 9: a success
        ((5, 5, 4), "nervous"),  # 14: a failure
        ((6, 6, 1, 5, 5, 4, 4), "breakdown"),  # two sixes, 1 + 5 + 5 + 4 + 4 = 19 over 12: a fumble
    ],
)
def test_a_lugn_roll_decides_its_situation_lines_218_229(scripted, dice, situation):
    plan = PHOBIA.plan_test({"calm": 12}, {"stat": "calm", "difficulty": 3}, HOUSE)
    result = PHOBIA.roll_test(plan, scripted(*dice))
    assert PHOBIA.situation_of(result) == situation
    assert PHOBIA.situation_of(PHOBIA.result_of(PHOBIA.stored(result))) == situation


def test_only_a_lugn_roll_opens_a_situation(scripted):
    plan = PHOBIA.plan_test({"climbing": 14}, {"stat": "climbing"}, HOUSE)
    assert PHOBIA.situation_of(PHOBIA.roll_test(plan, scripted(1, 1, 1))) is None


@pytest.mark.parametrize(
    ("difficulty", "situation", "dice"),
    [
        (3, "nervous", 4),  # "en nivå svårare (+Ob1T6) på alla andra svårighetsslag"
        (3, "breakdown", 4),
        (3, "calm", 3),
        (3, "exemplary", 2),  # "en nivå enklare (–Ob1T6)"
        (2, "exemplary", 2),  # "dock lägst till svårighet lätt (Ob2T6)"
        (1, "exemplary", 1),  # easier than that already: as it is
        (20, "nervous", 20),
    ],
)
def test_an_open_situation_changes_every_other_test_lines_220_229(difficulty, situation, dice):
    plan = PHOBIA.plan_test(
        {"climbing": 14}, {"stat": "climbing", "difficulty": difficulty, "situation": situation},
        HOUSE,
    )
    assert plan.notation == f"Ob{dice}T6"
    assert plan.p_success == odds(dice, 14).success
    assert plan.params["situation"] == situation


def test_a_new_lugn_roll_is_not_changed_by_the_situation_it_replaces():
    plan = PHOBIA.plan_test({"calm": 12}, {"stat": "calm", "situation": "nervous"}, HOUSE)
    assert plan.notation == "Ob3T6"
    with pytest.raises(RulesError):
        PHOBIA.plan_test({"climbing": 14}, {"stat": "climbing", "situation": "panic"}, HOUSE)


# --- Belastning against Bärförmåga (lines 274-283; the effect is a house rule) ----------


@pytest.mark.parametrize(
    ("carried", "capacity", "multiples"),
    [(12, 12, 0), (13, 12, 1), (24, 12, 2), (Fraction(49, 2), 12, 2), (0, 0, 0),
     (Fraction(1, 2), 0, 1), (3, 0, 3)],
)
def test_overloaded_per_whole_bärförmåga(carried, capacity, multiples):
    """Line 278: above Bärförmåga the character is overloaded; by the house rule's default
    each whole Bärförmåga in the load is +Ob1T6 (BF 0: each started kg)."""
    carrying = load(carried, capacity, HOUSE)
    assert carrying.multiples == multiples
    assert carrying.levels == multiples * HOUSE["overload_levels"] == multiples
    assert carrying.overloaded is (carried > capacity)
    assert carrying.hinders == OVERLOADED_TESTS


def test_the_gm_may_make_overloading_harmless():
    house = PHOBIA.house({"overload_levels": 0})
    carrying = load(30, 12, house)
    assert carrying.overloaded
    assert carrying.levels == 0


def test_a_negative_load_is_refused():
    with pytest.raises(RulesError):
        load(-1, 12, HOUSE)


def test_an_overloaded_climb_is_harder_and_a_look_is_not():
    """Jace with BF 13 carrying 14 kg: Klättra at Ob3T6 becomes Ob4T6; SYN stays Ob3T6."""
    values = {"climbing": 14, "sight": 15, "carrying_capacity": 13}
    climb = PHOBIA.plan_test(values, {"stat": "climbing", "carried": 14}, HOUSE)
    look = PHOBIA.plan_test(values, {"stat": "sight", "carried": 14}, HOUSE)
    light = PHOBIA.plan_test(values, {"stat": "climbing", "carried": 13}, HOUSE)
    assert (climb.notation, climb.params["burden"]) == ("Ob4T6", 1)
    assert look.notation == "Ob3T6"
    assert "burden" not in look.params
    assert light.notation == "Ob3T6"


def test_carrying_reads_bärförmåga_from_the_character():
    """(STY+TÅL)/2 = (12+14)/2 = 13 kg (line 280)."""
    values = {"strength": 12, "endurance": 14}
    carrying = PHOBIA.carrying(values, {"calm": [3, 5]}, HOUSE, Fraction(27))
    assert (carrying.capacity, carrying.multiples) == (13, 2)
