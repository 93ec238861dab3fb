"""50 writers (rolls, UP spends and undos) for 20 s on SQLite.

Errors, lost writes (checked in the database afterwards: bench/live_db.py check) and p99,
beside GET /healthz with as many clients.
"""

import asyncio
import contextlib
from time import perf_counter

from harness import (
    ROLL_FIELDS,
    Bench,
    Client,
    Row,
    Server,
    db_script,
    get,
    load,
    med,
    medians,
    ms,
    post,
    roll_check,
    summary,
    verdict,
)


async def writers_once(port: int, seed: dict, seconds: float) -> dict:
    """Every writer cycles roll, spend, roll, undo on its own keep-alive connection.
    A write is acknowledged when it answers 200 (and, for a roll, without a form error)."""
    campaign = seed["campaign"]
    key = seed["spend_key"]
    acked = {w["user"]: {"roll": 0, "spend": 0, "undo": 0} for w in seed["writers"]}
    sent = {w["user"]: {"roll": 0, "spend": 0, "undo": 0} for w in seed["writers"]}
    latencies: list[float] = []
    failures: dict[str, int] = {}
    stop_at = perf_counter() + seconds

    async def writer(w: dict) -> None:
        client = Client(port)
        step = 0
        pending_undo = False
        try:
            with contextlib.suppress(OSError):  # else counted as a failure below
                await client.connect()
            while perf_counter() < stop_at:
                if step % 2 == 0:
                    kind = "roll"
                    raw = post(
                        port, f"/campaigns/{campaign}/table/roll/", w["session"], ROLL_FIELDS
                    )
                else:
                    kind = "undo" if pending_undo else "spend"
                    path = f"/characters/{w['character']}/advancement/{kind}/"
                    raw = post(port, path, w["session"], {"key": key})
                step += 1
                sent[w["user"]][kind] += 1
                began = perf_counter()
                try:
                    status, body = await client.send(raw)
                except (OSError, TimeoutError) as error:
                    failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1
                    continue
                latencies.append((perf_counter() - began) * 1000)
                problem = (
                    roll_check(status, body)
                    if kind == "roll"
                    else (None if status == 200 else f"HTTP {status} on {kind}")
                )
                if problem:
                    failures[problem] = failures.get(problem, 0) + 1
                    continue
                acked[w["user"]][kind] += 1
                if kind != "roll":
                    pending_undo = kind == "spend"
        finally:
            client.close()

    began = perf_counter()
    await asyncio.gather(*(writer(w) for w in seed["writers"]))
    elapsed = perf_counter() - began
    return summary(latencies, elapsed) | {"failures": failures, "acked": acked, "sent": sent}


def lost_writes(result: dict, db: dict, before: dict) -> dict:
    """Compare what the server acknowledged with what the database holds (this run's
    share: the database's counts minus those before the run)."""
    lost = extra = ledger_mismatch = 0
    for user, acked in result["acked"].items():
        stored = db["rolls_per_actor"].get(user, 0) - before["rolls_per_actor"].get(user, 0)
        lost += max(0, acked["roll"] - stored)
        extra += max(0, stored - result["sent"][user]["roll"])
        ledger, old = db["ledgers"][user], before["ledgers"][user]
        for kind in ("spend", "undo"):
            stored = ledger[f"{kind}s"] - old[f"{kind}s"]
            if not acked[kind] <= stored <= result["sent"][user][kind]:
                ledger_mismatch += 1
    problems = [p for ledger in db["ledgers"].values() for p in ledger["problems"]]
    return {
        "lost": lost,
        "extra": extra,
        "ledger_mismatch": ledger_mismatch,
        "ledger_problems": problems,
        "seqs_ok": db["seqs_contiguous"] and db["event_seq_matches"],
        "rolls_in_db": db["rolls"],
    }


async def measure(bench: Bench, server: Server, seed: dict, env: dict) -> list[Row]:
    plan, port = bench.plan, server.port

    def health(i: int) -> bytes:
        return get(port, "/healthz")

    results, healths, checks = [], [], []
    campaign = seed["writers"]["campaign"]
    for rep in range(plan.reps):
        before = await asyncio.to_thread(
            db_script, bench.site, env, bench.workdir, "check", {"campaign": campaign}
        )
        healths.append(await load(port, health, plan.writers, plan.writer_baseline_seconds))
        result = await writers_once(port, seed["writers"], plan.writer_seconds)
        db = await asyncio.to_thread(
            db_script, bench.site, env, bench.workdir, "check", {"campaign": campaign}
        )
        checks.append(lost_writes(result, db, before))
        results.append(result)
        bench.say(
            f"  writers rep {rep + 1}/{plan.reps}: {result['count']} writes, p99 "
            f"{ms(result['p99'])} ms, failures {result['failures'] or 0}, "
            f"check {checks[-1]}"
        )
    failures: dict[str, int] = {}
    for result in results:
        for key, count in result["failures"].items():
            failures[key] = failures.get(key, 0) + count
    count = sum(r["count"] for r in results)
    errors = sum(failures.values())
    p99 = med(results, "p99")
    lost = sum(c["lost"] for c in checks)
    extra = sum(c["extra"] for c in checks)
    mismatch = sum(c["ledger_mismatch"] for c in checks)
    problems = [p for c in checks for p in c["ledger_problems"]]
    seqs_ok = all(c["seqs_ok"] for c in checks)
    consistent = not (lost or extra or mismatch or problems) and seqs_ok
    n, seconds = plan.writers, f"{plan.writer_seconds:g} s"
    acked = sum(a["roll"] for r in results for a in r["acked"].values())
    return [
        Row(
            name=f"{n} writers, {seconds}: errors and p99",
            value=f"{med(results, 'rate'):,.0f} writes/s",
            **medians(results),
            delivered=(f"{errors} errors: {failures}" if errors else "0 errors")
            + f" in {count:,} writes",
            baseline=f"/healthz, {n} clients: p99 {ms(med(healths, 'p99'))} ms, "
            f"{med(healths, 'rate'):,.0f} req/s",
            ratio=f"×{p99 / med(healths, 'p99'):.1f}",
            goal="0 errors (5xx, refused, dropped), p99 ≤ 100 ms",
            ok=verdict(errors == 0 and p99 <= 100),
        ),
        Row(
            name=f"{n} writers, {seconds}: lost writes",
            value=f"{lost} lost",
            delivered=f"{acked:,} acknowledged rolls; seqs "
            + ("contiguous" if seqs_ok else "NOT contiguous")
            + (
                "; ledgers consistent"
                if not (mismatch or problems)
                else f"; ledger: {mismatch} count mismatches, problems {problems[:3]}"
            )
            + (f"; {extra} unacknowledged rolls stored" if extra else ""),
            goal="0 lost, seqs 1..n, ledger consistent",
            ok=verdict(consistent),
        ),
    ]


NOTES = """\
- Writers: each writer cycles roll, spend, roll, undo (one skill) on its own connection;
  afterwards the database is checked: each writer's acknowledged rolls stored, the
  campaign's sequence numbers 1..n, each ledger's dp_before/dp_after chain, levels and
  spend/undo counts against what was acknowledged. Baseline: /healthz with as many clients."""
