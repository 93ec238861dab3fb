"""The sheet's body (issue 9): a figure of the six hit areas with their state and the
armour worn on each, the numbers of the character's body in the campaign's chronicle
(rules/aoristos/aftermath), and a timeline of what happened to it and why.

The chronicle is only read here: the GM's chronicle page makes it and gives each
character a body. The cost is flat: the chronicle's row, its folded state (this process's
cache, or one read of its log) and one query for the timeline's records.
"""

from django.urls import reverse

from characters.models import Character
from rules.aoristos.combat.gear import AREAS, LIMBS
from rules.aoristos.equipment import protection, total_armour
from rules.engine import Viewer, decode, engine_for
from rules.errors import RulesError

TIMELINE = 20  # entries on the page; the printed sheet shows the newest 8 (site.css)
SCAN = 40  # the newest records concerning the body read for them (one query)


def worn_armour(items, catalogue: dict) -> list:
    """The armour a character carries from its catalogue (as combat equips it:
    `combat.services.character_gear`), each kind once; shields are skipped by
    `protection`."""
    known = catalogue.get("armour", {})
    keys = dict.fromkeys(
        item.catalogue.partition(":")[2] for item in items if item.catalogue.startswith("armour:")
    )
    return [known[key] for key in keys if key in known]


def figure(pieces: list, body: dict | None) -> list[dict]:
    """The six hit areas (p. 9) with their armour (p. 12), and with a body the state of
    each limb (p. 14: head and torso are never broken) and what still bleeds there."""
    limbs = {limb["area"]: limb["state"] for limb in body["limbs"]} if body else {}
    wounds = body["wounds"] if body else []
    return [
        {
            "area": area,
            "limb": area in LIMBS,
            "state": limbs.get(area, "ok") if body else None,
            "armour": protection(pieces, area),
            "bleeding": sum(w["bleeding"] for w in wounds if w["area"] == area),
        }
        for area in AREAS
    ]


def timeline(chronicle, engine, result, body_id: str, viewer: Viewer) -> list[dict]:
    """What happened to the body, newest first, at most TIMELINE entries: each a log line
    of the chronicle's (the engine's `describe` of the record's events of this body only,
    so a line about another character never shows), its time in the chronicle and the
    record it came from. Records undone by the GM are left out. Reads the newest SCAN
    records concerning the body in one query, so a body with more lines than that in
    its history shows the newest ones."""
    from combat.services import records_concerning

    applied = set(result.applied)
    history = reverse("table:history", args=[chronicle.campaign_id])
    entries: list[dict] = []
    for version, seq, stored, created_at in records_concerning(chronicle.pk, body_id, limit=SCAN):
        if version not in applied:
            continue
        try:
            mine = [
                decode(event, engine.event_types)
                for event in stored
                if isinstance(event, dict) and event.get("id") == body_id
            ]
            described = engine.describe(result.state, mine, viewer) if mine else []
        except RulesError:  # a record this engine no longer reads: the chronicle shows it
            continue
        # Each line carries its time in the chronicle (a summing line: its last one's).
        lines = [(line.get("at") or line.get("last"), line) for line in described]
        # Newest first within the record too: a summing line ("15 more like that") is
        # described last, whatever its time. Lines of one time stay newest first.
        lines.reverse()
        lines.sort(key=lambda pair: pair[0] or "", reverse=True)
        for at, line in lines:
            entries.append(
                {
                    "lines": [line],
                    "at": at,
                    "version": version,
                    "seq": seq,
                    "created_at": created_at,
                    # The table's history from this record on, scrolled to it.
                    "url": f"{history}?before={seq + 1}#roll-{seq}",
                }
            )
            if len(entries) == TIMELINE:
                return entries
    return entries


def body_context(character: Character, items, catalogue: dict, *, is_gm: bool) -> dict:
    """What the sheet's body section shows. `status`: "ok" (the body is in the
    chronicle), "no_campaign", "no_chronicle" (the rule system keeps none, or the GM has
    not opened it yet) or "no_body" (the GM's chronicle page has not added the character
    yet)."""
    try:
        pieces = worn_armour(items, catalogue)
        worn = [piece.name for piece in pieces if not piece.shield]  # a shield is no armour
        armour = {"total": total_armour(pieces), "pieces": worn}
    except RulesError:  # another rule system's catalogue
        pieces, armour = [], {"total": 0, "pieces": []}
    context = {"status": "no_campaign", "body": None, "timeline": [], "armour": armour}
    if character.campaign_id is not None:
        context |= read_body(character, is_gm=is_gm)
    context["figure"] = figure(pieces, context["body"])
    return context


def read_body(character: Character, *, is_gm: bool) -> dict:
    from combat import services
    from combat.models import Encounter

    try:
        engine = engine_for(character.campaign.rule_system, Encounter.Kind.CHRONICLE)
    except RulesError:
        return {"status": "no_chronicle"}
    chronicle = services.chronicle_of(character.campaign_id)
    if chronicle is None:
        return {"status": "no_chronicle"}
    found = {
        "status": "no_body",
        "chronicle_url": chronicle.get_absolute_url(),
        "line_template": f"{engine.template}/_line.html",
    }
    result = services.folded(chronicle, engine)
    viewer = services.GM if is_gm else services.PLAYERS
    body_id = services.body_id(character.pk)
    body = next(
        (b for b in engine.view(result.state, viewer)["bodies"] if b["id"] == body_id), None
    )
    if body is None:
        return found
    return found | {
        "status": "ok",
        "body": body,
        "timeline": timeline(chronicle, engine, result, body_id, viewer),
    }
