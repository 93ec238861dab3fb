"""Luck at the table (issue 48): every test's line says how lucky its dice were, by the
functions the fight's story counts luck with, in all three systems; and the table page
shows this evening's mean luck per member, their own dice and the server's alike, the
GM's secret rolls left out."""

from datetime import timedelta
from fractions import Fraction

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign
from rules import get_system
from rules.aoristos import dice
from rules.aoristos.combat.story import roll_luck
from rules.story import percentile_in
from rules.t10.rolls import sum_distribution
from table import luck
from table.models import RollEvent
from table.services import luck_of, payload
from tests.table.test_secret_rolls import johan  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def roll(client, campaign, **data):
    return client.post(reverse("table:roll", args=[campaign.pk]), data,
                       headers={"HX-Request": "true"})


def test_an_aoristos_tests_luck_is_its_percentile_under_the_hands_distribution(
    alice_client, campaign, albert_in_campaign
):
    Campaign.objects.filter(pk=campaign.pk).update(dice_source="players")
    roll(alice_client, campaign, mode="test", character=albert_in_campaign.pk,
         properties=["alertness"], faces="6 3")
    event = RollEvent.objects.get()
    hand = dice.parse_hand("1B1T")
    expected = percentile_in(dice.distribution(hand, dice.Purpose.TEST), 3, high_is_lucky=True)
    assert luck_of(event) == round(float(expected), 1) == round(float(roll_luck(
        hand, [6, 3])), 1)
    assert luck_of(event) == 65.3  # min of two dice is 3: 100 · (20 + 7 / 2) / 36
    alice_client.cookies["django_language"] = "en"
    history = alice_client.get(reverse("table:history", args=[campaign.pk])).content.decode()
    assert f"luck {round(luck_of(event))}" in history


def test_a_phobia_tests_luck_is_its_ob_totals_lower_percentile(alice_client, phobia, jace):
    Campaign.objects.filter(pk=phobia.pk).update(dice_source="players")
    data = {"mode": "test", "character": jace.pk, "stat": "climbing", "difficulty": "3"}
    roll(alice_client, phobia, **data, faces="1 1 2")
    low = RollEvent.objects.get()
    roll(alice_client, phobia, **data, faces="5 5 4")
    high = RollEvent.objects.latest("seq")
    from rules.phobia.combat.story import total_luck

    assert luck_of(low) == round(float(total_luck(3, 4, low_is_lucky=True)), 1)
    assert luck_of(low) > 90 > 50 > luck_of(high)  # low totals are lucky (within the chance)


def test_a_t10_rolls_luck_is_its_2t10s_percentile(alice_client, t10, johan):  # noqa: F811
    Campaign.objects.filter(pk=t10.pk).update(dice_source="players")
    roll(alice_client, t10, mode="test", character=johan.pk, stat="pistol", faces="10 9")
    event = RollEvent.objects.get()
    expected = percentile_in(sum_distribution(), 19, high_is_lucky=True)
    assert luck_of(event) == round(float(expected), 1)
    assert get_system("t10").luck_of(event.detail) == expected


def test_a_bare_hand_and_an_opposed_test_have_no_luck(alice_client, campaign):
    roll(alice_client, campaign, mode="hand", hand="2B")
    assert payload(RollEvent.objects.get())["luck"] is None


def test_this_evenings_luck_per_member_leaves_out_secret_rolls_and_last_week(
    alice_client, client, gm, campaign, albert_in_campaign
):
    Campaign.objects.filter(pk=campaign.pk).update(dice_source="all")
    test = {"mode": "test", "character": albert_in_campaign.pk, "properties": ["alertness"]}
    roll(alice_client, campaign, **test, faces="6 6")  # the luckiest 1B1T
    roll(alice_client, campaign, **test, faces="1 1")  # the unluckiest
    first, second = RollEvent.objects.order_by("seq")
    mean = round((luck_of(first) + luck_of(second)) / 2)
    from django.test import Client

    gm_client = Client()
    gm_client.force_login(gm)
    roll(gm_client, campaign, **test, faces="6 6", secret="on")  # a secret roll: left out
    campaign.refresh_from_db()
    assert luck.session_luck(campaign) == [{"who": "alice", "luck": mean, "rolls": 2}]
    # An older evening is another session.
    RollEvent.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(hours=5))
    luck.forget()
    assert luck.session_luck(campaign) == [
        {"who": "alice", "luck": round(luck_of(second)), "rolls": 1}]
    alice_client.cookies["django_language"] = "en"
    box = alice_client.get(reverse("table:luck", args=[campaign.pk])).content.decode()
    assert "Luck this evening" in box
    assert "alice" in box
    assert "(1 test)" in box
    page = alice_client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    assert 'data-testid="luck"' in page


def test_luck_is_a_fraction_of_a_hundred():
    assert isinstance(roll_luck(dice.parse_hand("1B"), [3]), Fraction)


def test_the_fights_rolls_of_a_players_character_count_in_the_evenings_luck(
        client, gm, alice, campaign, django_capture_on_commit_callbacks):
    """Albert's rolls in a fight of the evening (his stress, his attack) count for Alice
    with the luck the fight's story gives them (combat.fight_luck); the NPC's for nobody."""
    from characters.models import Character
    from combat import services
    from combat.models import Encounter
    from rules.aoristos.combat import ENGINE
    from tests.conftest import ALBERT_ATTRIBUTES

    albert = Character.objects.create(owner=alice, campaign=campaign, name="Albert",
                                      attributes=ALBERT_ATTRIBUTES)
    fight = Encounter.objects.create(campaign=campaign, name="Gården", system="aoristos")
    membership = campaign.memberships.get(user=gm)
    block = ENGINE.character_block(name="Albert", levels=albert.levels(),
                                   derived=albert.secondary().as_dict())
    block.update(character_id=albert.pk, weapons=["knife"], right="knife")
    with django_capture_on_commit_callbacks(execute=True):
        for data, controller in ((block, alice.pk),
                                 ({"type": "add_combatant", "name": "Vakten", "side": "b",
                                   "x": 1.0, "alertness": 1}, None),
                                 ({"type": "start"}, None)):
            fight.refresh_from_db()
            services.command_run(encounter=fight, membership=membership, data=data,
                                 version=fight.version, controller=controller)
    fight.refresh_from_db()
    from combat import fight_story

    row = fight_story.story_of(fight).row("c1")
    assert row.roll_lucks  # his stress roll at least
    campaign.refresh_from_db()
    found = {r["who"]: r for r in luck.session_luck(campaign)}
    assert found["alice"]["rolls"] == len(row.roll_lucks)
    assert found["alice"]["luck"] == round(sum(luck for luck, _ in row.roll_lucks)
                                           / len(row.roll_lucks))
    assert gm.username not in found  # the guard's rolls count for nobody
