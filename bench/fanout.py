"""Fan-out: one roll POSTed, its arrival on every open page's stream (10/100/1,000 pages).

p50/p99/max from the POST being written to the event's arrival, and delivery (events
received / expected; every stream got every roll, in order). One server process
(in-process broadcaster), and two processes with Redis (pages split evenly, rolls posted
to the first). Baseline: the minimal server, same client, same run.

At one page count (the plan's `combat_pages`), right after the roll's run there, the
combat command's fan-out on the one-process server (its row: bench/combat_command.py).
"""

import asyncio

from combat_command import Combat, MapMove
from harness import Action, Bench, Row, Target, delivery, fanout_once, med, medians, ms, verdict


async def measure(bench: Bench, seed: dict, baseline: Target, targets: list[Target]) -> list[Row]:
    plan = bench.plan
    if plan.combat_pages not in plan.sizes:
        note = f"skipped ({plan.combat_pages} pages not among the sizes)"
        bench.combat["fanout_skipped"] = note
    results: dict[tuple[str, int], list[dict]] = {}
    players = seed["fanout"]["players"]
    # A combat command on the one-process server, at one page count, right after the
    # roll there: the GM ends the active NPC's activation in the fan-out campaign.
    single = targets[0]
    fight = Combat(single.post_port, seed["fanout"]["gm"], seed["fanout"]["encounter"])
    command = Action(fight.form, fight.form_answer)
    drag = MapMove(fight)
    move = Action(drag.form, drag.form_answer)
    combat_runs = bench.combat.setdefault("fanout", [])
    map_runs = bench.combat.setdefault("map", [])
    for target in [baseline, *targets]:  # warm up: first requests, templates, threads
        await fanout_once(target, players[:4], 3)
    await fanout_once(single, players[:4], 3, command)
    for rep in range(plan.reps):
        for size in plan.sizes:
            for target in [baseline, *targets]:
                result = await fanout_once(target, players[:size], plan.rolls[size])
                results.setdefault((target.name, size), []).append(result)
                bench.say(
                    f"  fan-out rep {rep + 1}/{plan.reps}, {size} pages, {target.name}: "
                    f"p50 {ms(result['p50'])} ms, p99 {ms(result['p99'])} ms, "
                    f"{result['delivered']}/{result['expected']} delivered, "
                    f"{result['incomplete']} streams incomplete, "
                    f"events of {result['event_bytes']} bytes"
                    + (
                        f", streams refused: {result['stream_errors']}"
                        if result["stream_errors"]
                        else ""
                    )
                    + (
                        f", roll errors: {result['post_errors'][:3]}"
                        if result["post_errors"]
                        else ""
                    )
                )
                await asyncio.sleep(plan.pause)
            if size == plan.combat_pages:
                first = fight.version
                result = await fanout_once(single, players[:size], plan.rolls[size], command)
                result["versions"] = (first, fight.version)
                result["roll"] = results[(single.name, size)][-1]  # just before, same pages
                combat_runs.append(result)
                bench.say(
                    f"  fan-out rep {rep + 1}/{plan.reps}, {size} pages, combat command: "
                    f"p50 {ms(result['p50'])} ms, p99 {ms(result['p99'])} ms, "
                    f"{result['delivered']}/{result['expected']} delivered, "
                    f"{result['incomplete']} streams incomplete, "
                    f"events of {result['event_bytes']} bytes"
                    + (f", errors: {result['post_errors'][:3]}" if result["post_errors"] else "")
                )
                await asyncio.sleep(plan.pause)
                # A move on the battle map: the same encounter, the same pages.
                result = await fanout_once(single, players[:size], plan.rolls[size], move)
                result["roll"] = combat_runs[-1]["roll"]
                map_runs.append(result)
                bench.say(
                    f"  fan-out rep {rep + 1}/{plan.reps}, {size} pages, map move: "
                    f"p50 {ms(result['p50'])} ms, p99 {ms(result['p99'])} ms, "
                    f"{result['delivered']}/{result['expected']} delivered"
                    + (f", errors: {result['post_errors'][:3]}" if result["post_errors"] else "")
                )
                await asyncio.sleep(plan.pause)
    rows = []
    for target, factor in [(t, 1.5 if len(t.stream_ports) == 1 else 3.0) for t in targets]:
        for size in plan.sizes:
            got = results[(target.name, size)]
            base = results[(baseline.name, size)]
            p99, base_p99 = med(got, "p99"), med(base, "p99")
            delivered, all_there = delivery(got, "roll")
            ratio = p99 / base_p99 if base_p99 else float("inf")
            refused = sum(r["refused"] for r in got)
            errors = sorted({e for r in got for e in r["stream_errors"]})
            post_errors = sum(len(r["post_errors"]) for r in got)
            rows.append(
                Row(
                    name=f"fan-out, {target.name}, {size:,} pages",
                    value=f"{plan.rolls[size]} rolls × {plan.reps}",
                    **medians(got),
                    delivered=delivered
                    + (f"; {refused} streams refused/cut: {errors[:2]}" if refused else "")
                    + (f"; {post_errors} roll POSTs failed" if post_errors else ""),
                    baseline=f"p99 {ms(base_p99)} ms (p50 {ms(med(base, 'p50'))})",
                    ratio=f"×{ratio:.2f}",
                    goal=f"p99 ≤ {factor}× baseline, all delivered in order",
                    ok=verdict(ratio <= factor and all_there),
                )
            )
    if len(targets) == 1:  # no Redis
        rows += [
            Row(
                name=f"fan-out, Redis, 2 processes, {size:,} pages",
                value=bench.redis_note,
                goal="p99 ≤ 3.0× baseline, all delivered in order",
                ok="skipped",
            )
            for size in plan.sizes
        ]
    return rows


NOTES = """\
- Fan-out: every page is its own connection and user holding GET /live/campaigns/<id>/events;
  rolls (POST /campaigns/<id>/table/roll/, hand 1B, as the GM) are posted one at a time,
  each after the previous reached every stream; latency runs from writing the POST to the
  arrival of the event's last byte on each stream, timed in the one client process
  (perf_counter), so it includes the client's own work on up to 1,000 sockets, as the
  baseline's does. Baseline: bench/minimal_sse.py (stdlib asyncio, one loop, writes the
  same-size event to every stream). Delivered counts events received out of pages × rolls;
  a stream refused (429/503) or cut off counts as not delivered. "In order": every stream
  received exactly the rolls' sequence numbers, in order.
- Redis: two granian processes with REDIS_URL on the same SQLite database; pages split
  evenly, rolls posted to the first."""
