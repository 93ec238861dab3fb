"""A combat command beside a roll (goal: p50 and p99 within 2x the roll's).

The GM ends the active NPC's activation in a seeded, started encounter (`Combat` tracks
the encounter's version, which each command needs). Its fan-out to 10 pages, measured in
bench/fanout.py right after the roll's at 10 pages on the one-process server; and its
answer under the roll-rate load of bench/roll_rate.py (16 clients, each ending
activations in an encounter of its own, right after the rolls), through the JSON API (the
command and its state as data: the goal) and through the page's form (the same command
answered with the re-rendered panel, 12 KB of HTML: information, no goal).

No run of its own: `Combat` is the command those two measurements send, and
`combat_rows` makes the table's rows of what they measured (`bench.combat`).

Also, after the roll rate (bench/roll_rate.py calls `measure_processes`): the same
command on one encounter sent to two granian processes of the benchmark's SQLite
database, started for it, at logs of about 100, 300 and 500 versions: answer and server
CPU when the process that gets the command made the version before it, against when the
other one did (goal: within 1.5×, at any length of log).
"""

import json
import re
from time import perf_counter

from harness import (
    QUICK,
    Bench,
    Client,
    Row,
    delivery,
    med,
    medians,
    ms,
    post,
    post_json,
    summary,
    verdict,
)
from processes import launch, server_pids, stop, tree_cpu_ns

# The goal compares the command (validated, stored, broadcast) with a roll: the fan-out row
# and the JSON API's answer. The form's answer adds rendering the GM's whole panel (about
# 12 KB of HTML, a roll's answer is under 1 KB): measured beside them, without a goal.
PANEL_NOTE = "none (the panel's rendering on top of the command; information)"
PANEL_VERSION = re.compile(rb'id="encounter-state"[^>]*?data-version="(\d+)"')


class Combat:
    """One encounter of two NPCs (seeded by bench/live_db.py) whose active combatant the GM
    keeps ending the activation of, each command made against the version the previous
    answer showed. Every command is an end_activation, so the active combatant follows
    from the version: the order, one step per version since the seeded start.

    `form()`/`form_answer()` are a phone's click (POST /encounters/<id>/command/ with
    HX-Request, answered with the re-rendered panel); `api()`/`api_answer()` the same
    command through the JSON API. An answer's check returns None when it was accepted and
    shows the next version, else the problem; a refused command's answer (409: the
    situation changed) tells the version to go on from."""

    def __init__(self, port: int, session: str, seeded: dict) -> None:
        self.port, self.session, self.id = port, session, seeded["id"]
        self.order = seeded["order"]
        self.start = (seeded["version"], self.order.index(seeded["active"]))
        self.version = seeded["version"]

    @property
    def active(self) -> str:
        version, index = self.start
        return self.order[(index + self.version - version) % len(self.order)]

    def command(self) -> dict:
        return {"type": "end_activation", "id": self.active}

    def form(self) -> bytes:
        fields = {"version": str(self.version)} | self.command()
        return post(self.port, f"/encounters/{self.id}/command/", self.session, fields, False)

    def form_answer(self, status: int, body: bytes) -> str | None:
        found = PANEL_VERSION.search(body)
        shown = int(found[1]) if found else None
        if status == 200 and shown == self.version + 1 and b"combat-error" not in body:
            self.version = shown
            return None
        if shown is not None:
            self.version = shown
        return f"HTTP {status}" + ("" if status != 200 else f", panel at v{shown}")

    def api(self) -> bytes:
        path = f"/api/v1/encounters/{self.id}/commands"
        return post_json(
            self.port, path, self.session, {"version": self.version, "command": self.command()}
        )

    def api_answer(self, status: int, body: bytes) -> str | None:
        try:
            data = json.loads(body)
        except ValueError:
            data = {}
        version = data.get("version") if isinstance(data, dict) else None
        if status == 200 and version == self.version + 1:
            self.version = version
            active = data.get("state", {}).get("active")
            return None if active == self.active else f"active {active}, not {self.active}"
        if isinstance(version, int):
            self.version = version
        return f"HTTP {status}"


class MapMove:
    """A move on the battle map (issue 27): the GM drags the last NPC of `fight`'s order
    between two points, as static/js/map.js posts it (update_combatant with x and y,
    through the page's form, answered with the panel). Each move is a version of the
    same encounter that leaves the active combatant as it was, so `fight` is told."""

    def __init__(self, fight: Combat) -> None:
        self.fight = fight

    def form(self) -> bytes:
        fight = self.fight
        fields = {"version": str(fight.version), "type": "update_combatant",
                  "id": fight.order[-1], "x": str(3 + fight.version % 2), "y": "1"}
        return post(fight.port, f"/encounters/{fight.id}/command/", fight.session, fields, False)

    def form_answer(self, status: int, body: bytes) -> str | None:
        fight = self.fight
        before = fight.version
        problem = fight.form_answer(status, body)
        version, index = fight.start  # the versions moved on, the activation did not
        fight.start = (version + fight.version - before, index)
        return problem


# Two processes (the "whichever process last changed its fight"): the log lengths
# (versions) at which the GM's command is timed, and the commands per repetition at each.
LENGTHS, QUICK_LENGTHS = (100, 300, 500), (20, 40)
PROCESS_COMMANDS, QUICK_PROCESS_COMMANDS = 40, 8
# Which process each command goes to, over and over: after "b, b" the first "a" is sent to
# the process that did not make the version before it (the other), the second "a" to the
# one that did (the same), and so on: the two kinds interleave, each process serves both.
PATTERN = ("a", "a", "b", "b")
PROCESSES_GOAL = 1.5  # the other process's command: p50 and CPU at most this × the same's


async def measure_processes(bench: Bench, seed: dict) -> None:
    """The GM's command (JSON API) on one encounter, sent to two granian processes of the
    same SQLite database: each command timed (its answer, and both servers' CPU over it)
    and counted as "same" when the process that got it made the version before it, else
    "other". At each log length the encounter is first grown there through one process."""
    plan = bench.plan
    quick = plan.rate_seconds <= QUICK.rate_seconds
    lengths = QUICK_LENGTHS if quick else LENGTHS
    per_rep = QUICK_PROCESS_COMMANDS if quick else PROCESS_COMMANDS
    seeded = seed["rate"]["processes"]
    servers = await launch(bench, ["combat-a", "combat-b"])
    try:
        by_name = dict(zip("ab", servers, strict=True))
        clients = {name: Client(server.port) for name, server in by_name.items()}
        pids = [pid for server in servers for pid in server_pids(server)]
        fight = Combat(servers[0].port, seeded["gm"], seeded)
        last: str | None = None  # the process that made the encounter's version
        failures: dict[str, int] = {}

        async def send(name: str) -> tuple[str, float, float] | None:
            """One command to process `name`: (kind, answer ms, CPU ms), None if refused."""
            nonlocal last
            fight.port = by_name[name].port
            raw = fight.api()
            cpu = tree_cpu_ns(pids)
            began = perf_counter()
            try:
                status, body = await clients[name].send(raw)
            except (OSError, TimeoutError) as error:
                failures[repr(error)] = failures.get(repr(error), 0) + 1
                return None
            took = (perf_counter() - began) * 1000
            spent = (tree_cpu_ns(pids) - cpu) / 1e6
            problem = fight.api_answer(status, body)
            if problem:
                failures[problem] = failures.get(problem, 0) + 1
                return None
            kind = "same" if last == name else "other"
            last = name
            return kind, took, spent

        results: dict[int, list[dict]] = {}
        for length in lengths:
            while fight.version < length:  # grown through one process (not timed)
                await send("a")
            for name in PATTERN:  # each process once more on the log as it is now
                await send(name)
            first = fight.version
            results[length] = []
            for _rep in range(plan.reps):
                times: dict[str, list[float]] = {"same": [], "other": []}
                cpus: dict[str, list[float]] = {"same": [], "other": []}
                for i in range(per_rep):
                    got = await send(PATTERN[i % len(PATTERN)])
                    if got:
                        kind, took, spent = got
                        times[kind].append(took)
                        cpus[kind].append(spent)
                results[length].append(
                    {
                        kind: summary(times[kind], 1)
                        | {"cpu_ms": sum(cpus[kind]) / max(len(cpus[kind]), 1)}
                        for kind in times
                    }
                    | {"versions": (first, fight.version)}
                )
            last_rep = results[length][-1]
            bench.say(
                f"  combat on two processes at v{first}-v{fight.version}: other process "
                f"p50 {ms(last_rep['other']['p50'])} ms, CPU {last_rep['other']['cpu_ms']:.1f} "
                f"ms; same process p50 {ms(last_rep['same']['p50'])} ms, CPU "
                f"{last_rep['same']['cpu_ms']:.1f} ms"
                + (f"; failures {failures}" if failures else "")
            )
        for client in clients.values():
            client.close()
    finally:
        logged = stop(servers)
    bench.combat["processes"] = {"lengths": results, "failures": failures, "logged": logged}


def processes_rows(bench: Bench) -> list[Row]:
    measured = bench.combat.get("processes")
    if not measured:
        return []
    rows = []
    failures = measured["failures"]
    errors = sum(failures.values())
    for length, reps in measured["lengths"].items():
        other = [r["other"] for r in reps]
        same = [r["same"] for r in reps]
        p50 = med(other, "p50") / med(same, "p50")
        cpu = med(other, "cpu_ms") / med(same, "cpu_ms")
        rows.append(
            Row(
                name=f"combat command on the other process, log of ~{length} versions "
                "(2 processes, 1 SQLite)",
                value=f"{ms(med(other, 'p50'))} ms, CPU {med(other, 'cpu_ms'):.1f} ms",
                **medians(other),
                delivered=(f"{errors} errors: {failures}; " if errors else "0 errors; ")
                + f"{sum(r['count'] for r in other)} commands to the other process and "
                f"{sum(r['count'] for r in same)} to the same, interleaved, at "
                f"v{reps[0]['versions'][0]}–v{reps[-1]['versions'][1]}"
                + (f"; servers logged: {measured['logged'][:300]}" if measured["logged"] else ""),
                baseline=f"same process: p50 {ms(med(same, 'p50'))}, p99 "
                f"{ms(med(same, 'p99'))} ms, CPU {med(same, 'cpu_ms'):.1f} ms",
                ratio=f"p50 ×{p50:.2f}, CPU ×{cpu:.2f}",
                goal=f"p50 and CPU ≤ {PROCESSES_GOAL}× the same process's",
                ok=verdict(p50 <= PROCESSES_GOAL and cpu <= PROCESSES_GOAL and not errors),
            )
        )
    return rows


def combat_rows(bench: Bench) -> list[Row]:
    """The combat command beside the roll measured in the same phase (its fan-out right
    after the roll's at the same page count, its load right after the roll's)."""
    plan, rows = bench.plan, []
    goal = "p50 and p99 ≤ 2× the roll's"

    def ratios(got: list[dict], roll: list[dict]) -> tuple[str, bool]:
        p50 = med(got, "p50") / med(roll, "p50")
        p99 = med(got, "p99") / med(roll, "p99")
        return f"p50 ×{p50:.2f}, p99 ×{p99:.2f}", p50 <= 2 and p99 <= 2

    fanout = bench.combat.get("fanout")
    size = plan.combat_pages
    name = f"combat command, fan-out to {size:,} pages (1 process)"
    if fanout:
        rolls = [r["roll"] for r in fanout]
        delivered, in_order = delivery(fanout, "command")
        refused = sum(r["refused"] for r in fanout)
        post_errors = [e for r in fanout for e in r["post_errors"]]
        all_there = in_order and not post_errors
        ratio, within = ratios(fanout, rolls)
        rows.append(
            Row(
                name=name,
                value=f"{plan.rolls[size]} commands × {len(fanout)}",
                **medians(fanout),
                delivered=delivered
                + (f"; {refused} streams refused/cut" if refused else "")
                + (f"; {len(post_errors)} POSTs failed: {post_errors[:2]}" * bool(post_errors))
                + f"; encounter at v{fanout[0]['versions'][0]}–v{fanout[-1]['versions'][1]}"
                + f"; own answer p50 {ms(med(fanout, 'answer_p50'))} ms "
                f"(roll {ms(med(rolls, 'answer_p50'))})"
                + f"; events of {max(r['event_bytes'] for r in fanout)} bytes "
                f"(roll {max(r['event_bytes'] for r in rolls)})",
                baseline=f"roll: p50 {ms(med(rolls, 'p50'))}, p99 {ms(med(rolls, 'p99'))} ms",
                ratio=ratio,
                goal=goal + ", all delivered in order",
                ok=verdict(within and all_there),
            )
        )
    elif "fanout_skipped" in bench.combat:
        rows.append(Row(name=name, value=bench.combat["fanout_skipped"], ok="skipped"))
    moves = bench.combat.get("map")
    name = f"map move (the GM drags a token), fan-out to {size:,} pages (1 process)"
    if moves:
        rolls = [r["roll"] for r in moves]
        delivered, in_order = delivery(moves, "move")
        post_errors = [e for r in moves for e in r["post_errors"]]
        ratio, within = ratios(moves, rolls)
        rows.append(
            Row(
                name=name,
                value=f"{plan.rolls[size]} moves × {len(moves)}",
                **medians(moves),
                delivered=delivered
                + (f"; {len(post_errors)} POSTs failed: {post_errors[:2]}" * bool(post_errors))
                + f"; own answer p50 {ms(med(moves, 'answer_p50'))} ms "
                f"(roll {ms(med(rolls, 'answer_p50'))})",
                baseline=f"roll: p50 {ms(med(rolls, 'p50'))}, p99 {ms(med(rolls, 'p99'))} ms",
                ratio=ratio,
                goal=goal + ", all delivered in order (issue 27)",
                ok=verdict(within and in_order and not post_errors),
            )
        )
    elif "fanout_skipped" in bench.combat:
        rows.append(Row(name=name, value=bench.combat["fanout_skipped"], ok="skipped"))
    rate = bench.combat.get("rate")
    if rate:
        rolls = rate["rolls"]
        for kind, label in (("form", "panel answer"), ("api", "JSON API")):
            got = rate[kind]
            failures: dict[str, int] = {}
            for r in got:
                for key, count in r["failures"].items():
                    failures[key] = failures.get(key, 0) + count
            errors = sum(failures.values())
            ratio, within = ratios(got, rolls)
            rows.append(
                Row(
                    name=f"combat command POST ({label}), {plan.rate_clients} clients",
                    value=f"{med(got, 'rate'):,.0f} req/s",
                    **medians(got),
                    delivered=(f"{errors} errors: {failures}" if errors else "0 errors")
                    + f" in {sum(r['count'] for r in got):,} commands; encounters at "
                    f"v{got[0]['versions'][0]}–v{got[-1]['versions'][1]}",
                    baseline=f"roll: p50 {ms(med(rolls, 'p50'))}, p99 "
                    f"{ms(med(rolls, 'p99'))} ms, {med(rolls, 'rate'):,.0f} req/s",
                    ratio=ratio,
                    goal=goal if kind == "api" else PANEL_NOTE,
                    # The panel's row is information: errors still fail it.
                    ok=verdict(within and not errors)
                    if kind == "api"
                    else verdict(False if errors else None),
                )
            )
    return rows + processes_rows(bench)


NOTES = """\
- Combat: two NPCs (same SIN, 5 m apart) that the GM commands; every command is the GM's
  "end activation" for the active one (validated, rolls the next one's stress dice, stored
  as a record with the campaign's next seq, broadcast like a roll), made against the
  version the previous answer showed. Its fan-out: the same pages and client as the
  roll's, POST /encounters/<id>/command/ (form fields version, type, id; HX-Request),
  right after the roll's run at that page count in each repetition; "own answer" is the
  POST's answer time there. Its load: 16 keep-alive clients, each the GM (own session) in
  an encounter of its own in the roll-rate campaign, right after the roll load of the same
  repetition; the form's answer is the re-rendered panel (checked to show the next
  version), the JSON API's (POST /api/v1/encounters/<id>/commands) the new version and
  state (checked: next version, the expected combatant active). Ratios are the combat
  command's p50 and p99 over the roll's of the same repetitions.
- Combat on two processes: two granian servers (one worker each, no Redis) on the
  benchmark's database, one more seeded encounter of the same two NPCs in the roll-rate
  campaign; the GM's end-of-activation through the JSON API, one command at a time on a
  keep-alive connection to each server. The encounter is grown through one process to
  about 100 versions (then 300, 500); there each process gets one command untimed, then
  40 per repetition are timed, sent to the processes in the order a, a, b, b, ...: a
  command is "other" when the process that made the version before it is not the one
  that gets it (its cached state is 2 versions old), "same" when it is; the two kinds
  interleave and each process serves both. Timed: the answer (from writing the request
  to reading it whole) and both servers' CPU over it (the sum of their threads'
  schedstat run time, read before and after). Ratio: the medians of the "other"
  commands over those of the "same" ones, p50 and CPU."""
