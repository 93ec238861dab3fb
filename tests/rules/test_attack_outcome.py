"""The attack's outcome (p. 8-13): the rules the preview and the engine share, each
against the text, and the property that the preview's distribution is the engine's.

The property enumerates every die the engine rolls for the attack (auto dice, attack
test, area roll), one ordering per multiset of each roll with its multinomial weight,
and compares the engine's own resolutions, weighted, with `outcome.odds` exactly."""

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from itertools import combinations_with_replacement
from math import factorial, prod

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from rules.aoristos.combat import ENGINE
from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat.attacks import attack_setup
from rules.aoristos.combat.gear import AREAS, LIMBS
from rules.aoristos.combat.outcome import AttackSetup, hit_chance, odds, strike
from rules.aoristos.combat.vigilance import default_vigilance
from rules.aoristos.equipment import ARMOUR, WEAPONS
from rules.combat_kit import percent
from tests.rules import helpers
from tests.rules.helpers import by_name, of


def run(state, command, *dice):
    return helpers.run(ENGINE, state, command, *dice)


def fight(attacker: dict, target: dict, *, round_two=True):
    """A (side a) against B (side b); A active with 40 KP; in round 2 unless
    `round_two` is false (round 1: SIN is the vigilance bonus, p. 8)."""
    state = ENGINE.new_state({})
    state, _ = run(state, C.AddCombatant(name="A", side="a", npc=False, alertness=6))
    state, _ = run(state, C.AddCombatant(name="B", side="b", npc=False, alertness=1, x=20.0))
    state, _ = run(state, C.StartCombat(), 1, 1)
    a, b = by_name(state, "A"), by_name(state, "B")
    state = state.put(a.with_(cp=40, **attacker)).put(b.with_(**target))
    if round_two:
        state = replace(state, round=2)
    return replace(state, turn=state.order.index(a.id))


def armed(key, rounds=None, **more):
    weapon = WEAPONS[key]
    hands = {"right": key, "left": key} if 1 not in weapon.hands else {"right": key}
    loaded = ((key, weapon.capacity if rounds is None else rounds),)
    return {"weapons": (weapon,), "loaded": loaded, "wound_up": key, **hands, **more}


def preview(state, weapon, **command):
    a, b = by_name(state, "A"), by_name(state, "B")
    return ENGINE.preview(state, C.Attack(a.id, b.id, weapon, **command))


# The text's figures -------------------------------------------------------------------


def test_anna_carbine_auto_fire_counts_the_random_projectiles_p9_p11():
    """p. 11: Anna fires her carbine "1/3/auto+2N" with 0 shots as base, so 2N (2T6)
    projectiles fly; p. 9: 1F per projectile beyond the first. At 25 m (carbine: long,
    rifled: 2 × 0.5 × 0.5 → ±0), TB 6 against ST 11: 97.3 % (2B2T alone: 47.8 %)."""
    state = fight(
        armed("carbine", agility=3, alertness=3, skills=(("firearms", 3),)),
        {
            "x": 25.0,
            "agility": 4,
            "alertness": 4,
            "skills": (("evasion", 3),),
            "vigilance_bonus": 0,
        },
    )
    shown = preview(state, "carbine", mode="auto+2n", shots=0)
    assert shown["ok"], shown
    assert (shown["test_base"], shown["threshold"]) == (6, 11)
    assert shown["p_hit"] == 97.3
    assert [s["shots"] for s in shown["shots"]] == list(range(2, 13))
    assert shown["hands"] == ["2B1T", "2B4F"]
    # One hand per projectile count: 2B2T + 1F per projectile past the first (p. 9), so
    # 2 projectiles 2B1T, 3 2B, 4 2B1F, ..., 6 dice at most (p. 4) from 7 on: 2B4F.
    hands = {s["shots"]: s["hand"] for s in shown["shots"]}
    assert [hands[n] for n in (2, 3, 4, 6, 7, 12)] == ["2B1T", "2B", "2B1F", "2B3F", "2B4F", "2B4F"]
    assert (shown["hand"], shown["hand_shots"]) == ("2B1T", 2)  # the fewest, and it says so
    # 4+ projectiles have no hit area (p. 9): most of it is area-less.
    area_less = next(a for a in shown["areas"] if a["area"] is None)
    assert area_less["percent"] > 80


def test_the_range_malus_applies_to_a_shot_from_a_melee_p10():
    """p. 10: the range malus applies "alltid": A, in melee with C, fires at B 58 m
    away: +5 ST (a pistol: short, rifled → 5 // 2 = 2)."""
    state = fight(armed("pistol"), {"x": 58.0, "aware": False})
    state, _ = run(state, C.AddCombatant(name="C", side="b", npc=False, x=1.0))
    parts = dict(preview(state, "pistol")["threshold_parts"])
    assert parts == {"range": 2}
    assert "firing_in_melee" not in parts  # B is in no melee


def test_every_attack_in_melee_from_the_ground_has_plus_two_p10():
    """p. 10: "Alla anfall i närstrid har +2 ST om anfallaren sitter eller ligger ner":
    firing at the foe one lies next to, too (+1 for a short firearm, range 0)."""
    state = fight(armed("pistol", posture="lying"), {"x": 1.0, "aware": False})
    parts = dict(preview(state, "pistol")["threshold_parts"])
    assert parts == {"attacker_down": 2, "firing_in_melee": 1, "range": 0}


@pytest.mark.parametrize("posture", ["sitting", "lying"])
def test_ror_is_always_there_for_a_target_on_the_ground_p8_p9(posture):
    """p. 8: RÖR is always available to vigilance; p. 9 asks a 1 m move, which a target
    on the ground rolls in its posture, at no KP (docs/rules/aoristos.md)."""
    state = fight(armed("pistol"), {"posture": posture, "agility": 3, "movement": 4, "cp": 2})
    b = by_name(state, "B")
    state, _ = run(state, C.Attack(by_name(state, "A").id, b.id, "pistol"))
    prompt = ENGINE.view(state, helpers_gm())["prompts"][0]
    assert "agility" in [o["key"] for o in prompt["options"]]
    state, events = run(state, C.Vigilance(b.id, ("agility",)), 1, 1, 1, 1, 1)
    moved = by_name(state, "B")
    assert of(events, E.VigilanceChosen).move_to is not None
    assert (moved.posture, moved.moved, moved.cp) == (posture, 1.0, 2)


def test_ror_needs_room_for_the_metre_on_the_ground_p7_p9():
    """p. 7: on the ground at most Förflyttning a round: with all of it moved, no RÖR."""
    state = fight(armed("pistol"), {"posture": "lying", "movement": 4, "moved": 4.0})
    b = by_name(state, "B")
    state, _ = run(state, C.Attack(by_name(state, "A").id, b.id, "pistol"))
    prompt = ENGINE.view(state, helpers_gm())["prompts"][0]
    assert "agility" not in [o["key"] for o in prompt["options"]]


def helpers_gm():
    from rules.combat_kit import GM_VIEW

    return GM_VIEW


def test_a_vigilance_of_nothing_still_brings_the_bonus_p8():
    """p. 8: the KP bonus helps "all vaksamhet, oavsett egenskaperna": every property
    0 and a bonus of 4 → the offer names one, ST 4 (not 0)."""
    assert default_vigilance({"agility": 0, "alertness": 0, "evasion": 0}, 4) == ("agility",)
    assert default_vigilance({"agility": 0, "evasion": 0}, 0) == ()
    assert default_vigilance({"melee_weapons": -2, "brawling": -1}, 2) == ("brawling",)
    assert default_vigilance({"melee_weapons": -2}, 2) == ()
    state = fight(
        armed("pistol"),
        {"x": 5.0, "agility": 0, "alertness": 0, "vigilance_bonus": 4, "movement": 0},
    )
    shown = preview(state, "pistol")
    assert shown["threshold"] == 4  # one property at 0, + the bonus 4; range 0
    b = by_name(state, "B")
    state, _ = run(state, C.Attack(by_name(state, "A").id, b.id, "pistol"))
    state, events = run(state, C.Vigilance(b.id, (), default=True), 1, 1, 1, 1, 1)
    assert of(events, E.VigilanceChosen).threshold == 4


# The hit area (p. 4, 9, 12-13) --------------------------------------------------------


def setup(**fields) -> AttackSetup:
    base = dict(test_base=10, threshold=0, real_weapon=False, toughness=3)
    return AttackSetup(**{**base, **fields})


def test_a_head_hit_divides_by_two_p13():
    """p. 13: "För träffar mot huvudet används konstanten 2 istället för Härdighet"."""
    s = setup(called_area="head", toughness=5, protection=(("head", 1),))
    struck = strike(s, 1, 3, frozenset(AREAS))
    assert (struck.area, struck.final, struck.damage) == ("head", 12, 6)


def test_each_area_has_its_own_armour_and_cover_p12():
    """p. 12: the armour on the area hit, and cover there counts as armour."""
    s = setup(protection=(("torso", 6), ("left_leg", 1)))
    assert strike(s, 1, 3, frozenset({"torso"})).damage == (13 - 6) // 3
    assert strike(s, 1, 3, frozenset({"left_leg"})).damage == (13 - 1) // 3
    assert strike(s, 1, 3, frozenset({"right_arm"})).damage == 13 // 3


def test_the_duellant_a_hidden_area_is_a_miss_p9():
    """p. 9, Duellanten: the dice sent the shot to the hidden arm: a miss."""
    s = setup(hidden=frozenset({"left_arm"}))
    assert strike(s, 1, 3, frozenset({"left_arm"})).reason == "hidden_area"


def test_a_free_area_hand_picks_a_die_that_is_not_hidden_p4_p9():
    """p. 4: a free hand lets the roller choose the dice; with aim the area hand is
    1B1F, so dice 3 and 5 may go to the torso when the left arm is hidden."""
    s = setup(aim=1, hidden=frozenset({"left_arm"}), called_area="left_arm")
    assert strike(s, 1, 3, frozenset({"left_arm", "torso"})).area == "torso"


def test_the_free_choice_takes_the_area_that_hurts_most_p4_p9():
    """Without a wanted area the server picks for the attacker: the area that hurts
    most (head's 2 against Härdighet 4), the head first at equal damage."""
    s = setup(aim=1, toughness=4, protection=(("torso", 2),))
    assert strike(s, 1, 3, frozenset(AREAS)).area == "head"
    assert strike(s, 1, 3, frozenset({"torso", "left_arm"})).area == "left_arm"


def test_the_engine_picks_the_free_die_and_the_matching_dice_head_p9():
    """Engine, aim 1: area dice 3 and 5 with the left arm hidden and wanted → torso;
    matching dice 2, 2 with the head wanted → the head, divided by 2."""
    target = {"x": 15.0, "hidden_areas": frozenset({"left_arm"}), "aware": False, "toughness": 6}
    state = fight(armed("pistol", agility=3, alertness=3, skills=(("firearms", 3),)), target)
    a, b = by_name(state, "A"), by_name(state, "B")
    after, events = run(
        state, C.Attack(a.id, b.id, "pistol", aim=1, area="left_arm"), 6, 6, 6, 3, 5, 6, 6, 6, 6
    )
    assert of(events, E.AttackRolled).area == "torso"
    after, events = run(
        state, C.Attack(a.id, b.id, "pistol", aim=1, area="head"), 6, 6, 6, 2, 2, 6, 6, 6, 6
    )
    resolved = of(events, E.AttackResolved)
    assert resolved.area == "head"
    assert resolved.damage == resolved.final_strength // 2


def test_hit_chance_is_the_odds_hit_chance():
    s = setup(test_base=4, threshold=9, aim=2, hidden=frozenset({"torso", "right_arm"}))
    assert hit_chance(s) == odds(s).p_hit
    auto = setup(test_base=4, threshold=12, shots=1, random_dice=2, shot_cap=9)
    assert hit_chance(auto) == odds(auto).p_hit
    whole = odds(auto)
    assert whole.miss + whole.hidden + whole.p_hit == 1


# The property: the preview is the engine's distribution --------------------------------

RANGED = [k for k, w in WEAPONS.items() if w.ranged or w.thrown]
MELEE = [k for k, w in WEAPONS.items() if not (w.ranged or w.thrown)]
WORN = [k for k, a in ARMOUR.items() if not a.shield]


class PrefixRng:
    """Gives `prefix`, then 1 for every further die, counting how many it gave."""

    def __init__(self, prefix):
        self.prefix = list(prefix)
        self.used = 0

    def randint(self, a, b):
        self.used += 1
        return self.prefix.pop(0) if self.prefix else 1


def engine_distribution(state, attack_command, target_id) -> tuple[Counter, int]:
    """Every die of the attack enumerated through the engine: outcome → weight."""
    declared = state
    for event in ENGINE.decide(state, attack_command, PrefixRng(())):
        declared = ENGINE.evolve(declared, event)
    vigilance = C.Vigilance(target_id, (), default=True)
    result: Counter = Counter()
    runs = 0

    def resolve(prefix):
        nonlocal runs
        runs += 1
        events = ENGINE.decide(declared, vigilance, PrefixRng(prefix))
        after = declared
        for event in events:
            after = ENGINE.evolve(after, event)
        while after.attack is not None and after.attack.stage == "follow":
            # p. 9: in melee the foes may follow the metre first; staying, they roll no
            # die, and the dice wait for the last answer.
            events = ENGINE.decide(after, C.Pass(after.reactions[0].who), PrefixRng(prefix))
            for event in events:
                after = ENGINE.evolve(after, event)
        rolled = of(events, E.AttackRolled)
        if after.attack is not None:  # the abort decision: go on
            events = ENGINE.decide(after, C.Proceed(rolled.attacker), PrefixRng(()))
        return rolled, of(events, E.AttackResolved)

    def visit(prefix):
        rolled, resolved = resolve(prefix)
        groups = [len(rolled.auto_dice), len(rolled.dice), len(rolled.area_dice)]
        n = sum(groups)
        if len(prefix) < n:
            pos, start = len(prefix), 0
            for size in groups:
                if pos < start + size:
                    break
                start += size
            low = prefix[-1] if pos > start else 1
            for value in range(low, 7):
                visit((*prefix, value))
            return
        weight = Fraction(1, 6**n)
        start = 0
        for size in groups:
            counts = Counter(prefix[start : start + size]).values()
            weight *= factorial(size) // prod(factorial(k) for k in counts)
            start += size
        if resolved.hit:
            key = (resolved.area, resolved.damage)
        else:
            key = "hidden" if resolved.reason == "hidden_area" else "miss"
        result[key] += weight

    visit(())
    return result, runs


def multisets(dice: int) -> int:
    return factorial(dice + 5) // (factorial(dice) * factorial(5))


def leaf_count(setup_: AttackSetup) -> int:
    """How many engine runs `engine_distribution` makes for this attack."""
    total = 0
    for auto in combinations_with_replacement(range(1, 7), setup_.random_dice):
        shots = setup_.projectiles(auto)
        area = multisets(setup_.aim + 1) if setup_.has_area(shots) else 1
        total += multisets(setup_.hand(shots).dice_count) * area
    return total


@st.composite
def situations(draw):
    ranged = draw(st.booleans())
    key = draw(st.sampled_from(RANGED if ranged else MELEE))
    weapon = WEAPONS[key]
    mode = draw(st.sampled_from(weapon.modes))
    attack = {"mode": mode.text}
    if mode.auto:
        attack["shots"] = draw(st.integers(0, min(3, weapon.max_per_round)))
    else:
        attack["aim"] = draw(st.integers(0, 1))
    if draw(st.booleans()):
        attack["area"] = draw(st.sampled_from(AREAS))
    stat = st.integers(0, 5)
    attacker = armed(
        key,
        # Few rounds keep auto fire's enumeration small (the cap is part of the rule).
        rounds=draw(st.integers(1, 4 if mode.auto else weapon.capacity)) if weapon.ranged else None,
        agility=draw(stat),
        alertness=draw(stat),
        physique=draw(stat),
        nerve_shock=draw(st.integers(0, 2)),
        posture=draw(st.sampled_from(["standing", "standing", "sitting", "lying"])),
        skills=((weapon.skill, draw(stat)),),
    )
    distance = draw(st.floats(0.5, 2.0) if not ranged else st.floats(0.5, 70.0))
    target = {
        "x": round(distance, 1),
        "agility": draw(stat),
        "alertness": draw(stat),
        "skills": (("evasion", draw(stat)), ("melee_weapons", draw(stat))),
        "toughness": draw(st.integers(1, 6)),
        "vigilance_bonus": draw(st.integers(0, 4)),
        "posture": draw(st.sampled_from(["standing", "sitting", "lying"])),
        "armour": tuple(
            ARMOUR[k] for k in draw(st.lists(st.sampled_from(WORN), max_size=2, unique=True))
        ),
        "hidden_areas": frozenset(draw(st.lists(st.sampled_from(AREAS), max_size=3))),
        "cover": tuple(
            (area, draw(st.integers(1, 8)))
            for area in draw(st.lists(st.sampled_from(LIMBS), max_size=2, unique=True))
        ),
    }
    return key, attack, attacker, target, draw(st.booleans())


ANNA = armed("carbine", rounds=3, agility=3, alertness=3, skills=(("firearms", 3),))
TARGET = {
    "x": 25.0,
    "agility": 2,
    "alertness": 2,
    "toughness": 3,
    "armour": (ARMOUR["spear_thrower_armour"],),
    "cover": (("left_leg", 3),),
}


@example(("carbine", {"mode": "auto+2n", "shots": 0}, ANNA, TARGET, True))
@example(
    (
        "carbine",
        {"mode": "3", "aim": 1, "area": "left_arm"},
        ANNA,
        {**TARGET, "x": 8.0, "hidden_areas": frozenset({"left_arm"})},
        False,
    )
)
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(situations())
def test_the_preview_is_the_engines_own_distribution(situation):
    """For random legal attacks (catalogue weapons, modes, aim, wanted areas, postures,
    armour, cover, hidden areas, distance, nervchock), the preview's distribution equals
    the engine's resolutions over every die, exactly."""
    key, attack, attacker, target, round_two = situation
    state = fight(attacker, target, round_two=round_two)
    a, b = by_name(state, "A"), by_name(state, "B")
    command = C.Attack(a.id, b.id, key, **attack)
    shown = ENGINE.preview(state, command)
    assume(shown["ok"])
    probe = state
    for event in ENGINE.decide(state, command, PrefixRng(())):
        probe = ENGINE.evolve(probe, event)
    setup_ = attack_setup(probe, probe.attack, tuple(shown["vigilance"]))
    expected = odds(setup_)
    assume(leaf_count(setup_) <= 2500)
    found, _runs = engine_distribution(state, command, b.id)
    assert found.pop("miss", 0) == expected.miss
    assert found.pop("hidden", 0) == expected.hidden
    assert dict(found) == expected.hits
    assert shown["p_hit"] == percent(expected.p_hit)
    assert sum(d["percent"] for d in shown["damage"]) == pytest.approx(
        percent(expected.p_hit), abs=0.1 * len(shown["damage"])
    )


def test_firing_in_melee_is_for_firearms_and_bows_only_p10():
    """p. 10: +1 for short firearms, +3 for long ones and bows; a throw or a sling at a
    standing target in the melee has only its range malus."""
    for key, extra in (("pistol", 1), ("carbine", 3), ("throwing_knife", None), ("sling", None)):
        state = fight(armed(key), {"x": 1.0, "aware": False})
        parts = dict(preview(state, key)["threshold_parts"])
        assert parts.get("firing_in_melee") == extra, key


def test_a_belt_is_read_as_the_hundred_rounds_of_its_mv_p11():
    """p. 11: a belt of any length; its MV is given for 100 rounds."""
    gun = WEAPONS["machine_gun"]
    assert gun.belt
    assert gun.capacity == 100
