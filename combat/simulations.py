"""How dangerous is this fight? The GM's simulation of an encounter (issue 29).

The fights are played by the rules core (`rules.simulation`); this module runs them for a
page or the API without blocking either:

- **A job per run, off the request thread.** `start` stores a `Simulation` row and hands
  the run to this process's simulation thread, which has its fights played in worker
  processes (`Player`, `SIMULATION_PROCESSES` of them: by default one fewer than the
  cores, so a laptop serving the table keeps a core for the pages). The request answers
  at once; the page polls the section (any process can read the row).
- **Until the answer is known** (issue 46; `rules.simulation.Run`): a step of batches at
  a time, each batch seeded by (seed, part, index) and handed to whichever worker is
  free, the step counted in batch order once it is whole. So the same seed gives the
  same report with one worker or many. The run stops when every shown chance is known
  to the precision asked (± 5, 3 or 1 points at 95 %) and the award's row is decided at
  99 % or found too close to decide, or at the cap, and the report says which. As the
  fight's batches come in, the row's `estimate` holds the counts so far (the first at
  once), so the page shows an answer from the first fights and refines it.
- **A worker that dies** in a run (killed, out of memory) leaves it "interrupted", its
  estimate and result dropped: no half answer. The next run starts new workers.
- **Progress and cancel through the row.** The job writes how many fights it has played,
  with the estimate, at most every `PROGRESS_SECONDS`, in one UPDATE that only a running
  job's row takes: when the GM has cancelled (the row's status), the UPDATE changes
  nothing and the job stops at its next batch, keeping the fight's fights counted so far.
- **From the state the GM sees.** The run starts from the encounter's state at its
  version (the process's folded state, not read again); the result names that version,
  and a page marks it stale once the fight has moved on.
- **The p. 4 award** (Aoristos) is simulated from the fight as it was set up: the state
  itself before the start, else the fold of the log up to the start. Its thresholds are
  the campaign's house rules (`rules.aoristos.system.AWARD_HOUSE_RULES`).
- **A server process that dies** leaves its running row behind: a row whose progress has
  not moved in `STALLED` is shown as interrupted, and a new run may be started. The run
  is played by the worker processes of the server process that started it; every other
  process shows it from the row.
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
import itertools
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
from multiprocessing import connection as mp_connection

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from combat import services
from combat.models import Encounter, Simulation
from rules import simulation as sim

log = logging.getLogger(__name__)

PRECISIONS = sim.PRECISIONS  # the margins a GM may ask for (percentage points at 95 %)
MAX_SEED = 2**62  # seeds are 0 up to this (a BigIntegerField holds them)
MAX_QUEUED = 8  # runs queued or playing in one process; more are refused with a reason
RUNS_PER_USER = 2  # defaults of SIMULATION_RUNS_PER_USER and _PER_CAMPAIGN
RUNS_PER_CAMPAIGN = 2
WAIT_SECONDS = 10  # default of SIMULATION_WAIT_SECONDS
PROGRESS_SECONDS = 0.25
# The simulation process's CPU priority (`SIMULATION_NICE`, default 10): below the pages,
# never starved. Linux's SCHED_IDLE (and nice 19) starved it outright on a machine whose
# cores were busy (two CPU-bound processes beside the server): a run never got its turn.
PLAYER_NICE = 10
PLAYER_POLL_SECONDS = 0.5  # the simulation thread's longest sleep (a stop wakes it)
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
# A stop wakes the simulation thread from its wait for the workers: it sleeps otherwise
# until they answer (each wake-up takes Python's turn from the page threads).
_wake = os.pipe()
os.set_blocking(_wake[0], False)


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
                max_workers=1,  # one run at a time, its batches on every worker process
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


def start(encounter: Encounter, user, *, precision: float = sim.DEFAULT_PRECISION, flees=(),
          seed: int | None = None) -> Simulation:
    """Store a run from the encounter's state, to be played until its chances are known
    to ± `precision` points (`rules.simulation.Run`), and queue it; a run of the
    encounter still going is cancelled (replaced). Busy, and nothing changed, when a
    limit of the queue is reached (`refusal`), asked before the fight is read too, so a
    refusal costs no folding. `flees`: ids of combatants that flee when wounded (unknown
    ids are dropped). `seed`: the run's dice (the same seed, the same report); a random
    one by default."""
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
        if setup is not None and sim.characters_side(setup) is None:
            setup = None  # nothing to award: no characters, or nobody against them
    house = {k: v for k, v in encounter.campaign.house().items() if k in sim.AWARD_DEFAULTS}
    same = setup is state
    planned = sim.Run(state, seed=0, precision=sim.Precision(precision), setup=setup)
    job = Job(None, (encounter.system, encounter.kind), state, setup, same, house,
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
                fights=planned.cap(),
                precision=precision,
                seed=secrets.randbits(62) if seed is None else seed,
                flees=flees,
                total=planned.most(),
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
        with contextlib.suppress(OSError):  # a playing one: its thread wakes to see it
            os.write(_wake[1], b"x")
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
    """A simulation process stopped in the middle of a run."""


class Player:
    """A worker process that plays batches of fights (`rules.simulation_player`).

    Why a process: Python runs one thread of a process at a time. A simulation thread in
    the server process took that turn from the page threads at every hand-over: with a
    run playing, a roll's median answer went from about 5 ms to 13-18 ms and its p99 from
    12-16 ms to 39-50 ms on a loaded 2-core machine (tests/combat/test_simulation_stall.py);
    played in a process of its own, the median stays at 4-5 ms.

    The process runs at a lower CPU priority (`SIMULATION_NICE`, default nice 10): on a
    laptop at full speed on its spare core, on a busy machine mostly after the pages.
    SCHED_IDLE (and nice 19) starved it outright on a machine whose cores were busy. It
    reads no database and imports no Django (it starts in a fraction of a second): the
    simulation thread sends it a run's states once and then its batches, and counts what
    comes back (`Job`). It ends when the server process ends (its end of the pipe closes).
    """

    def __init__(self):
        ours, theirs = multiprocessing.Pipe()
        self.connection = ours
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rules.simulation_player", str(theirs.fileno()),
             str(getattr(settings, "SIMULATION_NICE", PLAYER_NICE))],
            pass_fds=(theirs.fileno(),),
            cwd=settings.BASE_DIR,
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        self.known: set[str] = set()  # the state tokens it has been sent
        self.calls: set[int] = set()  # the batches it has been sent and not answered

    def alive(self) -> bool:
        return self.process.poll() is None and not self.connection.closed

    def send(self, engine_key, batches: list[tuple], states: dict) -> None:
        """Have it play `batches` [(call, token, plan, seed, part, index, size), ...] in
        order, each state (`states`: token -> state) sent first if it has not had it."""
        try:
            for token in dict.fromkeys(b[1] for b in batches):
                if token not in self.known:
                    self.connection.send(("state", token, engine_key, states[token]))
                    self.known.add(token)
            self.connection.send(("batches", batches))
        except (BrokenPipeError, OSError) as gone:
            self.connection.close()
            raise PlayerGone(f"the simulation process stopped ({gone!r})") from None
        self.calls.update(b[0] for b in batches)

    def receive(self) -> list[tuple]:
        """[(call, summary), ...] of the batches it has played since it last answered, a
        RuntimeError with the rules' error for a batch that failed; PlayerGone when the
        process stopped."""
        try:
            _answers, answers = self.connection.recv()
        except (EOFError, OSError) as gone:
            self.connection.close()
            raise PlayerGone(f"the simulation process stopped ({gone!r})") from None
        self.calls.difference_update(call for _kind, call, _value in answers)
        return [(call, RuntimeError(value) if kind == "error" else value)
                for kind, call, value in answers]


def processes() -> int:
    """How many worker processes play a run (`SIMULATION_PROCESSES`; 0, the default: one
    fewer than the machine's cores, at least 1, so a core is left for the pages)."""
    configured = getattr(settings, "SIMULATION_PROCESSES", 0)
    return configured if configured > 0 else max(1, (os.cpu_count() or 1) - 1)


def keep_queued() -> None:
    """Mark the rows of this process's queued runs as waiting, not stalled (`stalled`):
    a queue behind a slow run is no stopped process."""
    with _lock:
        pks = [job.pk for waiting in _queues.values() for job in waiting]
    if pks:
        Simulation.objects.filter(pk__in=pks, status=Simulation.Status.RUNNING).update(
            updated_at=timezone.now())


_tokens = itertools.count(1)
_calls = itertools.count(1)
_players: list[Player] = []  # the simulation thread's worker processes


def players() -> list[Player]:
    """The simulation thread's worker processes, `processes()` of them, those that stopped
    started again (called between runs only: a process lost in a run interrupts it)."""
    alive = [p for p in _players if p.alive()]
    for extra in alive[processes():]:  # the setting went down: its pipe closed, it ends
        extra.connection.close()
    _players[:] = alive[: processes()]
    while len(_players) < processes():
        _players.append(Player())
    return list(_players)


_warm = threading.Event()


def warm() -> None:
    """Start the worker processes ahead of a first run (a GM's page with the simulation's
    form calls it): a run then plays at once, not after the processes start."""
    if not _warm.is_set():
        _warm.set()
        executor().submit(players)


class Job:
    """One run, as the simulation thread plays it: its fights in the worker processes,
    a step at a time (`rules.simulation.Run`), its estimate written as batches come in."""

    def __init__(self, pk, engine_key, state, setup, same, house, *, encounter_pk=None,
                 campaign_pk=None, user_pk=None):
        self.pk, self.engine_key, self.state, self.setup = pk, engine_key, state, setup
        self.same, self.house = same, house
        self.encounter_pk, self.campaign_pk, self.user_pk = encounter_pk, campaign_pk, user_pk
        self.stopped = False  # replaced, cancelled or drained: it plays no more fights
        self.ended = threading.Event()  # set once it will write its row no more
        self.written = 0.0
        self.beaten = time.monotonic()  # when the queued rows were last marked alive
        self.pending: dict = {}  # the batches of the step that plays, come back so far
        self.token = next(_tokens)  # names its states in the workers (pks may repeat)

    @property
    def active(self) -> bool:
        """Queued or playing, and not stopped: it holds a share of the queue."""
        return not self.stopped and not self.ended.is_set()

    def __call__(self) -> None:
        close_old_connections()
        try:
            self.play()
        except PlayerGone as gone:  # no half result: the estimate goes too
            log.warning("simulation %s interrupted: %s", self.pk, gone)
            Simulation.objects.filter(pk=self.pk).update(
                status=Simulation.Status.INTERRUPTED, error=str(gone)[:200], estimate=None,
                result=None, updated_at=timezone.now())
        except Exception as error:  # a bug must not leave the row running for ever
            log.exception("simulation %s failed", self.pk)
            Simulation.objects.filter(pk=self.pk).update(
                status=Simulation.Status.FAILED, error=str(error)[:200], estimate=None
            )
        finally:
            connection.close()

    def run_of(self, row: Simulation) -> sim.Run:
        return sim.Run(self.state, seed=row.seed, plan=sim.Plan(flees=frozenset(row.flees)),
                       precision=sim.Precision(row.precision),
                       setup=self.setup,
                       house=self.house)

    def play(self) -> None:
        row = Simulation.objects.get(pk=self.pk)
        if row.status != Simulation.Status.RUNNING:
            return  # cancelled while it waited
        run = self.run_of(row)
        pool = players()
        self.pending = {}
        while not run.finished and not self.stopped:
            results = self.step(run, pool)
            if results is None:
                break  # stopped in the middle of the step
            run.add(results)
        result = result_data(run)
        if self.stopped:  # cancelled: the fight's fights counted so far, this step's too
            result = {**result, **summary_data(counted_fight(run, self.pending)),
                      "award": None, "stopped": "cancelled"}
        finished = Simulation.objects.filter(pk=self.pk, status=Simulation.Status.RUNNING)
        if not finished.update(status=Simulation.Status.DONE, done=run.played(),
                               result=result, estimate=None, updated_at=timezone.now()):
            # cancelled: keep what was counted
            Simulation.objects.filter(pk=self.pk).update(
                result=result if result["fights"] else None, estimate=None)

    def step(self, run: sim.Run, pool: list[Player]) -> dict | None:
        """Play the batches of `run`'s next step on the worker processes, a share of them
        to each (dealt in turn, so each has some of every part); None when the run was
        stopped meanwhile. A worker still playing a stopped run's share gets none: its
        answers are dropped as they come."""
        wanted = run.wanted()
        results: dict[tuple[str, int], sim.Summary] = {}
        self.pending = results
        calls: dict[int, tuple[str, int]] = {}
        idle = [p for p in pool if not p.calls] or pool
        shares: list[list[tuple]] = [[] for _ in idle]
        for n, (key, index) in enumerate(wanted):
            call = next(_calls)  # unique in the process: a stopped run's answers still come
            calls[call] = (key, index)
            shares[n % len(idle)].append((call, f"{self.token}:{key}", run.plan, run.seed,
                                          key, index, sim.BATCH))
        states = {f"{self.token}:{key}": part.state for key, part in run.parts.items()}
        for player, share in zip(idle, shares, strict=True):
            if share:
                player.send(self.engine_key, share, states)
        while len(results) < len(calls):
            if self.stopped:
                return None
            busy = [p for p in pool if p.calls]
            ready = mp_connection.wait([_wake[0], *(p.connection for p in busy)],
                                       PLAYER_POLL_SECONDS)
            if _wake[0] in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(_wake[0], 4096)
            for player in [p for p in busy if p.connection in ready]:
                for call, summary in player.receive():
                    if call not in calls:
                        continue  # a batch of a run stopped before: dropped
                    if isinstance(summary, Exception):
                        raise summary
                    results[calls[call]] = summary
                self.progress(run, results)
            if time.monotonic() - self.beaten > PLAYER_BEAT_SECONDS:  # alive, however slow
                self.beaten = time.monotonic()
                keep_queued()
                self.progress(run, results, beat=True)
        return results

    def progress(self, run: sim.Run, results: dict, *, beat: bool = False) -> None:
        """Write how far the run is, with the estimate from the fights counted so far
        (the steps done and this step's fight batches in order): the first at once, then
        at most every PROGRESS_SECONDS (or a beat). A row no longer running stops it."""
        now = time.monotonic()
        first = self.written == 0.0
        if not (first or beat or now - self.written >= PROGRESS_SECONDS) or self.stopped:
            return
        counted = counted_fight(run, results)
        if first and counted.fights == run.parts["fight"].fights:
            return  # the first estimate waits for the fight's first batch
        self.written = now
        played = run.played() + sum(s.fights for s in results.values())
        estimate = estimate_data(run, counted)
        running = Simulation.objects.filter(pk=self.pk, status=Simulation.Status.RUNNING)
        if not running.update(done=min(played, run.most()), estimate=estimate,
                              updated_at=timezone.now()):
            self.stopped = True

    def cancelled(self) -> bool:
        return self.stopped


def counted_fight(run: sim.Run, results: dict) -> sim.Summary:
    """The fight's fights counted so far: its steps done, and of the step that plays its
    batches come back in order."""
    fight = run.parts["fight"]
    more, index = [], len(fight.batches)
    while ("fight", index) in results:
        more.append(results[("fight", index)])
        index += 1
    return sim.merge([*fight.batches, *more], run.seed) if more else fight.summary


def combatants_data(state) -> list[dict]:
    return [{"id": c.id, "name": c.name, "side": c.side, "npc": bool(c.npc)}
            for c in state.combatants]


def summary_data(summary: sim.Summary) -> dict:
    return {
        "fights": summary.fights,
        "seed": summary.seed,
        "wins": summary.wins,
        "draws": summary.draws,
        "capped": summary.capped,
        "stuck": summary.stuck,
        "rounds": {str(k): v for k, v in sorted(summary.rounds.items())},
        "fates": summary.fates,
    }


def estimate_data(run: sim.Run, summary: sim.Summary) -> dict:
    """The running estimate as stored: the fight's fights counted so far."""
    return {**summary_data(summary), "round_cap": run.plan.round_cap,
            "precision": run.precision.margin,
            "combatants": combatants_data(run.parts["fight"].state), "award": None}


def result_data(run: sim.Run) -> dict:
    """What a run found, as stored (JSON): the fight's counts, who was in it, how precise
    it is and why it stopped, and the award with its intervals."""
    fight = run.parts["fight"]
    estimate = run.award()
    house = {**sim.AWARD_DEFAULTS, **run.house}
    return {
        **summary_data(fight.summary),
        "round_cap": run.plan.round_cap,
        "precision": run.precision.margin,
        "stopped": fight.stopped or "cancelled",
        "widest": round(sim.widest(fight.summary, fight.sides, fight.ids), 2),
        "parts": {p.key: {"fights": p.fights, "stopped": p.stopped or "cancelled"}
                  for p in run.parts.values()},
        "combatants": combatants_data(fight.state),
        "award": None if estimate is None or run.parts[run.group_key].open else {
            "up": estimate.award.up,
            "row": estimate.award.row,
            "group_chance": estimate.award.group_chance,
            "alone_chance": estimate.award.alone_chance,
            "decided": estimate.decided,
            "confidence": estimate.confidence,
            "group_interval": list(estimate.group_interval),
            "alone_interval": list(estimate.alone_interval),
            "alone_fights": min(run.parts[f"alone:{cid}"].fights for cid in run.characters),
            "house": house,
        },
    }


def report(result: dict) -> dict:
    """A stored result (or estimate) as the page and the API show it: each side's chance
    with its 95 % margin, each combatant's fates in percent, the widest margin of them,
    the rounds' median and 90th percentile, why the run stopped, the award."""
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
    ids = [c["id"] for c in result["combatants"]]
    return {
        "fights": fights,
        "precision": result.get("precision"),
        "stopped": result.get("stopped"),
        "widest": round(sim.widest(summary, list(sides), ids), 1),
        "sides": [
            {
                "side": side,
                "names": names,
                "percent": sim.percent(summary.chance(side)),
                "wins": summary.wins.get(side, 0),
                "characters": side == characters_side,
                "margin": round(sim.margin_of(summary.wins.get(side, 0), fights), 1),
            }
            for side, names in sides.items()
        ],
        "draws": summary.draws,
        "capped": summary.capped - summary.stuck,
        "capped_percent": sim.percent((summary.capped - summary.stuck) / fights) if fights else 0,
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
