"""The T10 combat state machine (t10-ap-utdrag.txt, "Initiativ" to "Vapen"; rulings.md
§ T10): `decide` and `evolve`.

`decide(state, command, rng)` refuses an illegal command with a RulesError whose message
says why, or returns the events it causes with every die rolled in them. `evolve(state,
event)` applies one event; it never rolls, so replaying events rebuilds the state exactly.
Rolls are `rules.t10.rolls.roll_2t10` (2T10 + bonus, 11 or more succeeds, DoS/DoF); a
roll's bonus from the character is `rules.t10.character.bonus`.

The fight (the text, and how this engine reads it):

* **Initiativ.** When the fight starts ("då en actionsituation uppstår") each combatant
  rolls 1T10 + Initiativ; highest acts first; those tied roll again among themselves
  only, until ordered. The order is rolled once and kept for every round. A combatant
  who joins a started fight rolls then, and ties with those already placed are broken by
  further rolls (theirs only decide against the newcomer, their own order stays). It
  gets its turn in the round it joins: at its place if still to come, else right after
  the current turn.
* **Action points.** Each round a combatant has 10 AP, −1 per point of Utmattning, never
  below 0. One turn per round in initiative order; the combatant spends AP on actions;
  ending the turn saves the AP left (sparade AP). Once all AP are spent the turn ends by
  itself. Saved AP may be spent out of turn at any time later in the same round, on the
  same actions. When every combatant has had its turn, the round ends: saved AP vanish,
  Utmattning falls by 1 (never below Skada unless the combatant has had smärtstillande),
  and the next round starts by itself (AP refilled). A combatant with no AP that round
  gets no turn (a log line says so). If nobody would have AP in the next round, it waits
  for the GM's `start`. Since the round ends by itself with the last turn, AP saved by
  the last in the order can only be used against an attack in that same turn. Out of its
  turn, a combatant without saved AP may only do what costs no AP (a roll of 0 AP).
* **Actions over several rounds.** An action dearer than the AP left (only in one's own
  turn) takes all the AP left and is begun; at the start of the combatant's next turn the
  rest is paid first (across more rounds if need be) and the action takes effect then,
  checked again (a target dead meanwhile: the action is lost). Moving and lowering
  fatigue are paid per metre and per point, so they are never begun: they are refused
  beyond the AP one has.
* **Reactions (saved AP against an attack).** When an attack is declared, every other
  combatant who can act and has saved AP is asked to react (any action paid with saved
  AP, e.g. kasta sig i skydd) or pass. When all have answered (or, after the prompt has
  waited, the attacker or the GM passes for them), the reactions are carried out (several:
  in the order of a new initiative roll, 1T10 + Initiativ, ties rolled again, "Om flera
  spelare har sparat AP och vill agera samtidigt så slår man ett nytt initiativslag"),
  then the attack resolves (if its attacker can still act and its target lives). A
  reaction that is an attack resolves at once, without a reaction window of its own. A
  reaction is checked and paid when carried out: one that can no longer be made (its
  maker felled, its target dead by an earlier reaction) is lost and costs nothing. Outside
  a pending attack a combatant with saved AP acts at once (an attack out of turn opens its
  own reaction window for the others).
* **Attacks.** A skill roll: 2T10 + the weapon skill's bonus + the stance's (Normal:
  cannot attack; Färdigställning −2; Anläggning ±0) + the range's (the distance in
  metres given with the attack: within close +2, beyond normal −2, beyond maximum
  impossible) + the fire mode's modifier − Utmattning + cover + the GM's modifiers
  (the attack's, and the combatant's standing one); 11 or more hits. E: one roll; A: two,
  each resolved on its own. Each DoS adds +1 damage; a weapon marked damage-on-miss deals
  damage − DoF on a miss when that is above 0. Ammunition (when counted): E one round,
  A the house rule's burst (or the magazine, if smaller).
* **Cover.** Kasta sig i skydd (house rule AP, 3 from the grenade example) puts the
  combatant in cover until it moves. An explosive (area) weapon does no damage to a
  target in cover (no roll is made); a direct attack on a target in cover gets the
  house rule's cover modifier (−2).
* **Damage** (Utmattning och skada, Kroppsskydd). Utmattning rises by the whole damage;
  Skada by the damage less Kroppsskydd (0-10; armour pieces add up to at most 10). A rise
  of Utmattning lowers the AP left this round, then the saved AP, by as much. Utmattning
  10+: unconscious (awake again once it falls below 10); Skada 10+: dead. Only medical
  care heals Skada.
* **Other rolls** (the `test` command, Sjukvård): 2T10 + the bonus + the stance's modifier
  on other rolls (Normal ±0, Färdigställning −2, Anläggning −4) − Utmattning + the GM's.
  The combatant's bonus for a skill it was not given is its ability's (`character.bonus`).
* **Stances.** Each combatant holds one weapon (`wielded`) in one stance. Going up pays the
  weapon's stance AP per step; going down pays it once. Another weapon is taken up from
  Normal (free to choose; raising it costs its stance AP).
* **Fire mode switch** 2 AP; **reload** the weapon's AP, filling the magazine.
* **Lowering Utmattning**: 1 AP per point, never below Skada without painkillers.
* **Medical care** (house rules: 10 AP, paid across rounds if need be): a Sjukvård roll;
  success heals 1 Skada (house rule) +1 per DoS. **Smärtstillande** (house rule 2 AP):
  from then on in the encounter the target's Utmattning may fall below its Skada.
* **Stat blocks.** Abilities are 0 or less; an NPC's skills are the bonuses given, and a
  skill not given rolls with its ability (a character's block gives every skill's
  effective bonus). Kroppsskydd of several pieces adds up to at most 10.
* Sums of bonuses beyond ±30 are rolled at ±30 (`rolls.MAX_BONUS`: every roll is certain
  long before). The engine has no map: distances are given with each attack, moves only
  cost AP and end cover.
"""

import math

from rules import combat_kit as K
from rules.combat_kit import MAX_TEXT, check_weapons, combatant, out_of_range, refuse, require_open
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.t10 import character
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.combat.state import (
    DEAD_AT,
    MAX_PROTECTION,
    STANCES,
    UNCONSCIOUS_AT,
    Begun,
    Combatant,
    Encounter,
    Pending,
    Reaction,
    changed,
    pairs_get,
    pairs_set,
)
from rules.t10.rolls import MAX_BONUS, roll_2t10

INITIATIVE_DIE = 10  # "slår varje spelare 1T10 och lägger till sitt Initiativ"
MAX_TIE_ROLLS = 50  # ties roll again; a bound on the rerolls (then the order joined)
MODE_SWITCH_AP = 2  # "Att byta eldgivningssätt kostar 2 AP"
CLOSE_BONUS = 2  # "inom nära avstånd ger +2"
FAR_MALUS = -2  # "bortom normalt avstånd ger -2"
ATTACK_STANCE = {"ready": -2, "aimed": 0}  # Normal: "Kan ej anfalla med vapnet"
OTHER_STANCE = {"normal": 0, "ready": -2, "aimed": -4}
MEDICINE = "medicine"  # Sjukvård
DIVISIBLE = (C.Move, C.Recover)  # paid per metre or point: never begun
MAX_MODIFIER = 10
MAX_SCORE = 99  # Utmattning and Skada as entered


def fold(state: Encounter, events) -> Encounter:
    for event in events:
        state = evolve(state, event)
    return state


# Reading the state ---------------------------------------------------------------------------


def require_quiet(state: Encounter) -> None:
    require_open(state)
    if state.pending is not None:
        refuse(_("an attack is waiting for the reactions"), "attack_pending")


def require_running(state: Encounter) -> None:
    require_open(state)
    if not state.started:
        refuse(_("the fight has not started"), "not_started")
    if state.round_closed:
        refuse(_("the round has ended: the GM starts the next"), "round_closed")


def roll_bonus(c: Combatant, key: str) -> int:
    """A roll's bonus from the combatant: its skill's when given and above 0, else its
    ability's (`character.bonus`)."""
    return character.bonus({**dict(c.abilities), **dict(c.skills)}, key)


def common_parts(c: Combatant) -> list[tuple[str, int]]:
    """What every roll of `c` gets: −1 per point of Utmattning, the GM's standing modifier."""
    parts = []
    if c.fatigue:
        parts.append(("fatigue", -c.fatigue))
    if c.modifier:
        parts.append(("gm", c.modifier))
    return parts


def range_band(weapon, distance: float) -> str:
    """"close" (+2), "normal", "far" (−2) or "out" (no attack)."""
    if distance > weapon.maximum:
        return "out"
    if distance <= weapon.close:
        return "close"
    if distance > weapon.normal:
        return "far"
    return "normal"


BAND_MODIFIER = {"close": CLOSE_BONUS, "normal": 0, "far": FAR_MALUS}


def attack_parts(
    state: Encounter, c: Combatant, target: Combatant, weapon, mode: str, band: str,
    modifier: int = 0,
) -> tuple[tuple[str, int], ...]:
    """An attack roll's bonus, part by part ("Färdighetsslag", "Ställningar", "Vapen",
    "Utmattning och skada"; cover and the GM's are readings)."""
    parts = [("skill", roll_bonus(c, weapon.skill))]
    stance = ATTACK_STANCE.get(c.stance, 0)
    if stance:
        parts.append(("stance", stance))
    if BAND_MODIFIER[band]:
        parts.append(("range", BAND_MODIFIER[band]))
    if weapon.modifier(mode):
        parts.append(("mode", weapon.modifier(mode)))
    if target.in_cover and not weapon.explosive and state.house.cover_modifier:
        parts.append(("cover", state.house.cover_modifier))
    parts += common_parts(c)
    if modifier:
        parts.append(("attack_gm", modifier))
    return tuple(parts)


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


def bonus_of(parts) -> int:
    """The parts summed, within the rolls module's ±30."""
    return max(-MAX_BONUS, min(MAX_BONUS, sum(value for _key, value in parts)))


def dealt_damage(weapon, outcome) -> int:
    """A roll's damage before Kroppsskydd: the weapon's + DoS on a hit; on a miss, the
    weapon's − DoF if it deals damage on a miss (and that is above 0)."""
    if outcome.success:
        return weapon.damage + outcome.dos
    if weapon.damage_on_miss:
        return max(0, weapon.damage - outcome.dof)
    return 0


def shots_of(state: Encounter, weapon, mode: str) -> int:
    """Rounds an attack uses: 0 when not counted; E one; A the burst (or the magazine)."""
    if not weapon.magazine:
        return 0
    return 1 if mode == "E" else min(state.house.burst_shots, weapon.magazine)


# Initiative ----------------------------------------------------------------------------------


def tie_rolls(entries, rng) -> dict[str, tuple[int, ...]]:
    """Each (id, Initiativ, dice so far) ordered: those without dice roll 1T10; while
    some are tied (equal totals and rerolls as far as both go), the one with fewer dice
    rolls again (both, when equal). Dice are rolled in the entries' order."""
    ids = [cid for cid, _init, _dice in entries]
    init = {cid: value for cid, value, _dice in entries}
    dice = {cid: list(rolled) for cid, _init, rolled in entries}
    for cid in ids:
        if not dice[cid]:
            dice[cid].append(rng.randint(1, INITIATIVE_DIE))
    for _attempt in range(MAX_TIE_ROLLS):
        keys = {cid: (init[cid] + dice[cid][0], *dice[cid][1:]) for cid in ids}
        need = set()
        for index, a in enumerate(ids):
            for b in ids[index + 1 :]:
                ka, kb = keys[a], keys[b]
                width = min(len(ka), len(kb))
                if ka[:width] == kb[:width]:
                    if len(ka) <= len(kb):
                        need.add(a)
                    if len(kb) <= len(ka):
                        need.add(b)
        if not need:
            break
        for cid in ids:
            if cid in need:
                dice[cid].append(rng.randint(1, INITIATIVE_DIE))
    return {cid: tuple(rolled) for cid, rolled in dice.items()}


def dice_key(initiative: int, rolled: tuple[int, ...], width: int) -> tuple:
    """Highest total first, then the rerolls; a missing reroll counts below any."""
    padded = (*rolled[1:], *(0,) * (width - len(rolled)))
    return (-(initiative + rolled[0]), *(-r for r in padded))


def ordered(state: Encounter) -> list[Combatant]:
    """The combatants in initiative order (those not rolled yet last, as they joined)."""
    width = max((len(c.rolls) for c in state.combatants), default=1)
    index = {c.id: i for i, c in enumerate(state.combatants)}

    def key(c: Combatant):
        if not c.rolls:
            return (1, (), index[c.id])
        return (0, dice_key(c.initiative, c.rolls, width), index[c.id])

    return sorted(state.combatants, key=key)


def ap_pairs(state: Encounter) -> tuple[tuple[str, int], ...]:
    return tuple((c.id, c.round_ap if c.alive else 0) for c in state.combatants)


# Damage --------------------------------------------------------------------------------------


def damaged_event(
    target: Combatant, amount: int, *, protected: bool = True, source: str = "", weapon: str = ""
) -> E.Damaged:
    """`amount` of damage to `target` ("Utmattning och skada", "Kroppsskydd"): Utmattning
    + amount, Skada + amount − Kroppsskydd; the AP left, then the saved, lowered as much."""
    protection = target.protection if protected else 0
    taken = max(0, amount - protection)
    ap_lost = min(target.ap, amount)
    saved_lost = min(target.saved, amount - ap_lost)
    dead = target.alive and target.damage + taken >= DEAD_AT
    unconscious = target.conscious and not dead and target.fatigue + amount >= UNCONSCIOUS_AT
    return E.Damaged(
        id=target.id,
        source=source,
        weapon=weapon,
        amount=amount,
        protection=protection,
        damage=taken,
        fatigue=amount,
        ap_lost=ap_lost,
        saved_lost=saved_lost,
        dead=dead,
        unconscious=unconscious,
    )


# Actions: what they cost and do ------------------------------------------------------------


def weapon_of(c: Combatant, key: str):
    weapon = c.weapon(key)
    if weapon is None:
        refuse(_("{name} has no weapon {weapon!r}"), "no_weapon", name=c.name, weapon=key)
    return weapon


def check_modifier(value: int, field: str = "modifier") -> None:
    if not -MAX_MODIFIER <= value <= MAX_MODIFIER:
        out_of_range(field, -MAX_MODIFIER, MAX_MODIFIER)


def check_attack(state: Encounter, c: Combatant, cmd: C.Attack) -> int:
    target = combatant(state, cmd.target)
    if target.id == c.id:
        refuse(_("one does not attack oneself"), "self")
    if not target.alive:
        refuse(_("{name} is dead"), "dead", name=target.name)
    weapon = weapon_of(c, cmd.weapon)
    if c.wielded != weapon.key or c.stance == "normal":
        refuse(
            _("{name} must raise {weapon} first: no attack from Normal"),
            "normal_stance",
            name=c.name,
            weapon=weapon.name,
        )
    mode = c.mode_of(weapon)
    if cmd.mode is not None and cmd.mode != mode:
        refuse(
            _("{weapon} fires {mode}: switching the fire mode is its own action (2 AP)"),
            "mode",
            weapon=weapon.name,
            mode=mode,
        )
    if cmd.distance is None:
        refuse(_("give the distance to the target in metres"), "bad_field", field="distance")
    if cmd.distance < 0:
        out_of_range("distance", 0, weapon.maximum)
    if range_band(weapon, cmd.distance) == "out":
        refuse(
            _("{target} is beyond {weapon}'s maximum range ({metres} m)"),
            "out_of_range",
            target=target.name,
            weapon=weapon.name,
            metres=weapon.maximum,
        )
    left = c.ammo_of(weapon)
    if left is not None and left < shots_of(state, weapon, mode):
        refuse(_("{weapon} must be reloaded"), "empty", weapon=weapon.name)
    check_modifier(cmd.modifier)
    return weapon.attack_ap


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
        if not 0 < cmd.metres <= 1000:
            out_of_range("metres", 0.1, 1000)
        return max(1, math.ceil(cmd.metres / house.metres_per_ap - 1e-9))
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
        return [E.Moved(c.id, cmd.metres)]
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
        outcome = roll_2t10(bonus_of(parts), rng)
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
        outcome = roll_2t10(bonus_of(parts), rng)
        return [E.SkillRolled(c.id, cmd.skill, cmd.label[:40], parts, outcome)]
    return [E.Acted(c.id, cmd.label[:40])]


def attack_events(
    state: Encounter, attacker: Combatant, target: Combatant, weapon, mode: str,
    distance: float, modifier: int, rng, *, reaction: bool = False,
) -> list:
    """The attack rolls (E one, A two, each on its own) and the damage each deals."""
    parts = attack_parts(state, attacker, target, weapon, mode, range_band(weapon, distance),
                         modifier)
    covered = weapon.explosive and target.in_cover
    count = 1 if mode == "E" else 2
    rolls = () if covered else tuple(roll_2t10(bonus_of(parts), rng) for _ in range(count))
    rolled = E.AttackRolled(
        attacker=attacker.id,
        target=target.id,
        weapon=weapon.key,
        mode=mode,
        distance=distance,
        parts=parts,
        rolls=rolls,
        covered=covered,
        ammo=shots_of(state, weapon, mode),
        reaction=reaction,
    )
    out = [rolled]
    state = evolve(state, rolled)
    for outcome in rolls:
        amount = dealt_damage(weapon, outcome)
        victim = combatant(state, target.id)
        if amount > 0 and victim.alive:
            event = damaged_event(victim, amount, source=attacker.id, weapon=weapon.name)
            out.append(event)
            state = evolve(state, event)
    return out


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


# decide --------------------------------------------------------------------------------------


def decide(state: Encounter, command, rng) -> tuple:
    return K.decide(state, command, rng, HANDLERS, evolve, settle)


def settle(state: Encounter, rng) -> list:
    """What follows by itself: a turn ends once its AP are spent (or its maker is down),
    the next in order begins (paying a begun action first), a turn without AP is
    skipped, the round ends and the next begins."""
    return K.settle(state, rng, next_settlement, evolve, 1000)


def next_settlement(state: Encounter, rng) -> list:
    if state.ended or not state.started or state.round_closed or state.pending is not None:
        return []
    if state.active is not None:
        c = combatant(state, state.active)
        if not c.acts or c.ap <= 0:
            return [E.TurnEnded(c.id, c.ap if c.acts else 0)]
        return []
    for c in ordered(state):
        if c.turn_done or not c.alive or not c.rolls:
            continue
        if not c.acts or c.ap <= 0:
            return [E.TurnSkipped(c.id)]
        return turn_start(state, c, rng)
    return end_of_round(state)


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


def end_of_round(state: Encounter) -> list:
    """Saved AP vanish; Utmattning falls by 1, never below Skada without painkillers; the
    next round starts if anyone will have AP in it."""
    fatigue = tuple(
        (c.id, c.fatigue - 1)
        for c in state.combatants
        if c.alive and c.fatigue > c.fatigue_floor
    )
    ended = E.RoundEnded(state.round, fatigue)
    after = evolve(state, ended)
    if any(c.alive and c.round_ap > 0 for c in after.combatants):
        return [ended, E.RoundStarted(state.round + 1, ap_pairs(after))]
    return [ended]


def actor_of(state: Encounter, command) -> str | None:
    """The combatant a command acts for; None when only the GM may give it."""
    if isinstance(command, C.GM_ONLY):
        return None
    return getattr(command, "id", None)


# The GM's commands ---------------------------------------------------------------------------


def body_of(c: Combatant, encounter: str = "") -> dict:
    """A combatant's body as JSON data the next encounter's add_combatant takes
    (`carried`), or {} when it is unhurt: its Utmattning and Skada."""
    if not (c.fatigue or c.damage):
        return {}
    return {"encounter": encounter, "fatigue": c.fatigue, "damage": c.damage}


def carried_body(data) -> dict:
    """`body_of`'s data read back strictly, as Combatant fields."""
    if not isinstance(data, dict) or set(data) - {"encounter", "fatigue", "damage"}:
        refuse(_("{field} must be a body from an earlier fight"), "bad_field", field="carried")
    encounter = data.get("encounter", "")
    if not isinstance(encounter, str) or len(encounter) > MAX_TEXT:
        refuse(_("{field} must be a body from an earlier fight"), "bad_field", field="carried")
    out = {}
    for key in ("fatigue", "damage"):
        value = data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SCORE:
            out_of_range(key, 0, MAX_SCORE)
        out[key] = value
    return out


def _add(state: Encounter, cmd: C.AddCombatant, rng):
    require_open(state)
    who = K.newcomer(state, cmd)
    abilities = []
    low = -MAX_MODIFIER
    for key in C.ABILITY_KEYS:
        value = getattr(cmd, key)
        if value is None:
            continue
        if not low <= value <= 0:
            out_of_range(key, low, 0)
        abilities.append((key, value))
    skills = tuple((cmd.skills or {}).items())
    if not -10 <= cmd.initiative <= 20:
        out_of_range("initiative", -10, 20)
    if cmd.protection is not None and not 0 <= cmd.protection <= MAX_PROTECTION:
        out_of_range("protection", 0, MAX_PROTECTION)
    protection = min(
        MAX_PROTECTION, sum(piece.protection for piece in cmd.armour) + (cmd.protection or 0)
    )
    wielded = cmd.right or (cmd.weapons[0].key if cmd.weapons else None)
    check_weapons(cmd.weapons, (wielded,))
    if cmd.stance != "normal" and wielded is None:
        refuse(_("a stance other than Normal needs a weapon"), "bad_field", field="stance")
    for key in ("fatigue", "damage"):
        if not 0 <= getattr(cmd, key) <= MAX_SCORE:
            out_of_range(key, 0, MAX_SCORE)
    body = {"fatigue": cmd.fatigue, "damage": cmd.damage}
    if cmd.carried:
        body = carried_body(cmd.carried)
    new = Combatant(
        **who,
        skills=skills,
        abilities=tuple(abilities),
        initiative=cmd.initiative,
        protection=protection,
        weapons=tuple(cmd.weapons),
        wielded=wielded,
        stance=cmd.stance,
        **body,
    )
    carried = bool(cmd.carried) and bool(body["fatigue"] or body["damage"])
    if not state.started:
        return [E.CombatantAdded(new, carried)]
    if not state.round_closed:
        new = new.with_(ap=new.round_ap if new.alive else 0)
    added = E.CombatantAdded(new, carried)
    after = evolve(state, added)
    entries = [(c.id, c.initiative, c.rolls) for c in ordered(after) if c.rolls or c.id == new.id]
    rolled = tie_rolls(entries, rng)
    changes = tuple(
        (cid, rolled[cid]) for cid, _init, before in entries if rolled[cid] != tuple(before)
    )
    initiative = tuple((cid, after.get(cid).initiative) for cid, _dice in changes)
    return [added, E.InitiativeRolled("join", changes, initiative)]


def _update(state: Encounter, cmd: C.UpdateCombatant, rng):
    require_open(state)
    c = combatant(state, cmd.id)
    changes = []
    if cmd.side:
        changes.append(("side", cmd.side))
    if cmd.damage is not None:
        if not 0 <= cmd.damage <= MAX_SCORE:
            out_of_range("damage", 0, MAX_SCORE)
        changes.append(("damage", cmd.damage))
    if cmd.fatigue is not None:
        if not 0 <= cmd.fatigue <= MAX_SCORE:
            out_of_range("fatigue", 0, MAX_SCORE)
        changes.append(("fatigue", cmd.fatigue))
        rise = cmd.fatigue - c.fatigue
        if rise > 0:  # a rise lowers the AP left, then the saved
            ap_lost = min(c.ap, rise)
            changes += [("ap", c.ap - ap_lost), ("saved", max(0, c.saved - (rise - ap_lost)))]
    if cmd.protection is not None:
        if not 0 <= cmd.protection <= MAX_PROTECTION:
            out_of_range("protection", 0, MAX_PROTECTION)
        changes.append(("protection", cmd.protection))
    if cmd.modifier is not None:
        check_modifier(cmd.modifier)
        changes.append(("modifier", cmd.modifier))
    if cmd.in_cover is not None:
        changes.append(("in_cover", cmd.in_cover))
    if cmd.painkillers is not None:
        changes.append(("painkillers", cmd.painkillers))
    if cmd.stance is not None:
        if cmd.stance != "normal" and c.wielded is None:
            refuse(_("a stance other than Normal needs a weapon"), "bad_field", field="stance")
        changes.append(("stance", cmd.stance))
    return [K.updated(c.id, changes)]


def _start(state: Encounter, cmd: C.Start, rng):
    require_quiet(state)
    if state.round_closed:
        return [E.RoundStarted(state.round + 1, ap_pairs(state))]
    if state.started:
        refuse(_("the fight is on: its rounds follow by themselves"), "started", name="")
    if len(state.combatants) < 2:
        refuse(_("a fight needs at least two combatants"), "too_few")
    entries = [(c.id, c.initiative, ()) for c in state.combatants]
    rolled = tie_rolls(entries, rng)
    return [
        E.InitiativeRolled(
            "start",
            tuple(rolled.items()),
            tuple((c.id, c.initiative) for c in state.combatants),
        ),
        E.RoundStarted(1, ap_pairs(state)),
    ]


def _end_round(state: Encounter, cmd: C.EndRound, rng):
    require_quiet(state)
    require_running(state)
    return end_of_round(state)


def _damage(state: Encounter, cmd: C.Damage, rng):
    require_quiet(state)
    target = combatant(state, cmd.id)
    if not target.alive:
        refuse(_("{name} is dead"), "dead", name=target.name)
    if not 0 <= cmd.amount <= 100:
        out_of_range("amount", 0, 100)
    return [damaged_event(target, cmd.amount, protected=cmd.protected, weapon=cmd.label[:40])]


def _end(state: Encounter, cmd, rng):
    require_open(state)
    return [E.EncounterEnded()]


# A combatant's commands ----------------------------------------------------------------------


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


def _end_turn(state: Encounter, cmd: C.EndTurn, rng):
    require_running(state)
    if state.pending is not None:
        refuse(_("an attack is waiting for the reactions"), "attack_pending")
    c = combatant(state, cmd.id)
    if state.active != c.id:
        refuse(_("it is not {name}'s turn"), "not_your_turn", name=c.name)
    return [E.TurnEnded(c.id, c.ap)]


HANDLERS = {
    C.AddCombatant: _add,
    C.UpdateCombatant: _update,
    C.RemoveCombatant: K.remove_combatant,
    C.Start: _start,
    C.EndRound: _end_round,
    C.Damage: _damage,
    C.EndEncounter: _end,
    C.Pass: _pass,
    C.EndTurn: _end_turn,
    **{cls: _action for cls in C.ACTIONS},
}


# evolve --------------------------------------------------------------------------------------


def _put(state: Encounter, cid: str, **changes) -> Encounter:
    return state.put(combatant(state, cid).with_(**changes))


def evolve(state: Encounter, event) -> Encounter:
    kind = type(event)
    if kind is E.CombatantAdded:
        return state.joined(event.combatant)
    if kind is E.CombatantUpdated:
        return _put(state, event.id, **dict(event.changes))
    if kind is E.CombatantRemoved:
        return state.without(event.id)
    if kind is E.InitiativeRolled:
        if event.reason == "react":
            return state
        for cid, rolled in event.rolls:
            state = _put(state, cid, rolls=tuple(rolled))
        return state
    if kind is E.RoundStarted:
        ap = dict(event.ap)
        combatants = tuple(
            c.with_(ap=ap.get(c.id, 0), saved=0, turn_done=False) for c in state.combatants
        )
        return changed(
            state, round=event.round, active=None, round_closed=False, combatants=combatants
        )
    if kind is E.TurnStarted:
        return changed(state, active=event.id)
    if kind is E.TurnSkipped:
        return _put(state, event.id, turn_done=True)
    if kind is E.BegunContinued:
        c = combatant(state, event.id)
        begun = None
        if not event.done:
            begun = changed(c.begun, paid=c.begun.paid + event.paid)
        return state.put(c.with_(ap=c.ap - event.paid, begun=begun))
    if kind is E.ActionBegun:
        c = combatant(state, event.id)
        return state.put(c.with_(ap=c.ap - event.paid, begun=Begun(event.command, event.cost,
                                                                  event.paid)))
    if kind in (E.ActionLost, E.ReactionLost, E.Acted, E.SkillRolled, E.AttackLost):
        return state
    if kind is E.APSpent:
        c = combatant(state, event.id)
        return state.put(c.with_(ap=c.ap - event.ap, saved=c.saved - event.saved))
    if kind is E.Moved:
        return _put(state, event.id, in_cover=False)
    if kind is E.CoverTaken:
        return _put(state, event.id, in_cover=True)
    if kind is E.StanceChanged:
        return _put(state, event.id, stance=event.stance, wielded=event.weapon)
    if kind is E.ModeChanged:
        c = combatant(state, event.id)
        return state.put(c.with_(modes=pairs_set(c.modes, event.weapon, event.mode)))
    if kind is E.Reloaded:
        c = combatant(state, event.id)
        return state.put(c.with_(ammo=pairs_set(c.ammo, event.weapon, event.rounds)))
    if kind is E.Treated:
        target = combatant(state, event.target)
        return state.put(target.with_(damage=target.damage - event.healed))
    if kind is E.PainkillersTaken:
        return _put(state, event.target, painkillers=True)
    if kind is E.Recovered:
        c = combatant(state, event.id)
        return state.put(c.with_(fatigue=c.fatigue - event.points))
    if kind is E.AttackDeclared:
        pending = Pending(
            attacker=event.attacker,
            target=event.target,
            weapon=event.weapon,
            mode=event.mode,
            distance=event.distance,
            modifier=event.modifier,
            waiting=event.waiting,
        )
        return changed(state, pending=pending)
    if kind is E.ReactionDeclared:
        reaction = Reaction(event.id, event.command, event.cost)
        pending = changed(state.pending, reactions=(*state.pending.reactions, reaction))
        return changed(state, pending=pending)
    if kind is E.Passed:
        pending = changed(state.pending, passed=(*state.pending.passed, event.id))
        return changed(state, pending=pending)
    if kind is E.ReactionsClosed:
        return changed(state, pending=None)
    if kind is E.AttackRolled:
        if not event.ammo:
            return state
        c = combatant(state, event.attacker)
        weapon = c.weapon(event.weapon)
        left = max(0, c.ammo_of(weapon) - event.ammo)
        return state.put(c.with_(ammo=pairs_set(c.ammo, event.weapon, left)))
    if kind is E.Damaged:
        c = combatant(state, event.id)
        return state.put(
            c.with_(
                fatigue=c.fatigue + event.fatigue,
                damage=c.damage + event.damage,
                ap=c.ap - event.ap_lost,
                saved=c.saved - event.saved_lost,
            )
        )
    if kind is E.TurnEnded:
        state = _put(state, event.id, turn_done=True, saved=event.saved, ap=0)
        return changed(state, active=None) if state.active == event.id else state
    if kind is E.RoundEnded:
        fatigue = dict(event.fatigue)
        combatants = tuple(
            c.with_(ap=0, saved=0, fatigue=fatigue.get(c.id, c.fatigue))
            for c in state.combatants
        )
        return changed(state, combatants=combatants, active=None, round_closed=True)
    if kind is E.EncounterEnded:
        return changed(state, ended=True, pending=None, active=None)
    raise RulesError(f"unknown event {kind.__name__}")


__all__ = ["actor_of", "body_of", "decide", "evolve", "pairs_get"]
