"""The campaign's rules bind every character in it (issue 7; p. 3: UP and the level cap).

Bringing a character checks it against the campaign's starting UP and level cap: it is
refused with the reasons, or let in by the GM with a note. A character in a campaign
carries the campaign's cap, which the builder and the ledger's raises use; the GM's change
of the cap reaches every character at once, and a lower cap never cuts levels a
character already has.
"""

import importlib
import re

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse

from campaigns import services
from campaigns.models import BringRequest, Campaign, Membership
from campaigns.services import campaign_create, campaign_join
from characters import services as ledger
from characters.models import Character, DpEntry
from characters.terms import ATTRIBUTE_TERMS, SKILL_TERMS

pytestmark = pytest.mark.django_db

# The report: 500 UP and level cap 30, brought into a 15 UP, cap 5 campaign.
STRONG = {"physique": 3, "composure": 3, "agility": 3, "alertness": 3, "willpower": 3}


@pytest.fixture
def small(gm, alice, bob):
    """A campaign of everyday adults: 15 starting UP, level cap 5 (p. 2-3)."""
    campaign = campaign_create(gm=gm, name="Vardag", starting_dp=15, level_cap=5)
    campaign_join(campaign=campaign, user=alice)
    campaign_join(campaign=campaign, user=bob)
    return campaign


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def make(owner, name="Vera", *, budget=15, cap=5, attributes=None, skills=None, campaign=None):
    return Character.objects.create(
        owner=owner,
        name=name,
        dp_budget=budget,
        level_cap=cap,
        attributes=attributes or {},
        skills=skills or {},
        campaign=campaign,
    )


def bring(user, campaign, character):
    url = reverse("campaigns:character_bring", args=[campaign.pk])
    return client_of(user).post(url, {"character": character.pk})


def page(user, campaign, query="") -> str:
    response = client_of(user).get(campaign.get_absolute_url() + query)
    assert response.status_code == 200
    return response.content.decode()


def ask_gm(user, campaign, character) -> BringRequest:
    url = reverse("campaigns:bring_request", args=[campaign.pk])
    assert client_of(user).post(url, {"character": character.pk}).status_code == 302
    return BringRequest.objects.get(campaign=campaign, character=character)


def answer(user, bring_request, **data):
    url = reverse(
        "campaigns:bring_request_answer", args=[bring_request.campaign_id, bring_request.pk]
    )
    return client_of(user).post(url, data)


def edit_campaign(user, campaign, **changes):
    data = {"name": campaign.name, "starting_dp": campaign.starting_dp}
    data["level_cap"] = campaign.level_cap
    data |= changes
    return client_of(user).post(reverse("campaigns:edit", args=[campaign.pk]), data)


def builder_data(character, **levels) -> dict:
    """What the builder posts for `character`, with some levels changed."""
    data = {
        "name": character.name,
        "concept": character.concept,
        "notes": character.notes,
        "dp_budget": character.dp_budget,
        "level_cap": character.level_cap,
    }
    data |= {t.key: character.attribute(t.key) for t in ATTRIBUTE_TERMS}
    data |= {t.key: character.skill(t.key) for t in SKILL_TERMS}
    return data | levels


# --- bringing: the check (p. 3) ------------------------------------------------------------


def test_the_reported_character_is_refused_with_both_reasons(alice, small):
    """p. 3: 500 UP and a level above the cap may not walk into a 15 UP, cap 5 campaign."""
    vera = make(alice, budget=500, cap=30, attributes=STRONG, skills={"firearms": 8})
    response = bring(alice, small, vera)
    assert response.status_code == 302
    assert response.url == f"{small.get_absolute_url()}?bring={vera.pk}#bring"
    vera.refresh_from_db()
    assert vera.campaign is None
    assert (vera.dp_budget, vera.level_cap) == (500, 30)

    html = page(alice, small, f"?bring={vera.pk}")
    assert 'data-testid="bring-refusal"' in html
    assert "Skjutvapen 8" in html  # the level above the cap, by the rule book's name
    assert "485" in html  # 500 UP held, 15 allowed


def test_check_counts_awards_as_held_up(alice, small):
    """p. 3: awarded UP are the character's too, spent or saved."""
    vera = make(alice, budget=10)
    check = services.bring_check(campaign=small, character=vera)
    assert check.fits
    ledger.dp_award(character=vera, amount=7, reason="Resa", by=alice)
    check = services.bring_check(campaign=small, character=vera)
    assert (check.held, check.dp_over, check.fits) == (17, 2, False)


def test_check_lists_every_level_above_the_cap_raises_included(alice, small):
    """p. 3: a level raised through the ledger counts like a level bought at creation."""
    vera = make(alice, budget=15, cap=10, skills={"firearms": 5})
    ledger.dp_award(character=vera, amount=5, reason="Resa", by=alice)
    ledger.dp_spend(character=vera, key="firearms", by=alice)  # 5 -> 6 costs 5 UP
    check = services.bring_check(campaign=small, character=vera)
    assert check.levels_over == (("firearms", 6),)


def test_a_character_that_fits_is_brought_and_carries_the_campaigns_cap(alice, small):
    """p. 3: in the campaign its cap is the campaign's; its UP budget stays its own."""
    vera = make(alice, budget=12, cap=30, attributes={"alertness": 4})
    response = bring(alice, small, vera)
    assert response.status_code == 302
    assert response.url == small.get_absolute_url()
    vera.refresh_from_db()
    assert vera.campaign == small
    assert vera.level_cap == 5
    assert vera.dp_budget == 12


def test_bringing_bad_input_is_a_400_and_changes_nothing(alice, small, bob):
    vera = make(alice)
    url = reverse("campaigns:character_bring", args=[small.pk])
    for value in ("", "abc", "²", "-1", "9" * 40):
        assert client_of(alice).post(url, {"character": value}).status_code == 400
    assert client_of(bob).post(url, {"character": vera.pk}).status_code == 404
    assert client_of(alice).get(small.get_absolute_url() + "?bring=x").status_code == 400
    assert client_of(bob).get(small.get_absolute_url() + f"?bring={vera.pk}").status_code == 404
    vera.refresh_from_db()
    assert vera.campaign is None


# --- the GM lets a refused character in, with a note ------------------------------------------


def test_gm_accepts_a_request_with_a_note_for_gm_and_player_only(gm, alice, bob, small):
    vera = make(alice, budget=500, cap=30, attributes=STRONG, skills={"firearms": 8})
    request = ask_gm(alice, small, vera)
    assert request.status == BringRequest.Status.PENDING
    assert 'data-testid="my-bring-requests"' in page(alice, small)
    gm_page = page(gm, small)
    assert 'data-testid="bring-requests"' in gm_page
    assert "Skjutvapen 8" in gm_page

    response = answer(gm, request, answer="accept", note="Hon är legosoldat från förr.")
    assert response.status_code == 302
    vera.refresh_from_db()
    assert vera.campaign == small
    # Its build has a level 8: it carries that as its builder's cap; raises stop at 5.
    assert vera.level_cap == 8
    assert (vera.dp_budget, services.bring_check(campaign=small, character=vera).held) == (500, 500)
    assert "Hon är legosoldat från förr." in page(gm, small)
    assert "Hon är legosoldat från förr." in page(alice, small)
    assert "Hon är legosoldat från förr." not in page(bob, small)


def test_accepting_needs_a_note_and_keeps_what_was_typed(gm, alice, small):
    vera = make(alice, budget=40)
    request = ask_gm(alice, small, vera)
    response = answer(gm, request, answer="accept", note="   ")
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(rf'class="field invalid">\s*<label for="id_answer{request.pk}_note"', html)
    long_note = "x" * (services.MAX_NOTE + 1)
    response = answer(gm, request, answer="accept", note=long_note)
    assert response.status_code == 400
    assert long_note in response.content.decode()  # the GM's text is kept to shorten
    assert answer(gm, request, answer="maybe", note="ok").status_code == 400
    request.refresh_from_db()
    vera.refresh_from_db()
    assert request.status == BringRequest.Status.PENDING
    assert vera.campaign is None


def test_gm_declines_and_the_player_reads_why(gm, alice, small):
    vera = make(alice, budget=40)
    request = ask_gm(alice, small, vera)
    assert answer(gm, request, answer="decline", note="För stark för Vardag.").status_code == 302
    request.refresh_from_db()
    vera.refresh_from_db()
    assert request.status == BringRequest.Status.DECLINED
    assert vera.campaign is None
    assert "För stark för Vardag." in page(alice, small)
    # An answered request is not answered again.
    assert answer(gm, request, answer="accept", note="Ändå").status_code == 302
    request.refresh_from_db()
    assert request.status == BringRequest.Status.DECLINED


def test_player_withdraws_a_waiting_request(alice, small):
    vera = make(alice, budget=40)
    request = ask_gm(alice, small, vera)
    url = reverse("campaigns:bring_request_withdraw", args=[small.pk, request.pk])
    assert client_of(alice).post(url).status_code == 302
    assert not BringRequest.objects.filter(pk=request.pk).exists()


def test_asking_twice_makes_one_request_and_a_fitting_character_is_simply_brought(gm, alice, small):
    vera = make(alice, budget=15, skills={"firearms": 6})
    first = ask_gm(alice, small, vera)
    assert ask_gm(alice, small, vera) == first
    edit_campaign(gm, small, level_cap=6)  # now it fits: asking brings it
    url = reverse("campaigns:bring_request", args=[small.pk])
    client_of(alice).post(url, {"character": vera.pk})
    vera.refresh_from_db()
    assert vera.campaign == small
    assert not BringRequest.objects.filter(status=BringRequest.Status.PENDING).exists()


def test_a_removed_player_keeps_the_character_as_it_is(gm, alice, small):
    """The character leaves with its cap and UP; its requests and notes here go."""
    vera = make(alice, budget=40, skills={"firearms": 7})
    request = ask_gm(alice, small, vera)
    answer(gm, request, answer="accept", note="Okej.")
    edit_campaign(gm, small, level_cap=9)
    services.member_remove(
        campaign=small, membership=Membership.objects.get(campaign=small, user=alice)
    )
    vera.refresh_from_db()
    assert (vera.campaign, vera.level_cap, vera.dp_budget) == (None, 9, 40)
    assert not BringRequest.objects.filter(campaign=small).exists()


# --- the campaign's cap is the one every check uses ----------------------------------------


def test_raising_the_cap_reaches_the_builder_and_advancement(gm, alice, small):
    """p. 3: level 5 is the human maximum unless the GM raises the cap, for everyone."""
    vera = make(alice, budget=15, campaign=small, skills={"firearms": 5})  # 10 UP, 5 saved
    player = client_of(alice)
    edit = reverse("characters:edit", args=[vera.pk])
    assert player.post(edit, builder_data(vera, firearms=6)).status_code == 400  # cap 5
    with pytest.raises(ledger.AdvancementError, match="5"):
        ledger.dp_spend(character=vera, key="firearms", by=alice)  # 5 UP saved, cost 5
    assert not DpEntry.objects.filter(character=vera).exists()

    assert edit_campaign(gm, small, level_cap=6).status_code == 302
    vera.refresh_from_db()
    assert vera.level_cap == 6
    assert player.post(edit, builder_data(vera, firearms=6)).status_code == 302  # 15 UP
    vera.refresh_from_db()
    assert vera.skill("firearms") == 6

    ledger.dp_award(character=vera, amount=6, reason="Träning", by=gm)
    with pytest.raises(ledger.AdvancementError, match="6"):
        ledger.dp_spend(character=vera, key="firearms", by=alice)  # 7 is above cap 6
    assert edit_campaign(gm, small, level_cap=7).status_code == 302
    assert ledger.dp_spend(character=vera, key="firearms", by=alice).level_after == 7


def test_the_builder_never_changes_a_campaign_characters_cap_not_even_the_gms(gm, alice, small):
    """The campaign's cap is the one every check uses (p. 3): the GM changes it in the
    campaign's settings, for all at once; a builder field that says otherwise is ignored."""
    vera = make(alice, budget=15, campaign=small)
    for user in (alice, gm):
        response = client_of(user).post(
            reverse("characters:edit", args=[vera.pk]), builder_data(vera, level_cap=30)
        )
        assert response.status_code == 302
        vera.refresh_from_db()
        assert vera.level_cap == small.level_cap == 5


def test_the_gm_cannot_lower_the_cap_below_levels_characters_have(gm, alice, small):
    vera = make(alice, campaign=small, attributes={"alertness": 5})
    response = edit_campaign(gm, small, name="Nytt namn", level_cap=4)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Vera (SIN 5)" in html
    assert 'value="Nytt namn"' in html  # the form keeps what was typed
    small.refresh_from_db()
    vera.refresh_from_db()
    assert (small.name, small.level_cap, vera.level_cap) == ("Vardag", 5, 5)


def test_lowering_the_cap_above_every_level_reaches_the_characters(gm, alice, small):
    vera = make(alice, campaign=small, attributes={"alertness": 4})
    assert edit_campaign(gm, small, level_cap=4).status_code == 302
    vera.refresh_from_db()
    assert vera.level_cap == 4


def test_levels_the_gm_let_in_above_the_cap_do_not_block_a_lower_cap(gm, alice, small):
    """Only levels the old cap allowed stop a lower one; an accepted level 8 stays 8."""
    vera = make(alice, budget=40, skills={"firearms": 8})  # 28 UP
    answer(gm, ask_gm(alice, small, vera), answer="accept", note="Undantag.")
    assert edit_campaign(gm, small, level_cap=3).status_code == 302
    vera.refresh_from_db()
    assert vera.level_cap == 8  # its builder keeps accepting its build
    assert vera.levels()["firearms"] == 8
    for _ in range(3):  # Undvika 0 -> 3 costs 0 + 1 + 2 UP
        ledger.dp_spend(character=vera, key="evasion", by=alice)
    with pytest.raises(ledger.AdvancementError, match="3"):
        ledger.dp_spend(character=vera, key="evasion", by=alice)  # 4 is above the cap 3


def test_starting_up_changes_no_characters_budget(gm, alice, small):
    vera = make(alice, budget=15, campaign=small)
    assert edit_campaign(gm, small, starting_dp=30).status_code == 302
    vera.refresh_from_db()
    assert vera.dp_budget == 15


def test_data_migration_gives_characters_in_campaigns_the_campaigns_cap(alice, small):
    migration = importlib.import_module("campaigns.migrations.0003_characters_carry_campaign_cap")
    make(alice, "Inne", cap=30, campaign=small)
    make(alice, "Över", cap=30, campaign=small, skills={"firearms": 9})
    make(alice, "Ute", cap=30)
    migration.carry_campaign_cap(apps, None)
    caps = dict(Character.objects.values_list("name", "level_cap"))
    assert caps == {"Inne": 5, "Över": 9, "Ute": 30}
    assert Campaign.objects.get(pk=small.pk).level_cap == 5


def test_awards_are_not_changed_by_bringing(gm, alice, small):
    vera = make(alice, budget=10)
    ledger.dp_award(character=vera, amount=3, reason="Resa", by=alice)
    assert bring(alice, small, vera).status_code == 302
    vera.refresh_from_db()
    assert vera.campaign == small
    assert DpEntry.objects.filter(character=vera).count() == 1


def test_gm_brings_their_own_strong_character_through_the_same_request(gm, bob, small):
    """p. 3: the GM's own character meets the same rules; the GM's note lets it in."""
    grim = make(gm, "Grim", budget=60)
    assert bring(gm, small, grim).status_code == 302
    grim.refresh_from_db()
    assert grim.campaign is None
    request = ask_gm(gm, small, grim)
    assert 'data-testid="bring-requests"' not in page(bob, small)  # only the GM answers
    assert answer(gm, request, answer="accept", note="Spelledarens person.").status_code == 302
    grim.refresh_from_db()
    assert grim.campaign == small


def test_a_campaign_house_rule_names_its_default_in_plain_words():
    """Issue 26.7: the campaign's house rules say "on"/"off" and the choice's name, and
    the excerpts' lines in the page's language, never a raw False or a key."""
    from django.utils import translation

    from campaigns.forms import house_rule_field
    from rules.system import HouseRule

    toggle = HouseRule("t", "A toggle", False, kind="bool", text="lines 1-2")
    choice = HouseRule("c", "A choice", "b", kind="choice",
                       choices=(("a", "First way"), ("b", "Second way")), text="s. 7")
    with translation.override("en"):
        assert house_rule_field(toggle, False).help_text.startswith(
            "House rule; default off (lines 1-2)")
        assert house_rule_field(choice, "a").help_text.startswith(
            "House rule; default Second way (s. 7)")
