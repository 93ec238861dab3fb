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
"""

import json
import re

from harness import Bench, Row, delivery, med, medians, ms, post, post_json, verdict

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
    return rows


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
  command's p50 and p99 over the roll's of the same repetitions."""
