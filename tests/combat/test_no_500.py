"""No user input answers 500 on any encounter page: every URL of combat/urls.py, for every
kind of encounter (an Aoristos, a Phobia and a T10 fight, the chronicle), GET and POST, as
the GM and as a player, with nothing, with nonsense and with plausible but wrong values, as
htmx and as a plain form. Refusals are 4xx; nothing is 5xx."""

import json

import pytest
from django.urls import reverse

from combat import services, urls
from combat.models import CatalogueItem, Encounter, MapPicture, NpcTemplate
from tests.combat.kinds import KINDS, make

pytestmark = pytest.mark.django_db

NAMES = [pattern.name for pattern in urls.urlpatterns]
NONSENSE = {
    "version": "x", "type": "¿?", "id": "c99", "target": "zz", "weapon": "sword",
    "source": "nonsense", "character": "abc", "template": "-1", "item_pk": "x",
    "name": "Z" * 300, "x": "NaN", "y": "1e999", "amount": "-5", "unit": "eons",
    "distance": "1e400", "modifier": "٣", "cover_torso": "x", "levels": ["a", "²"],
    "ids": ["c1", ""], "aim": "maybe", "kind": "spell", "next": "https://example.com/",
}


def inputs(made) -> list[tuple[dict, bool]]:
    """(data, as htmx) pairs: empty, nonsense, and a plausible form with bad values at the
    encounter's current version (a negative stat, 999999 minutes, a character as an NPC
    template, a stat block saved as a template)."""
    made.encounter.refresh_from_db()
    version = str(made.encounter.version)
    plausible = {
        "version": version, "type": "attack", "id": made.mine or "c1",
        "target": made.npc or "c2", "weapon": made.undrawn or "sword", "source": "block",
        "save_template": "1", "name": "Hund", "physique": "-3", "strength": "abc",
        "initiative": "99", "amount": "999999", "unit": "minutes", "distance": "-1",
    }
    character = {"version": version, "source": "character",
                 "character": str(made.character.pk), "side": "a"}
    template = {"version": version, "source": "template", "template": "999999"}
    # Numbers too large for the database, and a NUL (PostgreSQL stores none).
    large = {"version": "9" * 30, "source": "character", "character": "9" * 30,
             "template": "9" * 30, "type": "advance", "amount": "999999", "unit": "weeks",
             "id": "c1\x00", "name": "Hu\x00nd", "weapons": ["kniv\x00"]}
    nul = {"version": version, "source": "block", "save_template": "1", "name": "Hu\x00nd",
           "side": "b\x00"}
    return [({}, False), ({}, True), (NONSENSE, True), (NONSENSE, False), (plausible, True),
            (plausible, False), (character, True), (template, True), (large, True),
            (nul, True)]


def url_of(name: str, made) -> str:
    pattern = next(p for p in urls.urlpatterns if p.name == name)
    campaign = made.encounter.campaign_id
    if str(pattern.pattern).startswith("campaigns/"):
        args = [campaign]
        if "item_pk" in str(pattern.pattern):
            item = CatalogueItem.objects.filter(campaign_id=campaign).first()
            args.append(item.pk if item else 999999)
        return reverse(f"combat:{name}", args=args)
    if "<id:picture>" in str(pattern.pattern):  # the battle map's picture
        picture = MapPicture.objects.filter(encounter=made.encounter).first()
        key = picture.pk if picture else 999999
        return reverse(f"combat:{name}", args=[made.encounter.pk, key])
    return reverse(f"combat:{name}", args=[made.encounter.pk])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_no_input_answers_500(client, gm, alice, kind, name):
    made = make(kind, client, gm, alice)
    for user in (gm, alice):
        client.force_login(user)
        for data, htmx in inputs(made):
            headers = {"HX-Request": "true"} if htmx else {}
            url = url_of(name, made)
            answers = [client.get(url, data, headers=headers),
                       client.post(url, data, headers=headers)]
            if name.startswith("api_"):
                made.encounter.refresh_from_db()
                for command in (data, {"type": "add_combatant", "name": "Hu\x00nd", "npc": True}):
                    body = {"version": made.encounter.version, "command": command}
                    answers.append(client.post(url, json.dumps(body),
                                               content_type="application/json"))
            for answer in answers:
                assert answer.status_code < 500, (user.username, data, htmx, answer.status_code)
    # Nothing that was refused left a trace: no NPC template from a refused stat block.
    assert not NpcTemplate.objects.filter(block__physique=-3).exists()


def test_a_nul_character_never_reaches_the_log(client, gm, alice):
    """PostgreSQL stores no NUL in JSON or text (it answered 500): a form's NUL is dropped,
    the API refuses a command that holds one, and nothing is stored."""
    made = make("t10", client, gm, alice)
    encounter = made.encounter
    encounter.refresh_from_db()
    api = client.post(reverse("combat:api_command", args=[encounter.pk]),
                      json.dumps({"version": encounter.version, "command": {
                          "type": "add_combatant", "name": "Hu\x00nd", "npc": True}}),
                      content_type="application/json")
    assert api.status_code == 400
    assert "NUL" in api.json()["error"]
    encounter.refresh_from_db()
    added = client.post(reverse("combat:add", args=[encounter.pk]),
                        {"version": encounter.version, "source": "block", "name": "Hu\x00nd",
                         "side": "b\x00", "save_template": "1"}, headers={"HX-Request": "true"})
    assert added.status_code == 200
    state = services.folded(Encounter.objects.get(pk=encounter.pk)).state
    assert [(c.name, c.side) for c in state.combatants][-1] == ("Hund", "b")
    assert NpcTemplate.objects.get().name == "Hund"
