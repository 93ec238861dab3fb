"""No account reaches another campaign's rows through a fight's command (issue 42).

Anyone can sign up and run a campaign of their own. Before this, a GM could add any
character of the server to a fight of their own by its id through the JSON API
(`add_combatant` with `character_id`), in any system and across systems, and the
campaign's archive then held that character whole. Every command now goes through
`combat.scoped.command`: these tests send, for every command field that names a row, ids
of another campaign's rows and of another system's, as GM and as player, by the API and
by the form, and check that each is refused with a clear reason and that nothing is
stored, shown on a page or written into the archive.
"""

import dataclasses
import io
import json
import re
import zipfile

import pytest
from django.urls import reverse

from archive.export import campaign_archive
from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import scoped, services
from combat.forms import picture_facts
from combat.models import CombatRecord, Encounter, MapPicture, NpcTemplate
from rules import scene
from rules.aoristos.aftermath import commands as chronicle_commands
from rules.aoristos.combat import commands as aoristos_commands
from rules.phobia.combat import commands as phobia_commands
from rules.t10.combat import commands as t10_commands
from tests.archive.test_roundtrip import png

pytestmark = pytest.mark.django_db

SYSTEMS = ("aoristos", "phobia", "t10")
# The least an NPC needs in each system: the same command is played with an own character.
NPC = {"aoristos": {}, "phobia": {"turn_order": 10}, "t10": {}}
SECRET = "Hemligt: nyckeln ligger under stenen vid bryggan"

# Every field of a command that holds an id of the fight itself (a combatant, a shape of
# the scene, a body of the chronicle): the engine checks those against its own state.
FIGHT_IDS = {"id", "target", "ids", "index", "attacker", "defender", "by", "of", "with_",
             "combatant", "targets", "order", "first", "partner", "helper", "patient",
             "carrier", "into"}
ROW_LIKE = re.compile(r"(_id|_pk|_key)$|^(key|character|member|membership|user|item|"
                      r"template|picture|encounter|record|campaign|owner|roll)s?$")


def command_classes():
    found = {}
    for module in (aoristos_commands, phobia_commands, t10_commands):
        for cls in module.COMMANDS.values():
            found[f"{module.__name__}.{cls.__name__}"] = cls
    for cls in chronicle_commands.COMMAND_TYPES.values():
        found[f"chronicle.{cls.__name__}"] = cls
    for cls in scene.COMMANDS.values():
        found[f"scene.{cls.__name__}"] = cls
    return found


def test_every_command_field_that_names_a_row_is_resolved_through_the_campaign():
    """A field that looks like a row's id (by its name) is resolved by combat.scoped or is
    named here as the fight's own; a new command with a new id field fails here until it
    is one or the other."""
    unresolved = []
    for where, cls in command_classes().items():
        for field in dataclasses.fields(cls):
            resolved = field.name in scoped.ROW_FIELDS or \
                (cls.__name__, field.name) in scoped.CLASS_FIELDS
            if ROW_LIKE.search(field.name) and not resolved and field.name not in FIGHT_IDS:
                unresolved.append(f"{where}.{field.name}")
    assert unresolved == []
    assert len(command_classes()) > 60  # the three engines, the chronicle, the scene


@pytest.fixture
def tables(make_user):
    """The victim's campaigns, one per system, each with a character full of secrets and
    a fight with a map picture; and the attacker's campaigns, one per system, each with
    a fight, a player and a character of its own."""
    victim, attacker, player = make_user("offret"), make_user("angriparen"), make_user("spelaren")
    found = {"attacker": attacker, "player": player, "victim": {}, "mine": {}}
    for system in SYSTEMS:
        theirs = campaign_create(gm=victim, name=f"Deras {system}", rule_system=system)
        secret = Character.objects.create(
            owner=victim, campaign=theirs, name=f"Hemliga {system}", rule_system=system,
            notes=SECRET, gm_notes=SECRET)
        their_fight = Encounter.objects.create(campaign=theirs, name="Deras strid", system=system)
        picture = MapPicture.objects.create(encounter=their_fight, **picture_facts(png()))
        template = NpcTemplate.objects.create(campaign=theirs, name="Deras mall",
                                              block={"type": "add_combatant", "name": SECRET})
        found["victim"][system] = {"character": secret, "picture": picture,
                                   "template": template}
        mine = campaign_create(gm=attacker, name=f"Min {system}", rule_system=system)
        Membership.objects.create(campaign=mine, user=player, seat=1)
        own = Character.objects.create(owner=player, campaign=mine, name=f"Egen {system}",
                                       rule_system=system)
        fight = Encounter.objects.create(campaign=mine, name="Min strid", system=system)
        found["mine"][system] = {"campaign": mine, "fight": fight, "character": own}
    # The attacker's own character in no campaign, and their own campaign's chronicle.
    found["loose"] = Character.objects.create(owner=attacker, name="Lös", rule_system="aoristos")
    found["chronicle"] = services.chronicle_for(found["mine"]["aoristos"]["campaign"])
    return found


def api(client, encounter, command):
    encounter.refresh_from_db()
    return client.post(reverse("combat:api_command", args=[encounter.pk]),
                       json.dumps({"version": encounter.version, "command": command}),
                       content_type="application/json")


def foreign_characters(tables, system):
    """Ids a command in a `system` fight of the attacker may not name: every victim's
    character (its own system and the others), the attacker's character of no campaign,
    the attacker's own character of another system, and ids that name nothing."""
    ids = [v["character"].pk for v in tables["victim"].values()]
    ids += [tables["loose"].pk]
    ids += [m["character"].pk for s, m in tables["mine"].items() if s != system]
    return [*ids, 0, -1, 10**12, "1", True]


def nothing_stored(encounter, version):
    encounter.refresh_from_db()
    return encounter.version == version and not CombatRecord.objects.filter(
        encounter=encounter, version__gt=version).exists()


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_gm_cannot_add_another_campaigns_character_by_the_api(client, tables, system):
    fight = tables["mine"][system]["fight"]
    client.force_login(tables["attacker"])
    for character_id in foreign_characters(tables, system):
        version = fight.version
        answer = api(client, fight, {"type": "add_combatant", "name": "x", "npc": True,
                                     **NPC[system], "character_id": character_id})
        assert answer.status_code == 400, (character_id, answer.content)
        if isinstance(character_id, int) and not isinstance(character_id, bool) \
                and character_id > 0:
            assert answer.json()["code"] == "not_in_campaign", answer.content
            assert f"no character {character_id} in this campaign" in answer.json()["error"]
        assert nothing_stored(fight, version), character_id
    # The same command with a character of this campaign and system is played.
    own = tables["mine"][system]["character"]
    answer = api(client, fight, {"type": "add_combatant", "name": "x", "npc": True,
                                 **NPC[system], "character_id": own.pk})
    assert answer.status_code == 200, answer.content
    fight.refresh_from_db()
    assert fight.version == 1


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_player_cannot_either(client, tables, system):
    fight = tables["mine"][system]["fight"]
    client.force_login(tables["player"])
    for character_id in foreign_characters(tables, system):
        answer = api(client, fight, {"type": "add_combatant", "name": "x", "npc": True,
                                     **NPC[system], "character_id": character_id})
        assert answer.status_code in (400, 403), (character_id, answer.content)
        assert nothing_stored(fight, 0)


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_add_form_refuses_another_campaigns_character_and_template(client, tables, system):
    fight = tables["mine"][system]["fight"]
    client.force_login(tables["attacker"])
    url = reverse("combat:add", args=[fight.pk])
    for character_id in foreign_characters(tables, system)[:5]:
        answer = client.post(url, {"version": 0, "source": "character",
                                   "character": character_id}, headers={"HX-Request": "true"})
        assert answer.status_code in (400, 404), character_id
        assert nothing_stored(fight, 0)
    for victim in tables["victim"].values():
        answer = client.post(url, {"version": 0, "source": "template",
                                   "template": victim["template"].pk},
                             headers={"HX-Request": "true"})
        assert answer.status_code in (400, 404)
        assert SECRET not in answer.content.decode()
        assert nothing_stored(fight, 0)


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_map_cannot_show_another_fights_picture(client, tables, system):
    fight = tables["mine"][system]["fight"]
    client.force_login(tables["attacker"])
    for victim in tables["victim"].values():
        for key in (str(victim["picture"].pk), "0", "x1", "-1"):
            answer = api(client, fight, {"type": "set_picture", "key": key, "width": 10,
                                         "aspect": 1})
            assert answer.status_code == 400, (key, answer.content)
            assert nothing_stored(fight, 0)


def test_the_chronicle_takes_no_body_of_another_campaign(client, tables):
    chronicle = tables["chronicle"]
    client.force_login(tables["attacker"])
    for character_id in foreign_characters(tables, "aoristos"):
        version = chronicle.version
        answer = api(client, chronicle, {"type": "add_body", "id": "ch1", "name": "x",
                                         "character_id": character_id})
        assert answer.status_code == 400, (character_id, answer.content)
        if isinstance(character_id, int) and not isinstance(character_id, bool) \
                and character_id > 0:
            assert answer.json()["code"] == "not_in_campaign", answer.content
        assert nothing_stored(chronicle, version)
    own = tables["mine"]["aoristos"]["character"]
    answer = api(client, chronicle, {"type": "add_body", "id": f"ch{own.pk}", "name": "x",
                                     "character_id": own.pk})
    assert answer.status_code == 200, answer.content


def test_nothing_of_the_refused_reaches_the_attackers_pages_or_archive(client, tables):
    client.force_login(tables["attacker"])
    for system in SYSTEMS:
        fight = tables["mine"][system]["fight"]
        for victim in tables["victim"].values():
            answer = api(client, fight, {"type": "add_combatant", "name": "x", "npc": True,
                                         **NPC[system], "character_id": victim["character"].pk})
            assert answer.status_code == 400
        page = client.get(reverse("combat:page", args=[fight.pk])).content.decode()
        assert "Hemliga" not in page
        campaign = tables["mine"][system]["campaign"]
        membership = campaign.memberships.get(user=tables["attacker"])
        data = b"".join(campaign_archive(campaign, membership))
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            text = b"".join(z.read(name) for name in z.namelist()).decode("utf-8", "replace")
        assert SECRET not in text
        assert "Hemliga" not in text
