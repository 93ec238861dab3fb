"""Advancement through the UP ledger (p. 3, 4, 17): GM awards, spends, undo, history,
permissions and two spends at the same moment.

Worked figures come from the rule text, not from the code: Albert (p. 2) is FYS 3, KAO 3,
RÖR 2, SIN 5, VIL 3 for exactly 33 UP, so he starts with 0 saved UP. The price of the next
level (p. 4, "Kostnaden i UP för nästa nivå ..."; table p. 17): a skill's next level costs
its current level (0→1: 0, 1→2: 1, 2→3: 2); an attribute's next level costs a skill from
zero to that level (3→4: 6, 5→6: 15). Awards (p. 3 and the top of p. 4): travel 1 UP per
month; hardship up to 3; training per month 2 h → 1, 4 h → 2, 8 h → 3, 12+ h → 4 (gives
psyktrauma); combat 0-3 by challenge.

Pages are requested in English (language cookie) so the assertions hold once the Swedish
catalogue translates the new strings.
"""

import threading

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import services
from characters.models import Character, DpEntry
from tests.conftest import ALBERT_ATTRIBUTES

pytestmark = pytest.mark.django_db


# --- people and places ---------------------------------------------------------------------


def english_client(user=None) -> Client:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def gunnar(make_user):
    """The GM of the campaign Albert plays in."""
    return make_user("gunnar")


@pytest.fixture
def charlie(make_user):
    """An outsider: in no campaign of anyone here."""
    return make_user("charlie")


@pytest.fixture
def campaign(gunnar, alice, bob):
    campaign = Campaign.objects.create(name="Nordanvind", gm=gunnar)
    Membership.objects.create(campaign=campaign, user=gunnar, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=alice, role=Membership.Role.PLAYER, seat=1)
    Membership.objects.create(campaign=campaign, user=bob, role=Membership.Role.PLAYER, seat=2)
    return campaign


@pytest.fixture
def albert(albert, campaign):
    """Albert (p. 2) in the campaign: 33 UP build, 0 saved."""
    albert.campaign = campaign
    albert.save()
    return albert


@pytest.fixture
def berit(bob, campaign):
    """Bob's character in the same campaign: 1+1+1+1+4 = 8 of 15 UP (p. 2), 7 saved."""
    return Character.objects.create(
        owner=bob,
        campaign=campaign,
        name="Berit",
        dp_budget=15,
        attributes={"physique": 2, "composure": 2, "agility": 2, "alertness": 2, "willpower": 3},
    )


@pytest.fixture
def owner(alice):
    return english_client(alice)


@pytest.fixture
def gm(gunnar):
    return english_client(gunnar)


def page_url(character):
    return reverse("characters:advancement", args=[character.pk])


def spend_url(character):
    return reverse("characters:spend", args=[character.pk])


def undo_url(character):
    return reverse("characters:undo", args=[character.pk])


def award_url(character):
    return reverse("characters:award", args=[character.pk])


def awards_url(campaign):
    return reverse("campaigns:awards", args=[campaign.pk])


def give(character, amount, by=None):
    return services.dp_award(character=character, amount=amount, reason="test", by=by)


def snapshot(character):
    """Everything a refusal must leave alone."""
    character = Character.objects.get(pk=character.pk)
    return (
        character.levels(),
        character.saved_dp(),
        list(DpEntry.objects.values_list("pk", flat=True)),
    )


def free(amount, reason="Räddade prinsessan", **extra):
    return {"method": "free", "amount": amount, "reason": reason, **extra}


# --- awards --------------------------------------------------------------------------------


def test_gm_awards_a_free_amount_with_a_reason_to_one_character(gm, gunnar, albert):
    response = gm.post(award_url(albert), free(20))
    assert response.status_code == 302
    assert response.url == page_url(albert)
    assert albert.saved_dp() == 20
    entry = albert.ledger.get()
    assert (entry.kind, entry.amount, entry.dp_before, entry.dp_after) == ("award", 20, 0, 20)
    assert entry.reason == "Räddade prinsessan"
    assert entry.created_by == gunnar
    page = gm.get(page_url(albert)).content.decode()
    assert 'data-testid="saved-dp">20<' in page
    assert "20 UP were awarded to Albert." in page


def test_a_second_award_starts_from_the_first_ones_after(gm, albert):
    gm.post(award_url(albert), free(4))
    gm.post(award_url(albert), free(7, reason="Strapats"))
    first, second = albert.ledger.order_by("pk")
    assert (first.dp_before, first.dp_after) == (0, 4)
    assert (second.dp_before, second.dp_after) == (4, 11)
    assert albert.saved_dp() == 11


# Expected UP computed from the tables on p. 3 and the top of p. 4.
TABLE_AWARDS = [
    ({"method": "travel", "travel_months": 3}, 3),  # 1 UP per month
    ({"method": "hardship", "hardship": 2}, 2),  # up to 3
    ({"method": "training", "training_hours": 2, "training_months": 5}, 5),  # kvartsfart 1/month
    ({"method": "training", "training_hours": 6, "training_months": 2}, 4),  # 6 h → the 4 h row
    ({"method": "training", "training_hours": 8, "training_months": 1}, 3),  # helfart
    ({"method": "combat", "challenge": 1}, 1),  # the average RP would win alone
    ({"method": "combat", "challenge": 3}, 3),  # the whole group is threatened
]


@pytest.mark.parametrize(("data", "dp"), TABLE_AWARDS)
def test_gm_awards_by_the_books_tables(gm, albert, campaign, data, dp):
    data = data | {"target": str(albert.pk), "reason": "Vintern i Jämtland"}
    response = gm.post(awards_url(campaign), data)
    assert response.status_code == 302, response.context and response.context["form"].errors
    entry = albert.ledger.get()
    assert (entry.kind, entry.amount, entry.dp_before, entry.dp_after) == ("award", dp, 0, dp)
    assert entry.reason.endswith(": Vintern i Jämtland")
    assert albert.saved_dp() == dp


def test_table_awards_describe_the_table_in_the_reason(gm, albert, campaign):
    data = {"target": str(albert.pk), "method": "travel", "travel_months": 2, "reason": ""}
    assert gm.post(awards_url(campaign), data).status_code == 302
    assert albert.ledger.get().reason == "Travel, 2 months"


def test_training_twelve_hours_a_day_needs_the_psyktrauma_warning_confirmed(gm, albert, campaign):
    """p. 3: 12+ hours a day gives 4 UP per month and psyktrauma (p. 15)."""
    data = {
        "target": str(albert.pk),
        "method": "training",
        "training_hours": 12,
        "training_months": 2,
        "reason": "",
    }
    before = snapshot(albert)
    response = gm.post(awards_url(campaign), data)
    assert response.status_code == 400
    assert "psych_trauma_ok" in response.context["form"].errors
    html = response.content.decode()
    assert 'data-testid="psych-trauma-warning"' in html
    assert 'data-testid="award-amount">8<' in html
    assert snapshot(albert) == before

    response = gm.post(awards_url(campaign), data | {"psych_trauma_ok": "on"}, follow=True)
    assert response.status_code == 200
    assert albert.saved_dp() == 8
    assert "gives psyktrauma" in response.content.decode()


def test_gm_awards_the_whole_group_every_character_now_in_the_campaign(
    gm, gunnar, albert, berit, campaign, alice
):
    elsewhere = Character.objects.create(owner=alice, name="Utanför", dp_budget=15)
    response = gm.post(awards_url(campaign), free(5, target="all", reason="Sessionen"))
    assert response.status_code == 302
    assert (albert.saved_dp(), berit.saved_dp()) == (5, 12)
    berit_entry = berit.ledger.get()
    assert (berit_entry.dp_before, berit_entry.dp_after, berit_entry.created_by) == (7, 12, gunnar)
    assert not elsewhere.ledger.exists()
    page = gm.get(awards_url(campaign)).content.decode()
    assert "5 UP were awarded to each of 2 characters." in page
    assert f'data-testid="saved-dp-{berit.pk}">12<' in page


def test_group_award_with_nobody_in_the_campaign_is_refused(gm, campaign):
    response = gm.post(awards_url(campaign), free(5, target="all"))
    assert response.status_code == 400
    assert "no characters" in response.content.decode()
    assert not DpEntry.objects.exists()


def test_awards_page_target_must_be_a_character_of_this_campaign(gm, campaign, albert, bob):
    stranger = Character.objects.create(owner=bob, name="Främling")
    response = gm.post(awards_url(campaign), free(5, target=str(stranger.pk)))
    assert response.status_code == 400
    assert "target" in response.context["form"].errors
    assert not DpEntry.objects.exists()


@pytest.mark.parametrize("amount", ["-1", "0", "x", "501", "", "2.5"])
def test_bad_award_amounts_change_nothing_and_keep_what_was_typed(gm, albert, amount):
    before = snapshot(albert)
    response = gm.post(award_url(albert), free(amount, reason="Mitt skäl"))
    assert response.status_code == 400
    assert "amount" in response.context["award_form"].errors
    html = response.content.decode()
    assert 'value="Mitt skäl"' in html
    if amount:
        assert f'value="{amount}"' in html
    assert snapshot(albert) == before


def test_a_free_award_needs_a_reason(gm, albert):
    before = snapshot(albert)
    response = gm.post(award_url(albert), free(3, reason="   "))
    assert response.status_code == 400
    assert "reason" in response.context["award_form"].errors
    assert snapshot(albert) == before


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"method": "travel", "travel_months": "0"}, "travel_months"),
        ({"method": "travel", "travel_months": "121"}, "travel_months"),
        ({"method": "travel", "travel_months": "tre"}, "travel_months"),
        ({"method": "travel"}, "travel_months"),
        ({"method": "hardship", "hardship": "4"}, "hardship"),  # "upp till 3"
        ({"method": "training", "training_hours": "25", "training_months": "1"}, "training_hours"),
        ({"method": "training", "training_hours": "4"}, "training_months"),
        ({"method": "combat", "challenge": "4"}, "challenge"),  # the table has rows 0-3
        ({"method": "loot", "amount": "3"}, "method"),
    ],
)
def test_bad_table_awards_change_nothing(gm, albert, campaign, data, field):
    before = snapshot(albert)
    response = gm.post(awards_url(campaign), data | {"target": str(albert.pk), "reason": "x"})
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert snapshot(albert) == before


@pytest.mark.parametrize(
    "data",
    [
        {"method": "combat", "challenge": "0"},  # "inget hot": 0 UP
        {"method": "training", "training_hours": "1", "training_months": "3"},  # under 2 h
    ],
)
def test_a_table_row_worth_0_up_awards_nothing(gm, albert, campaign, data):
    response = gm.post(awards_url(campaign), data | {"target": str(albert.pk), "reason": ""})
    assert response.status_code == 400
    assert "gives 0 UP" in response.content.decode()
    assert not DpEntry.objects.exists()


def test_preview_shows_the_amount_and_writes_nothing(gm, albert, campaign):
    data = {"target": "all", "method": "training", "training_hours": 4, "training_months": 3}
    response = gm.post(awards_url(campaign) + "?preview=1", data, headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert 'data-testid="award-amount">6<' in html  # 4 h → 2 UP a month, 3 months
    # Without JavaScript the "Show the amount" button does the same on the whole page.
    response = gm.post(awards_url(campaign), data | {"preview": "1", "reason": ""})
    assert response.status_code == 200
    assert 'data-testid="award-amount">6<' in response.content.decode()
    assert not DpEntry.objects.exists()


def test_preview_lists_what_is_wrong(gm, albert):
    response = gm.post(
        award_url(albert) + "?preview=1", free("501"), headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert response.status_code == 200  # a live check, like the builder's preview
    assert 'id="award-preview"' in html
    assert "500" in html  # Django's "less than or equal to 500"
    assert not DpEntry.objects.exists()


def test_award_service_refuses_bad_amounts(albert, gunnar):
    for amount in (0, -1, 501, "3", 2.0, True):
        with pytest.raises(services.AdvancementError):
            services.dp_award(character=albert, amount=amount, reason="x", by=gunnar)
    with pytest.raises(services.AdvancementError):
        services.dp_award(character=albert, amount=3, reason="", by=gunnar)
    assert not DpEntry.objects.exists()


# --- spending ------------------------------------------------------------------------------


def test_spend_raises_albert_sin_5_to_6_for_15_up(owner, alice, albert, campaign):
    """p. 4: an attribute's next level costs a skill from zero to it: SIN 6 costs 15."""
    campaign.level_cap = 6
    campaign.save()
    give(albert, 20)
    response = owner.post(spend_url(albert), {"key": "alertness"})
    assert response.status_code == 302
    assert response.url == page_url(albert)
    assert albert.levels()["alertness"] == 6
    assert albert.saved_dp() == 5
    entry = albert.ledger.get(kind="spend")
    assert (entry.amount, entry.key, entry.level_before, entry.level_after) == (
        -15,
        "alertness",
        5,
        6,
    )
    assert (entry.dp_before, entry.dp_after, entry.created_by) == (20, 5, alice)
    page = owner.get(page_url(albert)).content.decode()
    assert "Sinnesnärvaro raised to 6 for 15 UP." in page
    assert 'data-testid="level-alertness">6<' in page


def test_skill_steps_cost_the_current_level(owner, albert):
    """p. 4: "Kostnaden i UP för nästa nivå av en färdighet är ... innevarande nivå"."""
    give(albert, 3)
    costs = []
    for _ in range(3):
        before = albert.saved_dp()
        assert owner.post(spend_url(albert), {"key": "firearms"}).status_code == 302
        costs.append(before - albert.saved_dp())
    assert costs == [0, 1, 2]
    assert albert.levels()["firearms"] == 3
    assert albert.saved_dp() == 0


def test_the_page_prices_each_next_level(owner, albert):
    give(albert, 6)
    page = owner.get(page_url(albert)).content.decode()
    # FYS 3 → 4 costs 6 (affordable), SIN 5 → 6 is above the cap 5, RÖR 2 → 3 costs 3.
    assert "Raise Fysik to 4 for 6 UP" in page
    assert "Raise Rörlighet to 3 for 3 UP" in page
    assert 'data-testid="blocked-alertness">level cap 5<' in page
    assert "Raise Bil to 1 for 0 UP" in page


def test_a_blocked_button_says_why(owner, albert):
    give(albert, 5)
    page = owner.get(page_url(albert)).content.decode()
    assert 'data-testid="blocked-physique">needs 6 UP<' in page


def test_values_are_the_build_plus_the_ledger(owner, gm, albert, campaign):
    """After awards, spends and an undo the sheet shows the build plus the ledger."""
    campaign.level_cap = 6
    campaign.save()
    gm.post(award_url(albert), free(30))
    for key in ("alertness", "firearms", "firearms"):  # 15, 0, 1 UP
        assert owner.post(spend_url(albert), {"key": key}).status_code == 302
    assert owner.post(undo_url(albert)).status_code == 302  # firearms 2 → 1, 1 UP back
    assert gm.post(spend_url(albert), {"key": "physique"}).status_code == 302  # FYS 3 → 4: 6
    albert = Character.objects.get(pk=albert.pk)
    assert albert.attributes == ALBERT_ATTRIBUTES  # the build itself never changes
    expected = {"alertness": 6, "firearms": 1, "physique": 4}
    levels = albert.levels()
    assert {key: levels[key] for key in expected} == expected
    assert albert.saved_dp() == 30 - 15 - 0 - 1 + 1 - 6
    sheet = owner.get(albert.get_absolute_url()).content.decode()
    assert 'data-testid="attr-alertness">6<' in sheet
    assert 'data-testid="skill-firearms">1<' in sheet
    assert 'data-testid="secondary-carrying_capacity">16<' in sheet  # Bärförmåga 4·FYS
    assert 'data-testid="secondary-toughness">5<' in sheet  # Härdighet FYS+1
    ledger = list(albert.ledger.order_by("pk"))
    for earlier, later in zip(ledger, ledger[1:], strict=False):
        assert later.dp_before == earlier.dp_after
    assert ledger[-1].dp_after == albert.saved_dp() == 9


def test_not_enough_up_is_refused_and_changes_nothing(owner, albert, campaign):
    campaign.level_cap = 6
    campaign.save()
    give(albert, 14)  # SIN 5 → 6 costs 15
    before = snapshot(albert)
    response = owner.post(spend_url(albert), {"key": "alertness"})
    assert response.status_code == 400
    assert "Sinnesnärvaro 6 costs 15 UP; 14 UP are saved." in response.content.decode()
    assert snapshot(albert) == before


def test_a_level_above_the_campaigns_cap_is_refused(owner, albert):
    give(albert, 100)
    before = snapshot(albert)
    response = owner.post(spend_url(albert), {"key": "alertness"})  # 6 > cap 5
    assert response.status_code == 400
    assert "above the level cap 5" in response.content.decode()
    assert snapshot(albert) == before


def test_the_campaigns_cap_counts_not_the_characters_own(owner, albert, campaign):
    albert.level_cap = 10
    albert.save()
    give(albert, 100)
    assert owner.post(spend_url(albert), {"key": "alertness"}).status_code == 400
    campaign.level_cap = 6
    campaign.save()
    assert owner.post(spend_url(albert), {"key": "alertness"}).status_code == 302


def test_without_a_campaign_the_characters_own_cap_counts(alice, owner):
    solo = Character.objects.create(owner=alice, name="Solo", dp_budget=30, level_cap=4)
    give(solo, 50)
    for _ in range(3):  # Bil 0 → 3
        assert owner.post(spend_url(solo), {"key": "car"}).status_code == 302
    assert owner.post(spend_url(solo), {"key": "car"}).status_code == 302  # 3 → 4 = cap
    response = owner.post(spend_url(solo), {"key": "car"})
    assert response.status_code == 400
    assert solo.levels()["car"] == 4


def test_level_30_is_the_end(owner, alice, campaign):
    campaign.level_cap = 30
    campaign.save()
    top = Character.objects.create(
        owner=alice, campaign=campaign, name="Mästaren", dp_budget=500, skills={"bow": 30}
    )
    give(top, 100)
    before = snapshot(top)
    response = owner.post(spend_url(top), {"key": "bow"})
    assert response.status_code == 400
    assert "Pilbåge is at level 30, the highest there is." in response.content.decode()
    assert snapshot(top) == before
    page = owner.get(page_url(top)).content.decode()
    assert 'data-testid="blocked-bow">highest level<' in page


@pytest.mark.parametrize("key", ["luck", "", "ALERTNESS", "carrying_capacity", "x" * 500])
def test_unknown_keys_are_refused(owner, albert, key):
    give(albert, 50)
    before = snapshot(albert)
    response = owner.post(spend_url(albert), {"key": key})
    assert response.status_code == 400
    assert "There is no attribute or skill called" in response.content.decode()
    assert snapshot(albert) == before


def test_spend_and_undo_only_accept_post(owner, albert):
    assert owner.get(spend_url(albert)).status_code == 405
    assert owner.get(undo_url(albert)).status_code == 405
    assert owner.get(award_url(albert)).status_code == 405


def test_htmx_spend_swaps_the_main_region(owner, albert):
    give(albert, 6)
    response = owner.post(spend_url(albert), {"key": "physique"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert html.lstrip().startswith('<div id="advancement"')
    assert 'data-testid="level-physique">4<' in html
    assert "Fysik raised to 4 for 6 UP." in html
    response = owner.post(spend_url(albert), {"key": "physique"}, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert 'data-testid="error"' in response.content.decode()


# --- undo ----------------------------------------------------------------------------------


def test_undo_restores_the_level_and_the_up(owner, albert):
    give(albert, 10)
    owner.post(spend_url(albert), {"key": "physique"})  # 3 → 4 for 6
    assert (albert.levels()["physique"], albert.saved_dp()) == (4, 4)
    response = owner.post(undo_url(albert))
    assert response.status_code == 302
    assert (albert.levels()["physique"], albert.saved_dp()) == (3, 10)
    spend, undo = albert.ledger.exclude(kind="award").order_by("pk")
    assert undo.undoes == spend
    assert (undo.kind, undo.amount, undo.key) == ("undo", 6, "physique")
    assert (undo.level_before, undo.level_after, undo.dp_before, undo.dp_after) == (4, 3, 4, 10)


def test_only_the_latest_spend_can_be_undone_and_only_once(owner, albert):
    give(albert, 20)
    owner.post(spend_url(albert), {"key": "physique"})  # 6
    owner.post(spend_url(albert), {"key": "willpower"})  # 6
    assert owner.post(undo_url(albert)).status_code == 302
    levels = albert.levels()
    assert (levels["physique"], levels["willpower"]) == (4, 3)
    before = snapshot(albert)
    response = owner.post(undo_url(albert))
    assert response.status_code == 400
    assert "There is no spend to undo." in response.content.decode()
    assert snapshot(albert) == before
    assert albert.levels()["physique"] == 4


def test_undo_after_a_later_award_still_undoes_the_spend(owner, gm, albert):
    give(albert, 6)
    owner.post(spend_url(albert), {"key": "composure"})  # KAO 3 → 4 for 6
    gm.post(award_url(albert), free(2))
    assert owner.post(undo_url(albert)).status_code == 302
    assert (albert.levels()["composure"], albert.saved_dp()) == (3, 8)


def test_undo_with_nothing_spent_is_refused(owner, albert):
    give(albert, 3)
    before = snapshot(albert)
    assert owner.post(undo_url(albert)).status_code == 400
    assert snapshot(albert) == before


# --- the history page ----------------------------------------------------------------------


def test_history_shows_who_when_what_why_and_up_before_and_after(owner, gm, albert):
    gm.post(award_url(albert), free(10, reason="Fångade smugglarna"))
    owner.post(spend_url(albert), {"key": "physique"})
    owner.post(spend_url(albert), {"key": "car"})
    owner.post(undo_url(albert))
    response = owner.get(page_url(albert))
    assert response.status_code == 200
    rows = response.context["ledger"]
    assert [row["entry"].kind for row in rows] == [
        "undo",
        "spend",
        "spend",
        "award",
    ]  # newest first
    assert [row["undone"] for row in rows] == [False, True, False, False]
    html = response.content.decode()
    assert "Fångade smugglarna" in html
    assert "gunnar" in html
    assert "alice" in html
    assert "0 → 10" in html  # the award
    assert "Fysik 3 → 4" in html
    assert "10 → 4" in html
    assert "(undone)" in html
    assert "Undo: Bil 1 → 0" in html
    assert "<time datetime=" in html


def test_reasons_are_shown_as_text_never_as_markup(gm, albert, campaign):
    gm.post(award_url(albert), free(1, reason="<script>alert(1)</script>"))
    for url in (page_url(albert), awards_url(campaign)):
        html = gm.get(url).content.decode()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "<script>alert(1)" not in html


def test_the_undo_button_names_the_latest_spend(owner, albert):
    give(albert, 6)
    owner.post(spend_url(albert), {"key": "physique"})
    html = owner.get(page_url(albert)).content.decode()
    assert "Undo latest spend: Fysik 4 → 3, 6 UP back" in html


# --- permissions ---------------------------------------------------------------------------


def test_anonymous_is_sent_to_log_in(albert, campaign):
    client = english_client()
    for method, url in [
        ("get", page_url(albert)),
        ("post", spend_url(albert)),
        ("post", undo_url(albert)),
        ("post", award_url(albert)),
        ("get", awards_url(campaign)),
        ("post", awards_url(campaign)),
    ]:
        response = getattr(client, method)(url, {"key": "physique"} if method == "post" else {})
        assert response.status_code == 302, url
        assert response.url.startswith(reverse("login")), url
    assert not DpEntry.objects.exists()


def test_outsiders_get_404_everywhere(charlie, albert, campaign):
    give(albert, 10)
    client = english_client(charlie)
    before = snapshot(albert)
    assert client.get(page_url(albert)).status_code == 404
    assert client.post(spend_url(albert), {"key": "physique"}).status_code == 404
    assert client.post(undo_url(albert)).status_code == 404
    assert client.post(award_url(albert), free(5)).status_code == 404
    assert client.get(awards_url(campaign)).status_code == 404
    assert client.post(awards_url(campaign), free(5, target="all")).status_code == 404
    assert snapshot(albert) == before


def test_another_player_in_the_campaign_gets_403(bob, albert, campaign):
    give(albert, 10)
    owner_spend = services.dp_spend(character=albert, key="car", by=None)
    client = english_client(bob)
    before = snapshot(albert)
    assert client.get(page_url(albert)).status_code == 403
    assert client.post(spend_url(albert), {"key": "physique"}).status_code == 403
    assert client.post(undo_url(albert)).status_code == 403
    assert client.post(award_url(albert), free(5)).status_code == 403
    assert snapshot(albert) == before
    assert services.undoable_spend(albert) == owner_spend


def test_players_cannot_award_themselves(owner, albert, campaign):
    assert owner.get(awards_url(campaign)).status_code == 403
    assert owner.post(awards_url(campaign), free(50, target="all")).status_code == 403
    assert owner.post(award_url(albert), free(50)).status_code == 403
    assert not DpEntry.objects.exists()
    assert "award-form" not in owner.get(page_url(albert)).content.decode()


def test_the_gm_may_view_spend_undo_and_award(gm, gunnar, albert, campaign):
    response = gm.get(page_url(albert))
    assert response.status_code == 200
    assert "award-form" in response.content.decode()
    assert gm.get(awards_url(campaign)).status_code == 200
    assert gm.post(award_url(albert), free(6)).status_code == 302
    assert gm.post(spend_url(albert), {"key": "physique"}).status_code == 302
    assert albert.ledger.get(kind="spend").created_by == gunnar
    assert gm.post(undo_url(albert)).status_code == 302
    assert albert.saved_dp() == 6


def test_a_gm_of_another_campaign_is_an_outsider(make_user, albert):
    other_gm = make_user("olga")
    other = Campaign.objects.create(name="Annan", gm=other_gm)
    Membership.objects.create(campaign=other, user=other_gm, role=Membership.Role.GM)
    client = english_client(other_gm)
    assert client.get(page_url(albert)).status_code == 404
    assert client.post(award_url(albert), free(5)).status_code == 404


def test_a_character_outside_campaigns_is_its_owners_alone(alice, bob, owner):
    solo = Character.objects.create(owner=alice, name="Solo", dp_budget=40)
    assert owner.get(page_url(solo)).status_code == 200
    assert owner.post(award_url(solo), free(5)).status_code == 403  # nobody is its GM
    client = english_client(bob)
    assert client.get(page_url(solo)).status_code == 404
    assert client.post(spend_url(solo), {"key": "car"}).status_code == 404


def test_unknown_character_or_campaign_is_404(gm):
    assert gm.get(reverse("characters:advancement", args=[999999])).status_code == 404
    assert gm.get(reverse("campaigns:awards", args=[999999])).status_code == 404


# --- two spends at the same moment ---------------------------------------------------------


def spend_at_once(character, user, keys):
    """Post one spend per key from its own logged-in client, all released together."""
    clients = [english_client(user) for _ in keys]
    barrier = threading.Barrier(len(keys))
    results: list[tuple[int, str] | BaseException | None] = [None] * len(keys)

    def run(index, client, key):
        try:
            barrier.wait(timeout=10)
            response = client.post(spend_url(character), {"key": key})
            results[index] = (response.status_code, response.content.decode())
        except BaseException as error:  # reported by the test
            results[index] = error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=(i, c, k))
        for i, (c, k) in enumerate(zip(clients, keys, strict=True))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(3))
def test_simultaneous_spends_never_take_saved_up_below_zero(alice, round_):
    """Saved UP for exactly one raise: FYS, KAO and VIL 3 → 4 cost 6 UP each (p. 4).

    Three spends hit the spend view at the same moment; the character's row lock
    (PostgreSQL) or the IMMEDIATE write lock (SQLite) lets one through and the others see
    0 UP saved. Without the lock PostgreSQL let two or three through in most rounds while
    this test was written, hence several rounds.
    """
    character = Character.objects.create(owner=alice, name="Albert", attributes=ALBERT_ATTRIBUTES)
    give(character, 6)
    results = spend_at_once(character, alice, ["physique", "composure", "willpower"])
    assert all(isinstance(result, tuple) for result in results), results
    assert sorted(status for status, _html in results) == [302, 400, 400]
    for status, html in results:
        if status == 400:
            assert "4 costs 6 UP; 0 UP are saved." in html
    assert character.saved_dp() == 0
    assert character.ledger.filter(kind="spend").count() == 1
    levels = character.levels()
    assert sorted(levels[k] for k in ("physique", "composure", "willpower")) == [3, 3, 4]
