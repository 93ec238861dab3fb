"""Roll POST req/s and latency with 16 keep-alive clients, beside GET /healthz.

Then the roll's server CPU per request against its floor (bench/roll_floor.py), and a
combat command sent to one process or to the other (bench/combat_command.py), each on
servers of its own.

Right after the rolls, in each repetition, the same load of combat commands (16 clients,
each the GM ending activations in an encounter of its own), through the page's form and
through the JSON API (their rows: bench/combat_command.py).
"""

import combat_command
import roll_floor
from combat_command import Combat
from harness import (
    ROLL_FIELDS,
    Bench,
    Row,
    Server,
    get,
    load,
    med,
    medians,
    ms,
    post,
    roll_check,
    verdict,
)


async def measure(bench: Bench, server: Server, seed: dict) -> list[Row]:
    plan, port, campaign = bench.plan, server.port, seed["rate"]["campaign"]
    sessions = seed["rate"]["players"]

    def health(i: int) -> bytes:
        return get(port, "/healthz")

    def roll(i: int) -> bytes:
        path = f"/campaigns/{campaign}/table/roll/"
        return post(port, path, sessions[i % len(sessions)], ROLL_FIELDS)

    # The same load of combat commands: client i is the GM (a session of its own) ending
    # activations in encounter i of the same campaign, so that no command is stale.
    n = plan.rate_clients
    fights = [Combat(port, seed["rate"]["gm"][i], seed["rate"]["encounters"][i]) for i in range(n)]
    combat_loads = {
        "form": (lambda i: fights[i].form(), lambda i, s, b: fights[i].form_answer(s, b)),
        "api": (lambda i: fights[i].api(), lambda i, s, b: fights[i].api_answer(s, b)),
    }
    await load(port, health, n, plan.warmup_seconds)
    await load(port, roll, n, plan.warmup_seconds)
    for requests, check in combat_loads.values():
        await load(port, requests, n, plan.warmup_seconds, check)
    rolls, healths = [], []
    combats: dict[str, list[dict]] = {kind: [] for kind in combat_loads}
    for rep in range(plan.reps):
        healths.append(await load(port, health, n, plan.rate_seconds))
        rolls.append(await load(port, roll, n, plan.rate_seconds, lambda i, s, b: roll_check(s, b)))
        for kind, (requests, check) in combat_loads.items():
            first = min(f.version for f in fights)
            combats[kind].append(await load(port, requests, n, plan.rate_seconds, check))
            combats[kind][-1]["versions"] = (first, max(f.version for f in fights))
        bench.say(
            f"  roll rate rep {rep + 1}/{plan.reps}: /healthz "
            f"{healths[-1]['rate']:.0f} req/s p99 {ms(healths[-1]['p99'])} ms; roll "
            f"{rolls[-1]['rate']:.0f} req/s p99 {ms(rolls[-1]['p99'])} ms"
            + (f"; failures {rolls[-1]['failures']}" if rolls[-1]["failures"] else "")
            + "".join(
                f"; combat ({kind}) {got[-1]['rate']:.0f} req/s p50 {ms(got[-1]['p50'])} "
                f"ms p99 {ms(got[-1]['p99'])} ms"
                + (f", failures {got[-1]['failures']}" if got[-1]["failures"] else "")
                for kind, got in combats.items()
            )
        )
    bench.combat["rate"] = {"rolls": rolls, **combats}
    rate, base_rate = med(rolls, "rate"), med(healths, "rate")
    p99, base_p99 = med(rolls, "p99"), med(healths, "p99")
    failures = sum(sum(r["failures"].values()) for r in rolls + healths)
    count = sum(r["count"] for r in rolls)
    errors = f"{failures} errors" if failures else "0 errors"
    errors += f" in {count:,} rolls"
    rows = [
        Row(
            name=f"roll POST req/s, {n} clients",
            value=f"{rate:,.0f} req/s",
            **medians(rolls),
            delivered=errors,
            baseline=f"/healthz {base_rate:,.0f} req/s",
            ratio=f"{rate / base_rate:.0%}",
            goal="≥ 50 % of /healthz req/s",
            ok=verdict(rate >= 0.5 * base_rate and not failures),
        ),
        Row(
            name=f"roll POST p99, {n} clients",
            value=f"{ms(p99)} ms",
            **medians(rolls),
            delivered=errors,
            baseline=f"/healthz p99 {ms(base_p99)} ms",
            ratio=f"+{p99 - base_p99:.1f} ms",
            goal="≤ /healthz p99 + 10 ms",
            ok=verdict(p99 <= base_p99 + 10 and not failures),
        ),
    ]
    # On servers of their own, started for them: the roll against its floor, and a combat
    # command on one process and on the other (its rows come with combat_rows).
    rows += await roll_floor.measure(bench, seed)
    await combat_command.measure_processes(bench, seed)
    return rows


NOTES = """\
- Roll rate: 16 keep-alive connections posting rolls back to back (16 players of one
  campaign that has no open streams), against GET /healthz with the same client. Latency
  is from writing a request to reading the whole response.
""" + roll_floor.NOTES
