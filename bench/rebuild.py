"""Rebuilding an encounter's state from its log (goal: under 50 ms).

With 500 events, and with 500 records, in a Django script (bench/live_db.py rebuild):
forget the cached state, then fold the log (read, JSON decode, replay), beside reading
the same rows undecoded.
"""

import asyncio

from harness import Bench, Row, db_script, med, ms, verdict

REBUILD_EVENTS = 500  # an encounter with at least this many events in its log
REBUILD_RECORDS = 500  # ... and one (the same, grown) with this many records


async def measure(bench: Bench, env: dict) -> list[Row]:
    """Rebuilding an encounter's state from its log, in a Django script (live_db.py)
    beside reading the same rows undecoded."""
    arguments = {
        "events": REBUILD_EVENTS,
        "records": REBUILD_RECORDS,
        "samples": bench.plan.rebuild_samples,
        "reps": bench.plan.reps,
    }
    result = await asyncio.to_thread(
        db_script, bench.site, env, bench.workdir, "rebuild", arguments
    )
    for goal in ("events", "records"):
        got = result[goal]
        bench.say(
            f"  rebuild {got['records']} records / {got['events']} events: fold p50 "
            + ", ".join(ms(r["fold_p50"]) for r in got["reps"])
            + " ms; reading the rows p50 "
            + ", ".join(ms(r["raw_p50"]) for r in got["reps"])
            + " ms"
        )
    rows = []
    for goal_kind, what in (("events", "event"), ("records", "record")):
        got = result[goal_kind]
        reps = got["reps"]
        part = {key: med(reps, f"{key}_p50") for key in ("raw", "json", "records", "fold")}
        p50, p99 = part["fold"], med(reps, "fold_p99")
        target = REBUILD_EVENTS if goal_kind == "events" else REBUILD_RECORDS
        rows.append(
            Row(
                name=f"rebuild a {target}-{what} encounter from its log",
                value=f"{p50:.1f} ms",
                p50=ms(p50),
                p99=ms(p99),
                max=ms(med(reps, "fold_max")),
                delivered=f"{got['records']:,} records, {got['events']:,} events, "
                f"{got['json_bytes'] / 1024:.0f} KiB JSON; p50 parts: read "
                f"{part['raw']:.1f} + JSON {part['json'] - part['raw']:.1f} + decode "
                f"{part['records'] - part['json']:.1f} + replay "
                f"{part['fold'] - part['records']:.1f} ms",
                baseline=f"reading the rows undecoded: p50 {ms(part['raw'])}, "
                f"p99 {ms(med(reps, 'raw_p99'))} ms",
                ratio=f"×{p50 / part['raw']:.0f}" if part["raw"] else "–",
                goal="< 50 ms (p50 and p99)",
                ok=verdict(p50 < 50 and p99 < 50),
            )
        )
    return rows


NOTES = """\
- Rebuild: an encounter of the same two NPCs grown by "end activation" until its log
  holds 500 events (then 500 records); in one process, `combat.services.forget()` then
  `folded(encounter)` (read, JSON decode, replay), timed 200 times per repetition,
  interleaved with reading the same rows through a cursor without decoding (the
  baseline), through the ORM (JSON decoded) and with `combat.services.records` (decoded
  into events): the "parts" are the differences of those medians."""
