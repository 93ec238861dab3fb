"""Dice rolled at the table and typed in (issue 48): one more source of dice for the same
functions that roll on the server.

Every roll of the three systems asks its source for one die at a time, ``randint(1,
sides)``, in the order the text rolls them (Aoristos' hand, Phobia's Ob dice and the
pairs its sixes bring, T10's 2T10). `EnteredDice` answers with the faces the player
typed, in that order, so an entered roll is computed by exactly the code a server roll
is, and gives exactly what a seeded source giving the same faces gives
(tests/rules/test_entered_dice.py). It refuses a face the die does not have, asks for more
when the roll needs more (`MoreDice` says how many: Phobia's sixes rolled again come as
they come), and refuses faces left over (`entered`).
"""

import re
from collections.abc import Callable, Iterable

from rules.errors import RulesError
from rules.errors import gettext_noop as _

MAX_FACES = 60  # typed faces one roll takes at most (Phobia's open-ended dice stop at 50)


class _RanOut(Exception):
    """The typed faces ran out (inside `entered`, which counts how many more it needs)."""


class MoreDice(RulesError):
    """The roll needs more dice than were typed: `needed` more at least."""

    def __init__(self, needed: int, typed: int):
        template = (_("{needed} more dice: this roll takes more than the {typed} typed")
                    if needed > 1 else _("1 more die: this roll takes more than the {typed} "
                                         "typed"))
        super().__init__(template.format(needed=needed, typed=typed), code="more_dice",
                         template=template, needed=needed, typed=typed)
        self.needed = needed


def parse_faces(text: str) -> tuple[int, ...]:
    """ "4 6" or "4,6" → (4, 6): each die's face, in the order rolled; a refusal names
    what is wrong. T10's ten is typed 10 or 0."""
    faces = []
    for part in text.replace(",", " ").split():
        if not part.isdigit() or len(part) > 2:
            template = _("a die's face is a whole number: {text!r} is not")
            raise RulesError(template.format(text=part[:8]), code="bad_field",
                             template=template, text=part[:8])
        faces.append(int(part))
    if len(faces) > MAX_FACES:
        template = _("at most {most} dice in one roll")
        raise RulesError(template.format(most=MAX_FACES), code="bad_field",
                         template=template, most=MAX_FACES)
    return tuple(faces)


AORISTOS_DICE = re.compile(r"(\d+)(B|F|T(?!\d))")  # "2B1F1T": base, free and forced dice
SIDED_DICE = re.compile(r"(\d+)T(\d+)")  # "Ob3T6", "2T10", "(1T6/2)-1"


def dice_count(notation: str) -> int | None:
    """How many dice a hand's notation rolls first (the keypad's count): Aoristos'
    "2B1F1T" 4, Phobia's "Ob3T6" 3 (its sixes bring more as they come), T10's "2T10" 2;
    None for a notation it does not read."""
    if "B" in notation:
        counts = [int(n) for n, _letter in AORISTOS_DICE.findall(notation)]
    else:
        counts = [int(n) for n, _sides in SIDED_DICE.findall(notation)]
    return sum(counts) or None


def dice_sides(notation: str) -> int:
    """The faces of a notation's dice (the keypad's keys): 6 for Aoristos' B, F and T and
    for "Ob3T6", 10 for "2T10"; the most of them where a hand mixes dice."""
    if "B" in notation:
        return 6
    return max((int(sides) for _n, sides in SIDED_DICE.findall(notation)), default=6)


class EnteredDice:
    """A source of dice (``randint(low, high)``) that gives `faces` in order."""

    def __init__(self, faces: Iterable[int]):
        self.faces = tuple(faces)
        self.used = 0

    def randint(self, low: int, high: int) -> int:
        if self.used >= len(self.faces):
            raise _RanOut
        face = self.faces[self.used]
        if high == 10 and face == 0:
            face = 10  # a T10 shows 0 for its ten
        if not low <= face <= high:
            template = _("die {n} shows {face}: these dice show {low} to {high}")
            raise RulesError(template.format(n=self.used + 1, face=face, low=low, high=high),
                             code="bad_field", template=template, n=self.used + 1, face=face,
                             low=low, high=high)
        self.used += 1
        return face

    def finish(self) -> None:
        """After the roll: refuse faces it did not use."""
        left = len(self.faces) - self.used
        if left:
            template = _("{left} dice too many: this roll takes {used}")
            raise RulesError(template.format(left=left, used=self.used), code="bad_field",
                             template=template, left=left, used=self.used)


def entered[T](roll: Callable[[EnteredDice], T], faces: tuple[int, ...]) -> T:
    """`roll(source)` with the typed `faces` as its dice; RulesError for a face the dice
    do not have, for faces left over, and (`MoreDice`) for too few: how many more it
    needs is found by rolling again with ones added (a one never makes a roll longer), so
    a Phobia roll whose sixes are rolled again asks for exactly the dice they bring."""
    source = EnteredDice(faces)
    try:
        result = roll(source)
    except _RanOut:
        for more in range(1, MAX_FACES + 1):
            try:
                roll(EnteredDice((*faces, *(1,) * more)))
            except _RanOut:
                continue
            raise MoreDice(more, len(faces)) from None
        raise MoreDice(MAX_FACES, len(faces)) from None
    source.finish()
    return result
