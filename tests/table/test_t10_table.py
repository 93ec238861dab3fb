"""A T10 campaign's live table (t10-ap-utdrag.txt, "Färdighetsslag" to "Att använda DoS och
DoF"): skill rolls with exact odds of each DoS and DoF before the roll, chains that carry
an earlier roll's degrees and count successes, social rolls whose carry is kept per pair
of people across sessions, and duels of alternate rolls."""

from fractions import Fraction

import pytest
from django.test import Client
from django.urls import reverse

from characters.models import Character
from rules.t10.rolls import duel_odds, roll_odds
from rules.t10.system import initiative_odds
from table.models import RollEvent
from tests.table.log_check import assert_one_query_reads_the_log

pytestmark = pytest.mark.django_db


@pytest.fixture
def johan(alice, t10):
    """Johan: Social Kompetens −2, Hota +3, Pistol +2 (the text's examples)."""
    return Character.objects.create(
        owner=alice, campaign=t10, name="Johan", rule_system="t10",
        attributes={"social": -2, "combat": 0, "body": 0, "mind": 0, "initiative": 1},
        skills={"intimidate": 3, "pistol": 2, "persuade": 1},
    )


@pytest.fixture
def henrik(bob, t10):
    return Character.objects.create(
        owner=bob, campaign=t10, name="Henrik", rule_system="t10",
        attributes={"social": -1, "initiative": 0}, skills={"persuade": 2},
    )


def roll(client, campaign, **data):
    return client.post(reverse("table:roll", args=[campaign.pk]),
                       {"mode": "test", **data}, headers={"HX-Request": "true"})


def odds_page(client, campaign, **data):
    client.cookies["django_language"] = "en"
    return client.get(reverse("table:odds", args=[campaign.pk]),
                      {"mode": "test", **data}).content.decode()


def test_the_odds_show_success_and_every_degree(alice_client, t10, johan):
    """Pistol +2: 72 % to hit; 3 DoS (a 12 on the dice) 9 %."""
    page = odds_page(alice_client, t10, character=johan.pk, stat="pistol")
    assert 'data-testid="odds-percent">72.0 %<' in page
    assert 'data-testid="odds-degrees"' in page
    assert "3 DoS</span> <strong>9.0 %" in page
    assert "8 DoF</span>" not in page  # +2: the lowest total is 4, 6 DoF
    assert "6 DoF</span> <strong>1.0 %" in page


def test_charm_without_the_skill_uses_the_ability(alice_client, t10, johan):
    """Johan has no Charma: Social Kompetens −2 (Förmågor och färdigheter)."""
    page = odds_page(alice_client, t10, character=johan.pk, stat="charm")
    assert f'data-testid="odds-percent">{float(roll_odds(-2).success) * 100:.1f} %<' in page
    assert "2T10−2" in page


def test_the_interrogation_chain_at_the_table(alice_client, t10, johan, dice):
    """Påföljande slag: the GM asks for two successes; 7 (3 DoF), then −3 and 13 (2 DoS),
    then +2 and 15: two successes."""
    # Johan has no Förhöra: Social Kompetens −2; the GM's +2 makes the text's 7 again.
    dice.queue += [3, 4]
    roll(alice_client, t10, character=johan.pk, stat="interrogate", goal=2, modifier=2)
    first = RollEvent.objects.get()
    assert first.result == 7
    assert first.detail["total"] == 7
    page = odds_page(alice_client, t10, character=johan.pk, stat="interrogate", goal=2,
                     modifier=2, after=f"roll:{first.seq}")
    assert 'data-testid="odds-carry"' in page
    assert f"Continues #{first.seq}" in page
    dice.queue[:] = [8, 8]
    roll(alice_client, t10, character=johan.pk, stat="interrogate", goal=2, modifier=2,
         after=f"roll:{first.seq}")
    second = RollEvent.objects.order_by("-seq").first()
    assert second.result == 13
    assert second.detail["params"]["carry"] == -3
    dice.queue[:] = [6, 7]
    roll(alice_client, t10, character=johan.pk, stat="interrogate", goal=2, modifier=2,
         after=f"roll:{second.seq}")
    third = RollEvent.objects.order_by("-seq").first()
    assert third.result == 15
    assert third.detail["params"]["carry"] == 2
    alice_client.cookies["django_language"] = "en"
    log = alice_client.get(reverse("table:page", args=[t10.pk])).content.decode()
    assert "2 of 2 successes" in log
    assert "3 DoF" in log


def test_a_social_carry_is_kept_per_pair_however_long_ago(alice_client, t10, johan, henrik, dice):
    """Att använda DoS och DoF: Johan's last Hota with Henrik (4 DoS) gives +4 to his next
    roll with Henrik, after other rolls in between; a roll with someone else does not."""
    dice.queue += [7, 7]  # 14 + 3 = 17: 6 DoS
    roll(alice_client, t10, character=johan.pk, stat="intimidate",
         toward=f"character:{henrik.pk}")
    with_henrik = RollEvent.objects.get()
    assert with_henrik.detail["toward"] == f"character:{henrik.pk}"
    for _ in range(3):  # other rolls in between, one social with someone else
        dice.queue += [5, 5]
        roll(alice_client, t10, character=johan.pk, stat="charm", toward="other",
             toward_name="Klienten")
    page = odds_page(alice_client, t10, character=johan.pk, stat="persuade",
                     toward=f"character:{henrik.pk}")
    assert f"Continues #{with_henrik.seq}" in page
    assert ": +6" in page
    # Persuade +1 and the carry +6 = +7.
    assert f'data-testid="odds-percent">{float(roll_odds(7).success) * 100:.1f} %<' in page
    # Not social: no carry from the pair.
    page = odds_page(alice_client, t10, character=johan.pk, stat="pistol",
                     toward=f"character:{henrik.pk}")
    assert "odds-carry" not in page
    # With the client each roll carried the last: 10 − 2 = 8 (2 DoF); 10 − 2 − 2 = 6 (4 DoF);
    # 10 − 2 − 4 = 4 (6 DoF): the next carries −6. The name is matched as typed loosely.
    rolls = RollEvent.objects.filter(detail__toward="name:klienten").order_by("seq")
    assert [r.result for r in rolls] == [8, 6, 4]
    page = odds_page(alice_client, t10, character=johan.pk, stat="charm", toward="other",
                     toward_name="  klienten ")
    assert f"Continues #{rolls.last().seq}: -6" in page


def test_the_sheet_shows_the_pairs_impressions_on_both_sides(alice_client, t10, johan, henrik,
                                                             dice):
    dice.queue += [7, 7]
    roll(alice_client, t10, character=johan.pk, stat="intimidate",
         toward=f"character:{henrik.pk}")
    alice_client.cookies["django_language"] = "en"
    mine = alice_client.get(reverse("characters:sheet", args=[johan.pk])).content.decode()
    assert 'data-testid="impressions"' in mine
    assert "Henrik" in mine
    assert "+6" in mine
    bob = Client()
    bob.force_login(henrik.owner)
    bob.cookies["django_language"] = "en"
    theirs = bob.get(reverse("characters:sheet", args=[henrik.pk])).content.decode()
    assert 'data-testid="impressions"' in theirs
    assert "Johan" in theirs
    assert "+6" in theirs


def test_a_duel_rolled_at_the_table(alice_client, t10, johan, henrik, dice):
    """Johan (Övertyga +1, Initiativ 1) against Henrik (+2, 0), first to 3. The odds come
    first; the log shows every roll in order and who won."""
    data = {"mode": "opposed", "character": johan.pk, "stat": "persuade", "goal": 3,
            "opponent": f"character:{henrik.pk}", "opponent_stat": "persuade",
            "opponent_modifier": 0}
    page = odds_page(alice_client, t10, **data)
    starts = initiative_odds(1, 0)
    p = starts * duel_odds(1, 2, 3).first_wins + (1 - starts) * (
        1 - duel_odds(2, 1, 3).first_wins)
    assert f'data-testid="odds-win">{float(p) * 100:.1f} %<' in page
    dice.queue += [
        3, 9,  # Initiativ: Johan 4, Henrik 9: Henrik starts
        4, 4,  # Henrik 8 + 2 = 10: failure, 0 DoF
        6, 7,  # Johan 13 + 1 = 14: 3 DoS (1)
        10, 10,  # Henrik 20 + 2 − 3 = 19 (1)
        10, 10,  # Johan 20 + 1 − 6 = 15 (2)
        10, 10,  # Henrik 20 + 2 − 4 = 18 (2)
        10, 10,  # Johan 20 + 1 − 6 = 15: his third success wins
    ]
    response = alice_client.post(reverse("table:roll", args=[t10.pk]), data,
                                 headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert not dice.queue
    event = RollEvent.objects.get()
    duel = event.detail["opposed"]["duel"]
    assert duel["a_first"] is False
    assert event.detail["opposed"]["winner"] == 1
    assert duel["successes"] == {"a": 3, "b": 2}
    assert [r["total"] for r in duel["rolls"]] == [10, 14, 19, 15, 18, 15]
    alice_client.cookies["django_language"] = "en"
    log = alice_client.get(reverse("table:page", args=[t10.pk])).content.decode()
    assert log.count('data-testid="duel-roll"') == 6
    assert "Johan wins" in log
    assert "Henrik starts" in log
    assert_one_query_reads_the_log(t10.pk, kinds={"test"})


def test_bad_carry_choices_change_nothing(alice_client, t10, johan):
    for bad in ({"after": "roll:999"}, {"after": "nonsense"}, {"toward": "character:999999"},
                {"toward": "other", "toward_name": "  "}):
        response = roll(alice_client, t10, character=johan.pk, stat="pistol", **bad)
        assert response.status_code == 200
        assert 'class="error"' in response.content.decode()
    assert not RollEvent.objects.exists()


def test_a_player_cannot_continue_the_gms_secret_roll(client, gm, t10, johan, alice, dice):
    gm_client = Client()
    gm_client.force_login(gm)
    dice.queue += [5, 5]
    roll(gm_client, t10, character=johan.pk, stat="pistol", secret="on")
    secret = RollEvent.objects.get()
    client.force_login(alice)
    response = roll(client, t10, character=johan.pk, stat="pistol", after=f"roll:{secret.seq}")
    assert "There is no such roll" in response.content.decode() or 'class="error"' in \
        response.content.decode()
    assert RollEvent.objects.count() == 1


def test_hands(alice_client, t10, dice):
    dice.queue += [4, 9]
    response = alice_client.post(reverse("table:roll", args=[t10.pk]),
                                 {"mode": "hand", "hand": "2T10+3"},
                                 headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert RollEvent.objects.get().result == 16
    page = odds_page(alice_client, t10, mode="hand", hand="1T10")
    assert "from 1 to 10" in page


def test_exact_figures_used_above():
    assert roll_odds(2).success == Fraction(72, 100)


def test_a_duel_against_someone_without_a_sheet_takes_a_negative_bonus(alice_client, t10, johan):
    """The opponent's value is the system's (T10: a bonus −10..+10, not Phobia's chance)."""
    data = {"mode": "opposed", "character": johan.pk, "stat": "persuade", "goal": 2,
            "opponent": "other", "opponent_name": "Polisen", "opponent_chance": -3,
            "opponent_modifier": 0}
    page = odds_page(alice_client, t10, **data)
    starts = initiative_odds(1, 0)
    p = starts * duel_odds(1, -3, 2).first_wins + (1 - starts) * (
        1 - duel_odds(-3, 1, 2).first_wins)
    assert f'data-testid="odds-win">{float(p) * 100:.1f} %<' in page
    too_low = odds_page(alice_client, t10, **(data | {"opponent_chance": -11}))
    assert 'data-testid="odds-win"' not in too_low
    assert not RollEvent.objects.exists()


def test_the_utmattning_of_the_latest_fight_lowers_the_roll(alice_client, gm, t10, johan, dice):
    """Utmattning: −1 on rolls per point. While Johan's fight goes on, the tray takes
    what he has there; once it is over, what his Skada holds up (Utmattning falls 1 a
    round, never below Skada). A roll of a character in no fight takes nothing."""
    from combat import services as combat
    from combat.models import Encounter

    page = odds_page(alice_client, t10, character=johan.pk, stat="pistol")
    assert 'data-testid="odds-fatigue"' not in page
    fight = Encounter.objects.create(campaign=t10, name="Hamnen", system="t10")
    membership = t10.memberships.get(user=gm)

    def run(data):
        fight.refresh_from_db()
        combat.command_run(membership=membership, data=data, version=fight.version,
                           encounter=fight)

    run({"type": "add_combatant", "name": "Johan", "character_id": johan.pk})
    run({"type": "damage", "id": "c1", "amount": 2})  # Skada 2 and as much Utmattning
    run({"type": "update_combatant", "id": "c1", "fatigue": 5})
    state = combat.folded(Encounter.objects.get(pk=fight.pk)).state
    assert (state.get("c1").damage, state.get("c1").fatigue) == (2, 5)

    page = odds_page(alice_client, t10, character=johan.pk, stat="pistol")
    assert 'data-testid="odds-fatigue">Utmattning −5' in page
    assert "from Hamnen" in page
    assert f'data-testid="odds-percent">{float(roll_odds(2 - 5).success) * 100:.1f} %<' in page
    dice.queue += [6, 6]
    roll(alice_client, t10, character=johan.pk, stat="pistol")
    rolled = RollEvent.objects.get()
    assert rolled.result == 6 + 6 + 2 - 5
    assert rolled.detail["params"]["fatigue"] == 5

    run({"type": "end"})
    page = odds_page(alice_client, t10, character=johan.pk, stat="pistol")
    assert 'data-testid="odds-fatigue">Utmattning −2' in page  # his Skada holds it up
