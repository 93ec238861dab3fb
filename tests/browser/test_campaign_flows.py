"""Campaign flows in a real browser: the GM on a laptop, the players on their phones.

Each person has their own browser context (own cookies, own viewport). Data a test needs
but does not exercise (users, a campaign the flow starts from) is made through the
services; everything the flow is about happens through the pages.

Elements are found by role and a pattern that matches both languages, by form field ids,
by data-testid or by the address a link goes to: the translations change while these
tests are written, the page structure does not.
"""

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from campaigns.models import Campaign, JournalEntry, Membership
from campaigns.services import campaign_create, campaign_join
from characters.models import Character, DpEntry
from tests.browser.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "hjortspår-i-frusen-mark"
LAPTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
CAMPAIGN_URL = re.compile(r"/campaigns/(\d+)/$")
LOG_IN = re.compile(r"^(Logga in|Log in)$")
JOIN = re.compile("Gå med i kampanjen|Join the campaign")
SAVE = re.compile("^(Spara|Save)$")
EDIT = re.compile("^(Redigera|Edit)$")
ADVANCEMENT = re.compile("^(Utveckling|Advancement)$")

# A build for a campaign with 25 starting UP and level cap 4:
# FYS 3 (4), KAO 3 (4), RÖR 3 (4), SIN 4 (10), VIL 2 (1), Vildmark 2 (1) = 24 UP, 1 left.
STINA_ATTRIBUTES = {"physique": 3, "composure": 3, "agility": 3, "alertness": 4, "willpower": 2}
STINA_SKILLS = {"wilderness": 2}
ALBERT = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}


# --- helpers -------------------------------------------------------------------------------


def device(browser, kind):
    context = browser.new_context(**kind)
    return context, context.new_page()


def log_in(page, live_server, username, next_path="/"):
    page.goto(f"{live_server.url}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=LOG_IN).click()
    expect(page.locator("#id_password")).to_have_count(0)


def overflow(page) -> int:
    """How many CSS pixels the page is wider than the screen (0: no sideways scrolling)."""
    return page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def seat(page, username):
    """The seat of `username` in the campaign page's seat list."""
    return page.locator("#seats ol.seats > li").filter(
        has=page.locator(".seat-head strong", has_text=re.compile(f"^{re.escape(username)}$"))
    )


@pytest.fixture
def snap(shot):
    """`shot`, once the page's images (the invitation's QR code) have loaded."""

    def take(page, name):
        page.wait_for_function(
            "() => [...document.images].every(img => img.complete && img.naturalWidth > 0)"
        )
        return shot(page, name)

    return take


@pytest.fixture
def element_shot(request):
    """element_shot(locator, "name") saves a screenshot of one part of a page, beside
    the full-page ones of `shot`."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(locator, name):
        path = SCREENSHOTS / f"{request.node.name}-{name}.png"
        locator.screenshot(path=str(path))
        return path

    return take


@pytest.fixture
def users(django_user_model):
    def make(*names):
        return [django_user_model.objects.create_user(name, password=PASSWORD) for name in names]

    return make


@pytest.fixture
def nattens_kant(users):
    """Nattens kant (25 starting UP, level cap 4), run by spelledaren, with spelaren and
    tvåan at the table."""
    gm, player, other = users("spelledaren", "spelaren", "tvåan")
    campaign = campaign_create(gm=gm, name="Nattens kant", starting_dp=25, level_cap=4)
    campaign_join(campaign=campaign, user=player)
    campaign_join(campaign=campaign, user=other)
    return campaign


def user(username):
    return get_user_model().objects.get(username=username)


# --- 1. create a campaign, join it with the code and with the link ------------------------


def test_gm_creates_campaign_and_players_join_by_code_and_by_link(
    browser, live_server, users, snap
):
    gm_context, gm = device(browser, LAPTOP)

    # The GM signs up on a laptop and starts a campaign from the Campaigns page.
    gm.goto(f"{live_server.url}/accounts/signup/")
    gm.fill("#id_username", "spelledaren")
    gm.fill("#id_password1", PASSWORD)
    gm.fill("#id_password2", PASSWORD)
    gm.get_by_role("button", name=re.compile("Skapa konto|Create account")).click()
    expect(gm).to_have_url(re.compile(r"/characters/$"))
    gm.get_by_role("navigation").get_by_role("link", name=re.compile("Kampanjer|Campaigns")).click()
    expect(gm).to_have_url(re.compile(r"/campaigns/$"))
    snap(gm, "1-gm-campaigns-empty")
    gm.get_by_role("link", name=re.compile("Ny kampanj|New campaign")).click()
    gm.fill("#id_name", "Nattens kant")
    expect(gm.locator("#id_rule_system")).to_have_value("aoristos")
    gm.fill("#id_starting_dp", "25")
    gm.fill("#id_level_cap", "4")
    snap(gm, "2-gm-new-campaign")
    gm.get_by_role("button", name=re.compile("Skapa kampanj|Create campaign")).click()

    expect(gm).to_have_url(CAMPAIGN_URL)
    expect(gm.get_by_role("heading", name="Nattens kant", level=1)).to_be_visible()
    expect(gm.locator("main .heading .meta")).to_contain_text("25")
    expect(gm.locator("main .heading .meta")).to_contain_text("4")
    campaign = Campaign.objects.get()
    assert (campaign.gm.username, campaign.starting_dp, campaign.level_cap) == (
        "spelledaren",
        25,
        4,
    )

    code = gm.get_by_test_id("join-code").inner_text().strip()
    assert code == campaign.join_code
    assert len(code) == 6
    invite_url = gm.get_by_test_id("invite-url").input_value()
    assert invite_url.endswith(f"/campaigns/join/{campaign.invite_token}/"), invite_url
    gm.wait_for_function(
        "() => { const img = document.querySelector('img.qr');"
        " return img && img.complete && img.naturalWidth > 0; }"
    )
    assert gm.locator("img.qr").evaluate("img => img.naturalWidth") > 0
    qr = gm.request.get(f"{live_server.url}/campaigns/{campaign.pk}/invite.svg")
    assert qr.ok
    assert qr.headers["content-type"].startswith("image/svg+xml")
    snap(gm, "3-gm-campaign-with-invitation")

    # A player on a phone joins with the code, typed in lower case with spaces.
    users("spelaren", "tvåan")
    player_context, player = device(browser, PHONE)
    log_in(player, live_server, "spelaren")
    player.get_by_role("navigation").get_by_role(
        "link", name=re.compile("Kampanjer|Campaigns")
    ).click()
    expect(player).to_have_url(re.compile(r"/campaigns/$"))
    snap(player, "4-player-campaigns-empty")
    player.get_by_role("link", name=re.compile("Gå med|Join with a code")).click()
    typed = f"  {code[:3].lower()} {code[3:].lower()} "
    player.fill("#id_code", typed)
    snap(player, "5-player-types-code")
    player.get_by_role("button", name=re.compile("Hitta kampanjen|Find the campaign")).click()
    expect(player).to_have_url(re.compile(f"/campaigns/join/{re.escape(campaign.invite_token)}/$"))
    expect(player.get_by_role("heading", level=1)).to_contain_text("Nattens kant")
    snap(player, "6-player-confirms-joining")
    assert not Membership.objects.filter(campaign=campaign, user__username="spelaren").exists()
    player.get_by_role("button", name=JOIN).click()
    expect(player).to_have_url(CAMPAIGN_URL)
    expect(player.get_by_role("heading", name="Nattens kant", level=1)).to_be_visible()
    expect(seat(player, "spelaren")).to_have_count(1)
    # The invitation is the GM's to hand out: no code, link or QR code for players.
    expect(player.get_by_test_id("join-code")).to_have_count(0)
    expect(player.locator("img.qr")).to_have_count(0)
    snap(player, "7-player-in-campaign")

    # The GM reloads and sees the player at the table, after the GM's own seat.
    gm.reload()
    expect(seat(gm, "spelaren")).to_have_count(1)
    names = gm.locator("#seats ol.seats > li .seat-head strong").all_inner_texts()
    assert names == ["spelledaren", "spelaren"]
    snap(gm, "8-gm-sees-player-seated")

    # Another player opens the invitation link on their own phone: log in, then join.
    # The link names the LAN address when the GM browses as localhost (core.network), which
    # the test server does not listen on: open the same path on the test server.
    other_context, other = device(browser, PHONE)
    other.goto(live_server.url + urlsplit(invite_url).path)
    expect(other).to_have_url(re.compile(r"/accounts/login/\?next=/campaigns/join/"))
    expect(other.locator("ul.messages")).to_contain_text("Nattens kant")
    snap(other, "9-second-player-asked-to-log-in")
    other.fill("#id_username", "tvåan")
    other.fill("#id_password", PASSWORD)
    other.get_by_role("button", name=LOG_IN).click()
    expect(other).to_have_url(re.compile(f"/campaigns/join/{re.escape(campaign.invite_token)}/$"))
    snap(other, "10-second-player-confirms-joining")
    other.get_by_role("button", name=JOIN).click()
    expect(other).to_have_url(CAMPAIGN_URL)
    expect(seat(other, "tvåan")).to_have_count(1)
    snap(other, "11-second-player-joined-by-link")

    gm.reload()
    names = gm.locator("#seats ol.seats > li .seat-head strong").all_inner_texts()
    assert names == ["spelledaren", "spelaren", "tvåan"]
    assert list(campaign.memberships.values_list("user__username", "role", "seat")) == [
        ("spelledaren", "gm", 0),
        ("spelaren", "player", 1),
        ("tvåan", "player", 2),
    ]
    snap(gm, "12-gm-sees-both-players")

    # Phones do not scroll sideways on these pages.
    for page in (player, other):
        assert overflow(page) == 0, f"{page.url} is {overflow(page)} px wider than the phone"

    for context in (gm_context, player_context, other_context):
        context.close()


def test_wrong_join_code_says_so(browser, live_server, users, snap):
    gm, _player = users("spelledaren", "spelaren")
    campaign = campaign_create(gm=gm, name="Nattens kant")
    context, player = device(browser, PHONE)
    log_in(player, live_server, "spelaren", "/campaigns/join/")
    wrong = "ABCDEF" if campaign.join_code != "ABCDEF" else "GHJKMN"
    find = player.get_by_role("button", name=re.compile("Hitta kampanjen|Find the campaign"))
    player.fill("#id_code", wrong)
    find.click()
    expect(player.locator(".field.invalid .error")).to_be_visible()
    expect(player.locator("#id_code")).to_have_value(wrong)
    player.fill("#id_code", "abc")
    find.click()
    expect(player.locator(".field.invalid .error")).to_contain_text("6")
    snap(player, "1-code-too-short")
    assert not Membership.objects.filter(user__username="spelaren").exists()
    context.close()


def test_new_player_signs_up_from_the_invitation_link(browser, live_server, nattens_kant, snap):
    campaign = nattens_kant
    context, newcomer = device(browser, PHONE)
    newcomer.goto(f"{live_server.url}/campaigns/join/{campaign.invite_token}/")
    expect(newcomer).to_have_url(re.compile(r"/accounts/login/\?next="))
    # "Log in or sign up to join Nattens kant": the newcomer has no account yet.
    newcomer.locator("main").get_by_role("link", name=re.compile("Registrera|Sign up")).click()
    newcomer.fill("#id_username", "nykomlingen")
    newcomer.fill("#id_password1", PASSWORD)
    newcomer.fill("#id_password2", PASSWORD)
    newcomer.get_by_role("button", name=re.compile("Skapa konto|Create account")).click()
    expect(newcomer.locator("#id_password1")).to_have_count(0)
    snap(newcomer, "1-after-sign-up")
    # Signing up from the invitation answers it (issue 43): in the campaign, seated.
    expect(newcomer).to_have_url(re.compile(rf"/campaigns/{campaign.pk}/$"), timeout=3_000)
    expect(seat(newcomer, "nykomlingen")).to_have_count(1)
    context.close()


# --- 2. a character made in the campaign ----------------------------------------------------


def test_player_creates_character_in_campaign_others_see_it_read_only(
    browser, live_server, nattens_kant, snap, element_shot
):
    campaign = nattens_kant
    player_context, player = device(browser, PHONE)
    log_in(player, live_server, "spelaren", f"/campaigns/{campaign.pk}/")
    player.get_by_role(
        "link", name=re.compile("Skapa en rollperson i den här kampanjen|Create a character in")
    ).click()
    expect(player).to_have_url(re.compile(rf"/characters/new/\?campaign={campaign.pk}$"))

    # The GM's UP budget and level cap, not the player's to change.
    expect(player.locator("#id_dp_budget")).to_have_value("25")
    expect(player.locator("#id_dp_budget")).to_be_disabled()
    expect(player.locator("#id_level_cap")).to_have_value("4")
    expect(player.locator("#id_level_cap")).to_be_disabled()
    expect(player.locator("main form.builder")).to_contain_text("Nattens kant")
    element_shot(player.locator("section.identity"), "1-limits-from-the-campaign")

    player.fill("#id_name", "Stina")
    player.fill("#id_concept", "Orädd kartritare")
    # The campaign's cap of 4 applies live: SIN 5 is refused before saving.
    player.fill("#id_alertness", "5")
    expect(player.locator("#status-alertness .error")).to_contain_text("4")
    snap(player, "2-builder-above-level-cap")
    for key, level in {**STINA_ATTRIBUTES, **STINA_SKILLS}.items():
        player.fill(f"#id_{key}", str(level))
    expect(player.get_by_test_id("dp-spent")).to_have_text("24")
    expect(player.get_by_test_id("saved-dp")).to_have_text("1")  # 25 UP, 24 spent
    expect(player.locator("#status-alertness .error")).to_have_count(0)
    snap(player, "3-builder-valid")
    player.get_by_role("button", name=SAVE).click()

    expect(player).to_have_url(re.compile(r"/characters/\d+/$"))
    expect(player.get_by_role("heading", name="Stina", level=1)).to_be_visible()
    stina = Character.objects.get(name="Stina")
    assert (stina.owner.username, stina.campaign_id) == ("spelaren", campaign.pk)
    assert (stina.dp_budget, stina.level_cap) == (25, 4)
    assert stina.attributes == STINA_ATTRIBUTES
    assert stina.skills["wilderness"] == 2
    snap(player, "4-sheet")
    assert overflow(player) == 0, f"the sheet is {overflow(player)} px too wide"

    # On the campaign page, under the player's seat.
    player.locator("main .meta").get_by_role("link", name="Nattens kant").click()
    expect(player).to_have_url(CAMPAIGN_URL)
    expect(seat(player, "spelaren").locator(".seat-characters")).to_contain_text("Stina")
    expect(seat(player, "tvåan").locator(".seat-characters li")).to_have_count(0)
    snap(player, "5-campaign-with-character")

    # The other player, in English this time, sees the sheet but may not edit it.
    other_context, other = device(browser, PHONE)
    log_in(other, live_server, "tvåan", f"/campaigns/{campaign.pk}/")
    other.get_by_role("button", name="EN").click()
    expect(other.locator("html")).to_have_attribute("lang", "en")
    seat(other, "spelaren").get_by_role("link", name="Stina").click()
    expect(other).to_have_url(re.compile(rf"/characters/{stina.pk}/$"))
    expect(other.get_by_role("heading", name="Stina", level=1)).to_be_visible()
    expect(other.locator(f'a[href="/characters/{stina.pk}/edit/"]')).to_have_count(0)
    expect(other.locator(f'a[href="/characters/{stina.pk}/advancement/"]')).to_have_count(0)
    expect(other.locator("main").get_by_role("link", name=EDIT)).to_have_count(0)
    expect(other.locator("#equipment form.add-item")).to_have_count(0)
    snap(other, "6-other-player-reads-sheet-in-english")
    for path in ("edit/", "advancement/"):
        response = other.goto(f"{live_server.url}/characters/{stina.pk}/{path}")
        assert response.status == 403, f"{path}: {response.status}"
    snap(other, "7-other-player-403-on-edit")

    # The GM opens the edit page, budget and cap included.
    gm_context, gm = device(browser, LAPTOP)
    log_in(gm, live_server, "spelledaren", f"/characters/{stina.pk}/")
    gm.locator("main").get_by_role("link", name=EDIT).click()
    expect(gm).to_have_url(re.compile(rf"/characters/{stina.pk}/edit/$"))
    expect(gm.locator("#id_name")).to_have_value("Stina")
    expect(gm.locator("#id_dp_budget")).to_be_enabled()
    expect(gm.locator("#id_alertness")).to_have_value("4")
    snap(gm, "8-gm-edits-character")

    for context in (player_context, other_context, gm_context):
        context.close()


def test_forbidden_page_is_the_sites_own(browser, live_server, nattens_kant, snap):
    stina = Character.objects.create(
        owner=user("spelaren"), campaign=nattens_kant, name="Stina", attributes=STINA_ATTRIBUTES
    )
    context, other = device(browser, PHONE)
    log_in(other, live_server, "tvåan", "/characters/")
    response = other.goto(f"{live_server.url}/characters/{stina.pk}/edit/")
    assert response.status == 403
    snap(other, "1-forbidden")
    expect(other.locator("html")).to_have_attribute("lang", "sv", timeout=1_000)
    expect(other.locator("header.site nav")).to_be_visible(timeout=1_000)
    assert overflow(other) == 0
    context.close()


# --- 3. awards, spends and undo --------------------------------------------------------------


def stina_and_albert(campaign):
    stina = Character.objects.create(
        owner=user("spelaren"),
        campaign=campaign,
        name="Stina",
        attributes=STINA_ATTRIBUTES,
        skills=STINA_SKILLS,
        dp_budget=25,
        level_cap=4,
    )
    albert = Character.objects.create(
        owner=user("tvåan"), campaign=campaign, name="Albert", attributes=ALBERT
    )
    return stina, albert


def test_gm_awards_group_and_player_spends_and_undoes(browser, live_server, nattens_kant, snap):
    campaign = nattens_kant
    stina, albert = stina_and_albert(campaign)
    assert (stina.saved_dp(), albert.saved_dp()) == (1, 0)

    gm_context, gm = device(browser, LAPTOP)
    log_in(gm, live_server, "spelledaren", f"/campaigns/{campaign.pk}/")
    gm.locator("main .actions").get_by_role("link", name=re.compile("Dela ut UP|Award UP")).click()
    expect(gm).to_have_url(re.compile(rf"/campaigns/{campaign.pk}/awards/$"))
    expect(gm.locator("#id_target")).to_have_value("all")
    expect(gm.get_by_test_id(f"saved-dp-{stina.pk}")).to_have_text("1")
    expect(gm.get_by_test_id(f"saved-dp-{albert.pk}")).to_have_text("0")
    award = gm.locator("form.award-form").get_by_role(
        "button", name=re.compile("^(Dela ut UP|Award UP)$")
    )

    # A free amount with a reason, to the whole group.
    expect(gm.locator('input[name="method"][value="free"]')).to_be_checked()
    gm.fill("#id_amount", "3")
    gm.fill("#id_reason", "Första sessionen")
    expect(gm.get_by_test_id("award-amount")).to_have_text("3")
    snap(gm, "1-gm-free-award-preview")
    award.click()
    expect(gm.locator("ul.messages")).to_contain_text("3")
    expect(gm.get_by_test_id(f"saved-dp-{stina.pk}")).to_have_text("4")
    expect(gm.get_by_test_id(f"saved-dp-{albert.pk}")).to_have_text("3")
    snap(gm, "2-gm-free-award-done")

    # By the training table: 4 h a day for 2 months is 2 UP a month, 4 UP (p. 3).
    gm.locator('input[name="method"][value="training"]').check()
    expect(gm.locator("#id_training_hours")).to_be_visible()
    expect(gm.locator("#id_amount")).to_be_hidden()
    gm.fill("#id_training_hours", "4")
    gm.fill("#id_training_months", "2")
    expect(gm.get_by_test_id("award-amount")).to_have_text("4")
    assert DpEntry.objects.filter(kind=DpEntry.Kind.AWARD).count() == 2  # a preview saves nothing
    snap(gm, "3-gm-training-award-preview")
    award.click()
    expect(gm.get_by_test_id(f"saved-dp-{stina.pk}")).to_have_text("8")
    expect(gm.get_by_test_id(f"saved-dp-{albert.pk}")).to_have_text("7")
    snap(gm, "4-gm-training-award-done")
    assert sorted(
        DpEntry.objects.filter(character=stina).values_list("amount", "dp_before", "dp_after")
    ) == [(3, 1, 4), (4, 4, 8)]

    # The player opens the advancement page from the sheet and raises Skjutvapen.
    player_context, player = device(browser, PHONE)
    log_in(player, live_server, "spelaren", f"/characters/{stina.pk}/")
    player.locator("main").get_by_role("link", name=ADVANCEMENT).click()
    expect(player).to_have_url(re.compile(rf"/characters/{stina.pk}/advancement/$"))
    expect(player.get_by_test_id("saved-dp")).to_have_text("8")
    expect(player.get_by_test_id("level-firearms")).to_have_text("0")
    expect(player.get_by_test_id("raise-firearms")).to_contain_text("0 UP")
    expect(player.locator("section.award")).to_have_count(0)  # awards are the GM's
    snap(player, "5-player-advancement")

    player.get_by_test_id("raise-firearms").click()  # 0 → 1 costs 0
    expect(player.get_by_test_id("level-firearms")).to_have_text("1")
    expect(player.get_by_test_id("saved-dp")).to_have_text("8")
    expect(player.get_by_test_id("raise-firearms")).to_contain_text("1 UP")
    player.get_by_test_id("raise-firearms").click()  # 1 → 2 costs 1
    expect(player.get_by_test_id("level-firearms")).to_have_text("2")
    expect(player.get_by_test_id("saved-dp")).to_have_text("7")
    expect(player.get_by_test_id("notice")).to_contain_text("Skjutvapen")

    ledger = player.locator(".ledger-table tbody tr")
    expect(ledger).to_have_count(4)  # newest first: two spends, two awards
    expect(ledger.nth(0)).to_contain_text("Skjutvapen 1 → 2")
    expect(ledger.nth(0)).to_contain_text("8 → 7")
    expect(ledger.nth(0)).to_contain_text("-1")
    expect(ledger.nth(1)).to_contain_text("Skjutvapen 0 → 1")
    expect(ledger.nth(1)).to_contain_text("8 → 8")
    expect(ledger.nth(2)).to_contain_text("+4")
    expect(ledger.nth(2)).to_contain_text("4 → 8")
    expect(ledger.nth(3)).to_contain_text("Första sessionen")
    expect(ledger.nth(3)).to_contain_text("1 → 4")
    snap(player, "6-player-raised-skjutvapen")

    # Undo the latest spend: back to 1, the UP back.
    expect(player.get_by_test_id("undo")).to_contain_text("Skjutvapen")
    player.get_by_test_id("undo").click()
    expect(player.get_by_test_id("level-firearms")).to_have_text("1")
    expect(player.get_by_test_id("saved-dp")).to_have_text("8")
    expect(ledger).to_have_count(5)
    expect(ledger.nth(0)).to_contain_text("Skjutvapen 2 → 1")
    expect(ledger.nth(0)).to_contain_text("7 → 8")
    expect(ledger.nth(1)).to_have_class(re.compile(r"\bundone\b"))
    # Only the latest spend can be undone, and only once: no older spend is offered.
    expect(player.get_by_test_id("undo")).to_have_count(0)
    snap(player, "7-player-undid-spend")
    assert stina.levels()["firearms"] == 1
    assert stina.saved_dp() == 8

    # Reloaded, the page shows the same (nothing was only on the screen).
    player.reload()
    expect(player.get_by_test_id("level-firearms")).to_have_text("1")
    expect(player.get_by_test_id("saved-dp")).to_have_text("8")

    gm_context.close()
    player_context.close()


def test_advancement_page_fits_a_phone(browser, live_server, nattens_kant, snap):
    stina, _albert = stina_and_albert(nattens_kant)
    context, player = device(browser, PHONE)
    log_in(player, live_server, "spelaren", f"/characters/{stina.pk}/advancement/")
    # SIN 4 is at the campaign's cap: its row says so beside the disabled button.
    expect(player.get_by_test_id("blocked-alertness")).to_be_visible()
    snap(player, "1-advancement-on-a-phone")
    wide = player.evaluate(
        """() => [...document.querySelectorAll('main table')]
              .filter(t => !t.closest('.scroll'))
              .map(t => Math.round(t.getBoundingClientRect().right))
              .filter(right => right > document.documentElement.clientWidth)"""
    )
    assert overflow(player) == 0, f"{overflow(player)} px too wide; tables end at {wide}"
    context.close()


# --- 4. the journal ----------------------------------------------------------------------------

MARKDOWN = """Vi mötte **Vargen** vid bron.

- Albert skadades
- Stina hittade kartan

Läs mer på [wikin](https://example.org/aoristos).

<script>alert(1)</script>
"""


def test_journal_markdown_is_rendered_safely_and_gm_pins_recap(
    browser, live_server, nattens_kant, snap
):
    campaign = nattens_kant
    dialogs = []
    player_context, player = device(browser, PHONE)
    player.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    log_in(player, live_server, "spelaren", f"/campaigns/{campaign.pk}/")
    player.locator("main .actions").get_by_role("link", name=re.compile("^Journal$")).click()
    expect(player).to_have_url(re.compile(rf"/campaigns/{campaign.pk}/journal/$"))

    form = player.locator("form.journal-form")
    add = form.get_by_role("button", name=re.compile("Lägg till i journalen|Add to the journal"))
    player.fill("#id_title", "Första kvällen")
    player.fill("#id_body", "Vi samlades på värdshuset.")
    add.click()
    expect(player).to_have_url(re.compile(r"/journal/#entry-\d+$"))

    player.fill("#id_title", "Bron vid Svartå")
    player.fill("#id_body", MARKDOWN)
    # htmx: the rendered text under the form, nothing saved.
    form.get_by_role("button", name=re.compile("Förhandsvisning|Preview")).click()
    expect(player.get_by_test_id("preview").locator("strong")).to_have_text("Vargen")
    assert JournalEntry.objects.count() == 1
    snap(player, "1-player-previews-entry")
    add.click()
    expect(player).to_have_url(re.compile(r"/journal/#entry-\d+$"))

    # Newest first.
    entries = player.locator("article.journal-entry")
    expect(entries).to_have_count(2)
    expect(entries.nth(0).get_by_role("heading", level=2)).to_have_text("Bron vid Svartå")
    expect(entries.nth(1).get_by_role("heading", level=2)).to_have_text("Första kvällen")
    body = entries.nth(0).locator(".journal-body")
    expect(body.locator("strong")).to_have_text("Vargen")
    expect(body.locator("ul > li")).to_have_text(["Albert skadades", "Stina hittade kartan"])
    link = body.get_by_role("link", name="wikin")
    expect(link).to_have_attribute("href", "https://example.org/aoristos")
    expect(link).to_have_attribute("rel", "nofollow noopener")
    # The script tag is shown as text and never runs.
    expect(body).to_contain_text("<script>alert(1)</script>")
    expect(body.locator("script")).to_have_count(0)
    snap(player, "2-player-entry-rendered")
    assert dialogs == [], f"the journal ran a script: {dialogs}"
    assert overflow(player) == 0, f"the journal is {overflow(player)} px too wide"

    # The GM pins the entry as the recap.
    entry = JournalEntry.objects.get(title="Bron vid Svartå")
    gm_context, gm = device(browser, LAPTOP)
    log_in(gm, live_server, "spelledaren", f"/campaigns/{campaign.pk}/journal/")
    gm.locator(f"#entry-{entry.pk}").get_by_role(
        "button", name=re.compile("Fäst|Pin as the recap")
    ).click()
    recap = gm.get_by_test_id("recap")
    expect(recap).to_have_count(1)
    expect(recap.get_by_role("heading", level=2)).to_have_text("Bron vid Svartå")
    expect(recap.locator(".journal-body strong")).to_have_text("Vargen")
    # The recap comes first, above the form for a new entry.
    expect(gm.locator("article.journal-entry").first).to_have_attribute("id", f"entry-{entry.pk}")
    snap(gm, "3-gm-pinned-recap")
    entry.refresh_from_db()
    assert entry.pinned

    gm.locator(".journal .meta").get_by_role("link", name=re.compile("Nattens kant")).click()
    expect(gm).to_have_url(CAMPAIGN_URL)
    expect(gm.locator("section.recap")).to_contain_text("Bron vid Svartå")
    snap(gm, "4-gm-campaign-recap")

    player.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    expect(player.locator("section.recap")).to_contain_text("Bron vid Svartå")
    player.locator("section.recap").get_by_role(
        "link", name=re.compile("Läs den i journalen|Read it in the journal")
    ).click()
    expect(player.get_by_test_id("recap")).to_contain_text("Vargen")
    # Only the GM pins.
    expect(player.locator("form[action$='/pin/']")).to_have_count(0)
    snap(player, "5-player-reads-recap")
    assert dialogs == [], f"a page ran a script: {dialogs}"

    gm_context.close()
    player_context.close()


# --- 5. the GM removes a player --------------------------------------------------------------


def test_gm_removes_player_who_keeps_characters_but_loses_campaign(
    browser, live_server, nattens_kant, snap
):
    campaign = nattens_kant
    albert = Character.objects.create(
        owner=user("tvåan"), campaign=campaign, name="Albert", attributes=ALBERT
    )
    gm_context, gm = device(browser, LAPTOP)
    log_in(gm, live_server, "spelledaren", f"/campaigns/{campaign.pk}/")
    expect(seat(gm, "tvåan").locator(".seat-characters")).to_contain_text("Albert")
    snap(gm, "1-gm-before-removing")
    remove = seat(gm, "tvåan").get_by_role("button", name=re.compile("^(Ta bort|Remove)$"))

    # The GM is asked first; saying no changes nothing.
    asked = []
    gm.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    remove.click()
    expect(seat(gm, "tvåan")).to_have_count(1)
    assert len(asked) == 1, asked
    assert Membership.objects.filter(campaign=campaign, user__username="tvåan").exists()

    gm.once("dialog", lambda dialog: dialog.accept())
    remove.click()
    expect(seat(gm, "tvåan")).to_have_count(0)
    expect(gm.locator("ul.messages")).to_contain_text("tvåan")
    expect(seat(gm, "spelaren")).to_have_count(1)
    expect(gm.locator("#seats")).not_to_contain_text("Albert")
    snap(gm, "2-gm-after-removing")
    albert.refresh_from_db()
    assert albert.campaign_id is None
    assert albert.owner.username == "tvåan"

    other_context, other = device(browser, PHONE)
    log_in(other, live_server, "tvåan", "/characters/")
    expect(other).to_have_url(re.compile(r"/characters/$"))
    expect(other.locator("main").get_by_role("link", name="Albert")).to_be_visible()
    snap(other, "3-removed-player-keeps-albert")
    other.locator("main").get_by_role("link", name="Albert").click()
    expect(other.get_by_role("heading", name="Albert", level=1)).to_be_visible()
    expect(other.locator(f'a[href="/campaigns/{campaign.pk}/"]')).to_have_count(0)

    other.get_by_role("navigation").get_by_role(
        "link", name=re.compile("Kampanjer|Campaigns")
    ).click()
    expect(other).to_have_url(re.compile(r"/campaigns/$"))
    expect(other.locator(f'a[href="/campaigns/{campaign.pk}/"]')).to_have_count(0)
    for path in ("journal/", "table/", ""):
        response = other.goto(f"{live_server.url}/campaigns/{campaign.pk}/{path}")
        assert response.status == 404, f"{path}: {response.status}"
    expect(other.locator("header.site")).to_be_visible()  # the site's own 404 page
    snap(other, "4-removed-player-gets-404")

    other_context.close()
    gm_context.close()
