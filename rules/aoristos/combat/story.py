"""The story of an Aoristos fight in numbers (issue 29; `rules.story`), read from its events.

* **Attacks** (p. 8-9): one per `AttackRolled` (the attack test and the area roll, step 4,
  p. 9), reactions' attacks included. **A hit** is the roll's verdict, `AttackRolled.hit`:
  the total reached the ST the target's vigilance set (p. 8-10) and the area is not hidden
  (p. 9). A hit the attacker then aborts (step 5, p. 9: within 10 m, "skulle ha träffat")
  counts as a hit that dealt nothing; the preview's chance is the chance of this very verdict.
* **Expected** (`expected_hits`): the preview's chance (`view.attack_preview`'s
  ``p_hit``): `outcome.odds` of the attack as the encounter stood when it was declared,
  against the target's *suggested* vigilance (`vigilance.default_vigilance`; none against
  a target unaware or down), auto fire, aim, range, melee, cover and hidden areas in. The
  preview works on the declaration folded in at no cost (`declaration(..., cost=0)`);
  here the `AttackDeclared` event is folded in with its cost set to 0, onto the state
  just before it: the preview's state, but for a readied weapon the same record drew for
  free first (the attack as it was made, grip and all).
  `expected_hits_answered`: `outcome.hit_chance` with the vigilance the target chose and
  the ST it set (`VigilanceChosen`), the figures `roll_attack` resolved the dice with (the
  vigilance prompt's chances).
* **Damage** (p. 12-13): skada, the final strength divided by Härdighet. Dealt: each hit's
  `AttackResolved.damage`, and an unarmed attack's parry wound (p. 8: the `Wounded` whose
  source is "parry ..." right after the miss) for the parrying target. Taken: every
  `Wounded.damage` (hazards too).
* **KP** (p. 6-11): what each event took off the combatant's KP, by what it was for:
  "attack", "move" (a leaving-melee move too), "posture", "talk", "scan", the hands'
  "draw"/"ready"/"stow"/"switch"/"pick_up"/"drop", "windup" ("abort_windup"), "reload",
  "range_aim", "overwatch"; an extended activity's KP under its label as they are paid
  (its completion then costs nothing more). The stress loss at each activation (p. 6) is
  lost, not spent: not counted.
* **Luck** (`rules.story.percentile`), each under the exact `dice.distribution` of its
  hand (p. 4): the attack test (high is lucky; hand and counted dice stored in the event);
  the stress roll (1B1F, the lowest die: low is lucky, p. 6); a surprising side's
  initiative bonus (p. 6), a drawn bow's FYS test (p. 7), a scan's SIN tests (p. 6-7), the
  SIN test to hold fire (p. 11), both sides of the test to leave melee (p. 10, the foes'
  roll for their most agile, who rolls it), the wounded's VIL tests against pain (p. 13)
  and survival roll (2B2T, p. 14): high is lucky. Left out: the hit-area roll (which face
  is better depends on the armour and what is hidden), auto fire's extra dice (more
  projectiles, p. 11, are not plainly better: 4+ have no area), and the rolls whose dice
  are not stored (a parry's 1B and a hazard's strength are kept only as text).
"""

from dataclasses import replace
from fractions import Fraction

from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.attacks import attack_setup
from rules.aoristos.combat.fold import evolve
from rules.aoristos.combat.outcome import hit_chance, odds
from rules.aoristos.combat.vigilance import default_vigilance, vigilance_bonus, vigilance_options
from rules.aoristos.combat.wounds import SURVIVAL_HAND
from rules.aoristos.dice import Hand, Purpose, choose_counted, distribution, parse_hand
from rules.aoristos.success import test_hand
from rules.combat_kit import pairs_get
from rules.story import Story, Tally, fold, percentile_in

SPENDING = {  # event -> what its KP were spent on
    E.Moved: "move",
    E.PostureChanged: "posture",
    E.Reloaded: "reload",
    E.RangeAimed: "range_aim",
    E.AttackDeclared: "attack",
    E.EscapeTested: "move",
}


def tell(engine, initial_state, records) -> Story:
    reader = Reader()
    final = fold(engine, initial_state, records, reader.read, reader.tally)
    return reader.tally.story("aoristos", final, damage_unit="damage", points_unit="KP")


def preview_chance(state, declared: E.AttackDeclared) -> Fraction:
    """The chance to hit that `view.attack_preview` shows for the attack `declared` makes,
    with `state` the encounter just before it: its `outcome.odds` against the target's
    suggested vigilance, on the declaration folded in at no cost."""
    probe = evolve(state, replace(declared, cost=0))
    pending = probe.attack
    target = probe.get(pending.target)
    if target.aware and target.acts:
        bonus = vigilance_bonus(probe, target)[1]
        chosen = default_vigilance(vigilance_options(probe, pending), bonus)
    else:
        chosen = ()
    return odds(attack_setup(probe, pending, chosen)).p_hit


def roll_luck(hand: Hand, dice, purpose: Purpose = Purpose.TEST, *, high_is_lucky=True):
    """The percentile of `dice` rolled for `hand` (the dice that count, as `roll` counts
    them, and the hand's modifier)."""
    result = sum(choose_counted(hand, tuple(dice), purpose)) + hand.modifier
    return percentile_in(distribution(hand, purpose), result, high_is_lucky=high_is_lucky)


class Reader:
    """Reads one event at a time, with the encounter just before it, into a `Tally`."""

    def __init__(self) -> None:
        self.tally = Tally()
        self.chance: Fraction = Fraction(0)  # the declared attack's preview chance
        self.answered: Fraction = Fraction(0)  # its chance once the vigilance is chosen
        self.missed: E.AttackResolved | None = None  # the miss just resolved (a parry)

    def read(self, state, event) -> None:
        tally = self.tally
        kind = type(event)
        missed, self.missed = self.missed, None
        what = SPENDING.get(kind)
        if what is not None:
            cid = event.mover if kind is E.EscapeTested else getattr(event, "attacker", None)
            self.spend(state, cid or event.id, what, event.cost)
        if kind is E.CombatStarted:
            surprise = state.surprise
            for cid, dice, _bonus in event.rolls:
                hand = parse_hand(pairs_get(surprise, state.get(cid).side))
                tally.rolled(cid, roll_luck(hand, dice))
        elif kind is E.ActivationStarted:
            c = state.get(event.id)
            luck = roll_luck(F.stress_hand(), event.dice, F.STRESS_PURPOSE, high_is_lucky=False)
            tally.rolled(c.id, luck)
            if event.bow_test is not None:
                bow = test_hand(nerve_shock=c.nerve_shock)
                tally.rolled(c.id, roll_luck(bow, event.bow_test[0]))
        elif kind in (E.KpSpent, E.HandsChanged):
            self.spend(state, event.id, event.action, event.cost)
        elif kind is E.WoundUp:
            self.spend(state, event.id, "abort_windup" if event.aborted else "windup", event.cost)
        elif kind is E.OverwatchStarted:
            self.spend(state, event.id, "overwatch", 1)  # the fold's 1 KP (p. 11)
        elif kind is E.ExtendedStarted:
            tally.spent(event.id, event.label, event.paid)
        elif kind is E.ExtendedPaid:
            tally.spent(event.id, state.get(event.id).extended.label, event.paid)
        elif kind is E.Scanned:
            hand = test_hand(nerve_shock=state.get(event.id).nerve_shock)
            for _cid, dice, _total, _st, _ok in event.tests:
                tally.rolled(event.id, roll_luck(hand, dice))
        elif kind is E.ReactionDone and event.test is not None:
            hand = test_hand(nerve_shock=state.get(event.who).nerve_shock)
            tally.rolled(event.who, roll_luck(hand, event.test[0]))
        elif kind is E.EscapeTested:
            mover = state.get(event.mover)
            tally.rolled(
                mover.id, roll_luck(test_hand(nerve_shock=mover.nerve_shock), event.mover_dice)
            )
            near = [state.get(cid) for cid in event.foes]
            representative = max(near, key=lambda o: o.agility)  # as movement.escape_test
            tally.rolled(
                representative.id,
                roll_luck(test_hand(nerve_shock=representative.nerve_shock), event.foes_dice),
            )
        elif kind is E.AttackDeclared:
            self.chance = preview_chance(state, event)
        elif kind is E.VigilanceChosen:
            attack = state.attack
            setup = attack_setup(state, attack, event.properties, event.threshold)
            self.answered = hit_chance(setup)
        elif kind is E.AttackRolled:
            tally.attack(event.attacker, chance=self.chance, answered=self.answered, hit=event.hit)
            hand = parse_hand(event.hand)
            tally.rolled(event.attacker, roll_luck(hand, event.dice))
        elif kind is E.AttackResolved:
            if event.hit:
                tally.dealt(event.attacker, event.damage)
            else:
                self.missed = event
        elif kind is E.Wounded:
            tally.taken(event.id, event.damage)
            if (
                missed is not None
                and missed.attacker == event.id
                and event.source.startswith("parry ")
            ):
                tally.dealt(missed.target, event.damage)
            c = state.get(event.id)
            if event.survival is not None:
                tally.rolled(c.id, roll_luck(SURVIVAL_HAND, event.survival[0]))
            pain = test_hand(nerve_shock=c.nerve_shock + event.nerve_shock)
            for dice, _total, _st, _ok in event.vil_tests:
                tally.rolled(c.id, roll_luck(pain, dice))

    def spend(self, state, cid: str, what: str, cost: int) -> None:
        """KP off `cid` as the fold takes them (never below 0)."""
        self.tally.spent(cid, what, min(cost, max(0, state.get(cid).cp)))
