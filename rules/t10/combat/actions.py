"""Actions and their AP (t10-ap-utdrag.txt "Action points", "Handlingar som går över
flera rundor", "Spara action points", "Ställningar", "Vapen"): what each action costs and
whether it may be made now (in one's turn, begun across rounds, or out of turn with saved
AP), what it does (attack, move, cover, stance, fire mode, reload, medical care,
painkillers, lowering Utmattning, another roll), a begun action paid off at the turn's
start, and the reactions to an attack: several in the order of a new initiative roll,
then the attack. The readings are in `engine`'s docstring ("Action points", "Actions over
several rounds", "Reactions", "Other rolls", "Stances").

Commands: every action (`commands.ACTIONS`) and Pass.
"""

from rules.combat_kit import combatant, out_of_range, refuse, require_open
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.combat.attacks import attack_events, check_attack
from rules.t10.combat.fold import evolve, fold
from rules.t10.combat.reading import (
    bonus_of,
    check_modifier,
    common_parts,
    move_cost,
    move_metres,
    require_running,
    roll_bonus,
    weapon_of,
)
from rules.t10.combat.rounds import dice_key, ordered, tie_rolls
from rules.t10.combat.state import STANCES, Combatant, Encounter, Reaction
from rules.t10.rolls import roll_2t10
from rules.table_dice import dice_of

MODE_SWITCH_AP = 2  # "Att byta eldgivningssätt kostar 2 AP"
OTHER_STANCE = {"normal": 0, "ready": -2, "aimed": -4}
MEDICINE = "medicine"  # Sjukvård
DIVISIBLE = (C.Move, C.Recover)  # paid per metre or point: never begun


def other_parts(c: Combatant, skill: str, modifier: int = 0) -> tuple[tuple[str, int], ...]:
    """Another roll's bonus: the skill, the stance's modifier on other rolls, Utmattning,
    the GM's."""
    parts = [("skill", roll_bonus(c, skill))]
    if OTHER_STANCE[c.stance]:
        parts.append(("stance", OTHER_STANCE[c.stance]))
    parts += common_parts(c)
    if modifier:
        parts.append(("roll_gm", modifier))
    return tuple(parts)


def stance_plan(c: Combatant, cmd: C.Stance) -> tuple[int, str, int]:
    """(cost, weapon key, steps) of a change of stance: up one step at a time, each paid;
    down paid once ("Ställningar"). Another weapon is taken up from Normal."""
    key = cmd.weapon or c.wielded
    if key is None:
        refuse(_("{name} has no weapon to change stance with"), "no_weapon", name=c.name)
    weapon = weapon_of(c, key)
    if key != c.wielded and c.stance != "normal":
        refuse(
            _("{name} must lower {weapon} to Normal first"),
            "lower_first",
            name=c.name,
            weapon=weapon_of(c, c.wielded).name,
        )
    now, then = STANCES.index(c.stance), STANCES.index(cmd.stance)
    if then > now:
        steps = then - now
        return steps * weapon.stance_ap, key, steps
    if then < now:
        return weapon.stance_ap, key, 1
    if key == c.wielded:
        refuse(_("{name} is in that stance already"), "same_stance", name=c.name)
    return 0, key, 0


def check_action(state: Encounter, c: Combatant, cmd) -> int:
    """An action's AP cost, or a refusal of why it cannot be made now."""
    house = state.house
    if isinstance(cmd, C.Attack):
        return check_attack(state, c, cmd)
    if isinstance(cmd, C.Move):
        return move_cost(move_metres(c, cmd), house.metres_per_ap)
    if isinstance(cmd, C.Cover):
        if c.in_cover:
            refuse(_("{name} is in cover already"), "in_cover", name=c.name)
        return house.cover_ap
    if isinstance(cmd, C.Stance):
        return stance_plan(c, cmd)[0]
    if isinstance(cmd, C.FireMode):
        weapon = weapon_of(c, cmd.weapon)
        if weapon.modifier(cmd.mode) is None:
            refuse(_("{weapon} does not fire {mode}"), "mode", weapon=weapon.name, mode=cmd.mode)
        if c.mode_of(weapon) == cmd.mode:
            refuse(_("{weapon} fires {mode} already"), "mode", weapon=weapon.name, mode=cmd.mode)
        return MODE_SWITCH_AP
    if isinstance(cmd, C.Reload):
        weapon = weapon_of(c, cmd.weapon)
        if not weapon.magazine:
            refuse(_("{weapon}'s ammunition is not counted"), "not_counted", weapon=weapon.name)
        if c.ammo_of(weapon) >= weapon.magazine:
            refuse(_("{weapon} is fully loaded"), "loaded", weapon=weapon.name)
        return weapon.reload_ap
    if isinstance(cmd, C.Treat):
        target = combatant(state, cmd.target)
        if not target.alive:
            refuse(_("{name} is dead"), "dead", name=target.name)
        if not target.damage:
            refuse(_("{name} has no Skada to treat"), "unhurt", name=target.name)
        return house.treat_ap
    if isinstance(cmd, C.Painkillers):
        target = combatant(state, cmd.target or c.id)
        if not target.alive:
            refuse(_("{name} is dead"), "dead", name=target.name)
        if target.painkillers:
            refuse(_("{name} has had painkillers already"), "painkillers", name=target.name)
        return house.painkiller_ap
    if isinstance(cmd, C.Recover):
        if not 1 <= cmd.points <= C.MAX_AP:
            out_of_range("points", 1, C.MAX_AP)
        if c.fatigue - cmd.points < c.fatigue_floor:
            refuse(
                _("{name}'s Utmattning falls no lower than {floor} (Skada) without painkillers"),
                "fatigue_floor",
                name=c.name,
                floor=c.fatigue_floor,
            )
        return cmd.points
    if isinstance(cmd, C.SkillRoll):
        check_modifier(cmd.modifier)
        if not 0 <= cmd.ap <= C.MAX_AP:
            out_of_range("ap", 0, C.MAX_AP)
        return cmd.ap
    if isinstance(cmd, C.Act):
        if not cmd.label:
            refuse(_("say what the action is"), "bad_field", field="label")
        if not 1 <= cmd.ap <= C.MAX_AP:
            out_of_range("ap", 1, C.MAX_AP)
        return cmd.ap
    refuse(_("unknown command {command}"), "unknown_command", command=type(cmd).__name__)


def perform(state: Encounter, c: Combatant, cmd, rng, *, reacting: bool = False) -> list:
    """An action's effect (its AP paid already)."""
    if isinstance(cmd, C.Attack):
        target = combatant(state, cmd.target)
        weapon = c.weapon(cmd.weapon)
        mode = c.mode_of(weapon)
        if reacting:
            return attack_events(
                state, c, target, weapon, mode, cmd.distance, cmd.modifier, rng, reaction=True
            )
        waiting = tuple(
            o.id for o in ordered(state) if o.id != c.id and o.acts and o.saved > 0
        )
        declared = E.AttackDeclared(
            c.id, target.id, weapon.key, mode, cmd.distance, cmd.modifier, waiting
        )
        if waiting:
            return [declared]
        return [declared, *resolve_pending(evolve(state, declared), rng)]
    if isinstance(cmd, C.Move):
        return [E.Moved(c.id, move_metres(c, cmd), cmd.x, cmd.y)]  # x, y None: metres only
    if isinstance(cmd, C.Cover):
        return [E.CoverTaken(c.id)]
    if isinstance(cmd, C.Stance):
        _cost, key, steps = stance_plan(c, cmd)
        return [E.StanceChanged(c.id, cmd.stance, key, steps)]
    if isinstance(cmd, C.FireMode):
        return [E.ModeChanged(c.id, cmd.weapon, cmd.mode)]
    if isinstance(cmd, C.Reload):
        return [E.Reloaded(c.id, cmd.weapon, c.weapon(cmd.weapon).magazine)]
    if isinstance(cmd, C.Treat):
        target = combatant(state, cmd.target)
        parts = other_parts(c, MEDICINE)
        outcome = roll_2t10(bonus_of(parts), dice_of(rng, c.id, "treat"))
        healed = 0
        if outcome.success:
            healed = min(target.damage, state.house.treat_heal + outcome.dos)
        return [E.Treated(c.id, target.id, parts, outcome, healed)]
    if isinstance(cmd, C.Painkillers):
        return [E.PainkillersTaken(c.id, cmd.target or c.id)]
    if isinstance(cmd, C.Recover):
        return [E.Recovered(c.id, cmd.points)]
    if isinstance(cmd, C.SkillRoll):
        parts = other_parts(c, cmd.skill, cmd.modifier)
        outcome = roll_2t10(bonus_of(parts), dice_of(rng, c.id, "skill"))
        return [E.SkillRolled(c.id, cmd.skill, cmd.label[:40], parts, outcome)]
    return [E.Acted(c.id, cmd.label[:40])]


def resolve_pending(state: Encounter, rng) -> list:
    """Everyone has answered the pending attack: the reactions in the order of a new
    initiative roll (when several), then the attack."""
    pending = state.pending
    closed = E.ReactionsClosed(tuple(r.id for r in pending.reactions))
    out: list = [closed]
    state = evolve(state, closed)
    reactions = list(pending.reactions)
    if len(reactions) > 1:
        entries = [(r.id, combatant(state, r.id).initiative, ()) for r in reactions]
        rolled = tie_rolls(entries, rng)
        initiative = {cid: value for cid, value, _dice in entries}
        width = max(len(d) for d in rolled.values())
        reactions.sort(key=lambda r: dice_key(initiative[r.id], rolled[r.id], width))
        event = E.InitiativeRolled(
            "react",
            tuple((r.id, rolled[r.id]) for r in reactions),
            tuple((r.id, initiative[r.id]) for r in reactions),
        )
        out.append(event)
    for reaction in reactions:
        events = reaction_events(state, reaction, rng)
        out += events
        state = fold(state, events)
    attacker = combatant(state, pending.attacker)
    target = state.get(pending.target)
    weapon = attacker.weapon(pending.weapon)
    if not attacker.acts:
        out.append(E.AttackLost(attacker.id, pending.target, pending.weapon, "attacker_down"))
    elif target is None or not target.alive:
        out.append(E.AttackLost(attacker.id, pending.target, pending.weapon, "target_down"))
    else:
        out += attack_events(
            state, attacker, target, weapon, pending.mode, pending.distance, pending.modifier,
            rng,
        )
    return out


def reaction_events(state: Encounter, reaction: Reaction, rng) -> list:
    """A reaction carried out when its turn comes, checked again (an earlier one may have
    felled its maker or cost it AP)."""
    c = combatant(state, reaction.id)
    if not c.acts:
        return [E.ReactionLost(c.id, reaction.command, "down")]
    try:
        cost = check_action(state, c, reaction.command)
    except RulesError as error:
        return [E.ReactionLost(c.id, reaction.command, str(error))]
    if cost > c.saved:
        return [E.ReactionLost(c.id, reaction.command, "saved_ap")]
    name = C.COMMAND_NAMES[type(reaction.command)]
    spent = [E.APSpent(c.id, 0, cost, name)] if cost else []
    state = fold(state, spent)
    return spent + perform(state, combatant(state, c.id), reaction.command, rng, reacting=True)


def turn_start(state: Encounter, c: Combatant, rng) -> list:
    """A turn begins; a begun action's rest is paid first, and it takes effect when paid."""
    out: list = [E.TurnStarted(c.id, c.ap)]
    if c.begun is None:
        return out
    begun = c.begun
    paid = min(begun.rest, c.ap)
    out.append(E.BegunContinued(c.id, begun.command, paid, paid == begun.rest))
    if paid < begun.rest:
        return out
    state = fold(state, out)
    c = combatant(state, c.id)
    try:
        check_action(state, c, begun.command)
    except RulesError as error:
        return [*out, E.ActionLost(c.id, begun.command, str(error))]
    return out + perform(state, c, begun.command, rng)


def plan_action(state: Encounter, cmd) -> tuple[Combatant, int, str]:
    """Whether `cmd` may be made now, and how: (the combatant, its cost, "react" (a
    reaction to the pending attack), "turn" (paid from the turn's AP), "begin" (dearer
    than the AP left: begun) or "saved" (paid from saved AP, out of turn))."""
    require_running(state)
    c = combatant(state, cmd.id)
    if not c.acts:
        refuse(_("{name} cannot act"), "down", name=c.name)
    pending = state.pending
    if pending is not None:
        if c.id not in pending.unanswered:
            refuse(_("an attack is waiting for the reactions"), "attack_pending")
        cost = check_action(state, c, cmd)
        require_saved(c, cost)
        return c, cost, "react"
    if state.active != c.id and not c.saved:
        try:  # out of turn without saved AP: only what costs nothing
            cost = check_action(state, c, cmd)
        except RulesError:
            cost = None
        if cost != 0:
            refuse(_("it is not {name}'s turn"), "not_your_turn", name=c.name)
    cost = check_action(state, c, cmd)
    if state.active == c.id:
        if cost <= c.ap:
            return c, cost, "turn"
        if isinstance(cmd, DIVISIBLE):
            refuse(
                _("{name} has {ap} AP left; this costs {cost}"),
                "ap",
                name=c.name,
                ap=c.ap,
                cost=cost,
            )
        return c, cost, "begin"
    require_saved(c, cost)
    return c, cost, "saved"


def require_saved(c: Combatant, cost: int) -> None:
    if cost > c.saved:
        refuse(
            _("{name} has {saved} saved AP; this costs {cost}"),
            "saved_ap",
            name=c.name,
            saved=c.saved,
            cost=cost,
        )


def _action(state: Encounter, cmd, rng):
    c, cost, how = plan_action(state, cmd)
    if how == "react":
        return answer(state, E.ReactionDeclared(c.id, cmd, cost), rng)
    if how == "begin":
        return [E.ActionBegun(c.id, cmd, cost, c.ap)]
    name = C.COMMAND_NAMES[type(cmd)]
    spent = []
    if cost:
        spent = [E.APSpent(c.id, cost if how == "turn" else 0, cost if how == "saved" else 0,
                           name)]
    after = fold(state, spent)
    return spent + perform(after, combatant(after, c.id), cmd, rng)


def answer(state: Encounter, event, rng) -> list:
    """A reaction or a pass; the last answer carries the reactions and the attack out."""
    after = evolve(state, event)
    if after.pending.unanswered:
        return [event]
    return [event, *resolve_pending(after, rng)]


def _pass(state: Encounter, cmd: C.Pass, rng):
    require_open(state)
    pending = state.pending
    if pending is None:
        refuse(_("there is no attack to react to"), "no_attack")
    c = combatant(state, cmd.id)
    if c.id not in pending.waiting:
        refuse(_("{name} has no saved AP to react with"), "not_waiting", name=c.name)
    if pending.answered(c.id):
        refuse(_("{name} has answered already"), "answered", name=c.name)
    return answer(state, E.Passed(c.id), rng)


HANDLERS = {C.Pass: _pass, **{cls: _action for cls in C.ACTIONS}}
