"""The campaign's chronicle (issue 9): the same log, undo and stream as a fight, run by
the Aoristos aftermath engine (rules/aoristos/aftermath), and the wounds a fight hands
over to it when it ends."""

from django.urls import reverse

from campaign_log import reading
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
    # Chocktolerans from the sheet (p. 2: VIL + 3 = 6 for Albert), as a fight takes it.
    assert state.bodies[0].tolerance == albert_in_campaign.secondary().shock_tolerance == 6
    assert 'data-testid="tolerance-ch' in page.content.decode()
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
    # p. 14: fresh, so its lasting degree (organtrauma 3+) is in effect until rested out;
    # the fight tested Chocktolerans at the hit and its verdict comes along (p. 13).
    assert body.organ_trauma >= 3
    assert (body.rested, body.nerve_shock) == (False, body.lasting_nerve_shock)
    assert body.conscious == wounded.conscious
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


def test_players_see_an_npc_bodys_name_and_state_only(
    client, gm, alice, campaign, albert_in_campaign, dice, django_capture_on_commit_callbacks
):
    """The GM's body that is no character (added through the API, no character_id):
    players see its name and whether it is alive and conscious, in the page, the JSON
    API, the stream's payloads and the table's history; never its wounds or numbers.
    The characters' bodies stay whole for everyone."""
    import json

    from tests.combat.helpers import english

    english(client, gm)
    client.get(reverse("combat:chronicle", args=[campaign.pk]))
    chronicle = chronicle_of(campaign)
    url = reverse("combat:api_command", args=[chronicle.pk])
    albert = f"ch{albert_in_campaign.pk}"

    def post(command):
        chronicle.refresh_from_db()
        body = json.dumps({"version": chronicle.version, "command": command})
        with django_capture_on_commit_callbacks(execute=True):
            answer = client.post(url, body, content_type="application/json")
        assert answer.status_code == 200, answer.content
        return answer.json()

    post({"type": "add_body", "id": "npc1", "name": "Vakten", "willpower": 1})
    dice.queue[:] = [4, 4, 5, 5]  # survival 2B2T: 8 ≥ 4
    gm_answer = post({"type": "add_wound", "id": "npc1", "area": "torso", "damage": 5,
                      "source": "Kniven i Bakgården"})
    assert gm_answer["lines"][0]["kind"] == "WoundAdded"  # the GM sees it all
    post({"type": "add_wound", "id": albert, "area": "left_arm", "damage": 3})

    client.force_login(alice)
    page = client.get(reverse("combat:chronicle", args=[campaign.pk])).content.decode()
    assert 'data-testid="body-npc1"' in page
    assert "Vakten" in page
    assert 'data-testid="trauma-npc1"' not in page
    assert 'data-testid="bleed-npc1"' not in page
    assert "Kniven i Bakgården" not in page
    assert f'data-testid="trauma-{albert}"' in page  # a character's body: whole
    api = client.get(reverse("combat:api_encounter", args=[chronicle.pk])).json()
    npc, = [b for b in api["state"]["bodies"] if b["id"] == "npc1"]
    assert npc == {"id": "npc1", "name": "Vakten", "character_id": None, "hidden": True,
                   "alive": True, "conscious": False}
    mine, = [b for b in api["state"]["bodies"] if b["id"] == albert]
    assert mine["wounds"][0]["area"] == "left_arm"
    # The stream's payloads and the history, as a player gets them.
    lines = [
        line
        for message in reading.events_after(campaign.pk, 0, is_gm=False)
        if message["kind"] == "combat"
        for line in message["lines"]
    ]
    about_npc = [line for line in lines if line.get("who") == "Vakten"]
    assert about_npc == [
        {"kind": "BodyAdded", "who": "Vakten"},
        {"kind": "NpcState", "who": "Vakten", "at": "2026-01-05T08:00", "state": "unconscious"},
    ]
    assert "Kniven" not in json.dumps(lines)
    assert any(line["kind"] == "WoundAdded" and line["who"] == "Albert" for line in lines)
    history = client.get(reverse("table:history", args=[campaign.pk])).content.decode()
    assert "Vakten" in history
    assert "Kniven i Bakgården" not in history
    assert "a wound of 5 damage" not in history
    assert "a wound of 3 damage" in history  # Albert's
    client.force_login(gm)
    history = client.get(reverse("table:history", args=[campaign.pk])).content.decode()
    assert "Kniven i Bakgården" in history


def test_a_second_first_aid_is_refused_on_the_page_and_changes_nothing(
    client, gm, campaign, albert_in_campaign
):
    """p. 13: first aid once to a wound: the page says why, in its language."""
    from tests.combat.helpers import english, post

    english(client, gm)
    client.get(reverse("combat:chronicle", args=[campaign.pk]))
    chronicle = chronicle_of(campaign)
    albert = f"ch{albert_in_campaign.pk}"
    assert post(client, chronicle, {"type": "add_wound", "id": albert, "area": "left_leg",
                                    "damage": "4"}).status_code == 200
    assert post(client, chronicle, {"type": "first_aid", "id": albert,
                                    "levels": "1"}).status_code == 200
    version = chronicle_of(campaign).version
    again = post(client, chronicle, {"type": "first_aid", "id": albert, "levels": "3"})
    assert again.status_code == 400
    assert "first aid is given once to a wound" in again.content.decode()
    assert chronicle_of(campaign).version == version
    assert services.folded(chronicle_of(campaign)).state.body(albert).bleed_rate == 2


def test_first_aid_names_its_helpers_and_reads_their_livraddning_from_the_sheet(
    client, gm, alice, bob, campaign, albert_in_campaign
):
    """Issue 26: first aid asked the helper's level as a number. The GM picks the helpers
    among the campaign's characters (their Livräddning from the sheet, shown), or types the
    level of someone without a sheet; the command still takes the levels."""
    from characters.models import Character
    from tests.combat.helpers import english, post

    berit = Character.objects.create(owner=bob, campaign=campaign, name="Berit",
                                     skills={"first_aid": 3})
    english(client, gm)
    page = client.get(reverse("combat:chronicle", args=[campaign.pk])).content.decode()
    assert f'<option value="{berit.pk}">Berit (Livräddning 3)</option>' in page
    assert f'<option value="{albert_in_campaign.pk}">Albert (Livräddning 0)</option>' in page
    chronicle = chronicle_of(campaign)
    albert = f"ch{albert_in_campaign.pk}"
    post(client, chronicle, {"type": "add_wound", "id": albert, "area": "left_leg",
                             "damage": "4"})
    version = chronicle_of(campaign).version
    # Berit twice, a stranger's helper or no level for the helper without a sheet: refused.
    for helpers, why in [
        ({"helper_1": berit.pk, "helper_2": berit.pk}, "Choose each helper among the"),
        ({"helper_1": "99999"}, "Choose each helper among the"),
        ({"helper_1": "other", "level_1": ""}, "Give the Livräddning of the helper"),
        ({"helper_1": "other", "level_1": "31"}, "0 to 30"),
    ]:
        refused = post(client, chronicle, {"type": "first_aid", "id": albert, **helpers})
        assert refused.status_code == 400, helpers
        assert why in refused.content.decode()
        assert chronicle_of(campaign).version == version
    given = post(client, chronicle, {"type": "first_aid", "id": albert, "helper_1": berit.pk,
                                     "level_1": "0", "helper_2": "other", "level_2": "2"})
    assert given.status_code == 200
    record = CombatRecord.objects.filter(encounter=chronicle).latest("version")
    assert record.command == "first_aid"
    assert record.events[0]["levels"] == [3, 2]  # Berit's sheet, then the typed level


def test_chronicle_times_are_written_as_each_language_writes_a_date():
    """Issue 26: "mån 5 Jan 2026" mixed a Swedish weekday with an English capital. The
    language's own DATE_FORMAT: Swedish months lower-case, English ones English."""
    from django.utils import translation

    from combat.templatetags.aoristos_combat import time_text

    with translation.override("sv"):
        assert time_text("2026-01-05T08:00") == "mån 5 januari 2026 08:00"
    with translation.override("en"):
        assert time_text("2026-01-05T08:00") == "Mon Jan. 5, 2026 08:00"
    assert time_text("not a time") == "not a time"


def test_a_burn_from_a_fight_goes_on_in_the_chronicle_as_a_burn_p14(
    client, gm, campaign, fight, run, dice, albert_in_campaign
):
    """p. 14: "Vård av personen (påverkar ej brännsår)": a fire the GM applies as a hazard
    in a fight is a burn there (the log says so), and in the chronicle, where care will not
    help it heal; the GM gives one outside a fight too."""
    albert = next(cid for cid in fight.controllers)
    dice.queue += [6, 6, 6, 6, 6, 6, 6] + [6] * 10
    run(fight, gm, {"type": "hazard", "id": albert, "hand": "3B", "area": "torso",
                    "label": "eld", "burn": True})
    fight.refresh_from_db()
    record = CombatRecord.objects.get(encounter=fight, version=fight.version)
    assert next(ln for ln in record.lines if ln["kind"] == "Wounded")["burn"]
    run(fight, gm, {"type": "end"})
    chronicle = chronicle_of(campaign)
    body = services.folded(chronicle).state.body(f"ch{albert_in_campaign.pk}")
    (wound,) = body.wounds
    assert wound.burn
    assert body.burn_trauma == body.organ_trauma > 0
    client.force_login(gm)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("combat:chronicle", args=[campaign.pk])).content.decode()
    assert "a burn: care does not help it (p. 14)" in page
    assert 'name="burn"' in page
    # Outside a fight: the chronicle's own form (a checkbox), a burn of 1 organtrauma more.
    chronicle.refresh_from_db()
    dice.queue += [6, 6, 6, 6]
    run(chronicle, gm, {"type": "add_wound", "id": f"ch{albert_in_campaign.pk}",
                        "area": "torso", "damage": 2, "burn": "true"})
    body = services.folded(chronicle_of(campaign)).state.body(f"ch{albert_in_campaign.pk}")
    assert body.burn_trauma == body.organ_trauma
