"""Phobia damage (phobia-utdrag.txt lines 806-1130): applying a hit, the serious-injury
table and its codes, damage rows, bleeding over time."""

import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import RulesError
from rules.phobia.dice import ObRoll, PlainRoll, parse_dice
from rules.phobia.injuries import (
    EAR_LOSS,
    SERIOUS_INJURY_TABLE,
    Activity,
    Area,
    Bleed,
    Bleeding,
    Check,
    CheckKind,
    DamageType,
    Loss,
    Multiply,
    Ongoing,
    PendingCheck,
    Section,
    Side,
    advance_bleeding,
    apply_hit,
    damage_after_protection,
    death_roll_difficulty,
    filled_rows,
    ongoing_boxes,
    overflow_boxes,
    parse_code,
    resolve_check,
    resolve_loss,
    roll_check,
    roll_loss,
    row_difficulty,
    serious_injury,
    shock_roll_difficulty,
    skill_difficulty_added,
    split_damage,
    syn_after_eye_loss,
)

# --- damage and its split ------------------------------------------------------------


def test_worked_example_17():
    """phobia-utdrag.txt lines 848-849: damage 17 gives 8 Trauma and 9 Smärta."""
    assert split_damage(17) == (8, 9)


@pytest.mark.parametrize(("damage", "split"), [(0, (0, 0)), (1, (0, 1)), (2, (1, 1)), (9, (4, 5))])
def test_odd_box_goes_to_pain(damage, split):
    """phobia-utdrag.txt lines 823-827, 844-847: halves, the odd box to Smärta."""
    assert split_damage(damage) == split


@given(st.integers(0, 10_000))
def test_split_sums_to_damage(damage):
    """phobia-utdrag.txt lines 844-847: trauma + pain == damage, pain - trauma is 0 or 1."""
    trauma, pain = split_damage(damage)
    assert trauma + pain == damage
    assert pain - trauma in (0, 1)


def test_protection_never_below_zero():
    """phobia-utdrag.txt line 822: the result is reduced by protection, not below 0."""
    assert damage_after_protection(20, 3) == 17
    assert damage_after_protection(3, 20) == 0
    assert damage_after_protection(0, 0) == 0


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3", None])
def test_bad_damage_input(bad):
    with pytest.raises(RulesError):
        damage_after_protection(bad, 0)
    with pytest.raises(RulesError):
        split_damage(bad)


# --- the serious-injury table ---------------------------------------------------------


def test_table_has_every_area():
    """phobia-utdrag.txt lines 948-1004: eight areas with 8, 5, 6, 6, 8, 7, 4, 6 rows."""
    assert [a.swedish for a in SERIOUS_INJURY_TABLE] == [
        "ANSIKTE",
        "SKALLE",
        "HALS",
        "ARM",
        "BRÖSTKORG",
        "MAGE",
        "UNDERLIV",
        "BEN",
    ]
    assert [len(rows) for rows in SERIOUS_INJURY_TABLE.values()] == [8, 5, 6, 6, 8, 7, 4, 6]


@pytest.mark.parametrize("area", list(Area))
@pytest.mark.parametrize("damage_type", list(DamageType))
def test_table_covers_1_to_10_once(area, damage_type):
    """phobia-utdrag.txt lines 944-1004: for every area and type, each 1T10 result is in
    exactly one row (checks the transcription of every cell)."""
    covered = sorted(n for row in SERIOUS_INJURY_TABLE[area] for n in row.results_for(damage_type))
    assert covered == list(range(1, 11))
    # rows are printed in ascending order of results within each column
    starts = [r.results_for(damage_type).start for r in SERIOUS_INJURY_TABLE[area]]
    starts = [
        s
        for s, r in zip(starts, SERIOUS_INJURY_TABLE[area], strict=True)
        if r.results_for(damage_type)
    ]
    assert starts == sorted(starts)


def test_table_line_numbers_ascend():
    """Every row carries its line in phobia-utdrag.txt (948-1004)."""
    lines = [row.line for rows in SERIOUS_INJURY_TABLE.values() for row in rows]
    assert lines == sorted(lines)
    assert lines[0] == 948
    assert lines[-1] == 1004


@pytest.mark.parametrize(
    ("line", "area", "damage_type", "result", "name", "codes"),
    [
        (948, "face", "P", 1, "Hjärna", ("Tx3",)),
        (949, "ANSIKTE", "K", 2, "Öga", ("Sx1", "Blindrisk!")),
        (953, Area.FACE, "K", 8, "Omtöckning", ("Sx1",)),
        (955, Area.FACE, "H", 9, "Kött", ("Tx0.1", "Sx0.1")),
        (957, Area.SKULL, "P", 3, "Hjärna", ("Tx3",)),
        (958, Area.SKULL, "K", 5, "Skallben", ("Tx0.5", "Sx0.5")),
        (963, Area.NECK, "P", 1, "Strupe", ("Tx1", "AB", "Kvävning!")),
        (965, Area.NECK, "H", 5, "Nackkotor", ("Tx0.5", "Bryt+1!")),
        (970, Area.ARM, "P", 1, "Ben", ("Bryt+2!",)),
        (972, Area.ARM, "H", 5, "Muskel/Senor", ("Permanent!",)),
        (977, Area.CHEST, "P", 2, "Hjärta", ("Tx2", "ABx5")),
        (978, Area.CHEST, "H", 3, "Lunga", ("Tx1", "Sx1", "AB", "Inre Skada!")),
        (981, Area.CHEST, "K", 6, "Revben", ("Sx0.1", "Bryt+2!")),
        (984, Area.CHEST, "H", 10, "Kött", ("Tx0.1", "Sx0.1")),
        (986, Area.BELLY, "P", 3, "Inälvor", ("Tx1", "Sx1", "ABx1", "Inre Skada!")),
        (988, Area.BELLY, "H", 4, "Pulsåder", ("ABx2",)),
        (994, Area.GROIN, "K", 4, "Könsorgan", ("Sx2", "SB")),
        (997, Area.GROIN, "P", 7, "Kött", ("Tx0.1", "Sx0.1")),
        (999, Area.LEG, "K", 2, "Ben", ("Bryt+1!",)),
        (1003, Area.LEG, "K", 9, "Blödning", ("SB",)),
    ],
)
def test_table_cells(line, area, damage_type, result, name, codes):
    """phobia-utdrag.txt: single cells of the table at the given line."""
    injury = serious_injury(area, damage_type, result)
    assert (injury.line, injury.name, injury.codes) == (line, name, codes)


def test_dash_cells_never_come_up():
    """phobia-utdrag.txt lines 981, 988: "-" means the type never gives that row:
    BRÖSTKORG Revben for Projektil, MAGE Pulsåder for Kross."""
    ribs = next(r for r in SERIOUS_INJURY_TABLE[Area.CHEST] if r.name == "Revben")
    artery = next(r for r in SERIOUS_INJURY_TABLE[Area.BELLY] if r.name == "Pulsåder")
    assert not ribs.results_for("P")
    assert list(ribs.results_for("K")) == [5, 6]
    assert not artery.results_for("K")
    assert list(artery.results_for("P")) == [5]
    assert all(serious_injury(Area.CHEST, "P", n).name != "Revben" for n in range(1, 11))


def test_eye_row_reads_blindrisk_as_the_eye_check():
    """phobia-utdrag.txt line 949 ("Öga � Sx1 / Blindrisk!", a PDF fault for "=") and
    lines 891-903: Blindrisk! is Öga!, Ob3T6 against Tur."""
    eye = serious_injury(Area.FACE, "H", 2)
    check = eye.effects[1]
    assert isinstance(check, Check)
    assert (check.kind, check.against, check.difficulty) == (CheckKind.EYE, "Tur", 3)
    assert parse_code("Öga!").kind is CheckKind.EYE


@pytest.mark.parametrize("bad", [0, 11, -1, "3"])
def test_injury_roll_bounds(bad):
    with pytest.raises(RulesError):
        serious_injury(Area.ARM, "P", bad)


def test_unknown_area_and_type():
    with pytest.raises(RulesError, match="unknown area"):
        serious_injury("tail", "P", 1)
    with pytest.raises(RulesError, match="P, K or H"):
        serious_injury(Area.ARM, "X", 1)


# --- codes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "section", "factor", "damage", "boxes"),
    [
        ("Tx3", Section.TRAUMA, Fraction(3), 7, 21),  # lines 857-860
        ("Sx2", Section.PAIN, Fraction(2), 7, 14),  # lines 862-864
        ("Tx1", Section.TRAUMA, Fraction(1), 7, 7),  # lines 866-868
        ("Sx0.5", Section.PAIN, Fraction(1, 2), 7, 3),  # lines 870-872, rounded down
        ("Tx0.1", Section.TRAUMA, Fraction(1, 10), 19, 1),  # lines 874-876, rounded down
        ("sx0.1", Section.PAIN, Fraction(1, 10), 9, 0),
    ],
)
def test_multiplier_codes(code, section, factor, damage, boxes):
    """phobia-utdrag.txt lines 857-876: the damage times the factor, as boxes (floor)."""
    effect = parse_code(code)
    assert isinstance(effect, Multiply)
    assert (effect.section, effect.factor, effect.boxes(damage)) == (section, factor, boxes)


@pytest.mark.parametrize(
    ("code", "serious", "count"),
    [("SB", False, 1), ("AB", True, 1), ("ABx1", True, 1), ("ABx2", True, 2), ("ABx5", True, 5)],
)
def test_bleed_codes(code, serious, count):
    """phobia-utdrag.txt lines 878-881 (AB alone, lines 963 and 978, is ABx1)."""
    effect = parse_code(code)
    assert isinstance(effect, Bleed)
    assert (effect.serious, effect.count) == (serious, count)


@pytest.mark.parametrize(
    ("code", "damage", "difficulty"),
    [("BRYT+1!", 9, 1), ("Bryt+1!", 17, 2), ("Bryt+1!", 25, 3), ("Bryt+2!", 17, 3)],
)
def test_break_difficulty(code, damage, difficulty):
    """phobia-utdrag.txt lines 882-889: STY against ((damage x0.1) + 1 or 2) ObT6,
    rounded down."""
    check = parse_code(code)
    assert (check.kind, check.against) == (CheckKind.BREAK, "STY")
    assert check.difficulty_for(damage) == difficulty


def test_break_difficulty_capped_at_ob20():
    """The dice module rolls at most Ob20T6."""
    assert parse_code("Bryt+2!").difficulty_for(500) == 20


def test_ear_code():
    """phobia-utdrag.txt lines 905-909: Ob3T6 against Tur; HÖR -2, PER -1."""
    check = parse_code("Öra!")
    assert (check.kind, check.against, check.difficulty) == (CheckKind.EAR, "Tur", 3)
    assert dict(EAR_LOSS) == {"HÖR": -2, "PER": -1}


def test_ongoing_codes():
    """phobia-utdrag.txt lines 911-916 (Kvävning!: 1 T + 1 S each round) and 937-941
    (Inre Skada!: 1 T + 10 S an hour until Kirurgi Ob3T6)."""
    choking = parse_code("Kvävning!")
    internal = parse_code("inre  skada!")
    assert isinstance(choking, Ongoing)
    assert isinstance(internal, Ongoing)
    assert (choking.trauma, choking.pain, choking.every_seconds, choking.until) == (1, 1, 4, None)
    assert (internal.trauma, internal.pain, internal.every_seconds) == (1, 10, 3600)
    assert (internal.until.skill, internal.until.difficulty) == ("Kirurgi", 3)
    assert ongoing_boxes(choking, 3) == (0, 0)
    assert ongoing_boxes(choking, 12) == (3, 3)
    assert ongoing_boxes(internal, 2 * 3600 + 59) == (2, 20)


def test_permanent_by_limb():
    """phobia-utdrag.txt lines 918-932: arm STY then RÖR, leg FÖR then RÖR, (1T6/2)-1
    each; Kirurgi Ob3T6 within 24 h undoes it."""
    arm = parse_code("Permanent!", Area.ARM)
    leg = parse_code("Permanent!", "BEN")
    assert isinstance(arm, Loss)
    assert [what for what, _ in arm.rolls] == ["STY", "RÖR"]
    assert [what for what, _ in leg.rolls] == ["FÖR", "RÖR"]
    assert all(dice == parse_dice("(1T6/2)-1") for _, dice in arm.rolls + leg.rolls)
    assert arm.remedy.within_seconds == 24 * 3600
    with pytest.raises(RulesError, match="arm or a leg"):
        parse_code("Permanent!", Area.CHEST)
    with pytest.raises(RulesError):
        parse_code("Permanent!")


def test_teeth_code():
    """phobia-utdrag.txt lines 934-935: 1T6-1 teeth lost."""
    teeth = parse_code("Tänder!")
    assert teeth.rolls == (("teeth", parse_dice("1T6-1")),)


@pytest.mark.parametrize("bad", ["T", "S", "Tx4", "Sx0.2", "AB3", "Bryt+3!", "", 3])
def test_bad_codes(bad):
    """phobia-utdrag.txt lines 855-856: T and S name sections, they are not codes."""
    with pytest.raises(RulesError):
        parse_code(bad)


def test_every_table_code_parses():
    """Every code in the table (lines 948-1004) is one of the code list (lines 854-941)."""
    kinds = {type(e) for rows in SERIOUS_INJURY_TABLE.values() for r in rows for e in r.effects}
    assert kinds == {Multiply, Bleed, Check, Loss, Ongoing}


# --- applying a hit -------------------------------------------------------------------


def test_hit_without_serious_injury():
    """phobia-utdrag.txt lines 821-831, 848-852: 20 - 3 = 17 → 8 T, 9 S, one SB for a
    projectile; 17 is not above a Chockvärde of 17."""
    hit = apply_hit(20, 3, "P", Area.ARM, 17)
    assert (hit.damage, hit.trauma, hit.pain, hit.small_bleeds, hit.bleed_rate) == (
        17,
        8,
        9,
        1,
        1,
    )
    assert not hit.serious
    assert hit.injury is None
    assert hit.injury_roll is None


@pytest.mark.parametrize(("damage_type", "bleeds"), [("P", 1), ("K", 0), ("H", 1)])
def test_small_bleed_by_type(damage_type, bleeds):
    """phobia-utdrag.txt lines 827-828, 850-852: P and H add one SB, K none."""
    assert apply_hit(6, 0, damage_type, "leg", 10).small_bleeds == bleeds


def test_stopped_hit_has_no_effect():
    """The house rule's other reading (stopped_hit_bleeds off): a hit stopped by
    protection (0 damage) gives no SB either."""
    hit = apply_hit(4, 6, "P", "chest", 0, stopped_hit_bleeds=False)
    assert (hit.damage, hit.trauma, hit.pain, hit.bleed_rate, hit.serious) == (0, 0, 0, 0, False)


@pytest.mark.parametrize(("damage_type", "bleeds"), [("P", 1), ("K", 0), ("H", 1)])
def test_a_stopped_projectile_or_cut_still_bleeds_lines_827_828_850_852(damage_type, bleeds):
    """phobia-utdrag.txt lines 850-852: "Varje attack med ett projektil- eller huggvapen ger
    alltid ett kryss Småblödning"; step 3 (lines 827-828) sets no condition on the damage.
    By default a hit that protection stops (4 against 6) gives no boxes but its SB; a crush
    none. Nothing rolled (0) is no hit at all."""
    hit = apply_hit(4, 6, damage_type, "chest", 0)
    assert (hit.damage, hit.trauma, hit.pain, hit.serious) == (0, 0, 0, False)
    assert (hit.small_bleeds, hit.bleed_rate) == (bleeds, bleeds)
    assert apply_hit(0, 6, damage_type, "chest", 0).small_bleeds == 0
    with pytest.raises(RulesError):
        apply_hit(4, 6, "P", "chest", 0, stopped_hit_bleeds=1)


def test_serious_only_strictly_above_shock_value(scripted):
    """phobia-utdrag.txt line 830: "högre än" — strictly above the Chockvärde."""
    assert not apply_hit(12, 0, "K", "arm", 12, rng=scripted()).serious  # rolls nothing
    hit = apply_hit(13, 0, "K", "arm", 12, rng=scripted(10))
    assert hit.serious
    assert hit.injury_roll == 10
    assert hit.injury.name == "Kött"
    assert (hit.trauma, hit.pain) == (6 + 1, 7 + 1)  # Tx0.1 / Sx0.1 of 13


def test_heart_shot():
    """phobia-utdrag.txt line 977 (Hjärta = Tx2 / ABx5), lines 1066-1070: damage 10 →
    5 T + 20 T, 5 S; the rate is SB 1 + 5 AB x the attack's Trauma (5 by default)."""
    hit = apply_hit(10, 0, "P", "chest", 5, injury_roll=1)
    assert (hit.base_trauma, hit.trauma, hit.pain) == (5, 25, 5)
    assert (hit.small_bleeds, hit.serious_bleeds, hit.ab_trauma) == (1, 5, 5)
    assert hit.bleed_rate == 1 + 5 * 5
    other = apply_hit(10, 0, "P", "chest", 5, injury_roll=1, ab_counts_table_trauma=True)
    assert other.bleed_rate == 1 + 5 * 25


def test_bleeding_row_adds_a_second_small_bleed():
    """phobia-utdrag.txt lines 954, 850: Blödning = SB on top of the cut's own SB."""
    hit = apply_hit(9, 0, "H", "face", 3, injury_roll=7)
    assert (hit.injury.name, hit.small_bleeds, hit.bleed_rate) == ("Blödning", 2, 2)


def test_neck_artery_crushing():
    """phobia-utdrag.txt line 964: Pulsåder = ABx2; K gives no SB (line 851)."""
    hit = apply_hit(11, 0, "K", "neck", 8, injury_roll=3)
    assert hit.injury.name == "Pulsåder"
    assert (hit.small_bleeds, hit.serious_bleeds, hit.bleed_rate) == (0, 2, 2 * 5)


def test_pending_checks_losses_and_ongoing():
    """Lines 965 (Nackkotor: Tx0.5 / Bryt+1!), 951 (Mun: Tänder!), 978 (Lunga: Inre
    Skada!), 963 (Strupe: Kvävning!)."""
    neck = apply_hit(17, 0, "H", "neck", 10, injury_roll=5)
    assert neck.trauma == 8 + 8
    assert neck.checks[0].difficulty == 2
    assert neck.checks[0].check.code == "Bryt+1!"
    mouth = apply_hit(17, 0, "K", "face", 10, injury_roll=4)
    assert mouth.losses[0].code == "Tänder!"
    assert mouth.pain == 9 + 8
    lung = apply_hit(17, 0, "P", "chest", 10, injury_roll=3)
    assert lung.ongoing[0].code == "Inre Skada!"
    assert lung.bleed_rate == 1 + 8
    throat = apply_hit(17, 0, "P", "neck", 10, injury_roll=1)
    assert throat.ongoing[0].code == "Kvävning!"


def test_hit_rolls_1t10_when_needed(scripted):
    """phobia-utdrag.txt lines 832-833: the serious injury is rolled with 1T10."""
    rng = scripted(2)
    hit = apply_hit(14, 0, "P", "leg", 6, rng=rng)
    assert rng.calls == [(1, 10)]
    assert hit.injury.name == "Artärblödning"


def test_hit_bad_input():
    with pytest.raises(RulesError):
        apply_hit(10, 0, "P", "arm", 5, injury_roll=0)
    with pytest.raises(RulesError):
        apply_hit(10, 0, "P", "arm", -1)
    with pytest.raises(RulesError):
        apply_hit(10, 0, "Q", "arm", 5)


@given(
    rolled=st.integers(0, 80),
    protection=st.integers(0, 20),
    damage_type=st.sampled_from(list(DamageType)),
    area=st.sampled_from(list(Area)),
    shock_value=st.integers(0, 20),
    injury_roll=st.integers(1, 10),
)
def test_hit_properties(rolled, protection, damage_type, area, shock_value, injury_roll):
    """Lines 823-835: step 3 is always applied; the table only adds on top."""
    hit = apply_hit(rolled, protection, damage_type, area, shock_value, injury_roll)
    assert hit.base_trauma + hit.base_pain == hit.damage == max(rolled - protection, 0)
    assert hit.trauma >= hit.base_trauma
    assert hit.pain >= hit.base_pain
    assert hit.serious == (hit.damage > shock_value)
    assert hit.bleed_rate == hit.small_bleeds + hit.serious_bleeds * hit.base_trauma
    if not hit.serious:
        assert (hit.trauma, hit.pain, hit.serious_bleeds) == (hit.base_trauma, hit.base_pain, 0)


# --- resolving checks and losses --------------------------------------------------------


def test_roll_break_check(scripted):
    """phobia-utdrag.txt lines 882-885: STY 10 against Ob2T6 (damage 17): 3 + 4 = 7."""
    pending = apply_hit(17, 0, "H", "neck", 10, injury_roll=5).checks[0]
    result = roll_check(pending, 10, scripted(3, 4))
    assert not result.failed
    assert result.outcome.total == 7
    assert result.side is None


def test_failed_eye_check_picks_a_side(scripted):
    """phobia-utdrag.txt lines 891-893: Ob3T6 against Tur; failure destroys an eye,
    random which (one more die, 1 left, 2 right)."""
    pending = PendingCheck(parse_code("Blindrisk!"), 3)
    rng = scripted(5, 5, 4, 2)
    result = roll_check(pending, 8, rng)
    assert result.failed
    assert result.side is Side.RIGHT
    assert rng.calls[-1] == (1, 2)
    assert syn_after_eye_loss(15, 0) == 15
    assert syn_after_eye_loss(15, 1) == 7
    assert syn_after_eye_loss(15, 2) == 0


def test_resolve_check_with_injected_dice():
    pending = PendingCheck(parse_code("Öra!"), 3)
    passed = resolve_check(pending, 12, ObRoll.of((1, 2, 3)))
    assert not passed.failed
    assert passed.side is None
    failed = resolve_check(pending, 5, ObRoll.of((2, 3, 4)), "left")
    assert failed.failed
    assert failed.side is Side.LEFT
    with pytest.raises(RulesError, match="side"):
        resolve_check(pending, 5, ObRoll.of((2, 3, 4)))
    with pytest.raises(RulesError, match="Ob3T6"):
        resolve_check(pending, 5, ObRoll.of((2, 3)))


def test_permanent_losses(scripted):
    """phobia-utdrag.txt lines 918-929: (1T6/2)-1 twice, STY then RÖR for an arm; results
    of zero (and the -1 of a rolled 1, rounded down) lose nothing."""
    arm = parse_code("Permanent!", "arm")
    result = roll_loss(arm, scripted(1, 6))
    assert result.amounts == (("STY", 0), ("RÖR", 2))
    assert [r.result for r in result.rolls] == [-1, 2]
    leg = resolve_loss(parse_code("Permanent!", "leg"), (_plain("(1T6/2)-1", 4),) * 2)
    assert leg.amounts == (("FÖR", 1), ("RÖR", 1))


def test_teeth_lost(scripted):
    """phobia-utdrag.txt lines 934-935: 1T6-1 teeth."""
    assert roll_loss(parse_code("Tänder!"), scripted(6)).amounts == (("teeth", 5),)
    with pytest.raises(RulesError):
        resolve_loss(parse_code("Tänder!"), (_plain("1T10", 3),))


def _plain(text, die):
    dice = parse_dice(text)
    return PlainRoll(dice, (die,), dice.result_of(die))


# --- damage rows ----------------------------------------------------------------------


def test_filled_rows_and_overflow():
    """phobia-utdrag.txt lines 164-172: ten rows of ``columns`` boxes (house rule 5)."""
    assert [filled_rows(b) for b in (0, 4, 5, 9, 10, 49, 50, 51, 80)] == [
        0,
        0,
        1,
        1,
        2,
        9,
        10,
        10,
        10,
    ]
    assert filled_rows(9, columns=3) == 3
    assert (overflow_boxes(50), overflow_boxes(53), overflow_boxes(40, 4)) == (0, 3, 0)
    with pytest.raises(RulesError):
        filled_rows(5, columns=0)


def test_which_sections_count_where():
    """phobia-utdrag.txt lines 1017-1024 (Trauma: death and shock, not skills), 1034-1045
    (Smärta: shock and skills, not death), 1113-1122 (Blodförlust: death and shock)."""
    assert skill_difficulty_added(12) == 2
    assert skill_difficulty_added(12, columns=4, per_row=2) == 6
    assert death_roll_difficulty(trauma=10, blood_loss=5) == 3 + 2 + 1
    assert shock_roll_difficulty(trauma=10, pain=12, blood_loss=5) == 3 + 2 + 2 + 1
    assert death_roll_difficulty(0, 0, base=2) == 2
    assert row_difficulty(50, per_row=0) == 0


def test_difficulty_capped_at_ob20():
    assert shock_roll_difficulty(50, 50, 50) == 20


# --- bleeding ---------------------------------------------------------------------------


def test_one_small_bleed_normal():
    """phobia-utdrag.txt lines 1077-1078, 1091-1093: rate 1 costs one box a minute and
    falls to 0 after ten minutes: 10 boxes, 10 rises."""
    step = advance_bleeding(Bleeding(rate=1), 600)
    assert step.state == Bleeding(0, 10)
    assert (step.gained, step.rises, step.recovered) == (10, 10, 0)


def test_rate_below_ten_lands_each_whole_minute():
    """phobia-utdrag.txt lines 1077-1078: rate 9 → nothing before the minute, 9 at it."""
    assert advance_bleeding(Bleeding(9), 59).gained == 0
    assert advance_bleeding(Bleeding(9), 60).gained == 9


def test_rate_ten_and_up_lands_each_round():
    """phobia-utdrag.txt lines 1080-1085: from 10, rate // 10 boxes a 4 s round."""
    assert advance_bleeding(Bleeding(10), 3).gained == 0
    assert advance_bleeding(Bleeding(10), 4).gained == 1
    assert advance_bleeding(Bleeding(10), 60).gained == 15
    step = advance_bleeding(Bleeding(25), 60)
    assert (step.gained, step.rises) == (30, 15)


def test_rate_falls_by_activity():
    """phobia-utdrag.txt lines 1091-1095: one point per 10 minutes, 5 resting with care,
    20 in full activity; rate 5 bleeds (5+4+3+2+1) x minutes per point."""
    assert advance_bleeding(Bleeding(5), 50 * 60).gained == 15 * 10
    assert advance_bleeding(Bleeding(5), 25 * 60, "care").gained == 15 * 5
    active = advance_bleeding(Bleeding(5), 100 * 60, Activity.ACTIVE)
    assert active.gained == 15 * 20
    assert active.state.rate == 0
    assert advance_bleeding(Bleeding(5), 599).state.rate == 5
    assert advance_bleeding(Bleeding(5), 600).state.rate == 4


def test_fall_from_ten_lands_before_the_fall():
    """Rate 10 for 10 minutes (150 rounds), then 9 a minute: the landing at the fall's
    moment still uses rate 10."""
    assert advance_bleeding(Bleeding(10), 600).gained == 150
    assert advance_bleeding(Bleeding(10), 660).gained == 159


def test_recovery_by_activity():
    """phobia-utdrag.txt lines 1124-1129: 1 box an hour, 2 resting with care, 1 per 2 h
    in full activity."""
    assert advance_bleeding(Bleeding(0, 5), 3600).state.loss == 4
    assert advance_bleeding(Bleeding(0, 5), 3600, "care").state.loss == 3
    assert advance_bleeding(Bleeding(0, 5), 3600, "active").state.loss == 5
    assert advance_bleeding(Bleeding(0, 5), 7200, "active").state.loss == 4
    assert advance_bleeding(Bleeding(0, 5), 100 * 3600).state == Bleeding()


def test_no_recovery_while_bleeding():
    """Reading: blood is rebuilt only once the rate is 0 (lines 1124-1129 say nothing)."""
    step = advance_bleeding(Bleeding(1, 5), 3600)
    assert (step.gained, step.recovered, step.state.loss) == (10, 0, 15)
    assert advance_bleeding(Bleeding(1, 5), 600 + 3600).state.loss == 14


def test_wounded_starts_or_keeps_the_clocks():
    """A new wound on a bleeder keeps its clocks; a new bleeding starts them at 0."""
    started = advance_bleeding(Bleeding(3), 90).state
    assert (started.clock, started.decay) == (30, 180)
    assert started.wounded(2) == Bleeding(5, 3, 30, 180)
    resting = advance_bleeding(Bleeding(0, 5), 1000).state
    assert resting.recovery == 2000
    assert resting.wounded(1) == Bleeding(1, 5)
    assert resting.wounded(0) is resting


def test_bad_bleeding_input():
    with pytest.raises(RulesError):
        Bleeding(0, 0, clock=5)
    with pytest.raises(RulesError):
        Bleeding(2, 5, recovery=10)
    with pytest.raises(RulesError):
        Bleeding(-1)
    with pytest.raises(RulesError, match="activity"):
        advance_bleeding(Bleeding(1), 60, "sleeping")
    with pytest.raises(RulesError):
        advance_bleeding(Bleeding(1), -1)


def test_a_week_is_cheap():
    """Event by event: a week of a huge bleed costs one step per fall of the rate."""
    start = time.perf_counter()
    step = advance_bleeding(Bleeding(500, 0), 7 * 24 * 3600, "active")
    assert time.perf_counter() - start < 0.05
    assert step.state.rate == 0
    assert step.gained > 0


def _naive(state, seconds, activity):
    """Second by second reference: the readings of advance_bleeding, literally."""
    pace = {"care": 4, "normal": 2, "active": 1}[activity]
    rate, loss, clock, decay, recovery = (
        state.rate,
        state.loss,
        state.clock,
        state.decay,
        state.recovery,
    )
    gained = recovered = rises = 0
    for _ in range(seconds):
        if rate:
            clock = (clock + 1) % 60
            landing = rate // 10 if rate >= 10 and clock % 4 == 0 else 0
            landing = rate if rate < 10 and clock == 0 else landing
            if landing:
                loss, gained, rises = loss + landing, gained + landing, rises + 1
            decay += pace
            if decay >= 1200:
                decay, rate = decay - 1200, rate - 1
                if not rate:
                    clock = decay = 0
        elif loss:
            recovery += pace
            if recovery >= 7200:
                recovery, loss, recovered = recovery - 7200, loss - 1, recovered + 1
                if not loss:
                    recovery = 0
    return Bleeding(rate, loss, clock, decay, recovery), gained, recovered, rises


bleeding_states = st.builds(
    lambda rate, loss, seconds, activity: (
        advance_bleeding(Bleeding(rate, loss), seconds, activity).state
    ),
    st.integers(0, 25),
    st.integers(0, 40),
    st.integers(0, 4000),
    st.sampled_from(["care", "normal", "active"]),
)
activities = st.sampled_from(list(Activity))


@settings(max_examples=40, deadline=None)
@given(bleeding_states, st.integers(0, 5000), activities)
def test_matches_second_by_second(state, seconds, activity):
    """The closed forms agree with a second-by-second simulation of the same readings."""
    step = advance_bleeding(state, seconds, activity)
    assert (step.state, step.gained, step.recovered, step.rises) == _naive(
        state, seconds, activity.value
    )


@given(bleeding_states, st.integers(0, 200_000), st.integers(0, 200_000), activities)
def test_two_steps_equal_one(state, first, second, activity):
    """Advancing a then b equals advancing a + b (state and sums)."""
    one = advance_bleeding(state, first + second, activity)
    a = advance_bleeding(state, first, activity)
    b = advance_bleeding(a.state, second, activity)
    assert one.state == b.state
    assert (one.gained, one.recovered, one.rises) == (
        a.gained + b.gained,
        a.recovered + b.recovered,
        a.rises + b.rises,
    )


@given(bleeding_states, st.integers(0, 10**6), activities)
def test_bleeding_never_negative(state, seconds, activity):
    """Lines 1072-1129: rate and loss never go below 0; the rate never rises by itself;
    loss changes by exactly gained - recovered."""
    step = advance_bleeding(state, seconds, activity)
    assert 0 <= step.state.rate <= state.rate
    assert step.state.loss >= 0
    assert step.state.loss == state.loss + step.gained - step.recovered
    assert step.rises <= step.gained
