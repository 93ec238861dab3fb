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
from rules.engine import decode, encode
from rules.errors import RulesError
from tests.rules.conftest import ScriptedRng

FRIDAY_EVENING = "2026-01-09T22:00"  # 2026-01-12 is the first Monday after


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
    """Our own worked timeline (p. 13-14, rulings.md): Friday 22:00 Miriam takes 4 damage
    in the torso: bleed rate 3 and 3 organtrauma (survival 2B2T ≥ 3). She is carried to a
    clean room and rests under basic care; nobody gives first aid.

    22:05 the bleeding turns into blood loss 3: organtrauma 4, blood loss 2 (resting).
    22:15 organtrauma 5 (unstable: hourly healing tests from 23:15), blood loss 1.
    22:25 organtrauma 6, blood loss 0: the bleeding is over.
    23:15 hourly test, ST 4 + 0 (thorough rest) − 1 (basic care) = 3, the environment
          not counting: dice 3, 5, lowest 3 ≥ 3 heals, and 3 < 4 also harms: no survival
          roll, organtrauma stays 6.
    00:15 dice 4, 6 → 4: heals, organtrauma 5.
    01:15 dice 5, 5 → 5: heals, organtrauma 4: stable, the next test on the night to
          Monday (Monday 00:00), with the environment: ST 4 − 1 + 0 − 1 = 2.
    Monday 00:00 dice 2, 4 → 2 ≥ 2: heals, organtrauma 3.
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
    assert of(events, E.WoundAdded)[0].survival == ((1, 2, 3, 4), 3, 3, True)
    body = state.body("ch1")
    assert body.lasting_nerve_shock == 1
    assert body.nerve_shock == 0

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

    state, events = advance(state, 3, 5, 4, 6, 5, 5, unit="hours", amount=3)
    tests = of(events, E.HealingTest)
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
    (weekly,) = of(events, E.HealingTest)
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
    # 23:00: dice 1, 6 → 1 < ST 4 and < 4: +1 organtrauma (6), survival 3 + 3 = 6 ≥ 6.
    state, events = advance(state, 1, 6, 3, 3, 4, 4, unit="hours", amount=1)
    (test,) = of(events, E.HealingTest)
    assert (test.healed, test.harmed, test.organ_trauma) == (False, True, 6)
    assert test.survival == ((3, 3, 4, 4), 6, 6, True)


def test_seven_organtrauma_tests_against_unconsciousness_every_five_minutes_p14():
    """VIL 3 + 1B1T against GST 6 every 5 minutes while awake; the unconscious rest."""
    state = chronicle()
    state, _ = wound(state, 6, 6, 6, 6, organ_trauma=7)
    # 22:05 dice 3, 4 → 3 + 3 = 6 ≥ 6 awake; 22:10 dice 2, 5 → 5 < 6: unconscious.
    state, events = advance(state, 3, 4, 2, 5, unit="minutes", amount=30)
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
