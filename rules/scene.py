"""The scene under a fight's battle map (issue 27), alike in every system: the walls and
cover the GM draws, and a picture under the plane.

The scene is part of the encounter's state, changed by GM-only commands, so it is kept in
the log with the fight: undone and redone with it, replayed with it, and brought to every
open map by the same records that move the tokens. Each system's `Encounter` has a
`scene: Scene` field; its commands table names `COMMANDS`, its handlers `HANDLERS`, its
fold calls `evolve_scene` for `EVENT_TYPES`, and its view writes a record's log lines with
`log_lines` (the scene's own as `scene_line` writes them). The scene is built on
`rules.combat_kit` as a system's package is, so the kit knows nothing of it.

Fog (issue 47): the GM covers the map and reveals (or hides again) areas of it, drawn as
shapes or tapped as 1 m cells; the fog is the scene's too, so it is undone, redone and
replayed with the fight. A viewer sees nothing in a hidden area (`seen`): no token of a
combatant they do not command (nor its name, turn, attack or log line), no shape, and
the picture only with the hidden areas painted over (the Django shell does that). The
fog itself is drawn for everyone: where it lies is no secret, what it hides is.

What the scene is to the rules: a wall or cover is drawn for everyone to see (or for the
GM alone, `shown` false); the engines do not read it. Cover still counts in an attack
through the cover the GM or the player sets (Aoristos' cover per area, Phobia's
protection, T10's Kasta sig i skydd); the map marks an attack whose line crosses a
drawn cover so nobody forgets it (docs/playing.md).
"""

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from itertools import pairwise

from rules import table_dice
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
class FogArea:
    """An area of the map revealed (`reveal`) or hidden again: the inside of its points
    (at least three), its edges included."""

    reveal: bool
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Fog:
    """The map's fog: with `on`, all of the map is hidden but what its areas reveal, each
    area over the ones before it."""

    on: bool = False
    areas: tuple[FogArea, ...] = ()


@dataclass(frozen=True)
class Scene:
    shapes: tuple[Shape, ...] = ()
    picture: Picture | None = None
    fog: Fog = Fog()


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


@dataclass(frozen=True)
class SetFog:
    """Cover the map with fog (`on`) or take it away; `reset` forgets every area revealed
    or hidden so far."""

    on: bool = True
    reset: bool = False


@dataclass(frozen=True)
class MarkFog:
    """Reveal (`reveal`) or hide again an area: `points` "x,y …" in metres. One point is
    the 1 m cell it lies in (a tap), two the rectangle between them, three or more the
    shape inside them."""

    points: str
    reveal: bool = True


# The table's own dice (rules.table_dice) come with the scene's tables into every system's.
COMMANDS = {"add_shape": AddShape, "remove_shape": RemoveShape, "set_picture": SetPicture,
            "set_fog": SetFog, "mark_fog": MarkFog, **table_dice.COMMANDS}
GM_ONLY = (AddShape, RemoveShape, SetPicture, SetFog, MarkFog, *table_dice.GM_ONLY)
MAX_FOG_AREAS = 200  # areas revealed or hidden on one map


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


@dataclass(frozen=True)
class FogSet:
    on: bool
    reset: bool = False


@dataclass(frozen=True)
class FogMarked:
    area: FogArea


EVENT_TYPES = {cls.__name__: cls for cls in (ShapeAdded, ShapeRemoved, PictureSet, FogSet,
                                             FogMarked)} | table_dice.EVENT_TYPES
EVENT_CLASSES = frozenset(EVENT_TYPES.values())  # what a fold hands to `evolve_scene`
VALUE_TYPES = {cls.__name__: cls for cls in (Shape, Picture, Scene, Fog, FogArea)} | (
    table_dice.VALUE_TYPES)


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


def _set_fog(state, cmd: SetFog, rng) -> list:
    require_open(state)
    fog = state.scene.fog
    if fog.on == cmd.on and not (cmd.reset and fog.areas):
        refuse(_("the map already has fog") if cmd.on else _("the map has no fog"), "nothing")
    return [FogSet(cmd.on, cmd.reset)]


def fog_points(text: str) -> tuple[tuple[float, float], ...]:
    """A fog area's corners from `MarkFog.points`: a cell, a rectangle or a shape."""
    points = parse_points(text)
    if not 0 < len(points) <= MAX_POINTS:
        refuse(_("an area takes 1 to {most} points"), "bad_field", field="points",
               most=MAX_POINTS)
    if len(points) == 1:
        x, y = (math.floor(v) for v in points[0])
        return ((x + 0.0, y + 0.0), (x + 1.0, y + 0.0), (x + 1.0, y + 1.0), (x + 0.0, y + 1.0))
    if len(points) == 2:
        (x0, y0), (x1, y1) = points
        if x0 == x1 or y0 == y1:
            refuse(_("a rectangle's two corners differ in x and in y"), "bad_field",
                   field="points")
        return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    return points


def _mark_fog(state, cmd: MarkFog, rng) -> list:
    require_open(state)
    if not state.scene.fog.on:
        refuse(_("cover the map with fog first"), "nothing")
    if len(state.scene.fog.areas) >= MAX_FOG_AREAS:
        refuse(_("the fog holds at most {n} areas"), "too_many", n=MAX_FOG_AREAS)
    return [FogMarked(FogArea(bool(cmd.reveal), fog_points(cmd.points)))]


HANDLERS = {AddShape: _add_shape, RemoveShape: _remove_shape, SetPicture: _set_picture,
            SetFog: _set_fog, MarkFog: _mark_fog}


def evolve_scene(state, event):
    """The state after a scene event (`state.scene` replaced)."""
    kind = type(event)
    if kind in table_dice.EVENT_CLASSES:
        return changed(state, asked=table_dice.evolve_asked(state.asked, event))
    scene = state.scene
    if kind is ShapeAdded:
        scene = replace(scene, shapes=(*scene.shapes, event.shape))
    elif kind is ShapeRemoved:
        shapes = scene.shapes
        scene = replace(scene, shapes=shapes[: event.index] + shapes[event.index + 1 :])
    elif kind is FogSet:
        scene = replace(scene, fog=Fog(event.on, () if event.reset else scene.fog.areas))
    elif kind is FogMarked:
        scene = replace(scene, fog=Fog(scene.fog.on, (*scene.fog.areas, event.area)))
    else:
        scene = replace(scene, picture=event.picture)
    return changed(state, scene=scene)


def scene_line(event, viewer_is_gm: bool, fog: Fog = Fog()) -> dict:
    """A scene event's log line: what changed; a change the players do not see (a shape
    the GM keeps, or one drawn in the `fog`) is only "the GM changes the map" to them."""
    kind = type(event).__name__
    if kind == "ShapeAdded":
        hidden = not viewer_is_gm and (not event.shape.shown or fogged_shape(fog, event.shape))
        return {"kind": kind, "shape": "" if hidden else event.shape.kind,
                "shown": event.shape.shown}
    if kind == "PictureSet":
        picture = event.picture
        hidden = picture is not None and not picture.shown and not viewer_is_gm
        return {"kind": kind, "set": picture is not None and not hidden,
                "width": picture.width if picture and not hidden else None}
    if kind == "FogSet":
        return {"kind": kind, "on": event.on, "reset": event.reset}
    if kind == "FogMarked":
        return {"kind": kind, "reveal": event.area.reveal}
    return {"kind": kind}


def log_lines(state, events, viewer: Viewer, line: Callable, evolve: Callable) -> list[dict]:
    """The log lines of one record's events as `viewer` may read them, in every system:
    the scene's events as `scene_line` writes them, every other as the system's `line(state,
    event, viewer)` does, `state` the encounter just before that event (`evolve` folds
    each in). An event that names a combatant the viewer cannot see before it or after
    it (in the fog, `unseen`) is only "something happens out of sight" to them."""
    lines = []
    for event in events:
        after = evolve(state, event)
        if type(event) in table_dice.EVENT_CLASSES:
            lines.append(table_dice.line(state, event, viewer))
        elif type(event) in EVENT_CLASSES:
            lines.append(scene_line(event, viewer.is_gm, state.scene.fog))
        elif named(event) & (unseen(state, viewer) | unseen(after, viewer)):
            lines.append({"kind": "Unseen"})
        else:
            lines.append(line(state, event, viewer))
        state = after
    return lines


def named(event) -> frozenset[str]:
    """The combatants an event may name: every string in its fields (through tuples,
    lists and mappings, at any depth) and the `id` of a combatant in one."""
    found = set()

    def walk(value) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, (tuple, list, set, frozenset)):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(getattr(value, "id", None), str):
            found.add(value.id)

    for field in fields(event):
        walk(getattr(event, field.name))
    return frozenset(found)


# Fog -------------------------------------------------------------------------------------

EDGE = 1e-9  # metres: a point this near an area's edge is in it


def inside(points, x: float, y: float) -> bool:
    """Whether (x, y) lies in the polygon `points`, its edges included."""
    n = len(points)
    result = False
    for i in range(n):
        (x0, y0), (x1, y1) = points[i], points[(i + 1) % n]
        dx, dy = x1 - x0, y1 - y0
        length = dx * dx + dy * dy
        t = 0.0 if length == 0 else max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / length))
        if math.hypot(x - (x0 + t * dx), y - (y0 + t * dy)) <= EDGE:
            return True
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * dx / dy:
            result = not result
    return result


def in_fog(fog: Fog, x: float, y: float) -> bool:
    """Whether the point (x, y) is hidden: under fog that no later area reveals."""
    if not fog.on:
        return False
    return _index(fog).hidden(x, y)


class _FogIndex:
    """A fog's areas, newest first, each with its bounding box: a point is decided by the
    newest area it lies in, and only areas whose box holds it are tested. Counts the
    polygon tests it made (`tests`), for `hidden_shapes`' budget."""

    def __init__(self, fog: Fog):
        self.areas = []
        for area in reversed(fog.areas):
            xs, ys = [p[0] for p in area.points], [p[1] for p in area.points]
            self.areas.append((min(xs) - EDGE, min(ys) - EDGE, max(xs) + EDGE,
                               max(ys) + EDGE, area.points, area.reveal))
        self.tests = 0

    def hidden(self, x: float, y: float) -> bool:
        for x0, y0, x1, y1, points, reveal in self.areas:
            if x0 <= x <= x1 and y0 <= y <= y1:
                self.tests += 1
                if inside(points, x, y):
                    return not reveal
        return True

    def overlaps(self, box) -> bool:
        """Whether any revealing area's box meets `box` (x0, y0, x1, y1)."""
        return any(reveal and x0 <= box[2] and box[0] <= x1 and y0 <= box[3] and box[1] <= y1
                   for x0, y0, x1, y1, _points, reveal in self.areas)


@lru_cache(maxsize=32)
def _index(fog: Fog) -> _FogIndex:
    return _FogIndex(fog)


def unseen(state, viewer: Viewer) -> frozenset[str]:
    """The combatants `viewer` cannot see: those standing in the fog that they do not
    command (the GM sees every one)."""
    scene = getattr(state, "scene", None)
    if viewer.is_gm or scene is None or not scene.fog.on:
        return frozenset()
    index = _index(scene.fog)  # looked up once: hashing a fog of many areas is not free
    return frozenset(
        c.id for c in state.combatants
        if c.id not in viewer.controls and index.hidden(c.x, c.y)
    )


def check_seen(state, command, viewer: Viewer) -> None:
    """Refuse a command or a preview by `viewer` that names a combatant they cannot see,
    as if there were none: its answer would tell that it is there, and where."""
    if named(command) & unseen(state, viewer):
        refuse(_("there is no such combatant"), "bad_field", field="id")


SIDE_SAMPLES = 16  # points along a side that `fogged_shape` looks at, at most
INSIDE_SAMPLES = 8  # and across a cover's inside, per direction
BUDGET = 200_000  # polygon tests one scene's shapes may take (`hidden_shapes`)


def samples_of(shape: Shape) -> list[tuple[float, float]]:
    """The points of a shape `fogged_shape` looks at: its corners, its sides every 0.5 m
    (at most SIDE_SAMPLES each) and, for cover, a grid across its inside."""
    points = list(shape.points)
    sides = list(pairwise(points + points[:1] if shape.kind == "cover" else points))
    samples = list(points)
    for (x0, y0), (x1, y1) in sides:
        steps = min(SIDE_SAMPLES, max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / 0.5)))
        samples += [(x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps)
                    for k in range(1, steps)]
    if shape.kind == "cover":
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        n = INSIDE_SAMPLES
        for i in range(n + 1):
            for j in range(n + 1):
                x = min(xs) + (max(xs) - min(xs)) * i / n
                y = min(ys) + (max(ys) - min(ys)) * j / n
                if inside(points, x, y):
                    samples.append((x, y))
    return samples


def fogged_shape(fog: Fog, shape: Shape) -> bool:
    """Whether any of a shape lies in the fog, by its sample points (`samples_of`)."""
    return shape in hidden_shapes(Scene((shape,), fog=fog))


@lru_cache(maxsize=32)
def hidden_shapes(scene: Scene) -> frozenset[Shape]:
    """The scene's shapes any of which lies in its fog. Kept per scene (a map drawn for
    every page of every member asks once per version), and bounded: past BUDGET polygon
    tests the shapes not yet looked at count as hidden, so no scene takes a server's CPU
    for long, and what is not known to be revealed is never shown."""
    fog = scene.fog
    if not fog.on:
        return frozenset()
    index = _FogIndex(fog)
    hidden = set()
    for shape in scene.shapes:
        xs, ys = [p[0] for p in shape.points], [p[1] for p in shape.points]
        if index.tests > BUDGET or not index.overlaps((min(xs), min(ys), max(xs), max(ys))):
            hidden.add(shape)  # no revealing area comes near it: all of it is hidden
        elif any(index.hidden(x, y) for x, y in samples_of(shape)):
            hidden.add(shape)
    return frozenset(hidden)


ID_KEYS = ("id", "for", "attacker", "target", "combatant", "active")


def seen(view: dict, state, viewer: Viewer) -> dict:
    """A system's view with what `viewer` cannot see taken out (`unseen`): every entry
    that names an unseen combatant under one of ID_KEYS (in the order, the combatants,
    the prompts, the actions' targets, at any depth), such a name at the top (the active
    one) made None, and every point of a trail that lies in the fog. While the fight waits
    for the table's dice, that is its one prompt (`table_dice.prompt_in`)."""
    view = table_dice.prompt_in(view, state, viewer)
    hidden = unseen(state, viewer)
    if not hidden:
        return view
    index = _index(state.scene.fog)

    def names_hidden(item) -> bool:
        return isinstance(item, dict) and any(
            isinstance(item.get(key), str) and item[key] in hidden for key in ID_KEYS
        )

    def clean(value):
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                named_here = key in ID_KEYS and isinstance(item, str) and item in hidden
                if named_here or names_hidden(item):
                    out[key] = None
                elif key == "path" and isinstance(item, list):
                    out[key] = [p for p in item if not index.hidden(p[0], p[1])]
                else:
                    out[key] = clean(item)
            return out
        if isinstance(value, (list, tuple)):
            return [clean(item) for item in value if not names_hidden(item)]
        return value

    out = clean(view)
    if view.get("active") in hidden and "active_name" in out:
        out["active_name"] = ""  # T10 names the active one beside its id
    return out


def visible(scene: Scene, is_gm: bool) -> dict:
    """What the map draws of the scene for a viewer: the GM everything (what the players
    do not see marked), a player what is shown and not in the fog (a shape any of which
    lies in it is left out; the picture's hidden areas are painted over by the shell).
    The fog's areas are drawn for everyone."""
    fog = scene.fog
    fogged = frozenset() if is_gm else hidden_shapes(scene)
    shapes = [
        {"index": i, "kind": s.kind, "points": [list(p) for p in s.points], "shown": s.shown,
         "label": s.label}
        for i, s in enumerate(scene.shapes)
        if is_gm or (s.shown and s not in fogged)
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
        "fog": {
            "on": fog.on,
            "areas": [{"reveal": a.reveal, "points": [list(p) for p in a.points]}
                      for a in fog.areas] if fog.on else [],
        },
    }


def fog_key(fog: Fog) -> str:
    """A short name of the fog as it is (for the picture painted under it)."""
    text = repr((fog.on, fog.areas)).encode()
    return hashlib.sha256(text).hexdigest()[:16] if fog.on else ""
