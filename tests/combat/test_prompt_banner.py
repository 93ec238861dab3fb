"""A prompt finds its player and a running fight is one tap away (issue 26): the banner's
list of prompts that wait for a member (combat:prompts), only their own; the running
fights on the table and campaign pages; the fight lines of the table's log link to their
fight. The scripted dice and `run` are tests/combat/conftest.py's."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from characters.models import Character
from combat import running
from combat.models import CombatRecord, Encounter
from rules.aoristos.combat import ENGINE
from tests.combat.helpers import english

pytestmark = pytest.mark.django_db


def banner(client, campaign):
    return client.get(reverse("combat:prompts", args=[campaign.pk]))


def albert_meets_berit(encounter, albert, alice, bob, gm, run, dice):
    """Alice's Albert (SIN 5) and Bob's Berit (SIN 1) 1 m apart, the fight started:
    Albert's activation."""
    berit = Character.objects.create(owner=bob, campaign=encounter.campaign, name="Berit",
                                     attributes={"alertness": 1})
    for character, side, x, owner in ((albert, "a", 0.0, alice), (berit, "b", 1.0, bob)):
        block = ENGINE.character_block(name=character.name, levels=character.levels(),
                                       derived=character.secondary().as_dict())
        block.update(character_id=character.pk, side=side, x=x)
        run(encounter, gm, block, controller=owner.pk)
    dice.queue += [1, 1]
    run(encounter, gm, {"type": "start"})


@pytest.fixture
def duel(encounter, albert_in_campaign, alice, bob, gm, run, dice):
    """Alice's Albert attacks Bob's Berit: Berit's vigilance waits for Bob."""
    albert_meets_berit(encounter, albert_in_campaign, alice, bob, gm, run, dice)
    run(encounter, alice, {"type": "attack", "id": "c1", "target": "c2", "weapon": "unarmed"})
    encounter.refresh_from_db()
    return encounter


def test_a_players_own_turn_finds_them_as_a_prompt_does(
    client, encounter, albert_in_campaign, alice, bob, gm, run, dice
):
    """Issue 43: a player scrolled away or on the table did not hear that their turn had
    come (prompts they did). The banner names the turn and links the fight's map; it has
    no countdown (no default is taken for a turn); the others hear nothing of it."""
    albert_meets_berit(encounter, albert_in_campaign, alice, bob, gm, run, dice)
    text = banner(english(client, alice), encounter.campaign).content.decode()
    assert "Albert: your turn" in text
    assert 'data-testid="prompt-banner-turn"' in text
    assert f'href="{reverse("combat:page", args=[encounter.pk])}#battle-map"' in text
    assert 'data-kind="turn"' in text
    assert "prompt-banner-left" not in text  # no countdown
    for user in (bob, gm):
        text = banner(english(client, user), encounter.campaign).content.decode()
        assert "your turn" not in text
    # Once the activation has ended it is gone (Berit's begins: her stress dice).
    dice.queue += [1, 1]
    run(encounter, alice, {"type": "end_activation", "id": "c1"})
    text = banner(english(client, alice), encounter.campaign).content.decode()
    assert "Albert: your turn" not in text


def test_the_attacked_player_alone_hears_of_the_prompt(client, duel, alice, bob, gm, outsider):
    page = banner(english(client, bob), duel.campaign)
    assert page.status_code == 200
    text = page.content.decode()
    assert "You are attacked — answer" in text
    assert f'href="{reverse("combat:page", args=[duel.pk])}#prompt"' in text
    assert "Bakgården" in text
    assert f'data-key="{duel.pk}-vigilance-c2"' in text
    assert page["Cache-Control"].startswith("max-age=0")
    # The attacker, the GM (Berit is a player's) and the others hear nothing of it.
    for user in (alice, gm):
        text = banner(english(client, user), duel.campaign).content.decode()
        assert "prompt-banner-link" not in text
    client.force_login(outsider)
    assert banner(client, duel.campaign).status_code == 404
    client.logout()
    assert banner(client, duel.campaign).status_code == 302  # to log in


def test_the_gm_hears_of_an_npcs_prompt(client, fight, alice, gm, run, dice):
    dice.queue += [1, 3]  # Albert (SIN 5) acts first
    run(fight, gm, {"type": "start"})
    run(fight, alice, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol"})
    text = banner(english(client, gm), fight.campaign).content.decode()
    assert "Vakten is attacked — answer" in text
    text = banner(english(client, alice), fight.campaign).content.decode()
    assert "prompt-banner-link" not in text


def test_the_banner_counts_down_from_the_record_that_opened_the_prompt(client, duel, bob):
    english(client, bob)
    assert 'data-left="20"' in banner(client, duel.campaign).content.decode()
    CombatRecord.objects.filter(encounter=duel).update(
        created_at=timezone.now() - timedelta(seconds=15))
    running.forget()  # what a process keeps of the version (the record's time never changes)
    text = banner(client, duel.campaign).content.decode()
    assert 'data-left="5"' in text or 'data-left="6"' in text, text
    assert ">5 s<" in text or ">6 s<" in text


def test_the_encounter_page_counts_down_from_the_record_too(client, duel, alice, bob):
    """The page's own countdown (the target's default, the attacker's wait) goes on where
    it was after a reload: the seconds left come from the record, not the page's load."""
    page = reverse("combat:page", args=[duel.pk])

    def countdowns(user):
        text = english(client, user).get(page).content.decode()
        return [int(n) for n in re.findall(r'class="default-form" data-countdown="(\d+)"',
                                           text)]

    assert countdowns(bob) == [20]
    assert countdowns(alice) == [21]  # the attacker's "go on" opens a second later
    CombatRecord.objects.filter(encounter=duel).update(
        created_at=timezone.now() - timedelta(seconds=15))
    running.forget()  # what a process keeps of the version (the record's time never changes)
    assert countdowns(bob) in ([5], [6])
    assert countdowns(alice) in ([6], [7])
    CombatRecord.objects.filter(encounter=duel).update(
        created_at=timezone.now() - timedelta(seconds=60))
    running.forget()
    assert countdowns(bob) == [0]


def test_an_answered_prompt_leaves_the_banner(client, duel, bob, run, dice):
    dice.queue += [6, 6, 6, 6, 1, 6, 6, 6, 6, 6, 6, 6, 6, 6] * 3
    run(duel, bob, {"type": "vigilance", "id": "c2", "properties": []})
    assert "prompt-banner-link" not in banner(english(client, bob), duel.campaign).content.decode()


def test_running_fights_are_one_tap_away(client, fight, alice, gm, run, dice):
    table = reverse("table:page", args=[fight.campaign.pk])
    campaign = reverse("campaigns:detail", args=[fight.campaign.pk])
    url = reverse("combat:page", args=[fight.pk])
    english(client, alice)
    prompts = reverse("combat:prompts", args=[fight.campaign.pk])
    for page in (table, campaign, prompts):  # set up, not started: not on yet
        assert "Fight on: Bakgården" not in client.get(page).content.decode()
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    Encounter.objects.create(campaign=fight.campaign, name="Ännu ej", system="aoristos")
    # The prompts' answer brings the running fights to pages already open.
    for page in (table, campaign, prompts):
        text = client.get(page).content.decode()
        assert "Fight on: Bakgården" in text
        assert f'href="{url}" data-testid="running-fight"' in text
        assert "Ännu ej" not in text
    run(fight, gm, {"type": "end"})
    for page in (table, campaign, prompts):
        assert "Fight on: Bakgården" not in client.get(page).content.decode()


def test_each_fight_line_in_the_tables_log_links_to_its_fight(client, fight, alice, gm, run,
                                                               dice):
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    text = english(client, alice).get(reverse("table:page", args=[fight.campaign.pk]))
    text = text.content.decode()
    link = f'<a class="fight-link" href="{reverse("combat:page", args=[fight.pk])}">'
    assert text.count(link) == 3  # three records: two joined, the start
    assert "The fight begins" in text.split(link, 1)[1]


def test_the_banner_slot_is_on_the_campaigns_pages_only(client, fight, albert_in_campaign,
                                                        alice):
    english(client, alice)
    url = reverse("combat:prompts", args=[fight.campaign.pk])
    for page in (reverse("table:page", args=[fight.campaign.pk]),
                 reverse("campaigns:detail", args=[fight.campaign.pk]),
                 albert_in_campaign.get_absolute_url(),
                 fight.get_absolute_url()):
        assert f'data-url="{url}"' in client.get(page).content.decode(), page
    assert 'id="prompt-banner"' not in client.get(reverse("campaigns:list")).content.decode()




def test_a_phobia_attack_finds_its_target_and_the_gm_hears_of_no_players_turn(
    client, phobia_fight, alice, bob, gm, run
):
    run(phobia_fight, gm, {"type": "start_round"})
    run(phobia_fight, gm, {"type": "declare", "id": "c2", "actions": 1})
    run(phobia_fight, gm, {"type": "attack", "id": "c2", "target": "c1", "weapon": "Kniv",
                           "area": "arm"})
    assert "You are attacked — answer" in banner(english(client, alice),
                                                 phobia_fight.campaign).content.decode()
    for user in (bob, gm):
        text = banner(english(client, user), phobia_fight.campaign).content.decode()
        assert "prompt-banner-link" not in text


def test_the_encounter_page_calls_only_the_one_a_prompt_is_for(client, phobia_fight, alice,
                                                                 gm, run):
    """A player's declare turn calls the player; the GM, who may act for everyone, sees
    it without being called (issue 26): no `calls` mark on the GM's page."""
    run(phobia_fight, gm, {"type": "start_round"})
    run(phobia_fight, gm, {"type": "declare", "id": "c2", "actions": 0})  # then Jace
    page = reverse("combat:page", args=[phobia_fight.pk])
    gm_page = english(client, gm).get(page).content.decode()
    player_page = english(client, alice).get(page).content.decode()
    found = {page: re.findall(r'class="card prompt ([^"]*)"', text)
             for page, text in (("gm", gm_page), ("player", player_page))}
    assert found == {"gm": ["prompt-declare mine"], "player": ["prompt-declare mine calls"]}


def test_a_page_that_asks_again_gets_304_until_a_fight_changes(client, duel, bob, run, dice):
    """A page that asks again with the tag of what it shows gets 304 (nothing to render
    or send) until a fight's version changes; then the new answer with a new tag."""
    english(client, bob)
    first = banner(client, duel.campaign)
    tag = first["ETag"]
    again = client.get(reverse("combat:prompts", args=[duel.campaign.pk]),
                       headers={"If-None-Match": tag})
    assert (again.status_code, again.content) == (304, b"")
    dice.queue += [6, 6, 6, 6, 1, 6, 6, 6, 6, 6, 6, 6, 6, 6] * 3
    run(duel, bob, {"type": "vigilance", "id": "c2", "properties": []})
    changed = client.get(reverse("combat:prompts", args=[duel.campaign.pk]),
                         headers={"If-None-Match": tag})
    assert changed.status_code == 200
    assert changed["ETag"] != tag
    assert "prompt-banner-link" not in changed.content.decode()
