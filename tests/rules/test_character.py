"""Aoristos characters: costs (p. 2, 3, 17), secondary attributes (p. 2), load
(p. 5)."""

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError
from rules.aoristos.character import (
    ATTRIBUTES,
    DEFAULT_DP_BUDGET,
    DEFAULT_LEVEL_CAP,
    MAX_DP_BUDGET,
    MAX_LEVEL,
    SECONDARY,
    SKILLS,
    BuildIssue,
    Secondary,
    apply_encumbrance,
    attribute_cost,
    attribute_step_cost,
    encumbrance_penalty,
    evaluate_build,
    secondary,
    skill_cost,
    skill_step_cost,
)

# p. 17, "Utveckling av primära attribut och färdigheter (priser i UP)", transcribed
# from aoristos-grundregler.txt lines 2345-2423. Columns: desired level; skill from the
# previous level; skill from zero = attribute from the previous level; attribute from
# zero.
APPENDIX_TABLE = [
    (1, 0, 0, 0),
    (2, 1, 1, 1),
    (3, 2, 3, 4),
    (4, 3, 6, 10),
    (5, 4, 10, 20),
    (6, 5, 15, 35),
    (7, 6, 21, 56),
    (8, 7, 28, 84),
    (9, 8, 36, 120),
    (10, 9, 45, 165),
    (11, 10, 55, 220),
    (12, 11, 66, 286),
    (13, 12, 78, 364),
    (14, 13, 91, 455),
    (15, 14, 105, 560),
    (16, 15, 120, 680),
    (17, 16, 136, 816),
    (18, 17, 153, 969),
    (19, 18, 171, 1140),
    (20, 19, 190, 1330),
    (21, 20, 210, 1540),
    (22, 21, 231, 1771),
    (23, 22, 253, 2024),
    (24, 23, 276, 2300),
    (25, 24, 300, 2600),
    (26, 25, 325, 2925),
    (27, 26, 351, 3276),
    (28, 27, 378, 3654),
    (29, 28, 406, 4060),
    (30, 29, 435, 4495),
]

# p. 3, "Definitioner av färdigheter", in the rule text's order, with glossary.md keys.
SKILLS_PAGE_3 = [
    ("Bil", "car"),
    ("Blåsrör", "blowpipe"),
    ("Flygplan", "airplane"),
    ("Mekanik", "mechanics"),
    ("Helikopter", "helicopter"),
    ("Kast", "throwing"),
    ("Klättring", "climbing"),
    ("Livräddning", "first_aid"),
    ("Motorbåt", "motorboat"),
    ("Motorcykel", "motorcycle"),
    ("Närstridsvapen", "melee_weapons"),
    ("Pilbåge", "bow"),
    ("Psykologi", "psychology"),
    ("Ritt", "riding"),
    ("Segelbåt", "sailboat"),
    ("Simning", "swimming"),
    ("Skjutvapen", "firearms"),
    ("Slagsmål", "brawling"),
    ("Slunga", "sling"),
    ("Undvika", "evasion"),
    ("Vildmark", "wilderness"),
]

ALBERT = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}


def test_skills_are_the_21_of_page_3_in_order():
    """p. 3: the 21 skills, in the order the rule text lists them."""
    assert [key for _, key in SKILLS_PAGE_3] == list(SKILLS)
    assert len(set(SKILLS)) == 21


def test_attributes_in_fys_kao_ror_sin_vil_order():
    """p. 2: Fysik, Kaosvana, Rörlighet, Sinnesnärvaro, Viljestyrka."""
    assert ATTRIBUTES == ("physique", "composure", "agility", "alertness", "willpower")


def test_appendix_table_is_complete():
    """p. 17: one row per level 1..30 (guards the transcription, not the code)."""
    assert [row[0] for row in APPENDIX_TABLE] == list(range(1, MAX_LEVEL + 1))


@pytest.mark.parametrize(
    ("level", "skill_step", "skill_total", "attribute_total"),
    [(row[0], row[1], row[2], row[3]) for row in APPENDIX_TABLE],
)
def test_costs_match_appendix_table(level, skill_step, skill_total, attribute_total):
    """p. 17: every row of the cost table; p. 3: an attribute step costs what the skill
    costs from zero to the same level."""
    assert skill_step_cost(level) == skill_step
    assert skill_cost(level) == skill_total
    assert attribute_step_cost(level) == skill_total
    assert attribute_cost(level) == attribute_total


@pytest.mark.parametrize(("level", "cost"), [(0, 0), (1, 0), (2, 1), (3, 4), (4, 10), (5, 20)])
def test_attribute_cost_table_page_2(level, cost):
    """p. 2: 'Betydelser och kostnader för nivåer av primära attribut'."""
    assert attribute_cost(level) == cost


@pytest.mark.parametrize(("level", "cost"), [(0, 0), (1, 0), (2, 1), (3, 3), (4, 6), (5, 10)])
def test_skill_cost_table_page_3(level, cost):
    """p. 3: 'Betydelser och kostnader för nivåer av färdigheter'."""
    assert skill_cost(level) == cost


def test_next_skill_level_costs_the_current_level():
    """p. 3: 'Kostnaden i UP för nästa nivå av en färdighet är ... innevarande nivå'."""
    for current in range(MAX_LEVEL):
        assert skill_step_cost(current + 1) == current


@pytest.mark.parametrize("cost", [skill_cost, attribute_cost])
def test_costs_strictly_increase_from_level_1(cost):
    """p. 17: each level above 1 costs something more (levels 0 and 1 are both free)."""
    assert cost(0) == cost(1) == 0
    for level in range(1, MAX_LEVEL):
        assert cost(level + 1) > cost(level)


@pytest.mark.parametrize(
    ("total", "step"),
    [(skill_cost, skill_step_cost), (attribute_cost, attribute_step_cost)],
)
def test_step_costs_sum_to_total_costs(total, step):
    """p. 3: creation and development use the same prices, so the steps add up."""
    for level in range(MAX_LEVEL + 1):
        assert total(level) == sum(step(n) for n in range(1, level + 1))


@pytest.mark.parametrize("function", [skill_cost, attribute_cost])
@pytest.mark.parametrize("level", [-1, 31, 1.0, "3", None, True])
def test_cost_rejects_levels_outside_0_to_30(function, level):
    """p. 2-3: levels are integers 0..30."""
    with pytest.raises(RulesError, match="level"):
        function(level)


@pytest.mark.parametrize("function", [skill_step_cost, attribute_step_cost])
@pytest.mark.parametrize("level", [0, -1, 31, False])
def test_step_cost_rejects_levels_outside_1_to_30(function, level):
    with pytest.raises(RulesError, match="level"):
        function(level)


def test_albert_costs_33_dp():
    """p. 2 worked figure: FYS 3, KAO 3, RÖR 2, SIN 5, VIL 3 cost 4+4+1+20+4 = 33 UP."""
    report = evaluate_build(ALBERT, {}, 33, 5)
    assert dict(report.attribute_costs) == {
        "physique": 4,
        "composure": 4,
        "agility": 1,
        "alertness": 20,
        "willpower": 4,
    }
    assert report.dp_spent == 33
    assert report.dp_left == 0
    assert report.valid
    assert report.issues == ()


def test_albert_secondary_attributes():
    """p. 2 worked figure: Bärförmåga 12, Chocktolerans 6, Förflyttning 7,
    Handlingskraft 9, Härdighet 4."""
    expected = Secondary(carrying_capacity=12, shock_tolerance=6, movement=7, drive=9, toughness=4)
    assert secondary(ALBERT) == expected
    assert evaluate_build(ALBERT, {}, 33, 5).secondary == expected


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        # All attributes default to 1 (rulings: new characters start at 1).
        ({}, (4, 4, 6, 5, 2)),
        # Handlingskraft rounds SIN/2 down (p. 2: "Avrunda alltid nedåt").
        ({"alertness": 1}, (4, 4, 6, 5, 2)),
        ({"alertness": 3}, (4, 4, 6, 6, 2)),
        ({"alertness": 0, "composure": 0}, (4, 4, 6, 4, 2)),
        ({"physique": 0}, (0, 4, 6, 5, 1)),
        ({"physique": 5, "willpower": 4, "agility": 5}, (20, 7, 10, 5, 6)),
        ({key: 30 for key in ATTRIBUTES}, (120, 33, 35, 49, 31)),
    ],
)
def test_secondary_formulas(attributes, expected):
    """p. 2: Bärförmåga 4×FYS, Chocktolerans VIL+3, Förflyttning RÖR+5,
    Handlingskraft KAO + SIN/2 + 4, Härdighet FYS+1."""
    assert tuple(secondary(attributes).as_dict().values()) == expected


def test_secondary_as_dict_uses_the_secondary_keys_in_order():
    assert list(secondary(ALBERT).as_dict()) == list(SECONDARY)
    assert secondary(ALBERT).as_dict()["drive"] == 9


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"strength": 3}, "unknown attribute 'strength'"),
        ({"physique": 31}, "attribute 'physique'"),
        ({"agility": -1}, "attribute 'agility'"),
        ({"willpower": True}, "attribute 'willpower'"),
        ({"composure": "3"}, "attribute 'composure'"),
    ],
)
def test_secondary_rejects_bad_attributes(attributes, message):
    with pytest.raises(RulesError, match=message):
        secondary(attributes)


@given(
    st.fixed_dictionaries({key: st.integers(0, MAX_LEVEL - 1) for key in ATTRIBUTES}),
    st.sampled_from(ATTRIBUTES),
)
def test_secondary_never_drops_when_an_attribute_rises(attributes, key):
    """p. 2: every secondary formula is non-decreasing in every primary."""
    before = secondary(attributes).as_dict()
    after = secondary({**attributes, key: attributes[key] + 1}).as_dict()
    assert all(after[name] >= before[name] for name in SECONDARY)


@pytest.mark.parametrize(
    ("bulk", "capacity", "penalty"),
    [
        (12, 12, 0),  # rulings p. 5: FP 12 with BF 12 → 0 (not more than Bärförmåga)
        (13, 12, 1),  # FP 13 → -1
        (23, 12, 1),
        (24, 12, 2),  # FP 24 → -2
        (36, 12, 3),
        (0, 12, 0),
        (5, 4, 1),
        (Fraction(25, 2), 12, 1),  # half FP from item lists: 12.5 is more than 12
        (Decimal("12.5"), 12, 1),
        (Decimal("24.0"), 12, 2),
        # Ruling for Bärförmåga 0 (FYS 0): every started FP is one multiple.
        (0, 0, 0),
        (1, 0, 1),
        (5, 0, 5),
        (Decimal("0.5"), 0, 1),
    ],
)
def test_encumbrance_penalty(bulk, capacity, penalty):
    """p. 5: -1 RÖR and -1 Förflyttning per whole multiple of Bärförmåga in the FP sum,
    when carrying more FP than Bärförmåga."""
    result = encumbrance_penalty(bulk, capacity)
    assert result == penalty
    assert type(result) is int


@pytest.mark.parametrize(
    ("bulk", "capacity"),
    [
        (-1, 12),
        (13, -1),
        (True, 12),
        (13, True),
        (13.0, 12),
        (13, 12.0),
        ("13", 12),
        (Decimal("NaN"), 12),
        (Decimal("Infinity"), 12),
    ],
)
def test_encumbrance_penalty_rejects_bad_input(bulk, capacity):
    with pytest.raises(RulesError):
        encumbrance_penalty(bulk, capacity)


@pytest.mark.parametrize(
    ("agility", "movement", "penalty", "effective"),
    [
        (2, 7, 0, (2, 7)),
        (2, 7, 1, (1, 6)),
        (2, 7, 2, (0, 5)),
        (2, 7, 3, (0, 4)),  # effective values never go below 0
        (2, 7, 9, (0, 0)),
    ],
)
def test_apply_encumbrance(agility, movement, penalty, effective):
    """p. 5: the load penalty lowers RÖR and Förflyttning, never below 0 (p. 2)."""
    assert apply_encumbrance(agility, movement, penalty) == effective


@pytest.mark.parametrize("args", [(-1, 7, 1), (2, -1, 1), (2, 7, -1), (2, 7, True), (2.0, 7, 1)])
def test_apply_encumbrance_rejects_bad_input(args):
    with pytest.raises(RulesError):
        apply_encumbrance(*args)


def test_albert_with_a_heavy_pack():
    """p. 2 + p. 5: Albert (BF 12, RÖR 2, FÖR 7) carrying 24 FP has RÖR 0 and FÖR 5;
    his secondary attributes are not recomputed."""
    sec = secondary(ALBERT)
    penalty = encumbrance_penalty(24, sec.carrying_capacity)
    assert apply_encumbrance(ALBERT["agility"], sec.movement, penalty) == (0, 5)
    assert secondary(ALBERT) == sec


def test_missing_keys_take_the_defaults():
    """Rulings (p. 2-3): new characters have attributes 1 and skills 0, both free."""
    report = evaluate_build({}, {}, 0, 5)
    assert report.dp_spent == 0
    assert report.valid
    assert set(report.attribute_costs) == set(ATTRIBUTES)
    assert set(report.skill_costs) == set(SKILLS)
    assert report.secondary == secondary({key: 1 for key in ATTRIBUTES})


def test_skills_add_their_costs():
    """p. 3: Vildmark 3 costs 3 UP and Undvika 5 costs 10, on top of the attributes."""
    report = evaluate_build(ALBERT, {"wilderness": 3, "evasion": 5}, 50, 5)
    assert report.skill_costs["wilderness"] == 3
    assert report.skill_costs["evasion"] == 10
    assert report.skill_costs["car"] == 0
    assert report.dp_spent == 33 + 3 + 10
    assert report.dp_left == 50 - 46


def test_over_budget_is_an_issue_not_an_error():
    """Rulings (p. 2): spending more UP than the budget is reported, with a negative
    remainder."""
    report = evaluate_build(ALBERT, {}, 30, 5)
    assert report.dp_left == -3
    assert not report.valid
    assert report.issues == (
        BuildIssue(
            field="dp_budget",
            code="over_budget",
            message=report.issues[0].message,
            params=(("spent", 33), ("budget", 30)),
        ),
    )
    assert "33" in report.issues[0].message
    assert "30" in report.issues[0].message


def test_exactly_on_budget_is_valid():
    assert evaluate_build(ALBERT, {}, 33, 5).valid
    assert not evaluate_build(ALBERT, {}, 32, 5).valid


def test_levels_above_the_cap_are_issues():
    """p. 3 and rulings: level 5 is the realistic human maximum; the campaign's
    level_cap (default 5) is enforced as an issue per attribute or skill."""
    report = evaluate_build({"alertness": 6}, {"firearms": 7, "car": 5}, 500, 5)
    assert [(issue.field, issue.code, issue.params) for issue in report.issues] == [
        ("alertness", "above_level_cap", (("level", 6), ("cap", 5))),
        ("firearms", "above_level_cap", (("level", 7), ("cap", 5))),
    ]
    assert not report.valid
    assert "alertness" in report.issues[0].message


def test_raising_the_cap_allows_higher_levels():
    """Rulings (p. 3): the GM may raise the cap."""
    assert evaluate_build({"alertness": 6}, {"firearms": 7}, 500, 7).valid
    assert not evaluate_build({"alertness": 6}, {"firearms": 7}, 500, 6).valid


def test_issue_order_is_budget_then_attributes_then_skills():
    report = evaluate_build({"willpower": 6, "physique": 6}, {"wilderness": 6, "car": 6}, 0, 5)
    assert [issue.field for issue in report.issues] == [
        "dp_budget",
        "physique",
        "willpower",
        "car",
        "wilderness",
    ]


def test_cost_mappings_are_read_only():
    report = evaluate_build(ALBERT, {}, 33, 5)
    with pytest.raises(TypeError):
        report.attribute_costs["physique"] = 0
    with pytest.raises(TypeError):
        report.skill_costs["car"] = 99


@pytest.mark.parametrize(
    ("attributes", "skills", "message"),
    [
        ({"strength": 3}, {}, "unknown attribute 'strength'"),
        ({}, {"karate": 3}, "unknown skill 'karate'"),
        ({"car": 3}, {}, "unknown attribute 'car'"),
        ({}, {"physique": 3}, "unknown skill 'physique'"),
        ({"physique": True}, {}, "attribute 'physique'"),
        ({"physique": 3.0}, {}, "attribute 'physique'"),
        ({"physique": None}, {}, "attribute 'physique'"),
        ({"physique": 31}, {}, "attribute 'physique'"),
        ({"physique": -1}, {}, "attribute 'physique'"),
        ({}, {"bow": False}, "skill 'bow'"),
        ({}, {"bow": 31}, "skill 'bow'"),
        ({}, {"bow": -1}, "skill 'bow'"),
        ({}, {"bow": "2"}, "skill 'bow'"),
    ],
)
def test_evaluate_build_rejects_malformed_levels(attributes, skills, message):
    with pytest.raises(RulesError, match=message):
        evaluate_build(attributes, skills, DEFAULT_DP_BUDGET, DEFAULT_LEVEL_CAP)


@pytest.mark.parametrize(
    ("budget", "cap"),
    [
        (-1, 5),
        (MAX_DP_BUDGET + 1, 5),
        (True, 5),
        (33.0, 5),
        (33, -1),
        (33, 31),
        (33, True),
    ],
)
def test_evaluate_build_rejects_bad_settings(budget, cap):
    with pytest.raises(RulesError, match=r"dp_budget|level_cap"):
        evaluate_build(ALBERT, {}, budget, cap)


def test_boundary_settings_are_accepted():
    assert evaluate_build({}, {}, 0, 0).dp_left == 0
    assert evaluate_build({}, {}, MAX_DP_BUDGET, MAX_LEVEL).dp_left == MAX_DP_BUDGET
    assert evaluate_build({"physique": 30}, {"bow": 30}, 500, 30).dp_spent == 4495 + 435
    assert evaluate_build({"physique": 0}, {"bow": 0}, 500, 30).dp_spent == 0


def test_level_0_and_1_are_below_any_cap():
    """A cap of 0 flags every attribute left at its default 1."""
    report = evaluate_build({}, {}, 0, 0)
    assert [issue.field for issue in report.issues] == list(ATTRIBUTES)


levels = st.integers(0, MAX_LEVEL)
builds = st.tuples(
    st.dictionaries(st.sampled_from(ATTRIBUTES), levels),
    st.dictionaries(st.sampled_from(SKILLS), levels),
    st.integers(0, MAX_DP_BUDGET),
    st.integers(0, MAX_LEVEL),
)


@given(builds)
def test_build_report_is_consistent(build):
    """dp_spent is the sum of the per-key costs, dp_left = budget - spent, and the build
    is valid exactly when it is within budget and no level is above the cap."""
    attributes, skills, budget, cap = build
    report = evaluate_build(attributes, skills, budget, cap)
    all_levels = {key: attributes.get(key, 1) for key in ATTRIBUTES}
    all_levels |= {key: skills.get(key, 0) for key in SKILLS}
    assert report.dp_spent == sum(attribute_cost(all_levels[k]) for k in ATTRIBUTES) + sum(
        skill_cost(all_levels[k]) for k in SKILLS
    )
    assert report.dp_spent == sum(report.attribute_costs.values()) + sum(
        report.skill_costs.values()
    )
    assert report.dp_left == budget - report.dp_spent
    expected_valid = report.dp_spent <= budget and max(all_levels.values()) <= cap
    assert report.valid == expected_valid
    assert report.secondary == secondary(attributes)


@given(builds, st.sampled_from(ATTRIBUTES + SKILLS))
def test_raising_one_level_costs_the_step_cost(build, key):
    """p. 3: development after creation costs the same step price as the tables."""
    attributes, skills, budget, cap = build
    is_attribute = key in ATTRIBUTES
    current = (attributes if is_attribute else skills).get(key, 1 if is_attribute else 0)
    if current == MAX_LEVEL:
        return
    before = evaluate_build(attributes, skills, budget, cap)
    if is_attribute:
        after = evaluate_build({**attributes, key: current + 1}, skills, budget, cap)
        step = attribute_step_cost(current + 1)
    else:
        after = evaluate_build(attributes, {**skills, key: current + 1}, budget, cap)
        step = skill_step_cost(current + 1)
    assert after.dp_spent - before.dp_spent == step
