"""The roll POST beside its floor (goal: its server CPU per request ≤ 1.3× the floor's).

The floor is a minimal Django view doing what every roll must (session, CSRF, the
campaign's membership, one numbered INSERT of a RollEvent) and nothing else, on the same
server stack (bench/floor_site.py: the site with that one view added). One granian
server of it, started here on the benchmark's database, takes the same load as the roll
rate (16 keep-alive clients, back to back) of: the real roll POST, the floor view, the
floor done the plain Django way, and GET /healthz, in slices of a second, the kinds in
turn. For each slice: requests answered per second, latency, and the server's CPU per
request (utime + stime of the server's processes over the slice, from /proc, divided by
the requests answered). The ratio is the median of each turn's roll slice over its floor
slice; the rest are medians of the slices.
"""

import statistics

from harness import ROLL_FIELDS, Bench, Row, get, load, med, medians, ms, post, roll_check, verdict
from processes import launch, server_pids, stop, tree_cpu_seconds

GOAL = 1.3  # the roll's CPU per request, at most this many times the floor's
SLICE_SECONDS = 1.0  # each kind's load comes in slices this long, the kinds in turn


async def measure(bench: Bench, seed: dict) -> list[Row]:
    plan = bench.plan
    campaign, sessions = seed["rate"]["campaign"], seed["rate"]["players"]
    n = plan.rate_clients
    (server,) = await launch(bench, ["floor"], target="floor_site:application")
    try:
        port, pids = server.port, server_pids(server)

        def roll(i: int) -> bytes:
            path = f"/campaigns/{campaign}/table/roll/"
            return post(port, path, sessions[i % len(sessions)], ROLL_FIELDS)

        def floor(i: int) -> bytes:
            path = f"/bench-floor/campaigns/{campaign}/roll/"
            return post(port, path, sessions[i % len(sessions)], ROLL_FIELDS)

        def plain(i: int) -> bytes:
            path = f"/bench-floor/campaigns/{campaign}/roll/?plain=1"
            return post(port, path, sessions[i % len(sessions)], ROLL_FIELDS)

        def health(i: int) -> bytes:
            return get(port, "/healthz")

        def floor_check(i: int, status: int, body: bytes):
            return None if status == 200 and body == b"ok" else f"HTTP {status}"

        kinds = {
            "roll": (roll, lambda i, s, b: roll_check(s, b)),
            "floor": (floor, floor_check),
            "plain": (plain, floor_check),
            "healthz": (health, None),
        }
        for requests, check in kinds.values():
            await load(port, requests, n, plan.warmup_seconds, check)
        # Slices of a second, the kinds in turn (the order rotating): the machine's other
        # load changes from second to second, and each kind gets its share of every phase.
        slices = max(1, round(plan.rate_seconds / SLICE_SECONDS))
        seconds = plan.rate_seconds / slices
        got: dict[str, list[dict]] = {kind: [] for kind in kinds}
        for rep in range(plan.reps):
            for turn in range(slices):
                start = (rep * slices + turn) % len(kinds)
                for kind in list(kinds)[start:] + list(kinds)[:start]:
                    requests, check = kinds[kind]
                    before = tree_cpu_seconds(pids)
                    result = await load(port, requests, n, seconds, check)
                    spent = tree_cpu_seconds(pids) - before
                    result["cpu_ms"] = spent * 1000 / max(result["count"], 1)
                    got[kind].append(result)
            bench.say(
                f"  roll floor rep {rep + 1}/{plan.reps} (medians of its {slices} slices): "
                + "; ".join(
                    f"{kind} {med(r[-slices:], 'rate'):.0f} req/s, p50 "
                    f"{ms(med(r[-slices:], 'p50'))} ms, CPU {med(r[-slices:], 'cpu_ms'):.2f} "
                    "ms/req"
                    for kind, r in got.items()
                )
            )
    finally:
        logged = stop([server])
    return [row(bench, got, logged)]


def row(bench: Bench, got: dict[str, list[dict]], logged: str) -> Row:
    cpu = {kind: med(results, "cpu_ms") for kind, results in got.items()}
    rate = {kind: med(results, "rate") for kind, results in got.items()}
    failures = {
        kind: sum(sum(r["failures"].values()) for r in results) for kind, results in got.items()
    }
    errors = sum(failures.values())
    # The ratio of each turn's roll and floor slices (next to each other): its median.
    ratio = statistics.median(
        roll["cpu_ms"] / floor["cpu_ms"]
        for roll, floor in zip(got["roll"], got["floor"], strict=True)
        if floor["cpu_ms"] > 0
    )
    return Row(
        name=f"roll POST CPU per request vs the floor view, {bench.plan.rate_clients} clients",
        value=f"{cpu['roll']:.2f} ms CPU/roll, {rate['roll']:,.0f} req/s",
        **medians(got["roll"]),
        delivered=(f"{errors} errors {failures}" if errors else "0 errors")
        + f" in {sum(r['count'] for r in got['roll']):,} rolls; floor "
        f"{rate['floor']:,.0f} req/s, p50 {ms(med(got['floor'], 'p50'))}, p99 "
        f"{ms(med(got['floor'], 'p99'))} ms; the floor done the plain Django way "
        f"{cpu['plain']:.2f} ms CPU, {rate['plain']:,.0f} req/s; /healthz "
        f"{cpu['healthz']:.2f} ms CPU, {rate['healthz']:,.0f} req/s"
        + (f"; server logged: {logged[:300]}" if logged else ""),
        baseline=f"floor view: {cpu['floor']:.2f} ms CPU/req",
        ratio=f"×{ratio:.2f} CPU",
        goal=f"≤ {GOAL}× the floor's CPU per request",
        ok=verdict(ratio <= GOAL and not errors),
    )


NOTES = """\
- Roll vs its floor: a server of bench/floor_site.py (the site as granian serves it,
  same settings and middleware, plus one bench-only view: login via the session, CSRF,
  the membership read as the roll reads it, one numbered INSERT of a RollEvent with
  fixed dice, a 2-byte answer; "the plain Django way": request.user and an ORM query
  for the membership instead) on the benchmark's database, under the roll rate's load
  (16 keep-alive clients, back to back) of the real roll POST, the floor view, the plain
  floor and GET /healthz, in slices of 1 s, the four in turn (the order rotating), 5 s of
  each per repetition. CPU per request: the server's processes' utime + stime (/proc)
  over a slice, divided by the requests answered in it. Ratio: the median over the turns
  of the roll slice's CPU per request over the floor slice's; the other figures are
  medians of the slices."""
