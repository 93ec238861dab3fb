"""Opening 1,000 streams at once, and the server's memory per open stream.

The time until all got their first body bytes, and VmRSS of granian's worker processes
before, with 1,000 open and after closing them (and after opening and closing them once
more). Baseline: the minimal server, on a fresh process too.
"""

import asyncio
import dataclasses
from time import perf_counter

from harness import (
    Bench,
    FanoutRun,
    Row,
    Server,
    Target,
    close_streams,
    med,
    open_streams,
    verdict,
)


async def open_once(
    server: Server, target: Target, sessions: list[str], settle_open: float, settle_close: float
) -> dict:
    """Open all `sessions`' streams at once on a server that has just started."""
    target = dataclasses.replace(target, stream_ports=[server.port], post_port=server.port)
    warm = await open_streams(FanoutRun(), target, sessions[:1], target.counter["seq"])
    await asyncio.sleep(0.5)  # the first stream loads what every stream needs
    await close_streams(warm)
    await asyncio.sleep(0.5)
    run = FanoutRun()
    before = server.worker_rss_kib()
    began = perf_counter()
    streams = await open_streams(run, target, sessions, target.counter["seq"])
    await run.wait(0, len(streams), timeout=60)
    opened = [s for s in streams if s.opened_at is not None and not s.error]
    all_open = max((s.opened_at for s in opened), default=began) - began
    await asyncio.sleep(settle_open)
    during = server.worker_rss_kib()
    still_open = sum(1 for s in opened if not s.closed.done())
    await close_streams(streams)
    await asyncio.sleep(settle_close)  # time for the server to notice and let go
    after = server.worker_rss_kib()
    # A second round with the same pages: memory that was kept is reused, not grown.
    again = FanoutRun()
    streams = await open_streams(again, target, sessions, target.counter["seq"])
    await again.wait(0, len(streams), timeout=60)
    await asyncio.sleep(settle_open)
    await close_streams(streams)
    await asyncio.sleep(settle_close)
    after_again = server.worker_rss_kib()
    return {
        "rss_after_again": after_again,
        "regrown": after_again - after,
        "seconds": all_open,
        "opened": len(opened),
        "still_open": still_open,
        "wanted": len(sessions),
        "errors": sorted({s.error for s in streams if s.error}),
        "rss_before": before,
        "rss_open": during,
        "rss_after": after,
        "per_stream": (during - before) / max(1, len(opened)),
        "kept": after - before,
    }


async def measure(bench: Bench, target: Target, baseline: Target, seed: dict) -> list[Row]:
    """Each repetition on a fresh server process (and a fresh minimal server): memory
    that an earlier phase left behind would hide what the streams cost."""
    plan = bench.plan
    sessions = seed["fanout"]["players"][: plan.open_streams]
    results, bases = [], []
    for rep in range(plan.reps):
        settle = plan.settle_open, plan.settle_close
        server, baseline_server = await asyncio.gather(
            asyncio.to_thread(bench.fresh, f"open-{rep + 1}", True),
            asyncio.to_thread(bench.fresh, f"open-baseline-{rep + 1}", False),
        )
        try:
            bases.append(await open_once(baseline_server, baseline, sessions, *settle))
            results.append(await open_once(server, target, sessions, *settle))
        finally:
            await asyncio.gather(
                asyncio.to_thread(server.stop), asyncio.to_thread(baseline_server.stop)
            )
        r = results[-1]
        bench.say(
            f"  open rep {rep + 1}/{plan.reps}: {r['opened']}/{r['wanted']} in "
            f"{r['seconds']:.2f} s (baseline {bases[-1]['seconds']:.2f} s); RSS "
            f"{r['rss_before']} → {r['rss_open']} → {r['rss_after']} KiB"
            + (f"; errors {r['errors'][:3]}" if r["errors"] else "")
        )
    n = plan.open_streams
    seconds, base_seconds = med(results, "seconds"), med(bases, "seconds")
    opened = min(r["opened"] for r in results)
    per_stream = med(results, "per_stream")
    kept = med(results, "kept")
    grown = med(results, "rss_open") - med(results, "rss_before")
    errors = sorted({e for r in results for e in r["errors"]})
    return [
        Row(
            name=f"open {n:,} streams: all first bytes",
            value=f"{seconds:.2f} s",
            delivered=f"{opened:,}/{n:,} opened (worst rep)"
            + (f"; {errors[:2]}" if errors else ""),
            baseline=f"{base_seconds:.2f} s",
            ratio=f"×{seconds / base_seconds:.1f}" if base_seconds else "–",
            goal="≤ 3 s, all open",
            ok=verdict(seconds <= 3 and opened == n),
        ),
        Row(
            name=f"open {n:,} streams: memory per stream",
            value=f"{per_stream:.0f} KiB",
            delivered=f"worker RSS {med(results, 'rss_before') / 1024:.0f} → "
            f"{med(results, 'rss_open') / 1024:.0f} MiB",
            baseline=f"{med(bases, 'per_stream'):.0f} KiB",
            ratio=f"×{per_stream / med(bases, 'per_stream'):.0f}"
            if med(bases, "per_stream") > 0
            else "–",
            goal="≤ 100 KiB per stream",
            ok=verdict(per_stream <= 100),
        ),
        Row(
            name=f"open {n:,} streams: RSS after close − before",
            value=f"{kept / 1024:+.1f} MiB",
            delivered=f"worker RSS after close {med(results, 'rss_after') / 1024:.0f} MiB",
            baseline=f"{med(bases, 'kept') / 1024:+.1f} MiB",
            goal="given back: ≤ 10 % of the growth while open",
            ok=verdict(kept <= 0.1 * max(grown, 1)),
        ),
        Row(
            name=f"open {n:,} streams again: RSS growth after the 2nd close",
            value=f"{med(results, 'regrown') / 1024:+.1f} MiB",
            delivered=f"worker RSS {med(results, 'rss_after') / 1024:.0f} → "
            f"{med(results, 'rss_after_again') / 1024:.0f} MiB",
            baseline=f"{med(bases, 'regrown') / 1024:+.1f} MiB",
            goal="kept memory is reused: ≤ 10 % of the growth while open",
            ok=verdict(med(results, "regrown") <= 0.1 * max(grown, 1)),
        ),
    ]


NOTES = """\
- Opening: all streams connect at once; time from the first connect to the last stream's
  first body bytes. Memory: VmRSS of granian's worker process(es) before, 1 s after all are
  open, and 3 s after closing them; the baseline is the minimal server's process. "Given
  back" is read as: RSS after closing exceeds RSS before by at most 10 % of what the open
  streams took."""
