"""Equipment on the sheet and the load it puts on RÖR and Förflyttning (p. 5)."""

from decimal import Decimal

import pytest
from django.urls import reverse

from characters.models import Item

pytestmark = pytest.mark.django_db


def add_url(character):
    return reverse("characters:item_add", args=[character.pk])


def test_adding_items_sums_fp_against_barformaga(alice_client, albert):
    """Albert: FYS 3 → Bärförmåga 12, RÖR 2, Förflyttning 7. p. 5: FP 13 → −1, FP 24 → −2."""
    response = alice_client.post(
        add_url(albert), {"name": "Ryggsäck", "bulk": "6.5", "quantity": 2}
    )
    assert response.status_code == 302
    load = albert.load()
    assert load["bulk"] == Decimal("13")
    assert load["penalty"] == 1
    assert (load["agility"], load["movement"]) == (1, 6)

    alice_client.post(add_url(albert), {"name": "Ammunition", "bulk": "11", "quantity": 1})
    load = albert.load()
    assert load["bulk"] == Decimal("24")
    assert (load["penalty"], load["agility"], load["movement"]) == (2, 0, 5)


def test_load_at_exactly_barformaga_has_no_penalty(alice_client, albert):
    alice_client.post(add_url(albert), {"name": "Packning", "bulk": "12", "quantity": 1})
    sheet = alice_client.get(albert.get_absolute_url())
    assert sheet.context["load"]["penalty"] == 0
    html = sheet.content.decode()
    assert "Packning" in html
    assert 'class="load heavy"' not in html


def test_htmx_add_returns_the_equipment_section_with_the_new_load(alice_client, albert):
    response = alice_client.post(
        add_url(albert),
        {"name": "Kofot", "bulk": "13", "quantity": 1},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="equipment"')
    assert "Kofot" in html
    assert 'class="load heavy"' in html


@pytest.mark.parametrize(
    "data",
    [
        {"name": "", "bulk": "1", "quantity": 1},
        {"name": "Sten", "bulk": "-1", "quantity": 1},
        {"name": "Sten", "bulk": "tung", "quantity": 1},
        {"name": "Sten", "bulk": "1", "quantity": 0},
        {"name": "Sten", "bulk": "1e9", "quantity": 1},
    ],
)
def test_bad_item_is_refused_and_keeps_what_was_typed(alice_client, albert, data):
    response = alice_client.post(add_url(albert), data, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert response.context["item_form"].errors
    assert not Item.objects.exists()
    response = alice_client.post(add_url(albert), data)
    assert response.status_code == 400
    if data["name"]:
        assert f'value="{data["name"]}"' in response.content.decode()


def test_removing_an_item(alice_client, albert):
    item = Item.objects.create(character=albert, name="Kofot", bulk=Decimal("2"))
    url = reverse("characters:item_delete", args=[albert.pk, item.pk])
    assert alice_client.post(url).status_code == 302
    assert not Item.objects.exists()


def test_other_player_cannot_add_or_remove_items(client, bob, albert):
    item = Item.objects.create(character=albert, name="Kofot", bulk=Decimal("2"))
    client.force_login(bob)
    assert (
        client.post(add_url(albert), {"name": "X", "bulk": "1", "quantity": 1}).status_code == 404
    )
    url = reverse("characters:item_delete", args=[albert.pk, item.pk])
    assert client.post(url).status_code == 404
    assert list(Item.objects.values_list("name", flat=True)) == ["Kofot"]


def test_an_item_cannot_be_removed_through_another_characters_url(alice_client, alice, albert):
    other = albert.__class__.objects.create(owner=alice, name="Beata")
    item = Item.objects.create(character=other, name="Kofot", bulk=Decimal("2"))
    url = reverse("characters:item_delete", args=[albert.pk, item.pk])
    assert alice_client.post(url).status_code == 404
    assert Item.objects.filter(pk=item.pk).exists()


def test_success_test_of_ror_uses_the_effective_ror_under_load(alice_client, albert):
    """p. 5: a heavy load lowers RÖR for tests; Albert's RÖR 2 becomes 1 with 13 FP."""
    Item.objects.create(character=albert, name="Ryggsäck", bulk=Decimal("13"))
    response = alice_client.get(albert.get_absolute_url(), {"properties": ["agility"]})
    assert response.context["odds"]["test_base"] == 1
    assert "Rörlighet (RÖR) 1" in response.content.decode()


def test_a_weapon_from_the_catalogue_weighs_its_magazine_too_p5(alice_client, albert):
    """p. 5: "Ett laddat vapen utgör alltså MV + VV": a pistol taken from the catalogue is
    put on the sheet loaded, its FP the weapon's VV plus a full magazine's MV."""
    from rules.aoristos.equipment import WEAPONS

    pistol = WEAPONS["pistol"]
    assert pistol.magazine_bulk > 0
    response = alice_client.post(add_url(albert), {"catalogue": "weapon:pistol", "quantity": 1})
    assert response.status_code == 302
    item = albert.items.get()
    assert item.bulk == Decimal(str(round(pistol.weapon_bulk + pistol.magazine_bulk, 1)))
