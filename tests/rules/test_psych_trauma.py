"""Psyktrauma (p. 15, with p. 3 for training): gains as hands, psychosis and its test,
disorders, recovery and permanent psyktrauma, against the text and rulings.md.

Dice are scripted in the order rolled: a gain's hand counts its lowest dice (rulings
§ Dice hands: the best choice for a psyktrauma gain); the psychosis test is a success
test of VIL + 20 with 1B1T (the lowest die counts)."""

from datetime import datetime, timedelta

import pytest

from rules.aoristos.aftermath import ENGINE
from rules.aoristos.aftermath import events as E
from rules.aoristos.aftermath import figures as F
from rules.engine import Viewer
from rules.errors import RulesError
from tests.rules.test_aftermath import advance, chronicle, of, run

FRIDAY_EVENING = datetime(2026, 1, 9, 22, 0)


def gain(state, *dice, **fields):
    return run(state, {"type": "gain_psych_trauma", "id": "ch1", **fields}, *dice)


def take(state, kind, description="", **fields):
    data = {
        "type": "take_disorder",
        "id": "ch1",
        "kind": kind,
        "description": description or f"a {kind} disorder",
        **fields,
    }
    return run(state, data)


def test_walther_vents_one_point_by_vomiting_p15():
    """p. 15, Walther: the GM gives 1B2F psyktrauma for a shocking event; the player
    rolls and keeps a 2 (the lowest of three dice), 2 new points; then a temporary
    disorder at once ("Jag rusar in i badrummet och kräks upp konserverna") takes 1."""
    state = chronicle()
    state, events = gain(state, 5, 2, 4, hand="1B2F", reason="Brodern i tinningen")
    (gained,) = events
    assert (gained.dice, gained.amount, gained.hand) == ((5, 2, 4), 2, "1B2F")
    assert state.body("ch1").psych_trauma == 2
    # The chance lasts until the next morning (house rule 06:00) and the next gain.
    assert gained.vent_until == datetime(2026, 1, 10, 6, 0)
    state, (taken,) = take(state, "temporary", "Rusar in i badrummet och kräks")
    body = state.body("ch1")
    assert (taken.removed, body.psych_trauma) == (1, 1)
    assert body.disorders[0].active(body.clock)
    # One temporary disorder per shocking gain: the nightmare he thought of comes too late.
    with pytest.raises(RulesError, match="temporary"):
        take(state, "temporary", "En mardröm")
    # The temporary disorder is over by the morning.
    state, _ = advance(state, amount=9, unit="hours")
    body = state.body("ch1")
    assert not body.disorders[0].active(body.clock)


def test_a_temporary_disorder_only_before_the_next_morning_p15():
    """p. 15: "måste ske innan nästföljande morgon" — the nightmare in the night is in
    time; after the morning it is too late."""
    state, _ = gain(chronicle(), 3, 3, 3, hand="1B2F")
    in_the_night, _ = advance(state, amount=5, unit="hours")  # Saturday 03:00
    in_the_night, _ = take(in_the_night, "temporary", "Mardröm om brodern")
    assert in_the_night.body("ch1").psych_trauma == 2
    morning, _ = advance(state, amount=8, unit="hours")  # Saturday 06:00
    with pytest.raises(RulesError, match="next morning"):
        take(morning, "temporary", "Mardröm")


def test_a_new_gain_ends_the_chance_of_the_last_ones_disorder_p15():
    """p. 15: "och innan nästa tillskott av psyktrauma" — training trauma (p. 3, not a
    shocking event) closes the chance and opens none."""
    state, _ = gain(chronicle(), 2, 2, 2, hand="1B2F")
    state, (trained,) = gain(state, amount=1, source="training", reason="12 timmar om dagen")
    assert trained.vent_until is None
    assert state.body("ch1").psych_trauma == 3
    with pytest.raises(RulesError):
        take(state, "temporary", "Skakningar")


def test_psychosis_at_20_and_the_test_at_each_rise_above_it_p15():
    """p. 15: 20+ is psychosis. Each rise to a sum above 20 calls a test of Viljestyrka
    + 20 against the new sum: Miriam (VIL 3) at 22 rolls 1B1T (2, 4) → 2: 25 ≥ 22."""
    state, (first,) = gain(chronicle(), amount=20)
    assert first.test is None  # 20 is psychosis, but no rise above 20
    assert state.body("ch1").psychotic
    state, (second,) = gain(state, 2, 4, amount=2)
    assert second.test == ((2, 4), 3 + 20 + 2, 22, True)
    state, (third,) = gain(state, 1, 6, amount=1)  # each rise: 23 against 24 → 24 ≥ 23
    assert third.test == ((1, 6), 24, 23, True)
    assert not state.body("ch1").broken


def test_a_failed_psychosis_test_breaks_the_character_for_good_p15():
    """p. 15: "Om testet misslyckas är personen helt knäckt" — the equivalent of
    organtrauma's death: out of play, no more time or commands."""
    state, (gained,) = gain(chronicle(), 2, 5, amount=30)
    assert gained.test == ((2, 5), 25, 30, False)
    body = state.body("ch1")
    assert body.broken
    assert not body.in_play
    assert body.broken_at == FRIDAY_EVENING
    with pytest.raises(RulesError, match="broken"):
        gain(state, amount=1)
    state, events = advance(state, amount=1, unit="days")
    assert state.body("ch1").clock == FRIDAY_EVENING
    assert events[-1].ids == ()


def test_nervchock_adds_a_forced_die_to_the_psychosis_test_p5():
    """The psychosis test is a success test: each degree of nervchock in effect adds 1T
    (p. 5). Organtrauma 3+ gives a lasting degree once active (p. 14): 1B2T."""
    state = chronicle()
    state, _ = run(
        state,
        {
            "type": "add_wound",
            "id": "ch1",
            "area": "torso",
            "damage": 4,
            "bleed_rate": 0,
            "organ_trauma": 3,
        },
        6,
        6,
        6,
        6,
    )
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "activity": "active"})
    assert state.body("ch1").nerve_shock == 1
    state, (gained,) = gain(state, 6, 1, 6, amount=25)
    assert gained.test == ((6, 1, 6), 24, 25, False)


def test_lasting_disorders_take_10_and_the_diagnosable_variant_10_more_p15():
    """p. 15: a disorder that could pass for a "unique" personality takes 10; a clearly
    diagnosable variant 10 more — at once (20) or when the lasting one develops."""
    state, _ = gain(chronicle(), 6, 6, amount=25)  # the psychosis test passes: 29 ≥ 25
    state, (lasting,) = take(state, "lasting", "Samlar på tändstickor", effects="")
    assert (lasting.removed, state.body("ch1").psych_trauma) == (10, 15)
    state, (developed,) = take(
        state, "diagnosable", "Tvångssyndrom: räknar allt", develops=lasting.disorder.id
    )
    body = state.body("ch1")
    assert (developed.removed, body.psych_trauma) == (10, 5)
    assert [(d.kind, d.removed) for d in body.disorders] == [("diagnosable", 20)]
    # The page's "becomes diagnosable" button sends no new words: the old ones stay.
    kept, _ = run(gain(chronicle(), amount=12)[0], {"type": "take_disorder", "id": "ch1",
                                                    "kind": "lasting", "description": "Räknar"})
    kept, _ = run(kept, {"type": "take_disorder", "id": "ch1", "kind": "diagnosable",
                         "develops": "d1"})
    assert [(d.kind, d.description) for d in kept.body("ch1").disorders] == [
        ("diagnosable", "Räknar")
    ]
    state, (diagnosable,) = take(
        gain(chronicle(), 6, 6, amount=24)[0],
        "diagnosable",
        "Spindelfobi",
        effects="nervchock vid kontakt",
    )
    assert (diagnosable.removed, diagnosable.disorder.effects) == (20, "nervchock vid kontakt")


def test_permanent_psych_trauma_is_never_vented_p15():
    """p. 15: inborn tendencies, numbing and a genre's lessons give permanent psyktrauma
    that disorders never vent (and recovery does not take either)."""
    state, _ = gain(chronicle(), amount=4, permanent=True, reason="Avtrubbad")
    with pytest.raises(RulesError, match="vent"):
        take(state, "lasting", "Kan inte sova")
    state, _ = gain(state, amount=12)
    state, (taken,) = take(state, "lasting", "Kan inte sova")
    assert (taken.removed, state.body("ch1").psych_trauma) == (10, 6)
    state, (last,) = take(state, "lasting", "Dricker")
    assert (last.removed, state.body("ch1").psych_trauma) == (2, 4)
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "recovery": "best"})
    state, events = advance(state, amount=10, unit="weeks")
    assert not of(events, E.PsychRecovered)
    assert state.body("ch1").psych_trauma == 4


def test_lasting_disorders_are_cured_only_below_10_p15():
    state, _ = gain(chronicle(), 6, 6, amount=22)
    state, (taken,) = take(state, "lasting", "Opiater")
    cure = {"type": "cure_disorder", "id": "ch1", "disorder": taken.disorder.id}
    with pytest.raises(RulesError, match="below 10"):
        run(state, cure)  # 12 left
    state, _ = take(state, "lasting", "Sömnlöshet")
    state, (cured,) = run(state, cure)
    body = state.body("ch1")
    assert body.psych_trauma == 2
    assert not body.disorders[0].active(body.clock)
    with pytest.raises(RulesError):
        run(state, cure)  # cured already


def test_recovery_at_best_vil_a_month_in_ordinary_life_1_a_half_year_p15():
    """p. 15, Återhämtning: at best VIL points a month (Miriam, VIL 3); in ordinary life
    1 point a half year (180 days here: a month is 30 days); the GM says which."""
    state, _ = gain(chronicle(), amount=10)
    ordinary, events = advance(state, amount=26, unit="weeks")  # 182 days
    (recovered,) = of(events, E.PsychRecovered)
    assert recovered.at == FRIDAY_EVENING + 6 * F.MONTH
    assert (recovered.removed, ordinary.body("ch1").psych_trauma) == (1, 9)
    best, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "recovery": "best"})
    best, events = advance(best, amount=9, unit="weeks")  # 63 days: two months
    assert [e.psych_trauma for e in of(events, E.PsychRecovered)] == [7, 4]
    none, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "recovery": "no_recovery"})
    none, events = advance(none, amount=52, unit="weeks")
    assert none.body("ch1").psych_trauma == 10


def test_recovery_at_best_with_vil_0_takes_nothing_p15():
    """p. 15: "I bästa fall tappar man sin Viljestyrka i poäng varje månad": up to VIL a
    month, so nothing at VIL 0 (not 1). A year of it is finite and quiet: no recovery
    events, no next recovery shown; ordinary life still takes 1 a half year."""
    assert F.recovered("best", 0) == 0
    assert F.recovered("best", 4) == 4
    assert F.recovered("ordinary", 0) == 1
    state = ENGINE.new_state({"start": "2026-01-09T22:00"})
    state, _ = run(state, {"type": "add_body", "id": "ch1", "name": "Tom", "willpower": 0})
    state, _ = gain(state, amount=5)
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "recovery": "best"})
    assert ENGINE.view(state, Viewer(is_gm=True))["bodies"][0]["next_recovery"] is None
    state, events = advance(state, amount=52, unit="weeks")
    assert of(events, E.PsychRecovered) == []
    assert len(events) == 1  # the clock's move only
    assert state.body("ch1").psych_trauma == 5
    state, _ = run(state, {"type": "set_circumstances", "ids": ["ch1"], "recovery": "ordinary"})
    state, events = advance(state, amount=27, unit="weeks")
    assert [e.removed for e in of(events, E.PsychRecovered)] == [1]


@pytest.mark.parametrize(
    "data",
    [
        {"type": "gain_psych_trauma", "id": "ch1"},
        {"type": "gain_psych_trauma", "id": "ch1", "hand": "1Q"},
        {"type": "gain_psych_trauma", "id": "ch1", "amount": 0},
        {"type": "gain_psych_trauma", "id": "ch1", "amount": 3, "source": "dream"},
        {"type": "gain_psych_trauma", "id": "ch1", "amount": 3, "permanent": "maybe"},
        {"type": "take_disorder", "id": "ch1", "kind": "lasting", "description": "x"},
        {"type": "take_disorder", "id": "ch1", "kind": "eternal", "description": "x"},
        {"type": "take_disorder", "id": "ch1", "kind": "lasting", "description": ""},
        {"type": "cure_disorder", "id": "ch1", "disorder": "d9"},
        {"type": "set_circumstances", "recovery": "spa"},
    ],
)
def test_bad_psych_trauma_commands_are_refused(data):
    with pytest.raises(RulesError):
        run(chronicle(), data)


def test_the_next_morning():
    assert F.next_morning(datetime(2026, 1, 9, 22, 0)) == datetime(2026, 1, 10, 6, 0)
    assert F.next_morning(datetime(2026, 1, 10, 5, 59)) == datetime(2026, 1, 10, 6, 0)
    assert F.next_morning(datetime(2026, 1, 10, 6, 0)) == datetime(2026, 1, 11, 6, 0)
    assert FRIDAY_EVENING + timedelta(hours=8) == datetime(2026, 1, 10, 6, 0)
