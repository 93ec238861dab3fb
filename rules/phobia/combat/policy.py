"""The default policy of a simulated Phobia fight (`rules.simulation`, issue 29): what every
combatant does when it must decide, written down so a GM can judge the result.

1. **A new round** (lines 613-640): when nobody's turn is left, the GM starts the next.
2. **An attack's target answers** (lines 700-760): against a melee attack it defends;
   against a ranged one it shoots back when it holds a ranged weapon (at the chest), else
   seeks cover. A defence is a response, and every action after a response is +Ob1T6
   (lines 680-682): one whose own attack is still to come this round defends only when
   the defence spares it at least as much as it costs that attack, each reckoned as the
   chance to hit (exact odds, `success.outcome_distribution`; the attack against the
   foe's defence in melee) times the weapon's Skadevärde (`defence_pays`); else it lets
   the attack come (a weak attacker's blow is seldom worth its own). When the rules
   allow none of these (checked up to the first die, `combat_kit.refused_before_dice`:
   Phobia's handlers refuse before they roll, so it answers as `view.refusal` does,
   without resolving the attack) it lets the attack come.
3. **Flees when wounded** (the GM marks it): on its first turn with Trauma it leaves the
   fight (counted "fled"; Phobia's own Fly answer only keeps one out of one round).
4. **Its turn**: it declares one action, or two when it fights in melee and stands more
   than 2 m from its target (a move, then the attack; each action beyond the first adds
   +Ob1T6, lines 641-660). Its target is the nearest foe who can still act (the lower id
   on a tie). It moves toward the target to 1 m from it, as far as its Förflyttning
   allows, and attacks with the ranged weapon in hand, else its best melee weapon by
   skill, at the chest when the attacker names the area (the house rule's default).
   Phobia's attacks do not read distance, so a shooter never moves.
5. Otherwise it **ends its turn**.
"""

import math
from functools import lru_cache

from rules.combat_kit import refused_before_dice
from rules.phobia.combat import commands as C
from rules.phobia.combat import engine as X
from rules.phobia.combat.attacks import (
    DEFEND_DIFFICULTY,
    attack_parts,
    defend_skill,
    response_parts,
)
from rules.phobia.combat.reading import difficulty_of
from rules.phobia.combat.rounds import queue
from rules.phobia.combat.state import Combatant, Encounter
from rules.phobia.success import odds, outcome_distribution
from rules.simulation import Fate

AREA = "chest"  # the area a policy attack names (the attacker chooses, lines 668-680)
CLOSE_TO = 1.0
MELEE = 2.0  # metres within which a melee attack needs no move first (lines 261-271)


def start_command(state: Encounter):
    return C.StartRound() if state.round == 0 else None


# Who can act: the combatant's own `acts`, its getter itself (the play's loop asks it of
# every combatant before every command: one call, not a function calling a property).
can_act = Combatant.acts.fget


LIMBS = ("arm", "leg")  # the table's limb areas (lines 969-975, 998-1004)


def fate(c: Combatant) -> Fate:
    """Phobia's serious injuries and losses count as wounds. A limb is broken when a
    serious injury to an arm or a leg broke its bone (a failed Bryt+N! check, lines
    970 and 999: the fold keeps it as the loss "broken:arm" or "broken:leg"). The text's
    table takes no limb (Permanent! lowers attributes, lines 918-932), so none is ever
    destroyed."""
    return Fate(
        wounded=c.trauma > 0 or bool(c.injuries),
        limb_broken=any(
            what.startswith("broken:") and what.removeprefix("broken:") in LIMBS and lost > 0
            for what, lost in c.losses
        ),
        unconscious=c.alive and not c.conscious,
        dead=not c.alive,
    )


def next_command(state: Encounter, plan, fight):
    if state.pending is not None:
        return _answer(state, state.pending)
    if state.active is None:
        return C.StartRound()
    c = state.get(state.active)
    if c.id in fight.fled:
        return C.EndTurn(c.id)
    if c.id in plan.flees and fate(c).wounded:
        fight.fled.add(c.id)
        return C.EndTurn(c.id)
    foes = [o for o in state.combatants if o.side != c.side and o.acts and o.id not in fight.fled]
    if not foes:
        return C.EndTurn(c.id)
    target = min(foes, key=lambda o: (gap(c, o), o.id))
    weapon = _weapon(c)
    far = weapon is not None and not weapon.ranged and gap(c, target) > MELEE
    if c.declared is None:
        return _first_allowed(state, (C.Declare(c.id, 2 if far else 1),)) or C.EndTurn(c.id)
    if c.actives >= c.declared or weapon is None:
        return C.EndTurn(c.id)
    tries = []
    if far and c.actives == 0 and c.declared >= 2:
        distance = gap(c, target)
        go = min(distance - CLOSE_TO, c.movement)
        tries.append(C.Move(c.id, x=round(c.x + (target.x - c.x) / distance * go, 2),
                            y=round(c.y + (target.y - c.y) / distance * go, 2)))  # fmt: skip
    area = AREA if state.house.hit_location == "attacker" else None
    tries.append(C.Attack(c.id, target.id, weapon.key, area=area))
    return _first_allowed(state, tries) or C.EndTurn(c.id)


def _answer(state: Encounter, pending):
    target = state.get(pending.target)
    weapon = state.get(pending.attacker).weapon(pending.weapon)
    if weapon is not None and weapon.ranged:
        held = [k for k in target.in_hand if (w := target.weapon(k)) and w.ranged]
        tries = [C.Respond(target.id, "shoot_back", weapon=k, area=AREA) for k in held]
        tries.append(C.Respond(target.id, "cover"))
    elif defence_pays(state, pending):
        tries = [C.Respond(target.id, "defend")]
    else:
        tries = []
    return _first_allowed(state, tries) or C.Pass(target.id)


def defence_pays(state: Encounter, pending) -> bool:
    """Whether the target of the melee attack `pending` should defend (Försvara sig, lines
    794-797). Free when its own attack this round is done (or it takes no turn): always.
    Else the defence makes that attack +Ob1T6 (lines 680-682), so it defends only when
    what it spares (the chance the attack hits undefended, less against the defence,
    times the attacker's Skadevärde) is at least what it costs (its own chance to hit its
    target, less with one more die, times its weapon's Skadevärde)."""
    target = state.get(pending.target)
    attacker = state.get(pending.attacker)
    weapon = attacker.weapon(pending.weapon)
    own = _weapon(target)
    if own is None or not _attack_to_come(state, target):
        return True
    attack = (difficulty_of(pending.parts), attacker.value(weapon.skill))
    guard = _defence(state, target)
    spared = (hit_chance(*attack) - hit_chance(*attack, *guard)) * weapon.damage
    foes = [o for o in state.combatants if o.side != target.side and o.acts]
    foe = min(foes, key=lambda o: (gap(target, o), o.id))
    dice = difficulty_of(attack_parts(state, target, False)) + (
        1 if not own.ranged and gap(target, foe) > MELEE else 0  # a move first: two actions
    )
    against = () if own.ranged else _defence(state, foe)
    chance = target.value(own.skill)
    cost = hit_chance(dice, chance, *against) - hit_chance(dice + 1, chance, *against)
    return spared >= cost * own.damage


def _attack_to_come(state: Encounter, c: Combatant) -> bool:
    """Whether `c` still takes a turn this round with an active action left in it."""
    if c.declared is not None and c.actives >= c.declared:
        return False
    return any(o.id == c.id for o in queue(state))


def _defence(state: Encounter, c: Combatant) -> tuple[int, int]:
    """The dice and the chance of `c`'s defence if it defended now."""
    skill = defend_skill(c, "")
    return difficulty_of(response_parts(state, c, DEFEND_DIFFICULTY)), c.value(skill)


@lru_cache(maxsize=4096)
def hit_chance(
    dice: int, chance: int, guard_dice: int | None = None, guard_chance: int = 0
) -> float:
    """The chance that an attack of Ob`dice`T6 against `chance` hits: its test succeeds
    (lines 40-45, 430-440); against a defence, it also wins the opposed test (lines
    556-578, ties rolled again). The defended case counts a perfect pattern's success
    above the chance as a miss (it seldom wins; a judgment, not the rules)."""
    dice, guard_dice = min(dice, 20), None if guard_dice is None else min(guard_dice, 20)
    if guard_dice is None:
        return float(odds(dice, chance).success)
    mine = outcome_distribution(dice, chance).outcomes
    theirs = sorted(outcome_distribution(guard_dice, guard_chance).outcomes.items())
    won = tied = 0.0
    for key, p in mine.items():
        rank, effect = key
        if rank == 0 or (rank == 1 and effect < 0):
            continue  # a failure (or a success above the chance: see above)
        below = sum(float(q) for k, q in theirs if k < key)
        won += float(p) * below
        tied += float(p) * sum(float(q) for k, q in theirs if k == key)
    return won / (1 - tied) if tied < 1 else 0.0


def _weapon(c: Combatant):
    """The ranged weapon in hand, else the melee weapon it is best with."""
    for key in c.in_hand:
        weapon = c.weapon(key)
        if weapon is not None and weapon.ranged:
            return weapon
    melee = [w for w in c.weapons if not w.ranged]
    return max(melee, key=lambda w: (c.value(w.skill), w.key), default=None)


def _first_allowed(state: Encounter, commands):
    for command in commands:
        if refused_before_dice(X.decide, state, command) is None:
            return command
    return None


def gap(c: Combatant, other: Combatant) -> float:
    return math.hypot(c.x - other.x, c.y - other.y)
