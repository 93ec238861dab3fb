"""Aoristos advancement: award tables (p. 3, the combat table at the top of p. 4) and the
price of the next level (p. 3, 17).

Expected values are transcribed from aoristos-grundregler.txt: "Senare utveckling" and
"Träning" (p. 3, lines 453-471), "Strid, oavsett resultat" (p. 4, lines 474-487), "Kostnaden
i UP för nästa nivå ..." (p. 4, lines 489-505) and the appendix table (p. 17, lines
2345-2423).
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError
from rules.aoristos.advancement import (
    Award,
    combat_dp,
    hardship_dp,
    raise_cost,
    raise_kind,
    table_award,
    training_dp,
    training_row,
    travel_dp,
)
from rules.aoristos.character import ATTRIBUTES, SKILLS

# p. 17, columns "Färdighet från föregående nivå" and "Färdighet från noll, primärt
# attribut från föregående nivå": the price of reaching the desired level from the one below.
APPENDIX_STEPS = {
    # desired level: (skill step, attribute step)
    1: (0, 0),
    2: (1, 1),
    3: (2, 3),
    4: (3, 6),
    5: (4, 10),
    6: (5, 15),
    7: (6, 21),
    10: (9, 45),
    15: (14, 105),
    20: (19, 190),
    25: (24, 300),
    29: (28, 406),
    30: (29, 435),
}
# p. 17, "Primärt attribut direkt från nivå noll" and "Färdighet från noll".
APPENDIX_FROM_ZERO = {
    # level: (skill from zero, attribute from zero)
    1: (0, 0),
    2: (1, 1),
    3: (3, 4),
    4: (6, 10),
    5: (10, 20),
    6: (15, 35),
    10: (45, 165),
    17: (136, 816),
    24: (276, 2300),
    30: (435, 4495),
}


# --- travel and hardship (p. 3) ------------------------------------------------------------


@pytest.mark.parametrize(("months", "dp"), [(1, 1), (3, 3), (12, 12), (120, 120)])
def test_travel_gives_one_up_per_month(months, dp):
    """p. 3: "1 UP per månad för lärorika resor i en ny miljö"."""
    assert travel_dp(months) == dp


@pytest.mark.parametrize("months", [0, -1, 121, 2.5, "3", None, True])
def test_travel_months_out_of_range_or_not_whole_are_errors(months):
    with pytest.raises(RulesError, match="months"):
        travel_dp(months)


@pytest.mark.parametrize("amount", [0, 1, 2, 3])
def test_hardship_gives_up_to_three(amount):
    """p. 3: "upp till 3 vid verkligt utmanande strapatser"."""
    assert hardship_dp(amount) == amount


@pytest.mark.parametrize("amount", [-1, 4, 10, 1.0, "2", False])
def test_hardship_above_three_or_not_whole_is_an_error(amount):
    with pytest.raises(RulesError, match="hardship"):
        hardship_dp(amount)


# --- training (p. 3) -----------------------------------------------------------------------

# p. 3 "Träning": instruction hours per day → UP per month. Rows 2, 4, 8, 12+; between
# rows the highest row not above the hours; under 2 hours nothing.
TRAINING_CASES = [
    # hours per day, months, UP, needs a teacher (8 h row), psyktrauma (12+ row)
    (0, 1, 0, False, False),
    (1, 6, 0, False, False),
    (2, 1, 1, False, False),  # kvartsfart
    (3, 1, 1, False, False),
    (4, 1, 2, False, False),  # halvfart
    (6, 1, 2, False, False),
    (7, 3, 6, False, False),
    (8, 1, 3, True, False),  # helfart: "Kräver Viljestyrka och ständigt tillgänglig lärare"
    (10, 2, 6, True, False),
    (11, 1, 3, True, False),
    (12, 1, 4, True, True),  # övertid: "Ger psyktrauma (s. 15)"
    (16, 3, 12, True, True),
    (24, 1, 4, True, True),
    (2, 12, 12, False, False),
    (4, 120, 240, False, False),
]


@pytest.mark.parametrize(("hours", "months", "dp", "teacher", "trauma"), TRAINING_CASES)
def test_training_gives_up_per_month_by_hours_per_day(hours, months, dp, teacher, trauma):
    award = training_dp(hours, months)
    assert award == Award(
        amount=dp, reason=award.reason, psych_trauma=trauma, needs_teacher=teacher
    )


@pytest.mark.parametrize(
    ("hours", "row"),
    [(0, (0, 0)), (1, (0, 0)), (2, (2, 1)), (5, (4, 2)), (9, (8, 3)), (13, (12, 4))],
)
def test_training_row_is_the_highest_row_not_above_the_hours(hours, row):
    assert training_row(hours) == row


@pytest.mark.parametrize(
    ("hours", "months", "field"),
    [
        (-1, 1, "hours"),
        (25, 1, "hours"),
        (2.5, 1, "hours"),
        ("4", 1, "hours"),
        (4, 0, "months"),
        (4, 121, "months"),
        (4, None, "months"),
    ],
)
def test_training_input_out_of_range_is_an_error(hours, months, field):
    with pytest.raises(RulesError, match=field):
        training_dp(hours, months)


# --- combat (top of p. 4) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("challenge", "dp"),
    [
        (0, 0),  # "Motståndet innebär inget hot om RP:erna tar det på allvar."
        (1, 1),  # "Den genomsnittliga RP:n skulle vinna ensam."
        (2, 2),  # "Den genomsnittliga RP:n skulle förlora ensam."
        (3, 3),  # "Hela gruppen är hotad."
    ],
)
def test_combat_gives_up_by_challenge_whatever_the_outcome(challenge, dp):
    assert combat_dp(challenge) == dp


@pytest.mark.parametrize("challenge", [-1, 4, 1.5, "2", None])
def test_combat_challenge_outside_the_table_is_an_error(challenge):
    with pytest.raises(RulesError, match="combat challenge"):
        combat_dp(challenge)


# --- table_award ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "params", "dp", "trauma"),
    [
        ("travel", {"months": 4}, 4, False),
        ("hardship", {"amount": 3}, 3, False),
        ("training", {"hours_per_day": 8, "months": 2}, 6, False),
        ("training", {"hours_per_day": 12, "months": 2}, 8, True),
        ("combat", {"challenge": 2}, 2, False),
    ],
)
def test_table_award_uses_the_books_tables(kind, params, dp, trauma):
    award = table_award(kind, **params)
    assert award.amount == dp
    assert award.psych_trauma is trauma
    assert award.reason


def test_award_is_frozen():
    award = table_award("travel", months=1)
    with pytest.raises(AttributeError):
        award.amount = 100


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("loot", {"months": 1}, "unknown award kind"),
        ("travel", {}, "takes months"),
        ("travel", {"months": 1, "challenge": 2}, "takes months"),
        ("training", {"hours_per_day": 4}, "takes hours_per_day, months"),
        ("combat", {"challenge": 4}, "between 0 and 3"),
        ("hardship", {"amount": -2}, "between 0 and 3"),
    ],
)
def test_table_award_rejects_unknown_kinds_and_bad_parameters(kind, params, message):
    with pytest.raises(RulesError, match=message):
        table_award(kind, **params)


# --- the price of the next level (p. 3, 17) ------------------------------------------------


@pytest.mark.parametrize(("desired", "steps"), sorted(APPENDIX_STEPS.items()))
def test_raise_cost_matches_the_appendix_table(desired, steps):
    skill_step, attribute_step = steps
    assert raise_cost("skill", desired - 1) == skill_step
    assert raise_cost("attribute", desired - 1) == attribute_step


@pytest.mark.parametrize(
    ("kind", "now", "cost"),
    [
        # p. 4: "Kostnaden i UP för nästa nivå av en färdighet är alltså färdighetens
        # innevarande nivå."
        ("skill", 0, 0),
        ("skill", 2, 2),
        ("skill", 5, 5),
        # "Kostnaden för nästa nivå av ett primärt attribut är densamma som för att
        # utveckla en färdighet till samma nivå, från noll": SIN 5 → 6 costs a skill 0 → 6.
        ("attribute", 5, 15),
        ("attribute", 1, 1),
        ("attribute", 0, 0),
    ],
)
def test_next_level_prices_from_the_rule_text(kind, now, cost):
    assert raise_cost(kind, now) == cost


@pytest.mark.parametrize("kind", ["attribute", "skill"])
def test_level_30_has_no_next_level(kind):
    with pytest.raises(RulesError, match="30 is the highest"):
        raise_cost(kind, 30)


@pytest.mark.parametrize(
    ("kind", "level"),
    [
        ("spell", 1),
        ("Skill", 1),
        ("skill", -1),
        ("skill", 31),
        ("attribute", 2.0),
        ("attribute", True),
        ("skill", "3"),
    ],
)
def test_raise_cost_rejects_bad_kinds_and_levels(kind, level):
    with pytest.raises(RulesError):
        raise_cost(kind, level)


def test_raise_kind_knows_every_attribute_and_skill():
    assert {raise_kind(key) for key in ATTRIBUTES} == {"attribute"}
    assert {raise_kind(key) for key in SKILLS} == {"skill"}
    with pytest.raises(RulesError, match="unknown attribute or skill"):
        raise_kind("luck")


@given(level=st.integers(min_value=0, max_value=30))
def test_raising_step_by_step_from_zero_costs_the_appendix_price(level):
    """p. 17: climbing one level at a time from 0 to L costs exactly what the table lists
    for buying L from zero, for skills and for attributes alike."""
    skill_total = sum(raise_cost("skill", now) for now in range(level))
    attribute_total = sum(raise_cost("attribute", now) for now in range(level))
    if level in APPENDIX_FROM_ZERO:
        assert (skill_total, attribute_total) == APPENDIX_FROM_ZERO[level]
    # The closed forms behind the table (rulings.md): (L-1)·L/2 and (L-1)·L·(L+1)/6.
    assert skill_total == (level - 1) * level // 2
    assert attribute_total == (level - 1) * level * (level + 1) // 6


@given(start=st.integers(0, 29), data=st.data())
def test_raising_between_any_two_levels_is_the_difference_of_prices_from_zero(start, data):
    """p. 4: creation and later development use the same price model, so a raise from A to
    B costs (price of B from zero) − (price of A from zero)."""
    end = data.draw(st.integers(start, 30))

    def skill_from_zero(level):
        return max(level - 1, 0) * level // 2

    def attribute_from_zero(level):
        return (level - 1) * level * (level + 1) // 6

    assert sum(raise_cost("skill", n) for n in range(start, end)) == (
        skill_from_zero(end) - skill_from_zero(start)
    )
    assert sum(raise_cost("attribute", n) for n in range(start, end)) == (
        attribute_from_zero(end) - attribute_from_zero(start)
    )
