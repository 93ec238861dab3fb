"""The story of a fight in numbers (rules/story.py and each system's combat/story.py, issue
29): attacks, hits against the hits the exact previews expected, damage, points spent and
luck, read from the stored events of the records that stay applied."""

import json
import random
import sys
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from rules import simulation as S
from rules.aoristos.combat import ENGINE as AORISTOS
from rules.aoristos.combat import commands as AC
from rules.aoristos.combat import figures as AF
from rules.aoristos.dice import Hand, Purpose, distribution
from rules.aoristos.equipment import WEAPONS
from rules.combat_kit import GM_VIEW
from rules.engine import Record, engine_for, replay
from rules.errors import RulesError
from rules.phobia.combat.attacks import MAX_OPPOSED
from rules.phobia.combat.story import defended_hit_chance, exchange_odds, total_luck
from rules.phobia.dice import ObDice, roll
from rules.phobia.success import odds, opposed, opposed_odds, resolve_test
from rules.story import Story, percentile, percentile_in, tell
from rules.t10.rolls import sum_distribution
from tests.rules import helpers

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from simulate import fight_state  # noqa: E402  (the benchmark's three-against-four fights)


def story_of(engine, initial, records) -> Story:
    return tell(engine, initial, [list(events) for events in records])


# Luck: the mid-percentile ------------------------------------------------------------------


def test_a_roll_at_the_median_is_average_luck():
    """2T10's median 11 (t10-ap-utdrag.txt p. 1, "Färdighetsslag"): half the rolls below,
    half above: 50."""
    assert percentile_in(sum_distribution(), 11, high_is_lucky=True) == 50
    assert percentile_in(sum_distribution(), 11, high_is_lucky=False) == 50


def test_the_extremes_approach_0_and_100():
    two_t10 = sum_distribution()
    assert percentile_in(two_t10, 20, high_is_lucky=True) == Fraction(995, 10)
    assert percentile_in(two_t10, 2, high_is_lucky=True) == Fraction(5, 10)
    # Phobia's roll-under Ob3T6 (lines 46-49): three 1s is the luckiest, a huge total the
    # unluckiest, and the mean over the open-ended distribution is 50.
    assert total_luck(3, 3, low_is_lucky=True) == 100 - Fraction(100, 432)  # 1, 1, 1 only
    assert total_luck(3, 60, low_is_lucky=True) < 1  # below the first percentile
    assert total_luck(0, 0, low_is_lucky=True) is None  # Ob0T6: no dice, no luck


@pytest.mark.parametrize(
    ("hand", "purpose"),
    [(Hand.of(2, forced=2), Purpose.TEST), (Hand.of(2, free=3), Purpose.TEST),
     (AF.stress_hand(), AF.STRESS_PURPOSE)],
)  # fmt: skip
def test_the_mean_luck_over_any_distribution_is_50(hand, purpose):
    """Aoristos' hands (p. 4): the percentile is the randomised PIT, uniform on average."""
    dist = distribution(hand, purpose)
    for lucky in (True, False):
        mean = sum(p * percentile_in(dist, v, high_is_lucky=lucky) for v, p in dist.items())
        assert mean == 50


def test_percentile_refuses_what_is_not_a_probability():
    with pytest.raises(ValueError):
        percentile(Fraction(3, 4), Fraction(1, 2))
    with pytest.raises(ValueError):
        percentile_in(sum_distribution(), 21, high_is_lucky=True)


# Aoristos: a fight with known dice ---------------------------------------------------------


def aoristos_fight():
    """p. 13's Isseu and Moudoun (tests/rules/test_combat_engine.py): Moudoun begins an
    aimed shot he cannot pay yet (p. 6: an extended activity), Isseu runs in and kicks his
    shin: 1 damage on the right leg; his VIL test against the pain succeeds. Each command's
    events are one record."""
    engine = AORISTOS
    state = engine.new_state({})
    records = []

    def run(command, *dice):
        nonlocal state
        state, events = helpers.run(engine, state, command, *dice)
        records.append(events)
        return events

    run(AC.AddCombatant(name="Moudoun", side="b", npc=False, alertness=3, agility=2,
                        physique=2, willpower=2, drive=4, skills={"firearms": 2, "evasion": 3},
                        weapons=(WEAPONS["flintlock_rifle"],), right="flintlock_rifle",
                        left="flintlock_rifle"))  # fmt: skip
    run(AC.AddCombatant(name="Kamraten", side="a", npc=False, alertness=1, x=25.0))
    run(AC.AddCombatant(name="Isseu", side="a", npc=False, alertness=2, agility=2, physique=2,
                        skills={"brawling": 2}, x=5.0))  # fmt: skip
    initial = engine.new_state({})
    run(AC.StartCombat(), 1, 1)  # Moudoun's stress 1B1F: 1, 1 -> 1 KP lost
    run(AC.Attack("c1", "c2", "flintlock_rifle", aim=2))  # 3 KP paid of more
    run(AC.EndActivation("c1"), 1, 1)  # Isseu's stress: 1 KP lost
    run(AC.Move("c3", 1.0, 0.0))  # 4 m: 1 KP + 2 past RÖR 2 (p. 7)
    before_attack = state
    attack = AC.Attack("c3", "c1", "unarmed")
    run(attack)  # 1 KP (p. 8)
    before_vigilance = state
    # ST 6 (Undvika 3 and the SIN bonus 3); 2B2T 2, 3, 5, 6: 2 + 3 = 5, total 9; area 1B: 2.
    run(AC.Vigilance("c1", ("evasion",)), 2, 3, 5, 6, 2)
    run(AC.Proceed("c3"), 5, 6, 6)  # VIL test 1B2T: lowest 5 (p. 13)
    return initial, records, before_attack, attack, before_vigilance


def test_an_aoristos_fight_with_known_dice_p6_p13():
    initial, records, before_attack, attack, before_vigilance = aoristos_fight()
    story = story_of(AORISTOS, initial, records)
    moudoun, comrade, isseu = story.rows
    assert (moudoun.name, comrade.name, isseu.name) == ("Moudoun", "Kamraten", "Isseu")
    assert (isseu.attacks, isseu.hits, isseu.damage_dealt, isseu.damage_taken) == (1, 1, 1, 0)
    assert (moudoun.attacks, moudoun.damage_taken, moudoun.damage_dealt) == (0, 1, 0)
    # KP by what (p. 6-8): the aimed shot's 3 KP as its extended activity began.
    assert moudoun.kp_spent == {"attack": 3}
    assert isseu.kp_spent == {"move": 3, "attack": 1}
    assert comrade.kp_spent == {}
    # Expected: the preview's chance; answered: the chance at the ST Moudoun chose.
    preview = AORISTOS.preview(before_attack, attack, GM_VIEW)
    assert isseu.expected_hits == pytest.approx(preview["p_hit"] / 100, abs=0.0005)
    prompt = AORISTOS.view(before_vigilance, GM_VIEW)["prompts"][0]
    assert isseu.expected_hits_answered == pytest.approx(
        prompt["chances"]["evasion"] / 100, abs=0.0005
    )
    # Luck: stress 1B1F showing 1, 1 (the lowest counts, low is lucky): 25/36 of the rolls
    # lose more, 11/36 as much; the VIL test 1B2T's lowest 5 of 5, 6, 6 (high is lucky).
    stress = 100 * (Fraction(25, 36) + Fraction(11, 72))
    pain = 100 * (1 - Fraction(8, 216) + Fraction(7, 432))
    assert moudoun.rolls == 2
    assert moudoun.luck == pytest.approx(float((stress + pain) / 2))
    attack_test = percentile_in(distribution(Hand.of(2, forced=2)), 5, high_is_lucky=True)
    assert isseu.rolls == 2
    assert isseu.luck == pytest.approx(float((stress + attack_test) / 2))
    assert (comrade.luck, comrade.rolls) == (None, 0)
    json.dumps(story.as_dict())
    assert story.as_dict()["rows"][2]["kp_spent"] == {"attack": 1, "move": 3}
    assert (story.damage_unit, story.points_unit) == ("damage", "KP")


def test_an_undone_record_is_not_counted():
    """The GM undoes the kick (its vigilance and its resolution): the story reads only the
    records that stay applied (`Replay.applied`)."""
    initial, records, *_ = aoristos_fight()
    log = [Record(v, tuple(events)) for v, events in enumerate(records, start=1)]
    kept = len(log) - 2
    log.append(Record(len(log) + 1, undo_to=kept))
    folded = replay(AORISTOS, initial, log)
    by_version = {record.version: record for record in log}
    applied = [by_version[v].events for v in folded.applied]
    story = tell(AORISTOS, initial, applied)
    isseu = story.row("c3")
    assert (isseu.attacks, isseu.hits, isseu.damage_dealt, isseu.rolls) == (0, 0, 0, 1)
    assert isseu.kp_spent == {"move": 3, "attack": 1}  # declared and paid, not rolled
    assert story.row("c1").damage_taken == 0
    assert story == story_of(AORISTOS, initial, records[:kept])


# T10: auto fire rolls twice ----------------------------------------------------------------

PISTOL = {"key": "pistol", "name": "Pistol", "skill": "pistol", "close": 5, "normal": 25,
          "maximum": 50, "modes": [["E", 0]], "damage": 3, "attack_ap": 3, "reload_ap": 5,
          "stance_ap": 2, "magazine": 8}  # fmt: skip
SMG = {"key": "kpist", "name": "K-pist", "skill": "smg", "close": 5, "normal": 30,
       "maximum": 100, "modes": [["E", 0], ["A", -2]], "damage": 3, "attack_ap": 3,
       "reload_ap": 4, "stance_ap": 2, "magazine": 30}  # fmt: skip


def test_t10_auto_fire_is_two_attack_rolls_each_its_own_hit():
    """t10-ap-utdrag.txt p. 2, "Vapen": "A [låter spelaren slå] två anfallsslag", each at
    the mode's −2; a hit is 11 or more (p. 1, "Färdighetsslag"); Skada is the damage past
    Kroppsskydd (p. 2)."""
    engine = engine_for("t10")
    state = engine.new_state({})
    initial = state
    records = []

    def run(command, *dice):
        nonlocal state
        state, events = helpers.run(engine, state, command, *dice)
        records.append(events)

    run({"type": "add_combatant", "name": "Johan", "npc": False, "skills": {"pistol": 2},
         "weapons": [PISTOL], "stance": "aimed"})  # fmt: skip
    run({"type": "add_combatant", "name": "Soldat", "side": "b", "skills": {"smg": 1},
         "weapons": [SMG], "right": "kpist", "stance": "aimed"})  # fmt: skip
    run({"type": "start"}, 1, 9)  # the soldier acts first
    run({"type": "fire_mode", "id": "c2", "weapon": "kpist", "mode": "A"})
    attack = engine.parse_command({"type": "attack", "id": "c2", "target": "c1",
                                   "weapon": "kpist", "distance": 10, "mode": "A"})  # fmt: skip
    preview = engine.preview(state, attack, GM_VIEW)
    run(attack, 6, 6, 3, 3)  # 12 + 1 − 2 = 11 hits; 6 + 1 − 2 = 5 misses
    story = story_of(engine, initial, records)
    johan, soldier = story.rows
    assert (soldier.attacks, soldier.hits) == (2, 1)
    assert soldier.expected_hits == pytest.approx(2 * 0.45)  # 2T10 − 1 ≥ 11: 45 %
    assert soldier.expected_hits == pytest.approx(2 * preview["p_hit"] / 100)
    assert soldier.expected_hits_answered == soldier.expected_hits
    assert (soldier.damage_dealt, johan.damage_taken) == (3, 3)
    assert soldier.kp_spent == {"attack": 3, "fire_mode": 2}
    assert (story.damage_unit, story.points_unit) == ("skada", "AP")
    # Luck: initiative 9 (1T10: 80 + 5), the rolls 12 (55 + 4.5) and 6 (10 + 2.5).
    assert soldier.rolls == 3
    assert soldier.luck == pytest.approx((85 + 59.5 + 12.5) / 3)
    assert (johan.rolls, johan.luck) == (1, 5.0)


# Phobia: a defended attack's exact chance ----------------------------------------------------


@pytest.mark.parametrize(
    ("attack", "defence"), [((3, 12), (3, 12)), ((4, 10), (3, 2)), ((2, 15), (1, 4)),
                            ((1, 3), (2, 10)), ((0, 5), (3, 12)), ((5, 8), (0, 3))],
)  # fmt: skip
def test_a_defended_exchange_splits_the_opposed_odds_by_the_attacks_success(attack, defence):
    """Lines 556-578, 796-799: the attack hits when its test succeeds and wins the
    opposition; a failed test with the higher effect does not hit. The two parts are
    exactly `opposed_odds`'s a_wins, and the hit is within the attack's own success."""
    hit, tie, failed_but_higher = exchange_odds(*attack, *defence)
    assert hit + failed_but_higher == opposed_odds(*attack, *defence).a_wins
    assert 0 <= hit + tie <= odds(*attack).success
    assert defended_hit_chance(*attack, *defence, exchanges=1) == hit
    assert defended_hit_chance(*attack, *defence) == hit * sum(tie**k for k in range(10))


def test_a_defended_hit_chance_is_what_the_engines_functions_play():
    """The engine's loop (attacks.attack_events) on its own dice, success and `opposed`,
    played 40,000 times: within four standard errors of the exact chance."""
    rng = random.Random(29)
    attack, defence = (3, 12), (3, 11)
    n, hits = 40_000, 0
    for _ in range(n):
        for _exchange in range(MAX_OPPOSED):
            a = resolve_test(attack[1], roll(ObDice(attack[0]), rng))
            d = resolve_test(defence[1], roll(ObDice(defence[0]), rng))
            if not a.success:
                break
            won = opposed(a, d)
            if won:
                hits += won > 0
                break
    p = float(defended_hit_chance(*attack, *defence))
    assert abs(hits / n - p) < 4 * (p * (1 - p) / n) ** 0.5


# Every system: the expectation is the previews' -------------------------------------------


def played(engine, state, seed):
    """A whole fight by the engine's default policy: the records, and for each attack
    declared by a command whose preview was asked first, that preview (by the attacker,
    in order)."""
    rng = random.Random(seed)
    policy, plan, fight = engine.policy, S.Plan(), S.Fight()
    records = []
    start = policy.start_command(state)
    if start is not None:
        events, state = engine.play(state, start, rng)
        records.append((events, None))
    for _ in range(2000):
        if len(S.standing(state, policy, fight)) < 2 or state.round > plan.round_cap:
            break
        command = policy.next_command(state, plan, fight)
        if command is None:
            break
        shown = None
        if type(command).__name__ == "Attack":
            shown = {**engine.preview(state, command, GM_VIEW), "id": command.id}
        events, state = engine.play(state, command, rng)
        records.append((events, shown))
    return records


def previewed_sums(records):
    """Per attacker: the attack rolls made and the sum of the previews' chances for them,
    when every attack it made was previewed (else it is left out)."""
    waiting: dict[str, float | None] = {}
    attacks, expected = defaultdict(int), defaultdict(float)
    unpreviewed = set()
    for events, shown in records:
        for event in events:
            kind = type(event).__name__
            if kind == "AttackDeclared":
                mine = shown is not None and shown["id"] == event.attacker
                waiting[event.attacker] = shown["p_hit"] / 100 if mine else None
                shown = None  # a command declares one attack; later ones follow by themselves
            elif kind == "AttackLost":
                waiting.pop(event.attacker, None)
            elif kind == "AttackRolled":
                answer = getattr(event, "reaction", False) or getattr(event, "response", False)
                chance = None if answer else waiting.pop(event.attacker, None)
                rolls = len(getattr(event, "rolls", ())) or (
                    1 if getattr(event, "mode", "E") == "E" else 2
                )
                if chance is None:
                    unpreviewed.add(event.attacker)
                    continue
                attacks[event.attacker] += rolls
                expected[event.attacker] += chance * rolls
    return {cid: (attacks[cid], expected[cid]) for cid in attacks if cid not in unpreviewed}


@pytest.mark.parametrize("system", ["aoristos", "t10", "phobia"])
def test_expected_hits_are_the_previews_chances_over_many_fights(system):
    """For every attack of 40 fights the default policy plays, the expectation adds the
    chance `engine.preview` showed just before it (its percent rounds to 0.1)."""
    engine, state = fight_state(system)
    compared = 0
    for seed in range(40):
        records = played(engine, state, seed)
        story = tell(engine, state, [events for events, _shown in records])
        for cid, (attacks, expected) in previewed_sums(records).items():
            row = story.row(cid)
            assert row.attacks == attacks
            assert row.expected_hits == pytest.approx(expected, abs=0.0005 * attacks + 1e-9)
            assert row.hits <= row.attacks
            compared += attacks
        for row in story.rows:
            assert row.luck is None or 0 < row.luck < 100
            assert not row.approximate
        assert sum(r.damage_dealt for r in story.rows) <= sum(r.damage_taken for r in story.rows)
    assert compared > 100


def test_an_unknown_system_tells_no_story():
    class Nowhere:
        system = "nowhere"

    with pytest.raises(RulesError, match="tells no story"):
        tell(Nowhere(), None, [])
