"""Attacks and the responses to them (phobia-utdrag.txt lines 663-804): an attack's
difficulty (lines 651-658, 681-691), aim and shoot (lines 733-743), the responses
(Responshandlingar, lines 663-694: Skjuta tillbaka, Söka skydd, Försvara sig, Fly, lines
769-804) and their difficulty (lines 673-683), the attack carried out with a defence as an
active opposition (lines 556-578), the area (the house rule), the hit (`damage`), then the
responses in falling TO (lines 693-703). The readings are in `engine`'s docstring.

Commands: Attack, Respond, Pass.
"""

from rules.combat_kit import combatant, refuse, require_open
from rules.errors import gettext_noop as _
from rules.phobia.combat import commands as C
from rules.phobia.combat import events as E
from rules.phobia.combat.damage import wound_event
from rules.phobia.combat.fold import evolve
from rules.phobia.combat.reading import common_parts, require_action_left, require_turn, roll_test
from rules.phobia.combat.rounds import order_key
from rules.phobia.combat.state import Combatant, Encounter, Response
from rules.phobia.dice import roll
from rules.phobia.injuries import INJURY_DIE
from rules.phobia.success import opposed
from rules.table_dice import dice_of

DEFEND_DIFFICULTY = 3  # reading: a normal test (Ob3T6, table 1)
COVER_SKILL = ("combat_experience", 2)  # line 786: lätt (Ob2T6) against Stridsvana
COVER_ATTRIBUTE = ("agility", 4)  # line 787: svårt (Ob4T6) against RÖR without Stridsvana
MAX_OPPOSED = 10  # equal effects roll again (line 563); a bound on the rerolls
# House rule "random" hit location: 1T10 (not the text's; it gives none).
HIT_TABLE = {
    1: "skull",
    2: "face",
    3: "neck",
    4: "chest",
    5: "belly",
    6: "groin",
    7: "arm",
    8: "arm",
    9: "leg",
    10: "leg",
}


def attack_parts(state: Encounter, c: Combatant, aim_bonus: bool) -> tuple[tuple[str, int], ...]:
    """An active attack's difficulty: the base, +Ob1T6 per action beyond the first (the
    declared ones and the responses made, lines 651-658, 681-691), −Ob1T6 for an aimed
    shot that kept its aim (lines 738, 742-743), and the common parts. Not declared yet
    (a preview): as one action."""
    parts = [("base", state.house.attack_difficulty)]
    extra = max(c.declared or 0, 1) + c.responses - 1
    if extra > 0:
        parts.append(("actions", extra))
    if aim_bonus:
        parts.append(("aim", -1))
    return tuple(parts + common_parts(state, c))


def response_parts(state: Encounter, c: Combatant, base: int) -> tuple[tuple[str, int], ...]:
    """A response's difficulty: its base, +Ob1T6 per action made earlier this round
    (lines 673-677), and the common parts."""
    parts = [("base", base)]
    if c.actions_done:
        parts.append(("response", c.actions_done))
    return tuple(parts + common_parts(state, c))


def defend_skill(c: Combatant, named: str) -> str:
    if named:
        return named
    for key in c.in_hand:
        weapon = c.weapon(key)
        if weapon is not None and not weapon.ranged:
            return weapon.skill
    return "combat_experience"


def shoot_back_weapon(c: Combatant, named: str):
    keys = (named,) if named else c.in_hand
    for key in keys:
        weapon = c.weapon(key)
        if weapon is not None and weapon.ranged and key in c.in_hand:
            return weapon
    return None


def attack_events(
    state: Encounter,
    attacker: Combatant,
    target: Combatant,
    weapon,
    parts,
    area: str | None,
    rng,
    *,
    defence: Response | None = None,
    response: bool = False,
) -> list:
    """The attack test (with the defence, if any), the area and the hit."""
    tests, defences = [], []
    chance = attacker.value(weapon.skill)
    hit = False
    for _round in range(MAX_OPPOSED):
        test, outcome = roll_test(dice_of(rng, attacker.id, "attack"), weapon.skill, chance, parts)
        tests.append(test)
        if defence is None:
            hit = test.success
            break
        guard, guarded = roll_test(dice_of(rng, target.id, "defence"), defence.skill,
                                   target.value(defence.skill), defence.parts)
        defences.append(guard)
        if not test.success:
            break
        won = opposed(outcome, guarded)
        if won:
            hit = won > 0
            break
    area_roll = None
    if hit and (area is None or state.house.hit_location == "random"):  # house rule
        area_roll = roll(INJURY_DIE, dice_of(rng, attacker.id, "area")).result
        area = HIT_TABLE[area_roll]
    rolled = E.AttackRolled(
        attacker=attacker.id,
        target=target.id,
        weapon=weapon.key,
        tests=tuple(tests),
        defences=tuple(defences),
        hit=hit,
        area=area if hit else None,
        area_roll=area_roll,
        response=response,
    )
    out = [rolled]
    if hit:
        out.append(
            wound_event(
                state,
                target,
                area=area,
                damage_type=weapon.damage_type,
                dice=weapon.damage,
                rng=rng,
                source=attacker.id,
                weapon=weapon.name,
            )
        )
    return out


def declare_attack(
    state: Encounter, c: Combatant, target: Combatant, weapon, area, aimed: bool, rng
) -> list:
    declared = E.AttackDeclared(
        attacker=c.id,
        target=target.id,
        weapon=weapon.key,
        area=area,
        aimed=aimed,
        parts=attack_parts(state, c, aimed and c.aim is not None and not c.aim.lost),
    )
    after = evolve(state, declared)
    if target.acts:
        return [declared]  # the responses come first (lines 693-701)
    return [declared, *resolve(after, rng)]


def resolve(state: Encounter, rng, passed: bool = False) -> list:
    """The pending attack carried out, then the responses in falling TO (lines 693-703;
    a defence goes with the attack, lines 798-799)."""
    pending = state.pending
    out: list = [E.Answered(pending.target, passed)]
    state = evolve(state, out[0])
    attacker = combatant(state, pending.attacker)
    target = combatant(state, pending.target)
    weapon = attacker.weapon(pending.weapon)
    defence = next((r for r in pending.responses if r.kind == "defend"), None)
    for event in attack_events(
        state, attacker, target, weapon, pending.parts, pending.area, rng, defence=defence
    ):
        out.append(event)
        state = evolve(state, event)
    others = [r for r in pending.responses if r.kind != "defend"]
    others.sort(key=lambda r: order_key(state, combatant(state, r.id)))
    for r in others:
        c = combatant(state, r.id)
        foe = combatant(state, pending.attacker)
        if not c.acts or (r.kind == "shoot_back" and not foe.alive):
            events = [E.ResponseLost(c.id, r.kind)]
        elif r.kind == "cover":
            test, _outcome = roll_test(dice_of(rng, c.id, "cover"), r.skill, c.value(r.skill),
                                       r.parts)
            events = [E.CoverSought(c.id, test)]
        elif r.kind == "flee":
            events = [E.Fled(c.id)]
        else:
            events = attack_events(
                state, c, foe, c.weapon(r.weapon), r.parts, r.area, rng, response=True
            )
        for event in events:
            out.append(event)
            state = evolve(state, event)
    return out


def _attack(state: Encounter, cmd: C.Attack, rng):
    c = require_turn(state, cmd.id)
    require_action_left(c)
    target = combatant(state, cmd.target)
    if target.id == c.id:
        refuse(_("one does not attack oneself"), "self")
    if not target.alive:
        refuse(_("{name} is dead"), "dead", name=target.name)
    weapon = c.weapon(cmd.weapon)
    if weapon is None:
        refuse(_("{name} has no weapon {weapon!r}"), "bad_field", name=c.name, weapon=cmd.weapon)
    area = cmd.area
    if state.house.hit_location == "attacker" and area is None:
        refuse(_("name the area the attack is aimed at"), "bad_field", field="area")
    if state.house.hit_location == "random":
        area = None
    if cmd.aim:
        if not weapon.ranged:
            refuse(_("only a ranged weapon aims"), "melee_aim")
        if c.declared != 1 or c.actives or c.interrupting is not None:
            refuse(_("aiming leaves no other action: declare one action"), "aim_alone")
        if c.current_to // 2 <= 0:
            refuse(_("half of {name}'s TO is 0: no aimed shot"), "aim_to", name=c.name)
        return [E.AimTaken(c.id, target.id, weapon.key, area, c.current_to // 2)]
    return declare_attack(state, c, target, weapon, area, False, rng)


def _respond(state: Encounter, cmd: C.Respond, rng):
    require_open(state)
    pending = state.pending
    if pending is None:
        refuse(_("there is no attack to respond to"), "no_attack")
    c = combatant(state, cmd.id)
    if not c.acts:
        refuse(_("{name} cannot act"), "down", name=c.name)
    if c.id == pending.attacker:
        refuse(_("one does not respond to one's own action"), "self")
    if any(r.id == c.id for r in pending.responses):
        refuse(_("one response per active action"), "responded")
    if c.move_mode in ("run", "sprint"):
        refuse(_("running leaves no other action this round"), "running")
    attacker = combatant(state, pending.attacker)
    skill, weapon_key = "", ""
    if cmd.kind == "defend":
        if c.id != pending.target or attacker.weapon(pending.weapon).ranged:
            refuse(_("one defends only against a melee attack on oneself"), "defend")
        skill = defend_skill(c, cmd.skill)
        base = DEFEND_DIFFICULTY
    elif cmd.kind == "cover":
        skill, base = COVER_SKILL if c.value("combat_experience") > 0 else COVER_ATTRIBUTE
    elif cmd.kind == "flee":
        if c.actives:
            refuse(_("one flees only before any active action"), "flee")
        base = 0
    else:
        weapon = shoot_back_weapon(c, cmd.weapon)
        if weapon is None:
            refuse(_("shooting back needs a ranged weapon ready"), "shoot_back")
        if state.house.hit_location == "attacker" and cmd.area is None:
            refuse(_("name the area the attack is aimed at"), "bad_field", field="area")
        skill, weapon_key, base = weapon.skill, weapon.key, state.house.attack_difficulty
    area = cmd.area if cmd.kind == "shoot_back" and state.house.hit_location != "random" else None
    declared = E.ResponseDeclared(
        c.id, cmd.kind, skill, weapon_key, response_parts(state, c, base), area
    )
    if c.id != pending.target:
        return [declared]
    return [declared, *resolve(evolve(state, declared), rng)]


def _pass(state: Encounter, cmd: C.Pass, rng):
    require_open(state)
    pending = state.pending
    if pending is None:
        refuse(_("there is no attack to respond to"), "no_attack")
    if cmd.id != pending.target:
        refuse(_("only the target answers the attack"), "not_target")
    return resolve(state, rng, passed=True)


HANDLERS = {C.Attack: _attack, C.Respond: _respond, C.Pass: _pass}
