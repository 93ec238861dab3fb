"""How dangerous is this fight? The GM's simulation of an encounter (issue 29).

The fights are played by the rules core (`rules.simulation`); this module runs them for a
page or the API without blocking either:

- **A job per run, off the request thread.** `start` stores a `Simulation` row and hands
  the run to this process's simulation thread (`SIMULATION_WORKERS`, default 1: a
  laptop serving the table keeps its other core for the pages), which has its fights
  played in a process of its own (`Player`: in the server process they took Python's
  turn from the page threads). The request answers at once; the page polls `progress`
  (any process can read the row).
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
- **Shares of the queue** (issue 42: on a hosted server every account may be an attacker
  of every other table). A process holds at most `MAX_QUEUED` runs queued or playing, of
  which one account may have `SIMULATION_RUNS_PER_USER` and one campaign
  `SIMULATION_RUNS_PER_CAMPAIGN`; past any of them `start` raises `Busy`, naming the
  limit. The user's share is the one that matters against one account with many
  campaigns of its own; the campaign's bounds one table when its GM changes (a handover)
  or the user's share is set higher. A run that is replaced or cancelled leaves its
  share at once. The cap is per process: several accounts together can still fill it.
- **By turns.** The queue is one queue per user, taken by turns (round-robin): one
  account's runs never wait in front of everybody else's. The executor's tasks only say
  "play the next run"; which one is decided when a thread is free.
- **Waiting for a run** (the API's "wait") holds a page thread, so it is bounded: at most
  `SIMULATION_WAIT_SECONDS`, and at most `waiting_slots()` requests of the process wait
  at once (a quarter of the page threads); `wait_for_answer` says when it did not wait to
  the end, and the answer is the run's status then.
"""

import contextlib
import logging
import multiprocessing
import os
import secrets
import subprocess
import sys
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from combat import services
from combat.models import Encounter, Simulation
from rules import simulation as sim

log = logging.getLogger(__name__)

DEFAULT_FIGHTS = 1000
FIGHT_CHOICES = (200, 1000, 5000)
MAX_QUEUED = 8  # runs queued or playing in one process; more are refused with a reason
RUNS_PER_USER = 2  # defaults of SIMULATION_RUNS_PER_USER and _PER_CAMPAIGN
RUNS_PER_CAMPAIGN = 2
WAIT_SECONDS = 10  # default of SIMULATION_WAIT_SECONDS
PROGRESS_SECONDS = 0.25
# The simulation process's CPU priority (`SIMULATION_NICE`, default 10): below the pages,
# never starved. Linux's SCHED_IDLE (and nice 19) starved it outright on a machine whose
# cores were busy (two CPU-bound processes beside the server): a run never got its turn.
PLAYER_NICE = 10
PLAYER_POLL_SECONDS = 0.05  # how often the simulation thread looks for a cancel
PLAYER_BEAT_SECONDS = 5  # a run without progress this long says it is alive (`stalled`)
PLAYER_CODE = (  # the simulation process: its priority, Django set up, then `player_main`
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.nice(int(sys.argv[2])) if hasattr(os, 'nice') and int(sys.argv[2]) > 0 else None; "
    "import django; django.setup(); "
    "from combat.simulations import player_main; player_main(int(sys.argv[1]))"
)
STALLED = timedelta(seconds=30)
AWARD_SYSTEMS = frozenset({"aoristos"})  # the p. 4 table is Aoristos's

_executor: ThreadPoolExecutor | None = None
_jobs: dict[int, "Job"] = {}  # run pk -> its job, queued or playing in this process
_starting: list["Job"] = []  # jobs whose rows are being written: they hold their shares
_queues: dict[int | None, deque["Job"]] = {}  # user pk -> the user's queued jobs, oldest first
_turns: deque[int | None] = deque()  # users with queued jobs, whose turn is next first
_waiting = 0  # requests of this process waiting for a run (`wait_for_answer`)
_lock = threading.Lock()


class Busy(Exception):
    """A limit of this process's queue is reached: `limit` is "process", "user" or
    "campaign", `allowed` its number."""

    def __init__(self, limit: str = "process", allowed: int = MAX_QUEUED):
        super().__init__(f"{limit}: {allowed}")
        self.limit, self.allowed = limit, allowed


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


def replaced_by(run: Simulation) -> int | None:
    """The run that replaced a cancelled `run` (a later start on its encounter), if any."""
    if run.status != Simulation.Status.CANCELLED:
        return None
    return (Simulation.objects.filter(encounter_id=run.encounter_id, pk__gt=run.pk)
            .order_by("pk").values_list("pk", flat=True).first())


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


def shares() -> tuple[int, int]:
    """(runs per user, runs per campaign) queued or playing in one process."""
    return (getattr(settings, "SIMULATION_RUNS_PER_USER", RUNS_PER_USER),
            getattr(settings, "SIMULATION_RUNS_PER_CAMPAIGN", RUNS_PER_CAMPAIGN))


def refusal(encounter_pk, campaign_pk, user_pk) -> Busy | None:
    """Why a run of this encounter, campaign and user may not be queued now, or None.
    Jobs of its own encounter do not count (starting it replaces them), unless they are
    being started too. Called under `_lock`."""
    active = [j for j in _jobs.values() if j.active and j.encounter_pk != encounter_pk]
    active += [j for j in _starting if j.active]
    per_user, per_campaign = shares()
    if len(active) >= MAX_QUEUED:
        return Busy("process", MAX_QUEUED)
    if sum(1 for j in active if j.user_pk == user_pk) >= per_user:
        return Busy("user", per_user)
    if sum(1 for j in active if j.campaign_pk == campaign_pk) >= per_campaign:
        return Busy("campaign", per_campaign)
    return None


def start(encounter: Encounter, user, *, fights: int = DEFAULT_FIGHTS, flees=()) -> Simulation:
    """Store a run of `fights` fights from the encounter's state and queue it; a run of
    the encounter still going is cancelled (replaced). Busy, and nothing changed, when a
    limit of the queue is reached (`refusal`), asked before the fight is read too, so a
    refusal costs no folding. `flees`: ids of combatants that flee when wounded (unknown
    ids are dropped)."""
    owner = (encounter.pk, encounter.campaign_id, getattr(user, "pk", None))
    with _lock:
        refused = refusal(*owner)
    if refused is not None:
        raise refused
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
    job = Job(None, (encounter.system, encounter.kind), state,
              setup if award_total else None, same, house,
              encounter_pk=owner[0], campaign_pk=owner[1], user_pk=owner[2])
    with _lock:
        refused = refusal(*owner)
        if refused is not None:
            raise refused
        _starting.append(job)  # its share is held while its row is written
    try:
        # The earlier run's row is cancelled in the same transaction that stores this
        # one: whoever sees it cancelled also finds the run that replaced it.
        with transaction.atomic():
            Simulation.objects.filter(encounter=encounter, status=Simulation.Status.RUNNING
                                      ).update(status=Simulation.Status.CANCELLED,
                                               updated_at=timezone.now())
            run = Simulation.objects.create(
                encounter=encounter,
                version=encounter.version,
                fights=fights,
                seed=secrets.randbits(62),
                flees=flees,
                total=fights + award_total,
                created_by=user,
            )
        with _lock:
            job.pk = run.pk
            # Two starts of one encounter at once: the later row (its transaction
            # cancelled the earlier's) is the one that plays.
            others = [j for j in (*_jobs.values(), *_starting)
                      if j.encounter_pk == encounter.pk and j is not job and j.pk is not None]
            ended = [j for j in others if j.pk < run.pk and stop(j)]
            if any(j.pk > run.pk for j in others):
                job.stopped = True
            if not job.stopped:
                _jobs[run.pk] = job
                queue(job)
    finally:
        with _lock:
            _starting.remove(job)
    for done in ended:
        done.ended.set()
    if job.stopped:
        job.ended.set()
    else:
        executor().submit(play_next)
    return run


def queue(job: "Job") -> None:
    """Put `job` at the end of its user's queue (under `_lock`)."""
    if job.user_pk not in _queues:
        _queues[job.user_pk] = deque()
        _turns.append(job.user_pk)
    _queues[job.user_pk].append(job)


def stop(job: "Job") -> bool:
    """Stop `job` (under `_lock`): a queued one leaves the queue and will not be played,
    a playing one stops at its next check. True when it was queued: it has ended then,
    and the caller sets its `ended` once the row says why."""
    job.stopped = True
    waiting = _queues.get(job.user_pk)
    if waiting is None or job not in waiting:
        return False
    waiting.remove(job)
    if not waiting:
        del _queues[job.user_pk]
        _turns.remove(job.user_pk)
    _jobs.pop(job.pk, None)
    return True


def next_job() -> "Job | None":
    """The first queued job of the user whose turn it is (under `_lock`); that user's
    turn moves to the end of the line."""
    if not _turns:
        return None
    user = _turns.popleft()
    waiting = _queues[user]
    job = waiting.popleft()
    if waiting:
        _turns.append(user)
    else:
        del _queues[user]
    return job


def play_next() -> None:
    """An executor task: play the next queued run, if any is left (a run that was
    stopped while it waited has left the queue, and its task finds nothing or another)."""
    with _lock:
        job = next_job()
    if job is None:
        return
    try:
        job()
    finally:
        with _lock:
            _jobs.pop(job.pk, None)
        job.ended.set()


def wait(run: Simulation, timeout: float = 60) -> bool:
    """Wait at most `timeout` seconds for a run this process started to end (tests, and
    the API's "wait" through `wait_for_answer`); True when it has ended (or is not this
    process's), False when it still goes on. Never raises: the row says what became of
    the run."""
    with _lock:
        job = _jobs.get(run.pk)
    return job is None or job.ended.wait(timeout)


def waiting_slots() -> int:
    """How many requests of this process may wait for a run at once: SIMULATION_WAITERS,
    by default a quarter of the page threads (PAGE_THREADS, read as aoristos_site/asgi.py
    reads it), at least 1. The others are answered at once."""
    configured = getattr(settings, "SIMULATION_WAITERS", 0)
    if configured:
        return configured
    threads = os.environ.get("PAGE_THREADS", "").strip()
    threads = int(threads) if threads.isdigit() else max(4, 2 * (os.cpu_count() or 1))
    return max(1, threads // 4)


def wait_for_answer(run: Simulation) -> str:
    """The API's "wait": "ended" when the run ended within SIMULATION_WAIT_SECONDS,
    "running" when it did not, "busy" when `waiting_slots()` requests wait already (it
    did not wait at all).

    Bounded because the request holds a page thread meanwhile: pages are sync Django
    views run by the WSGI handler in the router's pool of PAGE_THREADS threads
    (`aoristos_site.pages`), so an async view would not give its thread back while it
    waits, and a wait of minutes, more than PAGE_THREADS times over, had stopped every
    other page of the site. At most a quarter of the threads wait, at most the bound."""
    global _waiting
    with _lock:
        if _waiting >= waiting_slots():
            return "busy"
        _waiting += 1
    try:
        seconds = getattr(settings, "SIMULATION_WAIT_SECONDS", WAIT_SECONDS)
        return "ended" if wait(run, timeout=seconds) else "running"
    finally:
        with _lock:
            _waiting -= 1


def drain(timeout: float = 10) -> None:
    """Stop every run of this process: those waiting never start, those playing stop at
    their next check (a test's end, before its database goes)."""
    with _lock:
        jobs = list(_jobs.values())
        ended = [job for job in jobs if stop(job)]
        _jobs.clear()
    for job in ended:
        job.ended.set()
    for job in jobs:
        job.ended.wait(timeout)
    # The thread's calls still waiting (each takes the next queued run, whichever it is)
    # run now and find nothing: left waiting, one took the next test's run on a busy
    # machine, and played it ahead of what that test had queued.
    if _executor is not None:
        with contextlib.suppress(Exception):
            _executor.submit(lambda: None).result(timeout)


def cancel(run: Simulation) -> bool:
    """Cancel a running run; False when it had already ended. Its job in this process
    leaves the queue (or stops at its next check), so its share is free at once."""
    cancelled = bool(
        Simulation.objects.filter(pk=run.pk, status=Simulation.Status.RUNNING).update(
            status=Simulation.Status.CANCELLED, updated_at=timezone.now()
        )
    )
    with _lock:
        job = _jobs.get(run.pk)
        ended = job is not None and stop(job)
    if ended:
        job.ended.set()
    return cancelled


class PlayerGone(Exception):
    """The simulation process stopped in the middle of a run."""


class Player:
    """A process of its own that plays the fights for one simulation thread.

    Python runs one thread of a process at a time. A simulation thread in the server
    process took that turn from the page threads at every hand-over: each time a page
    thread gave it up (every database call does) it waited Python's switch interval to
    have it back. With a run playing, a roll's median answer went from about 5 ms to
    13-18 ms and its p99 from 12-16 ms to 39-50 ms, on a loaded 2-core machine
    (tests/combat/test_simulation_stall.py); played here, the median stays at 4-5 ms
    and the p99 within 2 x the idle one (17-70 ms beside 10-69 ms idle).

    The process holds no lock the pages need, and runs at a lower CPU priority
    (`SIMULATION_NICE`, default nice 10): on a laptop at full speed on its spare core, on
    a busy machine mostly after the pages (a nice-10 process gets about a tenth of a core
    beside a busy one). SCHED_IDLE was tried first: it kept the rolls' p99 lowest, but on
    a machine whose cores were both busy the run never played at all. A slow run, and the runs
    queued behind it, still say every `PLAYER_BEAT_SECONDS` that they are alive, so they
    are not taken for interrupted (`stalled`). It reads no database and needs only the
    rules (`rules.simulation`): the simulation thread sends it a state and the call's
    arguments, relays its progress to the row and sends it the cancel.

    Started when its thread plays its first run (Django is set up in it once, about a
    second), it plays one call at a time and ends when the server process ends (its end
    of the pipe closes); one that stopped is started again for the next run."""

    def __init__(self):
        ours, theirs = multiprocessing.Pipe()
        self.connection = ours
        self.process = subprocess.Popen(
            [sys.executable, "-c", PLAYER_CODE, str(theirs.fileno()),
             str(getattr(settings, "SIMULATION_NICE", PLAYER_NICE))],
            pass_fds=(theirs.fileno(),),
            cwd=settings.BASE_DIR,
            stdin=subprocess.DEVNULL,
            env={"DJANGO_SETTINGS_MODULE": "aoristos_site.settings", **os.environ},
        )
        theirs.close()
        self.calls = 0

    def alive(self) -> bool:
        return self.process.poll() is None and not self.connection.closed

    def play(self, name: str, engine_key, state, *, progress, cancelled, **arguments):
        """`rules.simulation`'s `name` ("simulate" or "award_for") of the engine
        `engine_key` (system, kind), played in the process: `progress(done, total)` is
        called as it plays, and once `cancelled()` the process is asked to stop (it
        answers the fights played so far, as the rules core does)."""
        self.calls += 1
        call = self.calls
        try:
            self.connection.send((call, name, engine_key, state, arguments))
            asked = False
            last, heard = (0, 0), time.monotonic()
            beaten = heard
            while True:
                if not asked and cancelled():
                    self.connection.send(("cancel", call))
                    asked = True
                if time.monotonic() - beaten > PLAYER_BEAT_SECONDS:
                    beaten = time.monotonic()
                    keep_queued()
                    if beaten - heard > PLAYER_BEAT_SECONDS:
                        progress(*last)  # no new fights, but alive
                if not self.connection.poll(PLAYER_POLL_SECONDS):
                    continue
                answer, of_call, *rest = self.connection.recv()
                if of_call != call:
                    continue
                heard = time.monotonic()
                if answer == "progress":
                    last = tuple(rest)
                    progress(*last)
                elif answer == "result":
                    return rest[0]
                else:
                    raise RuntimeError(rest[0])
        except (EOFError, OSError) as gone:
            self.connection.close()
            raise PlayerGone(f"the simulation process stopped ({gone!r})") from None
        except BaseException:  # the row could not be written: the process stops the call
            with contextlib.suppress(OSError):
                self.connection.send(("cancel", call))
            raise


def keep_queued() -> None:
    """Mark the rows of this process's queued runs as waiting, not stalled (`stalled`):
    a queue behind a slow run is no stopped process."""
    with _lock:
        pks = [job.pk for waiting in _queues.values() for job in waiting]
    if pks:
        Simulation.objects.filter(pk__in=pks, status=Simulation.Status.RUNNING).update(
            updated_at=timezone.now())


_local = threading.local()  # the Player of each simulation thread


def player() -> Player:
    """This simulation thread's process, started when first needed (again when it
    stopped)."""
    found = getattr(_local, "player", None)
    if found is None or not found.alive():
        found = _local.player = Player()
    return found


PLAYED = frozenset({"simulate", "award_for"})


def player_main(fd: int) -> None:
    """The simulation process (`Player`): plays the calls it is sent, one at a time,
    sending the progress and the result (or the error) back. It ends when the server
    process's end of the pipe closes."""
    from multiprocessing.connection import Connection

    from rules.engine import engine_for

    connection = Connection(fd)
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message[0] == "cancel":
            continue  # a cancel sent as the call it meant ended: nothing to stop
        call, name, engine_key, state, arguments = message
        asked = False

        def cancelled() -> bool:
            nonlocal asked
            while not asked and connection.poll():  # EOFError: the server is gone
                asked = connection.recv() == ("cancel", call)  # noqa: B023 (this call's)
            return asked

        def progress(done: int, total: int) -> None:
            connection.send(("progress", call, done, total))  # noqa: B023

        try:
            if name not in PLAYED:
                raise ValueError(f"not a simulation: {name!r}")
            result = getattr(sim, name)(engine_for(*engine_key), state, **arguments,
                                        progress=progress, cancelled=cancelled)
        except (EOFError, BrokenPipeError):
            return
        except Exception as error:  # the rules' bug fails this run, not the process
            connection.send(("error", call, f"{type(error).__name__}: {error}"[:200]))
        else:
            connection.send(("result", call, result))


class Job:
    """One run, as the simulation thread plays it (its fights in the `Player`)."""

    def __init__(self, pk, engine_key, state, setup, same, house, *, encounter_pk=None,
                 campaign_pk=None, user_pk=None):
        self.pk, self.engine_key, self.state, self.setup = pk, engine_key, state, setup
        self.same, self.house = same, house
        self.encounter_pk, self.campaign_pk, self.user_pk = encounter_pk, campaign_pk, user_pk
        self.stopped = False  # replaced, cancelled or drained: it plays no more fights
        self.ended = threading.Event()  # set once it will write its row no more
        self.written = 0.0

    @property
    def active(self) -> bool:
        """Queued or playing, and not stopped: it holds a share of the queue."""
        return not self.stopped and not self.ended.is_set()

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
        summary = player().play(
            "simulate", self.engine_key, self.state, fights=run.fights, seed=run.seed,
            plan=plan, progress=self.progress(0, run.total), cancelled=self.cancelled,
        )
        award = None
        if self.setup is not None and not self.stopped:
            award = player().play(
                "award_for", self.engine_key, self.setup, fights=run.fights, seed=run.seed,
                plan=plan,
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

