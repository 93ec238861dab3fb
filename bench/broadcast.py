"""Live-table fan-out benchmark: `make bench` (or `python bench/broadcast.py`).

Measures how long one roll takes to reach N open streams' queues through the in-process
broadcaster (`table.broadcast.LocalBroadcaster`): published from a page thread, as the
roll view does, and delivered onto the event loop that holds the streams. The baseline,
measured in the same run, is the least any fan-out can cost: the same N `put_nowait`
calls made directly on the loop. Reports medians and p99 over many publishes, and the
ratio to the baseline (this machine is noisy).
"""

import argparse
import asyncio
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aoristos_site.settings")

import django  # noqa: E402

django.setup()

from table.broadcast import LocalBroadcaster  # noqa: E402


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(n: int, rounds: int) -> dict[str, list[float]]:
    loop = asyncio.get_running_loop()
    broadcaster = LocalBroadcaster()
    subscriptions = [broadcaster.subscribe(1) for _ in range(n)]
    payload = {"seq": 0, "hand": "2B2T+1", "dice": [1, 2, 3, 4], "result": 6}
    times = {"baseline (direct put_nowait on the loop)": [], "broadcaster (from a thread)": []}

    async def drain():
        for s in subscriptions:
            await s.get()

    for _ in range(rounds):
        start = time.perf_counter()
        for s in subscriptions:
            s.queue.put_nowait(payload)
        await drain()
        times["baseline (direct put_nowait on the loop)"].append(time.perf_counter() - start)

        start = time.perf_counter()
        thread = threading.Thread(target=broadcaster.publish, args=(1, payload))
        thread.start()
        await drain()
        times["broadcaster (from a thread)"].append(time.perf_counter() - start)
        await loop.run_in_executor(None, thread.join)
    for s in subscriptions:
        s.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    print(f"one publish reaching N streams; {args.rounds} publishes each; ms")
    for n in args.streams:
        times = asyncio.run(measure(n, args.rounds))
        base = statistics.median(next(iter(times.values())))
        print(f"\nN = {n}")
        for name, values in times.items():
            median = statistics.median(values)
            print(
                f"  {name:<42} median {median * 1e3:7.3f}  p99 "
                f"{quantile(values, 0.99) * 1e3:7.3f}   x{median / base:.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
