"""The Aoristos attack preview (issue 25: within 2x of the preview before it, c9c59e5).

GET /api/v1/encounters/<id>/preview?id=&target=&weapon=&aim=&mode=&shots=&area= (the
JSON API's preview, combat/api.py `preview`) now computes the exact distribution of the
attack's outcome over every die (rules/aoristos/combat/outcome.py `odds`). Timed over
HTTP, as the GM, for four attacks in a seeded fight (bench/live_db.py `preview_fight`:
one NPC target in a mail shirt and a helmet, cover on its right leg, its left arm
hidden): (a) a pistol's single shot at 15 m, no aim (one area die); (b) the same with
aim 2 and the head wanted (area hand 1B2F: a free choice); (c) a carbine's auto fire
"auto+2N" with base 0, magazine full; (d) a two-handed sword in both hands, in melee;
and the four in turn once more as the player who commands the attackers.

The baseline, in the same run: the same requests to the code as it was before the
change, commit c9c59e5, its tree extracted with `git archive` into the run's temporary
directory and served by granian as this one is (that tree's `core.serving`, the same
venv) on a database of its own, migrated and seeded by this bench/live_db.py with that
tree as the working directory. Each request goes to both servers one after the other
(which goes first alternates), so the machine's noise hits both alike. Without the
commit (a shallow clone) the rows have no baseline and say why.
"""

import asyncio
import json
import statistics
import subprocess
import sys
import urllib.parse
from time import perf_counter

from harness import (
    Bench,
    Client,
    Row,
    Server,
    db_script,
    free_port,
    get,
    ms,
    pct,
    site_env,
    start,
    verdict,
    wait_up,
)

COMMIT = "c9c59e5"  # the preview before issue 25: the torso's protection, no areas
GOAL = f"≤ 2× of {COMMIT}'s preview (p50)"
WARMUP = 5  # untimed requests of each kind, per server and session, first
TIMEOUT = 30  # seconds, per request

# (key, what the row says, the attacker (bench/live_db.py PREVIEW_ATTACKERS), its query)
REQUESTS = (
    ("a", "pistol 15 m, single shot, no aim", "pistol",
     {"weapon": "pistol", "aim": "", "mode": "", "shots": "", "area": ""}),
    ("b", "pistol 15 m, aim 2, head wanted (1B2F)", "pistol",
     {"weapon": "pistol", "aim": "2", "mode": "", "shots": "", "area": "head"}),
    ("c", "carbine 25 m, auto+2N, base 0", "carbine",
     {"weapon": "carbine", "aim": "", "mode": "auto+2N", "shots": "0", "area": ""}),
    ("d", "two-handed sword in both hands, melee", "sword",
     {"weapon": "two_handed_sword", "aim": "", "mode": "", "shots": "", "area": ""}),
)  # fmt: skip

# The old tree's own serving command, printed by that tree (its core.serving).
SERVING = (
    "import json, sys; from core.serving import granian_command; "
    "print(json.dumps(granian_command('127.0.0.1', int(sys.argv[1]))))"
)


def path(seeded: dict, attacker: str, query: dict) -> str:
    fields = {"id": seeded["attackers"][attacker], "target": seeded["target"]} | query
    return f"/api/v1/encounters/{seeded['id']}/preview?{urllib.parse.urlencode(fields)}"


def baseline_server(
    bench: Bench, env: dict, servers: dict[str, Server]
) -> tuple[Server | None, dict | None, str]:
    """The app at COMMIT, served on a database of its own: (server, its seeded fight,
    ""), or (None, None, why there is no baseline)."""
    root = bench.site
    try:
        found = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{COMMIT}^{{commit}}"],
            capture_output=True,
            text=True,
            timeout=30,
        ).returncode
    except (OSError, subprocess.SubprocessError):  # no git
        found = -1
    if found:
        why = f"no baseline: commit {COMMIT} is not in {root}'s history (a shallow clone?)"
        return None, None, why
    base = bench.workdir / COMMIT
    site = base / "site"
    site.mkdir(parents=True)
    (base / "data").mkdir()
    archive = subprocess.Popen(["git", "-C", str(root), "archive", COMMIT], stdout=subprocess.PIPE)
    extracted = subprocess.run(["tar", "-x", "-C", str(site)], stdin=archive.stdout, timeout=120)
    archive.stdout.close()
    if archive.wait(timeout=60) or extracted.returncode:
        return None, None, f"no baseline: git archive {COMMIT} | tar -x failed"
    # Its own database; the static files this run collected (the API renders no page).
    old_env = site_env(site, base) | {"STATIC_ROOT": env["STATIC_ROOT"]}
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v0"],
            cwd=site,
            env=old_env,
            check=True,
            timeout=300,
        )
        seeded = db_script(site, old_env, base, "preview", {})
        port = free_port()
        command = json.loads(
            subprocess.run(
                [sys.executable, "-c", SERVING, str(port)],
                cwd=site,
                env=old_env,
                capture_output=True,
                text=True,
                check=True,
                timeout=60,
            ).stdout
        )
        server = start(COMMIT, command, old_env, site, bench.workdir, port, granian=True)
        servers[COMMIT] = server  # stopped, and its log read, with the others
        wait_up(server)
    except (subprocess.SubprocessError, OSError, ValueError, RuntimeError) as error:
        return None, None, f"no baseline: {COMMIT} did not start ({str(error)[:200]})"
    return server, seeded, ""


class Side:
    """One server's requests: the four previews as the GM and as the player, on one
    keep-alive connection; latencies by (who, request) and repetition, the problems
    counted, and the first answer of each request (for what it showed)."""

    def __init__(self, name: str, port: int, seeded: dict) -> None:
        self.name = name
        self.client = Client(port)
        self.requests = {
            (who, key): get(port, path(seeded, attacker, query), seeded[who])
            for who in ("gm", "player")
            for key, _what, attacker, query in REQUESTS
        }
        self.times: dict[tuple[str, str], list[list[float]]] = {k: [] for k in self.requests}
        self.sent: dict[tuple[str, str], int] = dict.fromkeys(self.requests, 0)
        self.problems: dict[str, int] = {}
        self.answers: dict[tuple[str, str], dict] = {}

    def new_rep(self) -> None:
        for values in self.times.values():
            values.append([])

    async def send(self, who: str, key: str, timed: bool = True) -> None:
        began = perf_counter()
        try:
            status, body = await self.client.send(self.requests[who, key], TIMEOUT)
        except (OSError, TimeoutError) as error:
            problem = type(error).__name__
        else:
            elapsed = (perf_counter() - began) * 1000
            try:
                data = json.loads(body)
            except ValueError:
                data = {}
            data = data if isinstance(data, dict) else {}
            problem = None if status == 200 and data.get("ok") else f"HTTP {status}"
            if problem and (why := data.get("error") or data.get("why")):
                problem += f" ({str(why)[:80]})"
            if not problem and timed:
                self.times[who, key][-1].append(elapsed)
            self.answers.setdefault((who, key), {"bytes": len(body)} | data)
        if timed:
            self.sent[who, key] += 1
        if problem and timed:
            self.problems[problem] = self.problems.get(problem, 0) + 1

    def figures(self, who: str, keys: tuple[str, ...]) -> dict:
        """p50, p99 and max over these requests, per repetition, then their medians."""
        reps = [
            [t for key in keys for t in self.times[who, key][rep]]
            for rep in range(len(self.times[who, keys[0]]))
        ]
        reps = [values for values in reps if values]
        if not reps:
            return {"p50": float("nan"), "p99": float("nan"), "max": float("nan"), "count": 0}
        return {
            "p50": statistics.median(pct(values, 0.5) for values in reps),
            "p99": statistics.median(pct(values, 0.99) for values in reps),
            "max": statistics.median(max(values) for values in reps),
            "count": sum(len(values) for values in reps),
        }

    def failed(self) -> str:
        return ", ".join(f"{count} {problem}" for problem, count in self.problems.items())


def shown(answer: dict | None) -> str:
    """What an answer showed, in short: its size, the chance to hit, its hand, areas."""
    if not answer:
        return "no answer"
    areas = answer.get("areas")
    return f"{answer['bytes']:,} B, hit {answer.get('p_hit', '?')} %, {answer.get('hand', '?')}" + (
        f", {len(areas)} areas" if isinstance(areas, list) else ", no areas"
    )


async def measure(
    bench: Bench, server: Server, seed: dict, env: dict, servers: dict[str, Server]
) -> list[Row]:
    """The four previews as the GM (and in turn as the player), each sent to this server
    and to COMMIT's one after the other, `bench.plan.rebuild_samples` times per
    repetition (200; --quick 20), after a warm-up."""
    plan = bench.plan
    seeded = seed["preview"]
    began = perf_counter()
    old, old_seeded, note = await asyncio.to_thread(baseline_server, bench, env, servers)
    if old is None:
        bench.say(f"  preview: {note}")
    else:
        took = perf_counter() - began
        bench.say(f"  preview: {COMMIT} extracted, seeded and served in {took:.1f} s")
    sides = [Side("new", server.port, seeded)]
    if old is not None:
        sides.append(Side(COMMIT, old.port, old_seeded))
    keys = [key for key, *_ in REQUESTS]
    try:
        for side in sides:
            side.new_rep()
            for who in ("gm", "player"):
                for key in keys:
                    for _ in range(WARMUP):
                        await side.send(who, key, timed=False)
        samples = plan.rebuild_samples
        for rep in range(plan.reps):
            for side in sides:
                side.new_rep()
            for i in range(samples):
                turn = sides if i % 2 == 0 else sides[::-1]
                order = keys[i % len(keys) :] + keys[: i % len(keys)]
                for key in order:
                    for side in turn:
                        await side.send("gm", key)
                for side in turn:  # the player: one of the four in turn
                    await side.send("player", keys[i % len(keys)])
            new = sides[0].figures("gm", tuple(keys))
            bench.say(
                f"  preview {rep + 1}/{plan.reps}: as the GM p50 "
                + ", ".join(
                    f"({key}) {ms(pct(sides[0].times['gm', key][-1], 0.5))}"
                    + (f"/{ms(pct(sides[1].times['gm', key][-1], 0.5))}" if len(sides) > 1 else "")
                    for key in keys
                )
                + f" ms (new/{COMMIT})"
                + (f"; all four p50 {ms(new['p50'])} ms" if len(sides) == 1 else "")
            )
    finally:
        for side in sides:
            side.client.close()
        if old is not None:
            old.stop()
    bench.say(f"  preview: measured in {perf_counter() - began:.0f} s")
    rows = []
    lines = [(("gm",), key, what, (key,)) for key, what, *_ in REQUESTS]
    lines.append((("player",), "a-d", "(a)-(d) in turn, as the player", tuple(keys)))
    for (who,), label, what, asked in lines:
        mine = sides[0].figures(who, asked)
        errors = sum(sides[0].sent[who, key] for key in asked) - mine["count"]
        answer = sides[0].answers.get((who, asked[0]))
        name = f"preview ({label}) {what}" if label != "a-d" else f"preview {what}"
        delivered = f"{errors} errors / {mine['count'] + errors:,} answers" + (
            f" ({sides[0].failed()})" if errors else ""
        )
        if who == "gm":
            delivered += f"; answer {shown(answer)}"
        else:
            delivered += (
                "; p50 by request "
                + ", ".join(
                    f"({key}) {ms(sides[0].figures(who, (key,))['p50'])}"
                    + (f"/{ms(sides[1].figures(who, (key,))['p50'])}" if len(sides) > 1 else "")
                    for key in asked
                )
                + (f" ms (new/{COMMIT})" if len(sides) > 1 else " ms")
            )
        row = Row(
            name=name + " (JSON API)",
            value=f"{ms(mine['p50'])} ms",
            p50=ms(mine["p50"]),
            p99=ms(mine["p99"]),
            max=ms(mine["max"]),
            delivered=delivered,
            goal=GOAL,
        )
        if len(sides) == 1:
            row.baseline, row.ratio, row.ok = note, "–", "skipped"
        else:
            theirs = sides[1].figures(who, asked)
            old_errors = sum(sides[1].sent[who, key] for key in asked) - theirs["count"]
            ratio = mine["p50"] / theirs["p50"] if theirs["p50"] else float("nan")
            row.baseline = (
                f"{COMMIT}'s preview: p50 {ms(theirs['p50'])}, p99 {ms(theirs['p99'])} ms"
            )
            if who == "gm":
                row.baseline += f" (answer {shown(sides[1].answers.get((who, asked[0])))})"
            if old_errors:
                row.baseline += f"; {old_errors} errors ({sides[1].failed()})"
            row.ratio = f"×{ratio:.2f}" + (
                f" (p99 ×{mine['p99'] / theirs['p99']:.2f})" if theirs["p99"] else ""
            )
            row.ok = verdict(ratio <= 2 and not errors)  # nan <= 2 is False
        rows.append(row)
    return rows


NOTES = f"""\
- Attack preview (issue 25): GET /api/v1/encounters/<id>/preview (the JSON API) for four
  attacks in a started Aoristos fight seeded for it (bench/live_db.py `preview_fight`):
  an NPC target (mail shirt: torso 6, arms 4, legs 2; helmet: head 6; cover 3 on its
  right leg; its left arm hidden) and three attackers a player commands, weapons drawn,
  magazines full: (a) a pistol 15 m away, single shot, no aim; (b) the same, aim 2 and
  the head wanted (area hand 1B2F); (c) a carbine 25 m away, "auto+2N" with base 0;
  (d) a two-handed sword held in both hands, 1 m away. Timed from writing the request to
  its whole answer, on a keep-alive connection, as the GM (each request 200 times per
  repetition), and the four in turn as the player commanding the attackers (200 in all
  per repetition); 5 untimed of each first. Baseline, same run: the same requests to the
  app at commit {COMMIT} (`git archive` into the run's temporary directory, migrated and
  seeded on a database of its own with this bench/live_db.py, served by its own
  `core.serving.granian_command` from the same venv), each request sent to both servers
  one after the other, which first alternating. {COMMIT}'s preview took the torso's
  protection and no areas, so its answers differ (the row shows both); what compares is
  the time. Ratio: p50 over {COMMIT}'s p50 (p99s beside it); goal ≤ 2×."""
