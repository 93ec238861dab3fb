"""The table's own dice in a fight (issue 48): a command whose rolls belong to combatants
whose dice the table rolls waits for their faces, as an attack waits for a vigilance
answer, and is then decided with them by exactly the code that rolls the server's dice.

Every roll the three engines make asks its source for dice, one ``randint(1, sides)`` at a
time, in the order the text rolls them. Where a roll belongs to a combatant the engine
asks ``dice_of(rng, who, what)`` for its source: a plain random source (a simulation, a
server roll) answers for itself; a :class:`TableDice` (what the app gives a fight whose
campaign rolls its own dice) answers a server combatant's roll from the server's dice and
stops at the first roll of a combatant in `physical`, raising :class:`Wanted`.

`run` is how the kit decides a command with it:

* the command is decided; stopped at a roll the table makes, it has one event,
  `DiceAsked`, whose `Asked` keeps the command, every roll it made before (the server's
  faces too, so deciding it again takes the same road) and whose dice it waits for, and
  how many (found by deciding it with ones for that roll, as `rules.entered` does: a one
  never makes a roll longer);
* while the encounter waits, every command but `EnterDice` (the faces, from the
  combatant's player or the GM) and `ServerDice` (the GM: roll it on the server instead)
  is refused;
* `EnterDice` decides the waiting command again with the faces typed for that roll: it is
  refused (nothing changes) for a face the die does not have, for too few or too many
  faces; a roll that needs more once they are in (Phobia's sixes rolled again) asks for
  them (`DiceAsked` again, the faces kept); otherwise the events are `DiceEntered` (who
  typed which faces for what) and the command's own, with every die in them as ever.

So the log holds every die as it did: undo, redo, replay and the archive keep the entered
dice exactly, and the luck of a roll is computed from its faces as for server dice.
"""

import contextlib
from dataclasses import dataclass, replace
from typing import Any

from rules.entered import MAX_FACES, MoreDice, parse_faces
from rules.errors import RulesError
from rules.errors import gettext_noop as _

SERVER = ""  # the `who` of dice nobody in particular rolls (the server's)


@dataclass(frozen=True)
class Rolled:
    """One roll a waiting command made: whose, what, its faces, and whether typed in."""

    who: str
    faces: tuple[int, ...] = ()
    entered: bool = False
    what: str = ""


@dataclass(frozen=True)
class Asked:
    """A command waiting for the table's dice: the rolls it made before, and the one it
    waits for (`who`'s `what`, `needed` more dice of `sides` faces after `typed`)."""

    command: Any
    rolls: tuple[Rolled, ...]
    who: str
    what: str
    sides: int
    needed: int
    typed: tuple[int, ...] = ()
    # The exact chance (percent) that the roll succeeds, where it is a test with one: the
    # same function the tray and the previews use (`chance_of`); None for a roll without.
    chance: float | None = None


# Commands --------------------------------------------------------------------------------


@dataclass(frozen=True)
class EnterDice:
    """The faces of the roll the encounter waits for, typed by `id`'s player or the GM:
    "4 6 1", in the order rolled (T10's ten is 10 or 0)."""

    id: str
    faces: str


@dataclass(frozen=True)
class ServerDice:
    """The GM: roll the roll the encounter waits for on the server (a player who left)."""


COMMANDS = {"enter_dice": EnterDice, "server_dice": ServerDice}
GM_ONLY = (ServerDice,)


# Events ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiceAsked:
    asked: Asked


@dataclass(frozen=True)
class DiceEntered:
    """`who`'s `what` was rolled at the table: `faces`, typed in. `rolls`: every roll the
    command made, in order, the server's too (which were typed in, by whose dice)."""

    who: str
    what: str
    faces: tuple[int, ...]
    rolls: tuple[Rolled, ...] = ()


@dataclass(frozen=True)
class DiceServed:
    """The GM had the server roll `who`'s `what` instead."""

    who: str
    what: str


EVENT_TYPES = {cls.__name__: cls for cls in (DiceAsked, DiceEntered, DiceServed)}
EVENT_CLASSES = frozenset(EVENT_TYPES.values())
VALUE_TYPES = {cls.__name__: cls for cls in (Asked, Rolled)}


def evolve_asked(asked: Asked | None, event) -> Asked | None:
    """What the encounter waits for after a dice event."""
    return event.asked if type(event) is DiceAsked else None


# What a roll is for, as the prompt and the log say it (each site's `what`).
WHAT = {
    "attack": _("attack test"), "area": _("hit area"), "shots": _("random projectiles"),
    "stress": _("stress roll"), "bow": _("bow test"), "scan": _("scan test"),
    "hold_fire": _("test to hold fire"), "parry": _("parry's hit"), "escape": _("escape test"),
    "survival": _("survival roll"), "pain": _("pain test"), "hazard": _("hazard"),
    "surprise": _("surprise roll"), "defence": _("defence test"), "damage": _("damage dice"),
    "check": _("injury check"), "death": _("death roll"), "shock": _("shock roll"),
    "initiative": _("initiative"), "skill": _("skill test"), "cover": _("test to take cover"),
    "treat": _("treatment test"),
}


def prompt_in(view: dict, state, viewer) -> dict:
    """A system's view while the fight waits for the table's dice: the roll it waits for
    is its one prompt (kind "dice": whose, what, how many dice of how many faces, those
    typed so far), for that combatant's player and the GM (who may also have the server
    roll it); the prompts of the command that waits are not answered until then."""
    asked = getattr(state, "asked", None)
    if asked is None:
        return view
    found = state.get(asked.who)
    name = found.name if found is not None else asked.who
    # An NPC's numbers are the GM's (`combat_kit.sees_numbers`): a player learns whose
    # dice the fight waits for and how many, not the chance nor the faces typed so far.
    numbers = viewer.is_gm or found is None or not found.npc
    prompt = {"kind": "dice", "for": asked.who, "who": name, "what": asked.what,
              "what_label": WHAT.get(asked.what, asked.what), "needed": asked.needed,
              "sides": asked.sides, "typed": list(asked.typed) if numbers else [],
              "mine": viewer.is_gm or asked.who in viewer.controls,
              "chance": asked.chance if numbers else None,
              "keys": list(range(1, asked.sides + 1))}
    return {**view, "prompts": [prompt], "waiting_dice": prompt}


def line(state, event, viewer=None) -> dict:
    """A dice event's log line: whose dice, for what, which faces or how many; an NPC's
    faces only for the GM (`viewer`; None: the GM's line)."""
    who = event.asked.who if type(event) is DiceAsked else event.who
    out = {"kind": type(event).__name__, "who": _name(state, who)}
    if viewer is not None and not viewer.is_gm and not _sees(state, who):
        out["hidden"] = True
    if type(event) is DiceAsked:
        out.update(what=event.asked.what, needed=event.asked.needed, sides=event.asked.sides,
                   typed=list(event.asked.typed))
    else:
        out["what"] = event.what
    out["what_label"] = WHAT.get(out["what"], out["what"])
    if type(event) is DiceEntered:
        out["faces"] = list(event.faces)
        # Every roll of the command typed in at the table, the earlier ones too.
        gm = viewer is None or viewer.is_gm
        out["typed"] = [{"who": _name(state, r.who), "what_label": WHAT.get(r.what, r.what),
                         "faces": list(r.faces)} for r in event.rolls
                        if r.entered and (gm or _sees(state, r.who))] or [
            {"who": out["who"], "what_label": out["what_label"], "faces": out["faces"]}]
    if out.get("hidden"):
        out["typed"], out["faces"] = [], []
        out["typed_hidden"] = type(event) is DiceEntered
    return out


def _sees(state, who: str) -> bool:
    """Whether a player reads `who`'s numbers: a character's, not an NPC's."""
    found = state.get(who)
    return found is not None and not found.npc


def _name(state, who: str) -> str:
    found = state.get(who)
    return found.name if found is not None else who


# The source ------------------------------------------------------------------------------


class Wanted(Exception):
    """Deciding stopped at roll `index`, `who`'s `what`, which the table makes."""

    def __init__(self, index: int, who: str, what: str, sides: int, chance=None):
        super().__init__(who, what)
        self.index, self.who, self.what, self.sides = index, who, what, sides
        self.chance = chance


class _Past(Exception):
    """Counting a roll's dice: the roll after it began, so it had all it needed."""


class TableDice:
    """The dice of one command in a fight where `physical` combatants roll their own:
    `server` (``randint``) rolls for everyone else; `rolls` were made already and are
    given again in order. `probe`: counting roll `probe`'s dice (deciding stops at the
    roll after it)."""

    def __init__(self, server, physical=frozenset(), rolls=(), probe: int | None = None):
        self.server = server
        self.physical = frozenset(physical)
        self.rolls = [list(r.faces) for r in rolls]
        self.meta = [(r.who, r.entered, r.what) for r in rolls]
        self.used = [0] * len(self.rolls)
        self.probe = probe
        self.started = 0

    def randint(self, low: int, high: int) -> int:
        """A die nobody in particular rolls (a tie broken, a side chosen): the server's."""
        return _Roll(self, SERVER, "").randint(low, high)

    def made(self, upto: int) -> tuple[Rolled, ...]:
        """The rolls before `upto`, as they were made."""
        return tuple(Rolled(who, tuple(faces), entered, what)
                     for faces, (who, entered, what) in zip(self.rolls[:upto], self.meta[:upto],
                                                             strict=False))


class _Roll:
    """One roll's dice from a `TableDice`: its place among the command's rolls is taken
    at its first die."""

    __slots__ = ("source", "who", "what", "index", "chance")

    def __init__(self, source: TableDice, who: str, what: str):
        self.source, self.who, self.what, self.index = source, who, what, None
        self.chance = None  # () -> the exact chance the roll succeeds (`chance_of`)

    def wanted(self, index: int, sides: int) -> Wanted:
        chance = None
        if self.chance is not None:
            with contextlib.suppress(RulesError, ValueError):
                chance = round(float(self.chance()) * 100, 1)
        return Wanted(index, self.who, self.what, sides, chance)

    def randint(self, low: int, high: int) -> int:
        source = self.source
        if self.index is None:
            self.index = index = source.started
            source.started += 1
            if index >= len(source.rolls):
                if source.probe is not None and index > source.probe:
                    raise _Past
                if self.who in source.physical:
                    raise self.wanted(index, high)
                source.rolls.append([])
                source.meta.append((self.who, False, self.what))
                source.used.append(0)
            elif source.meta[index][0] != self.who:
                raise RulesError(_("the dice typed in no longer fit this fight"),
                                 code="dice_changed")
        index = self.index
        faces, used = source.rolls[index], source.used[index]
        if used < len(faces):
            face = faces[used]
        elif source.meta[index][1]:  # typed in, and they ran out
            if source.probe == index:
                face = 1
                faces.append(face)
            else:
                raise self.wanted(index, high)
        else:
            face = source.server.randint(low, high)
            faces.append(face)
        if high == 10 and face == 0:
            face = 10  # a T10 shows 0 for its ten
        if not low <= face <= high:
            template = _("die {n} shows {face}: these dice show {low} to {high}")
            raise RulesError(template.format(n=used + 1, face=face, low=low, high=high),
                             code="bad_field", template=template, n=used + 1, face=face,
                             low=low, high=high)
        source.used[index] = used + 1
        return face


def chance_of(source, chance) -> None:
    """Where `source` is a roll the table makes, what its prompt says of the roll's odds:
    `chance()` is the exact probability that it succeeds (called only for a prompt)."""
    if type(source) is _Roll:
        source.chance = chance


def dice_of(rng, who: str, what: str, chance=None):
    """The source of `who`'s roll `what` ("attack", "stress", ...): `rng` itself unless
    it is a `TableDice`. `chance`: as `chance_of`'s."""
    if type(rng) is TableDice:
        found = _Roll(rng, who, what)
        found.chance = chance
        return found
    return rng


# Deciding with it ------------------------------------------------------------------------


def run(state, command, rng, decide) -> list:
    """`decide(state, command, rng)`'s events, with the table's dice when `rng` is a
    `TableDice`: a `DiceAsked` where it stops at a roll the table makes; `EnterDice` and
    `ServerDice` decide the waiting command again."""
    asked = getattr(state, "asked", None)
    if asked is None:
        if isinstance(command, (EnterDice, ServerDice)):
            raise RulesError(_("no roll waits for dice"), code="no_dice")
        if type(rng) is not TableDice:
            return list(decide(state, command, rng))
        table = rng
        if rng.started or rng.rolls:  # a source that rolled for another command already
            table = TableDice(rng.server, rng.physical)
        try:
            return list(decide(state, command, table))
        except Wanted as wanted:
            return [_ask(state, command, table, wanted, decide)]
    if not isinstance(command, (EnterDice, ServerDice)):
        name = _name(state, asked.who)
        raise RulesError(_("the fight waits for {name}'s dice first").format(name=name),
                         code="waiting_for_dice", template=_("the fight waits for {name}'s "
                                                             "dice first"), name=name)
    table = rng if type(rng) is TableDice else TableDice(rng)
    clear = _without(state)
    if isinstance(command, ServerDice):
        roll = Rolled(asked.who, asked.typed, False, asked.what)
        done = DiceServed(asked.who, asked.what)
    else:
        if command.id != asked.who:
            raise RulesError(_("these dice are not the ones the fight waits for"),
                             code="not_these_dice")
        typed = parse_faces(command.faces)
        if len(typed) < asked.needed:
            raise MoreDice(asked.needed - len(typed), len(typed))
        faces = (*asked.typed, *typed)
        if len(faces) > MAX_FACES:
            raise RulesError(_("too many dice"), code="bad_field")
        roll = Rolled(asked.who, faces, True, asked.what)
        done = None
    again = TableDice(table.server, table.physical, (*asked.rolls, roll))
    index = len(asked.rolls)
    try:
        events = list(decide(clear, asked.command, again))
    except Wanted as wanted:
        return [_ask(clear, asked.command, again, wanted, decide)]
    if done is None:
        done = DiceEntered(asked.who, asked.what, roll.faces, again.made(len(again.rolls)))
    if roll.entered and again.used[index] < len(roll.faces):
        left = len(roll.faces) - again.used[index]
        template = _("{left} dice too many: this roll takes {used}")
        raise RulesError(template.format(left=left, used=again.used[index]), code="bad_field",
                         template=template, left=left, used=again.used[index])
    return [done, *events]


def _without(state):
    return replace(state, asked=None)


def _ask(state, command, table: TableDice, wanted: Wanted, decide) -> DiceAsked:
    """The event of a command stopped at `wanted`: the rolls before it, the faces typed
    for it so far, and how many more it takes."""
    index = wanted.index
    made = table.made(index + 1)
    typed = made[index].faces if index < len(made) else ()
    before = made[:index]
    probe = TableDice(table.server, table.physical,
                      (*before, Rolled(wanted.who, typed, True, wanted.what)), probe=index)
    with contextlib.suppress(_Past, RulesError):
        decide(state, command, probe)
    needed = max(1, probe.used[index] - len(typed))
    asked = Asked(command, before, wanted.who, wanted.what, wanted.sides, needed, typed,
                  wanted.chance)
    return DiceAsked(asked)
