"""The sheet's damage rows of a rule system whose combat engine draws them
(``damage_sheet``: Phobia's Trauma, Smärta and Blodförlust, phobia-utdrag.txt lines
164-172, 1017-1122), with what the character took in its campaign's latest fight.

The wounds are the character's in the newest fight of its campaign that has it; the
next fight it joins starts from them (`combat.services.last_body`). Nothing here knows a rule
system: the engine draws the rows, its ``_damage_sheet.html`` shows them. The cost is
flat: one query for the campaign's newest fights with the character (the filter in the
database: `combat.services.fights_of`) and the newest one's folded state (this
process's cache, or one read of its log).
"""

from characters.models import Character
from rules.engine import engine_for
from rules.errors import RulesError


def damage_context(character: Character, house: dict) -> dict | None:
    """What the sheet's damage card shows, or None when the character's rule system has
    no engine that draws damage rows. `house`: the campaign's house rules (or the
    system's defaults). ``sheet``: the engine's plain data; ``encounter``: the fight the
    wounds come from (None: no fight has the character yet, every box is empty);
    ``template``: the engine's template for the card."""
    try:
        engine = engine_for(character.rule_system)
    except RulesError:
        return None
    draw = getattr(engine, "damage_sheet", None)
    if draw is None:
        return None
    context = {
        "template": f"{engine.template}/_damage_sheet.html",
        "encounter": None,
        "sheet": None,
    }
    if character.campaign_id is not None:
        from combat import services  # combat builds on characters

        for encounter, state in services.character_fights(
            character.campaign_id, character.pk, engine
        ):
            sheet = draw(state, character.pk, house)
            if sheet["recorded"]:
                return context | {"encounter": encounter, "sheet": sheet}
    return context | {"sheet": draw(None, character.pk, house)}


def latest_body(character, campaign_id: int) -> tuple[dict, bool]:
    """What the character's newest fight in the campaign left on it (its engine's body:
    {} unhurt or in none) and whether that fight goes on: one query for the fights and the
    newest one's folded state (`combat.services.latest_body`)."""
    from combat import services  # combat builds on characters

    try:
        engine = engine_for(character.rule_system)
    except RulesError:
        return {}, False
    return services.latest_body(campaign_id, engine, character.pk)
