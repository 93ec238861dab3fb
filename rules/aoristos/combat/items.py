"""Items in hand (p. 7, 10, 14): drawing, readying, stowing (+1 KP in melee), dropping,
switching hands and picking up (Ändring av aktiv utrustning, p. 7), winding up and
reloading (Laddning, p. 7); what cannot be started in melee (p. 10); nothing held with a
broken arm (p. 14).

Commands: Draw, Ready, Stow, Drop, SwitchHands, PickUp, Windup, AbortWindup, Reload.
"""

from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat.activation import passive_or_active, pay
from rules.aoristos.combat.reading import (
    arm_ok,
    distance,
    extended_windup,
    in_melee,
    needs_ammo,
    not_in_melee,
    require_active,
    windup_outcome,
)
from rules.aoristos.combat.state import UNARMED, Combatant, Encounter
from rules.combat_kit import combatant, refuse
from rules.errors import gettext_noop as _

# One sentence a hand, so that the hand is translated with it (p. 14).
BROKEN_ARM = {
    "right": _("{name} cannot hold anything with a broken right arm"),
    "left": _("{name} cannot hold anything with a broken left arm"),
}


def free_hand(c: Combatant, hand: str) -> None:
    if hand not in ("right", "left", "both"):
        refuse(_("unknown hand {hand!r}"), "bad_field", field="hand", hand=hand)
    hands = ("right", "left") if hand == "both" else (hand,)
    for h in hands:
        if not arm_ok(c, h):
            refuse(
                BROKEN_ARM[h],
                "broken_arm",
                name=c.name,
                hand=h,
            )
        if getattr(c, h) is not None:
            refuse(_("{name}'s {hand} hand is not free"), "hand_full", name=c.name, hand=h)


def holding(c: Combatant, weapon_key: str, hand: str) -> tuple[str | None, str | None]:
    right = weapon_key if hand in ("right", "both") else c.right
    left = weapon_key if hand in ("left", "both") else c.left
    return right, left


def draw_cost(state: Encounter, c: Combatant, key: str) -> int:
    """p. 7: drawing or readying costs 1 KP ("från hölster och liknande"); "Att plocka fram
    saker som är nedstoppade i packning kostar mer": an item packed away costs the
    campaign's house rule more (`pack_extra_cp`, default 1)."""
    return 1 + (state.house.pack_extra_cp if key in c.packed else 0)


def _draw(state: Encounter, cmd: C.Draw, rng):
    c = require_active(state, cmd.id)
    weapon = c.weapon(cmd.weapon)
    if weapon is None or weapon is UNARMED:
        refuse(_("{name} carries no {item!r}"), "no_weapon", name=c.name, item=cmd.weapon)
    if cmd.weapon in c.held:
        refuse(_("{weapon} is already in hand"), "held", weapon=weapon.name)
    free_hand(c, cmd.hand)
    if cmd.hand == "both" and 2 not in weapon.hands:
        refuse(_("{weapon} is not held with two hands"), "grip", weapon=weapon.name)
    if cmd.hand != "both" and 1 not in weapon.hands:
        refuse(_("{weapon} needs both hands"), "grip", weapon=weapon.name)
    right, left = holding(c, cmd.weapon, cmd.hand)
    cost = draw_cost(state, c, cmd.weapon)
    event = E.HandsChanged(c.id, "draw", cmd.weapon, right, left, None, cost)
    return pay(state, c, cost, "draw", cmd, lambda: [event])


def _ready(state: Encounter, cmd: C.Ready, rng):
    c = require_active(state, cmd.id)
    not_in_melee(state, c, _("Readying a weapon cannot be started in melee (p. 10)"))
    weapon = c.weapon(cmd.weapon)
    if weapon is None or weapon is UNARMED or cmd.weapon in c.held:
        refuse(_("{name} has no {item!r} to ready"), "no_weapon", name=c.name, item=cmd.weapon)
    cost = draw_cost(state, c, cmd.weapon)
    event = E.HandsChanged(c.id, "ready", cmd.weapon, c.right, c.left, cmd.weapon, cost)
    return pay(state, c, cost, "ready", cmd, lambda: [event])


def _stow(state: Encounter, cmd: C.Stow, rng):
    c = require_active(state, cmd.id)
    key = getattr(c, cmd.hand, None) if cmd.hand in ("right", "left") else None
    if key is None:
        refuse(_("{name} holds nothing in that hand"), "hand_empty", name=c.name)
    if key == c.wound_up:
        weapon = c.weapon(key)
        refuse(
            _("{weapon} is wound up: abort the windup first (1 KP, p. 7)"),
            "wound_up",
            weapon=weapon.name if weapon else key,
        )
    cost = 2 if in_melee(state, c) else 1  # p. 7: +1 KP in melee, other than dropping
    right = None if c.right == key else c.right
    left = None if c.left == key else c.left
    event = E.HandsChanged(c.id, "stow", key, right, left, c.readied, cost)
    return pay(state, c, cost, "stow", cmd, lambda: [event])


def _drop(state: Encounter, cmd: C.Drop, rng):
    c, _passive = passive_or_active(state, cmd.id)
    key = getattr(c, cmd.hand, None) if cmd.hand in ("right", "left") else None
    if key is None:
        refuse(_("{name} holds nothing in that hand"), "hand_empty", name=c.name)
    right = None if c.right == key else c.right
    left = None if c.left == key else c.left
    # p. 7: a wound-up weapon let fall: the arrow is lost, the grenade lies there armed.
    windup = windup_outcome(c, key, True) if key == c.wound_up else ""
    return [E.HandsChanged(c.id, "drop", key, right, left, c.readied, 0, windup)]


def _switch(state: Encounter, cmd: C.SwitchHands, rng):
    c = require_active(state, cmd.id)
    not_in_melee(state, c, _("Switching hands cannot be started in melee (p. 10)"))
    if c.right == c.left:
        refuse(_("nothing to move between hands"), "nothing")
    for hand in ("right", "left"):
        other = "left" if hand == "right" else "right"
        if getattr(c, hand) and not arm_ok(c, other):
            refuse(
                BROKEN_ARM[other],
                "broken_arm",
                name=c.name,
                hand=other,
            )
    event = E.HandsChanged(c.id, "switch", c.right or c.left, c.left, c.right, c.readied, 1)
    return pay(state, c, 1, "switch", cmd, lambda: [event])


def _pick_up(state: Encounter, cmd: C.PickUp, rng):
    c = require_active(state, cmd.id)
    if c.posture == "standing":
        refuse(_("to pick something up from the ground one must sit or lie (p. 7)"), "standing")
    weapon = c.weapon(cmd.weapon)
    if weapon is None or weapon is UNARMED or cmd.weapon in c.held:
        refuse(
            _("there is no {item!r} of {name}'s to pick up"),
            "no_weapon",
            item=cmd.weapon,
            name=c.name,
        )
    free_hand(c, cmd.hand)
    right, left = holding(c, cmd.weapon, cmd.hand)
    windup = "armed" if cmd.weapon in c.armed_on_ground else ""  # p. 7: it is still armed
    event = E.HandsChanged(c.id, "pick_up", cmd.weapon, right, left, c.readied, 1, windup)
    return pay(state, c, 1, "pick_up", cmd, lambda: [event])


def _windup(state: Encounter, cmd: C.Windup, rng):
    c = require_active(state, cmd.id)
    weapon = c.weapon(cmd.weapon)
    if weapon is None or cmd.weapon not in c.held:
        refuse(
            _("{name} must hold {item!r} to wind it up"), "not_held", name=c.name, item=cmd.weapon
        )
    if not weapon.windup:
        refuse(_("{weapon} has no windup (UL)"), "no_windup", weapon=weapon.name)
    if not weapon.thrown:
        not_in_melee(state, c, _("Winding up cannot be started in melee (p. 10)"))
    if c.wound_up == weapon.key:
        refuse(_("{weapon} is already wound up"), "wound_up", weapon=weapon.name)
    event = E.WoundUp(c.id, weapon.key, weapon.windup)
    return pay(state, c, weapon.windup, "windup", cmd, lambda: [event])


def _abort_windup(state: Encounter, cmd: C.AbortWindup, rng):
    """p. 7: "För 1 KP kan man avbryta en uppladdning och taga tillvara på projektilen, som
    en aktiv handling": a windup done, or one under way as an extended activity."""
    c = require_active(state, cmd.id)
    under_way = extended_windup(c)
    if not c.wound_up and not under_way:
        refuse(_("nothing is wound up"), "not_wound_up")
    if c.wound_up:
        event = E.WoundUp(c.id, c.wound_up, 1, aborted=True)
        return pay(state, c, 1, "abort_windup", cmd, lambda: [event])
    if c.cp < 1:
        refuse(_("{name} has no KP left this activation"), "no_cp", name=c.name)
    # Broken off on purpose: no projectile lost, nothing armed.
    return [E.ExtendedCancelled(c.id, "abort_windup"), E.WoundUp(c.id, under_way, 1, aborted=True)]


def _reload(state: Encounter, cmd: C.Reload, rng):
    c = require_active(state, cmd.id)
    not_in_melee(state, c, _("Reloading cannot be started in melee (p. 10)"))
    if cmd.gunner is not None and cmd.gunner != c.id:
        return _assist_reload(state, c, cmd)
    weapon = c.weapon(cmd.weapon)
    if weapon is None or not needs_ammo(weapon):
        refuse(_("{item!r} is not reloaded"), "no_reload", item=cmd.weapon)
    if cmd.weapon not in c.held:
        refuse(
            _("{name} must hold {weapon} to reload it"), "not_held", name=c.name, weapon=weapon.name
        )
    room = weapon.capacity - c.rounds(weapon.key)
    if room <= 0:
        refuse(_("{weapon} is full"), "full", weapon=weapon.name)
    if weapon.reload_each is not None:
        # p. 7: "(n)" KP per cartridge, after 2 KP to open the weapon.
        count = room if cmd.rounds is None else cmd.rounds
        if not 1 <= count <= room:
            refuse(
                _("{weapon} takes 1-{room} cartridges"),
                "bad_field",
                field="rounds",
                weapon=weapon.name,
                room=room,
            )
        cost = 2 + weapon.reload_each * count
        rounds = c.rounds(weapon.key) + count
    else:
        cost = weapon.reload_cost
        rounds = weapon.capacity
    event = E.Reloaded(c.id, weapon.key, rounds, cost)
    return pay(state, c, cost, "reload", cmd, lambda: [event])


def _assist_reload(state: Encounter, c: Combatant, cmd: C.Reload):
    """p. 11: a belt-fed weapon's reload is OL 10 for the gunner, 5 for an assistant. The
    assistant (`c`, in its own activation) threads a new belt into the gunner's weapon, or
    joins two belts; our reading: it stands by the gunner, within melee reach (the house
    rule's metres), on the same side, and the gunner need not hold the weapon."""
    gunner = combatant(state, cmd.gunner)
    weapon = gunner.weapon(cmd.weapon)
    if weapon is None or not weapon.belt:
        refuse(
            _("an assistant reloads only a belt-fed weapon (p. 11)"),
            "no_reload",
            item=cmd.weapon,
        )
    if gunner.side != c.side or distance(c, gunner) > state.house.melee_reach:
        refuse(
            _("{name} must stand by {gunner} to feed the belt"),
            "not_beside",
            name=c.name,
            gunner=gunner.name,
        )
    if gunner.rounds(weapon.key) >= weapon.capacity:
        refuse(_("{weapon} is full"), "full", weapon=weapon.name)
    cost = weapon.assistant_reload_cost
    event = E.Reloaded(c.id, weapon.key, weapon.capacity, cost, gunner.id)
    return pay(state, c, cost, "reload", cmd, lambda: [event])


HANDLERS = {
    C.Draw: _draw,
    C.Ready: _ready,
    C.Stow: _stow,
    C.Drop: _drop,
    C.SwitchHands: _switch,
    C.PickUp: _pick_up,
    C.Windup: _windup,
    C.AbortWindup: _abort_windup,
    C.Reload: _reload,
}
