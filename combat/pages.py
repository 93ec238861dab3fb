"""What the encounter's pages share: the encounter read through the member's campaign
(`encounter_for`, `member_view`), a command read from a form (`command_from_post`), who
may preview an attack (`previews_for`) and the simulation section as a member sees it
(`section_context`, which the state panel shows as well as the section's own views).

Below the view modules (combat/views.py, simulation_views.py, api.py), which each import
it and not one another: the panel needed the section and the section's views the
encounter, a circle through a lazy import (issue 44).
"""

import math
import re
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.http import Http404
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.access import get_membership
from combat import services, simulations
from combat.models import Encounter, Simulation
from core.params import ascii_digits
from rules.errors import RulesError

# Form fields that stay text whatever they look like; the rest become numbers or booleans
# when they look like one (the engine's parser is strict about types).
TEXT_FIELDS = {"type", "id", "name", "side", "hand", "label", "weapon", "target", "mode",
               "kind", "key",  # the battle map's scene (rules/scene.py)
               "faces",  # the table's own dice (rules/table_dice.py)
               "posture", "area", "right", "left", "attacker",
               "limb", "gunner",  # an unarmed attack's limb; a belt's gunner (p. 8, 11)
               # the chronicle's (rules/aoristos/aftermath/commands.py)
               "unit", "until", "activity", "environment", "rest", "care", "source",
               "reason", "description", "effects", "develops", "disorder", "recovery"}
LIST_FIELDS = {"properties", "hidden_areas", "weapons", "armour", "ids", "equipment", "levels",
               "followers", "packed"}
NUMBER_LISTS = {"levels"}  # lists of whole numbers
NUMBER = re.compile(r"^-?[0-9]{1,6}(\.[0-9]{1,2})?$")
SKIP = {"csrfmiddlewaretoken", "version", "next"}


class LogIn(Exception):
    """Nobody is logged in: the view sends them to log in."""


def encounter_for(request, pk: int, *, gm: bool = False):
    """The encounter and the user's membership of its campaign, user and campaign read
    with it (`campaigns.access.get_membership`): 404 for non-members, 403 if `gm` is
    needed, LogIn for the anonymous."""
    encounter = services.encounter_row(pk)
    if encounter is None:
        raise Http404
    membership = get_membership(request, encounter.campaign_id, gm=gm)
    if membership is None:
        raise LogIn
    encounter.campaign = membership.campaign
    return encounter, membership


def member_view(view):
    """Like ``login_required``, without reading the user before the membership does."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except LogIn:
            return redirect_to_login(request.get_full_path())

    return wrapper


def command_from_post(post) -> dict:
    """A command dict from a form: numbers, booleans, lists and a cover per area. NUL
    characters are dropped (PostgreSQL stores none in the log's JSON)."""
    data: dict = {}
    cover = {}
    for key in post:
        if key in SKIP:
            continue
        if key in LIST_FIELDS:
            data[key] = [v.replace("\x00", "") for v in post.getlist(key) if v != ""]
            if key in NUMBER_LISTS:
                data[key] = [int(v) if ascii_digits(v.strip(), 6) else v for v in data[key]]
            continue
        value = post.get(key, "").replace("\x00", "")
        if key.startswith("cover_"):
            if value.strip():
                cover[key.removeprefix("cover_")] = value
            continue
        if value == "" and key not in ("hand",):
            continue
        if key in TEXT_FIELDS:
            data[key] = value
        elif value in ("true", "false", "on"):
            data[key] = value != "false"
        elif NUMBER.match(value.strip()):
            number = float(value)
            data[key] = int(number) if number.is_integer() and "." not in value else number
        else:
            data[key] = value
    if cover or post.get("type") == "update_combatant" and "cover_torso" in post:
        parsed = {}
        for area, value in cover.items():
            if not ascii_digits(value.strip(), 6):
                raise RulesError(_("Cover must be a whole number."))
            parsed[area] = int(value)
        data["cover"] = parsed
    for key in ("x", "y"):  # coordinates are metres, whole or not
        if isinstance(data.get(key), int):
            data[key] = float(data[key])
    return data


def previews_for(viewer, combatant_id) -> bool:
    """Whether `viewer` may preview an attack of `combatant_id` (a query's text): the GM
    any, a player only a combatant they command."""
    return viewer.is_gm or combatant_id in viewer.controls


AWARD_ROWS = {
    "no_threat": gettext_lazy("no threat if the characters take it seriously"),
    "alone_wins": gettext_lazy("the average character would win alone"),
    "alone_loses": gettext_lazy("the average character would lose alone"),
    "group_threatened": gettext_lazy("the whole group is threatened"),
}


def section_context(encounter: Encounter, membership, *, run=None, error: str = "") -> dict:
    """What the simulation section (combat/_simulation.html) shows `membership`, in the
    state panel and in the section's own answers: the latest run (a player only a shared
    one), its report, whether it is stale or was interrupted, and the GM's form."""
    if run is None:
        run = simulations.latest(encounter)
    if run is not None and not membership.is_gm and not run.shared:
        run = None
    context = {
        "sim_run": run,
        "sim_error": error,
        "sim_url": reverse("combat:simulate", args=[encounter.pk]),
        "sim_shown": membership.is_gm or run is not None,
    }
    if run is None:
        context["sim_running"] = False
    else:
        interrupted = simulations.stalled(run)
        running = run.status == Simulation.Status.RUNNING and not interrupted
        context |= {
            "sim_running": running,
            "sim_interrupted": interrupted or run.status == Simulation.Status.INTERRUPTED,
            "sim_estimate": simulations.report(run.estimate) if running and run.estimate else None,
            "sim_percent": round(100 * run.done / run.total) if run.total else 0,
            "sim_stale": run.version != encounter.version,
            "sim_report": simulations.report(run.result) if run.result else None,
        }
        award = (context["sim_report"] or {}).get("award")
        if award:
            context["sim_award"] = award_text(award)
            context["sim_award_url"] = award_url(encounter, award)
    if membership.is_gm:
        engine = services.engine_of(encounter)
        state = services.folded(encounter, engine).state
        chosen = set(run.flees) if run is not None else set()
        context["sim_flees"] = [
            {"id": c.id, "name": c.name, "checked": c.id in chosen}
            for c in state.combatants
            if c.npc
        ]
        context["sim_precisions"] = simulations.PRECISIONS
        context["sim_default"] = (run.precision if run is not None
                                  else simulations.sim.DEFAULT_PRECISION)
        if not encounter.ended:
            simulations.warm()  # its worker processes ready before the GM asks
    return context


def award_text(award: dict) -> dict:
    """The award's row and its reason, from the simulated chances and the thresholds."""
    house = award["house"]
    group = round(100 * award["group_chance"])
    alone = round(100 * award["alone_chance"])
    row = award["row"]
    if row == "group_threatened":
        why = _("the group fails to win %(fails)s %% of the fights (3 UP from %(limit)s %%)") % {
            "fails": 100 - group, "limit": house["award_group_threat_percent"]}
    elif row == "no_threat":
        why = _("one character alone wins %(alone)s %% (0 UP from %(limit)s %%)") % {
            "alone": alone, "limit": house["award_no_threat_percent"]}
    elif row == "alone_wins":
        why = _("one character alone wins %(alone)s %% (1 UP from %(limit)s %%)") % {
            "alone": alone, "limit": house["award_alone_wins_percent"]}
    else:
        why = _("one character alone wins %(alone)s %% (below %(limit)s %%: 2 UP)") % {
            "alone": alone, "limit": house["award_alone_wins_percent"]}
    precision = ""
    if "decided" in award:  # issue 46: the row with its intervals
        numbers = {
            "confidence": round(100 * award["confidence"]),
            "group_low": math.floor(100 * award["group_interval"][0]),
            "group_high": math.ceil(100 * award["group_interval"][1]),
            "alone_low": math.floor(100 * award["alone_interval"][0]),
            "alone_high": math.ceil(100 * award["alone_interval"][1]),
            "fights": award["alone_fights"],
        }
        if award["decided"]:
            precision = _("Decided at %(confidence)s %%: the group wins %(group_low)s-"
                          "%(group_high)s %%, one character alone %(alone_low)s-"
                          "%(alone_high)s %%.") % numbers
        else:
            precision = _("Not decided at %(confidence)s %% after %(fights)s fights of each "
                          "character alone: the group wins %(group_low)s-%(group_high)s %%, "
                          "one character alone %(alone_low)s-%(alone_high)s %%, across a "
                          "threshold. This is the row at the estimate.") % numbers
    return {"up": award["up"], "row": AWARD_ROWS[row], "why": why, "group": group,
            "alone": alone, "decided": award.get("decided", True), "precision": precision}


def award_url(encounter: Encounter, award: dict) -> str:
    """The campaign's award form, filled in with the simulated row for this fight."""
    query = urlencode({
        "method": "combat",
        "challenge": award["up"],
        "reason": _("The fight: %(name)s") % {"name": encounter.name},
    })
    return f"{reverse('campaigns:awards', args=[encounter.campaign_id])}?{query}"
