"""The encounter page's simulation (issue 29): the GM starts a run of simulated fights,
watches its progress, cancels it, and shares the result with the players or not.

- POST simulate/: start a run (fights, who flees when wounded); GM only.
- GET simulate/: the section as the member may see it (the page polls it while a run
  goes on); a player sees a run only when the GM shared it.
- POST simulate/cancel/, simulate/share/: GM only.

The section sits in the encounter's state panel, so every new version of the fight
renders it again and a result of an older version is marked stale.
"""

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from combat import services, simulations
from combat.models import Encounter, Simulation
from combat.views import encounter_for, member_view
from core.params import ascii_digits

AWARD_ROWS = {
    "no_threat": gettext_lazy("no threat if the characters take it seriously"),
    "alone_wins": gettext_lazy("the average character would win alone"),
    "alone_loses": gettext_lazy("the average character would lose alone"),
    "group_threatened": gettext_lazy("the whole group is threatened"),
}


def section_context(encounter: Encounter, membership, *, run=None, error: str = "") -> dict:
    """What the section shows `membership`: the latest run (a player only a shared one),
    its report, whether it is stale or was interrupted, and the GM's form."""
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
        context |= {
            "sim_running": run.status == Simulation.Status.RUNNING and not interrupted,
            "sim_interrupted": interrupted,
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
        context["sim_fights"] = simulations.FIGHT_CHOICES
        context["sim_default"] = run.fights if run is not None else simulations.DEFAULT_FIGHTS
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
    return {"up": award["up"], "row": AWARD_ROWS[row], "why": why, "group": group,
            "alone": alone}


def award_url(encounter: Encounter, award: dict) -> str:
    """The campaign's award form, filled in with the simulated row for this fight."""
    query = urlencode({
        "method": "combat",
        "challenge": award["up"],
        "reason": _("The fight: %(name)s") % {"name": encounter.name},
    })
    return f"{reverse('campaigns:awards', args=[encounter.campaign_id])}?{query}"


def section(request, encounter, membership, *, status: int = 200, **kwargs) -> HttpResponse:
    context = {
        "encounter": encounter,
        "campaign": encounter.campaign,
        "is_gm": membership.is_gm,
        **section_context(encounter, membership, **kwargs),
    }
    return render(request, "combat/_simulation.html", context, status=status)


def answer(request, encounter, membership, **kwargs) -> HttpResponse:
    """The section for htmx; the page again for a plain form."""
    if request.htmx:
        return section(request, encounter, membership, **kwargs)
    return redirect(f"{encounter.get_absolute_url()}#simulation")


def fight_for(request, pk: int, *, gm: bool = False):
    """The fight and the member's membership (`encounter_for`); 404 for a chronicle, which
    has nothing to simulate."""
    encounter, membership = encounter_for(request, pk, gm=gm)
    if encounter.kind != Encounter.Kind.COMBAT:
        raise Http404
    return encounter, membership


def busy_text(refused: simulations.Busy) -> str:
    """Why the queue refused a run: the server's, or the share of the GM or campaign."""
    if refused.limit == "user":
        return _("Your account has as many simulations queued or running as one account "
                 "may (%(allowed)s): wait for one to end, or cancel one.") % {
                     "allowed": refused.allowed}
    if refused.limit == "campaign":
        return _("This campaign has as many simulations queued or running as one campaign "
                 "may (%(allowed)s): wait for one to end.") % {"allowed": refused.allowed}
    return _("The server is busy simulating other fights: try again soon.")


@member_view
def simulate(request, pk: int):
    encounter, membership = fight_for(request, pk, gm=request.method == "POST")
    if request.method == "GET":
        return section(request, encounter, membership)
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    fights = request.POST.get("fights", str(simulations.DEFAULT_FIGHTS))
    fights = int(fights) if ascii_digits(fights, 5) else None
    if fights not in simulations.FIGHT_CHOICES:
        return section(request, encounter, membership, status=400,
                       error=_("Choose how many fights to play."))
    if encounter.ended:
        return section(request, encounter, membership, status=400,
                       error=_("The fight has ended: there is nothing left to simulate."))
    try:
        run = simulations.start(
            encounter, request.user, fights=fights, flees=request.POST.getlist("flees")
        )
    except simulations.Busy as refused:
        return section(request, encounter, membership, status=429, error=busy_text(refused))
    return answer(request, encounter, membership, run=run)


@member_view
@require_POST
def cancel(request, pk: int):
    encounter, membership = fight_for(request, pk, gm=True)
    run = simulations.latest(encounter)
    if run is not None:
        simulations.cancel(run)
    return answer(request, encounter, membership)


@member_view
@require_POST
def share(request, pk: int):
    encounter, membership = fight_for(request, pk, gm=True)
    run = simulations.latest(encounter)
    if run is not None:
        shared = request.POST.get("shared") == "true"
        Simulation.objects.filter(pk=run.pk).update(shared=shared)
    return answer(request, encounter, membership)

