"""A player builds Albert (rule text p. 2) in a real browser, as at the table."""

import re

import pytest
from playwright.sync_api import expect

from characters.models import Character

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ALBERT = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}


def sign_up(page, live_server, username):
    page.goto(f"{live_server.url}/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", "hjortspår-i-frusen-mark")
    page.fill("#id_password2", "hjortspår-i-frusen-mark")
    page.get_by_role("button", name=re.compile("Skapa konto|Create account")).click()
    expect(page).to_have_url(re.compile(r"/characters/$"))


def test_player_builds_albert_with_live_rules_check(page, live_server, shot):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, live_server, "albertspelaren")
    shot(page, "1-my-characters")
    page.get_by_role("link", name=re.compile("Ny rollperson|New character")).first.click()
    page.fill("#id_name", "Albert")
    page.fill("#id_concept", "Hårdkokt modern livvakt")

    # Raise FYS from 1 to 3 with the stepper, type the rest.
    raise_fys = page.locator('button[data-for="id_physique"][data-step="1"]')
    raise_fys.click()
    raise_fys.click()
    expect(page.locator("#id_physique")).to_have_value("3")
    for key in ("composure", "agility", "alertness", "willpower"):
        page.fill(f"#id_{key}", str(ALBERT[key]))

    # The summary updates live, before anything is saved.
    expect(page.get_by_test_id("dp-spent")).to_have_text("33")
    expect(page.get_by_test_id("saved-dp")).to_have_text("0")
    expect(page.locator("#summary").get_by_test_id("secondary-drive")).to_have_text("9")
    expect(page.locator("#status-alertness .cost")).to_have_text("20 UP")
    assert not Character.objects.exists()
    shot(page, "2-builder-live")

    page.get_by_role("button", name=re.compile("^(Spara|Save)$")).click()
    expect(page).to_have_url(re.compile(r"/characters/\d+/$"))
    expect(page.get_by_test_id("dp-spent")).to_have_text("33")
    expect(page.get_by_test_id("secondary-drive")).to_have_text("9")
    expect(page.get_by_role("heading", name="Albert")).to_be_visible()
    shot(page, "3-sheet")

    albert = Character.objects.get(name="Albert")
    assert albert.attributes == ALBERT
    assert albert.evaluate().dp_spent == 33


def test_builder_warns_live_and_refuses_an_invalid_save(page, live_server, shot):
    page.set_viewport_size({"width": 390, "height": 844})  # a phone at the table
    sign_up(page, live_server, "telefonspelaren")
    page.goto(f"{live_server.url}/characters/new/")
    page.fill("#id_name", "Övermänniska")
    page.fill("#id_alertness", "6")
    warning = page.locator("#status-alertness .error")
    expect(warning).to_contain_text("6")
    expect(page.get_by_test_id("dp-spent")).to_have_text("35")
    shot(page, "1-live-warning")

    page.get_by_role("button", name=re.compile("^(Spara|Save)$")).click()
    expect(page.locator("#status-alertness .error")).to_be_visible()
    expect(page.locator("#id_alertness")).to_have_value("6")
    expect(page.locator("#id_name")).to_have_value("Övermänniska")
    shot(page, "2-refused-save")
    assert not Character.objects.exists()


def test_sheet_odds_helper_and_language_switch(page, live_server, shot, django_user_model):
    user = django_user_model.objects.create_user("spelare", password="hjortspår-i-frusen-mark")
    albert = Character.objects.create(owner=user, name="Albert", attributes=ALBERT)
    page.goto(f"{live_server.url}/accounts/login/?next=/characters/{albert.pk}/")
    page.fill("#id_username", "spelare")
    page.fill("#id_password", "hjortspår-i-frusen-mark")
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.get_by_role("heading", name="Albert")).to_be_visible()

    # p. 5: a test of SIN and Vildmark has GST 8; Albert's TB is 5 + 0.
    expect(page.locator("label.check").filter(has_text="Sinnesnärvaro (SIN) 5")).to_have_count(1)
    page.locator('input[name="properties"][value="alertness"]').check()
    page.locator('input[name="properties"][value="wilderness"]').check()
    expect(page.get_by_test_id("odds-gst")).to_have_text("8")
    expect(page.get_by_test_id("odds-tb")).to_have_text("5")
    expect(page.get_by_test_id("odds-percent")).to_have_text("44,4 %")
    shot(page, "1-odds")

    # Equipment: 13 FP against Bärförmåga 12 costs one RÖR and one Förflyttning (p. 5).
    equipment = page.locator("#equipment")
    equipment.get_by_label(re.compile("Föremål|Item")).fill("Ryggsäck")
    equipment.get_by_label(re.compile("FP")).fill("13")
    equipment.get_by_role("button", name=re.compile("Lägg till|Add")).click()
    expect(equipment.get_by_role("cell", name="Ryggsäck", exact=True)).to_be_visible()
    expect(page.get_by_test_id("load")).to_contain_text("RÖR 1")
    expect(page.get_by_test_id("load")).to_contain_text("Förflyttning 6")
    shot(page, "1b-equipment")

    expect(page.locator("html")).to_have_attribute("lang", "sv")
    page.get_by_role("button", name="EN").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="Primary attributes")).to_be_visible()
    expect(page.get_by_text("Handlingskraft").first).to_be_visible()
    shot(page, "2-english")
    page.emulate_media(media="print")
    shot(page, "3-print")
    pdf = page.pdf(format="A4", print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages == 1, f"the character sheet printed on {pages} A4 pages"
