"""The attack preview tells a player nothing of what they do not command (issue 25, item
7): asked for an NPC's attack, the page and the API refuse before the engine is asked,
with one and the same answer whatever the NPC carries, has drawn or stands; the player's
own character still previews, and the GM previews anyone's."""

import re

import pytest
from django.urls import reverse

from tests.combat.kinds import make

pytestmark = pytest.mark.django_db

FIGHTS = ("aoristos", "phobia", "t10")
# What each system's own attack form adds to the query (Aoristos aim, T10 distance).
EXTRA = {"aoristos": {"aim": "0"}, "phobia": {}, "t10": {"distance": "10"}}
OWN_WEAPON = {"aoristos": "pistol", "phobia": "kniv", "t10": "pistol"}


def page_text(answer) -> str:
    """A page without what differs on every answer anyway: the masked CSRF token, and the
    language switch's way back (the address asked for)."""
    text = answer.content.decode()
    text = re.sub(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]+', r"\1", text)
    return re.sub(r'name="next" value="[^"]*"', 'name="next"', text)


@pytest.mark.parametrize("kind", FIGHTS)
def test_a_player_cannot_preview_an_npcs_attack_whatever_it_carries(client, gm, alice, kind):
    made = make(kind, client, gm, alice)
    client.force_login(alice)
    page = reverse("combat:preview", args=[made.encounter.pk])
    api = reverse("combat:api_preview", args=[made.encounter.pk])
    queries = [
        {"id": made.npc, "target": made.mine, "weapon": weapon, **extra}
        for weapon in (made.drawn, made.undrawn, made.not_carried, "")
        for extra in (EXTRA[kind], {"distance": "9999"}, {})
    ] + [{"id": "c99", "target": made.mine, "weapon": made.drawn}, {"id": made.npc}, {}]
    pages = [client.get(page, query) for query in queries]
    assert {answer.status_code for answer in pages} == {403}
    assert len({page_text(answer) for answer in pages}) == 1
    for answer in pages:
        text = page_text(answer)
        for word in ("Vakten", "Soldat", "draw", "carry"):
            assert word not in text
    answers = [client.get(api, query) for query in queries]
    assert {answer.status_code for answer in answers} == {403}
    assert len({answer.content for answer in answers}) == 1
    assert answers[0].json() == {"error": "you do not command that combatant"}

    # Her own character previews its attack on the NPC, on the page and through the API.
    own = {"id": made.mine, "target": made.npc, "weapon": OWN_WEAPON[kind], **EXTRA[kind]}
    answer = client.get(page, own)
    assert answer.status_code == 200
    assert 'data-testid="preview-ok"' in answer.content.decode() \
        or 'data-testid="preview-hit"' in answer.content.decode()
    assert client.get(api, own).json()["ok"] is True

    # The GM previews the NPC's attack (the engine says what it would take).
    client.force_login(gm)
    for weapon in (made.drawn, made.undrawn, made.not_carried):
        query = {"id": made.npc, "target": made.mine, "weapon": weapon, **EXTRA[kind]}
        assert client.get(page, query).status_code == 200
        # 200 for an attack that can be made, 400 with the reason for one refused.
        answer = client.get(api, query)
        assert (answer.status_code, answer.json()["ok"]) in ((200, True), (400, False))


def test_the_chronicle_has_no_preview(client, gm, alice):
    made = make("chronicle", client, gm, alice)
    url = reverse("combat:preview", args=[made.encounter.pk])
    for user in (gm, alice):
        client.force_login(user)
        assert client.get(url, {"id": "c1", "target": "c2", "weapon": "x"}).status_code == 404
