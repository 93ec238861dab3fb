"""The fight on the table screen (issue 47; the screen itself is table/screens.py): who acts
now, who is next, and who an answer waits for, read from across the room.

The screen reads as a player with no combatant of their own (`Viewer(is_gm=False)`): the
engines' own view for players (`engine.view`), so an NPC's numbers stay the GM's. Of a
prompt it says only whom it waits for (the GM, for a prompt that is the GM's alone): not
what the GM is asked, which can name a hidden place. The fight shown is the campaign's
running fight that was started last."""

from django.http import Http404
from django.shortcuts import render

from campaigns.models import TableScreen
from combat import services
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
    return {
        "round": state.get("round"),
        "active": order[at]["name"] if at is not None else None,
        "next": [entry["name"] for entry in after][:NEXT],
        "waiting": [
            {"gm": not prompt.get("for"), "who": prompt.get("who", "")}
            for prompt in state.get("prompts", ())
        ],
    }


def running_fight(campaign) -> tuple[Encounter, dict] | None:
    """The campaign's running fight started last, with its players' view; None when none
    is on."""
    fights = Encounter.objects.filter(campaign=campaign, kind=Encounter.Kind.COMBAT,
                                      ended=False).order_by("-pk")
    for encounter in fights[:10]:
        engine = services.engine_of(encounter)
        state = engine.view(services.folded(encounter, engine).state, SCREEN_VIEWER,
                            services.stat_names(engine, campaign))
        if state.get("started") and not state.get("ended"):
            return encounter, state
    return None


def screen_fight(request, token: str):
    """The turn strip of the screen `token` (its page asks for it as events arrive)."""
    screen = TableScreen.objects.select_related("campaign").filter(token=token).first()
    if screen is None:
        raise Http404
    found = running_fight(screen.campaign)
    context = {"screen": screen, "fight": None}
    if found is not None:
        encounter, state = found
        context["fight"] = {"name": encounter.name, **turns(state)}
    response = render(request, "combat/_screen_fight.html", context)
    response["Cache-Control"] = "no-store"
    return response
