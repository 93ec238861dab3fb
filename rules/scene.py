"""The scene under a fight's battle map (issue 27), alike in every system: the walls and
cover the GM draws, and a picture under the plane.

The scene is part of the encounter's state, changed by GM-only commands, so it is kept in
the log with the fight: undone and redone with it, replayed with it, and brought to every
open map by the same records that move the tokens. Each system's `Encounter` has a
`scene: Scene` field; its commands table names `COMMANDS`, its handlers `HANDLERS`, its
fold calls `evolve_scene` for `EVENT_TYPES`, and its view writes a record's log lines with
`log_lines` (the scene's own as `scene_line` writes them). The scene is built on
`rules.combat_kit` as a system's package is, so the kit knows nothing of it.

What the scene is to the rules: a wall or cover is drawn for everyone to see (or for the
GM alone, `shown` false); the engines do not read it. Cover still counts in an attack
through the cover the GM or the player sets (Aoristos' cover per area, Phobia's
protection, T10's Kasta sig i skydd); the map marks an attack whose line crosses a
drawn cover so nobody forgets it (docs/playing.md).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

from rules.combat_kit import changed, refuse, require_open
from rules.engine import Viewer
from rules.errors import gettext_noop as _

SHAPE_KINDS = ("wall", "cover")
MAX_SHAPES = 200  # shapes on one map
MAX_POINTS = 24  # points of one shape
MAX_METRES = 10_000  # how far from the origin a point may lie
MAX_WIDTH = 2_000  # metres a picture may span


@dataclass(frozen=True)
class Shape:
    """A wall (a line through its points) or cover (the area inside them, at least three
    points), shown to the players or to the GM alone."""

    kind: str
    points: tuple[tuple[float, float], ...]
    shown: bool = True
    label: str = ""


@dataclass(frozen=True)
class Picture:
    """A picture under the map: the stored picture's key, its width in metres (its height
    follows its `aspect`, height / width in pixels), where its top left corner lies."""

    key: str
    width: float
    aspect: float
    x: float = 0.0
    y: float = 0.0
    shown: bool = True


@dataclass(frozen=True)
class Scene:
    shapes: tuple[Shape, ...] = ()
    picture: Picture | None = None


# Commands (GM only) --------------------------------------------------------------------------


@dataclass(frozen=True)
class AddShape:
    """`points`: "x,y x,y …" in metres, as the map or a form posts them."""

    kind: str
    points: str
    shown: bool = True
    label: str = ""


@dataclass(frozen=True)
class RemoveShape:
    index: int  # the shape's place in the scene, from 0


@dataclass(frozen=True)
class SetPicture:
    """Put a stored picture under the map (`key` "" takes it away). The Django shell
    checks the key names a picture of this encounter and gives its aspect."""

    key: str = ""
    width: float = 0.0
    aspect: float = 1.0
    x: float = 0.0
    y: float = 0.0
    shown: bool = True


COMMANDS = {"add_shape": AddShape, "remove_shape": RemoveShape, "set_picture": SetPicture}
GM_ONLY = (AddShape, RemoveShape, SetPicture)


# Events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShapeAdded:
    shape: Shape


@dataclass(frozen=True)
class ShapeRemoved:
    index: int


@dataclass(frozen=True)
class PictureSet:
    picture: Picture | None


EVENT_TYPES = {cls.__name__: cls for cls in (ShapeAdded, ShapeRemoved, PictureSet)}
EVENT_CLASSES = frozenset(EVENT_TYPES.values())  # what a fold hands to `evolve_scene`
VALUE_TYPES = {cls.__name__: cls for cls in (Shape, Picture, Scene)}


def parse_points(text: str) -> tuple[tuple[float, float], ...]:
    """ "1,2 3.5,4" → ((1.0, 2.0), (3.5, 4.0)); a refusal names what is wrong."""
    points = []
    for pair in text.replace(";", " ").split():
        parts = pair.split(",")
        try:
            x, y = (round(float(p), 2) for p in parts)
        except ValueError:
            refuse(_("a point is two numbers of metres, x,y: {text!r} is not"), "bad_field",
                   field="points", text=pair[:20])
        if not (math.isfinite(x) and math.isfinite(y)) or max(abs(x), abs(y)) > MAX_METRES:
            refuse(_("a point lies within {metres} m of the origin"), "bad_field",
                   field="points", metres=MAX_METRES)
        points.append((x + 0.0, y + 0.0))  # never −0
    return tuple(points)


def _add_shape(state, cmd: AddShape, rng) -> list:
    require_open(state)
    if cmd.kind not in SHAPE_KINDS:
        refuse(_("a shape is a wall or cover"), "bad_field", field="kind")
    points = parse_points(cmd.points)
    least = 2 if cmd.kind == "wall" else 3
    if not least <= len(points) <= MAX_POINTS:
        template = (_("a wall takes {least} to {most} points") if cmd.kind == "wall"
                    else _("cover takes {least} to {most} points"))
        refuse(template, "bad_field", field="points", least=least, most=MAX_POINTS)
    if len(state.scene.shapes) >= MAX_SHAPES:
        refuse(_("the map holds at most {n} shapes"), "too_many", n=MAX_SHAPES)
    return [ShapeAdded(Shape(cmd.kind, points, cmd.shown, cmd.label[:40]))]


def _remove_shape(state, cmd: RemoveShape, rng) -> list:
    require_open(state)
    if not 0 <= cmd.index < len(state.scene.shapes):
        refuse(_("there is no such shape on the map"), "bad_field", field="index")
    return [ShapeRemoved(cmd.index)]


def _set_picture(state, cmd: SetPicture, rng) -> list:
    require_open(state)
    if not cmd.key:
        if state.scene.picture is None:
            refuse(_("the map has no picture"), "nothing")
        return [PictureSet(None)]
    if not 0 < cmd.width <= MAX_WIDTH:
        refuse(_("a picture is 1 to {most} m wide"), "bad_field", field="width", most=MAX_WIDTH)
    if not 0.01 <= cmd.aspect <= 100:
        refuse(_("a picture's height is 1/100 to 100 times its width"), "bad_field",
               field="aspect")
    return [PictureSet(Picture(cmd.key, cmd.width, cmd.aspect, cmd.x, cmd.y, cmd.shown))]


HANDLERS = {AddShape: _add_shape, RemoveShape: _remove_shape, SetPicture: _set_picture}


def evolve_scene(state, event):
    """The state after a scene event (`state.scene` replaced)."""
    scene = state.scene
    kind = type(event)
    if kind is ShapeAdded:
        scene = Scene((*scene.shapes, event.shape), scene.picture)
    elif kind is ShapeRemoved:
        shapes = scene.shapes
        scene = Scene(shapes[: event.index] + shapes[event.index + 1 :], scene.picture)
    else:
        scene = Scene(scene.shapes, event.picture)
    return changed(state, scene=scene)


def scene_line(event, viewer_is_gm: bool) -> dict:
    """A scene event's log line: what changed; a change the players do not see is only
    "the GM changes the map" to them."""
    kind = type(event).__name__
    if kind == "ShapeAdded":
        hidden = not event.shape.shown and not viewer_is_gm
        return {"kind": kind, "shape": "" if hidden else event.shape.kind,
                "shown": event.shape.shown}
    if kind == "PictureSet":
        picture = event.picture
        hidden = picture is not None and not picture.shown and not viewer_is_gm
        return {"kind": kind, "set": picture is not None and not hidden,
                "width": picture.width if picture and not hidden else None}
    return {"kind": kind}


def log_lines(state, events, viewer: Viewer, line: Callable, evolve: Callable) -> list[dict]:
    """The log lines of one record's events as `viewer` may read them, in every system:
    the scene's events as `scene_line` writes them, every other as the system's `line(state,
    event, viewer)` does, `state` the encounter just before that event (`evolve` folds
    each in)."""
    lines = []
    for event in events:
        if type(event) in EVENT_CLASSES:
            lines.append(scene_line(event, viewer.is_gm))
        else:
            lines.append(line(state, event, viewer))
        state = evolve(state, event)
    return lines


def visible(scene: Scene, is_gm: bool) -> dict:
    """What the map draws of the scene for a viewer: the GM everything (what the players
    do not see marked), a player what is shown."""
    shapes = [
        {"index": i, "kind": s.kind, "points": [list(p) for p in s.points], "shown": s.shown,
         "label": s.label}
        for i, s in enumerate(scene.shapes)
        if s.shown or is_gm
    ]
    picture = scene.picture
    if picture is not None and not (picture.shown or is_gm):
        picture = None
    return {
        "shapes": shapes,
        "picture": None if picture is None else {
            "key": picture.key, "width": picture.width, "height": round(
                picture.width * picture.aspect, 2), "x": picture.x, "y": picture.y,
            "shown": picture.shown,
        },
    }
