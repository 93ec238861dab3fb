"""Issue 26, item 6 through the app: the GM adds a combatant to a started Aoristos fight,
and the cards agree with themselves (KP beside HK, the stress roll on the own panel)."""

import pytest
from django.urls import reverse

from combat import services

pytestmark = pytest.mark.django_db


def started(fight, gm, run, dice):
    dice.queue += [1, 3]  # Albert (SIN 5) acts first: stress 1B1F, the 1 counts
    run(fight, gm, {"type": "start"})
    fight.refresh_from_db()
    return fight


def test_gm_adds_an_npc_to_a_started_aoristos_fight(client, gm, fight, run, dice):
    fight = started(fight, gm, run, dice)
    client.force_login(gm)
    page = client.get(fight.get_absolute_url()).content.decode()
    # Once the fight is on, the add forms are a fold filled on demand (not rendered with
    # every answer of the panel: they were 9 ms of a GM's 15).
    assert 'data-testid="npc-form"' not in page
    forms_url = reverse("combat:add_forms", args=[fight.pk])
    assert f'hx-get="{forms_url}"' in page
    assert 'data-testid="npc-form"' in client.get(forms_url).content.decode()
    response = client.post(reverse("combat:add", args=[fight.pk]), {
        "version": fight.version, "source": "block", "name": "Hunden", "side": "b",
        "physique": "2", "composure": "2", "agility": "3", "alertness": "9", "willpower": "1",
        "x": "8", "y": "0"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200, response.content.decode()[:500]
    fight.refresh_from_db()
    state = services.folded(fight).state
    names = [state.get(cid).name for cid in state.order]
    assert names[0] == "Hunden"
    assert len(names) == 3
    assert state.active.name == "Albert"  # Albert keeps his activation
    assert "Hunden" in response.content.decode()


def test_a_player_cannot_add_to_a_started_fight(client, alice, fight, gm, run, dice):
    fight = started(fight, gm, run, dice)
    client.force_login(alice)
    assert client.get(reverse("combat:add_forms", args=[fight.pk])).status_code == 403
    response = client.post(reverse("combat:add", args=[fight.pk]), {
        "version": fight.version, "source": "block", "name": "X"})
    assert response.status_code == 403
    assert len(services.folded(fight).state.order) == 2


def test_the_own_panel_shows_kp_the_stress_took_and_hk(client, alice, fight, gm, run, dice):
    fight = started(fight, gm, run, dice)
    client.force_login(alice)
    html = client.get(fight.get_absolute_url()).content.decode()
    assert 'data-testid="stress">(' in html
    assert "[1, 3]" in html
    assert "−1 KP" in html
    assert "(<abbr title=\"Handlingskraft\">HK</abbr>" in html
    kp = html.split('data-testid="kp-')[1].split("</dd>")[0]
    assert kp.startswith('c1">8 <span')
    assert "8/" not in kp


def test_kp_above_the_lowered_hk_says_why_and_an_unconscious_one_shows_none():
    """Issue 43: "KP 7 (HK 1)" on an NPC knocked out looked like KP above their maximum.
    HK is what KP come back to after the activation (p. 6), lowered by nervchock (p. 13)."""
    from django.template.loader import render_to_string
    from django.utils import translation

    def card(**c):
        with translation.override("en"):
            return render_to_string("combat/aoristos/_kp.html", {"c": c})

    assert "after the activation, lowered by nervchock" in card(conscious=True, cp=7, drive=1)
    assert "nervchock" not in card(conscious=True, cp=1, drive=7)
    assert card(conscious=False, cp=7, drive=1) == '<span class="meta">unconscious</span>'

