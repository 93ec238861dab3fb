"""What the GM waits for: "How dangerous is this fight?" over HTTP (issue 46).

    make bench                                   (or: python bench/simulation_wait.py)
    BENCH_QUICK=1 make bench                     (or: python bench/simulation_wait.py --quick)

Starts the site as `make serve` does (granian via core.serving.granian_command, one
process, the simulation's worker processes as the settings make them: SIMULATION_PROCESSES
default cores - 1, at SIMULATION_NICE 10) on a fresh SQLite database of its own, seeded by
bench/live_db.py `simulation`: per system (Aoristos, Phobia, T10) a campaign whose GM has
an encounter set up, not started, of bench/simulate.py's fight (three characters, not
NPCs, on one side against four NPCs: the p. 4 award is simulated for Aoristos), and
another table (another GM's campaign) whose player rolls. Then, from this process, over
real HTTP (bench/harness.py's keep-alive client):

1. The GM's run. The worker processes are warmed first: one untimed run per system (the
   very first one, on the fresh server, is reported apart: "cold"). Then `reps` times,
   the systems in turn: POST /api/v1/encounters/<id>/simulation {"precision": 5, "seed":
   <the rep's>}, and GET the same URL every 20 ms (the next GET 20 ms after the previous
   was sent, or at once when its answer took longer). "First estimate": from sending the
   POST to the first answer whose "estimate" (or "report") is not null; "answered": to
   the first answer whose status is "done". Fights played (its "done"), why it stopped,
   its widest margin and (Aoristos) whether the award's row was decided, from the report.
   Baseline: the same run (same state, seed and precision, `rules.simulation.Run`)
   played in this process on one core (`run_all`), wall time, before the server starts.
2. A roll at the other table: POST /campaigns/<id>/table/roll/ (bench/roll_floor.py's
   roll), one after the other, with no simulation running ("idle") and while the first
   GM's Aoristos runs at precision 1 play back to back (a run lasts tens of seconds; the
   GM's page polls every 500 ms as templates/combat/_simulation.html does while an
   estimate is shown; each loaded block starts once its run's first estimate is in, so
   the worker plays), 4,000 of each in 8 alternating blocks, idle first (--quick: 40 in
   one). p50, p99 and max of each; the ratio is loaded p99 over idle p99, all the blocks'
   rolls pooled (the blocks' own ratios beside it). Over the rolls: the CPU of the server's
   processes per roll (the pages and the simulation thread) and the worker processes'
   share of a core (/proc).

Goals (issue 46): Aoristos answered ≤ 1 s and its first estimate ≤ 0.3 s; Phobia and T10
answered ≤ 1.5 s; a roll's p99 while a run plays ≤ 1.5 × idle. Medians of the reps (min
and max beside). Prints a markdown table with bench/live.py's columns (nothing written).
The engine's own fights per second per system are bench/simulate.py's rows.
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from time import perf_counter

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import (  # noqa: E402
    ROLL_FIELDS,
    ROOT,
    Client,
    Row,
    children,
    db_script,
    free_port,
    get,
    log_findings,
    machine,
    ms,
    pct,
    post,
    post_json,
    roll_check,
    site_env,
    start,
    table,
    verdict,
    wait_up,
)
from processes import cpu_seconds  # noqa: E402

SYSTEMS = ("aoristos", "phobia", "t10")
PRECISION = 5
LOAD_PRECISION = 1
POLL_SECONDS = 0.020
PAGE_POLL_SECONDS = 0.5  # the page's poll while an estimate is shown (_simulation.html)
GOAL_ANSWERED = {"aoristos": 1.0, "phobia": 1.5, "t10": 1.5}  # seconds, wall
GOAL_FIRST = {"aoristos": 0.3}
GOAL_ROLL_RATIO = 1.5
WARM_SEED = 10**6
LOAD_SEED = 2 * 10**6
RUN_TIMEOUT = 120  # seconds a precision-5 run may take before the bench gives up on it


def plan(quick: bool) -> dict:
    if quick:
        return {"reps": 1, "rolls": 40, "blocks": 1}
    return {"reps": 5, "rolls": 4000, "blocks": 8}  # rolls per phase, in `blocks` blocks


def sim_path(encounter: int) -> str:
    return f"/api/v1/encounters/{encounter}/simulation"


async def ask(client: Client, raw: bytes) -> tuple[int, dict]:
    status, body = await client.send(raw)
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {"error": body[:200].decode(errors="replace")}


async def one_run(port: int, fight: dict, seed: int, precision: int = PRECISION,
                  poll: float = POLL_SECONDS, stop: asyncio.Event | None = None) -> dict:
    """POST a run, poll GET until it is done: the times from sending the POST."""
    client = Client(port)
    await client.connect()
    path, session = sim_path(fight["encounter"]), fight["gm"]
    try:
        began = perf_counter()
        status, data = await ask(client, post_json(port, path, session,
                                                   {"precision": precision, "seed": seed}))
        posted = perf_counter() - began
        if status != 202:
            return {"error": f"POST HTTP {status}: {data}"}
        first = None
        polls = 0
        sim = data["simulation"]
        next_at = perf_counter()
        while True:
            if first is None and (sim.get("estimate") or sim.get("report")):
                first = perf_counter() - began
            if sim["status"] != "running":
                break
            if perf_counter() - began > RUN_TIMEOUT and stop is None:
                return {"error": f"still running after {RUN_TIMEOUT} s ({sim['done']} fights)"}
            if stop is not None and stop.is_set():
                await ask(client, post_json(port, path + "/cancel", session, {}))
                return {"cancelled": True, "done": sim["done"]}
            next_at += poll
            await asyncio.sleep(max(0.0, next_at - perf_counter()))
            next_at = max(next_at, perf_counter())
            status, data = await ask(client, get(port, path, session))
            polls += 1
            if status != 200:
                return {"error": f"GET HTTP {status}: {data}"}
            sim = data["simulation"]
        answered = perf_counter() - began
        report = sim.get("report") or {}
        award = report.get("award")
        return {
            "status": sim["status"],
            "post": posted,
            "first": first,
            "answered": answered,
            "done": sim["done"],
            "fights": report.get("fights"),
            "stopped": report.get("stopped"),
            "widest": report.get("widest"),
            "decided": None if award is None else award.get("decided"),
            "row": None if award is None else award.get("row"),
            "polls": polls,
        }
    finally:
        client.close()


def cpu_split(server_pid: int) -> tuple[float, float]:
    """CPU seconds so far of the server's processes (granian and its worker: the pages and
    the simulation thread) and of the simulation's worker processes, from /proc."""
    server = worker = 0.0
    for pid in [server_pid, *children(server_pid)]:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"rules.simulation_player" in command:
            worker += cpu_seconds(pid)
        else:
            server += cpu_seconds(pid)
    return server, worker


async def rolls(port: int, other: dict, count: int, cpu: dict | None = None
                ) -> tuple[list[float], list[str]]:
    """`count` rolls at the other table, one after the other: latencies (ms), problems;
    `cpu` (with "pid") gets the server's and the workers' CPU seconds and the wall time
    the rolls took added to its "server", "worker" and "wall"."""
    client = Client(port)
    await client.connect()
    path = f"/campaigns/{other['campaign']}/table/roll/"
    latencies, problems = [], []
    before = cpu_split(cpu["pid"]) if cpu else (0.0, 0.0)
    began_all = perf_counter()
    try:
        for _ in range(count):
            raw = post(port, path, other["player"], ROLL_FIELDS)
            began = perf_counter()
            status, body = await client.send(raw)
            latencies.append((perf_counter() - began) * 1000)
            if problem := roll_check(status, body):
                problems.append(problem)
    finally:
        client.close()
    if cpu:
        after = cpu_split(cpu["pid"])
        cpu["server"] = cpu.get("server", 0.0) + after[0] - before[0]
        cpu["worker"] = cpu.get("worker", 0.0) + after[1] - before[1]
        cpu["wall"] = cpu.get("wall", 0.0) + perf_counter() - began_all
    return latencies, problems


async def loaded_rolls(port: int, fight: dict, other: dict, count: int, cpu: dict) -> dict:
    """Rolls while the GM's precision-1 runs play back to back (the block begins once the
    run's first estimate is in)."""
    stop = asyncio.Event()
    playing = asyncio.Event()
    runs: list[dict] = []

    async def gm() -> None:
        seed = LOAD_SEED + random.randrange(10**6)
        while not stop.is_set():
            task = asyncio.create_task(watch(seed))
            runs.append(await task)
            seed += 1

    async def watch(seed: int) -> dict:
        client = Client(port)
        await client.connect()
        path, session = sim_path(fight["encounter"]), fight["gm"]
        try:
            status, data = await ask(client, post_json(port, path, session,
                                                       {"precision": LOAD_PRECISION,
                                                        "seed": seed}))
            if status != 202:
                playing.set()
                stop.set()
                return {"error": f"POST HTTP {status}: {data}"}
            while True:
                sim = data["simulation"]
                if sim.get("estimate"):
                    playing.set()
                if sim["status"] != "running":
                    return {"status": sim["status"], "done": sim["done"]}
                if stop.is_set():
                    await ask(client, post_json(port, path + "/cancel", session, {}))
                    return {"status": "cancelled by the bench", "done": sim["done"]}
                await asyncio.sleep(PAGE_POLL_SECONDS)
                status, data = await ask(client, get(port, path, session))
        finally:
            client.close()

    task = asyncio.create_task(gm())
    await asyncio.wait_for(playing.wait(), 60)
    latencies, problems = await rolls(port, other, count, cpu)
    stop.set()
    await task
    return {"latencies": latencies, "problems": problems, "runs": runs}


def in_process(system: str, seed: int) -> dict:
    """The same run played in this process on one core: wall seconds and its fights."""
    from simulate import fight_state

    from rules import simulation as sim

    engine, state = fight_state(system)
    setup = state if system == "aoristos" else None
    run = sim.Run(state, seed=seed, precision=sim.Precision(float(PRECISION)), setup=setup)
    began = perf_counter()
    sim.run_all(engine, run)
    return {"seconds": perf_counter() - began, "fights": run.played(),
            "stopped": run.stopped()}


def spread(values: list[float], unit=lambda v: f"{v:.2f} s") -> str:
    return (f"{unit(statistics.median(values))} (min {unit(min(values))}, max "
            f"{unit(max(values))})")


async def measure(port: int, server_pid: int, seed: dict, p: dict, baselines: dict, say
                  ) -> list[Row]:
    fights, other = seed["fights"], seed["other"]
    cold: dict = {}
    for system in SYSTEMS:  # warm: one untimed run each (the first is on a fresh server)
        result = await one_run(port, fights[system], WARM_SEED)
        if not cold:
            cold = result | {"system": system}
        say(f"  warm-up run ({system}): {result}")
    got: dict[str, list[dict]] = {system: [] for system in SYSTEMS}
    for rep in range(p["reps"]):
        for system in SYSTEMS:
            result = await one_run(port, fights[system], rep + 1)
            got[system].append(result)
            say(f"  rep {rep + 1}/{p['reps']} {system}: {result}")
    idle: list[float] = []
    loaded: list[float] = []
    problems: list[str] = []
    load_runs: list[dict] = []
    per_block = max(1, p["rolls"] // p["blocks"])
    cpu = {"idle": {"pid": server_pid}, "loaded": {"pid": server_pid}}
    ratios = []
    for block in range(p["blocks"]):
        lat, bad = await rolls(port, other, per_block, cpu["idle"])
        idle += lat
        problems += bad
        result = await loaded_rolls(port, fights["aoristos"], other, per_block, cpu["loaded"])
        ratios.append(pct(result["latencies"], 0.99) / pct(lat, 0.99))
        loaded += result["latencies"]
        problems += result["problems"]
        load_runs += result["runs"]
        say(f"  rolls block {block + 1}/{p['blocks']}: idle p50 {ms(pct(lat, 0.5))} p99 "
            f"{ms(pct(lat, 0.99))} ms; loaded p50 {ms(pct(result['latencies'], 0.5))} p99 "
            f"{ms(pct(result['latencies'], 0.99))} ms; runs {result['runs']}")
    return rows(got, cold, baselines, idle, loaded, problems, load_runs, p, cpu, ratios)


def cpu_text(cpu: dict, count: int) -> str:
    """The server's CPU per roll and the workers' share of a core over the rolls."""
    wall = cpu.get("wall") or float("nan")
    return (f"server processes {cpu.get('server', 0) * 1000 / max(count, 1):.2f} ms CPU per "
            f"roll; simulation workers {100 * cpu.get('worker', 0) / wall:.0f} % of a core")


def rows(got, cold, baselines, idle, loaded, problems, load_runs, p, cpu, ratios
         ) -> list[Row]:
    out = []
    if "error" in cold:
        out.append(Row(name="GM's simulation: the cold first run", value=cold["error"],
                       ok=verdict(False)))
    else:
        out.append(Row(
            name=f"GM's simulation, the first run on a fresh server ({cold['system']}, cold: "
                 "the worker processes start)",
            value=f"first estimate {cold['first']:.2f} s, answered {cold['answered']:.2f} s, "
                  f"{cold['done']:,} fights",
            goal="measured, no goal (a GM's page warms the workers: `simulations.warm`)",
            ok=verdict(None)))
    for system in SYSTEMS:
        results = got[system]
        errors = [r["error"] for r in results if "error" in r]
        good = [r for r in results if "error" not in r and r["status"] == "done"]
        base = baselines[system]
        label = (f"GM's simulation over HTTP ({system}): POST precision ±{PRECISION}, 3 "
                 "characters vs 4 NPCs, polled every 20 ms, workers warm")
        if not good:
            out.append(Row(name=label, value=f"failed: {errors[:2]}", ok=verdict(False)))
            continue
        answered = [r["answered"] for r in good]
        first = [r["first"] for r in good]
        done = [r["done"] for r in good]
        rate = [r["done"] / r["answered"] for r in good]
        stopped = sorted({r["stopped"] for r in good})
        widest = [r["widest"] for r in good]
        award = ""
        if system == "aoristos":
            decided = sum(1 for r in good if r["decided"])
            award = (f"; award decided in {decided}/{len(good)} (rows "
                     f"{sorted({r['row'] for r in good if r['row'] is not None})})")
        first_goal = GOAL_FIRST.get(system)
        out.append(Row(
            name=f"{label}: first estimate",
            value=spread(first),
            p50=ms(statistics.median(first) * 1000),
            max=ms(max(first) * 1000),
            delivered=f"{len(errors)} errors in {len(results)} runs; the POST answered in "
                      f"{ms(statistics.median(r['post'] for r in good) * 1000)} ms (median)",
            goal=f"≤ {first_goal} s" if first_goal else "measured, no goal",
            ok=verdict(statistics.median(first) <= first_goal and not errors)
            if first_goal else verdict(None),
        ))
        goal = GOAL_ANSWERED[system]
        in_rate = base["fights"] / base["seconds"]
        out.append(Row(
            name=f"{label}: answered (status done)",
            value=f"{spread(answered)}; {statistics.median(done):,.0f} fights (min "
                  f"{min(done):,}, max {max(done):,}), {statistics.median(rate):,.0f} "
                  f"fights/s; stopped {'/'.join(stopped)}, widest ± "
                  f"{statistics.median(widest):.1f} points{award}",
            p50=ms(statistics.median(answered) * 1000),
            max=ms(max(answered) * 1000),
            delivered=f"{len(errors)} errors in {len(results)} runs"
                      + (f" ({errors[:2]})" if errors else "")
                      + f"; {statistics.median(r['polls'] for r in good):.0f} GETs per run",
            baseline=f"the same run (seed 1) played in this process on one core: "
                     f"{base['seconds']:.2f} s, {base['fights']:,} fights ({in_rate:,.0f} "
                     f"fights/s, stopped {base['stopped']})",
            ratio=f"×{statistics.median(answered) / (base['seconds'] * statistics.median(done) / base['fights']):.2f} "  # noqa: E501
                  "the in-process time for as many fights",
            goal=f"≤ {goal:g} s wall",
            ok=verdict(statistics.median(answered) <= goal and not errors),
        ))
    idle_p99, loaded_p99 = pct(idle, 0.99), pct(loaded, 0.99)
    played = sum(r.get("done", 0) for r in load_runs)
    load_errors = [r["error"] for r in load_runs if "error" in r]
    out.append(Row(
        name=f"roll at another table, {len(idle)} one after the other, nothing running",
        value=f"{len(idle)} rolls",
        p50=ms(pct(idle, 0.5)), p99=ms(idle_p99), max=ms(max(idle, default=float("nan"))),
        delivered=f"{len(problems)} problems" + (f" {problems[:3]}" if problems else "")
                  + "; " + cpu_text(cpu["idle"], len(idle)),
        goal="the baseline of the next row", ok=verdict(None),
    ))
    ratio = loaded_p99 / idle_p99 if idle_p99 > 0 else float("nan")
    out.append(Row(
        name=f"roll at another table while the first GM's Aoristos runs (precision "
             f"±{LOAD_PRECISION}) play back to back, in {p['blocks']} blocks alternating "
             "with the idle ones",
        value=f"{len(loaded)} rolls; {played:,} fights played meanwhile in {len(load_runs)} "
              f"runs (each cancelled when its block ended)"
              + (f"; load errors {load_errors[:2]}" if load_errors else ""),
        p50=ms(pct(loaded, 0.5)), p99=ms(loaded_p99), max=ms(max(loaded, default=float("nan"))),
        delivered=f"{len(problems)} problems (both rows); " + cpu_text(cpu["loaded"], len(loaded))
                  + f"; the blocks' own p99 ratios ×{min(ratios):.2f} to ×{max(ratios):.2f} "
                  f"(median ×{statistics.median(ratios):.2f})",
        baseline=f"idle: p50 {ms(pct(idle, 0.5))}, p99 {ms(idle_p99)} ms",
        ratio=f"×{ratio:.2f} p99",
        goal=f"p99 ≤ {GOAL_ROLL_RATIO}× idle",
        ok=verdict(ratio <= GOAL_ROLL_RATIO and not problems and not load_errors),
    ))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        default=os.environ.get("BENCH_QUICK", "") not in ("", "0"),
                        help="one rep, 40 rolls (a smoke run); also BENCH_QUICK=1")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    p = plan(args.quick)
    print(f"bench/simulation_wait.py: {p['reps']} runs per system at precision ±{PRECISION} "
          f"after one untimed warm-up run each; {p['rolls']} rolls idle and as many "
          "loaded", flush=True)
    baselines = {system: in_process(system, 1) for system in SYSTEMS}
    print("  in this process, one core: " + "; ".join(
        f"{s} {b['seconds']:.2f} s for {b['fights']:,} fights" for s, b in baselines.items()),
        flush=True)
    workdir = Path(tempfile.mkdtemp(prefix="aoristos-simbench-"))
    (workdir / "data").mkdir()
    env = site_env(ROOT, workdir)
    server = None
    started = time.monotonic()
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                       check=True, timeout=300)
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                       cwd=ROOT, env=env, check=True, timeout=300)
        seed = db_script(ROOT, env, workdir, "simulation", {})
        from core.serving import granian_command

        port = free_port()
        server = start("site", granian_command("127.0.0.1", port), env, ROOT, workdir, port,
                       True)
        wait_up(server)
        print(f"  server up after {time.monotonic() - started:.1f} s", flush=True)
        result = asyncio.run(measure(port, server.process.pid, seed, p, baselines,
                                     lambda text: print(text, flush=True)))
    finally:
        if server is not None:
            server.stop()
    errors, others = log_findings([server] if server else [])
    info = machine(ROOT)
    print()
    print("; ".join(f"{k}: {v}" for k, v in info.items()))
    print(f"Took {time.monotonic() - started:.0f} s.\n")
    print(table(result))
    print("\nServer logs: " + ("; ".join(errors) if errors else "no errors logged.")
          + (" Other lines: " + "; ".join(others) if others else ""), flush=True)
    if args.keep or errors:
        print(f"bench: kept {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
