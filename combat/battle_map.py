"""The battle map of an encounter (issue 27): what the map on the encounter page draws,
made from the engine's view, and a move's exact cost before it is made.

The map is drawn in the page by static/js/map.js from `map_data` (a JSON block inside the
panel, so every panel the stream or a command brings moves the tokens); tapping a point
asks `move_preview`, which is the engine's own preview of the Move command (the same
arithmetic `decide` pays with). Only systems whose engine keeps positions have a map
(Aoristos: x and y in metres); Phobia and T10 count movement in metres without a plane.
"""

from django.utils.translation import gettext as _

MAP_SYSTEMS = ("aoristos",)


def initials(name: str) -> str:
    """Up to two letters a token shows: "Rövaren Grim" → "RG", "Albert" → "Al"."""
    words = [w for w in name.replace("-", " ").split() if w]
    if len(words) >= 2:
        return (words[0][0] + words[1][0]).upper()
    return (words[0][:2] if words else "?").capitalize()


def map_data(engine, view: dict, state, viewer) -> dict | None:
    """What the map draws for this viewer, or None for a system without positions. Every
    position is public (the panel shows them too); an overwatch sphere only to its
    watcher's side of the table (the GM, the player who commands the watcher)."""
    if engine.system not in MAP_SYSTEMS:
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
            "x": c["x"],
            "y": c["y"],
            "posture": c["posture"],
            "alive": c["alive"],
            "conscious": c["conscious"],
            "active": c["active"],
            "controlled": c["controlled"],
            "prompt": c["id"] in prompts,
            "path": c.get("path") or [],
            "bands": c.get("move_bands") or [],
        }
        for c in view.get("combatants", ())
    ]
    watch = [
        {"id": c.id, "x": c.overwatch[0], "y": c.overwatch[1], "r": 2.0}
        for c in getattr(state, "combatants", ())
        if getattr(c, "overwatch", None) and (viewer.is_gm or c.id in viewer.controls)
    ]
    active = view.get("active")
    return {
        "active": active,
        # Whether this viewer moves and attacks for the active combatant now.
        "acting": bool(view.get("actions")) and any(
            c["id"] == active and c["controlled"] for c in combatants
        ),
        "is_gm": viewer.is_gm,
        "reach": view.get("house", {}).get("melee_reach", 2.0),
        "combatants": combatants,
        "watch": watch,
    }


def move_preview(engine, state, combatant_id: str, x: float, y: float) -> dict:
    """The engine's preview of moving `combatant_id` to (x, y); RulesError when the
    system has none (its Move has no x and y, or only attacks have a preview)."""
    command = engine.parse_command({"type": "move", "id": combatant_id, "x": x, "y": y})
    return engine.preview(state, command)


def words() -> dict:
    """The map's own words, in the page's language (map.js writes them)."""
    return {
        "moveHere": _("Move here"),
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
    }
