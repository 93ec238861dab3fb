"""Simulated fights (rules/simulation.py, the Aoristos policy in rules/aoristos/combat/
policy.py; issue 29): the chances a simulation gives must behave as chances of the fight
do. Every run is seeded, so these checks give the same answer every time; the bounds are
four standard errors of the sampled proportion (what one seed's luck could move)."""

import math
import random

import pytest

from rules import simulation as S
from rules.aoristos.combat import ENGINE
from rules.aoristos.combat import commands as C

CATALOGUE = ENGINE.catalogue()


def add(state, side: str, name: str, *, x: float, y: float = 0.0, npc: bool = True, **block):
    command = ENGINE.parse_command(
        {"type": "add_combatant", "name": name, "side": side, "npc": npc, "x": x, "y": y,
         **block},
        weapons=CATALOGUE["weapon"],
        armour=CATALOGUE["armour"],
    )
    return ENGINE.play(state, command, random.Random(0))[1]


KNIFE_FIGHTER = {"physique": 3, "agility": 3, "alertness": 3, "composure": 3, "willpower": 3,
                 "skills": {"melee_weapons": 3, "evasion": 2}, "weapons": ["knife"],
                 "right": "knife"}  # fmt: skip
GUNMAN = {"physique": 3, "agility": 3, "alertness": 3, "composure": 3, "willpower": 3,
          "skills": {"firearms": 3, "melee_weapons": 2, "evasion": 2},
          "weapons": ["pistol", "knife"], "right": "pistol"}  # fmt: skip
BRUTE = {"physique": 5, "agility": 4, "alertness": 4, "composure": 4, "willpower": 4,
         "skills": {"firearms": 5, "evasion": 4}, "weapons": ["carbine"], "right": "carbine",
         "armour": ["mail_shirt", "helmet"]}  # fmt: skip


def group_against(npcs: int, *, npc_block=KNIFE_FIGHTER, pcs: int = 3, gap: float = 3.0):
    state = ENGINE.new_state({})
    for i in range(pcs):
        state = add(state, "a", f"RP {i + 1}", x=0.0, y=2.0 * i, npc=False, **KNIFE_FIGHTER)
    for i in range(npcs):
        state = add(state, "b", f"SLP {i + 1}", x=gap, y=2.0 * i, **npc_block)
    return state


def error(p: float, n: int) -> float:
    return 4 * math.sqrt(max(p * (1 - p), 0.25 / n) / n)


def test_a_fight_is_played_to_its_end_and_counted():
    summary = S.simulate(ENGINE, group_against(4), fights=60, seed=1)
    assert summary.fights == 60
    assert summary.stuck == 0
    assert sum(summary.wins.values()) + summary.draws + summary.capped == 60
    assert set(summary.fates) == {"c1", "c2", "c3", "c4", "c5", "c6", "c7"}
    # Somebody fell in every fight that was won: the losers cannot act.
    assert summary.wins
    assert sum(summary.rounds.values()) == 60
    if summary.wins.get("a"):  # the losers cannot act: each was hurt in some fight
        assert all(summary.fate_chance(cid, "wounded") > 0 for cid in ("c4", "c5", "c6", "c7"))


def test_a_policy_mistake_ends_that_fight_not_the_run():
    """A command the rules refuse (here: for a combatant who is not there) ends its fight,
    counted stuck (won by nobody), and the run goes on."""
    from types import SimpleNamespace

    from rules.aoristos.combat import policy

    wrong = SimpleNamespace(
        start_command=policy.start_command, can_act=policy.can_act, fate=policy.fate,
        next_command=lambda state, plan, fight: C.EndActivation("c99"),
    )  # fmt: skip
    engine = SimpleNamespace(policy=wrong, play=ENGINE.play)
    summary = S.simulate(engine, group_against(2), fights=5, seed=1)
    assert summary.fights == 5
    assert summary.stuck == 5
    assert summary.capped == 5
    assert summary.wins == {}


def test_the_same_seed_gives_the_same_result_and_another_seed_another():
    state = group_against(4)
    first = S.simulate(ENGINE, state, fights=40, seed=29)
    assert S.simulate(ENGINE, state, fights=40, seed=29) == first
    assert S.simulate(ENGINE, state, fights=40, seed=30) != first


def test_a_mirror_fight_is_even_once_the_initiative_tie_is_taken_into_account():
    """Two identical fighters: the same SIN, so the one added first acts first (p. 6, ties
    by seat, then as added). Checked both ways round: the side that acts first wins as
    often whichever it is, and over both orders each side wins half the decided fights."""
    fights = 400

    def mirror(first: str):
        state = ENGINE.new_state({})
        for side in (first, "b" if first == "a" else "a"):
            state = add(state, side, f"Tvilling {side}", x=0.0 if side == "a" else 1.5,
                        **KNIFE_FIGHTER)
        return S.simulate(ENGINE, state, fights=fights, seed=3)

    a_first, b_first = mirror("a"), mirror("b")
    first_wins = [a_first.wins.get("a", 0), b_first.wins.get("b", 0)]
    decided = [sum(a_first.wins.values()), sum(b_first.wins.values())]
    p = sum(first_wins) / sum(decided)
    assert abs(first_wins[0] / decided[0] - first_wins[1] / decided[1]) <= 2 * error(p, fights)
    a_wins = a_first.wins.get("a", 0) + b_first.wins.get("a", 0)
    b_wins = a_first.wins.get("b", 0) + b_first.wins.get("b", 0)
    assert abs(a_wins / (a_wins + b_wins) - 0.5) <= error(0.5, a_wins + b_wins)


def test_one_more_foe_never_raises_the_groups_chance():
    fights = 300
    chances = [
        S.simulate(ENGINE, group_against(npcs), fights=fights, seed=11).chance("a")
        for npcs in range(1, 6)
    ]
    for fewer, more in zip(chances, chances[1:], strict=False):
        assert more <= fewer + error(fewer, fights), chances
    assert chances[0] > chances[-1]  # the count of foes matters at all
    assert S.simulate(ENGINE, group_against(5), fights=fights, seed=11).stuck == 0


def test_an_overwhelming_opposition_leaves_the_group_under_one_percent():
    state = group_against(6, npc_block=BRUTE, gap=12.0)
    summary = S.simulate(ENGINE, state, fights=300, seed=5)
    assert summary.chance("a") < 0.01
    assert all(summary.fate_chance(cid, "wounded") > 0.9 for cid in ("c1", "c2", "c3"))


def test_a_combatant_marked_to_flee_leaves_when_wounded_and_the_fight_ends_without_it():
    state = group_against(1)
    plain = S.simulate(ENGINE, state, fights=200, seed=8)
    fleeing = S.simulate(ENGINE, state, fights=200, seed=8, plan=S.Plan(flees=frozenset({"c4"})))
    assert plain.fate_chance("c4", "fled") == 0
    assert fleeing.fate_chance("c4", "fled") > 0.3
    assert fleeing.fate_chance("c4", "unconscious") < plain.fate_chance("c4", "unconscious")
    assert fleeing.chance("a") >= plain.chance("a")  # a foe who runs loses the fight


def test_a_fight_that_cannot_end_stops_at_the_round_cap():
    """Two unarmed fighters 200 m apart walk toward each other and do not meet within the
    cap: nobody falls, the cap ends every fight, won by nobody."""
    state = ENGINE.new_state({})
    state = add(state, "a", "Väster", x=0.0, **{**GUNMAN, "weapons": [], "right": None})
    state = add(state, "b", "Öster", x=200.0, **{**GUNMAN, "weapons": [], "right": None})
    summary = S.simulate(ENGINE, state, fights=5, seed=1, plan=S.Plan(round_cap=3))
    assert summary.capped == 5
    assert summary.wins == {}
    assert summary.rounds == {3: 5}


def test_a_started_fight_is_simulated_from_where_it_stands():
    state = group_against(4)
    state = ENGINE.play(state, C.StartCombat(), random.Random(2))[1]
    assert state.round == 1
    summary = S.simulate(ENGINE, state, fights=30, seed=2)
    assert summary.fights == 30
    assert sum(summary.rounds.values()) == 30


def test_progress_is_told_and_a_cancelled_run_keeps_what_it_played():
    told = []
    summary = S.simulate(
        ENGINE, group_against(2), fights=200, seed=4,
        progress=lambda done, total: told.append((done, total)),
        cancelled=lambda: len(told) >= 2,
    )
    assert told[0] == (S.PROGRESS_EVERY, 200)
    assert summary.fights == 2 * S.PROGRESS_EVERY
    assert told[-1] == (summary.fights, 200)


@pytest.mark.parametrize(("q", "rounds"), [(0.0, 1), (0.5, 1), (1.0, 3)])
def test_rounds_percentiles(q, rounds):
    summary = S.Summary(fights=4, seed=0, wins={}, draws=0, capped=0,
                        rounds={1: 2, 2: 1, 3: 1}, fates={})
    assert summary.rounds_percentile(q) == rounds


# The award (p. 3, "Strid, oavsett resultat"): the table's rows from simulated chances.


@pytest.mark.parametrize(
    ("group", "alone", "up", "row"),
    [
        (1.00, 1.00, 0, "no_threat"),  # the average character alone always wins
        (1.00, 0.95, 0, "no_threat"),
        (1.00, 0.94, 1, "alone_wins"),
        (0.95, 0.50, 1, "alone_wins"),  # "Den genomsnittliga RP:n skulle vinna ensam"
        (0.95, 0.49, 2, "alone_loses"),  # "... skulle förlora ensam"
        (0.91, 0.00, 2, "alone_loses"),
        (0.90, 0.99, 3, "group_threatened"),  # "Hela gruppen är hotad": loses 1 fight in 10
        (0.20, 0.00, 3, "group_threatened"),
    ],
)
def test_the_award_follows_the_table_on_page_3(group, alone, up, row):
    found = S.award(group, alone)
    assert (found.up, found.row) == (up, row)


def test_the_awards_thresholds_are_house_rules():
    assert S.award(0.85, 0.6).up == 3
    assert S.award(0.85, 0.6, {"award_group_threat_percent": 20}).up == 1
    assert S.award(1.0, 0.6, {"award_alone_wins_percent": 70}).up == 2
    assert S.award(1.0, 0.9, {"award_no_threat_percent": 90}).up == 0


def test_the_award_is_simulated_against_the_group_and_each_character_alone():
    weak = S.award_for(ENGINE, group_against(1), fights=150, seed=6)
    assert weak.group_chance > weak.alone_chance
    overwhelming = S.award_for(ENGINE, group_against(6, npc_block=BRUTE, gap=12.0), fights=60,
                               seed=6)
    assert (overwhelming.up, overwhelming.row) == (3, "group_threatened")
    assert overwhelming.group_chance < 0.05
    npcs_only = ENGINE.new_state({})
    npcs_only = add(npcs_only, "a", "SLP", x=0.0, **KNIFE_FIGHTER)
    npcs_only = add(npcs_only, "b", "SLP 2", x=1.0, **KNIFE_FIGHTER)
    assert S.award_for(ENGINE, npcs_only, fights=10, seed=1) is None
    started = ENGINE.play(group_against(1), C.StartCombat(), random.Random(1))[1]
    with pytest.raises(ValueError, match="before its start"):
        S.award_for(ENGINE, started, fights=10, seed=1)


# T10 (rules/t10/combat/policy.py): the same checks on its own fights.

T10_PISTOL = {"key": "pistol", "name": "Pistol", "skill": "pistol", "close": 5, "normal": 25,
              "maximum": 50, "modes": [["E", 0]], "damage": 3, "attack_ap": 3, "reload_ap": 5,
              "stance_ap": 2, "magazine": 8}  # fmt: skip
T10_KNIFE = {"key": "knife", "name": "Kniv", "skill": "melee", "close": 1, "normal": 2,
             "maximum": 2, "modes": [["E", 0]], "damage": 2, "attack_ap": 2, "reload_ap": 0,
             "stance_ap": 1}  # fmt: skip
T10_FIGHTER = {"initiative": 1, "skills": {"melee": 2, "medicine": 1}, "weapons": [T10_KNIFE]}
T10_SOLDIER = {"initiative": 3, "skills": {"pistol": 3}, "weapons": [T10_PISTOL],
               "armour": [{"key": "vest", "name": "Väst", "protection": 3}]}  # fmt: skip


def group_of(
    system: str, npcs: int, *, fighter: dict, npc_block: dict, gap: float, house: dict | None = None
):
    """Three `fighter`s of side a against `npcs` of `npc_block`, `gap` metres apart (the
    encounter's `house` rules, if given)."""
    from rules.engine import engine_for

    engine = engine_for(system, "combat")
    state = engine.new_state(house or {})
    for side, block, count, x in (("a", fighter, 3, 0.0), ("b", npc_block, npcs, gap)):
        for i in range(count):
            command = engine.parse_command({"type": "add_combatant", "name": f"{side}{i}",
                                            "side": side, "npc": side == "b", "x": x,
                                            "y": 2.0 * i, **block})  # fmt: skip
            state = engine.play(state, command, random.Random(0))[1]
    return engine, state


def t10_group_against(npcs: int, *, npc_block=T10_FIGHTER, gap: float = 3.0):
    return group_of("t10", npcs, fighter=T10_FIGHTER, npc_block=npc_block, gap=gap)


@pytest.mark.parametrize("system", ["t10", "phobia"])
def test_fights_are_seeded_and_more_foes_never_help(system):
    fights = 150
    group_against_in = {"t10": t10_group_against, "phobia": phobia_group_against}[system]
    engine, state = group_against_in(3)
    first = S.simulate(engine, state, fights=30, seed=2)
    assert S.simulate(engine, state, fights=30, seed=2) == first
    assert first.stuck == 0
    chances = [
        S.simulate(engine, group_against_in(npcs)[1], fights=fights, seed=9).chance("a")
        for npcs in (1, 3, 5)
    ]
    for fewer, more in zip(chances, chances[1:], strict=False):
        assert more <= fewer + error(fewer, fights), chances
    assert chances[0] > chances[-1]


def test_t10_an_overwhelming_opposition_and_a_foe_who_flees():
    engine, state = t10_group_against(6, npc_block=T10_SOLDIER, gap=20.0)
    overwhelming = S.simulate(engine, state, fights=150, seed=5)
    assert overwhelming.chance("a") < 0.01
    fallen = overwhelming.fate_chance("c1", "dead") + overwhelming.fate_chance("c1", "unconscious")
    assert fallen > 0.9
    # One knife fighter against three: it flees when it lives to its turn with a wound.
    engine, state = t10_group_against(1)
    plain = S.simulate(engine, state, fights=150, seed=8)
    fleeing = S.simulate(engine, state, fights=150, seed=8, plan=S.Plan(flees=frozenset({"c4"})))
    assert plain.fate_chance("c4", "fled") == 0
    assert fleeing.fate_chance("c4", "fled") > 0
    assert fleeing.fate_chance("c4", "dead") < plain.fate_chance("c4", "dead")
    assert fleeing.fate_chance("c4", "limb_broken") == 0  # T10 has no limbs


# Phobia (rules/phobia/combat/policy.py): the same checks on its own fights.

PHOBIA_KNIFE = {"key": "knife", "name": "Kniv", "damage": 1, "damage_type": "H", "skill": "knife"}
PHOBIA_PISTOL = {"key": "pistol", "name": "Pistol", "damage": 3, "damage_type": "P",
                 "skill": "pistol", "ranged": True}  # fmt: skip
PHOBIA_FIGHTER = {"turn_order": 10, "skills": {"knife": 10, "combat_experience": 1},
                  "weapons": [PHOBIA_KNIFE]}  # fmt: skip
PHOBIA_GUNMAN = {"turn_order": 15, "skills": {"pistol": 16, "combat_experience": 4},
                 "weapons": [PHOBIA_PISTOL], "protection": {"chest": 3}}  # fmt: skip


def phobia_group_against(npcs: int, *, npc_block=PHOBIA_FIGHTER, gap: float = 1.5):
    return group_of("phobia", npcs, fighter=PHOBIA_FIGHTER, npc_block=npc_block, gap=gap)


def test_phobia_an_overwhelming_opposition():
    engine, state = phobia_group_against(6, npc_block=PHOBIA_GUNMAN, gap=15.0)
    summary = S.simulate(engine, state, fights=100, seed=5)
    assert summary.chance("a") < 0.01
    assert summary.fate_chance("c1", "wounded") > 0.9


def test_phobia_policy_checks_a_command_as_the_pages_do(monkeypatch):
    """The Phobia policy checks a command only up to its first die
    (`combat_kit.refused_before_dice`, so an answer to an attack is not resolved twice):
    on every command it tries in these fights (shooters and knife fighters on either side),
    and every other answer the target could give there, that says what the pages'
    `view.refusal` says."""
    from rules import combat_kit
    from rules.phobia.combat import commands as PC
    from rules.phobia.combat import policy, view

    seen = []

    def compare(decide, state, command):
        quick = combat_kit.refused_before_dice(decide, state, command)
        full = view.refusal(state, command)
        seen.append((type(command).__name__, getattr(command, "kind", ""),
                     quick and quick.code, full and full.code))  # fmt: skip
        return quick

    def both(decide, state, command):
        if isinstance(command, PC.Respond):
            for kind in ("defend", "cover", "flee", "shoot_back"):
                compare(decide, state, PC.Respond(command.id, kind, area="chest"))
        return compare(decide, state, command)

    monkeypatch.setattr(policy, "refused_before_dice", both)
    for npc_block, gap in ((PHOBIA_FIGHTER, 1.5), (PHOBIA_GUNMAN, 15.0)):
        for fighter in (PHOBIA_FIGHTER, PHOBIA_GUNMAN):
            engine, state = group_of("phobia", 3, fighter=fighter, npc_block=npc_block, gap=gap)
            S.simulate(engine, state, fights=10, seed=3)
    assert all(quick == full for _kind, _answer, quick, full in seen)
    assert {answer for kind, answer, _quick, _full in seen if kind == "Respond"} == {
        "defend", "cover", "flee", "shoot_back"}  # fmt: skip
    assert {full for *_, full in seen} > {None}  # some were refused, and said why


def test_phobia_a_broken_arm_or_leg_is_a_broken_limb():
    """A failed Bryt check on an arm or a leg (the fold's loss "broken:arm"/"broken:leg")
    is a broken limb; a broken rib or spine is not; the text takes no limb."""
    from rules.phobia.combat import policy

    engine, state = phobia_group_against(1)
    c = state.combatants[0]
    for losses, broken in (((), False), ((("broken:chest", 1),), False),
                           ((("broken:arm", 1),), True), ((("broken:leg", 1),), True)):  # fmt: skip
        fate = policy.fate(c.with_(losses=losses))
        assert (fate.limb_broken, fate.limb_destroyed) == (broken, False)
    # Where the hit area is rolled (the house rule), arms and legs are hit, and broken.
    engine, state = group_of("phobia", 3, fighter=PHOBIA_FIGHTER, npc_block=PHOBIA_FIGHTER,
                             gap=1.5, house={"hit_location": "random"})  # fmt: skip
    summary = S.simulate(engine, state, fights=200, seed=4)
    broken = sum(counts.get("limb_broken", 0) for counts in summary.fates.values())
    assert broken > 0
    assert all(counts.get("limb_broken", 0) <= counts.get("wounded", 0)
               for counts in summary.fates.values())  # fmt: skip
