"""Fog on the battle map through the app (issue 47): what a hidden area holds reaches no
player's page, panel, API answer, preview, log line or picture; revealing it shows it,
undoing the reveal hides it again. The rules' part is tests/rules/test_fog.py."""

import io
import json
import re

import pytest
from django.urls import reverse
from PIL import Image

from combat.models import MapPicture
from tests.combat.helpers import english, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def fight(encounter, albert_in_campaign, gm, alice, run):
    """Albert (Alice's) at (0; 0); then fog on, with (-2; -2)-(3; 3) revealed; then the
    guard placed at (5; 0), in the fog (what is added before the fog is in the players'
    log as it came)."""
    from rules.aoristos.combat import ENGINE

    block = ENGINE.character_block(name="Albert", levels=albert_in_campaign.levels(),
                                   derived=albert_in_campaign.secondary().as_dict())
    block.update(character_id=albert_in_campaign.pk, weapons=["pistol"], right="pistol")
    run(encounter, gm, block, controller=alice.pk)
    run(encounter, gm, {"type": "set_fog", "on": True})
    run(encounter, gm, {"type": "mark_fog", "points": "-2,-2 3,3"})
    run(encounter, gm, {"type": "add_combatant", "name": "Vakten", "side": "b", "x": 5.0,
                        "alertness": 2, "agility": 2, "physique": 3, "skills": {"evasion": 1},
                        "weapons": ["knife"], "right": "knife"})
    encounter.refresh_from_db()
    return encounter


def player_pages(client, fight) -> str:
    """All a player reads of the fight: the page, the panel, the API, the table's log."""
    return "".join((
        client.get(reverse("combat:page", args=[fight.pk])).content.decode(),
        client.get(reverse("combat:state", args=[fight.pk])).content.decode(),
        json.dumps(client.get(reverse("combat:api_encounter", args=[fight.pk])).json(),
                   ensure_ascii=False),
        client.get(reverse("table:history", args=[fight.campaign_id])).content.decode(),
    ))


def test_a_hidden_guard_reaches_no_page_of_a_player_until_revealed(client, gm, alice, fight, run):
    english(client, alice)
    seen = player_pages(client, fight)
    assert "Albert" in seen
    assert "Vakten" not in seen
    english(client, gm)
    assert "Vakten" in player_pages(client, fight)  # the GM's pages show it under the fog
    # Revealed from the page's own form, it is on the player's pages; undone, gone again.
    assert post(client, fight, {"type": "mark_fog", "points": "5,0"}).status_code == 200
    english(client, alice)
    assert "Vakten" in player_pages(client, fight)
    english(client, gm)
    fight.refresh_from_db()
    assert post(client, fight, {"type": "undo", "to": fight.version - 1}).status_code == 200
    english(client, alice)
    assert "Vakten" not in "".join(
        client.get(reverse(name, args=[fight.pk])).content.decode()
        for name in ("combat:page", "combat:state"))


def test_what_happens_in_the_fog_is_out_of_sight_in_the_players_log(client, gm, alice, fight,
                                                                    run):
    _, record, _ = run(fight, gm, {"type": "add_combatant", "name": "Prickskytten", "side": "b",
                                   "x": 12.0, "y": 4.0})
    assert record.public_lines == [{"kind": "Unseen"}] * len(record.public_lines)
    assert "Prickskytten" in json.dumps(record.lines, ensure_ascii=False)
    english(client, alice)
    history = client.get(reverse("table:history", args=[fight.campaign_id])).content.decode()
    assert "Something happens out of sight." in history
    assert "Prickskytten" not in history
    assert "The GM covers the map with fog." in history


def test_a_player_cannot_name_a_hidden_combatant(client, gm, alice, fight, run):
    run(fight, gm, {"type": "start"})
    english(client, alice)
    query = {"id": "c1", "target": "c2", "weapon": "pistol"}
    api = client.get(reverse("combat:api_preview", args=[fight.pk]), query)
    assert api.status_code == 400
    assert "no such combatant" in api.json()["error"]
    page = client.get(reverse("combat:preview", args=[fight.pk]), query).content.decode()
    assert "no such combatant" in page.lower()
    fight.refresh_from_db()
    version = fight.version
    answer = post(client, fight, {"type": "attack", "id": "c1", "target": "c2",
                                  "weapon": "pistol"})
    assert answer.status_code == 400
    fight.refresh_from_db()
    assert fight.version == version


def test_a_players_picture_has_the_hidden_areas_painted_over(client, gm, alice, fight, run):
    english(client, gm)
    out = io.BytesIO()
    Image.new("RGB", (200, 100), (250, 250, 250)).save(out, format="PNG")
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.post(reverse("combat:map_picture_upload", args=[fight.pk]),
                {"width": "20", "x": "0", "y": "0", "shown": "on",
                 "picture": SimpleUploadedFile("karta.png", out.getvalue())},
                headers={"HX-Request": "true"})
    stored = MapPicture.objects.get()
    # (-2; -2)-(3; 3) is revealed: the top left of the picture's 20 × 10 m.
    english(client, alice)
    page = client.get(reverse("combat:page", args=[fight.pk])).content.decode()
    data = json.loads(re.search(r'<script id="map-data" type="application/json">(.*?)</script>',
                                page, re.S).group(1))
    url = data["scene"]["picture"]["url"]
    assert re.fullmatch(rf"{reverse('combat:map_picture', args=[fight.pk, stored.pk])}"
                        r"\?fog=[0-9a-f]{16}", url)
    served = client.get(url)
    assert served["Content-Type"] == "image/jpeg"
    image = Image.open(io.BytesIO(b"".join(served))).convert("RGB")
    assert image.getpixel((10, 10))[0] > 200  # (1; 1) m: revealed, the picture
    assert image.getpixel((150, 50))[0] < 40  # (15; 5) m: hidden, painted over
    # The GM's is the picture itself; another fog is another address.
    english(client, gm)
    assert b"".join(client.get(url)) == out.getvalue()
    run(fight, gm, {"type": "mark_fog", "points": "10,0 20,10"})
    english(client, alice)
    page = client.get(reverse("combat:page", args=[fight.pk])).content.decode()
    assert url not in page


@pytest.mark.parametrize("system", ["aoristos", "phobia", "t10"])
def test_in_every_system_a_hidden_npc_is_not_in_the_players_panel_or_api(
    client, gm, alice, run, system
):
    """The three engines' views go through one filter (rules.scene.seen): under fog with
    nothing revealed, the NPC is in neither the panel nor the API a player gets, before
    the fight and after its start; the player's own character is."""
    from tests.combat import kinds

    made = kinds.make(system, client, gm, alice)
    fight = made.encounter
    npc = {"aoristos": "Vakten", "phobia": "Vakten", "t10": "Soldat"}[system]
    run(fight, gm, {"type": "set_fog", "on": True})
    start = {"aoristos": "start", "phobia": "start_round", "t10": "start"}[system]
    for step in ("set up", "started"):
        english(client, alice)
        seen = client.get(reverse("combat:state", args=[fight.pk])).content.decode() + \
            json.dumps(client.get(reverse("combat:api_encounter", args=[fight.pk])).json(),
                       ensure_ascii=False)
        assert made.character.name in seen, step
        assert npc not in seen, step
        english(client, gm)
        assert npc in client.get(reverse("combat:state", args=[fight.pk])).content.decode()
        if step == "set up":
            run(fight, gm, {"type": start})


def test_players_asking_at_once_wait_for_one_painting(monkeypatch):
    """The players' pages ask for the painted picture together after the GM changes the
    fog: one request paints it, the others wait for it; a painting that fails lets the
    next one try."""
    import threading
    import time

    from combat import fog
    from rules.scene import Fog, Picture

    calls = []
    started = threading.Event()

    def slow_paint(content, picture, fog_):
        calls.append(1)
        started.set()
        time.sleep(0.2)
        return b"painted", "image/jpeg"

    class Row:
        pk, content = 1, b"x"

    fog.forget()
    monkeypatch.setattr(fog, "paint", slow_paint)
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(
        fog.painted(Row, Picture("1", 10.0, 1.0), Fog(True), "k"))) for _ in range(4)]
    threads[0].start()
    started.wait(2)
    for thread in threads[1:]:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert len(calls) == 1
    assert answers == [(b"painted", "image/jpeg")] * 4

    def failing(content, picture, fog_):
        raise OSError("broken")

    monkeypatch.setattr(fog, "paint", failing)
    with pytest.raises(OSError):
        fog.painted(Row, Picture("1", 10.0, 1.0), Fog(True), "other")
    monkeypatch.setattr(fog, "paint", slow_paint)
    assert fog.painted(Row, Picture("1", 10.0, 1.0), Fog(True), "other")[0] == b"painted"
    fog.forget()
