"""Exact Phobia odds benchmark: `make bench` (or `python bench/odds.py [--quick]`).

Issue 10: "exact odds ≤ 1 ms for any difficulty up to Ob10T6". The odds are
`rules.phobia.success.odds(difficulty, chance)`: a cache of answered pairs in front of
tables per difficulty, which `warm()` builds once when a server process starts. Every
measurement runs in fresh Python processes (this script again, with --child), so no
cache of this process or of an earlier measurement helps:

1. new pairs after warm(): in each process warm(), then odds(d, c) for every difficulty
   d = 0..10 and every chance c = 0..200 (--quick: every 10th), the cache of answered
   pairs cleared before each call but not the tables (a warmed server keeps them). Per
   process p50, p99 and max, per difficulty and over all; the table quotes the medians
   over the processes. Goal: max (and so p99) ≤ 1 ms. The tables' caches are checked
   not to grow during the calls (no table built while a request waits).
2. warm() itself in a fresh process (beside the import of rules.phobia.success in the
   same processes), also warm(20) (every difficulty the dice allow: information), and
   the memory its tables hold (tracemalloc: allocated by warm() and still held after it).
3. cold: the first odds(10, 60) in a fresh process without warm() (information: what a
   process that skips warm() pays once per difficulty).

Baseline, measured in the same processes: the Aoristos exact odds the app already
answers per request (`rules.aoristos.dice.p_at_least`: the table's chance before a
roll, GET /api/v1/aoristos/odds) for 6B, the largest Aoristos hand, over each of its
targets 6..36 in turn, interleaved with the Phobia calls;
its own distribution cache warm, as the Phobia tables are. It is the same kind of work
(exact fractions for one test) that the app already serves, so the ratio says how much
dearer a Phobia answer is. Cold: its first call in a fresh process (which builds its
6-dice distribution).

Prints a markdown table with bench/live.py's columns (rows can be pasted into
bench/results.md; nothing is written). BENCH_QUICK=1 or --quick: a smoke run.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from time import perf_counter, perf_counter_ns

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DIFFICULTIES = range(11)  # Ob0T6..Ob10T6: the goal
MAX_CHANCE = 200  # rules.phobia.success.MAX_EXACT_CHANCE
BASELINE_HAND = "6B"
GOAL_MS = 1.0
WARM_GOAL_MS = 200.0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def stats(values: list[float]) -> dict:
    return {"p50": pct(values, 0.5), "p99": pct(values, 0.99), "max": max(values)}


def rss_kib() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


# --- the child processes ---------------------------------------------------------------


def table_misses(success, dice) -> int:
    caches = (
        success._few_sixes,
        dice._one_die,
        dice._dice_totals,
        dice._dice_at_most,
        dice._first_roll_totals,
        dice._five_sided_sums,
    )
    return sum(cache.cache_info().misses for cache in caches)


def child_pairs(step: int) -> dict:
    started = perf_counter()
    from rules.phobia import dice, success

    imported = perf_counter()
    from rules.aoristos import dice as aoristos

    rss_before = rss_kib()
    before_warm = perf_counter()
    success.warm()
    warmed = perf_counter()
    rss_after = rss_kib()
    hand = aoristos.parse_hand(BASELINE_HAND)
    targets = list(aoristos.distribution(hand))  # builds the baseline's cache
    misses = table_misses(success, dice)
    phobia: dict[int, list[float]] = {d: [] for d in DIFFICULTIES}
    baseline: list[float] = []
    k = 0
    for d in DIFFICULTIES:
        for chance in range(0, MAX_CHANCE + 1, step):
            success._odds.cache_clear()  # a new pair; the tables stay
            t0 = perf_counter_ns()
            success.odds(d, chance)
            t1 = perf_counter_ns()
            phobia[d].append((t1 - t0) / 1e6)
            target = targets[k % len(targets)]
            k += 1
            t0 = perf_counter_ns()
            aoristos.p_at_least(hand, target)
            t1 = perf_counter_ns()
            baseline.append((t1 - t0) / 1e6)
    return {
        "import_ms": (imported - started) * 1e3,
        "warm_ms": (warmed - before_warm) * 1e3,
        "warm_rss_kib": rss_after - rss_before,
        "built_while_measuring": table_misses(success, dice) - misses,
        "phobia": phobia,
        "baseline": baseline,
    }


def child_cold() -> dict:
    from rules.aoristos import dice as aoristos
    from rules.phobia import success

    hand = aoristos.parse_hand(BASELINE_HAND)
    t0 = perf_counter()
    success.odds(10, 60)
    t1 = perf_counter()
    aoristos.p_at_least(hand, 21)
    t2 = perf_counter()
    return {"cold_ms": (t1 - t0) * 1e3, "baseline_cold_ms": (t2 - t1) * 1e3}


def child_warm(max_difficulty: int) -> dict:
    from rules.phobia import success

    t0 = perf_counter()
    success.warm(max_difficulty)
    return {"warm_ms": (perf_counter() - t0) * 1e3}


def child_memory(max_difficulty: int) -> dict:
    import tracemalloc

    from rules.phobia import success

    tracemalloc.start()
    success.warm(max_difficulty)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"held_kib": held / 1024}


def child(args: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    mode, *rest = args
    result = {
        "pairs": lambda: child_pairs(int(rest[0])),
        "cold": child_cold,
        "warm": lambda: child_warm(int(rest[0])),
        "memory": lambda: child_memory(int(rest[0])),
    }[mode]()
    print(json.dumps(result))


def fresh(*args: object) -> dict:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


# --- the table ---------------------------------------------------------------------------

HEAD = [
    "measurement",
    "result",
    "p50 ms",
    "p99 ms",
    "max ms",
    "delivered / errors",
    "baseline (same run)",
    "ratio",
    "goal",
    "ok?",
]


def ms(value: float) -> str:
    if value != value:  # nan
        return "–"
    if value < 1:
        return f"{value:.3f}"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def verdict(ok: bool | None) -> str:
    return {True: "yes", False: "**NO**", None: "–"}[ok]


def table(rows: list[list[str]], head: list[str] = HEAD) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def med(results: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in results)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        default=os.environ.get("BENCH_QUICK", "") not in ("", "0"),
        help="every 10th chance, 2 processes each (a smoke run); also BENCH_QUICK=1",
    )
    parser.add_argument("--processes", type=int, help="fresh processes per measurement")
    args = parser.parse_args(argv)
    processes = args.processes or (2 if args.quick else 7)
    step = 10 if args.quick else 1
    started = time.monotonic()
    print(f"bench/odds.py: {processes} fresh processes per measurement", flush=True)

    pairs = [fresh("pairs", step) for _ in range(processes)]
    cold = [fresh("cold") for _ in range(processes)]
    warm20 = [fresh("warm", 20) for _ in range(processes)]
    memory10, memory20 = fresh("memory", 10), fresh("memory", 20)

    def per_process(pick) -> list[dict]:
        return [stats(pick(r)) for r in pairs]

    def medians(per: list[dict]) -> dict:
        return {key: med(per, key) for key in ("p50", "p99", "max")}

    every = medians(per_process(lambda r: [v for d in DIFFICULTIES for v in r["phobia"][str(d)]]))
    by_difficulty = {
        d: medians(per_process(lambda r, d=d: r["phobia"][str(d)])) for d in DIFFICULTIES
    }
    base = medians([stats(r["baseline"]) for r in pairs])
    worst_d = max(DIFFICULTIES, key=lambda d: by_difficulty[d]["max"])
    worst = by_difficulty[worst_d]
    samples = sum(len(r["phobia"][str(d)]) for r in pairs[:1] for d in DIFFICULTIES)
    built = sum(r["built_while_measuring"] for r in pairs)
    highest = max(v for r in pairs for d in DIFFICULTIES for v in r["phobia"][str(d)])
    chances = f"chances 0..{MAX_CHANCE}" + (f" every {step}th" if step > 1 else "")
    baseline_text = (
        f"Aoristos p_at_least({BASELINE_HAND}), targets 6..36: "
        f"p50 {ms(base['p50'])}, p99 {ms(base['p99'])}, max {ms(base['max'])} ms"
    )

    rows = [
        [
            "Phobia exact odds, new pair after warm(), Ob0T6–Ob10T6",
            f"{ms(every['p50'])} ms",
            ms(every["p50"]),
            ms(every["p99"]),
            ms(every["max"]),
            f"{samples:,} pairs ({chances}) × {processes} processes; tables built while "
            f"measuring: {built}; slowest single call {ms(highest)} ms",
            baseline_text,
            f"p50 ×{every['p50'] / base['p50']:.1f}, max ×{every['max'] / base['max']:.1f}",
            f"max ≤ {GOAL_MS:g} ms",
            verdict(every["max"] <= GOAL_MS and every["p99"] <= GOAL_MS and built == 0),
        ],
        [
            f"Phobia exact odds, new pair after warm(), slowest difficulty (Ob{worst_d}T6)",
            f"{ms(worst['max'])} ms max",
            ms(worst["p50"]),
            ms(worst["p99"]),
            ms(worst["max"]),
            f"{samples // len(DIFFICULTIES):,} pairs × {processes} processes",
            baseline_text,
            f"p50 ×{worst['p50'] / base['p50']:.1f}, max ×{worst['max'] / base['max']:.1f}",
            f"max ≤ {GOAL_MS:g} ms",
            verdict(worst["max"] <= GOAL_MS),
        ],
        [
            "Phobia odds tables: warm(), Ob0T6–Ob10T6, chances to 200 (fresh process)",
            f"{ms(med(pairs, 'warm_ms'))} ms",
            ms(med(pairs, "warm_ms")),
            "",
            ms(max(r["warm_ms"] for r in pairs)),
            f"{processes} processes; warm(20), every difficulty: "
            f"p50 {ms(med(warm20, 'warm_ms'))} ms",
            f"import rules.phobia.success: {ms(med(pairs, 'import_ms'))} ms",
            f"×{med(pairs, 'warm_ms') / med(pairs, 'import_ms'):.2f}",
            f"< {WARM_GOAL_MS:g} ms, once per process",
            verdict(med(pairs, "warm_ms") < WARM_GOAL_MS),
        ],
        [
            "Phobia odds tables: memory held after warm()",
            f"{memory10['held_kib']:,.0f} KiB",
            "",
            "",
            "",
            f"tracemalloc; RSS +{med(pairs, 'warm_rss_kib'):,.0f} KiB; "
            f"warm(20): {memory20['held_kib']:,.0f} KiB",
            "",
            "",
            "none (information)",
            "–",
        ],
        [
            "Phobia exact odds, cold: first odds(Ob10T6, 60), no warm()",
            f"{ms(med(cold, 'cold_ms'))} ms",
            ms(med(cold, "cold_ms")),
            "",
            ms(max(r["cold_ms"] for r in cold)),
            f"{processes} fresh processes; builds Ob10T6's tables",
            f"Aoristos first p_at_least({BASELINE_HAND}): {ms(med(cold, 'baseline_cold_ms'))} ms",
            f"×{med(cold, 'cold_ms') / med(cold, 'baseline_cold_ms'):.1f}",
            "none (information; a server calls warm() at start)",
            "–",
        ],
    ]
    detail = [
        [
            f"Ob{d}T6",
            ms(by_difficulty[d]["p50"]),
            ms(by_difficulty[d]["p99"]),
            ms(by_difficulty[d]["max"]),
        ]
        for d in DIFFICULTIES
    ]
    kind = "quick" if args.quick else "full"
    print(
        "\n".join(
            [
                "",
                f"# Exact Phobia odds ({kind} run)",
                "",
                f"Python {platform.python_version()}; {platform.machine()}; "
                f"{os.cpu_count()} cores; took {time.monotonic() - started:.0f} s. "
                f"Medians over {processes} fresh processes; baselines from the same run.",
                "",
                table(rows),
                "",
                "New pairs after warm(), per difficulty (medians over the processes):",
                "",
                table(detail, ["difficulty", "p50 ms", "p99 ms", "max ms"]),
            ]
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
