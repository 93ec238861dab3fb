"""The chronicle (issue 9: under 1 s): the GM advances it a week, pages open.

The GM advances the campaign's chronicle a week for six wounded characters (two
unstable, 5 organtrauma, hourly healing tests) through the JSON API, with 10 of the
campaign's pages open: from the POST until its answer (the advance decided and stored)
and until every page got its stream event. Each advance in a chronicle of its own,
seeded in the same state (bench/live_db.py); right before it, rolls to the same pages:
the baseline. The events each advance stored are counted in the database afterwards.
"""

import asyncio
import json
import statistics

from harness import (
    Action,
    Bench,
    Row,
    Server,
    Target,
    db_script,
    fanout_once,
    med,
    ms,
    post_json,
    verdict,
)

ADVANCE_WEEK = {"type": "advance", "amount": 1, "unit": "weeks"}


class Advance:
    """The GM's "advance 1 week" in one seeded chronicle (bench/live_db.py
    `wounded_chronicle`), through the JSON API, made once against the seeded version; its
    answer must show the next version. `answer`: the answer's size and log lines."""

    def __init__(self, port: int, session: str, seeded: dict) -> None:
        self.port, self.session, self.seeded = port, session, seeded
        self.answer: dict = {}

    def request(self) -> bytes:
        path = f"/api/v1/encounters/{self.seeded['id']}/commands"
        body = {"version": self.seeded["version"], "command": ADVANCE_WEEK}
        return post_json(self.port, path, self.session, body)

    def check(self, status: int, body: bytes) -> str | None:
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        data = data if isinstance(data, dict) else {}
        self.answer = {"bytes": len(body), "lines": len(data.get("lines") or [])}
        if status == 200 and data.get("version") == self.seeded["version"] + 1:
            return None
        return f"HTTP {status}" + (f" ({data['error']})" if data.get("error") else "")


async def measure(bench: Bench, server: Server, seed: dict, env: dict) -> list[Row]:
    """The GM advances the chronicle a week for six wounded characters (issue 9: under
    1 s, stored and broadcast), each time in a chronicle of its own seeded in the same
    state, with the campaign's pages open; right before, rolls to the same pages (the
    baseline). The first chronicle warms up (the engine's first command, its log
    lines' template) and is not counted."""
    plan, port = bench.plan, server.port
    gm = seed["fanout"]["gm"]
    pages = seed["chronicle"]["players"]
    runs = []
    for i, seeded in enumerate(seed["chronicle"]["chronicles"]):
        cid = seeded["campaign"]
        target = Target(
            f"chronicle {i}",
            [port],
            port,
            f"/live/campaigns/{cid}/events?after={{after}}",
            f"/campaigns/{cid}/table/roll/",
            gm,
            {"seq": seeded["seq"]},
        )
        rolls = await fanout_once(target, pages, plan.chronicle_rolls)
        await asyncio.sleep(plan.pause)
        advance = Advance(port, gm, seeded)
        result = await fanout_once(
            target, pages, 1, Action(advance.request, advance.check), timeout=60
        )
        result |= {"roll": rolls, "answer": advance.answer, "id": seeded["id"]}
        if i:
            runs.append(result)
        bench.say(
            f"  chronicle {i}"
            + (" (warm-up)" if not i else f"/{len(runs)}")
            + f": advance stored (answered) in {ms(result['answer_p50'])} ms, on all "
            f"{len(pages)} pages in {ms(result['max'])} ms "
            f"({result['delivered']}/{result['expected']} delivered, event of "
            f"{result['event_bytes']:,} bytes); rolls just before: p50 "
            f"{ms(rolls['p50'])} ms, answer {ms(rolls['answer_p50'])} ms"
            + (f"; errors {result['post_errors'][:2]}" if result["post_errors"] else "")
            + (f"; roll errors {rolls['post_errors'][:2]}" if rolls["post_errors"] else "")
        )
        await asyncio.sleep(plan.pause)
    name = f"chronicle: advance 1 week, 6 wounded, {len(pages)} pages (JSON API)"
    if not runs:
        return [Row(name=name, value="no chronicle seeded", ok="skipped")]
    stored = await asyncio.to_thread(
        db_script,
        bench.site,
        env,
        bench.workdir,
        "chronicle",
        {"encounters": [r["id"] for r in runs]},
    )
    for run in runs:
        run["stored"] = stored[str(run["id"])]
    counts = [r["stored"]["events"] for r in runs]
    kinds: dict[str, int] = {}
    for run in runs:
        for kind, count in run["stored"]["kinds"].items():
            kinds[kind] = kinds.get(kind, 0) + count
    bench.say(
        "  chronicle: events per advance "
        + ", ".join(str(c) for c in counts)
        + f"; in all {kinds}; living bodies before → after: "
        + ", ".join(f"{r['stored']['alive_before']}→{r['stored']['alive_after']}" for r in runs)
    )
    errors = [e for r in runs for e in r["post_errors"]]
    delivered = sum(r["delivered"] for r in runs)
    expected = sum(r["expected"] for r in runs)
    incomplete = sum(r["incomplete"] for r in runs)
    all_there = delivered == expected and not incomplete and not errors
    # An advance is done when it is stored (its answer came) and on every page.
    done = [max(r["answer_p50"], r["max"]) for r in runs]
    done = [d for d in done if d == d]  # not nan: the POST failed or no page got it
    answers = [r["answer_p50"] for r in runs if r["answer_p50"] == r["answer_p50"]]
    everywhere = [r["max"] for r in runs if r["max"] == r["max"]]
    rolls = [r["roll"] for r in runs]
    median = statistics.median(done) if len(done) == len(runs) else float("nan")
    answered = statistics.median(answers) if answers else float("nan")
    arrived = statistics.median(everywhere) if everywhere else float("nan")
    roll_p50 = med(rolls, "p50")
    per_advance = ", ".join(
        f"{count / len(runs):.1f} {kind}"
        for kind, count in sorted(kinds.items(), key=lambda kv: -kv[1])
    )
    return [
        Row(
            name=name,
            value=f"{ms(median)} ms",
            p50=ms(median),
            max=ms(max(done, default=float("nan"))),
            delivered=f"{delivered:,}/{expected:,}"
            + (
                "; every page got every advance"
                if not incomplete
                else f"; {incomplete} streams incomplete"
            )
            + (f"; {len(errors)} POSTs failed: {errors[:2]}" if errors else "")
            + f"; stored (the answer) p50 {ms(answered)}, "
            f"max {ms(max(answers, default=float('nan')))} ms; on the last page p50 "
            f"{ms(arrived)}, max {ms(max(everywhere, default=float('nan')))} ms"
            + f"; {statistics.median(counts):g} events per advance "
            f"({min(counts)}–{max(counts)}; per advance {per_advance}); living bodies "
            + ", ".join(f"{r['stored']['alive_before']}→{r['stored']['alive_after']}" for r in runs)
            + f"; {len(runs)} advance{'s' * (len(runs) != 1)}; events of "
            f"{max(r['event_bytes'] for r in runs):,} bytes "
            f"(roll {max(r['event_bytes'] for r in rolls)})",
            baseline=f"roll to the same pages just before: p50 {ms(roll_p50)} ms, "
            f"answer p50 {ms(med(rolls, 'answer_p50'))} ms",
            ratio=f"×{median / roll_p50:.1f}" if roll_p50 else "–",
            goal="< 1 s stored and on every page (median)",
            ok=verdict(median < 1000 and all_there),  # nan < 1000 is False
        )
    ]


NOTES = """\
- Chronicle: a campaign of its own per advance, with 10 players (one page each), six
  characters and its chronicle, seeded by the GM's commands (bench/live_db.py): a body
  per character, each wounded as a fight leaves it (torso 6, 6, 4, 3, left leg 5, right
  arm 3: bleeding, organtrauma, a broken leg; the fight's survival rolls survived), the
  two torso 6s bandaged at once (first aid: bleed rate 5 → 1; 5 organtrauma: unstable,
  a healing test every hour) and in hospital care. The GM posts "advance 1 week"
  (POST /api/v1/encounters/<id>/commands, session and CSRF token as the pages send them):
  the engine rolls every bleeding tick, survival roll and healing test in the week, the
  record is stored and broadcast like a roll. Timed from writing the POST to its answer
  ("stored") and to the event's arrival on the last of the pages (the result); the first
  chronicle warms up and is not counted. Baseline: rolls posted to the same pages right
  before each advance. The events each advance stored are counted in the database."""
