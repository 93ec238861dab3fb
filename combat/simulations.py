"""How dangerous is this fight? The GM's simulation of an encounter (issue 29).

The fights are played by the rules core (`rules.simulation`); this module runs them for a
page or the API without blocking either:

- **A job per run, off the request thread.** `start` stores a `Simulation` row and hands
  the fights to this process's simulation thread (`SIMULATION_WORKERS`, default 1: a
  laptop serving the table keeps its other core for the pages). The request answers at
  once; the page polls `progress` (any process can read the row).
- **Progress and cancel through the row.** The job writes how many fights it has played
  at most every `PROGRESS_SECONDS`, in one UPDATE that only a running job's row takes:
  when the GM has cancelled (the row's status), the UPDATE changes nothing and the job
  stops at its next check, keeping the fights played so far.
- **From the state the GM sees.** The run starts from the encounter's state at its
  version (the process's folded state, not read again); the result names that version,
  and a page marks it stale once the fight has moved on.
- **The p. 4 award** (Aoristos) is simulated from the fight as it was set up: the state
  itself before the start, else the fold of the log up to the start. Its thresholds are
  the campaign's house rules (`rules.aoristos.system.AWARD_HOUSE_RULES`).
- **A process that dies** leaves its running row behind: a row whose progress has not
  moved in `STALLED` is shown as interrupted, and a new run may be started.
"""

import contextlib
import logging
import secrets
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from combat import services
from combat.models import Encounter, Simulation
from rules import simulation as sim

log = logging.getLogger(__name__)

DEFAULT_FIGHTS = 1000
FIGHT_CHOICES = (200, 1000, 5000)
MAX_QUEUED = 8  # runs waiting in one process; more are refused with a reason
PROGRESS_SECONDS = 0.25
STALLED = timedelta(seconds=30)
AWARD_SYSTEMS = frozenset({"aoristos"})  # the p. 4 table is Aoristos's

_executor: ThreadPoolExecutor | None = None
_jobs: dict[int, tuple[int, "Job", Future]] = {}  # run pk -> (encounter pk, job, future)
_lock = threading.Lock()


class Busy(Exception):
    """This process has too many runs waiting."""


def executor() -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                max_workers=getattr(settings, "SIMULATION_WORKERS", 1),
                thread_name_prefix="simulate",
            )
        return _executor


def latest(encounter: Encounter) -> Simulation | None:
    """The encounter's latest run; no query when the row was read with its latest run's
    id (`services.encounter_row`) and there is none."""
    known = getattr(encounter, "latest_simulation_id", False)
    if known is None:
        return None
    return encounter.simulations.order_by("-pk").first()


def stalled(run: Simulation, now=None) -> bool:
    """A running row whose job no longer writes: its process stopped."""
    return run.status == Simulation.Status.RUNNING and (
        (now or timezone.now()) - run.updated_at > STALLED
    )


def setup_state(encounter: Encounter, engine, folded):
    """The fight as it was set up (before its start), from which its award is simulated:
    the state itself when it has not started; else the fold of the records that stay
    applied up to the one that started it. None when the log has no set-up state (a
    single attack)."""
    policy = engine.policy
    if policy.start_command(folded.state) is not None:
        return folded.state
    state = services.initial_state(encounter, engine)
    setup = state if policy.start_command(state) is not None else None
    for record in services.records(encounter.pk, engine, versions=folded.applied):
        for event in record.events:
            state = engine.evolve(state, event)
        if policy.start_command(state) is None:
            return setup
        setup = state
    return setup


def start(encounter: Encounter, user, *, fights: int = DEFAULT_FIGHTS, flees=()) -> Simulation:
    """Store a run of `fights` fights from the encounter's state and queue it; a run of
    the encounter still going is cancelled. Busy when this process has too many waiting.
    `flees`: ids of combatants that flee when wounded (unknown ids are dropped)."""
    engine = services.engine_of(encounter)
    folded = services.folded(encounter, engine)
    state = folded.state
    ids = {c.id for c in state.combatants}
    flees = sorted({cid for cid in flees if cid in ids})
    setup = None
    if encounter.system in AWARD_SYSTEMS:
        setup = setup_state(encounter, engine, folded)
    house = {k: v for k, v in encounter.campaign.house().items() if k in sim.AWARD_DEFAULTS}
    same = setup is state
    award_total = sim.award_fights(setup, fights, group_known=same) if setup is not None else 0
    with _lock:
        for encounter_pk, job, future in _jobs.values():
            if encounter_pk == encounter.pk:  # the GM's earlier run of this fight
                job.stopped = True
                future.cancel()
        waiting = sum(1 for _e, _j, future in _jobs.values() if not future.done())
        if waiting >= MAX_QUEUED:
            raise Busy
    Simulation.objects.filter(encounter=encounter, status=Simulation.Status.RUNNING).update(
        status=Simulation.Status.CANCELLED, updated_at=timezone.now()
    )
    run = Simulation.objects.create(
        encounter=encounter,
        version=encounter.version,
        fights=fights,
        seed=secrets.randbits(62),
        flees=flees,
        total=fights + award_total,
        created_by=user,
    )
    job = Job(run.pk, engine, state, setup if award_total else None, same, house)
    future = executor().submit(job)
    with _lock:
        _jobs[run.pk] = (encounter.pk, job, future)
        for pk in [pk for pk, (_e, _j, f) in _jobs.items() if f.done()]:
            del _jobs[pk]
    return run


def wait(run: Simulation, timeout: float = 60) -> None:
    """Wait for a run this process started (tests, and the API's ?wait)."""
    with _lock:
        found = _jobs.get(run.pk)
    if found is not None:
        found[2].result(timeout)


def drain(timeout: float = 10) -> None:
    """Stop every run of this process: those waiting never start, those playing stop at
    their next check (a test's end, before its database goes)."""
    with _lock:
        jobs = list(_jobs.values())
        _jobs.clear()
    for _encounter, job, future in jobs:
        job.stopped = True
        future.cancel()
    for _encounter, _job, future in jobs:
        with contextlib.suppress(Exception):
            future.result(timeout)


def cancel(run: Simulation) -> bool:
    """Cancel a running run; False when it had already ended."""
    return bool(
        Simulation.objects.filter(pk=run.pk, status=Simulation.Status.RUNNING).update(
            status=Simulation.Status.CANCELLED, updated_at=timezone.now()
        )
    )


class Job:
    """One run, as the simulation thread plays it."""

    def __init__(self, pk, engine, state, setup, same, house):
        self.pk, self.engine, self.state, self.setup = pk, engine, state, setup
        self.same, self.house = same, house
        self.stopped = False
        self.written = 0.0

    def __call__(self) -> None:
        close_old_connections()
        try:
            self.play()
        except Exception as error:  # a bug must not leave the row running for ever
            log.exception("simulation %s failed", self.pk)
            Simulation.objects.filter(pk=self.pk).update(
                status=Simulation.Status.FAILED, error=str(error)[:200]
            )
        finally:
            connection.close()

    def play(self) -> None:
        run = Simulation.objects.get(pk=self.pk)
        if run.status != Simulation.Status.RUNNING:
            return  # cancelled while it waited
        plan = sim.Plan(flees=frozenset(run.flees))
        summary = sim.simulate(
            self.engine, self.state, fights=run.fights, seed=run.seed, plan=plan,
            progress=self.progress(0, run.total), cancelled=self.cancelled,
        )
        award = None
        if self.setup is not None and not self.stopped:
            award = sim.award_for(
                self.engine, self.setup, fights=run.fights, seed=run.seed, plan=plan,
                house=self.house, group=summary if self.same else None,
                progress=self.progress(run.fights, run.total), cancelled=self.cancelled,
            )
        result = result_data(summary, award, self.state, plan, self.house)
        done = run.fights if self.stopped else run.total
        finished = Simulation.objects.filter(pk=self.pk, status=Simulation.Status.RUNNING)
        if not finished.update(status=Simulation.Status.DONE, done=done, result=result):
            Simulation.objects.filter(pk=self.pk).update(result=result)  # cancelled: keep it

    def progress(self, offset: int, total: int):
        def report(done: int, _of: int) -> None:
            now = time.monotonic()
            if now - self.written < PROGRESS_SECONDS or self.stopped:
                return
            self.written = now
            running = Simulation.objects.filter(pk=self.pk, status=Simulation.Status.RUNNING)
            if not running.update(done=min(offset + done, total), updated_at=timezone.now()):
                self.stopped = True

        return report

    def cancelled(self) -> bool:
        return self.stopped


def result_data(summary: sim.Summary, award, state, plan: sim.Plan, house: dict) -> dict:
    """What a run found, as stored (JSON): the counts, and who was in the fight."""
    return {
        "fights": summary.fights,
        "seed": summary.seed,
        "wins": summary.wins,
        "draws": summary.draws,
        "capped": summary.capped,
        "stuck": summary.stuck,
        "rounds": {str(k): v for k, v in sorted(summary.rounds.items())},
        "round_cap": plan.round_cap,
        "fates": summary.fates,
        "combatants": [
            {"id": c.id, "name": c.name, "side": c.side, "npc": bool(c.npc)}
            for c in state.combatants
        ],
        "award": None if award is None else {
            "up": award.up,
            "row": award.row,
            "group_chance": award.group_chance,
            "alone_chance": award.alone_chance,
            "house": {**sim.AWARD_DEFAULTS, **house},
        },
    }


def report(result: dict) -> dict:
    """A stored result as the page and the API show it: each side's chance, each
    combatant's fates in percent, the rounds' median and 90th percentile, the award."""
    fights = result["fights"]
    summary = sim.Summary(
        fights=fights,
        seed=result["seed"],
        wins=result["wins"],
        draws=result["draws"],
        capped=result["capped"],
        rounds={int(k): v for k, v in result["rounds"].items()},
        fates=result["fates"],
        stuck=result.get("stuck", 0),
    )
    sides: dict[str, list[str]] = {}
    for c in result["combatants"]:
        sides.setdefault(c["side"], []).append(c["name"])
    characters_side = next((c["side"] for c in result["combatants"] if not c["npc"]), None)
    return {
        "fights": fights,
        "sides": [
            {
                "side": side,
                "names": names,
                "percent": sim.percent(summary.chance(side)),
                "wins": summary.wins.get(side, 0),
                "characters": side == characters_side,
                "margin": margin(summary.chance(side), fights),
            }
            for side, names in sides.items()
        ],
        "draws": summary.draws,
        "capped": summary.capped - summary.stuck,
        "stuck": summary.stuck,
        "round_cap": result["round_cap"],
        "rounds_median": summary.rounds_percentile(0.5),
        "rounds_p90": summary.rounds_percentile(0.9),
        "combatants": [
            {
                **c,
                "fates": {fate: sim.percent(summary.fate_chance(c["id"], fate))
                          for fate in sim.FATES},
            }
            for c in result["combatants"]
        ],
        "award": result.get("award"),
    }


def margin(chance: float, fights: int) -> float:
    """The 95 % margin of a simulated chance, in percentage points (the normal
    approximation: 1.96 standard errors)."""
    if not fights:
        return 0.0
    return round(196 * (chance * (1 - chance) / fights) ** 0.5, 1)

