"""The campaign's chronicle (issue 9): the same log, undo and stream as a fight, run by
the Aoristos aftermath engine (rules/aoristos/aftermath), and the wounds a fight hands
over to it when it ends."""

from django.urls import reverse

from combat import services
from combat.models import CombatRecord, Encounter


def chronicle_of(campaign):
    return Encounter.objects.get(campaign=campaign, kind=Encounter.Kind.CHRONICLE)


def test_the_gm_opens_the_chronicle_and_every_character_gets_a_body(
    client, gm, alice, campaign, albert_in_campaign
):
    client.force_login(gm)
    url = reverse("combat:chronicle", args=[campaign.pk])
    page = client.get(url)
    assert page.status_code == 200
    chronicle = chronicle_of(campaign)
    state = services.folded(chronicle).state
    assert [b.name for b in state.bodies] == ["Albert"]
    assert state.bodies[0].willpower == albert_in_campaign.levels()["willpower"]
    assert f'data-testid="body-ch{albert_in_campaign.pk}"' in page.content.decode()
    # Opening it again adds nobody twice; the combat list does not show it.
    client.get(url)
    assert chronicle_of(campaign).version == 1
    assert "Krönika" not in client.get(reverse("combat:list", args=[campaign.pk])).content.decode()


def test_players_see_the_chronicle_but_cannot_command_it(
    client, gm, alice, outsider, campaign, albert_in_campaign
):
    client.force_login(gm)
    client.get(reverse("combat:chronicle", args=[campaign.pk]))
    chronicle = chronicle_of(campaign)
    client.force_login(alice)
    page = client.get(reverse("combat:chronicle", args=[campaign.pk]))
    assert page.status_code == 200
    assert 'data-testid="chronicle-gm"' not in page.content.decode()
    command = reverse("combat:command", args=[chronicle.pk])
    refused = client.post(command, {"version": 1, "type": "advance", "amount": "5",
                                    "unit": "minutes"})
    assert refused.status_code == 403
    assert chronicle_of(campaign).version == 1
    client.force_login(outsider)
    assert client.get(reverse("combat:chronicle", args=[campaign.pk])).status_code == 404


def test_the_gm_advances_time_from_the_page_and_bad_input_changes_nothing(
    client, gm, campaign, albert_in_campaign, dice, django_capture_on_commit_callbacks
):
    client.force_login(gm)
    client.get(reverse("combat:chronicle", args=[campaign.pk]))
    chronicle = chronicle_of(campaign)
    command = reverse("combat:command", args=[chronicle.pk])
    bad = client.post(command, {"version": 1, "type": "advance", "amount": "0",
                                "unit": "minutes"}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 400
    assert "amount" in bad.content.decode()
    assert chronicle_of(campaign).version == 1
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(command, {"version": 1, "type": "advance", "amount": "2",
                                     "unit": "hours"}, HTTP_HX_REQUEST="true")
    assert done.status_code == 200
    record = CombatRecord.objects.get(encounter=chronicle, version=2)
    assert record.lines[-1]["kind"] == "ClockMoved"
    assert record.lines[-1]["to"] == "2026-01-05T10:00"
    # The table's log shows it, worded, like any other event of the campaign.
    table = client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    assert "The clock stands at" in table or "Klockan" in table


def test_a_fights_wounds_go_on_in_the_chronicle_once(
    gm, campaign, fight, run, dice, albert_in_campaign
):
    albert = next(cid for cid in fight.controllers)
    # A hazard of 3B on Albert's torso: 6 + 6 + 6 = 18, no armour, Härdighet 2 → damage.
    dice.queue += [6, 6, 6, 6, 6, 6, 6] + [6] * 10
    run(fight, gm, {"type": "hazard", "id": albert, "hand": "3B", "area": "torso"})
    fight.refresh_from_db()
    wounded = services.folded(fight).state.get(albert)
    assert wounded.bleed_rate > 0
    assert wounded.organ_trauma > 0
    run(fight, gm, {"type": "end"})
    chronicle = chronicle_of(campaign)
    body = services.folded(chronicle).state.body(f"ch{albert_in_campaign.pk}")
    (wound,) = body.wounds
    assert wound.area == "torso"
    assert wound.source == "Bakgården"
    assert wound.bleed_rate == wounded.bleed_rate
    assert body.organ_trauma == wounded.organ_trauma
    # Undoing the end and ending again carries nothing over twice.
    fight.refresh_from_db()
    run(fight, gm, {"type": "undo", "to": fight.version - 1})
    run(fight, gm, {"type": "end"})
    body = services.folded(chronicle_of(campaign)).state.body(f"ch{albert_in_campaign.pk}")
    assert len(body.wounds) == 1


def test_the_json_api_reads_and_commands_the_chronicle(client, gm, campaign, albert_in_campaign):
    import json

    client.force_login(gm)
    client.get(reverse("combat:chronicle", args=[campaign.pk]))
    chronicle = chronicle_of(campaign)
    got = client.get(reverse("combat:api_encounter", args=[chronicle.pk])).json()
    assert got["state"]["clock"] == "2026-01-05T08:00"
    url = reverse("combat:api_command", args=[chronicle.pk])

    def post(command, version):
        body = json.dumps({"version": version, "command": command})
        return client.post(url, body, content_type="application/json")

    bad = post({"type": "advance", "amount": 0, "unit": "hours"}, 1)
    assert bad.status_code == 400
    assert "amount" in bad.json()["error"]
    # Nothing has happened yet: the campaign's date may be set, earlier too.
    dated = post({"type": "advance", "to": "1923-04-02T12:00"}, 1)
    assert dated.status_code == 200
    assert dated.json()["state"]["clock"] == "1923-04-02T12:00"
    assert post({"type": "advance", "amount": 1, "unit": "hours"}, 1).status_code == 409


def test_the_gm_gives_psyktrauma_and_the_player_vents_it_through_the_page(
    client, gm, alice, campaign, albert_in_campaign, dice
):
    """p. 15, from the GM's forms: a gain as a hand (1B2F, the lowest die counts), then a
    temporary disorder in the player's words; everyone's page shows the sum and the
    disorder. A form with neither hand nor points is refused and changes nothing."""
    client.force_login(gm)
    client.get(reverse("combat:chronicle", args=[campaign.pk]))
    chronicle = chronicle_of(campaign)
    command = reverse("combat:command", args=[chronicle.pk])
    body = f"ch{albert_in_campaign.pk}"
    bad = client.post(command, {"version": 1, "type": "gain_psych_trauma", "id": body,
                                "hand": "", "amount": "", "source": "event"},
                      HTTP_HX_REQUEST="true")
    assert bad.status_code == 400
    assert chronicle_of(campaign).version == 1
    dice.queue[:] = [5, 2, 4]
    gained = client.post(command, {"version": 1, "type": "gain_psych_trauma", "id": body,
                                   "hand": "1B2F", "amount": "", "source": "event",
                                   "reason": "Brodern"}, HTTP_HX_REQUEST="true")
    assert gained.status_code == 200
    vented = client.post(command, {"version": 2, "type": "take_disorder", "id": body,
                                   "kind": "temporary", "description": "Kräks i badrummet"},
                         HTTP_HX_REQUEST="true")
    assert vented.status_code == 200
    state = services.folded(chronicle_of(campaign)).state
    assert state.body(body).psych_trauma == 1
    client.force_login(alice)
    page = client.get(reverse("combat:chronicle", args=[campaign.pk])).content.decode()
    assert f'data-testid="psych-{body}">1' in page
    assert "Kräks i badrummet" in page
    refused = client.post(command, {"version": 3, "type": "gain_psych_trauma", "id": body,
                                    "amount": "3"})
    assert refused.status_code == 403
