"""Dice rolled at the table and typed in (rules/entered.py, issue 48): the same faces give
exactly what a seeded source that rolled them gives, in every system: Aoristos' hands
with their free and forced dice (p. 5), Phobia's Ob dice with the sixes rolled again
(phobia-utdrag.txt lines 30-65), T10's 2T10 (t10-ap-utdrag.txt, Färdighetsslag). A face
the dice do not have, faces left over and too few are refused."""

import random

import pytest

from rules import get_system
from rules.aoristos import dice as aoristos_dice
from rules.aoristos import success
from rules.entered import MoreDice, entered, parse_faces
from rules.errors import RulesError
from rules.phobia.dice import ObDice
from rules.phobia.dice import roll as phobia_roll
from rules.t10 import rolls as t10_rolls

PHOBIA = get_system("phobia")
T10 = get_system("t10")


class Recording:
    """A seeded source that remembers every die it gave, in order."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.faces: list[int] = []

    def randint(self, low: int, high: int) -> int:
        face = self.rng.randint(low, high)
        self.faces.append(face)
        return face


@pytest.mark.parametrize("hand", ["1B", "1B1F", "1B1T", "2B1F1T", "3B2F", "1B3T", "2B+2"])
@pytest.mark.parametrize("purpose", list(aoristos_dice.Purpose))
def test_an_aoristos_hand_typed_in_is_the_seeded_roll_p5(hand, purpose):
    parsed = aoristos_dice.parse_hand(hand)
    for seed in range(40):
        source = Recording(seed)
        seeded = aoristos_dice.roll(parsed, source, purpose)
        typed = entered(lambda dice, h=parsed: aoristos_dice.roll(h, dice, purpose),
                        tuple(source.faces))
        assert typed == seeded  # the dice, the ones that count (free: best; forced: worst)


def test_an_aoristos_test_typed_in_keeps_the_best_free_and_the_worst_forced_die_p5():
    hand = aoristos_dice.parse_hand("1B1F")
    outcome = success.resolve_test(
        5, 8, entered(lambda d: aoristos_dice.roll(hand, d, aoristos_dice.Purpose.TEST), (2, 5)))
    assert (outcome.roll.counted, outcome.total, outcome.success) == ((5,), 10, True)
    forced = aoristos_dice.parse_hand("1B1T")
    outcome = success.resolve_test(
        5, 8, entered(lambda d: aoristos_dice.roll(forced, d, aoristos_dice.Purpose.TEST),
                      (2, 5)))
    assert (outcome.roll.counted, outcome.total, outcome.success) == ((2,), 7, False)


def test_a_phobia_roll_typed_in_is_the_seeded_roll_sixes_rolled_again_lines_30_65():
    dice = ObDice(3)
    rolled_again = 0
    for seed in range(300):
        source = Recording(seed)
        seeded = phobia_roll(dice, source)
        rolled_again += bool(seeded.rerolls)
        assert entered(lambda d: phobia_roll(dice, d), tuple(source.faces)) == seeded
    assert rolled_again > 50  # the sixes were rolled again, and typed in as they came


def test_phobia_asks_for_the_dice_its_sixes_bring_as_they_come():
    dice = ObDice(3)
    with pytest.raises(MoreDice) as first:
        entered(lambda d: phobia_roll(dice, d), (6, 2))
    assert first.value.needed == 3  # the third die, and two for the six already typed
    with pytest.raises(MoreDice) as sixes:
        entered(lambda d: phobia_roll(dice, d), (6, 2, 4))
    assert sixes.value.needed == 2  # the six is rolled again as two dice (line 36)
    with pytest.raises(MoreDice) as again:
        entered(lambda d: phobia_roll(dice, d), (6, 2, 4, 6, 6))
    assert again.value.needed == 4  # two more sixes: two more pairs
    done = entered(lambda d: phobia_roll(dice, d), (6, 2, 4, 6, 6, 1, 3, 2, 5))
    assert done.total == 2 + 4 + 1 + 3 + 2 + 5
    with pytest.raises(RulesError, match="1 dice too many"):
        entered(lambda d: phobia_roll(dice, d), (6, 2, 4, 1, 3, 5))


def test_a_phobia_test_typed_in_is_the_seeded_test():
    plan = PHOBIA.plan_test({"climbing": 14}, {"stat": "climbing", "difficulty": 3}, {})
    for seed in range(60):
        source = Recording(seed)
        seeded = PHOBIA.roll_test(plan, source)
        assert entered(lambda d: PHOBIA.roll_test(plan, d), tuple(source.faces)) == seeded


def test_t10s_2t10_typed_in_is_the_seeded_roll_and_its_ten_may_be_typed_0():
    for seed in range(60):
        source = Recording(seed)
        seeded = t10_rolls.roll_2t10(2, source)
        assert entered(lambda d: t10_rolls.roll_2t10(2, d), tuple(source.faces)) == seeded
    assert entered(lambda d: t10_rolls.roll_2t10(0, d), (0, 7)).dice == (10, 7)
    plan = T10.plan_test({"pistol": 2}, {"stat": "pistol"}, {})
    for seed in range(30):
        source = Recording(seed)
        seeded = T10.roll_test(plan, source)
        assert entered(lambda d: T10.roll_test(plan, d), tuple(source.faces)) == seeded


@pytest.mark.parametrize(
    ("roll", "faces", "says"),
    [
        (lambda d: aoristos_dice.roll(aoristos_dice.parse_hand("1B1F"), d), (7, 2),
         "die 1 shows 7: these dice show 1 to 6"),
        (lambda d: aoristos_dice.roll(aoristos_dice.parse_hand("1B1F"), d), (0, 2),
         "die 1 shows 0: these dice show 1 to 6"),
        (lambda d: aoristos_dice.roll(aoristos_dice.parse_hand("1B1F"), d), (3, 2, 1),
         "1 dice too many: this roll takes 2"),
        (lambda d: aoristos_dice.roll(aoristos_dice.parse_hand("2B1F"), d), (3,),
         "2 more dice: this roll takes more than the 1 typed"),
        (lambda d: t10_rolls.roll_2t10(0, d), (11, 2), "die 1 shows 11: these dice show 1"),
    ],
)
def test_a_bad_entry_is_refused_with_its_reason(roll, faces, says):
    with pytest.raises(RulesError) as refused:
        entered(roll, faces)
    assert says in str(refused.value)


def test_faces_are_read_as_typed():
    assert parse_faces("4 6") == (4, 6)
    assert parse_faces(" 4,6 , 1") == (4, 6, 1)
    assert parse_faces("10 0") == (10, 0)
    assert parse_faces("") == ()
    for bad in ("4 x", "4.5", "-1", "123"):
        with pytest.raises(RulesError):
            parse_faces(bad)
    with pytest.raises(RulesError, match="at most 60"):
        parse_faces("1 " * 61)


def test_the_keypad_counts_the_dice_a_hand_rolls_first():
    from rules.entered import dice_count

    for hand in ("1B", "1B1F", "2B1F1T", "3B2F", "2B+2"):
        parsed = aoristos_dice.parse_hand(hand)
        assert dice_count(str(parsed)) == parsed.base + parsed.free + parsed.forced
    assert dice_count("Ob3T6") == 3
    assert dice_count("2T10") == 2
    assert dice_count("(1T6/2)-1") == 1
    assert dice_count("?") is None


def test_the_keypad_shows_the_faces_of_the_hands_dice():
    from rules.entered import dice_sides

    assert dice_sides("2B1F1T") == dice_sides("Ob3T6") == dice_sides("(1T6/2)-1") == 6
    assert dice_sides("2T10") == dice_sides("1T10") == 10
