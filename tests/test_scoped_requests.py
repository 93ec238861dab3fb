"""Every id a page's form or address names is resolved through the campaign it acts in
(issue 42): the GM of one campaign sends ids of another campaign's rows (a victim's
characters, members, journal posts, catalogue items, bring requests, map pictures) to
their own campaign's forms and addresses. Each is refused (400, 403 or 404, never 500),
and nothing of the victim's changes or shows. The fights' commands have their own sweep,
`tests/combat/test_scoped.py`.
"""

import pytest
from django.urls import reverse

from archive.models import Placeholder
from campaigns.models import BringRequest, JournalEntry, Membership
from campaigns.services import campaign_create
from characters.models import Character, DpEntry
from combat.forms import picture_facts
from combat.models import CatalogueItem, Encounter, MapPicture
from table.models import RollEvent
from tests.archive.test_roundtrip import png

pytestmark = pytest.mark.django_db

REFUSED = (400, 403, 404)


@pytest.fixture
def world(make_user):
    victim, victim_player, attacker = (make_user(n) for n in ("offret", "offrets-spelare",
                                                              "angriparen"))
    found = {"attacker": attacker}
    for system in ("aoristos", "t10"):
        theirs = campaign_create(gm=victim, name=f"Deras {system}", rule_system=system)
        seat = Membership.objects.create(campaign=theirs, user=victim_player, seat=1)
        character = Character.objects.create(owner=victim_player, campaign=theirs,
                                             name=f"Deras {system}", rule_system=system)
        loose = Character.objects.create(owner=victim_player, name=f"Lös {system}",
                                         rule_system=system)
        fight = Encounter.objects.create(campaign=theirs, name="Deras", system=system)
        mine = campaign_create(gm=attacker, name=f"Min {system}", rule_system=system)
        found[system] = {
            "theirs": theirs, "seat": seat, "character": character, "fight": fight,
            "entry": JournalEntry.objects.create(campaign=theirs, author=victim,
                                                 title="Deras", body="Hemligt"),
            "item": CatalogueItem.objects.create(campaign=theirs, kind="weapon", key="kniv",
                                                 data={"name": "Kniv"}),
            "request": BringRequest.objects.create(campaign=theirs, character=loose),
            "picture": MapPicture.objects.create(encounter=fight, **picture_facts(png())),
            "mine": mine,
            "my_fight": Encounter.objects.create(campaign=mine, name="Min", system=system),
        }
    return found


def test_addresses_that_name_another_campaigns_rows(client, world):
    client.force_login(world["attacker"])
    for system in ("aoristos", "t10"):
        w = world[system]
        mine = w["mine"].pk
        tries = [
            ("post", reverse("campaigns:journal_edit", args=[mine, w["entry"].pk]),
             {"title": "Ändrad", "body": "x"}),
            ("post", reverse("campaigns:journal_delete", args=[mine, w["entry"].pk]), {}),
            ("post", reverse("campaigns:journal_pin", args=[mine, w["entry"].pk]), {}),
            ("post", reverse("combat:catalogue_delete", args=[mine, w["item"].pk]), {}),
            ("post", reverse("campaigns:member_remove", args=[mine, w["seat"].pk]), {}),
            ("post", reverse("campaigns:seat_move", args=[mine, w["seat"].pk]),
             {"direction": "up"}),
            ("post", reverse("campaigns:bring_request_answer", args=[mine, w["request"].pk]),
             {"answer": "accept", "note": "ja"}),
            ("get", reverse("combat:map_picture", args=[w["my_fight"].pk, w["picture"].pk]),
             {}),
        ]
        for method, url, data in tries:
            answer = getattr(client, method)(url, data)
            assert answer.status_code in REFUSED, (url, answer.status_code)
        assert JournalEntry.objects.filter(pk=w["entry"].pk, title="Deras",
                                           pinned=False).exists()
        assert CatalogueItem.objects.filter(pk=w["item"].pk).exists()
        assert Membership.objects.filter(pk=w["seat"].pk, seat=1).exists()
        assert BringRequest.objects.get(pk=w["request"].pk).status == "pending"


def test_form_fields_that_name_another_campaigns_rows(client, world):
    client.force_login(world["attacker"])
    for system in ("aoristos", "t10"):
        w = world[system]
        mine = w["mine"].pk
        theirs = w["character"].pk
        tries = [
            (reverse("table:roll", args=[mine]),
             {"mode": "test", "character": theirs, "properties": "alertness"}),
            (reverse("table:situation_end", args=[mine]), {"character": theirs}),
            (reverse("campaigns:awards", args=[mine]),
             {"target": theirs, "method": "free", "amount": 5, "reason": "x"}),
            (reverse("combat:add", args=[w["my_fight"].pk]),
             {"version": 0, "source": "character", "character": theirs}),
        ]
        if system == "t10":
            tries.append((reverse("table:roll", args=[mine]),
                          {"stat": "charisma", "toward": f"character:{theirs}"}))
        if system == "aoristos":  # an opposed test's sides (p. 5), each field naming theirs
            own = Character.objects.create(owner=world["attacker"], campaign=w["mine"],
                                           name="Min egen", rule_system=system)
            side = {"mode": "opposed", "character": own.pk, "properties": "agility",
                    "opponent": "other", "opponent_name": "Någon", "opponent_tb": 3,
                    "opponent_properties": "agility"}
            url = reverse("table:roll", args=[mine])
            tries += [
                (url, side | {"character": theirs}),
                (url, side | {"opponent": f"character:{theirs}"}),
                (url, side | {"helpers": theirs}),
                (url, side | {"opponent_helpers": theirs}),
            ]
        for url, data in tries:
            answer = client.post(url, data, headers={"HX-Request": "true"})
            assert answer.status_code in (200, *REFUSED), (url, answer.status_code)
            assert w["character"].name.encode() not in answer.content, url
        assert not RollEvent.objects.exists()
        assert not DpEntry.objects.filter(character=w["character"]).exists()
        w["my_fight"].refresh_from_db()
        assert w["my_fight"].version == 0


def test_a_placeholder_goes_only_to_a_member_of_its_own_campaign(client, world,
                                                                  django_user_model):
    attacker = world["attacker"]
    mine = world["aoristos"]["mine"]
    seat_user = django_user_model.objects.create(username="platshallare", is_active=False)
    Membership.objects.create(campaign=mine, user=seat_user, seat=1)
    holder = Placeholder.objects.create(campaign=mine, user=seat_user, name="Någon")
    client.force_login(attacker)
    url = reverse("archive:handover", args=[mine.pk, holder.pk])
    for member in (world["aoristos"]["seat"].pk, world["t10"]["seat"].pk, "x", ""):
        client.post(url, {"member": member})
        assert Placeholder.objects.filter(pk=holder.pk).exists(), member
    assert not Membership.objects.filter(campaign=mine, user__username="offrets-spelare")
