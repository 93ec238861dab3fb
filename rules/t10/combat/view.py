"""What the pages and the API show of a T10 encounter: plain data, per viewer.

NPC numbers stay the GM's (as in the other engines): players see an NPC's name, side,
stance, whether it is up or in cover, and whether its attacks hit; never its AP (saved
or not), Utmattning, Skada, bonuses or dice.
"""

import contextlib
import functools
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rules import combat_kit as K
from rules import scene
from rules.combat_kit import GM_VIEW, mine, name_of, percent, refuse, sees_numbers, why_of
from rules.engine import Viewer, encode
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.t10.character import ABILITY_TERMS, INITIATIVE, SKILLS
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.combat.actions import other_parts, plan_action, stance_plan
from rules.t10.combat.attacks import attack_parts, range_band
from rules.t10.combat.fold import evolve
from rules.t10.combat.movement import move_bands
from rules.t10.combat.movement import move_preview as move_preview  # the engine's preview
from rules.t10.combat.reading import bonus_of, roll_bonus
from rules.t10.combat.rounds import _end_turn, ordered
from rules.t10.combat.state import (
    DEAD_AT,
    STANCES,
    UNCONSCIOUS_AT,
    Combatant,
    Encounter,
)
from rules.t10.rolls import test_odds

BOXES = 10  # the sheet's Utmattning and Skada: 10 boxes each (10: unconscious, dead)

# Game terms, Swedish on every page.
STAT_NAMES = {term.key: term.swedish for term in ABILITY_TERMS}
STAT_NAMES |= {stat.key: stat.term.swedish for stat in SKILLS}
STAT_NAMES[INITIATIVE.key] = INITIATIVE.term.swedish
STANCE_NAMES = {"normal": "Normal", "ready": "Färdigställning", "aimed": "Anläggning"}
SECTION_NAMES = {"fatigue": "Utmattning", "damage": "Skada"}
ACTION_NAMES = {
    "attack": "Anfall",
    "move": "Förflyttning",
    "cover": "Kasta sig i skydd",
    "stance": "Byta ställning",
    "fire_mode": "Byta eldgivningssätt",
    "reload": "Ladda om",
    "treat": "Sjukvård",
    "painkillers": "Smärtstillande",
    "recover": "Minska utmattning",
    "test": "Färdighetsslag",
    "act": "Handling",
}
BANDS = ("close", "normal", "far")


NO_NAMES: Mapping[str, str] = {}


def stat_name(key: str, names: Mapping[str, str] = NO_NAMES) -> str:
    """An ability's or skill's name: as `names` (the campaign's, where its house rules
    name three of the abilities) has it, else the default."""
    return names.get(key) or STAT_NAMES.get(key, key)


def section(key: str, value: int) -> dict:
    """Utmattning or Skada as the sheet draws it: ten boxes, a cross in each point taken
    (10: unconscious or dead), and what lies beyond the boxes."""
    return {
        "key": key,
        "name": SECTION_NAMES[key],
        "value": value,
        "boxes": [i < value for i in range(BOXES)],
        "over": max(0, value - BOXES),
        "full": value >= (UNCONSCIOUS_AT if key == "fatigue" else DEAD_AT),
    }


def damage_sheet(state: Encounter | None, character_id: int, house: Mapping[str, Any]) -> dict:
    """A character's Utmattning and Skada for its sheet ("Utmattning och skada"): ten boxes
    each, with what it took in `state` (an encounter, or None: no fight yet). `recorded`:
    whether `state` has a combatant of the character (its first). `house` is the
    campaign's house rules (none of T10's change the boxes)."""
    found = state.of_character(character_id) if state is not None else None
    c = found or Combatant(id="", name="")
    return {
        "recorded": found is not None,
        "sections": [section("fatigue", c.fatigue), section("damage", c.damage)],
        "fatigue": c.fatigue,
        "damage": c.damage,
        "ap": c.round_ap,
        "protection": c.protection,
        "painkillers": c.painkillers,
        "alive": c.alive,
        "conscious": c.conscious,
    }


def turn_status(state: Encounter, c: Combatant) -> str:
    if not c.alive:
        return "dead"
    if not c.conscious:
        return "unconscious"
    if not state.started or state.round_closed:
        return "waiting"
    if state.active == c.id:
        return "active"
    if c.turn_done:
        return "saving" if c.saved else "done"
    if c.ap <= 0:
        return "no_ap"
    return "waiting"


def command_view(state: Encounter, command, names: Mapping[str, str] = NO_NAMES) -> dict:
    """A command held in the state or an event (a begun action, a reaction) as data."""
    key = C.COMMAND_NAMES.get(type(command), "")
    c = state.get(getattr(command, "id", None))
    data = {"action": key, "action_name": ACTION_NAMES.get(key, key)}
    weapon_key = getattr(command, "weapon", None)
    weapon = c.weapon(weapon_key) if c is not None and weapon_key else None
    if weapon_key:
        data["weapon_name"] = weapon.name if weapon else weapon_key
    target = getattr(command, "target", None)
    if target:
        found = state.get(target)
        data["target_name"] = found.name if found else target
    for field in ("label", "mode", "metres", "points", "distance"):
        value = getattr(command, field, None)
        if value not in (None, ""):
            data[field] = value
    if isinstance(command, C.Stance):
        data["stance_name"] = STANCE_NAMES[command.stance]
    if isinstance(command, C.SkillRoll):
        data["skill_name"] = stat_name(command.skill, names)
    if isinstance(command, C.Act):
        data["action_name"] = command.label
    return data


def weapon_view(
    state: Encounter, c: Combatant, weapon, names: Mapping[str, str] = NO_NAMES
) -> dict:
    mode = c.mode_of(weapon)
    return {
        "key": weapon.key,
        "name": weapon.name,
        "skill": weapon.skill,
        "skill_name": stat_name(weapon.skill, names),
        "bonus": roll_bonus(c, weapon.skill),
        "close": weapon.close,
        "normal": weapon.normal,
        "maximum": weapon.maximum,
        "ranges": f"{weapon.close}/{weapon.normal}/{weapon.maximum}",
        "modes": [
            {"mode": m, "modifier": value, "current": m == mode} for m, value in weapon.modes
        ],
        "mode": mode,
        "damage": weapon.damage,
        "attack_ap": weapon.attack_ap,
        "reload_ap": weapon.reload_ap,
        "stance_ap": weapon.stance_ap,
        "magazine": weapon.magazine,
        "loaded": c.ammo_of(weapon),
        "explosive": weapon.explosive,
        "damage_on_miss": weapon.damage_on_miss,
        "wielded": weapon.key == c.wielded,
    }


def combatant_view(
    state: Encounter, c: Combatant, viewer: Viewer, names: Mapping[str, str] = NO_NAMES
) -> dict:
    wielded = c.weapon(c.wielded)
    data = {
        **K.combatant_basics(state, c, turn_status(state, c)),
        "stance": c.stance,
        "stance_name": STANCE_NAMES[c.stance],
        "wielded_name": wielded.name if wielded else "",
        "controlled": mine(c, viewer),
        "numbers": sees_numbers(c, viewer),
        # The map (positions and the round's trail are public) and, for who commands
        # the combatant: what a move costs by its distance in its turn, and its weapons'
        # three ranges ("Vapen": nära, normalt, maximalt avstånd).
        "x": c.x,
        "y": c.y,
        "path": [[x, y] for x, y in c.path],
        "move_bands": (
            move_bands(state, c) if state.active == c.id and mine(c, viewer) else None
        ),
        "ranges": (
            [
                {"weapon": w.key, "name": w.name, "close": w.close, "normal": w.normal,
                 "maximum": w.maximum}
                for w in c.weapons
            ]
            if mine(c, viewer)
            else None
        ),
    }
    if not sees_numbers(c, viewer):
        return data
    begun = None
    if c.begun is not None:
        begun = {
            **command_view(state, c.begun.command, names),
            "cost": c.begun.cost,
            "paid": c.begun.paid,
            "rest": c.begun.rest,
        }
    data.update(
        fatigue=c.fatigue,
        damage=c.damage,
        protection=c.protection,
        ap=c.ap,
        saved=c.saved,
        round_ap=c.round_ap,
        painkillers=c.painkillers,
        fatigue_floor=c.fatigue_floor,
        modifier=c.modifier,
        initiative=c.initiative,
        initiative_total=c.initiative_total,
        rolls=list(c.rolls),
        abilities=[{"key": k, "name": stat_name(k, names), "value": v} for k, v in c.abilities],
        skills=[{"key": k, "name": stat_name(k, names), "value": v} for k, v in c.skills],
        weapons=[weapon_view(state, c, w, names) for w in c.weapons],
        sections=[section("fatigue", c.fatigue), section("damage", c.damage)],
        begun=begun,
    )
    return data


def order_view(state: Encounter, viewer: Viewer) -> list[dict]:
    return [
        {
            "id": c.id,
            "name": c.name,
            "status": turn_status(state, c),
            "active": state.active == c.id,
            "total": c.initiative_total if sees_numbers(c, viewer) else None,
            "dice": list(c.rolls) if sees_numbers(c, viewer) else [],
        }
        for c in ordered(state)
    ]


def pending_view(
    state: Encounter, viewer: Viewer, names: Mapping[str, str] = NO_NAMES
) -> dict | None:
    pending = state.pending
    if pending is None:
        return None
    attacker = state.get(pending.attacker)
    target = state.get(pending.target)
    weapon = attacker.weapon(pending.weapon)
    waiting, hidden = [], False
    for cid in pending.waiting:
        c = state.get(cid)
        if not sees_numbers(c, viewer):
            hidden = hidden or not pending.answered(cid)
            continue
        reaction = next((r for r in pending.reactions if r.id == cid), None)
        waiting.append(
            {
                "id": cid,
                "name": c.name,
                "answered": pending.answered(cid),
                "passed": cid in pending.passed,
                "reaction": command_view(state, reaction.command, names) if reaction else None,
            }
        )
    return {
        "attacker": attacker.id,
        "attacker_name": attacker.name,
        "target": target.id,
        "target_name": target.name,
        "weapon_name": weapon.name if weapon else pending.weapon,
        "mode": pending.mode,
        "distance": pending.distance,
        "waiting": waiting,
        "hidden_waiting": hidden,
        "attacker_mine": mine(attacker, viewer),
    }


def refusal(state: Encounter, command) -> RulesError | None:
    """Why `command` cannot be made now (None: it can), without rolling anything."""
    try:
        if isinstance(command, C.EndTurn):
            _end_turn(state, command, None)
        elif isinstance(command, C.Pass):
            if state.pending is None or command.id not in state.pending.unanswered:
                refuse(_("there is no attack to react to"), "no_attack")
        else:
            plan_action(state, command)
    except RulesError as error:
        return error
    return None


def prompts(state: Encounter, viewer: Viewer) -> list[dict]:
    """Those with saved AP the pending attack waits for: a player's own (and the other
    players' characters', so the attacker may go on for an absent one), the GM's all."""
    pending = state.pending
    if pending is None:
        return []
    attacker = state.get(pending.attacker)
    weapon = attacker.weapon(pending.weapon)
    out = []
    for cid in pending.unanswered:
        c = state.get(cid)
        if not sees_numbers(c, viewer):
            continue
        out.append(
            {
                "kind": "react",
                "for": c.id,
                "who": c.name,
                "saved": c.saved,
                "target": c.id == pending.target,
                "attacker_name": attacker.name,
                "target_name": state.get(pending.target).name,
                "weapon_name": weapon.name if weapon else pending.weapon,
                # A player answers for their own; the GM for the NPCs (and, once the
                # prompt has waited, goes on for a player: the attacker's timeout form).
                "mine": c.id in viewer.controls or (viewer.is_gm and c.npc),
                "attacker_mine": mine(attacker, viewer),
            }
        )
    return out


def how_acting(state: Encounter, c: Combatant) -> str | None:
    """How `c` may act now: "react", "turn", "saved" or None."""
    if state.ended or not state.started or state.round_closed or not c.acts:
        return None
    if state.pending is not None:
        return "react" if c.id in state.pending.unanswered else None
    if state.active == c.id:
        return "turn"
    if c.turn_done and c.saved > 0:
        return "saved"
    return None


def attack_options(state: Encounter, c: Combatant) -> list[dict]:
    """Each living target and weapon: the cost, whether it can be made now, and the
    exact chance to hit within close, normal and beyond normal range."""
    out = []
    for target in state.combatants:
        if target.id == c.id or not target.alive:
            continue
        for weapon in c.weapons:
            mode = c.mode_of(weapon)
            why = refusal(state, C.Attack(c.id, target.id, weapon.key, float(weapon.normal)))
            chances = {}
            for band in BANDS:
                parts = attack_parts(state, c, target, weapon, mode, band)
                chances[band] = percent(test_odds(bonus_of(parts)).success)
            out.append(
                {
                    "target": target.id,
                    "target_name": target.name,
                    "foe": target.side != c.side,
                    "weapon": weapon.key,
                    "weapon_name": weapon.name,
                    "mode": mode,
                    "rolls": 1 if mode == "E" else 2,
                    "cost": weapon.attack_ap,
                    "close": weapon.close,
                    "normal": weapon.normal,
                    "maximum": weapon.maximum,
                    "covered": weapon.explosive and target.in_cover,
                    "p_close": chances["close"],
                    "p_normal": chances["normal"],
                    "p_far": chances["far"],
                    "enabled": why is None,
                    **why_of(why),
                }
            )
    return out


def stance_options(state: Encounter, c: Combatant) -> list[dict]:
    """Each stance with the weapon at hand, and each other weapon to take up from Normal."""
    out = []
    for stance in STANCES:
        command = C.Stance(c.id, stance)
        cost = None
        with contextlib.suppress(RulesError):
            cost = stance_plan(c, command)[0]
        why = refusal(state, command)
        out.append(
            {
                "stance": stance,
                "name": STANCE_NAMES[stance],
                "weapon": c.wielded or "",
                "cost": cost,
                "current": stance == c.stance,
                "enabled": why is None,
                **why_of(why),
            }
        )
    return out


def button(state: Encounter, key: str, command: dict, cost: int | None) -> dict:
    why = refusal(state, C.parse_command(command))
    return {
        "key": key,
        "for": command["id"],
        "command": command,
        "cost": cost,
        "enabled": why is None,
        **why_of(why),
    }


def roll_options(c: Combatant, names: Mapping[str, str] = NO_NAMES) -> list[dict]:
    """Every skill roll the combatant may make, with its bonus as things stand (stance,
    Utmattning, its standing modifier) and the exact chance of success before the roll."""
    options = []
    for key in C.ROLL_KEYS:
        bonus = bonus_of(other_parts(c, key))
        options.append({"key": key, "name": stat_name(key, names), "bonus": bonus,
                        "percent": percent(test_odds(bonus).success)})
    return options


def acting_view(
    state: Encounter, viewer: Viewer, names: Mapping[str, str] = NO_NAMES
) -> tuple[list[dict], list[dict]]:
    """The combatants this viewer may act with now (their forms' data) and the buttons."""
    acting, actions = [], []
    house = state.house
    for c in ordered(state):
        how = how_acting(state, c)
        if how is None or not mine(c, viewer):
            continue
        acting.append(
            {
                "id": c.id,
                "name": c.name,
                "how": how,
                "ap": c.ap if how == "turn" else c.saved,
                "stance": c.stance,
                "stance_name": STANCE_NAMES[c.stance],
                "wielded": c.wielded or "",
                "in_cover": c.in_cover,
                "x": c.x,
                "y": c.y,
                "fatigue": c.fatigue,
                "fatigue_floor": c.fatigue_floor,
                "weapons": [weapon_view(state, c, w, names) for w in c.weapons],
                "attack_options": attack_options(state, c),
                "stance_options": stance_options(state, c),
                "rolls": roll_options(c, names),
                "hurt": [
                    {"id": o.id, "name": o.name, "damage": o.damage if sees_numbers(o, viewer)
                     else None}
                    for o in state.combatants
                    if o.alive and (o.damage or not sees_numbers(o, viewer))
                ],
            }
        )
        actions.append(button(state, "cover", {"type": "cover", "id": c.id}, house.cover_ap))
        actions.append(
            button(state, "painkillers", {"type": "painkillers", "id": c.id}, house.painkiller_ap)
        )
        if how == "turn":
            actions.append(button(state, "end_turn", {"type": "end_turn", "id": c.id}, None))
        if how == "react":
            actions.append(button(state, "pass", {"type": "pass", "id": c.id}, None))
    return acting, actions


def view(state: Encounter, viewer: Viewer, names: Mapping[str, str] = NO_NAMES) -> dict:
    """The encounter as `viewer` sees it; `names`: the campaign's names for the abilities
    (`rules.t10.character.named_terms`, house rules), else the defaults."""
    active = state.get(state.active)
    acting, actions = acting_view(state, viewer, names)
    house = state.house
    return scene.seen({
        "system": "t10",
        "name": state.name,
        "round": state.round,
        "started": state.started,
        "ended": state.ended,
        "round_closed": state.round_closed,
        "takes_newcomers": not state.ended,  # a combatant may join a started fight
        "active": active.id if active else None,
        "active_name": active.name if active else "",
        "order": order_view(state, viewer),
        "combatants": [combatant_view(state, c, viewer, names) for c in state.combatants],
        "pending": pending_view(state, viewer, names),
        "prompts": prompts(state, viewer),
        "acting": acting,
        "actions": actions,
        "stances": [{"key": key, "name": STANCE_NAMES[key]} for key in STANCES],
        "skills": [{"key": key, "name": stat_name(key, names)} for key in C.ROLL_KEYS],
        "house": {
            "metres_per_ap": house.metres_per_ap,
            "cover_ap": house.cover_ap,
            "cover_modifier": house.cover_modifier,
            "burst_shots": house.burst_shots,
            "treat_ap": house.treat_ap,
            "treat_heal": house.treat_heal,
            "painkiller_ap": house.painkiller_ap,
        },
    }, state, viewer)


# The preview -------------------------------------------------------------------------------


def damage_odds(weapon, bonus: int) -> dict[int, Fraction]:
    """P(each damage one attack roll deals before Kroppsskydd) at `bonus`."""
    odds = test_odds(bonus)
    out: dict[int, Fraction] = {}

    def add(amount: int, p: Fraction) -> None:
        if p:
            out[amount] = out.get(amount, Fraction(0)) + p

    for degrees, p in odds.degrees.items():
        if degrees > 0:
            add(weapon.damage + degrees, p)
        elif degrees < 0:
            add(max(0, weapon.damage + degrees) if weapon.damage_on_miss else 0, p)
        else:  # 11 (a hit, no DoS) or 10 (a miss, no DoF)
            add(weapon.damage, odds.zero_success)
            add(weapon.damage if weapon.damage_on_miss else 0, p - odds.zero_success)
    return dict(sorted(out.items()))


def attack_preview(
    state: Encounter, cmd: C.Attack, viewer: Viewer = GM_VIEW, names: Mapping[str, str] = NO_NAMES
) -> dict:
    """Before an attack is sent: its cost, its bonus part by part and the exact chance to
    hit (`rules.t10.rolls.test_odds`) and damage per roll, at the distance given or, without
    one, within close, normal and beyond normal range; against a target whose numbers the
    viewer sees, what passes its Kroppsskydd. `why`: what would refuse it now (a stance,
    the turn), though the odds are shown."""
    try:
        attacker, target, weapon = K.attack_parties(state, cmd)
        mode = cmd.mode or attacker.mode_of(weapon)
        if weapon.modifier(mode) is None:
            refuse(_("{weapon} does not fire {mode}"), "mode", weapon=weapon.name, mode=mode)
        if cmd.distance is not None and range_band(weapon, cmd.distance) == "out":
            refuse(_("{target} is beyond {weapon}'s maximum range ({metres} m)"),
                   "out_of_range", target=target.name, weapon=weapon.name,
                   metres=weapon.maximum)
    except RulesError as error:
        return {"ok": False, **why_of(error)}
    bands = (range_band(weapon, cmd.distance),) if cmd.distance is not None else BANDS
    visible = sees_numbers(target, viewer)
    covered = weapon.explosive and target.in_cover
    rows = []
    for band in bands:
        parts = attack_parts(state, attacker, target, weapon, mode, band, cmd.modifier)
        bonus = bonus_of(parts)
        p_hit = test_odds(bonus).success
        amounts = damage_odds(weapon, bonus)
        row = {
            "band": band,
            "parts": [list(p) for p in parts],
            "bonus": bonus,
            "p_hit": 0.0 if covered else percent(p_hit),
            "p_any": 0.0 if covered else percent(1 - (1 - p_hit) ** (1 if mode == "E" else 2)),
            "damage": [] if covered else [
                {"amount": amount, "percent": percent(p)} for amount, p in amounts.items()
            ],
        }
        if visible and not covered:
            taken: dict[int, Fraction] = {}
            for amount, p in amounts.items():
                key = max(0, amount - target.protection)
                taken[key] = taken.get(key, Fraction(0)) + p
            row["taken"] = [{"amount": a, "percent": percent(p)} for a, p in sorted(taken.items())]
        rows.append(row)
    why = None
    if cmd.distance is None:
        why = refusal(state, C.Attack(cmd.id, cmd.target, cmd.weapon, float(weapon.normal),
                                      cmd.mode, cmd.modifier))
    else:
        why = refusal(state, cmd)
    data = {
        "ok": True,
        "weapon": weapon.name,
        "skill": stat_name(weapon.skill, names),
        "mode": mode,
        "rolls": 1 if mode == "E" else 2,
        "cost": weapon.attack_ap,
        "damage_value": weapon.damage,
        "damage_on_miss": weapon.damage_on_miss,
        "covered": covered,
        "distance": cmd.distance,
        "ranges": f"{weapon.close}/{weapon.normal}/{weapon.maximum}",
        "bands": rows,
        "p_hit": rows[0]["p_hit"] if len(rows) == 1 else None,
        "allowed": why is None,
        **why_of(why),
    }
    if visible:
        data["protection"] = target.protection
    return data


# The log -----------------------------------------------------------------------------------


def outcome_line(outcome, parts, visible: bool) -> dict:
    line = {"success": outcome.success, "visible": visible}
    if visible:
        line.update(
            dice=list(outcome.dice),
            bonus=outcome.bonus,
            total=outcome.total,
            dos=outcome.dos,
            dof=outcome.dof,
            parts=[list(p) for p in parts],
        )
    return line


def describe(
    state: Encounter, events, viewer: Viewer, names: Mapping[str, str] = NO_NAMES
) -> list[dict]:
    """The log lines of one record's events, as this viewer may read them (`state`: the
    encounter before them; `names` as `view` takes them)."""
    one = functools.partial(describe_one, names=names)
    return scene.log_lines(state, events, viewer, one, evolve)


def describe_one(
    state: Encounter, event, viewer: Viewer, names: Mapping[str, str] = NO_NAMES
) -> dict:
    if isinstance(event, E.CombatantAdded):
        return K.joined_line(event.combatant, event.carried)
    line = K.event_line(state, event)
    subject = state.get(getattr(event, "id", None) or getattr(event, "attacker", None))
    visible = sees_numbers(subject, viewer)
    if isinstance(event, E.InitiativeRolled):
        entries = []
        initiative = dict(event.initiative)
        for cid, dice in event.rolls:
            c = state.get(cid)
            seen = sees_numbers(c, viewer)
            entries.append(
                {
                    "name": name_of(state, cid),
                    "visible": seen,
                    "dice": list(dice) if seen else [],
                    "initiative": initiative.get(cid) if seen else None,
                    "total": initiative.get(cid, 0) + dice[0] if seen else None,
                }
            )
        line.update(reason=event.reason, entries=entries)
        return line
    if isinstance(event, E.RoundStarted):
        line["round"] = event.round
        return line
    if isinstance(event, (E.BegunContinued, E.ActionBegun, E.ActionLost, E.ReactionDeclared,
                          E.ReactionLost)):
        line.update(command_view(state, event.command, names))
        if isinstance(event, (E.ActionLost, E.ReactionLost)):
            line["why"] = event.why
        if isinstance(event, E.BegunContinued):
            line.update(done=event.done, paid=event.paid if visible else None)
        if isinstance(event, E.ActionBegun):
            line.update(cost=event.cost if visible else None, paid=event.paid if visible else None)
        return line
    if isinstance(event, E.APSpent):
        line.update(action=event.action, action_name=ACTION_NAMES.get(event.action, ""),
                    hidden=not visible)
        if visible:
            line.update(ap=event.ap, saved=event.saved)
        return line
    if isinstance(event, (E.TurnStarted, E.TurnEnded, E.Recovered, E.Reloaded)):
        data = encode(event)
        data.pop("_")
        for key in ("ap", "saved", "points", "rounds"):
            if key in data:
                line[key] = data[key] if visible else None
        if isinstance(event, E.Reloaded):
            line["weapon_name"] = weapon_name(subject, event.weapon)
        return line
    if isinstance(event, E.StanceChanged):
        line.update(stance=event.stance, stance_name=STANCE_NAMES[event.stance],
                    weapon_name=weapon_name(subject, event.weapon), steps=event.steps)
        return line
    if isinstance(event, E.ModeChanged):
        line.update(weapon_name=weapon_name(subject, event.weapon), mode=event.mode)
        return line
    if isinstance(event, E.SkillRolled):
        line.update(skill_name=stat_name(event.skill, names), label=event.label,
                    roll=outcome_line(event.outcome, event.parts, visible))
        return line
    if isinstance(event, E.Treated):
        line.update(target_name=name_of(state, event.target), healed=event.healed,
                    roll=outcome_line(event.outcome, event.parts, visible))
        return line
    if isinstance(event, E.PainkillersTaken):
        line["target_name"] = name_of(state, event.target)
        return line
    if isinstance(event, E.AttackDeclared):
        line.update(
            weapon_name=weapon_name(subject, event.weapon),
            mode=event.mode,
            distance=event.distance,
            waiting=[name_of(state, cid) for cid in event.waiting
                     if sees_numbers(state.get(cid), viewer)],
        )
        return line
    if isinstance(event, E.ReactionsClosed):
        line["reactions"] = [name_of(state, cid) for cid in event.reactions]
        return line
    if isinstance(event, E.AttackRolled):
        line.update(
            weapon_name=weapon_name(subject, event.weapon),
            mode=event.mode,
            distance=event.distance,
            covered=event.covered,
            reaction=event.reaction,
            rolls=[outcome_line(o, event.parts, visible) for o in event.rolls],
            ammo=event.ammo if visible else None,
        )
        return line
    if isinstance(event, E.AttackLost):
        line.update(weapon_name=weapon_name(subject, event.weapon), why=event.why)
        return line
    if isinstance(event, E.Damaged):
        target = state.get(event.id)
        seen = sees_numbers(target, viewer)
        line.update(weapon=event.weapon, dead=event.dead, unconscious=event.unconscious,
                    hidden=not seen)
        if seen:
            line.update(
                amount=event.amount,
                protection=event.protection,
                damage=event.damage,
                fatigue=event.fatigue,
                ap_lost=event.ap_lost,
                saved_lost=event.saved_lost,
                fatigue_after=target.fatigue + event.fatigue,
                damage_after=target.damage + event.damage,
            )
        return line
    if isinstance(event, E.RoundEnded):
        line["round"] = event.round
        return line
    if isinstance(event, (E.Moved, E.Acted)):
        line.update({k: v for k, v in encode(event).items() if k not in ("_", "id")})
        return line
    return line


def weapon_name(c: Combatant | None, key: str | None) -> str:
    weapon = c.weapon(key) if c is not None else None
    return weapon.name if weapon is not None else (key or "")
