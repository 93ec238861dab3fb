"""One encounter of every kind, made through the GM's own forms: an Aoristos fight, a
Phobia fight, a T10 fight (each with Alice's character and an NPC that carries a weapon
at hand and one it has not drawn) and an Aoristos campaign's chronicle. For the tests that
go over every kind (tests/combat/test_no_500.py, test_preview_access.py)."""

from dataclasses import dataclass

from django.urls import reverse

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import services
from combat.models import CatalogueItem, Encounter
from tests.conftest import ALBERT_ATTRIBUTES, PHOBIA_ATTRIBUTES

KINDS = ("aoristos", "phobia", "t10", "chronicle")

KNIFE = {"key": "kniv", "name": "Kniv", "damage": 4, "damage_type": "H",
         "skill": "combat_experience", "ranged": False}
REVOLVER = {"key": "revolver", "name": "Revolver", "damage": 5, "damage_type": "P",
            "skill": "combat_experience", "ranged": True}
PISTOL = {"key": "pistol", "name": "Pistol", "skill": "pistol", "close": 5, "normal": 25,
          "maximum": 50, "single": True, "single_modifier": 0, "auto": False,
          "auto_modifier": 0, "damage": 3, "attack_ap": 3, "reload_ap": 5, "stance_ap": 2,
          "magazine": 8, "explosive": False, "damage_on_miss": False}
SMG = {**PISTOL, "key": "kpist", "name": "K-pist", "skill": "smg", "normal": 30,
       "maximum": 100, "auto": True, "auto_modifier": -2, "magazine": 30}


@dataclass
class Made:
    """An encounter of one kind, its character (Alice's) and, in a fight, the combatant ids
    of that character and of the NPC, and the NPC's weapons: one at hand, one carried but
    not drawn (Aoristos only: the others draw nothing), one it does not carry."""

    encounter: Encounter
    character: Character
    mine: str = ""
    npc: str = ""
    drawn: str = ""
    undrawn: str = ""
    not_carried: str = "sword"


def added(client, encounter, data):
    encounter.refresh_from_db()
    answer = client.post(reverse("combat:add", args=[encounter.pk]),
                         {"version": encounter.version, **data}, headers={"HX-Request": "true"})
    assert answer.status_code == 200, answer.content.decode()[:800]


def make(kind: str, client, gm, alice) -> Made:
    """The encounter of `kind`, with Alice a player of its campaign; `client` is left logged
    in as the GM."""
    system = "aoristos" if kind == "chronicle" else kind
    campaign = campaign_create(gm=gm, name=f"Kampanj {kind}", rule_system=system)
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    client.force_login(gm)
    client.cookies["django_language"] = "en"
    if system == "aoristos":
        character = Character.objects.create(
            owner=alice, campaign=campaign, name="Albert", attributes=ALBERT_ATTRIBUTES,
            skills={"firearms": 2, "brawling": 2, "evasion": 1},
        )
    elif system == "phobia":
        character = Character.objects.create(
            owner=alice, campaign=campaign, name="Jace", rule_system="phobia",
            attributes=PHOBIA_ATTRIBUTES, skills={"combat_experience": 13},
            rolled={"calm": [3, 5]},
        )
    else:
        character = Character.objects.create(
            owner=alice, campaign=campaign, name="Johan", rule_system="t10",
            attributes={"body": 0, "combat": -1, "mind": 0, "social": -2, "initiative": 2},
            skills={"pistol": 2},
        )
    if kind == "chronicle":
        chronicle = services.chronicle_for(campaign)
        services.chronicle_sync(chronicle, campaign.memberships.get(user=gm))
        chronicle.refresh_from_db()
        return Made(chronicle, character)
    encounter = Encounter.objects.create(campaign=campaign, name="Gränden", system=system)
    if system == "aoristos":
        added(client, encounter, {"source": "character", "character": character.pk,
                                  "side": "a", "x": "0", "y": "0", "weapons": "pistol",
                                  "right": "pistol"})
        added(client, encounter, {"source": "block", "name": "Vakten", "side": "b", "x": "5",
                                  "y": "0", "physique": "3", "composure": "2", "agility": "2",
                                  "alertness": "2", "willpower": "2", "skill_evasion": "1",
                                  "weapons": ["knife", "pistol"], "right": "knife"})
        return Made(encounter, character, "c1", "c2", drawn="knife", undrawn="pistol")
    if system == "phobia":
        for item in (KNIFE, REVOLVER):
            CatalogueItem.objects.create(campaign=campaign, kind="weapon", key=item["key"],
                                         data=item)
        added(client, encounter, {"source": "character", "character": character.pk,
                                  "side": "a", "weapons": "kniv"})
        added(client, encounter, {"source": "block", "name": "Vakten", "side": "b",
                                  "strength": "12", "endurance": "10", "agility": "10",
                                  "will": "14", "turn_order": "5", "shock_value": "12",
                                  "weapons": ["kniv", "revolver"]})
        return Made(encounter, character, "c1", "c2", drawn="revolver", undrawn="kniv")
    for item in (PISTOL, SMG):
        CatalogueItem.objects.create(campaign=campaign, kind="weapon", key=item["key"],
                                     data=item)
    added(client, encounter, {"source": "character", "character": character.pk, "side": "a",
                              "weapons": "pistol"})
    added(client, encounter, {"source": "block", "name": "Soldat", "side": "b",
                              "initiative": "0", "stance": "aimed", "skill_smg": "1",
                              "weapons": ["kpist", "pistol"]})
    return Made(encounter, character, "c1", "c2", drawn="kpist", undrawn="pistol")
