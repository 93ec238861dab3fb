"""The character builder and sheet, through Django's test client."""

import re

import pytest
from django.urls import reverse

from characters.models import Character
from rules.aoristos.character import SKILLS
from tests.conftest import ALBERT_ATTRIBUTES

pytestmark = pytest.mark.django_db


def build_post(name="Albert", dp_budget=33, level_cap=5, attributes=None, skills=None, **extra):
    data = {
        "name": name,
        "concept": "",
        "notes": "",
        "dp_budget": dp_budget,
        "level_cap": level_cap,
    }
    data |= {"physique": 1, "composure": 1, "agility": 1, "alertness": 1, "willpower": 1}
    data |= dict.fromkeys(SKILLS, 0)
    data |= attributes or {}
    data |= skills or {}
    return data | extra


def test_anonymous_user_is_sent_to_log_in(client, albert):
    urls = [
        reverse("characters:list"),
        reverse("characters:create"),
        reverse("characters:sheet", args=[albert.pk]),
        reverse("characters:edit", args=[albert.pk]),
        reverse("characters:delete", args=[albert.pk]),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response.url.startswith(reverse("login")), url
    response = client.post(reverse("characters:preview"), build_post())
    assert response.status_code == 302


@pytest.mark.parametrize("name", ["characters:sheet", "characters:edit", "characters:delete"])
def test_other_player_cannot_see_or_change_a_character(client, bob, albert, name):
    client.force_login(bob)
    assert client.get(reverse(name, args=[albert.pk])).status_code == 404
    response = client.post(reverse(name, args=[albert.pk]), build_post(name="Stulen"))
    assert response.status_code == 404
    albert.refresh_from_db()
    assert albert.name == "Albert"


def test_my_characters_lists_only_my_own(client, bob, albert):
    Character.objects.create(owner=bob, name="Bobs RP")
    client.force_login(bob)
    page = client.get(reverse("characters:list")).content.decode()
    assert "Bobs RP" in page
    assert "Albert" not in page


def test_building_albert_saves_him_and_shows_33_up_and_handlingskraft_9(alice_client, alice):
    """Worked figure on p. 2: FYS 3, KAO 3, RÖR 2, SIN 5, VIL 3 → 33 UP, Handlingskraft 9."""
    response = alice_client.post(
        reverse("characters:create"), build_post(attributes=ALBERT_ATTRIBUTES)
    )
    albert = Character.objects.get(owner=alice, name="Albert")
    assert response.status_code == 302
    assert response.url == albert.get_absolute_url()
    assert albert.attributes == ALBERT_ATTRIBUTES
    sheet = alice_client.get(response.url)
    assert sheet.context["report"].dp_spent == 33
    html = sheet.content.decode()
    assert 'data-testid="dp-spent">33<' in html
    assert 'data-testid="secondary-drive">9<' in html
    assert "Handlingskraft" in html
    assert "Sinnesnärvaro" in html
    assert "SIN" in html


def test_level_above_the_cap_is_refused_and_keeps_what_was_typed(alice_client, albert):
    data = build_post(
        attributes=ALBERT_ATTRIBUTES | {"alertness": 6}, dp_budget=500, concept="ändrat koncept"
    )
    response = alice_client.post(reverse("characters:edit", args=[albert.pk]), data)
    assert response.status_code == 400
    form = response.context["form"]
    assert "alertness" in form.errors
    html = response.content.decode()
    assert 'value="6"' in html
    assert "ändrat koncept" in html
    albert.refresh_from_db()
    assert albert.attribute("alertness") == 5
    assert albert.dp_budget == 33


def test_over_budget_is_refused_as_a_build_problem_not_on_the_budget_field(alice_client, alice):
    data = build_post(attributes=ALBERT_ATTRIBUTES, dp_budget=32)
    response = alice_client.post(reverse("characters:create"), data)
    assert response.status_code == 400
    form = response.context["form"]
    assert "dp_budget" not in form.errors
    [over_budget] = form.non_field_errors()
    assert over_budget.startswith("33 UP")
    assert "32" in over_budget
    html = response.content.decode()
    # The "Not saved" list links the problem to the totals and takes the focus itself.
    box = html[
        html.index('<div id="not-saved"') : html.index("</div>", html.index('id="not-saved"'))
    ]
    assert "autofocus" in box
    assert 'href="#summary"' in box
    assert over_budget in box
    assert 'aria-invalid="true"' not in html
    # UP left in red: the totals' figures carry "over".
    assert '<p class="dp over">' in html
    assert not Character.objects.filter(owner=alice).exists()


@pytest.mark.parametrize("bad", ["abc", "-1", "31", "2.5", ""])
def test_malformed_level_is_an_error_beside_the_field_not_a_crash(alice_client, alice, bad):
    response = alice_client.post(reverse("characters:create"), build_post(physique=bad))
    assert response.status_code == 400
    assert "physique" in response.context["form"].errors
    assert f'value="{bad}"' in response.content.decode() or bad == ""
    assert not Character.objects.filter(owner=alice).exists()


def test_raising_the_level_cap_allows_a_higher_level(alice_client, alice):
    data = build_post(skills={"firearms": 7}, level_cap=7, dp_budget=40)
    response = alice_client.post(reverse("characters:create"), data)
    assert response.status_code == 302
    assert Character.objects.get(owner=alice).skill("firearms") == 7


def status_span(html: str, key: str) -> str:
    start = html.index(f'id="status-{key}"')
    return html[html.rindex("<span", 0, start) : html.index("\n</span>", start)]


def test_live_preview_reports_up_secondaries_and_field_warnings(alice_client):
    data = build_post(attributes=ALBERT_ATTRIBUTES | {"willpower": 6}, name="")
    response = alice_client.post(
        reverse("characters:preview"), data, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    # VIL 6 costs 35 instead of 4: 64 UP spent of 33, and VIL is above the cap of 5.
    assert 'data-testid="dp-spent">64<' in html
    assert 'data-testid="saved-dp">-31<' in html
    assert 'data-testid="secondary-shock_tolerance">9<' in html
    summary = html.split('hx-swap-oob="true"')[0]
    assert re.search(r'data-testid="build-problems"><li>64 UP [^<]* 33: 31 ', summary)
    willpower = status_span(html, "willpower")
    assert 'hx-swap-oob="true"' in willpower
    assert "data-invalid" in willpower
    assert 'id="id_willpower_error"' in willpower
    assert re.search(r"(above the level cap|över nivåtaket) 5", willpower)
    # Over budget is the build's problem, not the budget field's.
    assert "data-invalid" not in status_span(html, "dp_budget")
    # A name not yet typed is for the save to report, not the live check.
    assert "data-invalid" not in status_span(html, "name")
    # No save was tried on the page: no "Not saved" list.
    assert "not-saved" not in html


@pytest.mark.parametrize("bad", ["", "x", "-5", "31", "2.5"])
def test_live_preview_keeps_the_totals_while_a_field_is_wrong(alice_client, bad):
    """An empty or wrong FYS is marked, and the totals go on from its last valid value."""
    data = build_post(attributes=ALBERT_ATTRIBUTES | {"physique": bad})
    data["fallback-physique"] = "3"
    response = alice_client.post(reverse("characters:preview"), data)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="dp-spent">33<' in html
    assert 'data-testid="secondary-carrying_capacity">12<' in html
    physique = status_span(html, "physique")
    assert "data-invalid" in physique
    assert 'class="cost">4 UP<' in physique  # FYS 3 costs 4
    assert re.search(r"(next level|nästa nivå) 6 UP", physique)
    assert 'data-testid="field-problems"' in html


def test_live_preview_without_a_fallback_uses_the_saved_level(alice_client, albert):
    data = build_post(attributes=ALBERT_ATTRIBUTES | {"alertness": ""})
    data["fallback-alertness"] = "999"  # out of bounds: ignored like any wrong input
    response = alice_client.post(reverse("characters:edit_preview", args=[albert.pk]), data)
    html = response.content.decode()
    assert 'data-testid="dp-spent">33<' in html  # SIN 5, as saved
    assert "data-invalid" in status_span(html, "alertness")


def test_live_preview_clears_a_fixed_field(alice_client):
    data = build_post(attributes=ALBERT_ATTRIBUTES)
    html = alice_client.post(reverse("characters:preview"), data).content.decode()
    assert "data-invalid" not in html
    assert "error" not in status_span(html, "alertness")
    assert 'class="ok"' in html
    assert 'data-testid="field-problems"' not in html


def test_live_preview_after_a_refused_save_reports_everything_and_the_not_saved_list(
    alice_client,
):
    data = build_post(name="", attributes=ALBERT_ATTRIBUTES | {"alertness": 6})
    data["after-save"] = "1"
    html = alice_client.post(reverse("characters:preview"), data).content.decode()
    assert "data-invalid" in status_span(html, "name")
    box = html[html.index('<div id="not-saved"') :]
    assert 'hx-swap-oob="true"' in box.split(">")[0]
    assert 'role="alert"' not in box.split(">")[0]  # no re-announcing on every key
    assert 'href="#id_name"' in box
    assert 'href="#id_alertness"' in box
    assert 'href="#summary"' in box  # 35 UP of 33
    # Everything fixed: the list empties and hides, so nothing stays red.
    data = build_post(attributes=ALBERT_ATTRIBUTES) | {"after-save": "1"}
    html = alice_client.post(reverse("characters:preview"), data).content.decode()
    box = html[html.index('<div id="not-saved"') :]
    assert " hidden>" in box.split("</div>")[0]
    assert "data-invalid" not in html


def test_live_preview_survives_garbage(alice_client, albert):
    data = build_post(physique="x", dp_budget="-5", level_cap="∞", firearms="1e9")
    data |= {"fallback-physique": "nan", "fallback-dp_budget": "9" * 5000, "after-save": "yes"}
    data |= {"changed": "physique,,\x00,level_cap" * 50}
    response = alice_client.post(reverse("characters:edit_preview", args=[albert.pk]), data)
    assert response.status_code == 200
    html = response.content.decode()
    # The totals stay, from Albert's saved budget, cap and FYS.
    # FYS x falls back to Albert's FYS 3 (4 UP); the other attributes are posted as 1.
    assert 'data-testid="dp-spent">4<' in html
    assert 'data-testid="saved-dp">29<' in html
    for key in ("physique", "dp_budget", "level_cap", "firearms"):
        assert "data-invalid" in status_span(html, key)


def test_owner_deletes_a_character_after_confirming(alice_client, albert):
    url = reverse("characters:delete", args=[albert.pk])
    assert alice_client.get(url).status_code == 200
    assert Character.objects.filter(pk=albert.pk).exists()
    response = alice_client.post(url)
    assert response.status_code == 302
    assert not Character.objects.filter(pk=albert.pk).exists()


def test_odds_helper_shows_gst_and_chance_for_chosen_properties(alice_client, albert):
    """p. 5: a test of SIN and Vildmark has GST 8. Albert has SIN 5 and Vildmark 0, so TB 5
    and the 1B1T test succeeds when the lower of two dice is 3 or more: 16/36 = 44.4 %."""
    url = reverse("characters:sheet", args=[albert.pk])
    response = alice_client.get(
        url, {"properties": ["alertness", "wilderness"]}, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="odds"')
    assert 'data-testid="odds-gst">8<' in html
    assert 'data-testid="odds-tb">5<' in html
    assert 'data-testid="odds-percent">44,4 %<' in html


def test_odds_helper_takes_an_explicit_threshold_and_extra_dice(alice_client, albert):
    url = reverse("characters:sheet", args=[albert.pk])
    response = alice_client.get(url, {"properties": ["alertness"], "threshold": "9", "free": "1"})
    odds = response.context["odds"]
    # 1B1T + 1F = 1B: P(5 + d6 >= 9) = P(d6 >= 4) = 1/2.
    assert odds["hand"] == "1B"
    assert odds["percent"] == pytest.approx(50.0)


def test_odds_helper_rejects_bad_input_without_crashing(alice_client, albert):
    url = reverse("characters:sheet", args=[albert.pk])
    response = alice_client.get(url, {"properties": ["nonsense"], "free": "many"})
    assert response.status_code == 200
    assert response.context["odds"] is None
    assert response.context["odds_form"].errors


def test_builder_shows_the_price_of_each_next_level(alice_client, albert):
    """p. 3 and 17: a skill's next level costs its current level; an attribute's next level
    costs what the skill would cost from zero to that level (SIN 5 → 6 costs 15)."""
    response = alice_client.get(reverse("characters:edit", args=[albert.pk]))
    rows = {row["key"]: row for row in response.context["status_rows"]}
    assert rows["alertness"]["cost"] == 20
    assert rows["alertness"]["next_cost"] == 15
    assert rows["physique"]["next_cost"] == 6
    assert rows["firearms"]["next_cost"] == 0
    data = build_post(attributes=ALBERT_ATTRIBUTES, skills={"firearms": 4})
    preview = alice_client.post(reverse("characters:preview"), data)
    rows = {row["key"]: row for row in preview.context["status_rows"]}
    assert rows["firearms"]["cost"] == 6
    assert rows["firearms"]["next_cost"] == 4


def test_refused_save_lists_every_problem_and_focuses_the_first_wrong_field(alice_client, albert):
    data = build_post(
        name="",
        concept="nytt koncept",
        attributes=ALBERT_ATTRIBUTES | {"physique": "abc", "alertness": 6},
        dp_budget=20,
    )
    response = alice_client.post(reverse("characters:edit", args=[albert.pk]), data)
    assert response.status_code == 400
    html = response.content.decode()
    box = html[html.index('<div id="not-saved"') : html.index("</div>", html.index("not-saved"))]
    assert 'role="alert"' in box
    assert "autofocus" not in box  # a field takes the focus, not the list
    # In page order: name, FYS, SIN, then the build's budget.
    links = re.findall(r'<a href="#([^"]+)">', box)
    assert links == ["id_name", "id_physique", "id_alertness", "summary"]
    name_input = re.search(r"<input[^>]*name=\"name\"[^>]*>", html).group(0)
    assert "autofocus" in name_input
    assert 'aria-invalid="true"' in name_input
    assert 'aria-describedby="id_name_error"' in name_input
    assert 'id="id_name_error"' in html
    assert html.count("autofocus") == 1
    physique = re.search(r"<input[^>]*name=\"physique\"[^>]*>", html).group(0)
    assert 'value="abc"' in physique
    assert 'aria-invalid="true"' in physique
    # Everything typed is kept, and the totals are shown from FYS as saved (3).
    assert "nytt koncept" in html
    # FYS 3 (4 UP) + KAO 3 (4) + RÖR 2 (1) + SIN 6 (35) + VIL 3 (4) = 48 UP.
    assert 'data-testid="dp-spent">48<' in html
    albert.refresh_from_db()
    assert albert.name == "Albert"
    assert albert.attribute("alertness") == 5


def test_refused_save_without_a_wrong_field_focuses_the_list(alice_client, albert):
    data = build_post(attributes=ALBERT_ATTRIBUTES, dp_budget=10)
    html = alice_client.post(reverse("characters:edit", args=[albert.pk]), data).content.decode()
    box = html[html.index('<div id="not-saved"') : html.index(">", html.index("not-saved"))]
    assert "autofocus" in box
    assert 'tabindex="-1"' in box
    assert html.count("autofocus") == 1


def test_builder_shows_the_same_saved_up_as_the_advancement_page_and_sheet(
    alice_client, alice, albert
):
    """Issue 7: after an award and an undone spend the builder said 25 UP left while the
    advancement page said 30 saved. One figure: Character.saved_dp."""
    from characters import services

    services.dp_award(character=albert, amount=30, reason="Räddade prinsessan", by=alice)
    services.dp_spend(character=albert, key="physique", by=alice)  # FYS 3 → 4: 6 UP
    services.dp_undo_last_spend(character=albert, by=alice)
    albert.refresh_from_db()
    assert albert.saved_dp() == 30
    builder = alice_client.get(reverse("characters:edit", args=[albert.pk]))
    html = builder.content.decode()
    assert 'data-testid="dp-spent">33<' in html
    assert 'data-testid="saved-dp">30<' in html
    assert re.search(r'data-testid="dp-breakdown">\s*\S[^<]*33 UP[^<]*0[^<]*\+30 UP', html)
    advancement = alice_client.get(reverse("characters:advancement", args=[albert.pk]))
    assert advancement.context["saved_dp"] == 30
    sheet = alice_client.get(reverse("characters:sheet", args=[albert.pk]))
    assert sheet.context["saved_dp"] == 30
    # The live check says the same, and follows a GM's correction of the build.
    preview = alice_client.post(
        reverse("characters:edit_preview", args=[albert.pk]),
        build_post(attributes=ALBERT_ATTRIBUTES),
    )
    assert 'data-testid="saved-dp">30<' in preview.content.decode()


def test_builder_marks_a_saved_level_above_a_lowered_cap(alice_client, albert):
    albert.level_cap = 4
    albert.save()
    html = alice_client.get(reverse("characters:edit", args=[albert.pk])).content.decode()
    alertness = status_span(html, "alertness")
    assert "data-invalid" in alertness
    assert 'id="id_alertness_error"' in alertness
    assert 'data-testid="field-problems"' in html
    assert "not-saved" not in html  # nothing was refused yet


@pytest.mark.parametrize(
    ("changed", "sent"),
    [
        ("physique", {"physique"}),
        ("physique,name", {"physique", "name"}),
        ("level_cap", "all"),  # the cap decides every level's mark
        ("", "all"),
        ("physique,csrfmiddlewaretoken", "all"),  # not a field: play safe
    ],
)
def test_live_preview_sends_only_the_changed_fields_status(alice_client, changed, sent):
    data = build_post(attributes=ALBERT_ATTRIBUTES) | {"changed": changed}
    html = alice_client.post(reverse("characters:preview"), data).content.decode()
    statuses = set(re.findall(r'id="status-(\w+)"', html))
    assert statuses == (
        {"name", "concept", "notes", "dp_budget", "level_cap"}
        | set(ALBERT_ATTRIBUTES)
        | set(SKILLS)
        if sent == "all"
        else sent
    )
    assert 'data-testid="dp-spent">33<' in html  # the totals always


def test_sheet_labels_the_build_cost_and_the_saved_up_once_each(alice_client, alice, albert):
    """Issue 26: the sheet said "16 left" beside "saved UP now 18". Now the build's cost has
    its own label and the UP that advancement can spend one figure with one label."""
    from characters import services

    services.dp_award(character=albert, amount=18, reason="Räddade prinsessan", by=alice)
    alice_client.cookies["django_language"] = "en"
    html = alice_client.get(reverse("characters:sheet", args=[albert.pk])).content.decode()
    build = re.search(r'data-testid="dp-build">(.*?)</span>', html, re.S).group(1)
    to_spend = re.search(r'data-testid="dp-to-spend">(.*?)</span>', html, re.S).group(1)
    assert re.sub(r"<[^>]+>", "", build) == "Build: 33 of 33 UP spent · level cap 5"
    assert re.sub(r"<[^>]+>", "", to_spend) == "Saved UP to spend: 18"
    assert " left" not in html.split('class="dp-line"')[1].split("</p>")[0]
    advancement = alice_client.get(reverse("characters:advancement", args=[albert.pk]))
    saved = 'Saved UP to spend: <strong data-testid="saved-dp">18<'
    assert saved in advancement.content.decode()


def test_a_character_whose_ledger_holds_an_undo_is_deleted_too(alice_client, albert):
    """An undo protects the spend it undid (DpEntry.undoes, PROTECT): deleting such a
    character answered 500 until the undos were deleted first (found by issue 30's
    round-trip test)."""
    from characters.models import DpEntry

    spend = DpEntry.objects.create(character=albert, kind="spend", amount=-2, key="firearms",
                                   dp_before=10, dp_after=8)
    DpEntry.objects.create(character=albert, kind="undo", amount=2, undoes=spend,
                           dp_before=8, dp_after=10)
    response = alice_client.post(reverse("characters:delete", args=[albert.pk]))
    assert response.status_code == 302
    assert not Character.objects.filter(pk=albert.pk).exists()
    assert not DpEntry.objects.exists()
