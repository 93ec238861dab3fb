"""The story of a T10 fight in numbers (issue 29; `rules.story`), read from its events
(t10-ap-utdrag.txt p. 1-2 of the excerpt: "Färdighetsslag", "Action points",
"Utmattning och skada", "Kroppsskydd", "Vapen").

* **Attacks**: one per attack roll ("anfallsslag": E lets one roll, A two, "Vapen" 2),
  each with its own chance and its own hit, so hits never exceed attacks. An explosive
  against a target in cover rolls nothing and cannot hit (our reading, `engine`): it
  counts as its mode's attack rolls, each with chance 0. A declared attack that was lost
  (`AttackLost`: its attacker down or its target dead before it was made) rolled nothing
  and is not counted. **A hit** is a roll of 11 or more ("Är resultatet 11 eller mer så
  har man lyckats").
* **Expected** (`expected_hits`): the preview's chance per roll (`view.attack_preview`'s
  ``p_hit``): `rolls.test_odds` of the bonus `attacks.attack_parts` gives for the attack's
  weapon, mode, range band and the GM's modifier, on the encounter just before the
  attack was declared (`AttackDeclared`; for a reaction's attack, which has no
  declaration, just before its roll); 0 for an explosive against cover, as the preview.
  `expected_hits_answered`: `test_odds` of the bonus the roll was made with
  (`AttackRolled.parts`): the reactions of those with saved AP that went before it (a
  dive into cover, "Spara action points") are in it.
* **Damage**: Skada, what passes the Kroppsskydd ("Kroppsskydd": the Utmattning the hit
  also adds is not counted). Dealt: each `Damaged` whose source is the combatant; taken:
  every `Damaged` (the GM's too).
* **Points** (`kp_spent`): AP ("Action points"), by the action they paid for (the
  command's name: "attack", "move", "stance", "reload", "recover", ...), saved AP spent
  on a reaction included, an action paid across rounds as its parts are paid.
* **Luck** (`rules.story.percentile`): each attack roll, skill roll and Sjukvård roll
  under 2T10 (the dice's sum; high is lucky), and each initiative die, 1T10 (high is
  lucky), the rerolls of ties included ("Initiativ"). Damage has no dice.
"""

from fractions import Fraction

from rules.story import Story, Tally, fold, percentile_in
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.combat.attacks import attack_parts, range_band
from rules.t10.combat.reading import bonus_of
from rules.t10.combat.rounds import INITIATIVE_DIE
from rules.t10.rolls import sum_distribution, test_odds

INITIATIVE = {face: Fraction(1, INITIATIVE_DIE) for face in range(1, INITIATIVE_DIE + 1)}


def tell(engine, initial_state, records) -> Story:
    reader = Reader()
    final = fold(engine, initial_state, records, reader.read, reader.tally)
    return reader.tally.story("t10", final, damage_unit="skada", points_unit="AP")


def preview_chance(
    state, attacker: str, target: str, weapon: str, mode: str, distance: float, modifier: int
) -> Fraction:
    """The chance per roll that `view.attack_preview` shows for this attack in `state`."""
    c = state.get(attacker)
    aimed = state.get(target)
    arm = c.weapon(weapon)
    if arm.explosive and aimed.in_cover:
        return Fraction(0)
    parts = attack_parts(state, c, aimed, arm, mode, range_band(arm, distance), modifier)
    return test_odds(bonus_of(parts)).success


def outcome_luck(outcome) -> Fraction:
    return percentile_in(sum_distribution(), sum(outcome.dice), high_is_lucky=True)


class Reader:
    """Reads one event at a time, with the encounter just before it, into a `Tally`."""

    def __init__(self) -> None:
        self.tally = Tally()
        self.declared: dict[str, Fraction] = {}  # attacker -> its declared attack's chance

    def read(self, state, event) -> None:
        tally = self.tally
        kind = type(event)
        if kind is E.InitiativeRolled:
            for cid, dice in event.rolls:
                c = state.get(cid)
                before = () if event.reason == "react" or c is None else c.rolls
                for die in dice[len(before) :]:
                    tally.rolled(cid, percentile_in(INITIATIVE, die, high_is_lucky=True))
        elif kind is E.APSpent:
            tally.spent(event.id, event.action, event.ap + event.saved)
        elif kind in (E.ActionBegun, E.BegunContinued):
            tally.spent(event.id, C.COMMAND_NAMES[type(event.command)], event.paid)
        elif kind is E.AttackDeclared:
            self.declared[event.attacker] = preview_chance(
                state,
                event.attacker,
                event.target,
                event.weapon,
                event.mode,
                event.distance,
                event.modifier,
            )
        elif kind is E.AttackLost:
            self.declared.pop(event.attacker, None)
        elif kind is E.AttackRolled:
            self.attack(state, event)
        elif kind is E.Damaged:
            tally.taken(event.id, event.damage)
            if event.source:
                tally.dealt(event.source, event.damage)
        elif kind in (E.SkillRolled, E.Treated):
            tally.rolled(event.id, outcome_luck(event.outcome))

    def attack(self, state, event: E.AttackRolled) -> None:
        tally = self.tally
        if event.reaction or event.attacker not in self.declared:
            chance = preview_chance(
                state,
                event.attacker,
                event.target,
                event.weapon,
                event.mode,
                event.distance,
                modifier_of(event.parts),
            )
        else:
            chance = self.declared.pop(event.attacker)
        if event.covered:
            for _roll in range(1 if event.mode == "E" else 2):
                tally.attack(event.attacker, chance=chance, answered=Fraction(0), hit=False)
            return
        answered = test_odds(bonus_of(event.parts)).success
        for outcome in event.rolls:
            tally.attack(event.attacker, chance=chance, answered=answered, hit=outcome.success)
            tally.rolled(event.attacker, outcome_luck(outcome))


def modifier_of(parts) -> int:
    """The GM's modifier of an attack (its "attack_gm" part, `attacks.attack_parts`)."""
    return sum(value for key, value in parts if key == "attack_gm")
