"""Encounters through the app: the log, versions, permissions, the shared stream, undo and
redo, restarts, and the JSON API."""

import json

import pytest
from django.urls import reverse

from campaign_log import reading
from combat import services
from combat.models import CombatRecord, Encounter, NpcTemplate
from table import services as table_services
from tests.table.log_check import assert_one_query_reads_the_log

pytestmark = pytest.mark.django_db


def api_post(client, encounter, command, version=None):
    encounter.refresh_from_db()
    body = {"version": encounter.version if version is None else version, "command": command}
    return client.post(reverse("combat:api_command", args=[encounter.pk]),
                       json.dumps(body), content_type="application/json")


def started(fight, gm, run, dice):
    dice.queue += [1, 3]  # Albert (SIN 5) acts first: stress 1B1F, the 1 counts
    run(fight, gm, {"type": "start"})
    fight.refresh_from_db()
    return fight


def test_gm_creates_an_encounter_with_house_rules(client, gm, campaign):
    client.force_login(gm)
    url = reverse("combat:list", args=[campaign.pk])
    response = client.post(url, {"name": "Gränden", "house_melee_reach": "2.5",
                                 "house_pack_extra_cp": "2"})
    encounter = Encounter.objects.get()
    assert response.status_code == 302
    assert encounter.house_rules == {"movement_by_round_total": False, "melee_reach": 2.5,
                                     "vigilance_cover_areas": 3, "hard_to_locate": 2,
                                     "pack_extra_cp": 2}
    page = client.get(url)
    assert "Gränden" in page.content.decode()


def test_a_player_cannot_create_an_encounter(client, alice, campaign):
    client.force_login(alice)
    response = client.post(reverse("combat:list", args=[campaign.pk]), {"name": "X"})
    assert response.status_code == 403
    assert not Encounter.objects.exists()


def test_outsiders_get_404(client, outsider, fight):
    client.force_login(outsider)
    assert client.get(fight.get_absolute_url()).status_code == 404
    assert api_post(client, fight, {"type": "start"}).status_code == 404


def test_adding_a_character_gives_its_player_control(fight, alice):
    albert_id = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    state = services.folded(fight).state
    albert = state.get(albert_id)
    assert (albert.name, albert.alertness, albert.drive) == ("Albert", 5, 9)


def test_combat_records_share_the_campaigns_sequence_with_rolls(fight, gm, run, dice, campaign):
    from rules.aoristos import dice as hands

    roll = table_services.roll_record(campaign=campaign, actor=gm, hand=hands.Hand.of(1))
    started(fight, gm, run, dice)
    record = CombatRecord.objects.latest("seq")
    assert record.seq == roll.seq + 1
    events = reading.events_after(campaign.pk, 0, is_gm=False)
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    assert events[-1]["kind"] == "combat"
    assert "players" not in events[-1]


def test_a_player_commands_their_character_but_not_the_npc(client, alice, gm, fight, run, dice):
    fight = started(fight, gm, run, dice)
    client.force_login(alice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    npc = next(c.id for c in services.folded(fight).state.combatants if c.npc)
    response = api_post(client, fight, {"type": "scan", "id": albert})
    assert response.status_code == 200, response.content
    assert response.json()["version"] == fight.version + 1
    refused = api_post(client, fight, {"type": "scan", "id": npc})
    assert refused.status_code == 403
    gm_only = api_post(client, fight, {"type": "end"})
    assert gm_only.status_code == 403


def test_a_stale_version_changes_nothing(client, alice, gm, fight, run, dice):
    fight = started(fight, gm, run, dice)
    client.force_login(alice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    count = CombatRecord.objects.count()
    response = api_post(client, fight, {"type": "scan", "id": albert}, version=fight.version - 1)
    assert response.status_code == 409
    assert response.json() == {"error": "the situation changed", "version": fight.version}
    assert CombatRecord.objects.count() == count


def test_an_illegal_command_is_refused_with_its_reason(client, alice, gm, fight, run, dice):
    fight = started(fight, gm, run, dice)
    client.force_login(alice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    count = CombatRecord.objects.count()
    npc = next(c.id for c in services.folded(fight).state.combatants if c.npc)
    response = api_post(client, fight, {"type": "attack", "id": albert, "target": npc,
                                        "weapon": "pistol", "aim": 1})
    # 5 m away is not melee (2 m), so aim is fine; aim in melee is refused:
    assert response.status_code == 200
    fight.refresh_from_db()
    client.force_login(gm)
    again = api_post(client, fight, {"type": "move", "id": albert, "x": 0, "y": 0})
    assert again.status_code == 400
    assert "error" in again.json()
    assert CombatRecord.objects.count() == count + 1


def test_npc_numbers_stay_the_gms_in_the_log(fight, gm, alice, run, dice):
    fight = started(fight, gm, run, dice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    dice.queue += [2, 5]  # the guard's stress
    run(fight, gm, {"type": "end_activation", "id": albert})
    record = CombatRecord.objects.latest("seq")
    gm_view = reading.events_after(fight.campaign_id, record.seq - 1, is_gm=True)[0]
    player_view = reading.events_after(fight.campaign_id, record.seq - 1, is_gm=False)[0]
    npc_start_gm = [line for line in gm_view["lines"] if line["kind"] == "ActivationStarted"]
    npc_start_player = [
        line for line in player_view["lines"] if line["kind"] == "ActivationStarted"
    ]
    assert "loss" in npc_start_gm[0]
    assert "loss" not in npc_start_player[0]
    assert npc_start_player[0]["hidden"] is True


def test_after_a_restart_the_encounter_continues_where_it_was(fight, gm, alice, run, dice):
    fight = started(fight, gm, run, dice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    run(fight, alice, {"type": "move", "id": albert, "x": 1.0, "y": 0.0})
    fight.refresh_from_db()
    before = services.folded(fight).state
    services.forget()  # a new process: nothing in memory
    assert services.folded(Encounter.objects.get(pk=fight.pk)).state == before


def test_gm_undoes_and_redoes_without_rolling_again(client, gm, alice, fight, run, dice):
    fight = started(fight, gm, run, dice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    run(fight, alice, {"type": "move", "id": albert, "x": 2.0, "y": 0.0})
    fight.refresh_from_db()
    moved = services.folded(fight).state
    client.force_login(alice)
    assert api_post(client, fight, {"type": "undo", "to": fight.version - 1}).status_code == 403
    client.force_login(gm)
    response = api_post(client, fight, {"type": "undo", "to": fight.version - 1})
    assert response.status_code == 200
    fight.refresh_from_db()
    assert services.folded(fight).state.get(albert).x == 0
    assert api_post(client, fight, {"type": "redo"}).status_code == 200
    fight.refresh_from_db()
    assert services.folded(fight).state == moved
    assert dice.queue == []  # nothing was rolled again
    services.forget()
    assert services.folded(fight).state == moved
    assert_one_query_reads_the_log(fight.campaign_id, kinds={"combat"})


def test_pages_render_for_gm_and_player(client, gm, alice, fight, run, dice):
    fight = started(fight, gm, run, dice)
    for user in (gm, alice):
        client.force_login(user)
        page = client.get(fight.get_absolute_url())
        assert page.status_code == 200
        html = page.content.decode()
        assert "Vakten" in html
        assert ('data-testid="gm-panel"' in html) == (user == gm)
        assert ('data-testid="your-turn"' in html)  # Albert's activation: Alice's and the GM's
    client.force_login(alice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    npc = next(c.id for c in services.folded(fight).state.combatants if c.npc)
    preview = client.get(reverse("combat:preview", args=[fight.pk]),
                         {"id": albert, "target": npc, "weapon": "pistol", "aim": "0"})
    assert preview.status_code == 200
    assert 'data-testid="preview-hit"' in preview.content.decode()


def test_form_commands_answer_the_panel(client, gm, alice, fight, run, dice):
    fight = started(fight, gm, run, dice)
    client.force_login(alice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    url = reverse("combat:command", args=[fight.pk])
    response = client.post(url, {"version": fight.version, "type": "move", "id": albert,
                                 "x": "1.5", "y": "0"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    stale = client.post(url, {"version": fight.version, "type": "scan", "id": albert},
                        HTTP_HX_REQUEST="true")
    assert stale.status_code == 409
    assert "The situation changed" in stale.content.decode() or "Läget" in stale.content.decode()


def test_gm_adds_an_npc_and_saves_it_as_a_template(client, gm, encounter):
    client.force_login(gm)
    url = reverse("combat:add", args=[encounter.pk])
    response = client.post(url, {"version": 0, "source": "block", "name": "Hund", "side": "b",
                                 "physique": "1", "agility": "4", "alertness": "3",
                                 "composure": "1", "willpower": "1", "skill_brawling": "3",
                                 "x": "4", "y": "0", "save_template": "true"})
    assert response.status_code == 302
    template = NpcTemplate.objects.get()
    assert template.block["skills"]["brawling"] == 3
    response = client.post(url, {"version": 1, "source": "template", "template": template.pk,
                                 "name": "Hund 2", "x": "5", "y": "1"})
    assert response.status_code == 302
    names = [c.name for c in services.folded(Encounter.objects.get()).state.combatants]
    assert names == ["Hund", "Hund 2"]


def test_equipment_from_the_catalogue_goes_into_encounters(client, alice, gm, encounter,
                                                          albert_in_campaign):
    """The sheet's equipment uses the campaign's catalogue (name and FP filled from it: a
    loaded pistol is VV + MV, p. 5); the character carries it into an encounter."""
    client.force_login(alice)
    url = reverse("characters:item_add", args=[albert_in_campaign.pk])
    assert client.post(url, {"catalogue": "weapon:pistol", "quantity": "1"}).status_code == 302
    assert client.post(url, {"catalogue": "armour:helmet", "quantity": "1"}).status_code == 302
    pistol = albert_in_campaign.items.get(catalogue="weapon:pistol")
    assert pistol.name == "Pistol"
    assert float(pistol.bulk) > 0
    refused = client.post(url, {"catalogue": "", "name": "", "quantity": "1"})
    assert refused.status_code == 400
    client.force_login(gm)
    add = reverse("combat:add", args=[encounter.pk])
    response = client.post(add, {"version": 0, "source": "character",
                                 "character": albert_in_campaign.pk, "side": "a"})
    assert response.status_code == 302
    albert = services.folded(Encounter.objects.get()).state.combatants[0]
    assert [w.key for w in albert.weapons] == ["pistol"]
    assert albert.right == "pistol"
    assert [a.key for a in albert.armour] == ["helmet"]


def test_gm_adds_a_weapon_to_the_campaign_catalogue(client, gm, alice, campaign):
    from combat.models import CatalogueItem

    url = reverse("combat:catalogue", args=[campaign.pk])
    client.force_login(alice)
    page = client.get(url)
    assert page.status_code == 200
    assert "Slunga" in page.content.decode()
    assert "s. 12" in page.content.decode()
    assert client.post(url, {"kind": "weapon"}).status_code == 403
    client.force_login(gm)
    fields = {"kind": "weapon", "weapon-key": "blunderbuss", "weapon-name": "Muskedunder",
              "weapon-skill": "firearms", "weapon-real": "on", "weapon-strength": "8",
              "weapon-hands": "2", "weapon-windup": "0", "weapon-fire_modes": "1",
              "weapon-magazine": "1", "weapon-ranged": "on", "weapon-firearm": "long",
              "weapon-weapon_bulk": "5", "weapon-magazine_bulk": "0.1"}
    assert client.post(url, fields).status_code == 302
    assert CatalogueItem.objects.get().data["strength"] == 8
    bad = client.post(url, {**fields, "weapon-fire_modes": "auto+xN"})
    assert bad.status_code == 400
    assert "fire mode" in bad.content.decode()
    assert "Muskedunder" in client.get(url).content.decode()


def test_a_command_costs_the_same_few_queries_however_long_the_log(
    client, gm, alice, fight, run, dice, django_capture_on_commit_callbacks
):
    """Cost per request stays flat: the state comes from the process's cache of the
    latest version, not from the log."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    fight = started(fight, gm, run, dice)
    client.force_login(alice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    url = reverse("combat:command", args=[fight.pk])

    def post_move(x):
        fight.refresh_from_db()
        # The cache of the latest state is filled after commit, as on a real server.
        with django_capture_on_commit_callbacks(execute=True), CaptureQueriesContext(
            connection
        ) as queries:
            response = client.post(url, {"version": fight.version, "type": "posture",
                                         "id": albert, "posture": x}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200, response.content[:300]
        return len(queries)

    early = post_move("sitting")
    for _ in range(20):  # a longer log: Albert sits and stands, the guard does nothing
        dice.queue += [1, 1, 1, 1]
        run(fight, gm, {"type": "end_activation", "id": albert})
        fight.refresh_from_db()
        npc = services.folded(fight).state.active.id
        run(fight, gm, {"type": "end_activation", "id": npc})
    late = post_move("standing" if services.folded(fight).state.get(albert).posture
                     == "sitting" else "sitting")
    assert late == early
    # session, encounter, membership (its user and campaign in the same query); then one
    # INSERT numbers and stores the record and (its trigger) moves the version on; no read
    # of the log.
    assert late <= 4


def test_a_fight_another_process_moved_on_is_not_replayed_from_the_start(
    gm, alice, fight, run, dice, monkeypatch
):
    """This process holds the state at some version; another moved the fight on (here:
    the cache is set back to that older state, as the other process would have left
    this one's). The next read folds in only the newer records, an undo among them, in
    one query and the undo's own two: never the whole log."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from rules import engine as rules_engine

    fight = started(fight, gm, run, dice)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    for x in (1.0, 2.0, 3.0):
        run(fight, alice, {"type": "move", "id": albert, "x": x, "y": 0.0})
    fight.refresh_from_db()
    held_version, held = fight.version, services.folded(fight)
    run(fight, alice, {"type": "move", "id": albert, "x": 4.0, "y": 0.0})
    run(fight, gm, {"type": "undo", "to": held_version})
    run(fight, alice, {"type": "move", "id": albert, "x": 5.0, "y": 1.0})
    fight.refresh_from_db()
    everything = rules_engine.replay(
        services.engine_of(fight), services.initial_state(fight),
        services.records(fight.pk, services.engine_of(fight)),
    )

    services.forget()
    services.remember(fight.pk, held_version, held)

    def no_whole_replay(*args):
        raise AssertionError("the whole log was replayed")

    monkeypatch.setattr(services, "replay", no_whole_replay)
    with CaptureQueriesContext(connection) as queries:
        now = services.folded(fight)
    assert now.state == everything.state
    assert (now.applied, now.redoable) == (everything.applied, everything.redoable)
    assert now.state.get(albert).x == 5.0
    assert len(queries) == 3  # the newer records; the undo's dropped and kept ones

    # Without an undo among them: one query, of the newer records only.
    run(fight, alice, {"type": "move", "id": albert, "x": 6.0, "y": 1.0})
    fight.refresh_from_db()
    services.forget()
    services.remember(fight.pk, fight.version - 1, now)
    with CaptureQueriesContext(connection) as queries:
        assert services.folded(fight).state.get(albert).x == 6.0
    assert len(queries) == 1


def test_the_panels_forms_post_without_javascript(alice, gm, fight, run, dice):
    """Every form carries the CSRF token: a browser without JavaScript posts it and gets
    the page back."""
    import re

    from django.test import Client

    fight = started(fight, gm, run, dice)
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    page = client.get(fight.get_absolute_url()).content.decode()
    forms = re.findall(r"<form [^>]*method=\"post\".*?</form>", page, re.S)
    assert forms
    assert all("csrfmiddlewaretoken" in form for form in forms)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    albert = next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)
    response = client.post(reverse("combat:command", args=[fight.pk]), {
        "csrfmiddlewaretoken": token, "version": fight.version, "type": "scan", "id": albert})
    assert response.status_code == 302
    fight.refresh_from_db()
    assert CombatRecord.objects.filter(encounter=fight).latest("version").command == "scan"


def test_a_command_decided_on_a_row_read_before_another_command_is_stale(
    gm, fight, run, membership_of
):
    """Two requests read the encounter at one version; the first stores its command; the
    second, decided against the older state, is refused when it stores, changes nothing."""
    old_row = Encounter.objects.get(pk=fight.pk)
    run(fight, gm, {"type": "update_combatant", "id": "c2", "x": 4.0})
    count = CombatRecord.objects.count()
    with pytest.raises(services.Stale) as stale:
        services.command_run(encounter=old_row, membership=membership_of(fight.campaign, gm),
                             data={"type": "update_combatant", "id": "c2", "x": 9.0},
                             version=old_row.version)
    assert stale.value.version == old_row.version + 1
    assert CombatRecord.objects.count() == count
    fight.refresh_from_db()
    assert services.folded(fight).state.get("c2").x == 4.0


def test_the_attacker_takes_the_offered_vigilance_once_the_target_waited_too_long(
    client, alice, bob, gm, encounter, albert_in_campaign, run, dice
):
    """A player whose target is another player's character: the target's phone gets 20 s
    to choose; then the attacker's player may take the offered default for it."""
    from datetime import timedelta

    from characters.models import Character
    from rules.aoristos.combat import ENGINE

    berit = Character.objects.create(owner=bob, campaign=encounter.campaign, name="Berit",
                                     attributes={"alertness": 1})
    for character, side, x, owner in ((albert_in_campaign, "a", 0.0, alice),
                                      (berit, "b", 1.0, bob)):
        block = ENGINE.character_block(name=character.name, levels=character.levels(),
                                       derived=character.secondary().as_dict())
        block.update(character_id=character.pk, side=side, x=x)
        run(encounter, gm, block, controller=owner.pk)
    dice.queue += [1, 1]
    run(encounter, gm, {"type": "start"})
    run(encounter, alice, {"type": "attack", "id": "c1", "target": "c2", "weapon": "unarmed"})
    client.force_login(alice)
    take_default = {"type": "vigilance", "id": "c2", "default": True}
    assert api_post(client, encounter, take_default).status_code == 403  # too early
    CombatRecord.objects.filter(encounter=encounter).update(
        created_at=timezone_now() - timedelta(seconds=30))
    dice.queue += [6, 6, 6, 6, 1, 6, 6, 6, 6, 6, 6, 6, 6, 6]
    response = api_post(client, encounter, take_default)
    assert response.status_code == 200, response.content
    assert response.json()["lines"][0]["kind"] == "VigilanceChosen"
    assert api_post(client, encounter, {"type": "scan", "id": "c2"}).status_code == 403


def timezone_now():
    from django.utils import timezone

    return timezone.now()


def test_armour_put_on_when_joining_a_fight_goes_on_the_sheet(client, gm, encounter,
                                                             albert_in_campaign):
    """Issue 26: armour the GM chose when adding a character stayed in the fight. It is
    the character's armour: it goes on the sheet's equipment once, and the next fight
    brings it along by itself."""
    from characters.models import Item

    Item.objects.create(character=albert_in_campaign, name="Hjälm", catalogue="armour:helmet")
    client.force_login(gm)
    add = reverse("combat:add", args=[encounter.pk])
    response = client.post(add, {"version": 0, "source": "character", "side": "a",
                                 "character": albert_in_campaign.pk,
                                 "armour": ["helmet", "soft_vest"]})
    assert response.status_code == 302
    albert = services.folded(Encounter.objects.get()).state.combatants[0]
    assert [a.key for a in albert.armour] == ["helmet", "soft_vest"]
    kept = list(albert_in_campaign.items.values_list("catalogue", flat=True))
    assert kept == ["armour:helmet", "armour:soft_vest"]  # the helmet not twice
    jacket = albert_in_campaign.items.get(catalogue="armour:soft_vest")
    assert jacket.name == albert.armour[1].name
    sheet = client.get(reverse("characters:sheet", args=[albert_in_campaign.pk]))
    assert jacket.name in sheet.content.decode()


def test_refused_armour_leaves_the_sheet_as_it_was(client, gm, encounter, albert_in_campaign):
    client.force_login(gm)
    add = reverse("combat:add", args=[encounter.pk])
    response = client.post(add, {"version": 0, "source": "character", "side": "a",
                                 "character": albert_in_campaign.pk, "armour": ["no_such"]})
    assert response.status_code == 400
    assert not albert_in_campaign.items.exists()
    assert not Encounter.objects.get().version


# Issue 45's small items through the JSON API (p. 7, 8, 11) ---------------------------------


def by(state, name):
    return next(c for c in state["combatants"] if c["name"] == name)


def test_the_api_plays_a_pack_and_a_kick_p7_p8(client, gm, encounter, dice):
    """p. 7: taking out what is packed away costs more (the encounter's house rule, here 2
    KP more: 3 in all); p. 8: an unarmed attack names its limb, and a parry with a real
    weapon hits that limb back."""
    encounter.house_rules = {"pack_extra_cp": 2}
    encounter.save()
    client.force_login(gm)
    blocks = [
        {"name": "Skytten", "alertness": 5, "composure": 6, "weapons": ["machine_gun", "knife"],
         "right": "machine_gun", "left": "machine_gun", "packed": ["knife"]},
        {"name": "Hjälpen", "alertness": 4, "composure": 6, "x": 1.0, "skills": {"brawling": 2}},
        {"name": "Fienden", "side": "b", "alertness": 1, "x": 2.0,
         "skills": {"melee_weapons": 8}, "weapons": ["knife"], "right": "knife"},
    ]
    for block in blocks:
        assert api_post(client, encounter, {"type": "add_combatant", **block}).status_code == 200
    dice.queue += [1, 1]
    state = api_post(client, encounter, {"type": "start"}).json()["state"]
    assert state["house"]["pack_extra_cp"] == 2
    gunner, helper, foe = (by(state, n)["id"] for n in ("Skytten", "Hjälpen", "Fienden"))
    knife = next(w for w in by(state, "Skytten")["weapons"] if w["key"] == "knife")
    assert knife["packed"]
    dropped = api_post(client, encounter, {"type": "drop", "id": gunner, "hand": "right"})
    drawn = api_post(client, encounter, {"type": "draw", "id": gunner, "weapon": "knife"})
    assert dropped.status_code == drawn.status_code == 200, drawn.content
    line = next(ln for ln in drawn.json()["lines"] if ln["kind"] == "HandsChanged")
    assert line["cost"] == 1 + 2
    state = drawn.json()["state"]
    assert by(state, "Skytten")["cp"] == by(state, "Skytten")["drive"] - 1 - 3
    dice.queue += [1, 1]
    ended = api_post(client, encounter, {"type": "end_activation", "id": gunner})
    assert ended.json()["state"]["active"] == helper
    kick = api_post(client, encounter, {"type": "attack", "id": helper, "target": foe,
                                        "limb": "right_leg"})
    assert kick.status_code == 200, kick.content
    # ST: Närstridsvapen 8 + SIN 1 (round 1) = 9; TB 2 + 1, dice 1 + 1: a miss. The area
    # die; the parry's 1B (6 // Härdighet 2 = 3: the right leg broken); her pain test.
    dice.queue += [1, 1, 1, 1, 4, 6, *[6] * 5]
    parried = api_post(client, encounter, {"type": "vigilance", "id": foe,
                                           "properties": ["melee_weapons"]})
    assert parried.status_code == 200, parried.content
    wound = next(ln for ln in parried.json()["lines"] if ln["kind"] == "Wounded")
    assert (wound["id_name"], wound["area"], wound["damage"]) == ("Hjälpen", "right_leg", 3)
    assert by(parried.json()["state"], "Hjälpen")["hurt_limbs"] == ["right_leg"]


def test_the_api_feeds_a_belt_with_an_assistant_p11(client, gm, encounter, dice):
    """p. 11: "Med ett bälte är förvald OL (s. 7) 10 för skytten, 5 för en assistent"."""
    client.force_login(gm)
    for block in (
        {"name": "Skytten", "alertness": 5, "weapons": ["machine_gun"], "right": "machine_gun",
         "left": "machine_gun"},
        {"name": "Hjälpen", "alertness": 4, "composure": 6, "x": 1.0},
        {"name": "Fienden", "side": "b", "alertness": 1, "x": 60.0},
    ):
        assert api_post(client, encounter, {"type": "add_combatant", **block}).status_code == 200
    dice.queue += [1, 1]
    state = api_post(client, encounter, {"type": "start"}).json()["state"]
    gunner, helper, foe = (by(state, n)["id"] for n in ("Skytten", "Hjälpen", "Fienden"))
    # A burst of auto+3N with base 0: dice 6, 6, 6 are 18 rounds; no area (p. 9); it hits
    # (ST 0 + 1 for 60 m), and the foe's survival roll.
    shot = api_post(client, encounter, {"type": "attack", "id": gunner, "target": foe,
                                        "weapon": "machine_gun", "mode": "auto+3n", "shots": 0})
    assert shot.status_code == 200, shot.content
    dice.queue += [6, 6, 6, 1, 1, 1, 1, 1, 1, 6, 6, 6, 6]
    burst = api_post(client, encounter, {"type": "vigilance", "id": foe, "properties": []})
    assert burst.status_code == 200, burst.content
    dice.queue += [1, 1]
    api_post(client, encounter, {"type": "end_activation", "id": gunner})
    encounter.refresh_from_db()
    state = services.folded(encounter).state
    assert state.active.id == helper
    assert state.get(gunner).rounds("machine_gun") == 100 - 18
    fed = api_post(client, encounter, {"type": "reload", "id": helper, "weapon": "machine_gun",
                                       "gunner": gunner})
    assert fed.status_code == 200, fed.content
    line = next(ln for ln in fed.json()["lines"] if ln["kind"] == "Reloaded")
    assert (line["cost"], line["gunner_name"]) == (5, "Skytten")
    assert next(w for w in by(fed.json()["state"], "Skytten")["weapons"])["rounds"] == 100


def test_the_pack_house_rule_is_offered_with_its_default_and_shown_on_the_page_p7(
        client, gm, campaign, fight, run, dice):
    """p. 7: "Att plocka fram saker som är nedstoppade i packning kostar mer": no number, so
    a house rule with its default (1 KP more), on the new encounter's form and the page."""
    from tests.combat.helpers import english

    english(client, gm)
    form = client.get(reverse("combat:list", args=[campaign.pk])).content.decode()
    assert "Taking an item out of a pack: extra KP" in form
    assert 'name="house_pack_extra_cp"' in form
    assert 'value="1"' in form
    fight = started(fight, gm, run, dice)
    page = client.get(fight.get_absolute_url()).content.decode()
    assert "out of a pack +1 KP" in page
    forms = client.get(reverse("combat:add_forms", args=[fight.pk])).content.decode()
    assert 'name="packed"' in forms
