"""The T10 combat state machine (t10-ap-utdrag.txt, "Initiativ" to "Vapen"; rulings.md
§ T10): `decide` and `evolve`.

`decide(state, command, rng)` refuses an illegal command with a RulesError whose message
says why, or returns the events it causes with every die rolled in them. `evolve(state,
event)` applies one event; it never rolls, so replaying events rebuilds the state exactly.
Rolls are `rules.t10.rolls.roll_2t10` (2T10 + bonus, 11 or more succeeds, DoS/DoF); a
roll's bonus from the character is `rules.t10.character.bonus`.

This module is the front: the GM's roster commands, what follows by itself (`settle`) and
the table of which handler decides each command. The handlers are grouped by the text's
sections: ``rounds`` ("Initiativ", the rounds), ``actions`` ("Action points": what each
action costs and does, reactions), ``attacks`` ("Vapen": the attack's rolls) and
``damage`` ("Utmattning och skada", "Kroppsskydd"); ``reading`` (what they all read of the
state) and ``fold`` (`evolve`) are below them all.

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
  long before).
* **The map** (our addition; the text has none). Each combatant stands at a point (x, y
  in metres): placed when added (else side "a" at x 0, the others at x 10, 1.5 m apart)
  or by the GM. A move names the point it goes to and is as long as the straight line
  there (to the centimetre; a typed `metres` beside a point is ignored), or is typed in
  metres only and leaves the point as it was (as do the moves of logs from before the
  map); either costs 1 AP per started `metres_per_ap` metres and ends cover. Each round
  keeps the trail of every move (the map draws it; `movement` previews a move for it).
  The distance of an attack is still given with it (the page fills it in from the map),
  never taken from the points.
"""

from rules import combat_kit as K
from rules import scene
from rules.combat_kit import check_weapons, combatant, out_of_range, refuse, require_open
from rules.errors import gettext_noop as _
from rules.t10.combat import actions, damage, rounds
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.combat.actions import turn_start
from rules.t10.combat.damage import MAX_SCORE, carried_body
from rules.t10.combat.fold import evolve
from rules.t10.combat.reading import MAX_MODIFIER, check_modifier, check_point
from rules.t10.combat.rounds import end_of_round, ordered, tie_rolls
from rules.t10.combat.state import MAX_PROTECTION, Combatant, Encounter


def decide(state: Encounter, command, rng) -> tuple:
    return K.decide(state, command, rng, HANDLERS, evolve, settle)


def play(state: Encounter, command, rng) -> tuple:
    """`decide`'s events and the state after them, folded once (simulations)."""
    return K.play(state, command, rng, HANDLERS, evolve, settled)


def settle(state: Encounter, rng) -> list:
    """What follows by itself: a turn ends once its AP are spent (or its maker is down),
    the next in order begins (paying a begun action first), a turn without AP is
    skipped, the round ends and the next begins."""
    return settled(state, rng)[0]


def settled(state: Encounter, rng) -> tuple[list, Encounter]:
    """`settle`'s events and the state after them."""
    return K.settled(state, rng, next_settlement, evolve, 1000)


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


def actor_of(state: Encounter, command) -> str | None:
    """The combatant a command acts for; None when only the GM may give it."""
    if isinstance(command, C.GM_ONLY):
        return None
    return getattr(command, "id", None)


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
        **placed(state, who["side"], cmd.x, cmd.y),
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


def placed(state: Encounter, side: str, x: float | None, y: float | None) -> dict:
    """A newcomer's place on the map: as given, else side "a" at x 0 and every other at
    x 10, 1.5 m down y for each already on its side (tokens do not stack)."""
    if x is None:
        x = 0.0 if side == "a" else 10.0
    if y is None:
        y = 1.5 * sum(1 for c in state.combatants if c.side == side)
    check_point("x", x)
    check_point("y", y)
    return {"x": float(x), "y": float(y)}


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
    for key in ("x", "y"):  # placed on the map: its round's trail starts again there
        value = getattr(cmd, key)
        if value is not None:
            check_point(key, value)
            if value != getattr(c, key):  # the GM's form posts the place with every change
                changes.append((key, float(value)))
    return [K.updated(c.id, changes)]


HANDLERS = {
    C.AddCombatant: _add,
    C.UpdateCombatant: _update,
    C.RemoveCombatant: K.remove_combatant,
    **scene.HANDLERS,
    C.EndEncounter: K.end_encounter,
    **rounds.HANDLERS,
    **damage.HANDLERS,
    **actions.HANDLERS,
}


__all__ = ["actor_of", "decide", "evolve"]
