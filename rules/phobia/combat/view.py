"""What the pages and the API show of a Phobia encounter: plain data, per viewer.

NPC numbers stay the GM's (as in Aoristos): players see an NPC's name, side, whether it
is up, in cover or fled, its serious injuries by name, and whether its attacks hit;
never its values, boxes, difficulties or dice.
"""

from collections.abc import Mapping
from typing import Any

from rules import combat_kit as K
from rules import scene
from rules.combat_kit import GM_VIEW, mine, name_of, percent, refuse, sees_numbers, why_of
from rules.engine import Viewer, encode
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.phobia.character import ATTRIBUTE_TERMS, DERIVED_TERMS, SKILL_TERMS
from rules.phobia.combat import commands as C
from rules.phobia.combat import engine as X
from rules.phobia.combat import events as E
from rules.phobia.combat.attacks import (
    COVER_ATTRIBUTE,
    COVER_SKILL,
    DEFEND_DIFFICULTY,
    attack_parts,
    defend_skill,
    response_parts,
    shoot_back_weapon,
)
from rules.phobia.combat.damage import body_of, death_parts, shock_parts
from rules.phobia.combat.fold import evolve
from rules.phobia.combat.movement import move_bands
from rules.phobia.combat.movement import move_preview as move_preview  # the engine's preview
from rules.phobia.combat.reading import difficulty_of, skill_parts
from rules.phobia.combat.rounds import order_key, queue
from rules.phobia.combat.state import AREAS, ATTRIBUTE_KEYS, RESPONSES, Combatant, Encounter
from rules.phobia.dice import ObDice, p_at_most
from rules.phobia.injuries import (
    DEFAULT_COLUMNS,
    DEFAULT_PER_ROW,
    ROWS,
    Area,
    filled_rows,
    overflow_boxes,
    row_difficulty,
    skill_difficulty_added,
)
from rules.phobia.success import odds

# Game terms, Swedish on every page.
STAT_NAMES = {term.key: term.abbr or term.swedish for term in ATTRIBUTE_TERMS}
STAT_NAMES |= {term.key: term.swedish for term in SKILL_TERMS}
STAT_NAMES |= {key: term.swedish for key, term in DERIVED_TERMS.items()}
AREA_NAMES = {area.value: area.swedish.capitalize() for area in Area}
RESPONSE_NAMES = {
    "defend": "Försvara sig",
    "cover": "Söka skydd",
    "flee": "Fly",
    "shoot_back": "Skjuta tillbaka",
}
MOVE_NAMES = {"": "", "move": "Förflytta sig", "run": "Springa", "sprint": "Spurta"}
SECTION_NAMES = {"trauma": "Trauma", "pain": "Smärta", "blood_loss": "Blodförlust"}
# What each section's rows make harder (lines 1017-1024, 1034-1045, 1113-1122).
SECTION_AFFECTS = {
    "trauma": ("death", "shock"),
    "pain": ("shock", "skills"),
    "blood_loss": ("death", "shock"),
}
SIDE_NAMES = {"left": "vänster", "right": "höger"}


def stat_name(key: str) -> str:
    return STAT_NAMES.get(key, key)


def clock(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{rest:02d}" if hours else f"{minutes}:{rest:02d}"


def section(state: Encounter, key: str, boxes: int) -> dict:
    """A damage section as the encounter's panel draws it, by the encounter's house rules."""
    return damage_section(key, boxes, state.house.damage_columns, state.house.row_difficulty)


def damage_section(key: str, boxes: int, cols: int, per: int) -> dict:
    """A damage section as the sheet draws it (lines 164-172): ten rows of `cols` boxes
    (the damage columns), each with the Ob dice (`per` a full row) it adds once full. The
    encounter's panel and the character's sheet (`damage_sheet`) both draw it so."""
    rows = []
    for index in range(ROWS):
        filled = min(max(boxes - index * cols, 0), cols)
        rows.append(
            {
                "boxes": [i < filled for i in range(cols)],
                "full": filled == cols,
                "adds": (index + 1) * per,
            }
        )
    return {
        "key": key,
        "name": SECTION_NAMES[key],
        "boxes": boxes,
        "rows": rows,
        "filled": filled_rows(boxes, cols),
        "adds": row_difficulty(boxes, cols, per),
        "overflow": overflow_boxes(boxes, cols),
        "affects": list(SECTION_AFFECTS[key]),
    }


def damage_sheet(state: Encounter | None, character_id: int, house: Mapping[str, Any]) -> dict:
    """A character's damage rows for its sheet (lines 164-172, 1017-1122): Trauma, Smärta
    and Blodförlust as the paper form has them, in the campaign's damage columns and
    difficulty per row (`house`: the campaign's house rules, or the system's defaults),
    with what the character took in `state` (an encounter, or None: no fight yet).
    `recorded`: whether `state` has a combatant of the character (its first); without
    one every box is empty. The sheet is the character's own: its numbers show."""
    cols = int(house.get("damage_columns", DEFAULT_COLUMNS))
    per = int(house.get("row_difficulty", DEFAULT_PER_ROW))
    found = state.of_character(character_id) if state is not None else None
    c = found or Combatant(id="", name="")  # no fight yet: nothing taken
    sections = [
        damage_section("trauma", c.trauma, cols, per),
        damage_section("pain", c.pain, cols, per),
        damage_section("blood_loss", c.bleeding.loss, cols, per),
    ]
    for drawn in sections:
        for row in drawn["rows"]:
            row["filled"] = sum(row["boxes"])
    return {
        "recorded": found is not None,
        "columns": cols,
        "row_difficulty": per,
        "sections": sections,
        "injuries": [injury_view(i) for i in c.injuries],
        "bleed_rate": c.bleeding.rate,
        "blood_loss": c.bleeding.loss,
        "alive": c.alive,
        "conscious": c.conscious,
        "ongoing": [o.code for o in c.ongoing],
        "skill_adds": skill_difficulty_added(c.pain, cols, per),
    }


def turn_status(state: Encounter, c: Combatant) -> str:
    if not c.alive:
        return "dead"
    if not c.conscious:
        return "unconscious"
    if not state.round or state.round_closed:
        return "waiting"
    if state.active == c.id:
        return "active"
    if c.fled:
        return "fled"
    if c.turn_over:
        return "done"
    if c.current_to <= 0:
        return "no_actions"
    if c.aim is not None:
        return "aiming"
    if c.waiting is not None:
        return "waiting_for"
    return "waiting"


def injury_view(injury) -> dict:
    return {
        "area": injury.area,
        "area_name": AREA_NAMES[injury.area],
        "damage_type": injury.damage_type,
        "roll": injury.roll,
        "name": injury.name,
        "codes": list(injury.codes),
        "line": injury.line,
        "outcomes": [
            {"code": code, "outcome": SIDE_NAMES.get(outcome, outcome)}
            for code, outcome in injury.outcomes
        ],
    }


def combatant_view(state: Encounter, c: Combatant, viewer: Viewer) -> dict:
    data = {
        **K.combatant_basics(state, c, turn_status(state, c)),
        "fled": c.fled,
        "move_mode": c.move_mode,
        "move_name": MOVE_NAMES[c.move_mode],
        "injuries": [injury_view(i) for i in c.injuries],
        "controlled": viewer.is_gm or c.id in viewer.controls,
        "numbers": sees_numbers(c, viewer),
        # Where it stands and the round's trail (positions are public) and, for who
        # commands the combatant whose turn it is, the moves it may make (lines 261-271).
        "x": c.x,
        "y": c.y,
        "path": [[x, y] for x, y in c.path],
        "move_bands": move_bands(state, c) if state.active == c.id and mine(c, viewer) else None,
        # Invänta mål (lines 745-750): whom it waits for ("" any foe), public as its aim is.
        "waiting": c.waiting,
        "waiting_name": name_of(state, c.waiting) if c.waiting else "",
    }
    if not sees_numbers(c, viewer):
        return data
    house = state.house
    aim = None
    if c.aim is not None:
        target = state.get(c.aim.target)
        aim = {
            "target": c.aim.target,
            "target_name": target.name if target else "?",
            "lost": c.aim.lost,
        }
    data.update(
        attributes=[
            {"key": key, "name": stat_name(key), "value": c.value(key)} for key in ATTRIBUTE_KEYS
        ],
        skills=[
            {"key": key, "name": stat_name(key), "value": value}
            for key, value in c.values
            if key not in ATTRIBUTE_KEYS
        ],
        turn_order=c.turn_order,
        current_to=c.current_to,
        order_to=c.order_to,
        die=c.die,
        turn_order_modifier=c.turn_order_modifier,
        modifier=c.modifier,
        shock_value=c.shock_value,
        movement=c.movement,
        weapons=[
            {
                "key": w.key,
                "name": w.name,
                "damage": f"Ob{w.damage}T6",
                "damage_type": w.damage_type,
                "skill": w.skill,
                "skill_name": stat_name(w.skill),
                "chance": c.value(w.skill),
                "ranged": w.ranged,
                "in_hand": w.key in c.in_hand,
            }
            for w in c.weapons
        ],
        protection=[
            {"area": area, "name": AREA_NAMES[area], "value": c.protection_of(area)}
            for area in AREAS
            if c.protection_of(area)
        ],
        sections=[
            section(state, "trauma", c.trauma),
            section(state, "pain", c.pain),
            section(state, "blood_loss", c.bleeding.loss),
        ],
        bleed_rate=c.bleeding.rate,
        blood_loss=c.bleeding.loss,
        skill_adds=skill_difficulty_added(c.pain, house.damage_columns, house.row_difficulty),
        death_difficulty=difficulty_of(death_parts(state, c.trauma, c.bleeding.loss)),
        shock_difficulty=difficulty_of(shock_parts(state, c.trauma, c.pain, c.bleeding.loss)),
        ongoing=[o.code for o in c.ongoing],
        losses=[{"what": what, "amount": amount} for what, amount in c.losses],
        declared=c.declared,
        actives=c.actives,
        responses=c.responses,
        moved=c.moved,
        aim=aim,
        burden=c.burden,
        skill_use=skill_use_view(state, c),
    )
    return data


def skill_use_view(state: Encounter, c: Combatant) -> dict | None:
    """The skill `c` uses over several rounds (lines 761-765): its rounds done, and when the
    next is the last, the test's difficulty and exact chance, from the parts the engine
    rolls with (`reading.skill_parts`, `success.odds`)."""
    use = c.skill_use
    if use is None:
        return None
    parts = skill_parts(state, c, use.base)
    difficulty = difficulty_of(parts)
    chance = c.value(use.skill)
    return {
        "skill": use.skill,
        "skill_name": stat_name(use.skill),
        "label": use.label,
        "done": use.done,
        "rounds": use.rounds,
        "last": use.done + 1 >= use.rounds,
        "chance": chance,
        "difficulty": difficulty,
        "parts": [list(p) for p in parts],
        "p_success": percent(odds(difficulty, min(chance, 200)).success),
        "continued": use.round == state.round,
    }


def order_view(state: Encounter, viewer: Viewer) -> list[dict]:
    ordered = sorted(state.combatants, key=lambda c: order_key(state, c))
    return [
        {
            "id": c.id,
            "name": c.name,
            "status": turn_status(state, c),
            "active": state.active == c.id,
            "turn_order": c.order_to if sees_numbers(c, viewer) else None,
            "die": c.die if sees_numbers(c, viewer) else None,
        }
        for c in ordered
    ]


def pending_view(state: Encounter, viewer: Viewer) -> dict | None:
    pending = state.pending
    if pending is None:
        return None
    attacker = state.get(pending.attacker)
    target = state.get(pending.target)
    weapon = attacker.weapon(pending.weapon)
    data = {
        "attacker": attacker.id,
        "attacker_name": attacker.name,
        "target": target.id,
        "target_name": target.name,
        "weapon_name": weapon.name,
        "melee": not weapon.ranged,
        "area": pending.area,
        "area_name": AREA_NAMES.get(pending.area, ""),
        "aimed": pending.aimed,
        "responses": [
            {
                "id": r.id,
                "name": state.get(r.id).name,
                "kind": r.kind,
                "kind_name": RESPONSE_NAMES[r.kind],
            }
            for r in pending.responses
        ],
    }
    if sees_numbers(attacker, viewer):
        data["parts"] = [list(p) for p in pending.parts]
        data["difficulty"] = difficulty_of(pending.parts)
    return data


def refusal(state: Encounter, command) -> RulesError | None:
    try:
        X.decide(state, command, K.LowestDice())
    except RulesError as error:
        return error
    return None


def response_options(state: Encounter, c: Combatant, viewer: Viewer) -> list[dict]:
    out = []
    for kind in RESPONSES:
        command = C.Respond(c.id, kind)
        why = refusal(state, command)
        if why is not None and why.params.get("field") == "area" and kind == "shoot_back":
            why = refusal(state, C.Respond(c.id, kind, area="chest"))
        option = {
            "kind": kind,
            "name": RESPONSE_NAMES[kind],
            "enabled": why is None,
            **why_of(why),
            "command": {"type": "respond", "id": c.id, "kind": kind},
        }
        if why is None and kind != "flee" and sees_numbers(c, viewer):
            skill, parts = response_plan(state, c, kind)
            option.update(
                skill=skill,
                skill_name=stat_name(skill),
                chance=c.value(skill),
                difficulty=difficulty_of(parts),
                p_success=percent(odds(difficulty_of(parts), min(c.value(skill), 200)).success),
            )
        out.append(option)
    return out


def response_plan(state: Encounter, c: Combatant, kind: str) -> tuple[str, tuple]:
    """The skill a response is rolled against and its difficulty's parts."""
    if kind == "defend":
        return defend_skill(c, ""), response_parts(state, c, DEFEND_DIFFICULTY)
    if kind == "cover":
        skill, base = COVER_SKILL if c.value("combat_experience") > 0 else COVER_ATTRIBUTE
        return skill, response_parts(state, c, base)
    weapon = shoot_back_weapon(c, "")
    return weapon.skill, response_parts(state, c, state.house.attack_difficulty)


def prompts(state: Encounter, viewer: Viewer) -> list[dict]:
    out = []
    if state.offer is not None:  # Invänta mål: the awaited target's turn is next
        waiter, target = state.get(state.offer[0]), state.get(state.offer[1])
        return [
            {
                "kind": "wait_offer",
                "for": waiter.id,
                "who": waiter.name,
                "target": target.id,
                "target_name": target.name,
                "mine": mine(waiter, viewer),
            }
        ]
    pending = state.pending
    if pending is not None:
        attacker = state.get(pending.attacker)
        weapon_name = attacker.weapon(pending.weapon).name
        responded = {r.id for r in pending.responses}
        for c in state.combatants:
            is_target = c.id == pending.target
            if c.id == pending.attacker or not c.acts or c.id in responded:
                continue
            answers = c.id in viewer.controls or (viewer.is_gm and c.npc)
            if not is_target and not answers:
                continue  # the others' chance to respond: each player's own, the GM's NPCs
            out.append(
                {
                    "kind": "response",
                    "for": c.id,
                    "who": c.name,
                    "target": is_target,
                    "attacker_name": attacker.name,
                    "target_name": state.get(pending.target).name,
                    "weapon_name": weapon_name,
                    "options": response_options(state, c, viewer) if answers else [],
                    "weapons": [
                        {"key": w.key, "name": w.name}
                        for w in c.weapons
                        if w.ranged and w.key in c.in_hand
                    ],
                    "mine": answers,  # a player's own; the GM's NPCs (the GM waits, then goes on)
                }
            )
        return out
    active = state.get(state.active)
    if active is not None and active.declared is None:
        out.append(
            {"kind": "declare", "for": active.id, "who": active.name, "mine": mine(active, viewer)}
        )
    return out


def attack_options(state: Encounter, c: Combatant, viewer: Viewer) -> list[dict]:
    """Each foe and weapon with the exact chance to hit, plain and aimed."""
    out = []
    for target in state.combatants:
        if target.id == c.id or not target.alive:
            continue
        for weapon in c.weapons:
            preview = attack_preview(state, C.Attack(c.id, target.id, weapon.key), viewer)
            aimed = (
                attack_preview(state, C.Attack(c.id, target.id, weapon.key, aim=True), viewer)
                if weapon.ranged
                else {"ok": False}
            )
            out.append(
                {
                    "target": target.id,
                    "target_name": target.name,
                    "foe": target.side != c.side,
                    "weapon": weapon.key,
                    "weapon_name": weapon.name,
                    "ranged": weapon.ranged,
                    "p_hit": preview.get("p_hit"),
                    "difficulty": preview.get("difficulty"),
                    "p_hit_aimed": aimed.get("p_hit") if aimed.get("ok") else None,
                }
            )
    return out


def actions(state: Encounter, c: Combatant, viewer: Viewer) -> list[dict]:
    """What the active combatant can do now; the others greyed with why. Ladda om, Invänta
    mål and another round of the skill in use are the text's own (lines 745-765)."""
    out = []
    commands = [
        ("act", {"type": "act", "id": c.id}),
        ("reload", {"type": "reload", "id": c.id}),
        ("wait_for", {"type": "wait_for", "id": c.id}),
    ]
    if c.skill_use is not None:
        commands.append(("continue_skill", {"type": "continue_skill", "id": c.id}))
    commands.append(("end_turn", {"type": "end_turn", "id": c.id}))
    for key, command in commands:
        why = refusal(state, C.parse_command(command))
        out.append({"key": key, "command": command, "enabled": why is None, **why_of(why)})
    return out


def view(state: Encounter, viewer: Viewer) -> dict:
    started = bool(state.round)
    active = state.get(state.active)
    data = {
        "system": "phobia",
        "name": state.name,
        "round": state.round,
        "started": started,
        "ended": state.ended,
        "seconds": state.seconds,
        "time": clock(state.seconds),
        "round_closed": state.round_closed,
        "round_over": started
        and not state.ended
        and not state.round_closed
        and active is None
        and state.pending is None
        and state.offer is None
        and not queue(state),
        "active": active.id if active else None,
        "active_name": active.name if active else "",
        "order": order_view(state, viewer),
        "combatants": [combatant_view(state, c, viewer) for c in state.combatants],
        "pending": pending_view(state, viewer),
        # Invänta mål: who may act before whom, the fight waiting for the answer.
        "offer": {
            "waiter": state.offer[0],
            "waiter_name": name_of(state, state.offer[0]),
            "target": state.offer[1],
            "target_name": name_of(state, state.offer[1]),
        }
        if state.offer
        else None,
        "prompts": prompts(state, viewer),
        "actions": [],
        "attack_options": [],
        "areas": [{"key": key, "name": AREA_NAMES[key]} for key in AREAS],
        "responses": [{"key": key, "name": RESPONSE_NAMES[key]} for key in RESPONSES],
        "house": {
            "hit_location": state.house.hit_location,
            "attack_difficulty": state.house.attack_difficulty,
            "roll_base": state.house.roll_base,
            "row_difficulty": state.house.row_difficulty,
            "damage_columns": state.house.damage_columns,
            "turn_order_die": state.house.turn_order_die,
            "death_stat": stat_name(state.house.death_stat),
            "shock_stat": stat_name(state.house.shock_stat),
            "stopped_hit_bleeds": state.house.stopped_hit_bleeds,
        },
    }
    data["skill"] = None
    data["foes"] = []
    data["use_skills"] = []
    if active is not None and state.pending is None and mine(active, viewer):
        data["actions"] = actions(state, active, viewer)
        if sees_numbers(active, viewer):
            data["skill"] = skill_use_view(state, active)
        data["foes"] = [
            {"id": o.id, "name": o.name}
            for o in state.combatants
            if o.id != active.id and o.alive and o.side != active.side
        ]
        if active.declared is not None and active.actives < active.declared:
            data["attack_options"] = attack_options(state, active, viewer)
            data["use_skills"] = use_skill_options(state, active, viewer)
            data["use_skill_difficulty"] = difficulty_of(skill_parts(state, active, 3))
    return scene.seen(data, state, viewer)


def use_skill_options(state: Encounter, c: Combatant, viewer: Viewer) -> list[dict]:
    """Använda färdighet (lines 761-765): each value `c` may use, with the exact chance of
    a one-round use at the normal difficulty (Ob3T6 and the parts the engine rolls with,
    `reading.skill_parts`)."""
    difficulty = difficulty_of(skill_parts(state, c, 3))
    return [
        {
            "key": key,
            "name": stat_name(key),
            "value": value,
            "p_success": percent(odds(difficulty, min(value, 200)).success)
            if sees_numbers(c, viewer)
            else None,
        }
        for key, value in c.values
    ]


def attack_preview(state: Encounter, cmd: C.Attack, viewer: Viewer = GM_VIEW) -> dict:
    """Before an attack is sent: its difficulty and the exact chance to hit
    (rules.phobia.success.odds), and the damage; against a visible target the chance of a
    serious injury (damage after protection above Chockvärde, line 830)."""
    try:
        attacker, target, weapon = K.attack_parties(state, cmd)
        if cmd.aim and not weapon.ranged:
            refuse(_("only a ranged weapon aims"), "melee_aim")
        if cmd.aim and attacker.current_to // 2 <= 0:
            refuse(_("half of {name}'s TO is 0: no aimed shot"), "aim_to", name=attacker.name)
    except RulesError as error:
        return {"ok": False, **why_of(error)}
    parts = attack_parts(state, attacker, bool(cmd.aim))
    difficulty = difficulty_of(parts)
    chance = min(attacker.value(weapon.skill), 200)
    exact = odds(difficulty, chance)
    data = {
        "ok": True,
        "weapon": weapon.name,
        "skill": stat_name(weapon.skill),
        "chance": chance,
        "difficulty": difficulty,
        "notation": f"Ob{difficulty}T6",
        "parts": [list(p) for p in parts],
        "p_hit": percent(exact.success),
        "p_perfect": percent(exact.perfect),
        "p_fumble": percent(exact.fumble),
        "damage": f"Ob{weapon.damage}T6",
        "damage_type": weapon.damage_type,
        "defence_possible": not weapon.ranged and target.acts,
    }
    if sees_numbers(target, viewer) and cmd.area is not None:
        protection = target.protection_of(cmd.area)
        threshold = min(target.shock_value + protection, 200)
        serious = 1 - p_at_most(ObDice(weapon.damage), threshold)
        data.update(
            protection=protection,
            shock_value=target.shock_value,
            p_serious=percent(exact.success * serious),
        )
    return data


# The log ---------------------------------------------------------------------------------------


def parts_text(parts) -> str:
    """A difficulty's parts as the sum they make: "3 + 1 − 1"."""
    text = ""
    for index, (_key, value) in enumerate(parts):
        if index:
            text += " − " if value < 0 else " + "
            value = abs(value)
        text += str(value)
    return text


def dice_text(test: E.Test) -> str:
    """ "Ob4T6 (3 + 1) [2, 5, 6 → 1, 3] = 11": the dice and what they came to."""
    parts = f" ({parts_text(test.parts)})" if len(test.parts) > 1 else ""
    dice = ", ".join(map(str, test.first))
    if test.rerolls:
        dice += " → " + ", ".join(map(str, test.rerolls))
    return f"Ob{test.difficulty}T6{parts} [{dice}] = {test.total}"


def test_line(test: E.Test, visible: bool) -> dict:
    line = {
        "success": test.success,
        "perfect": test.perfect,
        "fumble": test.fumble,
        "stat": test.stat,
        "stat_name": stat_name(test.stat),
        "visible": visible,
    }
    if visible:
        line.update(
            chance=test.chance,
            difficulty=test.difficulty,
            parts=[list(p) for p in test.parts],
            first=list(test.first),
            rerolls=list(test.rerolls),
            total=test.total,
            effect=test.effect,
            dice_text=dice_text(test),
        )
    return line


def describe(state: Encounter, events, viewer: Viewer) -> list[dict]:
    """The log lines of one record's events, as this viewer may read them (`state`: the
    encounter before them)."""
    return scene.log_lines(state, events, viewer, describe_one, evolve)


def describe_one(state: Encounter, event, viewer: Viewer) -> dict:
    if isinstance(event, E.CombatantAdded):
        return K.joined_line(event.combatant, bool(body_of(event.combatant, state.seconds)))
    data = encode(event)
    data.pop("_")
    line = K.event_line(state, event)
    subject = state.get(data.get("id") or data.get("attacker"))
    visible = sees_numbers(subject, viewer)
    if isinstance(event, E.RoundStarted):
        line.update(
            round=event.round,
            dice=[
                {"name": name_of(state, cid), "die": die}
                for cid, die in event.dice
                if sees_numbers(state.get(cid), viewer)
            ],
        )
        return line
    if isinstance(event, E.AttackRolled):
        attacker = state.get(event.attacker)
        target = state.get(event.target)
        weapon = attacker.weapon(event.weapon)
        line.update(
            weapon_name=weapon.name if weapon else event.weapon,
            hit=event.hit,
            response=event.response,
            area=event.area,
            area_name=AREA_NAMES.get(event.area, ""),
            area_roll=event.area_roll,
            tests=[test_line(t, sees_numbers(attacker, viewer)) for t in event.tests],
            defences=[test_line(t, sees_numbers(target, viewer)) for t in event.defences],
        )
        return line
    if isinstance(event, E.Wounded):
        injury = injury_view(event.injury) if event.injury is not None else None
        line.update(
            area=event.area,
            area_name=AREA_NAMES[event.area],
            weapon=event.weapon,
            injury=injury,
            dead=event.dead,
            unconscious=event.unconscious,
            hidden=not visible,
        )
        if visible:
            line.update(
                damage_type=event.damage_type,
                dice=list(event.dice),
                rerolls=list(event.rerolls),
                rolled=event.rolled,
                protection=event.protection,
                damage=event.damage,
                trauma=event.trauma,
                pain=event.pain,
                # The split (lines 843-849) and what the table's Tx/Sx codes added.
                split_trauma=event.damage // 2,
                split_pain=event.damage - event.damage // 2,
                table_trauma=event.trauma - event.damage // 2,
                table_pain=event.pain - (event.damage - event.damage // 2),
                bleed=event.bleed,
                checks=[
                    {
                        "code": check.code,
                        "test": test_line(check.test, True),
                        "failed": check.failed,
                        "side": SIDE_NAMES.get(check.side, ""),
                    }
                    for check in event.checks
                ],
                losses=[
                    {
                        "code": loss.code,
                        "dice": [list(d) for d in loss.dice],
                        "amounts": [list(a) for a in loss.amounts],
                    }
                    for loss in event.losses
                ],
                ongoing=list(event.ongoing),
                death=test_line(event.death, True) if event.death else None,
                shock=test_line(event.shock, True) if event.shock else None,
            )
        return line
    if isinstance(event, E.SkillRolled):
        line.update(test=test_line(event.test, visible), success=event.test.success,
                    label=event.label)
        return line
    if isinstance(event, E.SkillBegun):
        line.update(skill_name=stat_name(event.skill), rounds=event.rounds, label=event.label)
        return line
    if isinstance(event, E.Reloaded):
        c = state.get(event.id)
        weapon = c.weapon(event.weapon) if c else None
        line.update(weapon_name=weapon.name if weapon else event.weapon)
        return line
    if isinstance(event, (E.CoverSought,)):
        line.update(test=test_line(event.test, visible), success=event.test.success)
        return line
    if isinstance(event, E.TimePassed):
        line.update(unconscious=event.unconscious, hidden=not visible)
        if visible:
            line.update(
                seconds=event.seconds,
                activity=event.activity,
                bleed_rate=event.bleeding.rate,
                blood_loss=event.bleeding.loss,
                gained=event.gained,
                recovered=event.recovered,
                trauma=event.trauma,
                pain=event.pain,
                shock=test_line(event.shock, True) if event.shock else None,
            )
        return line
    if isinstance(event, (E.AttackDeclared, E.AimTaken)):
        attacker = state.get(event.attacker if isinstance(event, E.AttackDeclared) else event.id)
        weapon = attacker.weapon(event.weapon)
        line.update(
            weapon_name=weapon.name if weapon else event.weapon,
            area=event.area,
            area_name=AREA_NAMES.get(event.area, ""),
        )
        if isinstance(event, E.AttackDeclared):
            line["aimed"] = event.aimed
            if visible:
                line.update(
                    parts=[list(p) for p in event.parts],
                    parts_text=parts_text(event.parts),
                    difficulty=difficulty_of(event.parts),
                )
        else:
            line["turn_order"] = event.turn_order if visible else None
        return line
    if isinstance(event, E.ResponseDeclared):
        line.update(kind_name=RESPONSE_NAMES[event.kind], response=event.kind)
        return line
    if isinstance(event, E.ResponseLost):
        line.update(kind_name=RESPONSE_NAMES[event.kind])
        return line
    if isinstance(event, E.TurnStarted):
        c = state.get(event.id)
        line.update(
            turn_order=event.turn_order if visible else None,
            aiming=c is not None and c.aim is not None,
        )
        return line
    if isinstance(event, E.Moved):
        line.update(
            x=event.x,
            y=event.y,
            metres=event.metres,
            total=event.total,
            mode=event.mode,
            mode_name=MOVE_NAMES[event.mode],
            action=event.action,
        )
        return line
    if isinstance(event, E.CombatantUpdated):
        return line
    if isinstance(event, E.TimeAdvanced):
        line.update(seconds=event.seconds, time=clock(event.seconds), activity=event.activity)
        return line
    line.update({k: v for k, v in data.items() if k not in line})
    return line
