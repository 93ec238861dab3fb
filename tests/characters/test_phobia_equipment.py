"""A Phobia character's equipment on its sheet: items by weight, Belastning against
Bärförmåga (STY+TÅL)/2 kg (phobia-utdrag.txt lines 274-283), overloaded above it, and
what the campaign's house rule makes of that, in the tray's odds too."""

import pytest
from django.test import Client
from django.urls import reverse

from characters.models import Character, Item
from tests.conftest import PHOBIA_ATTRIBUTES

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def jace(alice, phobia):
    """STY 12, TÅL 14: Bärförmåga 13 kg."""
    return Character.objects.create(
        owner=alice, campaign=phobia, name="Jace", rule_system="phobia",
        attributes=PHOBIA_ATTRIBUTES, skills={"climbing": 14}, rolled={"calm": [3, 5]},
    )


def sheet(client, character):
    client.cookies["django_language"] = "en"
    return client.get(reverse("characters:sheet", args=[character.pk])).content.decode()


def add(client, character, **data):
    client.cookies["django_language"] = "en"
    return client.post(reverse("characters:item_add", args=[character.pk]),
                       {"quantity": 1} | data, headers=HTMX)


def test_items_by_weight_fill_the_load(alice_client, jace):
    assert 'data-testid="load">' in sheet(alice_client, jace)
    assert "Belastning 0 kg of Bärförmåga (BF) 13 kg." in sheet(alice_client, jace)
    response = add(alice_client, jace, name="Ryggsäck", bulk="8.5")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Ryggsäck" in page
    assert "Belastning 8.5 kg of Bärförmåga (BF) 13 kg." in page
    assert 'data-testid="overloaded"' not in page


def test_above_bärförmåga_the_character_is_overloaded(alice_client, jace):
    """Line 278. 27 kg on BF 13 is two whole Bärförmågor: +Ob2T6 by the default house rule
    on the tests it hinders, marked as a house rule."""
    add(alice_client, jace, name="Rep", bulk="4.5", quantity=6)
    page = sheet(alice_client, jace)
    assert 'data-testid="overloaded">Överbelastad<' in page
    assert "+Ob2T6 on tests of STY, TÅL, RÖR, Klättra, Hoppa, Gömma" in page
    assert "house rule" in page


def test_an_items_weight_must_be_given(alice_client, jace):
    response = add(alice_client, jace, name="Gevär")
    assert "Give what one weighs in kg." in response.content.decode()
    assert not Item.objects.exists()


@pytest.mark.parametrize("bulk", ["-1", "1000", "tung"])
def test_a_bad_weight_says_why_and_adds_nothing(alice_client, jace, bulk):
    response = add(alice_client, jace, name="Gevär", bulk=bulk)
    assert response.status_code == 200
    assert 'class="error"' in response.content.decode()
    assert not Item.objects.exists()


def test_an_item_is_removed(alice_client, jace):
    add(alice_client, jace, name="Rep", bulk="20")
    item = Item.objects.get()
    response = alice_client.post(reverse("characters:item_delete", args=[jace.pk, item.pk]),
                                 headers=HTMX)
    assert "Belastning 0 kg" in response.content.decode()
    assert not Item.objects.exists()


def test_another_player_cannot_change_the_equipment(bob, jace):
    bobs = Client()
    bobs.force_login(bob)
    response = add(bobs, jace, name="Sten", bulk="50")
    assert response.status_code in (403, 404)
    assert not Item.objects.exists()


def test_the_tray_counts_the_load_in_the_odds(alice_client, phobia, jace):
    """14 kg on BF 13: Klättra's Ob3T6 is Ob4T6, SYN stays Ob3T6."""
    add(alice_client, jace, name="Rep", bulk="14")
    alice_client.cookies["django_language"] = "en"
    url = reverse("table:odds", args=[phobia.pk])
    climb = alice_client.get(url, {"character": jace.pk, "stat": "climbing",
                                   "difficulty": 3}).content.decode()
    look = alice_client.get(url, {"character": jace.pk, "stat": "sight",
                                  "difficulty": 3}).content.decode()
    assert 'data-testid="odds-dice">Ob4T6<' in climb
    assert "overloaded: +Ob1T6 included" in climb
    assert 'data-testid="odds-dice">Ob3T6<' in look
    assert "odds-burden" not in look
    phobia.house_rules = {"overload_levels": 0}
    phobia.save()
    harmless = alice_client.get(url, {"character": jace.pk, "stat": "climbing",
                                      "difficulty": 3}).content.decode()
    assert 'data-testid="odds-dice">Ob3T6<' in harmless
