"""The encounter page's simulation (issue 29): the GM starts a run of simulated fights,
watches its progress, cancels it, and shares the result with the players or not.

- POST simulate/: start a run (how precise, who flees when wounded); GM only.
- GET simulate/: the section as the member may see it (the page polls it while a run
  goes on); a player sees a run only when the GM shared it.
- POST simulate/cancel/, simulate/share/: GM only.

The section sits in the encounter's state panel, so every new version of the fight
renders it again and a result of an older version is marked stale.
"""

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from combat import simulations
from combat.models import Encounter, Simulation
from combat.pages import encounter_for, member_view, section_context


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
    precision = {f"{p:g}": p for p in simulations.PRECISIONS}.get(
        request.POST.get("precision", f"{simulations.sim.DEFAULT_PRECISION:g}"))
    if precision is None:
        return section(request, encounter, membership, status=400,
                       error=_("Choose how precise the answer must be."))
    if encounter.ended:
        return section(request, encounter, membership, status=400,
                       error=_("The fight has ended: there is nothing left to simulate."))
    try:
        run = simulations.start(
            encounter, request.user, precision=precision, flees=request.POST.getlist("flees")
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

