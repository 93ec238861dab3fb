"""The fight's smaller controls (issue 26.9): the fights list says truthfully whether each
fight has not started, is on or has ended (in a handful of queries); ending a fight takes
a second step in all three systems; the Phobia GM sees only the round's buttons that
apply now, each explained; T10's "No reaction" is a plain button, not the primary one.
The scripted dice, `run` and the Aoristos `fight` are tests/combat/conftest.py's."""

import re

import pytest
from django.urls import reverse

from combat import running, services
from combat.models import Encounter
from tests.combat.helpers import english, panel, post, state_of

pytestmark = pytest.mark.django_db


def section(page: str, testid: str, tag: str) -> str:
    """The `tag` element that carries data-testid `testid`, with what it holds."""
    start = page.rindex(f"<{tag} ", 0, page.index(f'data-testid="{testid}"'))
    depth = 0
    for match in re.compile(rf"<(/?){tag}[\s>]").finditer(page, start):
        depth += -1 if match[1] else 1
        if depth == 0:
            return page[start:match.end()]
    raise AssertionError(f"{testid}: no end")


# --- the fights list -----------------------------------------------------------------------


def progress_of(page: str, encounter) -> str:
    return re.search(rf'data-testid="progress-{encounter.pk}">([^<·]*)', page)[1].strip()


def test_the_fights_list_says_which_fight_is_on(
    client, fight, campaign, gm, alice, run, dice, django_assert_max_num_queries
):
    """A fight set up but not started is not "in progress" (it was, for every fight not
    ended); a started one is; an ended one has ended. A player reads the same."""
    started = Encounter.objects.create(campaign=campaign, name="Gränden", system="aoristos")
    for name, x in (("Vakt 1", 0.0), ("Vakt 2", 4.0)):
        run(started, gm, {"type": "add_combatant", "name": name, "side": name[-1], "x": x,
                          "alertness": 2, "agility": 2, "physique": 3})
    dice.queue += [2, 1]
    run(started, gm, {"type": "start"})
    over = Encounter.objects.create(campaign=campaign, name="Källaren", system="aoristos")
    run(over, gm, {"type": "end"})
    url = reverse("combat:list", args=[campaign.pk])
    for user in (gm, alice):
        page = english(client, user).get(url).content.decode()
        assert progress_of(page, fight) == "not started"
        assert progress_of(page, started) == "in progress"
        assert progress_of(page, over) == "ended"
    # Swedish: the fight not started does not say "pågår".
    client.cookies["django_language"] = "sv"
    page = client.get(url).content.decode()
    assert progress_of(page, fight) != progress_of(page, started) == "pågår"
    assert progress_of(page, over) == "avslutad"

    # Each fight's summary is kept per version (combat.running): with ten more fights the
    # list costs the page's own 6 queries once they were seen, and a cold list reads the
    # log of each fight not ended once (an ended fight is read from its row).
    for number in range(10):
        Encounter.objects.create(campaign=campaign, name=f"Strid {number}", system="aoristos")
    client.get(url)
    with django_assert_max_num_queries(6):
        assert client.get(url).status_code == 200
    services.forget()
    running.forget()
    with django_assert_max_num_queries(6 + 12):
        assert client.get(url).status_code == 200


def test_a_fight_undone_to_before_its_start_is_not_started_again(
    client, fight, campaign, gm, run, dice
):
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    url = reverse("combat:list", args=[campaign.pk])
    assert progress_of(english(client, gm).get(url).content.decode(), fight) == "in progress"
    fight.refresh_from_db()
    run(fight, gm, {"type": "undo", "to": fight.version - 1})
    assert progress_of(client.get(url).content.decode(), fight) == "not started"


# --- ending a fight: a second step in each system ------------------------------------------




@pytest.mark.parametrize("which", ["fight", "phobia_fight", "t10_fight"])
def test_ending_a_fight_is_a_second_step(request, client, gm, alice, which):
    """The real "end" button sits inside a closed "End the fight…" fold (a details
    element: no JavaScript needed), away from Undo; players see neither."""
    encounter = request.getfixturevalue(which)
    page = panel(english(client, gm), encounter)
    fold = section(page, "end-fold", "details")
    assert "<details " in fold
    assert " open" not in fold.split(">", 1)[0]
    assert re.search(r"<summary>\s*End the fight…\s*</summary>", fold)
    assert 'name="type" value="end"' in fold
    assert 'class="danger" data-testid="end">Yes, end the fight</button>' in fold
    assert page.count('name="type" value="end"') == 1  # no other way to end it at once
    assert "end-fold" not in panel(english(client, alice), encounter)

    assert post(english(client, gm), encounter, {"type": "end"}).status_code == 200
    assert state_of(encounter).ended
    assert "end-fold" not in panel(client, encounter)


# --- the Phobia GM's round buttons ---------------------------------------------------------


def round_controls(client, encounter) -> str:
    return section(panel(client, encounter), "round-controls", "div")


def test_the_phobia_gm_sees_only_the_round_buttons_that_apply(client, gm, phobia_fight, run):
    english(client, gm)
    controls = round_controls(client, phobia_fight)
    assert 'data-testid="start-round">Start the fight' in controls
    assert "end_round" not in controls
    assert "Next round" not in controls

    run(phobia_fight, gm, {"type": "start_round"})
    assert state_of(phobia_fight).active == "c2"  # the guard, TO 99
    page = panel(client, phobia_fight)
    controls = section(page, "round-controls", "div")
    assert "Vakten's turn: it ends by itself once the declared actions are done" in controls
    # Ending the round while turns remain is folded away, neither button the primary one;
    # the turn ends on its own card, not a second time here.
    early = section(controls, "round-early", "details")
    assert "The turns not yet taken this round are lost" in early
    assert 'value="end_round"' in early
    assert 'value="start_round"' in early
    assert 'class="primary"' not in early
    assert controls.replace(early, "").count("<form") == 0
    assert page.count('value="end_turn"') == 1
    assert 'data-testid="action-end_turn"' in section(page, "your-turn", "section")

    run(phobia_fight, gm, {"type": "end_turn", "id": "c2"})
    run(phobia_fight, gm, {"type": "end_turn", "id": "c1"})
    controls = round_controls(client, phobia_fight)
    assert "Every turn of this round is done." in controls
    assert "round-early" not in controls
    assert 'class="primary" data-testid="start-round">Next round' in controls
    assert 'data-testid="end-round">End the round' in controls

    run(phobia_fight, gm, {"type": "end_round"})
    controls = round_controls(client, phobia_fight)
    assert "The round has ended. Let time pass (below) or start the next round." in controls
    assert 'data-testid="start-round">Next round' in controls
    assert "end_round" not in controls

    # The player sees none of it.
    assert "round-controls" not in panel(english(client, phobia_fight.campaign.memberships
                                                .get(seat=1).user), phobia_fight)


# --- T10: "No reaction" is not the primary button ------------------------------------------


def test_t10s_no_reaction_is_a_plain_button(client, gm, alice, t10_fight, dice):
    dice.queue += [8, 4]  # Initiativ: Johan 8 + 2, the soldier 4 + 0
    assert post(english(client, gm), t10_fight, {"type": "start"}).status_code == 200
    english(client, alice)
    post(client, t10_fight, {"type": "act", "id": "c1", "label": "Spana", "ap": "6"})
    post(client, t10_fight, {"type": "end_turn", "id": "c1"})  # 4 AP saved
    english(client, gm)
    thrown = post(client, t10_fight, {"type": "attack", "id": "c2", "target": "c1",
                                      "weapon": "granat", "distance": "10"})
    assert thrown.status_code == 200
    page = panel(english(client, alice), t10_fight)
    prompt = section(page, "prompt-react-c1", "section")
    button = re.search(r'<button[^>]*data-testid="react-pass-c1"[^>]*>', prompt)[0]
    assert "primary" not in button
    assert "No reaction" in prompt
    assert "primary" not in prompt  # nor is "Kasta sig i skydd" made the loud one here
