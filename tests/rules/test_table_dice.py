"""The table's own dice in a fight (rules/table_dice.py, issue 48): a command whose roll
belongs to a combatant whose dice the table rolls waits for the faces, and gives then
exactly the events the same faces give from a seeded die source, in every system:
Aoristos' attack hand rolled when the target answers (p. 8-9) and the stress roll's free
die and a nervchock's forced die (p. 5-6), Phobia's attack test whose sixes are rolled
again (phobia-utdrag.txt lines 30-65), T10's 2T10 (t10-ap-utdrag.txt, Färdighetsslag).
Refused entries change nothing."""

import random

import pytest

from rules.aoristos.combat import ENGINE as AORISTOS
from rules.aoristos.combat import commands as AC
from rules.aoristos.dice import parse_hand
from rules.aoristos.equipment import WEAPONS
from rules.aoristos.success import p_success
from rules.entered import MoreDice
from rules.errors import RulesError
from rules.phobia.combat import ENGINE as PHOBIA
from rules.phobia.success import odds
from rules.t10.combat import ENGINE as T10
from rules.t10.rolls import roll_odds
from rules.table_dice import DiceAsked, DiceEntered, DiceServed, EnterDice, ServerDice, TableDice
from tests.rules import test_combat_engine as aoristos_tests
from tests.rules import test_phobia_combat as phobia_tests
from tests.rules import test_t10_combat as t10_tests
from tests.rules.helpers import by_name, play


class Faces:
    """A die source that gives these faces in order (the server's, replayed)."""

    def __init__(self, faces):
        self.faces = list(faces)

    def randint(self, low, high):
        assert self.faces, "the server's dice ran out"
        face = self.faces.pop(0)
        assert low <= face <= high
        return face


def seeded(engine, state, command, seed):
    """The command decided with a seeded source: its events, and every roll it made."""
    recorder = TableDice(random.Random(seed))
    events = engine.decide(state, command, recorder)
    assert events == engine.decide(state, command, random.Random(seed))  # the same dice
    return events, recorder.made(len(recorder.rolls))


def typed_in(engine, state, command, physical, made, chunks=None):
    """The command decided with `physical`'s rolls typed in (the faces `made` had, as
    `chunks` of the counts each prompt asks for), the server rolling the rest as it did:
    the record of each step, the state after the last, and the prompts it showed."""
    server = Faces([f for r in made if r.who not in physical for f in r.faces])
    table = TableDice(server, physical)
    events = engine.decide(state, command, table)
    prompts = []
    for roll in [r for r in made if r.who in physical]:
        faces = list(roll.faces)
        while faces:
            [asked] = events
            assert isinstance(asked, DiceAsked)
            assert (asked.asked.who, asked.asked.what) == (roll.who, roll.what)
            prompts.append(asked.asked)
            for event in events:
                state = engine.evolve(state, event)
            take, faces = faces[: asked.asked.needed], faces[asked.asked.needed:]
            events = engine.decide(state, EnterDice(roll.who, " ".join(map(str, take))), table)
    assert not server.faces, "server dice left over"
    return events, state, prompts


def check_same(engine, state, command, physical, seed):
    expected, made = seeded(engine, state, command, seed)
    events, before, prompts = typed_in(engine, state, command, physical, made)
    entered = [e for e in events if isinstance(e, DiceEntered)]
    assert len(entered) == 1
    assert entered[0].who in physical
    assert tuple(e for e in events if not isinstance(e, DiceEntered)) == tuple(expected)
    after = before
    for event in events:
        after = engine.evolve(after, event)
    assert after.asked is None
    return expected, made, prompts, after


# Aoristos --------------------------------------------------------------------------------


def aoristos_duel(nerve_shock=0):
    state = aoristos_tests.duel()
    a = by_name(state, "A")
    state = state.put(a.with_(weapons=(WEAPONS["pistol"],), right="pistol",
                              loaded=(("pistol", 16),), nerve_shock=nerve_shock))
    return state


def test_aoristos_attack_dice_typed_in_when_the_target_answers_p8_9():
    for seed in range(12):
        state = aoristos_duel()
        state, _ = play(AORISTOS, state, AC.StartCombat(), random.Random(seed))
        a, b = by_name(state, "A"), by_name(state, "B")
        assert state.active.id == a.id
        state, events = play(AORISTOS, state, AC.Attack(a.id, b.id, "pistol"),
                             TableDice(random.Random(seed), {a.id}))
        assert not any(isinstance(e, DiceAsked) for e in events)  # no dice yet: B answers
        vigilance = AC.Vigilance(b.id, ("evasion",))
        _expected, made, prompts, _after = check_same(AORISTOS, state, vigilance, {a.id}, seed)
        assert prompts[0].what == "attack"
        assert prompts[0].sides == 6
        attack = next(r for r in made if r.who == a.id and r.what == "attack")
        assert prompts[0].needed == len(attack.faces)  # the hand's dice, told by the hand
        rolled = next(e for e in _expected if type(e).__name__ == "AttackRolled")
        exact = p_success(parse_hand(rolled.hand), rolled.test_base, rolled.threshold)
        assert prompts[0].chance == round(float(exact) * 100, 1)  # the tray's function


def test_aoristos_stress_free_die_and_nervchock_forced_die_typed_in_p5_6():
    """The stress roll 1B1F (p. 6: the free die) of the first activation, and a test hand
    with a forced die from nervchock (p. 5, 13)."""
    for seed in range(8):
        state = aoristos_duel(nerve_shock=1)
        a = by_name(state, "A")
        _e, made, prompts, after = check_same(AORISTOS, state, AC.StartCombat(), {a.id}, seed)
        assert [p.what for p in prompts] == ["stress"]
        assert prompts[0].needed == 2  # 1B1F
        b = by_name(after, "B")
        _e, made, prompts, _after = check_same(
            AORISTOS, play(AORISTOS, after, AC.Attack(a.id, b.id, "pistol"),
                           random.Random(seed))[0], AC.Vigilance(b.id, ("evasion",)), {a.id}, seed)
        attack = next(r for r in made if r.what == "attack")
        assert len(attack.faces) == prompts[0].needed >= 2  # the forced die is in the hand


def test_aoristos_refused_entries_change_nothing():
    state = aoristos_duel()
    a = by_name(state, "A")
    table = TableDice(random.Random(1), {a.id})
    [asked] = AORISTOS.decide(state, AC.StartCombat(), table)
    waiting = AORISTOS.evolve(state, asked)
    assert waiting.asked.needed == 2
    for faces, error in (("7 1", RulesError), ("3", MoreDice), ("3 4 5", RulesError),
                         ("x", RulesError)):
        with pytest.raises(error):
            AORISTOS.decide(waiting, EnterDice(a.id, faces), table)
    with pytest.raises(RulesError, match="not the ones"):
        AORISTOS.decide(waiting, EnterDice(by_name(state, "B").id, "3 4"), table)
    with pytest.raises(RulesError, match="waits for A's dice"):
        AORISTOS.decide(waiting, AC.EndEncounter(), table)
    events = AORISTOS.decide(waiting, EnterDice(a.id, "3 4"), table)
    assert isinstance(events[0], DiceEntered)
    assert events[0].faces == (3, 4)
    with pytest.raises(RulesError, match="no roll waits"):
        AORISTOS.decide(state, EnterDice(a.id, "3 4"), table)


def test_the_gm_rolls_a_waiting_roll_on_the_server_instead():
    state = aoristos_duel()
    a = by_name(state, "A")
    expected = AORISTOS.decide(state, AC.StartCombat(), random.Random(5))
    table = TableDice(random.Random(5), {a.id})
    [asked] = AORISTOS.decide(state, AC.StartCombat(), table)
    events = AORISTOS.decide(AORISTOS.evolve(state, asked), ServerDice(), table)
    assert events[0] == DiceServed(a.id, "stress")
    assert events[1:] == expected  # the server's dice, drawn as they would have been
    assert AORISTOS.actor_of(state, ServerDice()) is None  # the GM's alone


# Phobia ----------------------------------------------------------------------------------


def phobia_attack():
    state = phobia_tests.duel()
    state, _ = phobia_tests.run(state, {"type": "start_round"})
    state, _ = phobia_tests.run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = phobia_tests.run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol",
                "area": "chest"})
    return state, PHOBIA.parse_command({"type": "respond", "id": "c2", "kind": "cover"})


def test_phobia_attack_test_typed_in_with_its_sixes_rolled_again_as_they_come():
    state, respond = phobia_attack()
    sixes = 0
    for seed in range(200):
        _expected, made, prompts, _after = check_same(PHOBIA, state, respond, {"c1"}, seed)
        attack = next(r for r in made if r.who == "c1" and r.what == "attack")
        asked = [p for p in prompts if p.what == "attack"]
        test = next(e for e in _expected if type(e).__name__ == "AttackRolled").tests[0]
        assert asked[0].chance == round(float(odds(test.difficulty, test.chance).success)
                                        * 100, 1)
        first = asked[0].needed
        if 6 in attack.faces[:first]:
            # lines 30-65: each six is rolled again as two dice, asked for as they come
            assert len(asked) > 1
            assert asked[1].typed == attack.faces[:first]
            assert asked[1].needed == 2 * attack.faces[:first].count(6)
            sixes += 1
        else:
            assert len(asked) == 1
            assert len(attack.faces) == first
    assert sixes >= 3


def test_phobia_a_six_short_is_asked_for_again_and_keeps_the_typed():
    state, respond = phobia_attack()
    table = TableDice(Faces([]), {"c1", "c2"})
    [asked] = PHOBIA.decide(state, respond, table)
    waiting = PHOBIA.evolve(state, asked)
    needed = waiting.asked.needed
    [again] = PHOBIA.decide(waiting, EnterDice("c1", " ".join(["6"] + ["2"] * (needed - 1))),
                            table)
    assert again.asked.typed == (6, *(2,) * (needed - 1))
    assert again.asked.needed == 2
    with pytest.raises(MoreDice):
        PHOBIA.decide(PHOBIA.evolve(waiting, again), EnterDice("c1", "3"), table)


# T10 -------------------------------------------------------------------------------------


def test_t10_attack_2t10_typed_in_tens_as_zero():
    for seed in range(10):
        state = t10_tests.fight()
        command = T10.parse_command({"type": "attack", "id": "c1", "target": "c2",
                                     "weapon": "pistol", "distance": 10})
        expected, made, prompts, _after = check_same(T10, state, command, {"c1"}, seed)
        assert [(p.what, p.needed, p.sides) for p in prompts] == [("attack", 2, 10)]
        # The prompt's chance is the exact one of 2T10 + bonus >= 11 (Färdighetsslag).
        bonus = next(e for e in expected if type(e).__name__ == "AttackRolled").rolls[0].bonus
        assert prompts[0].chance == round(float(roll_odds(bonus).success) * 100, 1)
    state = t10_tests.fight()
    command = T10.parse_command({"type": "attack", "id": "c1", "target": "c2",
                                 "weapon": "pistol", "distance": 10})
    table = TableDice(random.Random(0), {"c1"})
    [asked] = T10.decide(state, command, table)
    events = T10.decide(T10.evolve(state, asked), EnterDice("c1", "0 4"), table)
    rolled = next(e for e in events if type(e).__name__ == "AttackRolled")
    assert rolled.rolls[0].dice == (10, 4)  # a T10's 0 is its ten


def test_the_log_with_entered_dice_replays_and_undoes_exactly():
    """The record's events hold every die: the fold of the stored log is the state."""
    from rules.engine import Record, decode, encode, replay

    state = aoristos_duel()
    a = by_name(state, "A")
    initial = state
    table = TableDice(random.Random(3), {a.id})
    first = AORISTOS.decide(state, AC.StartCombat(), table)
    waiting = state
    for event in first:
        waiting = AORISTOS.evolve(waiting, event)
    second = AORISTOS.decide(waiting, EnterDice(a.id, "6 2"), table)
    stored = [[decode(encode(e), AORISTOS.event_types) for e in events]
              for events in (first, second)]
    records = [Record(1, tuple(stored[0])), Record(2, tuple(stored[1]))]
    folded = replay(AORISTOS, initial, records)
    assert folded.state.asked is None
    assert folded.state.round == 1
    undone = replay(AORISTOS, initial, [*records, Record(3, undo_to=1)])
    assert undone.state.asked is not None
    assert undone.state.asked.who == a.id
    redone = replay(AORISTOS, initial, [*records, Record(3, undo_to=1), Record(4, redo=True)])
    assert redone.state == folded.state
