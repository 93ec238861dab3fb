"""The encounter JSON API under /api/v1/ (session-authenticated, like the pages; a POST
carries the CSRF token in X-CSRFToken as the pages do).

- GET  /api/v1/encounters/<id>: {"version", "system", "ended", "state"}, the state as the
  caller may see it (NPC numbers are the GM's).
- POST /api/v1/encounters/<id>/commands with {"version": n, "command": {...}}: 200 with
  the new version, the record's log lines and the state; 400 {"error"} for a malformed or
  illegal command (nothing changes); 403 for a combatant the caller does not command;
  404 for non-members; 409 {"error", "version"} when the situation changed.
- GET  /api/v1/encounters/<id>/preview?id=&target=&weapon=&...: an attack's cost, chance
  to hit and damage distribution before it is sent; the query holds the system's attack
  fields (Aoristos aim, mode, shots, area; Phobia area; T10 distance, mode, modifier).
  An attack the rules refuse is 400 {"error", "ok": false, "why", "why_template", ...}.
- GET  /api/v1/encounters/<id>/simulation (GM only): the latest simulated run (issue 29)
  with its progress and, once counted, its report (each side's chance, each combatant's
  fates, the rounds, the p. 4 award; while it plays, its running estimate); POST
  {"precision", "seed", "flees", "wait"} starts one, played until its chances are known
  to the precision (issue 46) (202;
  with "wait" true, 200 once it has ended within a few seconds, else 202 with its
  progress and a "note"); 429 {"error", "limit"} past a share of the queue; POST
  .../simulation/cancel cancels it.
- GET  /api/v1/encounters/<id>/story: the fight's story in numbers, per combatant (for
  everyone once the fight is over; the GM's at any time, a player's 403 before).
"""

import json

from django.conf import settings
from django.http import Http404, JsonResponse
from django.views.decorators.http import require_GET, require_POST

from combat import fight_story, services, simulations
from combat.models import Encounter, Simulation
from combat.pages import LogIn, command_from_post, encounter_for, previews_for
from rules import scene
from rules.errors import RulesError

MAX_BODY_BYTES = 16_384


def error(message: str, status: int, **extra) -> JsonResponse:
    return JsonResponse({"error": message, **extra}, status=status)


def member_encounter(request, pk: int):
    """(encounter, membership) or an error response: 401 anonymous, 404 non-members (the
    pages' `encounter_for`: the encounter, then the membership with its user in one
    query)."""
    try:
        return encounter_for(request, pk), None
    except LogIn:
        return None, error("log in first", 401)
    except Http404:
        return None, error("no such encounter", 404)


def state_data(encounter, membership) -> dict:
    engine = services.engine_of(encounter)
    result = services.folded(encounter, engine)
    return {
        "version": encounter.version,
        "system": encounter.system,
        "ended": encounter.ended,
        "can_undo": result.can_undo,
        "can_redo": result.can_redo,
        "state": engine.view(
            result.state,
            services.viewer_for(encounter, membership),
            services.stat_names(engine, encounter.campaign),
        ),
    }


@require_GET
def encounter(request, pk: int):
    found, failed = member_encounter(request, pk)
    if failed:
        return failed
    return JsonResponse(state_data(*found))


@require_POST
def command(request, pk: int):
    found, failed = member_encounter(request, pk)
    if failed:
        return failed
    encounter, membership = found
    if len(request.body) > MAX_BODY_BYTES:
        return error(f"the body is larger than {MAX_BODY_BYTES} bytes", 400)
    if b"\\u0000" in request.body:  # PostgreSQL stores no NUL in the log's JSON
        return error("the body holds a NUL character (\\u0000)", 400)
    try:
        body = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError):
        return error("the body is not valid JSON", 400)
    if not isinstance(body, dict) or set(body) - {"version", "command"}:
        return error('send {"version": <int>, "command": {...}}', 400)
    version = body.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        return error("version must be the encounter's version you saw, a whole number", 400)
    data = body.get("command")
    if not isinstance(data, dict):
        return error("command must be an object with a type", 400)
    try:
        encounter, record, _after = services.command_run(
            encounter=encounter, membership=membership, data=data, version=version
        )
    except services.Stale as stale:
        return error("the situation changed", 409, version=stale.version)
    except services.NotYours:
        return error("you do not command that combatant", 403)
    except RulesError as refused:
        return error(str(refused), 400, code=refused.code)
    lines = record.lines if membership.is_gm else record.public_lines
    return JsonResponse({**state_data(encounter, membership), "lines": lines})


@require_GET
def preview(request, pk: int):
    found, failed = member_encounter(request, pk)
    if failed:
        return failed
    encounter, membership = found
    engine = services.engine_of(encounter)
    viewer = services.viewer_for(encounter, membership)
    # Refused before the engine is asked, whatever the combatant carries (as the page).
    if not previews_for(viewer, request.GET.get("id")):
        return error("you do not command that combatant", 403)
    try:
        data = {**command_from_post(request.GET), "type": "attack"}
        state = services.folded(encounter, engine).state
        command = engine.parse_command(data)
        scene.check_seen(state, command, viewer)  # a combatant in the fog is not there
        result = engine.preview(state, command, viewer,
                                services.stat_names(engine, encounter.campaign))
    except RulesError as refused:
        return error(str(refused), 400)
    if result.get("ok") is False:  # the attack cannot be made: 400 with the reason
        return JsonResponse({"error": result.get("why", ""), **result}, status=400)
    return JsonResponse(result)


def read_body(request) -> tuple[dict | None, JsonResponse | None]:
    """A JSON object body, or the 400 that says what is wrong with it."""
    if len(request.body) > MAX_BODY_BYTES:
        return None, error(f"the body is larger than {MAX_BODY_BYTES} bytes", 400)
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None, error("the body is not valid JSON", 400)
    if not isinstance(body, dict):
        return None, error("send a JSON object", 400)
    return body, None


def simulation_data(encounter, run) -> dict:
    """A run as the API shows it: its job and, once counted, its report. A run cancelled
    by a later start of its encounter is "replaced", with the id of the run that did."""
    if run is None:
        return {"simulation": None}
    status = "interrupted" if simulations.stalled(run) else run.status
    replaced_by = simulations.replaced_by(run)
    return {"simulation": {
        "id": run.pk,
        "status": "replaced" if replaced_by else status,
        **({"replaced_by": replaced_by} if replaced_by else {}),
        "version": run.version,
        "stale": run.version != encounter.version,
        "precision": run.precision,
        "fights": run.fights,
        "seed": run.seed,
        "flees": run.flees,
        "done": run.done,
        "total": run.total,
        "shared": run.shared,
        "report": simulations.report(run.result) if run.result else None,
        "estimate": (simulations.report(run.estimate)
                     if run.estimate and run.status == Simulation.Status.RUNNING else None),
    }}


def gm_fight(request, pk: int):
    """(the fight, None) for its GM, else (None, the error): 401, 404 for non-members and
    the chronicle (no fight to simulate), 403 for players."""
    found, failed = member_encounter(request, pk)
    if failed:
        return None, failed
    encounter, membership = found
    if encounter.kind != Encounter.Kind.COMBAT:
        return None, error("the chronicle has no fight to simulate", 404)
    if not membership.is_gm:
        return None, error("only the GM simulates a fight", 403)
    return encounter, None


BUSY = {
    "process": "the server is busy simulating other fights ({allowed} runs queued or "
               "running): try again soon",
    "user": "simulations queued or running on this server for your account: {allowed}, "
            "at most {allowed} per account; wait for one to end, or cancel one",
    "campaign": "simulations queued or running on this server for this campaign: "
                "{allowed}, at most {allowed} per campaign; wait for one to end, or cancel "
                "one",
}
WAIT_NOTES = {
    "running": "still running after {seconds} s: poll GET for its progress",
    "busy": "too many requests are waiting for simulations on this server: poll GET for "
            "its progress",
}


def busy(refused: simulations.Busy) -> JsonResponse:
    """429 naming the limit of the queue that refused the run."""
    return error(BUSY[refused.limit].format(allowed=refused.allowed), 429, limit=refused.limit)


def simulation(request, pk: int):
    """GET: the encounter's latest simulation (GM only), with its running estimate while
    it plays. POST {"precision": 5, "seed": 7, "flees": [ids], "wait": false}: start one
    (202), played until every chance it shows is known to ± "precision" percentage points
    at 95 % (5, 3 or 1; issue 46); the same "seed" gives the same report.

    With "wait": true the request waits for the run in its page thread, at most
    SIMULATION_WAIT_SECONDS and only while fewer than a quarter of the page threads wait
    (`simulations.wait_for_answer`): 200 once the run has ended, whatever ended it (done,
    cancelled, replaced by another start, failed); 202 with its progress and a "note"
    when it still goes on, or when no wait was free. Never an error for the run's fate:
    its status says it."""
    encounter, failed = gm_fight(request, pk)
    if failed:
        return failed
    if request.method == "GET":
        return JsonResponse(simulation_data(encounter, simulations.latest(encounter)))
    if request.method != "POST":
        return error("use GET or POST", 405)
    body, failed = read_body(request)
    if failed:
        return failed
    if "fights" in body:
        return error("a run plays until its chances are known, not a number of fights: "
                     'send "precision" (5, 3 or 1 percentage points)', 400)
    if set(body) - {"precision", "seed", "flees", "wait"}:
        return error('send {"precision": <5, 3 or 1>, "seed": <int>, "flees": [<combatant '
                     'id>, ...], "wait": <bool>}', 400)
    precision = body.get("precision", simulations.sim.DEFAULT_PRECISION)
    if isinstance(precision, bool) or precision not in simulations.PRECISIONS:
        choices = ", ".join(f"{p:g}" for p in simulations.PRECISIONS)
        return error(f"precision must be one of {choices} (percentage points)", 400)
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                             or not 0 <= seed < simulations.MAX_SEED):
        return error(f"seed must be a whole number from 0 below {simulations.MAX_SEED}", 400)
    flees = body.get("flees", [])
    if not isinstance(flees, list) or not all(isinstance(cid, str) for cid in flees):
        return error("flees must be a list of combatant ids", 400)
    if not isinstance(body.get("wait", False), bool):
        return error("wait must be true or false", 400)
    if encounter.ended:
        return error("the fight has ended: there is nothing left to simulate", 400)
    try:
        run = simulations.start(encounter, request.user, precision=float(precision),
                                flees=flees, seed=seed)
    except simulations.Busy as refused:
        return busy(refused)
    if not body.get("wait"):
        return JsonResponse(simulation_data(encounter, run), status=202)
    waited = simulations.wait_for_answer(run)
    run.refresh_from_db()
    data = simulation_data(encounter, run)
    if waited == "ended" or run.status != Simulation.Status.RUNNING:
        return JsonResponse(data)
    seconds = getattr(settings, "SIMULATION_WAIT_SECONDS", simulations.WAIT_SECONDS)
    return JsonResponse({**data, "note": WAIT_NOTES[waited].format(seconds=seconds)},
                        status=202)


@require_POST
def simulation_cancel(request, pk: int):
    encounter, failed = gm_fight(request, pk)
    if failed:
        return failed
    run = simulations.latest(encounter)
    if run is None:
        return error("no simulation to cancel", 404)
    simulations.cancel(run)
    run.refresh_from_db()
    return JsonResponse(simulation_data(encounter, run))


@require_GET
def story(request, pk: int):
    """The fight's story in numbers (issue 29): for everyone once it is over, for the GM
    at any time."""
    found, failed = member_encounter(request, pk)
    if failed:
        return failed
    encounter, membership = found
    if encounter.kind != Encounter.Kind.COMBAT:
        return error("the chronicle is no fight: it has no story in numbers", 404)
    if not fight_story.shown_to(encounter, membership):
        return error("the story is told when the fight is over", 403)
    told = fight_story.told_to(fight_story.story_of(encounter), membership)
    return JsonResponse({"version": encounter.version, "ended": encounter.ended,
                         "story": told.as_dict()})
