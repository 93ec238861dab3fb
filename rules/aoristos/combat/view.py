"""What the pages and the API show of an Aoristos encounter: plain data, per viewer.

NPC statistics stay the GM's: players see an NPC's name, place, posture, the state of
its limbs and whether it is up, never its numbers (KP, nervchock, TB, armour, weapons'
stats, its dice totals).
"""

import json
import math
from dataclasses import replace
from itertools import combinations

from rules import scene
from rules.aoristos.combat import commands as C
from rules.aoristos.combat import engine as X
from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.attacks import (
    attack_plan,
    attack_setup,
    declaration,
    threshold_parts,
)
from rules.aoristos.combat.fold import evolve
from rules.aoristos.combat.gear import LIMBS
from rules.aoristos.combat.movement import move_bands, move_plan, watch_triggers
from rules.aoristos.combat.outcome import hit_chance, odds
from rules.aoristos.combat.reading import attack_facts, effective_movement, needs_ammo
from rules.aoristos.combat.state import POSTURES, UNARMED, Combatant, Encounter, PendingAttack
from rules.aoristos.combat.vigilance import (
    COVER_WITHIN,
    default_vigilance,
    known_cover,
    move_reach,
    vigilance_bonus,
    vigilance_move_plan,
    vigilance_options,
)
from rules.combat_kit import (
    GM_VIEW,
    LowestDice,
    decided,
    move_preview_base,
    percent,
    sees_numbers,
    why_of,
)
from rules.engine import Viewer, encode
from rules.errors import RulesError

AREA_ORDER = ("head", "torso", *LIMBS)  # the card lists the areas hit in this order


def combatant_view(state: Encounter, c: Combatant, viewer: Viewer) -> dict:
    active = state.active
    data = {
        "id": c.id,
        "name": c.name,
        "side": c.side,
        "npc": c.npc,
        "character_id": c.character_id,
        "x": c.x,
        "y": c.y,
        "posture": c.posture,
        "alive": c.alive,
        "conscious": c.conscious,
        "active": active is not None and active.id == c.id,
        "limbs": [{"area": limb, "state": c.limb(limb)} for limb in LIMBS],
        "hurt_limbs": [limb for limb in LIMBS if c.limb(limb) != "ok"],
        # Every area hit in this fight: its limb state (a limb hit below 3 damage is
        # wounded, p. 14) and, for those who see the numbers, the damage there.
        "wounds": [
            {
                "area": area,
                "state": c.limb(area) if area in LIMBS and c.limb(area) != "ok" else "wounded",
                "damage": taken if sees_numbers(c, viewer) else None,
            }
            for area, taken in sorted(c.area_damage, key=lambda pair: AREA_ORDER.index(pair[0]))
        ]
        + [
            {"area": limb, "state": c.limb(limb), "damage": None}
            for limb in LIMBS
            if c.limb(limb) != "ok" and limb not in dict(c.area_damage)
        ],
        "held": [(c.weapon(k) or UNARMED).name for k in c.held],
        # p. 7: an armed grenade in the hand, or let fall and lying armed at its feet.
        "armed": [
            (c.weapon(k) or UNARMED).name
            for k in (c.wound_up,)
            if k in c.held and (w := c.weapon(k)) is not None and w.explosive
        ],
        "armed_on_ground": [(c.weapon(k) or UNARMED).name for k in c.armed_on_ground],
        "controlled": viewer.is_gm or c.id in viewer.controls,
        "numbers": sees_numbers(c, viewer),
        # The round's trail on the map (positions are public) and, for who commands the
        # active combatant, what a move costs by its distance (p. 7).
        "path": [[x, y] for x, y in c.path],
        "move_bands": (
            move_bands(state, c)
            if active is not None
            and active.id == c.id
            and (viewer.is_gm or c.id in viewer.controls)
            else None
        ),
    }
    if sees_numbers(c, viewer):
        data.update(
            cp=c.cp,
            drive=F.effective_drive(c.drive, c.nerve_shock),
            stress_dice=c.stress_dice,
            stress_loss=c.stress_loss,
            vigilance_bonus=c.vigilance_bonus,
            nerve_shock=c.nerve_shock,
            lasting_nerve_shock=c.lasting_nerve_shock,
            bleed_rate=c.bleed_rate,
            organ_trauma=c.organ_trauma,
            shock_tolerance=c.shock_tolerance,
            toughness=c.toughness,
            movement=effective_movement(c),
            moved=c.moved,
            initiative=c.initiative,
            attributes={
                "physique": c.physique,
                "composure": c.composure,
                "agility": c.agility,
                "alertness": c.alertness,
                "willpower": c.willpower,
            },
            skills=[(k, v) for k, v in c.skills if v],
            weapons=[
                {
                    "key": w.key,
                    "name": w.name,
                    "held": w.key in c.held,
                    "packed": w.key in c.packed,
                    "modes": [m.text for m in w.modes],
                    "rounds": c.rounds(w.key) if needs_ammo(w) else None,
                    "capacity": w.capacity if needs_ammo(w) else None,
                }
                for w in c.weapons
            ],
            armour=[{"name": a.name, "areas": dict(a.areas)} for a in c.armour],
            total_armour=F.total_armour(c.armour),
            extended=(
                {"label": c.extended.label, "remaining": c.extended.remaining}
                if c.extended
                else None
            ),
            wound_up=c.wound_up,
            range_aim=c.range_aim,
            overwatch=c.overwatch,
            hidden_areas=sorted(c.hidden_areas),
            cover=dict(c.cover),
            hard_to_locate=c.hard_to_locate,
            aware=c.aware,
        )
    return data


def view(state: Encounter, viewer: Viewer) -> dict:
    active = state.active
    order = [state.get(cid) for cid in state.order]
    data = {
        "system": "aoristos",
        "name": state.name,
        "round": state.round,
        "started": bool(state.round),
        # The GM may add a combatant to a started fight too (it takes its initiative place).
        "takes_newcomers": not state.ended and not state.single,
        "single": state.single,
        "ended": state.ended,
        "active": active.id if active else None,
        "order": [
            {
                "id": c.id,
                "name": c.name,
                "up": c.acts,
                "alive": c.alive,
                "initiative": c.initiative if sees_numbers(c, viewer) else None,
            }
            for c in order
            if c is not None
        ],
        "combatants": [combatant_view(state, c, viewer) for c in state.combatants],
        "surprise": dict(state.surprise),
        "house": {
            "movement_by_round_total": state.house.movement_by_round_total,
            "melee_reach": state.house.melee_reach,
            "vigilance_cover_areas": state.house.vigilance_cover_areas,
            "hard_to_locate": state.house.hard_to_locate,
            "pack_extra_cp": state.house.pack_extra_cp,
        },
        # The GM's situational ST modifier on every attack (issue 45).
        "situation": {"modifier": state.situation, "label": state.situation_label},
        "attack": attack_view(state, viewer),
        "prompts": prompts(state, viewer),
        "actions": [],
    }
    if active is not None and not state.waiting and (viewer.is_gm or active.id in viewer.controls):
        data["actions"] = actions(state, active)
    return scene.seen(data, state, viewer)


def attack_view(state: Encounter, viewer: Viewer) -> dict | None:
    attack = state.attack
    if attack is None:
        return None
    attacker = state.get(attack.attacker)
    target = state.get(attack.target)
    data = {
        "attacker": attacker.id,
        "attacker_name": attacker.name,
        "target": target.id,
        "target_name": target.name,
        "weapon": (attacker.weapon(attack.weapon) or UNARMED).name,
        "stage": attack.stage,
        "aim": attack.aim,
    }
    if attack.roll is not None:
        rolled = attack.roll
        data["hit"] = rolled.hit
        data["area"] = rolled.area
        if sees_numbers(attacker, viewer):
            data.update(total=rolled.total, threshold=rolled.threshold, dice=rolled.dice)
    return data


def vigilance_chances(
    state: Encounter, attack: PendingAttack, options: dict, move=None
) -> dict[str, float]:
    """The attacker's chance to hit for every choice of up to three properties (p. 8-9):
    `outcome.hit_chance` of the engine's own setup and ST (`threshold_parts`), the range
    counted where the vigilance move ends (`move`: the target's chosen one, for the
    choices with RÖR; None: the engine's own 1 m)."""
    setup = attack_setup(state, attack, ())
    target = state.get(attack.target)
    end = None if move is None else (move.to or (target.x, target.y))
    chances = {}
    keys = list(options)
    for size in range(0, F.VIGILANCE_MAX + 1):
        for chosen in combinations(keys, size):
            point = end if "agility" in chosen else None
            threshold = sum(v for _, v in threshold_parts(state, attack, chosen, None, None, point))
            chances["+".join(sorted(chosen))] = percent(
                hit_chance(replace(setup, threshold=threshold))
            )
    return chances


def vigilance_prompt(state: Encounter, attack: PendingAttack) -> dict:
    """The target's choice with the chance each leaves the attacker (p. 8-9): the same
    odds as the attack preview (`outcome.hit_chance`), auto fire and hidden areas in."""
    attacker = state.get(attack.attacker)
    target = state.get(attack.target)
    weapon = attacker.weapon(attack.weapon) or UNARMED
    options = vigilance_options(state, attack)
    bonus = vigilance_bonus(state, target)
    default = default_vigilance(options, bonus[1])
    chances = vigilance_chances(state, attack, options)
    return {
        "kind": "vigilance",
        "for": attack.target,
        "attacker": attacker.name,
        "target_name": target.name,
        "weapon": weapon.name,
        "options": [{"key": k, "value": v} for k, v in options.items()],
        "bonus": bonus,
        "default": list(default),
        "chances": chances,
        "chances_json": json.dumps(chances),
        "default_chance": chances["+".join(sorted(default))],
        "vigilance_move": vigilance_move_reach(state, attack) if "agility" in options else None,
    }


def vigilance_move_reach(state: Encounter, attack: PendingAttack) -> dict | None:
    """Where RÖR in vigilance may take the target (p. 9), for the map and the prompt: in
    melee 1 m away from the attacker (`to`), with the others of its side in the melee who
    may follow (`followers`); at range at least 1 m and up to its RÖR in metres (`reach`)
    toward the drawn cover it knows within 10 m (`covers`, their indices on the map), else
    square to the line of fire (`to`: the engine's 1 m there), and 1 m of it may be a dive
    to the ground (`prone`). None in cover."""
    facts = attack_facts(state, attack)
    to = facts.move_to
    if to is None:
        return None
    target = facts.target
    melee = facts.melee_attack
    followers = []
    if melee:
        followers = [
            {"id": o.id, "name": o.name}
            for o in state.combatants
            if o.id != target.id and o.side == target.side and o.acts
            and math.hypot(o.x - target.x, o.y - target.y) <= state.house.melee_reach
        ]
    return {"id": target.id, "x": target.x, "y": target.y, "to": list(to), "melee": melee,
            "reach": move_reach(target, melee), "cover_within": COVER_WITHIN,
            "covers": [] if melee else [index for index, _shape in known_cover(state, target)],
            "prone": not melee, "followers": followers,
            "attacker": [facts.attacker.x, facts.attacker.y]}


def vigilance_preview(
    state: Encounter, cid: str, x: float | None, y: float | None, prone: bool = False
) -> dict:
    """The vigilance move of `cid` to (x, y) before it is chosen (the map's tap during the
    prompt, p. 9): refused as the engine refuses it (`vigilance.vigilance_move_plan`, the
    very check `decide` makes), else its metres, whether it ends in proper cover (the
    areas hidden against hits with no area, p. 12) and the attacker's chance to hit for
    every choice of properties (`vigilance_chances`, the range from where it ends)."""
    attack = state.attack
    out = move_preview_base(cid, x, y, None, unit="KP", vigilance=True, prone=prone)
    if attack is None or attack.stage != "vigilance" or attack.target != cid:
        out["refused"] = {"code": "no_attack", "params": {},
                          "message": "no attack waits for this combatant's vigilance"}
        return out
    facts = attack_facts(state, attack)
    try:
        try:
            move = vigilance_move_plan(state, attack, facts, x, y, prone)
        except RulesError as error:
            if error.code != "toward_cover":
                raise
            # Toward cover the map does not show: the GM confirms it (`_confirm_move`),
            # and the chances are from where it would end.
            move = vigilance_move_plan(state, attack, facts, x, y, prone, (), trusted=True)
            out["confirm"] = True
    except RulesError as error:
        out["refused"] = {"code": error.code, "message": error.template or str(error),
                          "params": dict(error.params)}
        return out
    options = vigilance_options(state, attack, facts)
    chances = vigilance_chances(state, attack, options, move)
    out.update(metres=move.metres, cost=0, to=list(move.to) if move.to else None,
               cover_after=move.cover_after, chances=chances)
    return out


def follow_prompt(state: Encounter, attack: PendingAttack, reaction) -> dict:
    """A foe in the melee on the target's vigilance move (p. 9: "Alla andra i striden får
    hänga på ... om de vill"): follow it as far the same way (`to`, `metres`, no KP), or
    stay. For the foe's own controller: its player, or the GM for an NPC."""
    who = state.get(reaction.who)
    target = state.get(reaction.target)
    dx, dy, metres = attack.step
    return {
        "kind": "follow",
        "for": who.id,
        "who": who.name,
        "target": target.id,
        "target_name": target.name,
        "attacker": state.get(attack.attacker).name,
        "is_attacker": who.id == attack.attacker,
        "metres": metres,
        "to": [round(who.x + dx, 2), round(who.y + dy, 2)],
    }


def prompts(state: Encounter, viewer: Viewer) -> list[dict]:
    attack = state.attack
    if attack is not None and attack.stage == "confirm":
        # The GM's: a vigilance move toward cover the map does not show (p. 9). "for" is
        # nobody's combatant, so the banner calls the GM, whoever the target is.
        target = state.get(attack.target)
        _properties, to, prone = attack.proposal
        return [{
            "kind": "confirm_move", "for": "", "mine": viewer.is_gm, "target": target.id,
            "who": target.name, "to": list(to), "prone": prone,
            "metres": round(math.hypot(to[0] - target.x, to[1] - target.y), 2),
            "areas": state.house.vigilance_cover_areas,
        }]
    if attack is not None and attack.stage == "vigilance":
        prompt = vigilance_prompt(state, attack)
    elif attack is not None and attack.stage == "follow" and state.reactions:
        prompt = follow_prompt(state, attack, state.reactions[0])
    elif attack is not None:
        prompt = {"kind": "abort", "for": attack.attacker, "area": attack.roll.area}
    elif state.reactions:
        reaction = state.reactions[0]
        who = state.get(reaction.who)
        target = state.get(reaction.target)
        prompt = {
            "kind": reaction.kind,
            "for": who.id,
            "who": who.name,
            "target": target.id,
            "target_name": target.name,
            "must": reaction.must,
            "aim_allowed": reaction.kind == "free_attack",
            "weapons": [{"key": k, "name": (who.weapon(k) or UNARMED).name} for k in who.held]
            + [{"key": "unarmed", "name": UNARMED.name}],
            "cp": who.cp,
        }
    elif state.escape is not None and not state.escape.decided:
        mover = state.get(state.escape.mover)
        prompt = {"kind": "escape", "for": mover.id, "who": mover.name}
    else:
        return []
    prompt["mine"] = (
        viewer.is_gm and state.get(prompt["for"]).npc or prompt["for"] in (viewer.controls)
    )
    return [prompt]


def action(key: str, cost, command: dict, *, why=None, **extra) -> dict:
    """An action the active combatant could take; `why` (a RulesError, or English text)
    says why not: its English message, and its template and params to translate."""
    reason = why_of(why)
    return {"key": key, "cost": cost, "command": command, "enabled": not why, **reason, **extra}


def try_cost(state: Encounter, command) -> tuple[int | None, RulesError | None]:
    """What a command would cost now, or why it cannot be given."""
    try:
        events = X.decide(state, command, LowestDice())
    except RulesError as error:
        return None, error
    cost = 0
    for event in events:
        cost += getattr(event, "cost", 0) or 0
        if isinstance(event, E.ExtendedStarted):
            return event.paid + event.remaining, None
    return cost, None


def actions(state: Encounter, c: Combatant) -> list[dict]:
    """What the active combatant can do now, with costs; the others greyed with why."""
    out = []
    for posture in POSTURES:
        if posture != c.posture:
            cost, why = try_cost(state, C.ChangePosture(c.id, posture))
            out.append(
                action(
                    "posture",
                    cost,
                    {"type": "posture", "id": c.id, "posture": posture},
                    why=why,
                    posture=posture,
                )
            )
    cost, why = try_cost(state, C.Scan(c.id))
    out.append(action("scan", cost, {"type": "scan", "id": c.id}, why=why))
    cost, why = try_cost(state, C.Talk(c.id, 3))
    out.append(action("talk", cost, {"type": "talk", "id": c.id, "syllables": 3}, why=why))
    for weapon in c.weapons:
        if weapon.key not in c.held:
            hand = "both" if 1 not in weapon.hands else "right" if c.right is None else "left"
            cost, why = try_cost(state, C.Draw(c.id, weapon.key, hand))
            out.append(
                action(
                    "draw",
                    cost,
                    {"type": "draw", "id": c.id, "weapon": weapon.key, "hand": hand},
                    why=why,
                    weapon=weapon.name,
                )
            )
        else:
            if weapon.windup and c.wound_up != weapon.key:
                cost, why = try_cost(state, C.Windup(c.id, weapon.key))
                out.append(
                    action(
                        "windup",
                        cost,
                        {"type": "windup", "id": c.id, "weapon": weapon.key},
                        why=why,
                        weapon=weapon.name,
                    )
                )
            if needs_ammo(weapon) and c.rounds(weapon.key) < weapon.capacity:
                cost, why = try_cost(state, C.Reload(c.id, weapon.key))
                out.append(
                    action(
                        "reload",
                        cost,
                        {"type": "reload", "id": c.id, "weapon": weapon.key},
                        why=why,
                        weapon=weapon.name,
                    )
                )
    for ally in state.combatants:  # p. 11: an assistant feeds a belt for OL 5
        if ally.id == c.id or ally.side != c.side or not ally.acts:
            continue
        for weapon in ally.weapons:
            if weapon.belt and ally.rounds(weapon.key) < weapon.capacity:
                command = C.Reload(c.id, weapon.key, gunner=ally.id)
                cost, why = try_cost(state, command)
                out.append(
                    action(
                        "reload_for",
                        cost,
                        {"type": "reload", "id": c.id, "weapon": weapon.key, "gunner": ally.id},
                        why=why,
                        weapon=f"{weapon.name} ({ally.name})",
                    )
                )
    for hand in ("right", "left"):
        if getattr(c, hand):
            cost, why = try_cost(state, C.Stow(c.id, hand))
            out.append(
                action(
                    "stow",
                    cost,
                    {"type": "stow", "id": c.id, "hand": hand},
                    why=why,
                    weapon=(c.weapon(getattr(c, hand)) or UNARMED).name,
                )
            )
    if c.extended:
        _cost, why = try_cost(state, C.Continue(c.id))
        out.append(
            action(
                "continue",
                min(c.cp, c.extended.remaining),
                {"type": "continue", "id": c.id},
                why=why,
                label=c.extended.label,
            )
        )
    out.append(action("end_activation", 0, {"type": "end_activation", "id": c.id}))
    return out


def move_preview(state: Encounter, cid: str, x: float, y: float) -> dict:
    """What a Move of `cid` to (x, y) would come to, exact by construction (the map asks
    it before a move, p. 6-7, 10-11): refused when the engine's own `decide` refuses it
    (`refused`: the error's code, untranslated template and params), its KP by
    `movement.move_plan` (p. 7) and paid as `pay` pays them: now, or begun as an extended
    activity with the rest owed (p. 6); the foes it escapes with an opposed RÖR test
    first (p. 10), and the watchers whose sphere it enters (p. 11; called only once the
    move is made, after an escape that went well). The numbers are given for a refused
    move too, where they can be counted."""
    _events, refused = decided(X.decide, state, C.Move(cid, x, y))
    out = move_preview_base(cid, x, y, refused, unit="KP")
    c = state.get(cid)
    if c is None:
        return out
    plan = move_plan(state, c, x, y)
    cost = plan.cost
    there = state.put(c.with_(x=x, y=y))
    out.update(
        metres=plan.metres,
        cost=cost,
        cp=c.cp,
        extended=cost is not None and cost > c.cp,
        now=0 if cost is None else min(cost, max(c.cp, 0)),
        later=0 if cost is None else max(0, cost - max(c.cp, 0)),
        escape=[o.id for o in plan.escaping],
        watchers=[r.who for r in watch_triggers(there, c.id)],
    )
    return out


def attack_preview(state: Encounter, cmd: C.Attack, viewer: Viewer = GM_VIEW) -> dict:
    """Before an attack is committed: its cost and the exact distribution of its outcome
    against the target's suggested vigilance (p. 8-13): the chance to hit, the damage,
    and where it lands with the damage there (`outcome.odds`, the distribution of the
    function the engine resolves the attack with). Auto fire's projectiles, hidden areas,
    each area's armour and cover, the head's constant 2 and the area-less hits of
    explosions and 4+ projectiles are in it."""
    attacker = state.get(cmd.id)
    try:
        if attacker is None:
            raise RulesError("no such combatant")
        plan = attack_plan(state, attacker, cmd)
    except RulesError as error:
        return {"ok": False, **why_of(error)}
    target = plan["target"]
    # The state as it would be once the attack is declared (its cost aside).
    probe = evolve(state, declaration(attacker, cmd, plan, cost=0))
    pending = probe.attack
    if target.aware and target.acts:
        bonus = vigilance_bonus(probe, target)[1]
        chosen = default_vigilance(vigilance_options(probe, pending), bonus)
    else:
        chosen = ()
    parts = threshold_parts(probe, pending, chosen)
    setup = attack_setup(probe, pending, chosen)
    result = odds(setup)
    shots = list(result.shots)
    if not sees_numbers(target, viewer):  # an NPC's vigilance values stay the GM's
        parts, chosen = [], ()
    return {
        "ok": True,
        "cost": plan["cost"],
        # The attack hand at the fewest projectiles (`hand_shots`; the only one but for
        # auto fire, where each count of `shots` names its own hand, p. 9, 11).
        "hand": str(setup.hand(shots[0])),
        "hand_shots": shots[0],
        "hands": [str(setup.hand(n)) for n in (shots[0], shots[-1])] if len(shots) > 1 else [],
        "test_base": setup.test_base,
        "threshold": setup.threshold if parts or not target.npc or viewer.is_gm else None,
        "threshold_parts": parts,
        "vigilance": list(chosen),
        "p_hit": percent(result.p_hit),
        "p_miss": percent(result.miss),
        "p_hidden": percent(result.hidden),
        "damage": [{"damage": k, "percent": percent(p)} for k, p in result.damage().items()],
        "areas": [
            {
                "area": area,
                "percent": percent(sum(spread.values())),
                "damage": [{"damage": k, "percent": percent(p)} for k, p in spread.items()],
            }
            for area, spread in result.areas().items()
        ],
        "shots": [
            {"shots": n, "percent": percent(p), "hand": str(setup.hand(n))}
            for n, p in result.shots.items()
        ],
        "area_rule": area_rule(setup, result),
        "called_area": cmd.area,
        "aim_conditions": plan["conditions"],
        # The GM's situational ST (in `threshold` too), shown to everyone: no NPC secret.
        "situation": {"modifier": state.situation, "label": state.situation_label},
    }


def area_rule(setup, result) -> str:
    """Which area the figures assume (p. 9): "none" (no hit area: explosions, 4+
    projectiles), "rolled" (the plain 1B decides), "mixed" (auto fire: some bursts
    have an area, some not), or "choice" (a free area hand: the wanted area where the
    dice allow it, else the area that hurts most)."""
    with_area = [setup.has_area(n) for n in result.shots]
    if not any(with_area):
        return "none"
    if not all(with_area):
        return "mixed"
    return "choice" if setup.aim else "rolled"


def describe(state: Encounter, events, viewer: Viewer) -> list[dict]:
    """The log lines of one command's events, as this viewer may read them. `state` is
    the encounter before the events (for names and who is an NPC)."""
    return scene.log_lines(state, events, viewer, describe_one, evolve)


def describe_one(state: Encounter, event, viewer: Viewer) -> dict:
    """One event's log line (`state`: the encounter just before it)."""
    data = encode(event)
    kind = data.pop("_")
    if kind == "ReactionCalled":  # its own "kind" is the reaction's: the line's is the event's
        data["reaction"] = data.pop("kind")
    if kind == "CombatantAdded":
        c = event.combatant
        return {"kind": kind, "id": c.id, "name": c.name, "npc": c.npc, "side": c.side}
    names = {}
    if kind == "CombatStarted":
        names["order_names"] = [state.get(cid).name for cid in event.order]
    if kind == "Scanned":
        names["seen_names"] = [state.get(cid).name for cid in event.seen]
        names["test_lines"] = [
            {
                "name": state.get(t[0]).name,
                "dice": t[1],
                "total": t[2],
                "threshold": t[3],
                "ok": t[4],
            }
            for t in event.tests
        ]
    if kind == "VigilanceChosen" and event.followers:
        names["follower_names"] = [state.get(cid).name for cid in event.followers]
    for field in ("id", "attacker", "target", "mover", "who"):
        if isinstance(data.get(field), str) and (who := state.get(data[field])) is not None:
            names[f"{field}_name"] = who.name
    subject = state.get(
        data.get("id")
        or data.get("attacker")
        or data.get("mover")
        or data.get("who")
        or data.get("target")
        or ""
    )
    if isinstance(data.get("weapon"), str) and subject is not None:
        names["weapon_name"] = (subject.weapon(data["weapon"]) or UNARMED).name
    windup = getattr(event, "windup", None)
    if windup and subject is not None:  # p. 7: what an interrupted windup left
        key, outcome = (data["weapon"], windup) if isinstance(windup, str) else windup
        names["windup_name"] = (subject.weapon(key) or UNARMED).name
        names["windup_outcome"] = outcome
    if kind == "Reloaded" and event.gunner and (gunner := state.get(event.gunner)) is not None:
        names["gunner_name"] = gunner.name  # p. 11: an assistant fed the gunner's belt
        names["weapon_name"] = (gunner.weapon(event.weapon) or UNARMED).name
    for key in ("dropped",):
        if data.get(key) and subject is not None:
            names["dropped_names"] = [(subject.weapon(k) or UNARMED).name for k in data[key]]
    if not sees_numbers(subject, viewer):
        for private in PRIVATE.get(kind, ()):
            data.pop(private, None)
        data["hidden"] = True
    if kind == "AttackResolved" and not sees_numbers(state.get(event.target), viewer):
        for private in (
            "strength_parts",
            "active_strength",
            "protection",
            "final_strength",
            "damage",
        ):
            data.pop(private, None)
        data["hidden"] = True
    return {"kind": kind, **names, **data}


# Numbers of an NPC that players do not see in the log.
PRIVATE = {
    "JoinedFight": ("initiative",),
    "ActivationStarted": ("dice", "loss", "bow_test"),
    "ActivationEnded": ("vigilance_bonus", "nerve_shock", "cp"),
    "AttackDeclared": ("cost", "aim"),
    "AttackRolled": ("test_base", "total", "dice", "counted", "hand"),
    "Moved": ("cost",),
    "KpSpent": ("cost",),
    "Scanned": ("test_lines", "tests"),
    "PostureChanged": ("cost",),
    "HandsChanged": ("cost",),
    "Reloaded": ("cost", "rounds"),
    "ExtendedStarted": ("paid", "remaining", "command"),
    "ExtendedPaid": ("paid", "remaining"),
    "Wounded": ("damage", "nerve_shock", "bleed_rate", "organ_trauma", "survival", "vil_tests"),
    "VigilanceChosen": ("parts", "properties"),
    "EscapeTested": ("mover_base", "foes_base", "cost"),
}
