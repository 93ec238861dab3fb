"""The vigilance move by RÖR as the target chooses it (p. 9), cover against hits with no
area after it (p. 12), cover that hides where the target is and the GM's situational
modifier (p. 10; issue 45 items 2-4)."""

from dataclasses import replace

import pytest

from rules.aoristos.combat import ENGINE
from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat.attacks import attack_setup, protection_of, threshold_parts
from rules.aoristos.combat.gear import AREAS
from rules.aoristos.combat.outcome import hit_chance
from rules.aoristos.equipment import ARMOUR, WEAPONS
from rules.combat_kit import GM_VIEW, percent
from rules.errors import RulesError
from rules.scene import AddShape
from tests.rules import helpers
from tests.rules.helpers import by_name, of
from tests.rules.test_attack_outcome import armed, fight


def run(state, command, *dice):
    return helpers.run(ENGINE, state, command, *dice)


def attacked(weapon="bow", target=None, *, cover=None, house=None, melee=False):
    """A (at 0,0) attacks B (at 20,0, or 1,0 in melee) with `weapon`; `cover`: the points of
    a cover drawn on the map first. The state waits for B's vigilance."""
    target = {"agility": 3, "movement": 8, **(target or {})}
    if melee:
        target.setdefault("x", 1.0)
    state = fight(armed(weapon), target)
    if house:
        state = replace(state, house=replace(state.house, **house))
    if cover:
        state, _ = run(state, AddShape("cover", cover))
    a, b = by_name(state, "A"), by_name(state, "B")
    state, _ = run(state, C.Attack(a.id, b.id, weapon))
    assert state.attack.stage == "vigilance"
    return state, b


def vigil(state, b, *dice, **move):
    return run(state, C.Vigilance(b.id, ("agility",), **move), *dice)


MISS = (1, 1, 1, 1, 1)  # the attack test's 2B2T (four dice) and the area die: a miss


def test_the_move_goes_up_to_ror_toward_known_cover_within_10_m_p9():
    """p. 9: "I avståndsstrid är rörelsen minst 1 meter och upp till målets Rörlighet i
    meter mot valfritt känt skydd inom 10 meter": RÖR 3, cover 3 m to the side; the
    target goes 2.6 m to its edge and is in proper cover there."""
    state, b = attacked(cover="19,3 22,3 22,5 19,5")
    state, events = vigil(state, b, *MISS, x=20.0, y=2.6)
    chose = of(events, E.VigilanceChosen)
    assert (chose.move_to, chose.moved, chose.cover_after) == ((20.0, 2.6), 2.6, 3)
    moved = by_name(state, "B")
    assert (moved.x, moved.y, moved.moved) == (20.0, 2.6, 2.6)


@pytest.mark.parametrize(
    "point",
    [(20.0, 3.5),  # 3.5 m: more than RÖR 3
     (20.0, 0.5)],  # 0.5 m: less than the 1 m the text asks
)
def test_the_move_is_1_m_to_ror_p9(point):
    """p. 9: "minst 1 meter och upp till målets Rörlighet i meter": too far and too short
    are refused."""
    state, b = attacked(cover="19,3 22,3 22,5 19,5")
    with pytest.raises(RulesError) as refused:
        vigil(state, b, x=point[0], y=point[1])
    assert refused.value.code == "vigilance_move"


def test_a_move_toward_cover_the_map_does_not_show_waits_for_the_gm_p9():
    """p. 9: "mot valfritt känt skydd": away from the drawn wall, toward cover the map
    does not show, the move waits for the GM. Confirmed (that cover hides 2 areas), the
    attack goes on from there; not confirmed, the target chooses again."""
    state, b = attacked(cover="19,3 22,3 22,5 19,5")
    waiting, events = vigil(state, b, x=20.0, y=-2.0)
    assert of(events, E.MoveProposed).to == (20.0, -2.0)
    assert waiting.attack.stage == "confirm"
    prompt = ENGINE.view(waiting, GM_VIEW)["prompts"][0]
    assert (prompt["kind"], prompt["mine"], prompt["metres"]) == ("confirm_move", True, 2.0)
    with pytest.raises(RulesError):
        vigil(waiting, b, x=20.0, y=2.0)  # one answer at a time
    after, events = run(waiting, C.ConfirmMove(True, 2), *MISS)
    assert of(events, E.VigilanceChosen).cover_after == 2
    assert (by_name(after, "B").y, after.attack) == (-2.0, None)
    again, _ = run(waiting, C.ConfirmMove(False))
    assert (again.attack.stage, by_name(again, "B").y) == ("vigilance", 0.0)
    assert ENGINE.actor_of(waiting, C.ConfirmMove()) is None  # the GM's


def test_cover_beyond_10_m_or_unknown_leaves_the_move_square_to_the_line_p9():
    """p. 9: "Om inget skydd finns är rörelsen vinkelrät mot anfallarens siktlinje":
    cover 15 m away is not within 10 m, and cover the GM keeps to itself is unknown to a
    player's character; square to the line of fire goes, along it waits for the GM."""
    for cover, shown in (("19,15 22,15 22,17", True), ("19,3 22,3 22,5", False)):
        state = fight(armed("bow"), {"agility": 3, "movement": 8})
        state, _ = run(state, AddShape("cover", cover, shown))
        a, b = by_name(state, "A"), by_name(state, "B")
        state, _ = run(state, C.Attack(a.id, b.id, "bow"))
        _waiting, events = vigil(state, b, x=22.0, y=0.0)  # along the line: the GM's call
        assert of(events, E.MoveProposed)
        after, events = vigil(state, b, *MISS, x=20.0, y=-2.0)
        assert of(events, E.VigilanceChosen).cover_after == 0
        assert (by_name(after, "B").x, by_name(after, "B").y) == (20.0, -2.0)


def test_one_metre_may_be_a_dive_to_the_ground_p9():
    """p. 9: "1 meter av sådan förflyttning går att byta ut mot att målet kastar sig till
    marken": with RÖR 3, a dive in place, or 2 m and the dive; 3 m and the dive is too
    far."""
    state, b = attacked()
    after, events = vigil(state, b, *MISS, prone=True)
    assert of(events, E.VigilanceChosen).move_to is None
    assert (by_name(after, "B").posture, by_name(after, "B").x) == ("lying", 20.0)
    after, _ = vigil(state, b, *MISS, x=20.0, y=2.0, prone=True)
    assert (by_name(after, "B").posture, by_name(after, "B").y) == ("lying", 2.0)
    with pytest.raises(RulesError):
        vigil(state, b, x=20.0, y=3.0, prone=True)


def test_in_melee_others_may_follow_the_metre_away_p9():
    """p. 9: "I närstrid är denna rörelse 1 meter bort från anfallaren. Alla andra i
    striden får hänga på och röra sig lika långt åt samma håll, om de vill": B's ally C
    follows B's metre away from A; a point or a dive is not the melee's move."""
    state = fight(armed("knife"), {"agility": 3, "x": 1.0})
    state, _ = run(state, C.AddCombatant(name="C", side="b", npc=False, x=1.5, y=1.0))
    a, b, c = (by_name(state, n) for n in "ABC")
    state, _ = run(state, C.Attack(a.id, b.id, "knife"))
    view = ENGINE.view(state, GM_VIEW)["prompts"][0]["vigilance_move"]
    assert [f["id"] for f in view["followers"]] == [c.id]
    after, events = vigil(state, b, followers=(c.id,))
    assert of(events, E.VigilanceChosen).followers == (c.id,)
    assert (by_name(after, "B").x, by_name(after, "C").x, by_name(after, "C").y) == (
        2.0, 2.5, 1.0)
    assert by_name(after, "C").moved == 1.0
    # The foe A decides for itself (below); staying, the attack goes on.
    after, events = run(after, C.Pass(a.id), *MISS)
    assert of(events, E.AttackRolled).threshold == of(events, E.AttackRolled).total
    for wrong in ({"followers": (a.id,)}, {"x": 1.0, "y": 2.0}, {"prone": True}):
        with pytest.raises(RulesError):
            vigil(state, b, **wrong)


def melee_of_four():
    """A (side a, knife) stabs at B (side b) 1 m away; A's ally D stands 1.5 m from B (in
    the melee), A's ally E 5 m away (not in it), B's ally C beside B. The state waits for
    B's vigilance."""
    state = fight(armed("knife"), {"agility": 3, "x": 1.0})
    for name, side, x, y in (("C", "b", 1.5, 1.0), ("D", "a", 1.0, 1.5), ("E", "a", 6.0, 0.0)):
        state, _ = run(state, C.AddCombatant(name=name, side=side, npc=name == "D", x=x, y=y))
    a, b = by_name(state, "A"), by_name(state, "B")
    state, _ = run(state, C.Attack(a.id, b.id, "knife"))
    return state, a, b


def test_in_melee_the_foes_follow_the_metre_too_each_for_itself_p9():
    """p. 9: "I närstrid är denna rörelse 1 meter bort från anfallaren. Alla andra i
    striden får hänga på och röra sig lika långt åt samma håll, om de vill": "alla
    andra", so the foes too, each as it wants. B steps 1 m away from A; A (the attacker,
    first) and D, foes in the melee, are each asked, E (not in it) and B's own side are
    not; the dice wait. A follows the same metre, at no KP, and stays in reach; D stays;
    then the attack is rolled."""
    state, a, b = melee_of_four()
    c, d = by_name(state, "C"), by_name(state, "D")
    state, events = vigil(state, b)  # no dice yet
    assert of(events, E.VigilanceChosen).move_to == (2.0, 0.0)
    assert [(r.kind, r.who) for r in state.reactions] == [("follow", a.id), ("follow", d.id)]
    assert state.attack.stage == "follow"
    prompt = ENGINE.view(state, GM_VIEW)["prompts"][0]
    assert (prompt["kind"], prompt["for"], prompt["to"], prompt["metres"]) == (
        "follow", a.id, [1.0, 0.0], 1.0)
    with pytest.raises(RulesError):  # D's turn to decide comes after A's
        run(state, C.Follow(d.id))
    with pytest.raises(RulesError):  # B's ally is no foe: B named its followers
        run(state, C.Follow(c.id))
    cp = by_name(state, "A").cp
    state, events = run(state, C.Follow(a.id))
    assert of(events, E.Followed) == E.Followed(a.id, b.id, 1.0, 0.0, 1.0)
    follower = by_name(state, "A")
    assert (follower.x, follower.y, follower.moved, follower.cp) == (1.0, 0.0, 1.0, cp)
    assert [r.who for r in state.reactions] == [d.id]
    before = state
    state, events = run(state, C.Pass(d.id), *MISS)
    assert of(events, E.ReactionDone).how == "stayed"
    assert of(events, E.AttackRolled).hit  # 3 against ST 3, 1 m away: A may still abort
    assert (by_name(state, "D").x, by_name(state, "D").y) == (1.0, 1.5)
    assert not state.reactions
    assert state.attack.stage == "abort"
    lines = ENGINE.describe(before, events, GM_VIEW)
    assert (lines[0]["kind"], lines[0]["who_name"], lines[0]["how"]) == (
        "ReactionDone", "D", "stayed")


def test_a_foe_without_the_metre_left_is_not_asked_or_lapses_p9():
    """p. 9: "röra sig lika långt": only a foe with the metre left in its round (p. 7:
    2 × Förflyttning) may follow. D has moved all of it: not asked. Asked, then out of
    metres before its turn to answer (the GM's doing): it cannot follow, its reaction
    lapses, and the attack goes on."""
    state, a, b = melee_of_four()
    d = by_name(state, "D")
    spent = state.put(d.with_(moved=2.0 * d.movement))
    asked, _ = vigil(spent, b)
    assert [r.who for r in asked.reactions] == [a.id]
    state, _ = vigil(state, b)
    tired = state.put(by_name(state, "D").with_(moved=2.0 * d.movement - 0.5))
    after, events = run(tired, C.Pass(a.id), *MISS)
    assert [(type(e).__name__, getattr(e, "how", "")) for e in events][:3] == [
        ("ReactionDone", "stayed"), ("ReactionDone", "cannot"), ("AttackRolled", "")]
    attacker = by_name(tired, "A")
    tired = tired.put(attacker.with_(moved=2.0 * attacker.movement - 0.5))
    with pytest.raises(RulesError):
        run(tired, C.Follow(a.id))


def test_nobody_follows_a_move_at_range_or_without_ror_p9():
    """p. 9: the following is the melee's ("I närstrid ... Alla andra i striden"): at
    range no foe is asked; in melee without RÖR named nobody moves and nobody is asked."""
    state, b = attacked(cover="19,3 22,3 22,5 19,5")
    state, events = vigil(state, b, *MISS, x=20.0, y=2.6)
    assert not any(isinstance(e, E.ReactionCalled) for e in events)
    state, a, b = melee_of_four()
    state, events = run(state, C.Vigilance(b.id, ("alertness",)), *MISS)
    assert not any(isinstance(e, E.ReactionCalled) for e in events)


def test_a_free_attacks_target_moving_in_vigilance_asks_the_foes_first_p9_p10():
    """p. 10's free attack at one leaving melee, and p. 9: its target steps 1 m away with
    RÖR; the free attacker may follow, and its own reaction is closed only once the
    attack is over (it attacked: no second free attack)."""
    state = fight({"weapons": (WEAPONS["knife"],), "right": "knife", "agility": 1},
                  {"agility": 3, "x": 1.0, "npc": True})
    a, b = by_name(state, "A"), by_name(state, "B")
    state = state.put(by_name(state, "A").with_(cp=40))
    state, _ = run(state, C.Move(a.id, -3.0, 0.0), 1, 1, 6, 6)  # A's escape goes badly
    state, _ = run(state, C.Proceed(a.id))
    assert [(r.kind, r.who) for r in state.reactions] == [("free_attack", b.id)]
    state, _ = run(state, C.Attack(b.id, a.id, "unarmed"))
    state, _ = run(state, C.Vigilance(a.id, ("agility",)))
    assert [(r.kind, r.who) for r in state.reactions] == [
        ("follow", b.id), ("free_attack", b.id)]
    state, events = run(state, C.Follow(b.id), 1, 1, 1, 1, 1)
    assert (by_name(state, "B").x, by_name(state, "B").reacting) == (0.0, True)
    assert [r.kind for r in state.reactions] == ["free_attack"]
    state, events = run(state, C.Abort(b.id))  # the kick held back: the reaction is over
    assert of(events, E.ReactionDone).how == "attacked"
    assert not state.reactions
    assert not by_name(state, "B").reacting


def test_the_policy_follows_unless_it_holds_a_ranged_weapon_p9():
    """The simulation's default (rules/aoristos/combat/policy.py): a foe asked follows the
    melee it fights in; a shooter keeps its range and stays."""
    from rules.aoristos.combat import policy

    state, a, b = melee_of_four()
    state, _ = vigil(state, b)
    assert policy.next_command(state, None, None) == C.Follow(a.id)
    shooter = state.put(by_name(state, "A").with_(weapons=(WEAPONS["pistol"],), right="pistol"))
    assert policy.next_command(shooter, None, None) == C.Pass(a.id)


def test_the_range_is_counted_where_the_move_ends_p9_p10():
    """p. 9, steps 2 and 3: the target moves with its vigilance, then "ST kan justeras ...
    för avståndet (s. 10)": a bow at 9.5 m has no malus; moved 2 m toward cover to 11.5 m
    it has +1 (p. 10: +1 per whole 10 m). The prompt's chance from there is the engine's."""
    state, b = attacked(target={"x": 9.5}, cover="11,-1 13,-1 13,1 11,1")
    preview = ENGINE.preview(state, C.Vigilance(b.id, ("agility",), x=11.5, y=0.0))
    assert preview["refused"] is None
    assert preview["cover_after"] == 3
    _after, events = vigil(state, b, *MISS, x=11.5, y=0.0)
    chose = of(events, E.VigilanceChosen)
    assert dict(chose.parts)["range"] == 1
    setup = attack_setup(state, state.attack, ())
    assert preview["chances"]["agility"] == percent(
        hit_chance(replace(setup, threshold=chose.threshold))
    )
    plain = dict(threshold_parts(state, state.attack, ("agility",)))
    assert plain["range"] == 0  # the engine's own 1 m square: 9.55 m


def test_hits_with_no_area_meet_the_cover_where_the_move_ends_p12():
    """p. 12: "Styrkan hos träffar utan träffområde minskar med 1 per dolt område om målet
    efter eventuell förflyttning till följd av vaksamhet (s. 9) befinner sig i ett
    ordentligt skydd": in drawn cover after the move, the campaign's areas (3, or 5 as a
    house rule); out in the open after it, nothing. The hit waits for the attacker's
    abort decision within 10 m, and the resolution reads the cover kept for it."""
    state, b = attacked(target={"x": 8.0}, cover="7,3 10,3 10,5 7,5",
                        house={"vigilance_cover_areas": 5})
    state, _ = vigil(state, b, 6, 6, 6, 6, 6, x=8.0, y=2.6)  # a hit within 10 m: abort?
    assert state.attack.cover_after == 5
    setup = attack_setup(state, state.attack, ("agility",), state.attack.threshold)
    assert setup.total_protection == 5
    target = by_name(state, "B")
    assert protection_of(target, None, 0) == 0
    assert protection_of(target, "torso", 5) == 0  # p. 12: with an area, the start counts


def test_a_target_hidden_from_the_start_has_the_cover_as_armour_p12():
    """p. 12: "Om målet redan från början var helt dolt fungerar skyddet som rustning":
    every area behind cover 4 → Totalrustning (4·5 + 4·3 = 32, torso three times) // 10
    = 3, with a leather coat's values added; partly covered, 1 per covered area."""
    hidden = tuple((area, 4) for area in AREAS)
    b = by_name(fight(armed("bow"), {}), "B").with_(cover=hidden)
    assert protection_of(b, None) == 32 // 10
    coat = ARMOUR[next(iter(ARMOUR))]
    worn = b.with_(armour=(coat,))
    summed = sum(v * (3 if a == "torso" else 1) for a, v in coat.areas) + 32
    assert protection_of(worn, None) == summed // 10
    assert protection_of(b.with_(cover=(("torso", 4), ("left_leg", 4))), None) == 2


def test_cover_that_hides_the_target_raises_a_ranged_attacks_st_p10():
    """p. 10: "det fakumet höjer bara ST om skyddet faktiskt gör det svårt att veta var
    målet befinner sig": the GM marks B hard to locate; a ranged attack has +2 (the
    house rule's default, 4 when the campaign says so), a melee attack nothing."""
    state = fight(armed("bow"), {})
    b = by_name(state, "B")
    state, _ = run(state, C.UpdateCombatant(b.id, hard_to_locate=True))
    a = by_name(state, "A")
    parts = dict(ENGINE.preview(state, C.Attack(a.id, b.id, "bow"))["threshold_parts"])
    assert parts["hard_to_locate"] == 2
    state4 = replace(state, house=replace(state.house, hard_to_locate=4))
    parts = dict(ENGINE.preview(state4, C.Attack(a.id, b.id, "bow"))["threshold_parts"])
    assert parts["hard_to_locate"] == 4
    close = state.put(by_name(state, "B").with_(x=1.0)).put(
        a.with_(weapons=(WEAPONS["knife"],), right="knife"))
    parts = dict(ENGINE.preview(close, C.Attack(a.id, b.id, "knife"))["threshold_parts"])
    assert "hard_to_locate" not in parts


def test_the_gms_situational_modifier_is_in_the_preview_and_the_engine():
    """Issue 45: the GM sets a situational ST modifier on the encounter ("fog", +3): the
    preview's ST and the engine's both carry it; 0 takes it away; only the GM gives it."""
    state = fight(armed("bow"), {"aware": False})
    state, _ = run(state, C.SetSituation(3, "fog"))
    assert ENGINE.actor_of(state, C.SetSituation(3)) is None
    a, b = by_name(state, "A"), by_name(state, "B")
    preview = ENGINE.preview(state, C.Attack(a.id, b.id, "bow"))
    assert dict(preview["threshold_parts"])["situation"] == 3
    _after, events = run(state, C.Attack(a.id, b.id, "bow"), *MISS)
    chose = of(events, E.VigilanceChosen)
    assert dict(chose.parts)["situation"] == 3
    assert chose.threshold == preview["threshold"]
    state, _ = run(state, C.SetSituation(0))
    assert "situation" not in dict(ENGINE.preview(state, C.Attack(a.id, b.id, "bow"))[
        "threshold_parts"])
    with pytest.raises(RulesError):
        run(state, C.SetSituation(40))
