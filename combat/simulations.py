"""How dangerous is this fight? The GM's simulation of an encounter (issue 29).

The fights are played by the rules core (`rules.simulation`); this module runs them for a
page or the API without blocking either:

- **A queued row per run, off the request thread.** `start` stores a `Simulation` row,
  the queue itself: any server process of the site that is free claims it (`claim`; the
  one that started it is told at once, the others look every SIMULATION_CLAIM_SECONDS
  while idle, `listen`), folds the fight at the run's version and has its fights played
  in its worker processes (`Player`, `SIMULATION_PROCESSES` of them: by default one
  fewer than the cores, so a laptop serving the table keeps a core for the pages). The
  request answers at once; the page polls the section (any process reads the row), and
  the result is stored once, in that row, by the process that played it.
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
  version when it was asked (folded by the process that plays it, from its cache when
  the fight is still there); the result names that version,
  and a page marks it stale once the fight has moved on.
- **The p. 4 award** (Aoristos) is simulated from the fight as it was set up: the state
  itself before the start, else the fold of the log up to the start. Its thresholds are
  the campaign's house rules (`rules.aoristos.system.AWARD_HOUSE_RULES`).
- **A server process that dies** leaves its running row behind: a row whose progress has
  not moved in `STALLED` is shown as interrupted, and a new run may be started. A run it
  had queued and nobody claimed yet is played by another process.
- **Shares of the queue** (issue 42: on a hosted server every account may be an attacker
  of every other table). The site holds at most `SIMULATION_QUEUE` runs queued or
  playing, of which one account may have `SIMULATION_RUNS_PER_USER` and one campaign
  `SIMULATION_RUNS_PER_CAMPAIGN`; past any of them `start` raises `Busy`, naming the
  limit. They are counted in the database under a lock (`lock_queue`), so two processes
  starting at once cannot both take the last place. The user's share is the one that
  matters against one account with many campaigns of its own; the campaign's bounds one
  table when its GM changes (a handover) or the user's share is set higher. A run that
  is replaced or cancelled leaves its share at once.
- **By turns.** The queue is taken by turns of its users (round-robin) across every
  process: the user whose last run was claimed longest ago goes first. One account's
  runs never wait in front of everybody else's.
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
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from multiprocessing import connection as mp_connection

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from combat import services
from combat.models import Encounter, Simulation
from rules import simulation as sim

log = logging.getLogger(__name__)

PRECISIONS = sim.PRECISIONS  # the margins a GM may ask for (percentage points at 95 %)
MAX_SEED = 2**62  # seeds are 0 up to this (a BigIntegerField holds them)
MAX_QUEUED = 8  # default of SIMULATION_QUEUE: runs queued or playing on the whole site
CLAIM_SECONDS = 1.0  # default of SIMULATION_CLAIM_SECONDS (`listen`)
CLAIM_LOOK = 100  # the oldest queued rows among which the next user's turn is found
WAIT_POLL_SECONDS = 0.1  # how often a wait for a run played elsewhere reads its row
QUEUE_LOCK = 46_046  # PostgreSQL's advisory lock of a start (`lock_queue`)
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
_jobs: dict[int, "Job"] = {}  # run pk -> its job, playing in this process
_tasks = 0  # "play the queued runs" tasks given to this process's thread and not done
_draining = threading.Event()  # set while `drain` stops this process's runs: none is claimed
_waiting = 0  # requests of this process waiting for a run (`wait_for_answer`)
_lock = threading.Lock()
# A stop wakes the simulation thread from its wait for the workers: it sleeps otherwise
# until they answer (each wake-up takes Python's turn from the page threads).
_wake = os.pipe()
os.set_blocking(_wake[0], False)


class Busy(Exception):
    """A limit of the queue is reached: `limit` is "process" (the whole queue's),
    "user" or "campaign", `allowed` its number."""

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


def process_name() -> str:
    """How a run's row names the server process that plays it (`claimed_by`)."""
    return f"{socket.gethostname()}:{os.getpid()}"[:80]


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


def award_setup(encounter: Encounter, engine, folded):
    """The set-up state whose award is simulated with the fight, or None: not an award
    system, no set-up state, or nothing to award (no characters, nobody against them)."""
    if encounter.system not in AWARD_SYSTEMS:
        return None
    setup = setup_state(encounter, engine, folded)
    if setup is not None and sim.characters_side(setup) is None:
        return None
    return setup


def shares() -> tuple[int, int]:
    """(runs per user, runs per campaign) queued or playing at once."""
    return (getattr(settings, "SIMULATION_RUNS_PER_USER", RUNS_PER_USER),
            getattr(settings, "SIMULATION_RUNS_PER_CAMPAIGN", RUNS_PER_CAMPAIGN))


def refusal(encounter_pk, campaign_pk, user_pk) -> Busy | None:
    """Why a run of this encounter, campaign and user may not be queued now, or None.
    Counted in the database, so every process of the site holds the same limits: the
    rows queued or playing (a row whose process stopped, `stalled`, holds none). Runs of
    its own encounter do not count: starting it replaces them."""
    active = Simulation.objects.filter(
        status=Simulation.Status.RUNNING, updated_at__gt=timezone.now() - STALLED
    ).exclude(encounter_id=encounter_pk)
    counts = active.aggregate(
        every=Count("pk"),
        user=Count("pk", filter=Q(created_by_id=user_pk)),
        campaign=Count("pk", filter=Q(encounter__campaign_id=campaign_pk)),
    )
    per_user, per_campaign = shares()
    queue = getattr(settings, "SIMULATION_QUEUE", MAX_QUEUED)
    if counts["every"] >= queue:
        return Busy("process", queue)
    if counts["user"] >= per_user:
        return Busy("user", per_user)
    if counts["campaign"] >= per_campaign:
        return Busy("campaign", per_campaign)
    return None


def lock_queue() -> None:
    """Take the queue for this transaction, so the shares are counted by one start at a
    time: PostgreSQL's advisory lock (SQLite's IMMEDIATE transactions already hold the
    write lock from their BEGIN)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [QUEUE_LOCK])


def start(encounter: Encounter, user, *, precision: float = sim.DEFAULT_PRECISION, flees=(),
          seed: int | None = None) -> Simulation:
    """Store a run from the encounter's state, to be played until its chances are known
    to ± `precision` points (`rules.simulation.Run`), queued for whichever process is
    free (this one is told at once); a run of the encounter still going is cancelled
    (replaced). Busy, and nothing changed, when a limit of the queue is reached
    (`refusal`), asked before the fight is read too, so a refusal costs no folding.
    `flees`: ids of combatants that flee when wounded (unknown ids are dropped). `seed`:
    the run's dice (the same seed, the same report); a random one by default."""
    owner = (encounter.pk, encounter.campaign_id, getattr(user, "pk", None))
    refused = refusal(*owner)
    if refused is not None:
        raise refused
    engine = services.engine_of(encounter)
    folded = services.folded(encounter, engine)
    state = folded.state
    ids = {c.id for c in state.combatants}
    flees = sorted({cid for cid in flees if cid in ids})
    setup = award_setup(encounter, engine, folded)
    planned = sim.Run(state, seed=0, precision=sim.Precision(precision), setup=setup)
    # The earlier run's row is cancelled in the same transaction that stores this one:
    # whoever sees it cancelled also finds the run that replaced it.
    with transaction.atomic():
        lock_queue()
        refused = refusal(*owner)
        if refused is not None:
            raise refused  # rolled back: nothing changed
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
    with _lock:  # a replaced run playing here stops at once (elsewhere: at its next write)
        for job in [j for j in _jobs.values() if j.encounter_pk == encounter.pk]:
            stop(job)
    play_soon()
    return run


def play_soon() -> None:
    """Have this process's simulation thread claim and play the queued runs."""
    global _tasks
    with _lock:
        _tasks += 1
    executor().submit(play_next)


def idle() -> bool:
    """This process plays no run and has none to look for."""
    with _lock:
        return _tasks == 0 and not _jobs


def stop(job: "Job") -> None:
    """Stop `job` (under `_lock`): it stops at its next check, woken from its wait."""
    job.stopped = True
    with contextlib.suppress(OSError):
        os.write(_wake[1], b"x")


def claim() -> Simulation | None:
    """The queued run whose user's turn it is, claimed for this process; None when none
    waits (or `drain` stops this process's runs). The queue is taken by turns of its
    users (round-robin), across every process: of the users with runs waiting, the one
    whose last run was claimed longest ago (or never) goes first, and of that user's runs
    the oldest. One account's runs never wait in front of everybody else's. The UPDATE
    that claims a row takes only an unclaimed one: of processes claiming at once, each
    gets another row."""
    running = Simulation.objects.filter(status=Simulation.Status.RUNNING)
    while not _draining.is_set():
        waiting = list(running.filter(claimed_by="").order_by("pk")
                       .values_list("pk", "created_by_id")[:CLAIM_LOOK])
        if not waiting:
            return None
        users = {user for _pk, user in waiting if user is not None}
        last = dict(Simulation.objects.filter(created_by_id__in=users, claimed_at__isnull=False)
                    .order_by().values("created_by_id").annotate(last=Max("claimed_at"))
                    .values_list("created_by_id", "last"))
        pk, _user = min(waiting, key=lambda row: (row[1] in last,
                                                   last.get(row[1]) or timezone.now(), row[0]))
        now = timezone.now()
        if running.filter(pk=pk, claimed_by="").update(claimed_by=process_name(),
                                                       claimed_at=now, updated_at=now):
            return Simulation.objects.filter(pk=pk).first()
    return None


def play_next() -> None:
    """An executor task: claim the queued runs one after another (`claim`) and play each,
    until none waits. A task that finds none (another process claimed them) ends."""
    global _tasks
    try:
        while (row := claim()) is not None:
            job = Job(row)
            with _lock:
                _jobs[row.pk] = job
                job.stopped = _draining.is_set()  # claimed as `drain` began
            try:
                job()
            finally:
                with _lock:
                    _jobs.pop(row.pk, None)
                job.ended.set()
    except Exception:  # the database went away: the rows wait for the next task
        log.exception("simulation queue")
    finally:
        with _lock:
            _tasks -= 1
        connection.close()


def listen() -> None:
    """A served process looks for runs queued by any process of the site every
    SIMULATION_CLAIM_SECONDS while its simulation thread is idle, and claims them
    (`claim`): a run started on a process that is busy plays on one that is free, and a
    run left queued by a process that stopped is played. 0 turns it off (the runs this
    process starts still play here)."""
    seconds = getattr(settings, "SIMULATION_CLAIM_SECONDS", CLAIM_SECONDS)
    if seconds > 0:
        threading.Thread(target=look_for_runs, args=(seconds,), name="simulate-claims",
                         daemon=True).start()


def look_for_runs(seconds: float) -> None:
    away = False  # the database did not answer the last look (said once, not each time)
    while True:
        time.sleep(seconds)
        try:
            if idle() and Simulation.objects.filter(status=Simulation.Status.RUNNING,
                                                    claimed_by="").exists():
                play_soon()
            away = False
        except Exception as error:  # the database away (core.outage): try again later
            if not away:
                log.warning("looking for queued simulations: %r", error)
            away = True
            connection.close()


def wait(run: Simulation, timeout: float = 60) -> bool:
    """Wait at most `timeout` seconds for a run to end, whichever process plays it (tests,
    and the API's "wait" through `wait_for_answer`); True when it has ended, False when
    it still goes on. A run playing here is waited for by its job, any other by its row,
    read every WAIT_POLL_SECONDS. Never raises: the row says what became of the run."""
    deadline = time.monotonic() + timeout
    while True:
        with _lock:
            job = _jobs.get(run.pk)
        left = deadline - time.monotonic()
        if job is not None and job.ended.wait(max(0.0, min(left, 1.0))):
            return True
        if not Simulation.objects.filter(pk=run.pk, status=Simulation.Status.RUNNING).exists():
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        if job is None:
            time.sleep(min(left, WAIT_POLL_SECONDS))


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
    """Stop every run of this process (a test's end, before its database goes): those
    playing stop at their next check, and none is claimed until the thread's tasks still
    waiting have run and found nothing (left waiting, one took the next test's run on a
    busy machine, and played it ahead of what that test had queued)."""
    try:
        with _lock:
            _draining.set()
            jobs = list(_jobs.values())
            for job in jobs:
                stop(job)
        for job in jobs:
            job.ended.wait(timeout)
        if _executor is not None:
            with contextlib.suppress(Exception):
                _executor.submit(lambda: None).result(timeout)
    finally:
        _draining.clear()


def cancel(run: Simulation) -> bool:
    """Cancel a running run; False when it had already ended. A queued one is never
    claimed; one playing here stops at once, one playing on another process at its next
    write (`Job.progress`, a quarter of a second)."""
    cancelled = bool(
        Simulation.objects.filter(pk=run.pk, status=Simulation.Status.RUNNING).update(
            status=Simulation.Status.CANCELLED, updated_at=timezone.now()
        )
    )
    with _lock:
        job = _jobs.get(run.pk)
        if job is not None:
            stop(job)
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
    """How many worker processes play a server process's runs (`SIMULATION_PROCESSES`;
    0, the default: one fewer than the machine's cores, shared among the server processes
    `serve` started on it (SERVE_WORKERS), at least 1 each, so a core is left for the
    pages)."""
    configured = getattr(settings, "SIMULATION_PROCESSES", 0)
    if configured > 0:
        return configured
    served = os.environ.get("SERVE_WORKERS", "").strip()
    served = int(served) if served.isdigit() and int(served) > 0 else 1
    return max(1, ((os.cpu_count() or 1) - 1) // served)


def keep_queued() -> None:
    """Mark the queued rows (every process's, none of them stalled yet) as waiting, not
    stalled (`stalled`): a queue behind a slow run is no stopped process."""
    now = timezone.now()
    Simulation.objects.filter(status=Simulation.Status.RUNNING, claimed_by="",
                              updated_at__gt=now - STALLED).update(updated_at=now)


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

    def __init__(self, row: Simulation):
        self.row = row  # as claimed (`claim`): running, this process's
        self.pk, self.encounter_pk = row.pk, row.encounter_id
        self.engine_key = self.state = self.setup = None  # read by `prepare`
        self.house: dict = {}
        self.stopped = False  # replaced, cancelled or drained: it plays no more fights
        self.ended = threading.Event()  # set once it will write its row no more
        self.written = 0.0
        self.beaten = time.monotonic()  # when the queued rows were last marked alive
        self.pending: dict = {}  # the batches of the step that plays, come back so far
        self.token = next(_tokens)  # names its states in the workers (pks may repeat)

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

    def prepare(self, row: Simulation) -> None:
        """The fight as the GM asked about it: the encounter's state at the run's version,
        folded here (the run may have been started on another process), its set-up state
        for the award and the campaign's house rules for it."""
        encounter = Encounter.objects.select_related("campaign").get(pk=row.encounter_id)
        engine = services.engine_of(encounter)
        folded = services.folded_at(encounter, row.version, engine)
        self.engine_key = (encounter.system, encounter.kind)
        self.state, self.setup = folded.state, award_setup(encounter, engine, folded)
        self.house = {k: v for k, v in encounter.campaign.house().items()
                      if k in sim.AWARD_DEFAULTS}

    def run_of(self, row: Simulation) -> sim.Run:
        return sim.Run(self.state, seed=row.seed, plan=sim.Plan(flees=frozenset(row.flees)),
                       precision=sim.Precision(row.precision),
                       setup=self.setup,
                       house=self.house)

    def play(self) -> None:
        row = self.row
        if self.stopped:
            return  # replaced, cancelled or drained as it was claimed
        self.prepare(row)
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
        # The last step's progress is written now, while the workers play this one: a
        # write between the steps left them idle meanwhile.
        self.progress(run, results)
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
                if len(results) < len(calls):  # a whole step: written as the next plays
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
