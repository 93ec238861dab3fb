"""The battle map of an encounter (issue 27): what the map on the encounter page draws,
made from the engine's view, and a move's exact cost before it is made.

The map is drawn in the page by static/js/map.js from `map_data` (a JSON block inside the
panel, so every panel the stream or a command brings moves the tokens); tapping a point
asks `move_preview`, which is the engine's own preview of the Move command (the same
arithmetic `decide` pays with). All three systems keep positions (x and y in metres) and
preview moves; each gives its own costs: Aoristos KP by the round's metres (p. 7), T10
AP by the metres per AP, Phobia the kind of move (Förflytta sig, springa, spurta). The
scene under the tokens (walls, cover, a picture) is the encounter's (rules/scene.py).
"""

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from combat.templatetags.aoristos_combat import word
from rules import scene as scene_rules

MAP_SYSTEMS = ("aoristos", "phobia", "t10")
UNITS = {"aoristos": "KP", "t10": "AP", "phobia": ""}


def initials(name: str) -> str:
    """Up to two letters a token shows: "Rövaren Grim" → "RG", "Albert" → "Al"."""
    words = [w for w in name.replace("-", " ").split() if w]
    if len(words) >= 2:
        return (words[0][0] + words[1][0]).upper()
    return (words[0][:2] if words else "?").capitalize()


MODE_WORDS = {"": "Fri förflyttning", "move": "Förflytta sig", "run": "Springa",
              "sprint": "Spurta"}  # Phobia's kinds of move (lines 261-271), through |word


def cost_label(system: str, cost, mode: str = "") -> str:
    """What a move's cost reads on the map: "3 KP", "2 AP", or Phobia's kind of move."""
    if cost is not None and UNITS.get(system):
        return f"{cost} {UNITS[system]}"
    return word(MODE_WORDS.get(mode, mode))


def map_data(engine, view: dict, state, viewer, picture_url=None) -> dict | None:
    """What the map draws for this viewer, or None for a system without positions. Every
    position is public (the panel shows them too); an overwatch sphere only to its
    watcher's side of the table (the GM, the player who commands the watcher), a
    vigilance move's reach to the target's; the scene as the GM shows it, and what the
    fog hides left out (the view has no combatant in it, `rules.scene.seen`).
    `picture_url(key)`: where the viewer's page gets the map's picture."""
    system = engine.system
    if system not in MAP_SYSTEMS or not hasattr(state, "scene"):
        return None
    sides = sorted({c["side"] for c in view.get("combatants", ())})
    prompts = {p.get("for") for p in view.get("prompts", ()) if p.get("for")}
    combatants = [
        {
            "id": c["id"],
            "name": c["name"],
            "initials": initials(c["name"]),
            "side": c["side"],
            "shape": sides.index(c["side"]) % 4,
            "x": c.get("x", 0.0),
            "y": c.get("y", 0.0),
            "posture": c.get("posture") or c.get("stance") or "standing",
            "alive": c.get("alive", True),
            "conscious": c.get("conscious", True),
            "fled": c.get("fled", False),  # Phobia's Fly (lines 771-804)
            "active": c.get("active", False),
            "controlled": c.get("controlled", False),
            "prompt": c["id"] in prompts,
            "path": c.get("path") or [],
            "bands": [
                {**band, "label": cost_label(system, band.get("cost"), band.get("mode", ""))}
                for band in c.get("move_bands") or ()
            ],
            "ranges": c.get("ranges") or [],
        }
        for c in view.get("combatants", ())
    ]
    watch = [
        {"id": c.id, "x": c.overwatch[0], "y": c.overwatch[1], "r": 2.0}
        for c in getattr(state, "combatants", ())
        if getattr(c, "overwatch", None) and (viewer.is_gm or c.id in viewer.controls)
    ]
    vigil = [
        p["vigilance_move"] for p in view.get("prompts", ())
        if p.get("vigilance_move") and (viewer.is_gm or p.get("for") in viewer.controls)
    ]
    active = view.get("active")
    scene = scene_rules.visible(state.scene, viewer.is_gm)
    if scene["picture"] and picture_url is not None:
        key = scene["picture"]["key"]
        # Under fog a player's picture is painted over where it is hidden (combat.fog),
        # at an address of its own for each fog.
        fogged = "" if viewer.is_gm else scene_rules.fog_key(state.scene.fog)
        scene["picture"]["url"] = (picture_url(int(key)) + (f"?fog={fogged}" if fogged else "")
                                   if key.isdigit() else "")
    return {
        "system": system,
        "unit": UNITS.get(system, ""),
        "active": active,
        # Whether this viewer moves and attacks for the active combatant now.
        "acting": bool(view.get("actions")) and any(
            c["id"] == active and c["controlled"] for c in combatants
        ),
        "is_gm": viewer.is_gm,
        "reach": view.get("house", {}).get("melee_reach", 2.0) if system == "aoristos" else None,
        # Aoristos' range malus grows with every started 10 m (p. 10); T10 draws the
        # weapon's three ranges (its combatant's "ranges"); Phobia counts no range.
        "range_step": 10 if system == "aoristos" else None,
        "combatants": combatants,
        "watch": watch,
        "vigil": vigil,
        "scene": scene,
    }


def move_preview(
    engine, state, combatant_id: str, x: float, y: float, prone: bool = False
) -> dict:
    """The engine's preview of moving `combatant_id` to (x, y); RulesError when the
    system has none (its Move has no x and y, or only attacks have a preview). While an
    Aoristos attack waits for this combatant's vigilance, the tap is its vigilance move
    (p. 9): the engine's `vigilance_preview` of it, with the attacker's chances."""
    attack = getattr(state, "attack", None)
    if (
        engine.system == "aoristos"
        and attack is not None
        and getattr(attack, "stage", "") == "vigilance"
        and attack.target == combatant_id
    ):
        command = engine.parse_command({"type": "vigilance", "id": combatant_id,
                                        "properties": ["agility"], "x": x, "y": y,
                                        "prone": prone})
        return {**engine.preview(state, command), "label": _("in vigilance, no KP")}
    command = engine.parse_command({"type": "move", "id": combatant_id, "x": x, "y": y})
    preview = engine.preview(state, command)
    return {**preview, "label": cost_label(engine.system, preview.get("cost"),
                                           preview.get("mode", ""))}


def words() -> dict:
    """The map's own words, in the page's language (map.js writes them)."""
    return {
        "moveHere": _("Move here"),
        "closeSheet": pgettext("closes the map's sheet of what a tap offers", "Close"),
        "cannot": _("Cannot move there"),
        "escape": _("Leaving melee: an opposed RÖR test first (p. 10)"),
        "watch": _("Enters a watched sphere: a reflex attack (p. 11)"),
        "extended": _(
            "Not enough KP now: an extended activity, %(now)s KP now and %(later)s later (p. 6)"
        ),
        "attack": _("Attack"),
        "distance": _("Distance"),
        "inReach": _("within melee reach"),
        "outOfReach": _("out of melee reach"),
        "scale": _("Grid: 1 m squares, a thick line every 5 m"),
        "you": _("your turn"),
        "prompt": _("must answer"),
        "down": _("unconscious"),
        "dead": _("dead"),
        "fled": word("Fly"),  # Phobia's own word for it
        # T10's three ranges (the weapon's nära, normalt, maximalt)
        "close": _("close"),
        "normal": _("normal"),
        "maximum": _("maximum"),
        "beyond": _("beyond maximum range"),
        # Vigilance (p. 9) and the scene
        "vigil": _(
            "RÖR in vigilance: the target moves here (1 m); up to its RÖR in metres toward "
            "cover within 10 m (p. 9)"
        ),
        "vigilHere": _("Defend from here"),
        "vigilChance": _("The attacker's chance to hit"),
        "vigilConfirm": _("No known cover that way: the GM confirms the move first"),
        "vigilCover": _("ends in cover: hits with no area lose %(n)s strength (p. 12)"),
        "coverOnLine": _(
            "Drawn cover lies on the line of fire: set the target's cover in its form if it "
            "counts"
        ),
        "addNpc": _("Add an NPC here"),
        "drawHint": _("Tap the points of the shape on the map, then Done"),
        "done": _("Done"),
        "undoPoint": _("Undo point"),
        "cancel": _("Cancel"),
        "points": _("points"),
        "wall": _("Wall"),
        "cover": _("Cover"),
        # Fog (issue 47)
        "reveal": _("Reveal"),
        "hide": _("Hide"),
        "fogHint": _("Tap one cell, two corners of a rectangle or the points of an area, "
                     "then Done"),
    }
