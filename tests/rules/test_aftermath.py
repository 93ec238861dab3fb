"""After the fight (p. 13-15): time, bleeding, first aid and healing against the text's
figures and rulings.md, with scripted dice (each test lists them in the order rolled).

Dice: a success test rolls 1B1T (+1T per degree of nervchock) and counts the lowest die;
the survival roll is 2B2T, the lowest two of four (p. 4, 14)."""

import json
from datetime import datetime, timedelta

import pytest

from rules.aoristos.aftermath import ENGINE
from rules.aoristos.aftermath import events as E
from rules.aoristos.aftermath import figures as F
from rules.engine import Viewer, decode, encode
from rules.errors import RulesError
from tests.rules.conftest import ScriptedRng

FRIDAY_EVENING = "2026-01-09T22:00"  # 2026-01-12 is the first Monday after
GM_VIEW = Viewer(is_gm=True)
PLAYER_VIEW = Viewer(is_gm=False)


def run(state, data, *dice):
    """Decide the command `data` (JSON-like, as the API takes it) with these dice, check
    every die was used, and fold the events."""
    rng = ScriptedRng(*dice)
    events = ENGINE.decide(state, ENGINE.parse_command(data), rng)
    assert rng.queue == [], f"dice left over: {rng.queue}"
    for event in events:
        state = ENGINE.evolve(state, event)
    return state, events


def chronicle(start=FRIDAY_EVENING, **house):
    state = ENGINE.new_state({"start": start, **house})
    state, _ = run(state, {"type": "add_body", "id": "ch1", "name": "Miriam", "willpower": 3})
    return state


def wound(state, *dice, **fields):
    data = {"type": "add_wound", "id": "ch1", "area": "torso", "damage": 1, "bleed_rate": 0}
    return run(state, {**data, **fields}, *dice)


def advance(state, *dice, **fields):
    return run(state, {"type": "advance", **fields}, *dice)


def of(events, kind):
    return [e for e in events if isinstance(e, kind)]


def test_first_aid_reduction_p14():
    """p. 13-14: the helper's Livräddning, twice the lower level of two, and the
    equipment table (+1 immediate, −1 none, +1 modern bandage, +1 coagulant, +1 tight)."""
    assert F.aid_reduction((3,), ()) == 3
    assert F.aid_reduction((3, 2), ()) == 4
    assert F.aid_reduction((3,), ("no_equipment",)) == 2
    assert F.aid_reduction((1,), ("immediate", "modern_bandage", "coagulant", "tight")) == 5
    assert F.aid_reduction((3,), (), judged=1) == 4  # the Vårdare's half-empty kit
    with pytest.raises(RulesError):
        F.aid_reduction((1, 2, 3), ())
    with pytest.raises(RulesError):
        F.aid_reduction((1,), ("duct_tape",))


def test_healing_tables_p14():
    """p. 14, Läkning 1-3: GST 4 (empty TB), + environment (+2 squalid, 0 outdoors, −1
    clean, −2 hospital; not while unstable), + rest (+5 none, +3 normal, +1 moving, 0
    thorough), + care (0, −1, −2)."""
    assert F.HEALING_GST == 4
    assert F.healing_threshold("outdoors", "thorough", "stone_age", unstable=False) == 4
    assert F.healing_threshold("squalid", "none", "stone_age", unstable=False) == 11
    assert F.healing_threshold("clean", "normal", "basic", unstable=False) == 5
    assert F.healing_threshold("hospital", "moving", "professional", unstable=False) == 1
    assert F.healing_threshold("hospital", "thorough", "professional", unstable=False) == 0
    # Unstable: the environment does not count.
    assert F.healing_threshold("squalid", "thorough", "professional", unstable=True) == 2
    assert F.healing_threshold("hospital", "thorough", "professional", unstable=True) == 2
    with pytest.raises(RulesError):
        F.healing_threshold("moon", "thorough", "basic", unstable=False)


def test_the_carer_example_p14():
    """p. 14: a carer there after 30 seconds stops a bleeding of rate 5 with Livräddning 3
    and a half-empty kit the GM judged worth +1. The patient takes (5 − 3 − 1) = 1
    organtrauma after 5 minutes; the blood loss falls to zero at the same time."""
    state = chronicle()
    state, _ = wound(state, damage=6, bleed_rate=5, area="left_leg", limb_state="destroyed")
    state, _ = advance(state, unit="rounds", amount=15)  # 30 seconds
    state, events = run(state, {"type": "first_aid", "id": "ch1", "levels": [3], "judged": 1})
    assert of(events, E.FirstAidGiven)[0].reduction == 4
    assert state.body("ch1").bleed_rate == 1
    # At 5 minutes: 1 organtrauma and its survival roll 2B2T (2 + 3 ≥ 1: alive).
    state, events = advance(state, 2, 3, 5, 6, unit="minutes", amount=5)
    tick = of(events, E.BleedTick)[0]
    assert tick.converted
    assert tick.fell
    assert tick.blood_loss == 0
    assert tick.at == datetime(2026, 1, 9, 22, 5)
    assert tick.survival == ((2, 3, 5, 6), 5, 1, True)
    body = state.body("ch1")
    assert (body.organ_trauma, body.blood_loss, body.bleed_rate) == (1, 0, 0)
    # Nothing more bleeds: an hour passes with no tick (the weekly test is on Monday).
    state, events = advance(state, unit="hours", amount=1)
    assert of(events, E.BleedTick) == []


def test_bleeding_while_active_never_falls_p13():
    """p. 13: every 10 minutes after the conversion organtrauma rises by 1 "oavsett vila";
    blood loss falls only while resting."""
    state = chronicle()
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "activity": "active"})
    state, _ = wound(state, bleed_rate=2)
    state, events = advance(state, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, unit="minutes", amount=25)
    ticks = of(events, E.BleedTick)
    assert [t.at.minute for t in ticks] == [5, 15, 25]
    assert [(t.blood_loss, t.organ_trauma, t.fell) for t in ticks] == [
        (2, 1, False),
        (2, 2, False),
        (2, 3, False),
    ]
    # A transfusion takes the blood loss away without turning it into trauma.
    state, events = run(state, {"type": "transfusion", "id": "ch1"})
    assert of(events, E.Transfused)[0].removed == 2
    state, events = advance(state, unit="hours", amount=1)
    assert of(events, E.BleedTick) == []
    assert state.body("ch1").organ_trauma == 3


def test_a_survival_roll_under_the_total_kills_and_ends_the_clock_p14():
    state = chronicle()
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "activity": "active"})
    state, _ = wound(state, 6, 6, 6, 6, bleed_rate=3, organ_trauma=5)  # survival 12 ≥ 5
    # 5 min: organtrauma 6, survival 1 + 2 = 3 < 6: dead.
    state, events = advance(state, 1, 2, 6, 6, unit="hours", amount=2)
    body = state.body("ch1")
    assert not body.alive
    assert body.died_at == datetime(2026, 1, 9, 22, 5)
    assert len(of(events, E.BleedTick)) == 1
    assert of(events, E.HealingTest) == []
    assert of(events, E.ClockMoved)[0].ids == ()  # the dead stay at their last moment
    with pytest.raises(RulesError, match="dead"):
        run(state, {"type": "first_aid", "id": "ch1", "levels": [3]})


def test_first_aid_only_before_the_five_minute_mark_p13():
    state = chronicle()
    state, _ = wound(state, bleed_rate=2)
    state, _ = advance(state, 6, 6, 6, 6, unit="minutes", amount=5)
    with pytest.raises(RulesError) as refused:
        run(state, {"type": "first_aid", "id": "ch1", "levels": [3]})
    assert refused.value.code == "too_late"


def test_a_worked_timeline_from_a_torso_wound_to_the_first_monday():
    """Our own worked timeline (p. 13-14, rulings.md): Friday 22:00 Miriam (VIL 3, so
    Chocktolerans 6) takes 4 damage in the torso: bleed rate 3 and 3 organtrauma (survival
    2B2T ≥ 3). At the hit bleed rate 3 + nervchock 4 = 7 ≥ 6: she is unconscious (p. 13).
    She is carried to a clean room and rests under basic care; nobody gives first aid.
    Organtrauma 3+ makes a degree of nervchock last until she has rested out (p. 14: 8
    hours, house rule), counted from the last rise: each test until then is 1B2T.

    22:05 the bleeding turns into blood loss 3: organtrauma 4, blood loss 2 (resting).
    22:15 organtrauma 5 (unstable: hourly healing tests from 23:15), blood loss 1.
    22:25 organtrauma 6, blood loss 0: the bleeding is over; rested out at 06:25.
    23:15 hourly test, ST 4 + 0 (thorough rest) − 1 (basic care) = 3, the environment
          not counting: dice 3, 5, 6, lowest 3 ≥ 3 heals, and 3 < 4 also harms: no
          survival roll, organtrauma stays 6.
    00:15 dice 4, 6, 5 → 4: heals, organtrauma 5.
    01:15 dice 5, 5, 6 → 5: heals, organtrauma 4: stable, the next test on the night to
          Monday (Monday 00:00), with the environment: ST 4 − 1 + 0 − 1 = 2.
    Saturday 06:25 rested: the lasting degree is away.
    Monday 00:00 1B1T, dice 2, 4 → 2 ≥ 2: heals, organtrauma 3.
    """
    state = chronicle()
    state, _ = run(
        state,
        {
            "type": "set_circumstances",
            "ids": ["ch1"],
            "activity": "cared",
            "environment": "clean",
            "care": "basic",
        },
    )
    state, events = wound(state, 1, 2, 3, 4, damage=4, bleed_rate=3, organ_trauma=3)
    (added,) = of(events, E.WoundAdded)
    assert added.survival == ((1, 2, 3, 4), 3, 3, True)
    assert (added.shock, added.knocked_out) == ((3, 4, 6), True)
    body = state.body("ch1")
    assert not body.conscious
    assert body.lasting_nerve_shock == 1
    assert body.nerve_shock == 1  # fresh: in effect until rested out

    state, events = advance(state, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, unit="minutes", amount=25)
    ticks = of(events, E.BleedTick)
    assert [(t.at.strftime("%H:%M"), t.blood_loss, t.organ_trauma) for t in ticks] == [
        ("22:05", 2, 4),
        ("22:15", 1, 5),
        ("22:25", 0, 6),
    ]
    body = state.body("ch1")
    assert body.unstable
    assert body.hourly
    assert body.next_healing == datetime(2026, 1, 9, 23, 15)

    state, events = advance(state, 3, 5, 6, 4, 6, 5, 5, 5, 6, unit="hours", amount=3)
    tests = of(events, E.HealingTest)
    assert [len(t.test[0]) for t in tests] == [3, 3, 3]  # 1B1T + 1T lasting nervchock
    assert [
        (t.at.strftime("%H:%M"), t.test[2], t.healed, t.harmed, t.organ_trauma, t.survival)
        for t in tests
    ] == [
        ("23:15", 3, True, True, 6, None),
        ("00:15", 3, True, False, 5, None),
        ("01:15", 3, True, False, 4, None),
    ]
    body = state.body("ch1")
    assert not body.unstable
    assert not body.hourly
    assert body.next_healing == datetime(2026, 1, 12, 0, 0)  # the night to Monday

    state, events = advance(state, 2, 4, to="2026-01-12T08:00")
    (rested,) = of(events, E.Rested)
    assert rested.at == datetime(2026, 1, 10, 6, 25)
    (weekly,) = of(events, E.HealingTest)
    assert weekly.test[0] == (2, 4)
    assert (weekly.hourly, weekly.test[2], weekly.healed, weekly.organ_trauma) == (
        False,
        2,
        True,
        3,
    )
    assert state.body("ch1").next_healing == datetime(2026, 1, 19, 0, 0)
    assert state.clock == datetime(2026, 1, 12, 8, 0)


def test_the_weekly_test_is_without_risk_p14():
    """Weekly: a failure changes nothing (no harm, no survival roll)."""
    state = chronicle()
    state, _ = wound(state, 6, 6, 6, 6, organ_trauma=2)
    state, events = advance(state, 1, 1, to="2026-01-12T01:00")
    (weekly,) = of(events, E.HealingTest)
    assert not weekly.healed
    assert not weekly.harmed
    assert weekly.survival is None
    assert state.body("ch1").organ_trauma == 2


def test_an_unstable_test_under_4_harms_and_calls_a_survival_roll_p14():
    state = chronicle()
    state, _ = wound(state, 6, 6, 6, 6, organ_trauma=5)
    # 23:00, 1B2T (organtrauma 3+: a degree of nervchock in effect until rested out):
    # dice 1, 6, 6 → 1 < ST 4 and < 4: +1 organtrauma (6), survival 3 + 3 = 6 ≥ 6.
    state, events = advance(state, 1, 6, 6, 3, 3, 4, 4, unit="hours", amount=1)
    (test,) = of(events, E.HealingTest)
    assert (test.healed, test.harmed, test.organ_trauma) == (False, True, 6)
    assert test.survival == ((3, 3, 4, 4), 6, 6, True)


def test_seven_organtrauma_tests_against_unconsciousness_every_five_minutes_p14():
    """VIL 3 + 1B1T against GST 6 every 5 minutes while awake; the unconscious rest. In
    the first hours the lasting degree of organtrauma 3+ is in effect (not yet rested out,
    p. 14): 1B2T."""
    state = chronicle()
    state, _ = wound(state, 6, 6, 6, 6, organ_trauma=7)
    # 22:05 dice 3, 4, 5 → 3 + 3 = 6 ≥ 6 awake; 22:10 dice 2, 5, 6 → 5 < 6: unconscious.
    state, events = advance(state, 3, 4, 5, 2, 5, 6, unit="minutes", amount=30)
    tests = of(events, E.AwakeTest)
    assert [(t.at.minute, t.test[1], t.test[3]) for t in tests] == [(5, 6, True), (10, 5, False)]
    assert not state.body("ch1").conscious
    state, events = run(state, {"type": "wake", "id": "ch1"})
    assert state.body("ch1").conscious
    assert state.body("ch1").next_awake_test == datetime(2026, 1, 9, 22, 35)


def test_broken_limbs_heal_after_a_month_and_their_shock_lasts_till_then_p14():
    """p. 14: one degree of nervchock per broken or destroyed limb lasts until rested (and
    comes back with activity) until the wound is a month old; then a broken limb heals,
    a destroyed one never."""
    state = chronicle(rest_hours=8)
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "activity": "active"})
    state, _ = wound(state, area="left_arm", damage=3, limb_state="broken")
    state, _ = wound(state, area="right_leg", damage=5, limb_state="destroyed")
    body = state.body("ch1")
    assert body.limb("left_arm") == "broken"
    assert body.limb("right_leg") == "destroyed"
    assert body.nerve_shock == 2  # active
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "activity": "rest"})
    state, events = advance(state, unit="hours", amount=8)
    assert len(of(events, E.Rested)) == 1
    assert state.body("ch1").nerve_shock == 0
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "activity": "active"})
    assert state.body("ch1").nerve_shock == 2  # back with activity
    state, events = advance(state, unit="days", amount=30)
    mended = of(events, E.LimbMended)
    assert [(m.area, m.limb_state) for m in mended] == [
        ("left_arm", "ok"),
        ("right_leg", "destroyed"),
    ]
    body = state.body("ch1")
    assert body.limb("left_arm") == "ok"
    assert body.limb("right_leg") == "destroyed"
    assert body.lasting_nerve_shock == 0


def test_advancing_chosen_characters_leaves_the_others_clock():
    state = chronicle()
    state, _ = run(state, {"type": "add_body", "id": "ch2", "name": "Anna"})
    state, _ = advance(state, unit="hours", amount=2, ids=["ch2"])
    assert state.body("ch2").clock == datetime(2026, 1, 10, 0, 0)
    assert state.body("ch1").clock == datetime(2026, 1, 9, 22, 0)
    state, _ = advance(state, unit="minutes", amount=30)  # everyone: from the latest clock
    assert {b.clock for b in state.bodies} == {datetime(2026, 1, 10, 0, 30)}
    # Before anything has happened, the GM may set the campaign's date, earlier too.
    state, events = advance(state, to="1923-04-02T12:00")
    assert of(events, E.ClockSet)
    assert {b.clock for b in state.bodies} == {datetime(1923, 4, 2, 12, 0)}
    state, _ = wound(state, bleed_rate=0)
    with pytest.raises(RulesError):
        advance(state, to="1923-01-01T00:00")


# Issue 25, item 11: the lasting nervchock of a fresh wound, Chocktolerans at a hit in the
# chronicle, first aid once per wound, and what players see of the GM's bodies.


def test_a_fresh_broken_limb_has_its_lasting_nervchock_in_effect_until_rested_out_p14():
    """p. 14: "1 grad av nervchock per bruten eller förstörd lem varar tills personen fått
    vila ut": a fresh break puts the degree in effect, and only 8 hours of rest (house
    rule) take it away. Every success test until then takes its 1T (rulings § Success
    tests); the healing test of an unstable body is one (p. 14)."""
    state = chronicle()
    state, _ = wound(state, area="left_arm", damage=3, limb_state="broken")
    body = state.body("ch1")
    assert (body.rested, body.lasting_nerve_shock, body.nerve_shock) == (False, 1, 1)
    view = ENGINE.view(state, GM_VIEW)["bodies"][0]
    assert (view["rested"], view["nerve_shock"], view["lasting_nerve_shock"]) == (False, 1, 1)
    state, events = advance(state, unit="minutes", amount=8 * 60 - 1)
    assert of(events, E.Rested) == []
    assert state.body("ch1").nerve_shock == 1
    state, events = advance(state, unit="minutes", amount=1)
    assert [r.at for r in of(events, E.Rested)] == [datetime(2026, 1, 10, 6, 0)]
    assert state.body("ch1").nerve_shock == 0


def test_the_parsed_wound_of_3_damage_on_an_arm_is_in_effect_at_once_p14():
    """The issue's case: add_wound on a left arm with damage 3 (the parser works out the
    rest from p. 13-14: bleed rate 2, broken) answers rested false, nervchock 1."""
    state = chronicle()
    state, _ = run(state, {"type": "add_wound", "id": "ch1", "area": "left_arm", "damage": 3})
    body = ENGINE.view(state, GM_VIEW)["bodies"][0]
    assert (body["rested"], body["nerve_shock"], body["lasting_nerve_shock"]) == (False, 1, 1)
    assert body["limbs"][0] == {"area": "right_arm", "state": "ok"}
    assert {"area": "left_arm", "state": "broken"} in body["limbs"]


def test_organtrauma_rising_to_3_puts_the_lasting_degree_back_in_effect_p14():
    """p. 14, organtrauma 3+: "chocken varar tills personen fått vila och återkommer vid
    aktivitet". A rested body at 2 organtrauma takes a small leg wound (bleed rate 1): the
    wound itself is fresh shock; at 22:05 its bleeding turns into organtrauma 3, a rise to
    3+, and the 8 hours of rest count again from then."""
    state = chronicle()
    state, _ = wound(state, 6, 6, 6, 6, organ_trauma=2)
    state, events = advance(state, unit="hours", amount=8)
    assert of(events, E.Rested)
    assert state.body("ch1").rested
    state, _ = wound(state, area="left_leg", damage=2, bleed_rate=1)
    assert not state.body("ch1").rested
    assert state.body("ch1").nerve_shock == 0  # nothing lasts yet: no break, 2 organtrauma
    state, events = advance(state, 5, 5, 5, 5, unit="minutes", amount=5)
    (tick,) = of(events, E.BleedTick)
    assert tick.organ_trauma == 3
    body = state.body("ch1")
    assert (body.rested, body.nerve_shock, body.rest_since) == (False, 1, tick.at)
    state, events = advance(state, unit="hours", amount=8)
    assert [r.at for r in of(events, E.Rested)] == [tick.at + timedelta(hours=8)]


def test_a_fights_wound_carried_over_is_fresh_shock_p14():
    """A fight's wound carried into the chronicle (origin and survival given) is fresh
    too: its lasting degree is in effect until rested out (p. 14)."""
    state = chronicle()
    data = {
        "type": "add_wound",
        "id": "ch1",
        "area": "torso",
        "damage": 4,
        "bleed_rate": 0,
        "organ_trauma": 3,
        "origin": "e1v5.0",
        "ago_seconds": 20,
        "survival": [[4, 4, 5, 6], 8, 3, True],
        "unconscious": False,
    }
    state, (added,) = run(state, data)
    assert added.shock is None  # the fight tested Chocktolerans at the hit
    body = state.body("ch1")
    assert (body.conscious, body.rested, body.nerve_shock) == (True, False, 1)


def test_a_wound_in_the_chronicle_knocks_out_at_chocktolerans_p13():
    """p. 13: "Om summan av blödningstakt och nervchock når eller överstiger Chocktolerans
    vid en träff förlorar personen omedelbart medvetandet". Chocktolerans 6: a leg broken
    by 3 damage (bleed rate 2, nervchock 3: 5 < 6) leaves Miriam awake; a second wound of
    2 on an arm a minute later, while the first still bleeds and its lasting degree is in
    effect: bleed rate 2 + 1 = 3, nervchock 1 + 2 = 3, 6 ≥ 6: unconscious. The GM wakes
    her (p. 13: "vaknar enligt SL:s godtycke")."""
    state = chronicle()
    assert state.body("ch1").tolerance == 6  # VIL 3 + 3 (p. 2), none given
    state, (first,) = wound(state, area="left_leg", damage=3, bleed_rate=2, limb_state="broken")
    assert (first.shock, first.knocked_out) == ((2, 3, 6), False)
    assert state.body("ch1").conscious
    state, _ = advance(state, unit="minutes", amount=1)
    state, (second,) = wound(state, area="right_arm", damage=2, bleed_rate=1)
    assert (second.shock, second.knocked_out) == ((3, 3, 6), True)
    body = state.body("ch1")
    assert not body.conscious
    assert body.resting
    (line,) = ENGINE.describe(state, [second], GM_VIEW)
    assert (line["shock"], line["knocked_out"]) == ([3, 3, 6], True)
    state, _ = run(state, {"type": "wake", "id": "ch1"})
    assert state.body("ch1").conscious
    # Knocked out while active, the body rested; woken, it is active again: no rest
    # counts and its lasting degrees are in effect (p. 14: "återkommer vid aktivitet").
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "activity": "active"})
    state, (third,) = wound(state, area="left_arm", damage=4, bleed_rate=0)
    assert third.knocked_out
    assert state.body("ch1").rest_since == state.body("ch1").clock
    state, _ = run(state, {"type": "wake", "id": "ch1"})
    body = state.body("ch1")
    assert (body.rest_since, body.rested, body.nerve_shock) == (None, False, 2)  # two limbs


def test_chocktolerans_from_the_sheet_and_the_fights_verdict_p13():
    """A body made from a character carries its Chocktolerans; a fight's wound carries
    the fight's verdict (it tested at the hit) and is not tested again."""
    state = chronicle()
    state, _ = run(
        state,
        {"type": "add_body", "id": "ch2", "name": "Anna", "willpower": 1, "shock_tolerance": 9},
    )
    assert state.body("ch2").tolerance == 9
    data = {"type": "add_wound", "id": "ch2", "area": "left_leg", "damage": 4}
    state, (hit,) = run(state, data)
    assert (hit.shock, hit.knocked_out) == ((3, 4, 9), False)  # 7 < 9
    state, (carried,) = run(state, {**data, "damage": 1, "unconscious": True, "origin": "x1"})
    assert (carried.shock, carried.knocked_out) == (None, True)
    assert not state.body("ch2").conscious
    with pytest.raises(RulesError):
        run(state, {**data, "unconscious": "perhaps"})
    with pytest.raises(RulesError):
        run(state, {"type": "add_body", "id": "ch3", "name": "X", "shock_tolerance": -1})


def test_first_aid_is_given_once_to_a_wound_p13():
    """p. 13-14: first aid lowers a wound's bleed rate once, before the 5 minutes are
    over (two helpers together are one first aid, "dubbelt så mycket som den lägsta").
    A second first aid to the treated wound is refused, translatably, and changes
    nothing; a new wound has its own."""
    state = chronicle()
    state, _ = wound(state, area="left_leg", damage=6, bleed_rate=5, limb_state="destroyed")
    aid = {"type": "first_aid", "id": "ch1", "levels": [3]}
    state, (given,) = run(state, aid)
    assert given.treated == ("w1",)
    assert state.body("ch1").bleed_rate == 2
    with pytest.raises(RulesError) as refused:
        run(state, {**aid, "levels": [2, 2]})
    assert refused.value.code == "treated"
    assert refused.value.template.startswith("{name}'s bleeding has had its first aid")
    assert "Miriam" in str(refused.value)
    assert state.body("ch1").bleed_rate == 2
    # A second wound a minute later gets its own first aid; the first keeps its 2.
    state, _ = advance(state, unit="minutes", amount=1)
    state, _ = wound(state, area="right_arm", damage=3, bleed_rate=2, limb_state="broken")
    state, (again,) = run(state, aid)
    assert (again.applied, again.treated) == ((("w2", 2),), ("w2",))
    assert [w.bleeding for w in state.body("ch1").wounds] == [2, 0]
    wounds = ENGINE.view(state, GM_VIEW)["bodies"][0]["wounds"]
    assert [(w["first_aid"], w["first_aid_until"]) for w in wounds] == [(True, None)] * 2


def test_first_aid_that_runs_out_still_treats_every_open_wound_p13():
    """One first aid is the helper's work on the patient: spread oldest first, it is given
    to every wound still bleeding, also one it had nothing left for."""
    state = chronicle()
    state, _ = wound(state, area="left_leg", damage=3, bleed_rate=2)
    state, _ = wound(state, area="right_leg", damage=3, bleed_rate=2)
    state, (given,) = run(state, {"type": "first_aid", "id": "ch1", "levels": [1]})
    assert (given.applied, given.treated) == ((("w1", 1),), ("w1", "w2"))
    with pytest.raises(RulesError, match="first aid is given once"):
        run(state, {"type": "first_aid", "id": "ch1", "levels": [3]})


def test_players_see_of_an_npc_body_its_name_and_state_only():
    """The GM's bodies that are no character: players see name, alive and conscious;
    the log lines tell them a death or a fall into unconsciousness, nothing else."""
    state = chronicle()  # Miriam has no character id here: the GM's
    state, (added,) = run(
        state, {"type": "add_body", "id": "ch2", "name": "Albert", "character_id": 7}
    )
    state, wounded = wound(
        state,
        area="torso",
        damage=4,
        bleed_rate=3,
        organ_trauma=3,
        survival=[[3, 3, 4, 4], 6, 3, True],
    )
    players = ENGINE.view(state, PLAYER_VIEW)
    npc, albert = players["bodies"]
    assert npc == {
        "id": "ch1",
        "name": "Miriam",
        "character_id": None,
        "hidden": True,
        "alive": True,
        "conscious": False,
    }
    assert albert["hidden"] is False
    assert "wounds" in albert
    assert "wounds" in ENGINE.view(state, GM_VIEW)["bodies"][0]
    # The lines: the wound is the GM's, its effect on consciousness everyone's.
    assert ENGINE.describe(state, wounded, PLAYER_VIEW) == [
        {"kind": "NpcState", "who": "Miriam", "at": "2026-01-09T22:00", "state": "unconscious"}
    ]
    assert ENGINE.describe(state, wounded, GM_VIEW)[0]["kind"] == "WoundAdded"
    state, ticked = advance(state, 3, 3, 3, 3, unit="minutes", amount=5)
    assert [line["kind"] for line in ENGINE.describe(state, ticked, PLAYER_VIEW)] == ["ClockMoved"]
    assert "BleedTick" in [line["kind"] for line in ENGINE.describe(state, ticked, GM_VIEW)]
    state, woke = run(state, {"type": "wake", "id": "ch1"})
    assert ENGINE.describe(state, woke, PLAYER_VIEW)[0]["state"] == "conscious"


@pytest.mark.parametrize(
    "data",
    [
        {"type": "advance"},
        {"type": "advance", "amount": 0},
        {"type": "advance", "amount": 53, "unit": "weeks"},
        {"type": "advance", "amount": 1, "unit": "fortnights"},
        {"type": "advance", "to": "soon"},
        {"type": "advance", "to": "9999-12-31T23:59"},
        {"type": "advance", "amount": 1, "ids": "nobody"},
        {"type": "first_aid", "id": "ch1", "levels": []},
        {"type": "first_aid", "id": "ch1", "levels": [1, 2, 3]},
        {"type": "first_aid", "id": "ch1", "levels": [2], "equipment": ["glue"]},
        {"type": "add_wound", "id": "ch1", "area": "tail"},
        {"type": "set_circumstances", "activity": "dancing"},
        {"type": "transfusion", "id": "ch1"},  # no blood loss
        {"type": "wake", "id": "ch1"},  # awake
        {"type": "dance"},
    ],
)
def test_bad_commands_are_refused_and_change_nothing(data):
    state = chronicle()
    with pytest.raises(RulesError):
        run(state, data)


def test_replay_of_stored_events_equals_state():
    """The events go through JSON as the site stores them; their fold is the state."""
    state = chronicle()
    initial = state
    stored = []
    for data, dice in [
        ({"type": "set_circumstances", "ids": ["ch1"], "activity": "cared", "care": "basic"}, ()),
        (
            {
                "type": "add_wound",
                "id": "ch1",
                "area": "torso",
                "damage": 4,
                "bleed_rate": 3,
                "organ_trauma": 3,
            },
            (4, 4, 4, 4),
        ),
        ({"type": "first_aid", "id": "ch1", "levels": [1, 2], "equipment": ["immediate"]}, ()),
        ({"type": "gain_psych_trauma", "id": "ch1", "hand": "1B2F"}, (2, 4, 3)),
        ({"type": "take_disorder", "id": "ch1", "kind": "temporary", "description": "Kräks"}, ()),
        ({"type": "advance", "amount": 3, "unit": "hours"}, (5, 5, 5, 5, 5, 5, 5, 5, 5, 5)),
    ]:
        rng = ScriptedRng(*dice)
        events = ENGINE.decide(state, ENGINE.parse_command(data), rng)
        for event in events:
            state = ENGINE.evolve(state, event)
        stored.append(json.loads(json.dumps(encode(events))))
    again = initial
    for events in stored:
        for event in decode(events, ENGINE.event_types):
            again = ENGINE.evolve(again, event)
    assert again == state
    assert state.body("ch1").disorders[0].description == "Kräks"
    assert state.clock - datetime(2026, 1, 9, 22, 0) == timedelta(hours=3)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FIELD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.text(max_size=30),
    st.sampled_from(
        [
            "ch1",
            "torso",
            "left_arm",
            "hours",
            "weeks",
            "rest",
            "active",
            "2026-01-10T00:00",
            "9999-12-31T23:59",
            "0001-01-01T00:00",
            "1B2F",
            "3B6T+9",
            "temporary",
            "lasting",
            "diagnosable",
            "d1",
            "best",
            "event",
        ]
    ),
    st.lists(st.one_of(st.integers(-5, 40), st.text(max_size=5)), max_size=3),
)
COMMANDS = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "add_body",
                "add_wound",
                "set_circumstances",
                "advance",
                "first_aid",
                "transfusion",
                "wake",
                "gain_psych_trauma",
                "take_disorder",
                "cure_disorder",
                "nonsense",
            ]
        )
    },
    optional={
        key: FIELD_VALUES
        for key in (
            "id",
            "ids",
            "name",
            "area",
            "damage",
            "bleed_rate",
            "organ_trauma",
            "limb_state",
            "amount",
            "unit",
            "to",
            "until",
            "levels",
            "equipment",
            "judged",
            "activity",
            "environment",
            "rest",
            "care",
            "willpower",
            "ago_seconds",
            "survival",
            "origin",
            "hand",
            "source",
            "permanent",
            "reason",
            "kind",
            "description",
            "effects",
            "develops",
            "disorder",
            "recovery",
            "shock_tolerance",
            "unconscious",
        )
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(COMMANDS, max_size=6), st.randoms(use_true_random=False))
def test_any_command_is_done_or_refused_never_a_crash(commands, rng):
    """Whatever JSON a GM sends, the chronicle either does it or refuses it (RulesError)."""
    state = chronicle()
    for data in commands:
        try:
            events = ENGINE.decide(state, ENGINE.parse_command(data), rng)
        except RulesError:
            continue
        for event in events:
            state = ENGINE.evolve(state, event)
        ENGINE.describe(state, events, None)
        ENGINE.view(state, None)


@pytest.mark.parametrize("amount", ["²", "٣", "¹⁰"])
def test_a_psych_trauma_in_other_digits_is_refused_not_a_crash(amount):
    """str.isdigit() takes superscripts and other scripts' digits; int() does not."""
    with pytest.raises(RulesError):
        ENGINE.parse_command({"type": "gain_psych_trauma", "amount": amount})


def in_hospital(state):
    """Cared for professionally in a hospital ward, resting thoroughly: ST 4 − 2 − 2 = 0."""
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "activity": "cared",
                           "environment": "hospital", "rest": "thorough", "care": "professional"})
    return state


def test_care_does_not_help_burns_p14():
    """p. 14, Läkning 3: "Vård av personen (påverkar ej brännsår)": a burn's organtrauma
    heals with the environment and the rest, the care not counting: in a hospital ward
    with professional care ST 4 − 2 = 2, not 0. The weekly test's 1 fails it."""
    state = chronicle()
    state, events = wound(state, 6, 6, 6, 6, organ_trauma=2, burn=True, source="brand")
    assert of(events, E.WoundAdded)[0].wound.burn
    body = state.body("ch1")
    assert (body.organ_trauma, body.burn_trauma, body.only_burns) == (2, 2, True)
    state = in_hospital(state)
    state, events = advance(state, 1, 1, to="2026-01-12T01:00")
    (weekly,) = of(events, E.HealingTest)
    assert weekly.test[2] == 4 - 2  # the environment; no care
    assert not weekly.healed
    view = ENGINE.view(state, GM_VIEW)["bodies"][0]
    assert view["burn_trauma"] == 2
    assert view["wounds"][0]["burn"]


def test_care_helps_the_rest_first_and_then_not_the_burns_p14():
    """p. 14: a body with a burn (organtrauma 2) and another wound (1): care counts while
    some of its organtrauma is not a burn's (ST 0), and a success takes that first; then
    only the burns are left, and the care does not count (ST 2)."""
    state = chronicle()
    state, _ = wound(state, 6, 6, 6, 6, organ_trauma=2, burn=True)
    state, _ = wound(state, 6, 6, 6, 6, organ_trauma=1)
    state = in_hospital(state)
    # Monday 12 January: rested out by then, 1B1T; 1 ≥ 0 heals.
    state, events = advance(state, 1, 1, to="2026-01-12T01:00")
    (weekly,) = of(events, E.HealingTest)
    assert (weekly.test[2], weekly.healed) == (0, True)
    body = state.body("ch1")
    assert (body.organ_trauma, body.burn_trauma) == (2, 2)
    state, events = advance(state, 1, 1, to="2026-01-19T01:00")
    (weekly,) = of(events, E.HealingTest)
    assert (weekly.test[2], weekly.healed) == (2, False)
    state, events = advance(state, 2, 3, to="2026-01-26T01:00")
    (weekly,) = of(events, E.HealingTest)
    assert weekly.healed
    assert (state.body("ch1").organ_trauma, state.body("ch1").burn_trauma) == (1, 1)
