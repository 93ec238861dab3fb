"""Your campaign is yours (issue 30), in the browser against the real server: the GM
downloads the campaign's archive, imports it as a new campaign (members left as
placeholders, as on a server where nobody has an account yet) and watches its progress;
the player joins the new campaign with the join code and the GM hands Albert's
placeholder to her; the fight reads as it did; she downloads what she sees, and takes
Albert away on his own and brings him back into her account.

The campaign has 12,000 old rolls, so the import runs long enough (a second or two) for
its progress bar to be seen."""

import io
import json
import re
import zipfile

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from archive.models import Placeholder
from campaigns.models import Campaign
from characters.models import Character, DpEntry
from table.models import RollEvent
from tests.archive.test_roundtrip import play_to_the_end
from tests.browser.test_live_table import PASSWORD
from tests.browser.test_simulation import prepared  # noqa: F401 (a fixture)
from tests.browser.test_sweep import check
from tests.browser.watch import wait_while_it_advances

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}
ROLLS = 12_000


@pytest.fixture
def played(prepared):  # noqa: F811 (the imported fixture)
    """test_simulation's fight of Albert and the guard, played to its end; Albert has an
    award in his ledger and the campaign ROLLS old rolls."""
    campaign = prepared.campaign
    gm = campaign.gm
    albert = campaign.characters.get()
    DpEntry.objects.create(character=albert, kind="award", amount=4, reason="Tåget",
                           dp_before=0, dp_after=4, created_by=gm)
    campaign.refresh_from_db()
    first = campaign.event_seq + 1  # after the fight's set-up records
    RollEvent.objects.bulk_create(
        RollEvent(campaign=campaign, seq=seq, actor=albert.owner, kind="hand", hand="2B",
                  dice=[2, 6], counted=[2, 6], result=8) for seq in range(first, first + ROLLS))
    Campaign.objects.filter(pk=campaign.pk).update(event_seq=first + ROLLS - 1)
    play_to_the_end(prepared, gm)
    return campaign


def logged_in(browser, site_server, username, viewport):
    context = browser.new_context(viewport=viewport, has_touch=viewport is PHONE,
                                  accept_downloads=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    page.wait_for_url(re.compile(r"^(?!.*/accounts/login/)"))
    return page, errors


def downloaded(page, button, tmp_path, name) -> bytes:
    with page.expect_download() as info:
        button.click()
    path = tmp_path / name
    info.value.save_as(path)
    return path.read_bytes()


def test_the_gm_takes_the_campaign_away_and_brings_it_back(browser, site_server, played,
                                                           shot, tmp_path):
    gm, gm_errors = logged_in(browser, site_server, "spelledaren", DESKTOP)
    gm.goto(f"{site_server.url}/campaigns/{played.pk}/")
    archive = gm.get_by_test_id("archive")
    expect(archive).to_contain_text("Hela kampanjen som en fil")
    shot(gm, "01-gm-campaign-archive")
    data = downloaded(gm, archive.get_by_test_id("archive-download"), tmp_path, "gm.zip")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        manifest = json.loads(z.read("manifest.json"))
    assert manifest["audience"] == "gm"
    assert manifest["counts"]["rolls"] == ROLLS

    # Import it (every member waits as a placeholder): the progress, then the result.
    gm.goto(f"{site_server.url}/campaigns/")
    gm.get_by_test_id("import-campaign").click()
    form = gm.get_by_test_id("import-form")
    form.locator('input[type="file"]').set_input_files(str(tmp_path / "gm.zip"))
    form.get_by_role("button", name="Importera").click()
    job = gm.get_by_test_id("import-job")
    expect(job).to_have_attribute("data-status", "running")
    expect(job.locator("progress")).to_be_visible()
    expect(job).to_contain_text(re.compile(r"[\d\s ]+ av [\d\s ]+ rader"))
    shot(gm, "02-gm-import-progress")
    wait_while_it_advances(
        gm, gm.locator('[data-testid="import-job"][data-status="done"]'),
        "[document.querySelector('#import-job')?.dataset.done,"
        " document.querySelector('#import-job')?.dataset.status]", what="the import")
    expect(job.get_by_test_id("import-done")).to_contain_text("Importerat")
    expect(job).to_contain_text("väntar som platshållare")
    shot(gm, "03-gm-import-done")
    job.get_by_role("link", name="Öppna kampanjen").click()
    made = Campaign.objects.exclude(pk=played.pk).get()
    assert made.gm.username == "spelledaren"
    expect(gm.get_by_test_id("placeholder-seat")).to_have_count(1)  # spelaren's place
    expect(gm.get_by_test_id("placeholder")).to_contain_text("spelaren")
    expect(gm.get_by_test_id("archive")).to_contain_text("Ingen spelare med konto")

    # The player joins the new campaign with its code; the GM gives her the placeholder.
    player, player_errors = logged_in(browser, site_server, "spelaren", PHONE)
    player.goto(f"{site_server.url}/campaigns/join/")
    player.fill('input[name="code"]', made.join_code)
    player.get_by_role("button", name=re.compile("Hitta kampanjen")).click()
    player.get_by_role("button", name=re.compile("Gå med i kampanjen|Join the campaign")).click()
    player.wait_for_url(re.compile(rf"/campaigns/{made.pk}/$"))
    gm.reload()
    holder = gm.get_by_test_id("placeholder")
    holder.locator('select[name="member"]').select_option(label="spelaren")
    holder.get_by_role("button", name="Ge bort").click()
    expect(gm.get_by_test_id("placeholder")).to_have_count(0)
    shot(gm, "04-gm-handed-over")
    albert = made.characters.get()
    assert albert.owner.username == "spelaren"
    assert not Placeholder.objects.exists()
    assert get_user_model().objects.filter(username__startswith="spelaren").count() == 1

    # The fight reads as it did: the same log lines on the imported encounter's page.
    old_fight = played.encounters.get(kind="combat")
    new_fight = made.encounters.get(kind="combat")
    assert new_fight.version == old_fight.version
    assert new_fight.ended
    player.goto(f"{site_server.url}/encounters/{new_fight.pk}/")
    expect(player.locator("#story")).to_be_visible()
    shot(player, "05-player-imported-fight")

    # She downloads what she sees: a player's archive, without the GM's secrets.
    player.goto(f"{site_server.url}/campaigns/{made.pk}/")
    mine = downloaded(player, player.get_by_test_id("archive-download"), tmp_path, "p.zip")
    with zipfile.ZipFile(io.BytesIO(mine)) as z:
        assert json.loads(z.read("manifest.json"))["audience"] == "player"
        assert "records.jsonl" not in z.namelist()

    # Albert on his own: downloaded from his sheet, imported into her account again.
    player.goto(f"{site_server.url}/characters/{albert.pk}/")
    file = downloaded(player, player.get_by_test_id("character-download"), tmp_path,
                      "albert.json")
    assert json.loads(file)["character"]["name"] == "Albert"
    player.goto(f"{site_server.url}/characters/")
    player.get_by_test_id("import-character").click()
    problems = check(player, "06-player-character-import", shot)
    form = player.get_by_test_id("character-import-form")
    form.locator('input[type="file"]').set_input_files(str(tmp_path / "albert.json"))
    form.get_by_role("button", name="Importera").click()
    expect(player.locator("h1")).to_contain_text("Albert")
    shot(player, "07-player-imported-albert")
    copies = Character.objects.filter(owner__username="spelaren", name="Albert")
    assert copies.count() == 3  # the first, the imported campaign's, and this one
    assert copies.filter(campaign__isnull=True).get().saved_dp() == albert.saved_dp()
    assert problems == []
    assert gm_errors == []
    assert player_errors == []
