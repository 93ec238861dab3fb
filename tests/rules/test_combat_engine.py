"""The Aoristos combat state machine against the rule text's worked examples (p. 6-13),
and its refusals. Dice are scripted: each test lists the dice in the order the engine
rolls them."""

from dataclasses import replace

import pytest

from rules.aoristos.combat import ENGINE
from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat.view import GM_VIEW
from rules.aoristos.equipment import ARMOUR, WEAPONS
from rules.errors import RulesError
from tests.rules import helpers
from tests.rules.conftest import ScriptedRng
from tests.rules.helpers import by_name, of


def run(state, command, *dice):
    """`command` decided with these dice and folded (`helpers.run`)."""
    return helpers.run(ENGINE, state, command, *dice)


def add(state, name, **fields):
    fields.setdefault("npc", False)
    state, _ = run(state, C.AddCombatant(name=name, **fields))
    return state


def duel(**house):
    """Two foes 20 m apart: A (SIN 3) acts before B (SIN 1)."""
    state = ENGINE.new_state(house)
    state = add(
        state,
        "A",
        side="a",
        alertness=3,
        agility=2,
        composure=3,
        physique=2,
        willpower=2,
        skills={"brawling": 2, "evasion": 1, "firearms": 2},
    )
    state = add(
        state,
        "B",
        side="b",
        alertness=1,
        agility=1,
        composure=2,
        physique=2,
        willpower=2,
        x=20.0,
        skills={"evasion": 1},
    )
    return state


def test_jakai_stress_and_new_kp_p6():
    """p. 6: Jakai (HK 7, SIN 3) acts first, stress dice 1 and 3: loses 1 KP, has 6;
    after his activation he has 7 again."""
    state = ENGINE.new_state({})
    state = add(state, "Jakai", alertness=3, composure=4, drive=7)
    state = add(state, "Foe", side="b", alertness=2)
    state, events = run(state, C.StartCombat(), 1, 3)
    started = of(events, E.ActivationStarted)
    assert (state.active.name, started.dice, started.loss) == ("Jakai", (1, 3), 1)
    assert state.active.cp == 6
    state, events = run(state, C.EndActivation(state.active.id), 4, 2)
    assert by_name(state, "Jakai").cp == 7
    assert by_name(state, "Jakai").vigilance_bonus == 6  # p. 6: left-over KP to vigilance
    assert state.active.name == "Foe"


def ansgar(by_round_total):
    state = ENGINE.new_state({"movement_by_round_total": by_round_total})
    state = add(state, "Ansgar", agility=2, alertness=3, drive=12, movement=7)
    state = add(state, "Foe", side="b", alertness=1, x=30.0)
    state, _ = run(state, C.StartCombat(), 1, 1)
    return state


@pytest.mark.parametrize(("by_round_total", "move_kp"), [(True, 6), (False, 5)])
def test_ansgar_two_moves_and_a_scan_p7(by_round_total, move_kp):
    """p. 7: Ansgar (RÖR 2, FÖR 7) moves 2 m, scans, moves 8 m more: 6 KP for the moves
    by the round's total (the rule's sentence, the default house rule), 5 KP by each
    move (the example's figure)."""
    state = ansgar(by_round_total)
    cid = state.active.id
    start = state.active.cp
    state, first = run(state, C.Move(cid, 0.0, 2.0))
    state, _ = run(state, C.Scan(cid))
    state, second = run(state, C.Move(cid, 0.0, 10.0))
    assert of(first, E.Moved).cost + of(second, E.Moved).cost == move_kp
    assert start - state.active.cp == move_kp + 1
    assert state.active.moved == 10


def test_moving_past_twice_forflyttning_is_refused_p7():
    state = ansgar(True)
    with pytest.raises(RulesError, match="at most 14 m"):
        run(state, C.Move(state.active.id, 0.0, 14.5))


def levi_state():
    state = ENGINE.new_state({})
    state = add(
        state,
        "Levi",
        alertness=3,
        agility=2,
        posture="sitting",
        skills={"firearms": 2},
        weapons=(WEAPONS["flintlock_rifle"],),
        right="flintlock_rifle",
        left="flintlock_rifle",
        drive=9,
    )
    state = add(state, "Inkräktaren", side="b", npc=True, alertness=1, x=30.0)
    intruder = by_name(state, "Inkräktaren")
    # In the bushes (not clearly visible) and moving (not stationary).
    state = state.put(intruder.with_(cover=(("left_leg", 2),), moved_since_activation=True))
    state, _ = run(state, C.StartCombat(), 1, 1)
    return state


def test_levi_gets_one_cheap_aim_level_p8():
    """p. 8: Levi kneels with a flintlock (no laser) at a moving intruder in the bushes:
    only sitting is met, so one aim level costs 1 KP and a second 2 KP more."""
    state = levi_state()
    levi = state.active
    target = by_name(state, "Inkräktaren").id
    one = ENGINE.preview(state, C.Attack(levi.id, target, "flintlock_rifle", aim=1))
    two = ENGINE.preview(state, C.Attack(levi.id, target, "flintlock_rifle", aim=2))
    assert one["aim_conditions"] == 1
    assert (one["cost"], two["cost"]) == (2 + 1, 2 + 3)


def test_duellant_hidden_arm_makes_a_miss_p9():
    """p. 9: the duellist's left arm is behind the torso; an area roll of 3 (left arm)
    misses."""
    state = duel()
    b = by_name(state, "B")
    state = state.put(b.with_(hidden_areas=frozenset({"left_arm"})))
    a = by_name(state, "A")
    state = state.put(
        a.with_(weapons=(WEAPONS["pistol"],), right="pistol", loaded=(("pistol", 16),))
    )
    state, _ = run(state, C.StartCombat(), 1, 1)
    state, events = run(state, C.Attack(state.active.id, b.id, "pistol"))
    # B's vigilance: evasion 1 + round 1's SIN bonus 1 = 2, range 20 m +1 → ST 3.
    state, events = run(state, C.Vigilance(b.id, ("evasion",)), 3, 4, 5, 6, 3)
    rolled = of(events, E.AttackRolled)
    assert rolled.total >= rolled.threshold  # the test succeeds, the shot goes nowhere
    assert (rolled.area, rolled.hit, rolled.abortable) == ("left_arm", False, False)
    resolved = of(events, E.AttackResolved)
    assert (resolved.hit, resolved.reason) == (False, "hidden_area")
    assert by_name(state, "B").nerve_shock == 0


def test_marx_spade_dice_and_leg_p9():
    """p. 9: Marx attacks with a trench spade without aiming: 2B2T shows 1, 4, 5, 6; the
    1 and the 4 count; the area die sends it to a leg."""
    state = ENGINE.new_state({})
    state = add(
        state,
        "Marx",
        alertness=3,
        agility=3,
        physique=3,
        skills={"melee_weapons": 2},
        weapons=(WEAPONS["trench_spade"],),
        right="trench_spade",
    )
    state = add(state, "Fransken", side="b", npc=True, alertness=2, agility=2, x=1.5, physique=2)
    state, _ = run(state, C.StartCombat(), 2, 2)
    french = by_name(state, "Fransken").id
    state, _ = run(state, C.Attack(state.active.id, french, "trench_spade"))
    state, events = run(state, C.Vigilance(french, ("alertness",)), 1, 4, 5, 6, 2)
    rolled = of(events, E.AttackRolled)
    assert (rolled.hand, rolled.counted, rolled.area) == ("2B2T", (1, 4), "right_leg")
    assert rolled.test_base == 2 + 3
    assert rolled.threshold == 2 + 2  # SIN as vigilance, and SIN again as round 1's bonus
    assert rolled.abortable  # a hit within 10 m waits for Marx's decision (p. 9)
    assert state.attack.stage == "abort"


def etka_state():
    state = ENGINE.new_state({})
    state = add(
        state,
        "Etka",
        alertness=3,
        agility=2,
        drive=8,
        skills={"sling": 4},
        weapons=(WEAPONS["sling"],),
        right="sling",
    )
    state = add(
        state,
        "Spjutkastaren",
        side="b",
        npc=True,
        alertness=2,
        agility=1,
        physique=3,
        armour=(ARMOUR["spear_thrower_armour"],),
        x=44.0,
    )
    state, _ = run(state, C.StartCombat(), 1, 1)
    return state


def test_etka_sling_strength_and_armour_p12():
    """p. 12: Etka's TB 6, dice 4, ST 9 (vigilance 5, 44 m +4), sling +5: active strength
    10; the torso armour 5 leaves 5."""
    state = etka_state()
    etka = state.active.id
    thrower = by_name(state, "Spjutkastaren").id
    state, _ = run(state, C.Windup(etka, "sling"))
    state, _ = run(state, C.Attack(etka, thrower, "sling"))
    # Vigilance RÖR 1 + SIN 2 + round 1's SIN bonus 2 = 5 (RÖR moves him 1 m aside).
    state, events = run(state, C.Vigilance(thrower, ("agility", "alertness")), 1, 3, 5, 6, 6)
    rolled = of(events, E.AttackRolled)
    assert (rolled.test_base, sum(rolled.counted), rolled.threshold) == (6, 4, 9)
    assert dict(of(events, E.VigilanceChosen).parts)["range"] == 4
    resolved = of(events, E.AttackResolved)
    assert (resolved.active_strength, resolved.protection, resolved.final_strength) == (10, 5, 5)
    assert resolved.damage == 5 // 4  # Härdighet FYS 3 + 1


def test_anna_auto_fire_shoots_two_dice_p11():
    """p. 11: Anna's carbine "1/3/auto+2N" on auto with base 0 fires 2N: dice 2 and 5 →
    7 shots, +1 KP for auto; 4+ projectiles have no area (p. 9)."""
    state = duel()
    a = by_name(state, "A")
    state = state.put(
        a.with_(
            weapons=(WEAPONS["carbine"],),
            right="carbine",
            left="carbine",
            loaded=(("carbine", 21),),
        )
    )
    b = by_name(state, "B").id
    state, _ = run(state, C.StartCombat(), 1, 1)
    state, events = run(state, C.Attack(state.active.id, b, "carbine", mode="auto+2n", shots=0))
    assert of(events, E.AttackDeclared).cost == 2 + 1
    # auto dice 2, 5; then 2B4F (7 projectiles: +6F − 2T) - six dice; B's survival roll.
    state, events = run(state, C.Vigilance(b, ()), 2, 5, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6)
    rolled = of(events, E.AttackRolled)
    assert (rolled.auto_dice, rolled.shots, rolled.hand, rolled.area) == ((2, 5), 7, "2B4F", None)
    assert by_name(state, "A").rounds("carbine") == 21 - 7


def test_lacostine_barbed_wire_hazard_p12():
    """p. 12: the GM judges barbed wire at strength 1B; Lacostine grips it with the hand."""
    state = duel()
    a = by_name(state, "A")
    # 5 // Härdighet 3 = 1 damage to the arm: a VIL test against the pain (1B2T).
    state, events = run(state, C.Hazard(a.id, "1B", "right_arm", "taggtråd"), 5, 6, 6, 6)
    wound = of(events, E.Wounded)
    assert wound.damage == 5 // a.toughness
    assert wound.source == "taggtråd 1B = 5"


def test_miriam_auto_fire_against_totalrustning_p13():
    """p. 13: active strength 23 against Totalrustning 4 is 19; Härdighet 3 gives 6
    damage: 6 nervchock, 5 bleed rate, 5 organtrauma with a survival roll."""
    state = ENGINE.new_state({})
    state = add(
        state, "Miriam", willpower=3, physique=2, armour=(ARMOUR["soft_vest"], ARMOUR["helmet"])
    )
    miriam = by_name(state, "Miriam")
    assert miriam.toughness == 3
    state, events = run(state, C.Hazard(miriam.id, "1B+17", None, "automateld"), 6, 3, 3, 4, 6)
    wound = of(events, E.Wounded)
    assert (wound.damage, wound.nerve_shock, wound.bleed_rate, wound.organ_trauma) == (6, 6, 5, 5)
    assert wound.survival == ((3, 3, 4, 6), 6, 5, True)  # 2B2T: 3 + 3 = 6, not under 5
    assert wound.unconscious  # bleed 5 + nervchock 6 ≥ Chocktolerans 6 (p. 14)
    assert not by_name(state, "Miriam").conscious


def test_survival_roll_under_organtrauma_is_death_p14():
    state = ENGINE.new_state({})
    state = add(state, "Offer", physique=2)
    victim = by_name(state, "Offer")
    state, events = run(state, C.Hazard(victim.id, "1B+17", "torso"), 6, 1, 2, 5, 6)
    assert of(events, E.Wounded).dead
    assert not by_name(state, "Offer").alive


def moudoun_state():
    state = ENGINE.new_state({})
    state = add(
        state,
        "Moudoun",
        side="b",
        alertness=3,
        agility=2,
        physique=2,
        willpower=2,
        drive=4,
        skills={"firearms": 2, "evasion": 3},
        weapons=(WEAPONS["flintlock_rifle"],),
        right="flintlock_rifle",
        left="flintlock_rifle",
    )
    state = add(state, "Kamraten", side="a", alertness=1, x=25.0)
    state = add(
        state, "Isseu", side="a", alertness=2, agility=2, physique=2, skills={"brawling": 2}, x=5.0
    )
    return state


def test_isseu_kicks_moudoun_p13():
    """p. 13: Isseu kicks Moudoun's shin while he aims at her comrade: 1 damage, his first
    nervchock; his VIL test against GST with 1B2T (1T from the kick's nervchock)
    succeeds, so he does not fall; his aiming (an extended activity) is cancelled."""
    state = moudoun_state()
    state, _ = run(state, C.StartCombat(), 1, 1)
    moudoun = state.active
    assert moudoun.name == "Moudoun"
    assert moudoun.cp == 4 - 1
    comrade = by_name(state, "Kamraten").id
    state, events = run(state, C.Attack(moudoun.id, comrade, "flintlock_rifle", aim=2))
    assert of(events, E.ExtendedStarted).remaining > 0  # the aimed shot is not paid yet
    state, _ = run(state, C.EndActivation(moudoun.id), 1, 1)
    isseu = state.active
    assert isseu.name == "Isseu"
    state, _ = run(state, C.Move(isseu.id, 1.0, 0.0))
    state, _ = run(state, C.Attack(isseu.id, moudoun.id, "unarmed"))
    # ST 3 + 3 = 6 (Undvika and the SIN bonus); dice 2 + 3: total 9, margin 3, + FYS 2 = 5.
    state, events = run(state, C.Vigilance(moudoun.id, ("evasion",)), 2, 3, 5, 6, 2)
    state, events = run(state, C.Proceed(isseu.id), 5, 6, 6)
    wound = of(events, E.Wounded)
    assert (wound.area, wound.damage, wound.nerve_shock) == ("right_leg", 1, 1)
    ((dice, total, threshold, ok),) = wound.vil_tests
    assert (len(dice), total, threshold, ok) == (3, 2 + 5, 6, True)  # 1B2T, lowest 5
    assert wound.posture is None
    assert wound.cancelled == "extended"
    moudoun = by_name(state, "Moudoun")
    assert moudoun.extended is None
    assert moudoun.posture == "standing"


def test_failed_pain_tests_drop_and_fall_p13():
    state = moudoun_state()
    moudoun = by_name(state, "Moudoun")
    # Right arm: the first failure drops what the right hand holds alone (nothing: the
    # rifle is in both hands); the second drops what both hands hold.
    # 6 // Härdighet 3 = 2 damage: 2 nervchock, so each VIL test is 1B3T.
    state, events = run(state, C.Hazard(moudoun.id, "1B", "right_arm"), 6, *[1] * 8)
    wound = of(events, E.Wounded)
    assert [t[3] for t in wound.vil_tests] == [False, False]
    assert wound.dropped == ("flintlock_rifle",)
    assert by_name(state, "Moudoun").held == ()
    state, events = run(state, C.Hazard(moudoun.id, "1B", "left_leg"), 6, *[1] * 12)
    assert of(events, E.Wounded).posture == "lying"


def test_broken_limb_nervchock_stays_p14():
    state = duel()
    a = by_name(state, "A").with_(shock_tolerance=20)  # stays conscious for this test
    state = state.put(a)
    # 15 // 3 = 5 damage: destroyed; the VIL test is 1B5T (six dice at most), passed.
    state, events = run(state, C.Hazard(a.id, "1B+10", "left_leg"), 5, *[6] * 6)
    assert of(events, E.Wounded).limb_state == "destroyed"
    state, _ = run(state, C.StartCombat(), 1, 1)
    a = by_name(state, "A")
    assert a.posture == "sitting"  # no standing on a destroyed leg
    assert a.cp == 8 - 5 - 1  # Handlingskraft − nervchock − stress
    nerve = []
    for _ in range(3):
        state, _ = run(state, C.EndActivation(state.active.id), 1, 1)  # A
        nerve.append(by_name(state, "A").nerve_shock)
        state, _ = run(state, C.EndActivation(state.active.id), 1, 1)  # B
    assert nerve == [3, 1, 1]  # falls by VIL 2, but one degree stays for the limb


# Refusals: a clear reason, and nothing changes ---------------------------------------------


def started_duel():
    state = duel()
    a = by_name(state, "A")
    state = state.put(
        a.with_(weapons=(WEAPONS["pistol"],), right="pistol", loaded=(("pistol", 16),))
    )
    state, _ = run(state, C.StartCombat(), 1, 1)
    return state


def test_out_of_turn_is_refused():
    state = started_duel()
    b = by_name(state, "B")
    with pytest.raises(RulesError, match="not B's activation"):
        ENGINE.decide(state, C.Scan(b.id), ScriptedRng())


def test_kp_not_there_starts_an_extended_activity_p6():
    state = started_duel()
    state = state.put(state.active.with_(cp=3))
    a = state.active
    state, events = run(state, C.Move(a.id, 0.0, 13.0))  # 1 + 2 + 3 = 6 KP; A has 3
    started = of(events, E.ExtendedStarted)
    assert (started.paid, started.remaining) == (a.cp, 6 - a.cp)
    assert state.active.cp == 0
    assert state.active.x == 0
    with pytest.raises(RulesError, match="no KP left"):
        ENGINE.decide(state, C.Scan(a.id), ScriptedRng())
    state, _ = run(state, C.EndActivation(a.id), 1, 1)
    state, _ = run(state, C.EndActivation(state.active.id), 1, 1)  # B
    state, events = run(state, C.Continue(a.id))
    assert of(events, E.Moved).y == 13.0
    assert state.active.extended is None


def test_aimed_shots_in_melee_are_refused_p10():
    state = started_duel()
    b = by_name(state, "B")
    state = state.put(b.with_(x=1.0))
    with pytest.raises(RulesError, match="forbidden in melee"):
        ENGINE.decide(state, C.Attack(state.active.id, b.id, "pistol", aim=1), ScriptedRng())


def test_targeting_the_dead_is_refused():
    state = started_duel()
    b = by_name(state, "B")
    state = state.put(b.with_(alive=False, conscious=False))
    with pytest.raises(RulesError, match="is dead"):
        ENGINE.decide(state, C.Attack(state.active.id, b.id, "pistol"), ScriptedRng())


def test_refused_commands_change_nothing():
    state = started_duel()
    before = replace(state)
    for command in (
        C.Attack(state.active.id, "c99", "pistol"),
        C.Vigilance("c2"),
        C.Proceed("c1"),
        C.StartCombat(),
        C.Move("c1", 0.0, 0.0),
    ):
        with pytest.raises(RulesError):
            ENGINE.decide(state, command, ScriptedRng())
    assert state == before


# Melee: what may be started, leaving it, and overwatch (p. 10-11) ---------------------------


def melee_pair():
    """A (RÖR 2) in melee with B (RÖR 1), 1 m apart; A acts first."""
    state = ENGINE.new_state({})
    state = add(
        state,
        "A",
        side="a",
        alertness=3,
        agility=2,
        composure=4,
        physique=3,
        skills={"brawling": 2},
        weapons=(WEAPONS["pistol"],),
        right="pistol",
    )
    state = add(
        state,
        "B",
        side="b",
        npc=True,
        alertness=1,
        agility=1,
        composure=4,
        x=1.0,
        skills={"brawling": 3},
    )
    state, _ = run(state, C.StartCombat(), 1, 1)
    return state


def test_only_some_actions_may_be_started_in_melee_p10():
    state = melee_pair()
    a = state.active
    for command in (C.Reload(a.id, "pistol"), C.SwitchHands(a.id), C.ChangePosture(a.id, "lying")):
        with pytest.raises(RulesError, match="in melee"):
            ENGINE.decide(state, command, ScriptedRng())
    run(state, C.Scan(a.id))  # scanning is allowed
    run(state, C.ChangePosture(a.id, "sitting"))  # so is sitting down


def test_leaving_melee_safely_p10():
    """p. 10: the mover's RÖR 2 + 6 against the foe's RÖR 1 + 1: she gets away."""
    state = melee_pair()
    a = state.active
    state, events = run(state, C.Move(a.id, -3.0, 0.0), 6, 6, 1, 1)
    tested = of(events, E.EscapeTested)
    assert (tested.mover_total, tested.foes_total, tested.dangerous) == (2 + 6, 1 + 1, False)
    assert state.active.x == -3.0


def test_leaving_melee_when_the_foes_win_p10():
    """p. 10: the foes' total is higher: the mover may abort (no refund) or go on and take
    an immediate attack from everyone in the melee, then move."""
    state = melee_pair()
    a = state.active
    cp = a.cp
    state, events = run(state, C.Move(a.id, -3.0, 0.0), 1, 1, 6, 6)
    assert of(events, E.EscapeTested).dangerous
    assert state.escape is not None
    assert state.active.x == 0
    assert state.active.cp == cp - 3  # paid: 3 m is past RÖR 2
    with pytest.raises(RulesError, match="reaction is waiting"):
        ENGINE.decide(state, C.Scan(a.id), ScriptedRng())

    aborted, _ = run(state, C.Abort(a.id))
    assert aborted.escape is None
    assert aborted.active.cp == cp - 3
    assert aborted.active.x == 0

    state, events = run(state, C.Proceed(a.id))
    b = by_name(state, "B")
    assert [(r.kind, r.who) for r in state.reactions] == [("free_attack", b.id)]
    # B kicks as a passive action at the normal cost; A defends with nothing chosen.
    state, events = run(state, C.Attack(b.id, a.id, "unarmed"))
    assert of(events, E.AttackDeclared).passive
    state, events = run(state, C.Vigilance(a.id, ()), 1, 1, 1, 1, 2)
    # The kick: 1 + 1 + brawling 3 + 1 = 6 against ST 0; within 10 m B may abort. Going
    # on: strength 6 + FYS 1 = 7, Härdighet 4: 1 damage to the right leg, a VIL test (1B2T).
    state, events = run(state, C.Proceed(b.id), 6, 6, 6)
    assert of(events, E.Wounded).damage == 1
    assert of(events, E.ReactionDone).how == "attacked"
    assert of(events, E.Moved).x == -3.0  # then she gets away
    assert state.escape is None
    assert not state.reactions
    assert state.active.id == a.id


def test_overwatch_calls_a_reflex_attack_or_a_sin_test_p11():
    state = ENGINE.new_state({})
    state = add(
        state,
        "Vakt",
        side="a",
        alertness=3,
        agility=2,
        composure=3,
        skills={"firearms": 2},
        weapons=(WEAPONS["pistol"],),
        right="pistol",
    )
    state = add(state, "Smygare", side="b", alertness=1, agility=2, composure=4, x=10.0)
    state, _ = run(state, C.StartCombat(), 1, 1)
    guard = state.active
    state, events = run(state, C.Overwatch(guard.id, 6.0, 0.0), 1, 1)
    assert by_name(state, "Vakt").overwatch == (6.0, 0.0)
    sneak = state.active
    state, events = run(state, C.Move(sneak.id, 6.5, 0.0))
    assert [(r.kind, r.who) for r in state.reactions] == [("overwatch", guard.id)]
    with pytest.raises(RulesError, match="no aim"):
        ENGINE.decide(state, C.Attack(guard.id, sneak.id, "pistol", aim=1), ScriptedRng())
    # A voluntary SIN test to hold fire: SIN 3 + 2 = 5 < 6 fails: the guard must shoot.
    failed, events = run(state, C.Pass(guard.id), 2, 4)
    assert failed.reactions[0].must
    with pytest.raises(RulesError, match="must attack"):
        ENGINE.decide(failed, C.Pass(guard.id), ScriptedRng())
    held, events = run(state, C.Pass(guard.id), 4, 6)
    assert not held.reactions
    assert by_name(held, "Vakt").overwatch is None


def test_scanning_breaks_overwatch_p11():
    state = ENGINE.new_state({})
    state = add(
        state,
        "Vakt",
        side="a",
        alertness=3,
        composure=3,
        weapons=(WEAPONS["pistol"],),
        right="pistol",
    )
    state = add(state, "Annan", side="b", alertness=1, x=20.0)
    state, _ = run(state, C.StartCombat(), 1, 1)
    guard = state.active.id
    state, _ = run(state, C.Overwatch(guard, 6.0, 0.0), 1, 1)
    state, _ = run(state, C.EndActivation(state.active.id), 1, 1)
    state, _ = run(state, C.Scan(guard))
    assert by_name(state, "Vakt").overwatch is None


def test_single_attack_mode_gives_a_rounds_kp_to_aim_and_to_vigilance_p6():
    """p. 6: for a single attack, aim and vigilance as much as a round's KP allows."""
    state = ENGINE.new_state({})
    state = add(
        state,
        "Skytten",
        composure=3,
        alertness=2,
        skills={"firearms": 2},
        weapons=(WEAPONS["pistol"],),
        right="pistol",
    )
    state = add(state, "Målet", side="b", composure=2, alertness=3, x=5.0)
    shooter, target = (c.id for c in state.combatants)
    state, events = run(state, C.SingleAttack(shooter, target))
    assert state.active.id == shooter
    assert state.active.cp == 3 + 1 + 4
    state, _ = run(state, C.Attack(shooter, target, "pistol", aim=3))
    # 2B1F (aim 3 against 2T) and the area roll 1B3F: seven dice; a miss.
    state, events = run(state, C.Vigilance(target, ("alertness",)), *[1] * 7)
    parts = dict(of(events, E.VigilanceChosen).parts)
    assert parts["cp_bonus"] == 2 + 1 + 4  # the target's Handlingskraft, not SIN
    state, events = run(state, C.EndActivation(shooter))
    assert state.ended


def test_a_scan_sees_the_fully_visible_and_tests_sin_for_the_partly_hidden_p6():
    """p. 6-7: scanning notices every fully visible person; a partly visible one needs a
    test of Sinnesnärvaro (GST 6)."""
    state = ENGINE.new_state({})
    state = add(state, "Spanaren", alertness=3, composure=3)
    state = add(state, "Synlig", side="b", npc=True, x=10.0)
    state = add(state, "Buskage", side="b", npc=True, x=12.0)
    state = add(state, "Bakom", side="b", npc=True, x=14.0)
    for name in ("Buskage", "Bakom"):
        state = state.put(by_name(state, name).with_(cover=(("torso", 3),)))
    state, _ = run(state, C.StartCombat(), 1, 1)
    scout = state.active.id
    # SIN 3 + 3 = 6 finds the one in the bushes; 3 + 2 = 5 misses the other.
    state, events = run(state, C.Scan(scout), 3, 4, 2, 5)
    scanned = of(events, E.Scanned)
    names = {c.id: c.name for c in state.combatants}
    assert [names[cid] for cid in scanned.seen] == ["Synlig", "Buskage"]
    assert [(names[t[0]], t[2], t[4]) for t in scanned.tests] == [
        ("Buskage", 6, True),
        ("Bakom", 5, False),
    ]


@pytest.mark.parametrize("character_id", [1, 1541, 10**12])
def test_a_character_of_any_database_id_can_join(character_id):
    """A character's id is the database's, not a game number: a site with more than a
    thousand characters once could not bring the rest into a fight."""
    command = ENGINE.parse_command({"type": "add_combatant", "name": "Albert",
                                    "character_id": character_id})
    assert command.character_id == character_id
    for bad in (0, -1, 2**63, True, "7"):
        with pytest.raises(RulesError):
            ENGINE.parse_command({"type": "add_combatant", "name": "Albert",
                                  "character_id": bad})


# The parry (p. 8) -------------------------------------------------------------------------


def parry_pair(limb_state="ok"):
    """A (Slagsmål 2, unarmed) 1 m from B, who holds a knife and has Närstridsvapen 6."""
    state = ENGINE.new_state({})
    state = add(state, "A", side="a", alertness=3, agility=2, physique=2, willpower=3,
                skills={"brawling": 2})
    state = add(state, "B", side="b", npc=True, alertness=1, x=1.0,
                skills={"melee_weapons": 6}, weapons=(WEAPONS["knife"],), right="knife")
    if limb_state != "ok":
        a = by_name(state, "A")
        state = state.put(a.with_(limbs=tuple(
            (limb, limb_state if limb == "right_arm" else "ok") for limb, _ in a.limbs)))
    state, _ = run(state, C.StartCombat(), 1, 1)
    return state


@pytest.mark.parametrize(("limb", "hit"), [("left_leg", "left_leg"), (None, "right_arm"),
                                            ("left_arm", "left_arm")])
def test_an_unarmed_attack_that_misses_a_parry_is_hit_in_the_limb_used_p8(limb, hit):
    """p. 8: "Om ett obeväpnat anfall missar en person som använder Närstridsvapen i
    vaksamhet, och som har ett egentligt närstridsvapen (s. 8), får anfallaren en träff med
    styrka 1B i använd lem, utan modifikationer (s. 12)." A kick is hit in the kicking leg,
    a punch in its arm; with no limb named, the free right hand strikes."""
    state = parry_pair()
    a, b = by_name(state, "A"), by_name(state, "B")
    state, events = run(state, C.Attack(a.id, b.id, "unarmed", limb=limb))
    assert of(events, E.AttackDeclared).limb == hit
    # ST: Närstridsvapen 6 + round 1's SIN bonus 1 = 7; TB 2 + 2 with 1 + 1: 6, a miss.
    # The area die (5); the parry's 1B: 6 // Härdighet 3 = 2 damage, no armour counted; then
    # the pain test with 1B3T (nervchock 2): VIL 3 + 6 = 9, passed.
    state, events = run(
        state, C.Vigilance(b.id, ("melee_weapons",)), 1, 1, 1, 1, 5, 6, 6, 6, 6, 6
    )
    assert of(events, E.AttackResolved).reason == "miss"
    wound = of(events, E.Wounded)
    assert (wound.id, wound.area, wound.damage, wound.source) == (a.id, hit, 2, "parry 1B = 6")
    assert by_name(state, "A").nerve_shock == 2


def test_a_parry_without_a_real_melee_weapon_hits_nothing_back_p8():
    """p. 8: only a parry with an "egentligt närstridsvapen" hits the limb used."""
    state = parry_pair()
    b = by_name(state, "B")
    state = state.put(b.with_(right=None))
    a = by_name(state, "A")
    state, _ = run(state, C.Attack(a.id, b.id, "unarmed", limb="right_leg"))
    # Närstridsvapen 8 − 2 without a real melee weapon + round 1's bonus 1 = 7 against
    # TB 4 + 1 + 1 = 6: a miss, and no hit back.
    state = state.put(by_name(state, "B").with_(skills=(("melee_weapons", 8),)))
    state, events = run(state, C.Vigilance(b.id, ("melee_weapons",)), 1, 1, 1, 1, 5)
    assert of(events, E.AttackResolved).reason == "miss"
    assert not [e for e in events if isinstance(e, E.Wounded)]


def test_no_strike_with_a_broken_limb_p14():
    """p. 14: nothing is held with a broken arm; nor does it strike (our reading): the free
    hand then is the left."""
    state = parry_pair("broken")
    a, b = by_name(state, "A"), by_name(state, "B")
    with pytest.raises(RulesError, match="broken limb"):
        ENGINE.decide(state, C.Attack(a.id, b.id, "unarmed", limb="right_arm"), ScriptedRng())
    _, events = run(state, C.Attack(a.id, b.id, "unarmed"))
    assert of(events, E.AttackDeclared).limb == "left_arm"


def test_an_unarmed_attack_names_its_limb_through_the_parser_p8():
    command = ENGINE.parse_command({"type": "attack", "id": "c1", "target": "c2",
                                    "weapon": "unarmed", "limb": "left_leg"})
    assert command.limb == "left_leg"
    with pytest.raises(RulesError, match="unknown limb"):
        ENGINE.parse_command({"type": "attack", "id": "c1", "target": "c2", "limb": "head"})


# Reloading (p. 7, 11) -----------------------------------------------------------------------


def belt_team():
    """Skytten (SIN 3) with an empty machine gun, Hjälpen (SIN 2) beside him, a foe 40 m off."""
    state = ENGINE.new_state({})
    state = add(state, "Skytten", alertness=3, composure=6, drive=12, skills={"firearms": 2},
                weapons=(WEAPONS["machine_gun"],), right="machine_gun", left="machine_gun")
    state = add(state, "Hjälpen", alertness=2, composure=6, drive=12, x=1.0)
    state = add(state, "Fienden", side="b", npc=True, alertness=1, x=40.0)
    gunner = by_name(state, "Skytten")
    state = state.put(gunner.with_(loaded=(("machine_gun", 0),)))
    state, _ = run(state, C.StartCombat(), 1, 1)
    return state


def test_a_belt_is_reloaded_for_ol_10_by_the_gunner_p11():
    """p. 11: "Med ett bälte är förvald OL (s. 7) 10 för skytten"."""
    state = belt_team()
    gunner = state.active
    state = state.put(gunner.with_(cp=12))
    state, events = run(state, C.Reload(gunner.id, "machine_gun"))
    assert of(events, E.Reloaded).cost == 10
    assert by_name(state, "Skytten").rounds("machine_gun") == 100


def test_a_belt_is_reloaded_for_ol_5_by_an_assistant_p11():
    """p. 11: "... 10 för skytten, 5 för en assistent": the assistant, in its own
    activation, threads a new belt into the gunner's weapon for 5 KP."""
    state = belt_team()
    state, _ = run(state, C.EndActivation(state.active.id), 1, 1)  # Skytten
    helper = state.active
    assert helper.name == "Hjälpen"
    gunner = by_name(state, "Skytten")
    before = state
    offered = [a for a in ENGINE.view(state, GM_VIEW)["actions"] if a["key"] == "reload_for"]
    assert [(a["cost"], a["command"]["gunner"]) for a in offered] == [(5, gunner.id)]
    state, events = run(state, C.Reload(helper.id, "machine_gun", gunner=gunner.id))
    reloaded = of(events, E.Reloaded)
    assert (reloaded.id, reloaded.gunner, reloaded.cost) == (helper.id, gunner.id, 5)
    assert by_name(state, "Skytten").rounds("machine_gun") == 100
    assert state.active.cp == helper.cp - 5
    (line,) = [ln for ln in ENGINE.describe(before, events, GM_VIEW) if ln["kind"] == "Reloaded"]
    assert (line["gunner_name"], line["weapon_name"]) == ("Skytten", "Kulspruta")
    # Only a belt, and only beside the gunner.
    far = state.put(by_name(state, "Hjälpen").with_(x=5.0))
    far = far.put(by_name(far, "Skytten").with_(loaded=(("machine_gun", 0),)))
    with pytest.raises(RulesError, match="stand by"):
        ENGINE.decide(far, C.Reload(helper.id, "machine_gun", gunner=gunner.id), ScriptedRng())


# Windups (p. 7) -------------------------------------------------------------------------


def thrower(weapon="hand_grenade", cp=None, **more):
    """Kastaren (SIN 3, VIL 1) with `weapon` in hand, a foe 15 m off; her activation."""
    state = ENGINE.new_state({})
    item = more.pop("item", WEAPONS[weapon])
    hands = {"right": weapon} if 1 in item.hands else {"right": weapon, "left": weapon}
    state = add(state, "Kastaren", alertness=3, composure=6, drive=12, willpower=1, physique=2,
                shock_tolerance=20, skills={"throwing": 2, "bow": 2}, weapons=(item,), **hands)
    state = add(state, "Fienden", side="b", npc=True, alertness=1, x=15.0)
    state, _ = run(state, C.StartCombat(), 1, 1)
    if cp is not None:
        state = state.put(state.active.with_(cp=cp))
    return state


def test_a_grenade_dropped_in_pain_stays_armed_on_the_ground_p7():
    """p. 7: "Om man oplanerat avbryter en uppladdning innebär det att granaten förblir
    apterad": the pin pulled (UL 1), a wound to the arm and a failed pain test make the hand
    let go (p. 13); the grenade lies armed at her feet, and picked up again (sitting, p. 7)
    it is still armed: thrown with no new windup."""
    state = thrower()
    k = state.active
    state, _ = run(state, C.Windup(k.id, "hand_grenade"))
    assert by_name(state, "Kastaren").wound_up == "hand_grenade"
    # 3 // Härdighet 3 = 1 damage to the right arm; VIL 1 + 1 fails twice: she lets go.
    before = state
    state, events = run(state, C.Hazard(k.id, "1B", "right_arm"), 3, *[1] * 6)
    wound = of(events, E.Wounded)
    assert wound.dropped == ("hand_grenade",)
    assert wound.windup == ("hand_grenade", "armed_dropped")
    k = by_name(state, "Kastaren")
    assert (k.held, k.wound_up, k.armed_on_ground) == ((), None, ("hand_grenade",))
    card = next(c for c in ENGINE.view(state, GM_VIEW)["combatants"] if c["id"] == k.id)
    assert card["armed_on_ground"] == ["Handgranat"]
    lines = ENGINE.describe(before, events, GM_VIEW)
    assert [ln["windup_outcome"] for ln in lines if "windup_outcome" in ln] == ["armed_dropped"]
    state, _ = run(state, C.ChangePosture(k.id, "sitting"))
    state, events = run(state, C.PickUp(k.id, "hand_grenade", "left"))
    assert of(events, E.HandsChanged).windup == "armed"
    k = by_name(state, "Kastaren")
    assert (k.left, k.wound_up, k.armed_on_ground) == ("hand_grenade", "hand_grenade", ())
    foe = by_name(state, "Fienden")
    _, events = run(state, C.Attack(k.id, foe.id, "hand_grenade"))
    assert of(events, E.AttackDeclared).cost == 2  # no UL again: it is armed already


def test_a_drawn_bow_let_fall_loses_its_arrow_p7():
    """p. 7: "... att pilen förloras utan kraft att skada": the bow dropped while drawn
    (UL 3) loses its arrow; picked up, it must be wound up again."""
    state = thrower("bow")
    k = state.active
    state, _ = run(state, C.Windup(k.id, "bow"))
    state, events = run(state, C.Drop(k.id, "right"))
    assert of(events, E.HandsChanged).windup == "lost"
    k = by_name(state, "Kastaren")
    assert (k.wound_up, k.armed_on_ground, k.held) == (None, (), ())


def test_a_windup_broken_off_by_pain_loses_the_arrow_p6_p7():
    """p. 6: nervchock breaks off an extended activity; p. 7: a windup so interrupted
    loses the arrow. The bow's UL 3 with 2 KP left is begun as an extended activity."""
    state = thrower("bow", cp=2)
    k = state.active
    state, events = run(state, C.Windup(k.id, "bow"))
    assert of(events, E.ExtendedStarted).remaining == 1
    state, events = run(state, C.Hazard(k.id, "1B", "torso"), 3)  # 1 damage: nervchock 1
    wound = of(events, E.Wounded)
    assert (wound.cancelled, wound.windup) == ("extended", ("bow", "lost"))
    assert by_name(state, "Kastaren").wound_up is None


def test_a_grenade_windup_broken_off_stays_armed_in_the_hand_p7():
    """p. 7: "granaten förblir apterad i handen": a slow grenade's windup (UL 3, begun as an
    extended activity) broken off by another action leaves it armed in the hand."""
    slow = replace(WEAPONS["hand_grenade"], windup=3)
    state = thrower("hand_grenade", cp=2, item=slow)
    k = state.active
    state, _ = run(state, C.Windup(k.id, "hand_grenade"))
    state, _ = run(state, C.EndActivation(k.id), 1, 1)
    state, _ = run(state, C.EndActivation(state.active.id), 1, 1)  # Fienden; round 2
    state, events = run(state, C.Scan(k.id))  # KP on another activity (p. 6)
    cancelled = of(events, E.ExtendedCancelled)
    assert (cancelled.reason, cancelled.windup) == ("other_action", ("hand_grenade", "armed"))
    k = by_name(state, "Kastaren")
    assert (k.extended, k.wound_up) == (None, "hand_grenade")
    card = next(c for c in ENGINE.view(state, GM_VIEW)["combatants"] if c["id"] == k.id)
    assert card["armed"] == ["Handgranat"]


def test_aborting_a_windup_costs_1_kp_and_keeps_the_projectile_p7():
    """p. 7: "För 1 KP kan man avbryta en uppladdning och taga tillvara på projektilen, som
    en aktiv handling": done, or under way as an extended activity; nothing is lost."""
    state = thrower("bow")
    k = state.active
    wound, _ = run(state, C.Windup(k.id, "bow"))
    cp = by_name(wound, "Kastaren").cp
    aborted, events = run(wound, C.AbortWindup(k.id))
    assert of(events, E.WoundUp).aborted
    after = by_name(aborted, "Kastaren")
    assert (after.wound_up, after.cp) == (None, cp - 1)
    state = thrower("bow", cp=2)
    k = state.active
    state, _ = run(state, C.Windup(k.id, "bow"))
    state = state.put(by_name(state, "Kastaren").with_(cp=1))
    state, events = run(state, C.AbortWindup(k.id))
    assert of(events, E.ExtendedCancelled).windup is None  # aborted on purpose: kept
    k = by_name(state, "Kastaren")
    assert (k.extended, k.wound_up, k.cp) == (None, None, 0)
    with pytest.raises(RulesError, match="nothing is wound up"):
        ENGINE.decide(state, C.AbortWindup(k.id), ScriptedRng())


def test_a_wound_up_weapon_is_not_stowed_before_the_windup_is_aborted_p7():
    state = thrower()
    k = state.active
    state, _ = run(state, C.Windup(k.id, "hand_grenade"))
    with pytest.raises(RulesError, match="abort the windup first"):
        ENGINE.decide(state, C.Stow(k.id, "right"), ScriptedRng())


# Items in hand (p. 7) ---------------------------------------------------------------------


def packer(**house):
    """Packaren (KAO 6, SIN 3) with a knife and a pistol, the pistol packed away."""
    state = ENGINE.new_state(house)
    state = add(state, "Packaren", alertness=3, composure=6, drive=12,
                weapons=(WEAPONS["knife"], WEAPONS["pistol"]), packed=("pistol",))
    state = add(state, "Fienden", side="b", npc=True, alertness=1, x=10.0)
    state, _ = run(state, C.StartCombat(), 1, 1)
    return state


@pytest.mark.parametrize(("house", "cost"), [({}, 2), ({"pack_extra_cp": 3}, 4)])
def test_taking_an_item_out_of_a_pack_costs_more_p7(house, cost):
    """p. 7: "Att plocka fram saker som är nedstoppade i packning kostar mer": the text gives
    no number, so the campaign's house rule says how much more (default 1 KP: 2 in all).
    Once out it is at hand: stowed (1 KP) and drawn again, it costs a draw's 1 KP."""
    state = packer(**house)
    p = state.active
    assert by_name(state, "Packaren").packed == ("pistol",)
    state, events = run(state, C.Draw(p.id, "pistol"))
    assert of(events, E.HandsChanged).cost == cost
    assert by_name(state, "Packaren").packed == ()
    state, events = run(state, C.Stow(p.id, "right"))
    assert of(events, E.HandsChanged).cost == 1
    state, events = run(state, C.Draw(p.id, "pistol"))
    assert of(events, E.HandsChanged).cost == 1
    assert state.house.pack_extra_cp == house.get("pack_extra_cp", 1)


def test_drawing_readying_stowing_and_switching_cost_1_kp_p7():
    """p. 7: "Hit räknas att taga fram vapen från hölster och liknande, eller göra dem redo
    så att dragningen blir en kostnadsfri del av nästa anfall. Att flytta föremål mellan
    händer, stoppa undan föremål och plocka upp saker ur lättillgängliga fickor går lika
    lätt": 1 KP each; a readied weapon is drawn free with the next attack."""
    state = packer()
    p = state.active
    cp = p.cp
    state, events = run(state, C.Draw(p.id, "knife"))
    state, more = run(state, C.SwitchHands(p.id))
    assert by_name(state, "Packaren").left == "knife"
    state, stowed = run(state, C.Stow(p.id, "left"))
    assert [of(e, E.HandsChanged).cost for e in (events, more, stowed)] == [1, 1, 1]
    state, readied = run(state, C.Ready(p.id, "knife"))
    assert of(readied, E.HandsChanged).cost == 1
    assert by_name(state, "Packaren").cp == cp - 4
    foe = by_name(state, "Fienden")
    state = state.put(foe.with_(x=1.0, aware=False))
    state, events = run(state, C.Attack(p.id, foe.id, "knife"), 1, 1, 1, 1, 1)
    drawn = of(events, E.HandsChanged)
    assert (drawn.action, drawn.cost) == ("draw", 0)  # the readied knife: drawn free
    assert of(events, E.AttackDeclared).cost == 2  # a real weapon's attack (p. 8)


def test_stowing_in_melee_costs_1_kp_more_and_dropping_is_free_p7():
    """p. 7: "I pågående närstrid måste man dock betala minst 1 extra KP för att få göra sig
    av med föremål på något annat sätt än att bara släppa dem"."""
    state = packer()
    p = state.active
    state = state.put(by_name(state, "Fienden").with_(x=1.0))
    state, _ = run(state, C.Draw(p.id, "knife"))
    stowed, events = run(state, C.Stow(p.id, "right"))
    assert of(events, E.HandsChanged).cost == 2
    dropped, events = run(state, C.Drop(p.id, "right"))
    assert of(events, E.HandsChanged).cost == 0
    assert by_name(dropped, "Packaren").held == ()


def test_picking_up_from_the_ground_only_sitting_or_lying_for_1_kp_p7():
    """p. 7: "Att plocka upp något från marken kräver att man befinner sig i sittande eller
    liggande ställning, och kostar då 1 KP"."""
    state = packer()
    p = state.active
    state, _ = run(state, C.Draw(p.id, "knife"))
    state, _ = run(state, C.Drop(p.id, "right"))
    with pytest.raises(RulesError, match="must sit or lie"):
        ENGINE.decide(state, C.PickUp(p.id, "knife"), ScriptedRng())
    state, _ = run(state, C.ChangePosture(p.id, "sitting"))
    state, events = run(state, C.PickUp(p.id, "knife"))
    assert of(events, E.HandsChanged).cost == 1
    assert by_name(state, "Packaren").right == "knife"


def test_a_change_of_posture_costs_1_kp_and_lying_to_standing_2_p7():
    """p. 7: "Att byta från liggande till stående ställning räknas dock som två ändringar
    (via "sittande") och kräver därför totalt 2 KP"; any other change is 1 KP, throwing
    oneself to the ground from standing too ("frivilligt kasta sig till marken")."""
    state = packer()
    p = state.active
    costs = []
    for posture in ("sitting", "lying", "standing", "lying", "sitting", "standing"):
        state, events = run(state, C.ChangePosture(p.id, posture))
        costs.append(of(events, E.PostureChanged).cost)
    assert costs == [1, 1, 2, 1, 1, 1]


def test_talking_costs_1_kp_per_3_syllables_p6():
    """p. 6: "En handling för att tala kräver 1 KP per 3 stavelser", and no more than fits
    in a round's 2 seconds; between one's activations talk is a passive action."""
    state = packer()
    p = state.active
    costs = []
    for syllables in (1, 3, 4, 7, 12):
        _, events = run(state, C.Talk(p.id, syllables))
        costs.append(of(events, E.KpSpent).cost)
    assert costs == [1, 1, 2, 3, 4]
    with pytest.raises(RulesError, match="1-12 syllables"):
        ENGINE.decide(state, C.Talk(p.id, 13), ScriptedRng())
    foe = by_name(state, "Fienden")
    _, events = run(state, C.Talk(foe.id, 2))
    assert of(events, E.KpSpent).passive


def test_kp_spent_on_another_activity_cancels_an_extended_one_p6():
    """p. 6: an extended activity "kan avbrytas utan effekt (och utan att man får några KP
    tillbaka) om man spenderar KP på någon annan aktivitet"."""
    state = started_duel()
    state = state.put(state.active.with_(cp=3))
    a = state.active
    state, _ = run(state, C.Move(a.id, 0.0, 13.0))  # 6 KP; 3 paid, 3 owed
    state, _ = run(state, C.EndActivation(a.id), 1, 1)
    state, _ = run(state, C.EndActivation(state.active.id), 1, 1)  # B
    cp = state.active.cp
    state, events = run(state, C.Scan(a.id))
    assert of(events, E.ExtendedCancelled).reason == "other_action"
    a = by_name(state, "A")
    assert (a.extended, a.cp, a.y) == (None, cp - 1, 0.0)  # no refund, no move


def shooter(weapon, loaded, posture="standing", **more):
    """Skytten (SIN 3, KAO 6: HK 11) with `weapon` in hand holding `loaded` rounds, two
    foes 20 and 25 m off; his activation."""
    state = ENGINE.new_state({})
    item = WEAPONS[weapon]
    hands = {"right": weapon} if 1 in item.hands else {"right": weapon, "left": weapon}
    state = add(state, "Skytten", alertness=3, composure=6, agility=2, posture=posture,
                skills={"firearms": 2}, weapons=(item,), **hands, **more)
    state = add(state, "Fienden", side="b", npc=True, alertness=1, x=20.0,
                skills={"evasion": 10})
    state = add(state, "Den andra", side="b", npc=True, alertness=1, x=25.0,
                skills={"evasion": 10})
    s = by_name(state, "Skytten")
    state = state.put(s.with_(loaded=((weapon, loaded),)))
    state, _ = run(state, C.StartCombat(), 1, 1)
    return state


def test_a_magazine_is_changed_for_ol_5_unless_given_p7():
    """p. 7: "Omladdning (OL) ... Dess värde är antalet KP som krävs för byta magasin. Om
    inget anges för ett eldvapen gäller förvalet 5": the pistol's magazine, played."""
    state = shooter("pistol", 3)
    s = state.active
    state, events = run(state, C.Reload(s.id, "pistol"))
    assert of(events, E.Reloaded).cost == 5
    assert by_name(state, "Skytten").rounds("pistol") == WEAPONS["pistol"].capacity
    assert by_name(state, "Skytten").cp == s.cp - 5


@pytest.mark.parametrize(("cartridges", "cost"), [(1, 3), (4, 6), (None, 2 + 6)])
def test_a_revolver_takes_n_kp_a_cartridge_after_2_to_open_it_p7(cartridges, cost):
    """p. 7: "Om en siffra presenteras inom parentes beskriver den istället hur många KP som
    krävs för att trycka in en enskild projektil, vilket kräver att man först spenderar 2
    KP på att öppna vapnet": the revolver's "(1)", empty: 2 + 1 a cartridge (all six when
    no number is given)."""
    state = shooter("revolver", 0)
    s = state.active
    state, events = run(state, C.Reload(s.id, "revolver", rounds=cartridges))
    assert of(events, E.Reloaded).cost == cost
    assert by_name(state, "Skytten").rounds("revolver") == (cartridges or 6)
    with pytest.raises(RulesError, match="takes 1-"):
        ENGINE.decide(shooter("revolver", 5), C.Reload(s.id, "revolver", rounds=2),
                      ScriptedRng())


def test_distance_aim_is_kept_from_shot_to_shot_while_firing_single_shots_p11():
    """p. 11: "Avståndssikte går att behålla från anfall till anfall, så länge man bara
    skjuter enkelskott": kneeling (stable support, one level for 4 KP), two single shots at
    the same foe keep it; a shot at another foe does not."""
    state = shooter("pistol", 10, posture="sitting", drive=20)
    s = state.active
    foe, other = by_name(state, "Fienden"), by_name(state, "Den andra")
    state, events = run(state, C.RangeAim(s.id, foe.id))
    assert of(events, E.RangeAimed).cost == 4
    for _shot in range(2):
        state, events = run(state, C.Attack(s.id, foe.id, "pistol"))
        # Undvika 10 + round 1's SIN bonus 1 = ST 11 against TB 4 + 1 + 1: a miss.
        state, events = run(state, C.Vigilance(foe.id, ("evasion",)), 1, 1, 1, 1, 1)
        assert of(events, E.AttackResolved).reason == "miss"
        assert (by_name(state, "Skytten").range_aim, by_name(state, "Skytten").range_aim_target) \
            == (1, foe.id)
    state, _ = run(state, C.Attack(s.id, other.id, "pistol"))
    state, _ = run(state, C.Vigilance(other.id, ("evasion",)), 1, 1, 1, 1, 1)
    assert by_name(state, "Skytten").range_aim == 0


def test_a_fully_drawn_bow_tests_fys_at_each_activation_it_begins_p7():
    """p. 7: "För varje aktivering som påbörjas med en helt uppladdad pilbåge sker ett test
    av Fysik med bågens styrkevärde som ST. Misslyckande förbrukar pilen": FYS 2 against the
    bow's 6: 2 + 4 holds it, 2 + 1 spends the arrow."""
    state = thrower("bow")
    k = state.active
    state, _ = run(state, C.Windup(k.id, "bow"))
    state, _ = run(state, C.EndActivation(k.id), 1, 1)
    state, _ = run(state, C.EndActivation(state.active.id), 1, 1, 4, 5)  # round 2: held
    test = of(_, E.ActivationStarted).bow_test
    assert test == ((4, 5), 2 + 4, 6, True)
    assert by_name(state, "Kastaren").wound_up == "bow"
    state, _ = run(state, C.EndActivation(k.id), 1, 1)
    state, events = run(state, C.EndActivation(state.active.id), 1, 1, 1, 6)  # round 3
    assert of(events, E.ActivationStarted).bow_test == ((1, 6), 2 + 1, 6, False)
    assert by_name(state, "Kastaren").wound_up is None  # the arrow is spent


def test_the_surprising_side_adds_its_bonus_to_sin_for_the_order_p6():
    """p. 6: "Den som överraskar får en bonus till Sinnesnärvaro för detta syfte, till
    exempel 1B1T": B (SIN 1) surprises A (SIN 3) and rolls 1B1T, 4 and 5: 1 + 4 = 5, first."""
    state = duel()
    state, _ = run(state, C.SetSurprise("b", "1B1T"))
    state, events = run(state, C.StartCombat(), 4, 5, 1, 1)
    started = of(events, E.CombatStarted)
    b = by_name(state, "B")
    assert started.rolls == ((b.id, (4, 5), 4),)
    assert state.active.name == "B"
    assert (b.initiative, by_name(state, "A").initiative) == (1 + 4, 3)


def test_nothing_is_held_with_a_broken_arm_p14():
    """p. 14: "Man kan inte hålla i något med brutna eller förstörda armar": the hit that
    breaks the right arm drops what that hand holds (with no pain test failing), and the
    hand takes nothing after."""
    state = started_duel()
    a = by_name(state, "A").with_(shock_tolerance=20)
    state = state.put(a)
    # 1B+8: 14 // Härdighet 3 = 4 damage: broken; the pain test 1B5T passed (all sixes).
    state, events = run(state, C.Hazard(a.id, "1B+8", "right_arm"), 6, *[6] * 6)
    wound = of(events, E.Wounded)
    assert (wound.limb_state, wound.dropped) == ("broken", ("pistol",))
    assert [t[3] for t in wound.vil_tests] == [True]
    with pytest.raises(RulesError, match="broken right arm"):
        ENGINE.decide(state, C.Draw(a.id, "pistol", "right"), ScriptedRng())
    state, events = run(state, C.Draw(a.id, "pistol", "left"))
    assert by_name(state, "A").left == "pistol"
