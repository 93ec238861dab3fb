"""The fight on the table screen (issue 47; the screen itself is table/screens.py): who acts
now, who is next, and who an answer waits for, read from across the room; and its battle
map, drawn here as SVG from the players' map data (`battle_map.map_data` for a viewer
with no combatant), so what the fog hides never reaches the screen: no token, shape or
unpainted part of the picture (combat.fog).

The screen reads as a player with no combatant of their own (`Viewer(is_gm=False)`): the
engines' own view for players (`engine.view`), so an NPC's numbers stay the GM's. Of a
prompt it says only whom it waits for (the GM, for a prompt that is the GM's alone): not
what the GM is asked, which can name a hidden place. The fight shown is the campaign's
running fight that was started last."""

import math

from django.http import Http404
from django.shortcuts import render
from django.urls import reverse

from campaigns.models import TableScreen
from combat import battle_map, fog, services
from combat.models import Encounter
from rules.engine import Viewer

SCREEN_VIEWER = Viewer(is_gm=False)
NEXT = 3  # who is next: the few after the one who acts


def turns(state: dict) -> dict:
    """The turn strip of a player's view of a fight (any of the three engines)."""
    order = [entry for entry in state.get("order", ()) if entry.get("alive", True)]
    active = state.get("active")
    at = next((n for n, entry in enumerate(order) if entry["id"] == active), None)
    after = order[at + 1:] + order[:at] if at is not None else order
    # A prompt names its combatant by id; some engines give its name too ("who").
    names = {c["id"]: c.get("name", "") for c in state.get("combatants", ())}
    return {
        "round": state.get("round"),
        "active": order[at]["name"] if at is not None else None,
        "next": [entry["name"] for entry in after][:NEXT],
        "waiting": [
            {"gm": not prompt.get("for") or not (prompt.get("who") or names.get(prompt["for"])),
             "who": prompt.get("who") or names.get(prompt.get("for"), "")}
            for prompt in state.get("prompts", ())
        ],
    }


def running_fight(campaign, started: bool = True) -> tuple[Encounter, dict] | None:
    """The campaign's running fight started last, with its players' view; None when none
    is on. `started` False: a fight being set up counts too (the map shows it)."""
    fights = Encounter.objects.filter(campaign=campaign, kind=Encounter.Kind.COMBAT,
                                      ended=False).order_by("-pk")
    for encounter in fights[:10]:
        engine = services.engine_of(encounter)
        state = engine.view(services.folded(encounter, engine).state, SCREEN_VIEWER,
                            services.stat_names(engine, campaign))
        if (state.get("started") or not started) and not state.get("ended"):
            return encounter, state
    return None


def screen_of(token: str) -> TableScreen:
    screen = TableScreen.objects.select_related("campaign").filter(token=token).first()
    if screen is None:
        raise Http404
    return screen


MARGIN = 2.0  # metres around what the screen's map shows
LEAST = 12.0  # metres: the smallest map it shows


def box_of(data: dict) -> dict:
    """The part of the plane the screen shows: every token, shape and the picture, with a
    margin, at least LEAST m across; as wide as a TV is (16:9)."""
    points = [(c["x"], c["y"]) for c in data["combatants"]]
    for shape in data["scene"]["shapes"]:
        points += [tuple(p) for p in shape["points"]]
    picture = data["scene"]["picture"]
    if picture:
        points += [(picture["x"], picture["y"]),
                   (picture["x"] + picture["width"], picture["y"] + picture["height"])]
    points = points or [(0.0, 0.0)]
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(p[1] for p in points), max(p[1] for p in points)
    height = max(LEAST * 9 / 16, y1 - y0 + 2 * MARGIN, (x1 - x0 + 2 * MARGIN) * 9 / 16)
    width = height * 16 / 9
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    box = {"x": round(cx - width / 2, 2), "y": round(cy - height / 2, 2),
           "w": round(width, 2), "h": round(height, 2)}
    box["x1"], box["y1"] = round(box["x"] + box["w"], 2), round(box["y"] + box["h"], 2)
    box["grid_x"] = list(range(math.ceil(box["x"]), math.floor(box["x1"]) + 1))
    box["grid_y"] = list(range(math.ceil(box["y"]), math.floor(box["y1"]) + 1))
    return box


def screen_map(request, token: str):
    """The battle map of the screen `token`: the campaign's running fight (or the one set
    up last) as a player without a combatant sees it, drawn on the server."""
    screen = screen_of(token)
    found = running_fight(screen.campaign, started=False)
    context = {"screen": screen, "map": None}
    if found is not None:
        encounter, view = found
        engine = services.engine_of(encounter)
        state = services.folded(encounter, engine).state
        data = battle_map.map_data(
            engine, view, state, SCREEN_VIEWER,
            lambda key: reverse("combat:screen_picture", args=[screen.token, key]))
        if data is not None:
            # Names of tokens side by side (a melee) go above and below, not over each other.
            for n, c in enumerate(data["combatants"]):
                c["name_above"] = bool(n % 2) and any(
                    math.hypot(c["x"] - o["x"], c["y"] - o["y"]) < 2.5
                    for o in data["combatants"][:n])
            context |= {"map": data, "box": box_of(data), "fight": {
                "name": encounter.name, **turns(view)}}
    response = render(request, "combat/_screen_map.html", context)
    response["Cache-Control"] = "no-store"
    return response


def screen_picture(request, token: str, picture: int):
    """The map's picture as the players get it (painted over where the fog hides it)."""
    screen = screen_of(token)
    found = running_fight(screen.campaign, started=False)
    if found is None:
        raise Http404
    return fog.picture_response(found[0], picture, is_gm=False)


def screen_fight(request, token: str):
    """The turn strip of the screen `token` (its page asks for it as events arrive)."""
    screen = screen_of(token)
    found = running_fight(screen.campaign)
    context = {"screen": screen, "fight": None}
    if found is not None:
        encounter, state = found
        context["fight"] = {"name": encounter.name, **turns(state)}
    response = render(request, "combat/_screen_fight.html", context)
    response["Cache-Control"] = "no-store"
    return response
