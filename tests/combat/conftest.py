import pytest

from characters.models import Character
from combat import services
from combat.models import CatalogueItem, Encounter
from tests.combat.helpers import english, post
from tests.conftest import ALBERT_ATTRIBUTES


class ScriptedDice:
    """random.Random stand-in: randint returns the queued values in order."""

    def __init__(self):
        self.queue: list[int] = []

    def randint(self, a, b):
        value = self.queue.pop(0)
        assert a <= value <= b
        return value


@pytest.fixture
def dice(monkeypatch):
    scripted = ScriptedDice()
    monkeypatch.setattr(services, "rng", scripted)
    return scripted


@pytest.fixture
def albert_in_campaign(alice, campaign):
    return Character.objects.create(
        owner=alice, campaign=campaign, name="Albert", attributes=ALBERT_ATTRIBUTES,
        skills={"firearms": 2, "brawling": 2, "evasion": 1},
    )


@pytest.fixture
def encounter(campaign):
    return Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")


@pytest.fixture
def membership_of():
    def find(campaign, user):
        return campaign.memberships.get(user=user)

    return find


@pytest.fixture
def run(membership_of, django_capture_on_commit_callbacks):
    """Run a command as `user` against the encounter's current version (its after-commit
    work done, as on a real server)."""

    def command(encounter, user, data, **kwargs):
        encounter.refresh_from_db()
        membership = membership_of(encounter.campaign, user)
        with django_capture_on_commit_callbacks(execute=True):
            return services.command_run(encounter_id=encounter.pk, membership=membership,
                                        data=data, version=encounter.version, **kwargs)

    return command


@pytest.fixture
def fight(encounter, albert_in_campaign, gm, alice, run):
    """Albert (Alice's) against a guard NPC 5 m away, set up but not started."""
    from rules.aoristos.combat import ENGINE

    block = ENGINE.character_block(name="Albert", levels=albert_in_campaign.levels(),
                                   derived=albert_in_campaign.secondary().as_dict())
    block.update(character_id=albert_in_campaign.pk, weapons=["pistol"], right="pistol")
    run(encounter, gm, block, controller=alice.pk)
    run(encounter, gm, {"type": "add_combatant", "name": "Vakten", "side": "b", "x": 5.0,
                        "alertness": 2, "agility": 2, "physique": 3, "skills": {"evasion": 1},
                        "weapons": ["knife"], "right": "knife"})
    encounter.refresh_from_db()
    return encounter


@pytest.fixture
def phobia_fight(gm, alice, bob, run):
    """A Phobia fight of Alice's Jace (TO 53) against a guard with TO 99, set up but not
    started; Bob is the campaign's second player."""
    from campaigns.models import Membership
    from campaigns.services import campaign_create

    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    Membership.objects.create(campaign=campaign, user=bob, seat=2)
    jace = Character.objects.create(
        owner=alice, campaign=campaign, name="Jace", rule_system="phobia",
        attributes={"strength": 12, "endurance": 10, "agility": 14, "personality": 9,
                    "psyche": 13, "will": 14, "education": 8, "sight": 15, "hearing": 7,
                    "luck": 10},
        skills={"combat_experience": 13}, rolled={"calm": [3, 5]},
    )
    encounter = Encounter.objects.create(campaign=campaign, name="Gränden", system="phobia")
    levels, derived = jace.combat_stats(campaign.house_rules)
    block = services.engine_of(encounter).character_block(name="Jace", levels=levels,
                                                          derived=derived)
    run(encounter, gm, {**block, "character_id": jace.pk}, controller=alice.pk)
    run(encounter, gm, {"type": "add_combatant", "name": "Vakten", "side": "b",
                        "turn_order": 99, "weapon_name": "Kniv", "weapon_damage": 4,
                        "weapon_type": "H", "weapon_skill": "combat_experience",
                        "weapon_chance": 13})
    encounter.refresh_from_db()
    return encounter


PISTOL = {"key": "pistol", "name": "Pistol", "skill": "pistol", "close": 5, "normal": 25,
          "maximum": 50, "single": True, "single_modifier": 0, "auto": False,
          "auto_modifier": 0, "damage": 3, "attack_ap": 3, "reload_ap": 5, "stance_ap": 2,
          "magazine": 8, "explosive": False, "damage_on_miss": False}
GRENADE = {**PISTOL, "key": "granat", "name": "Handgranat", "skill": "throw", "normal": 15,
           "maximum": 30, "damage": 6, "reload_ap": 0, "stance_ap": 1, "magazine": 0,
           "explosive": True}


@pytest.fixture
def t10_fight(client, gm, alice, t10):
    """Johan (Alice's) against a soldier with a hand grenade, set up but not started."""
    for item in (PISTOL, GRENADE):
        CatalogueItem.objects.create(campaign=t10, kind="weapon", key=item["key"], data=item)
    johan = Character.objects.create(
        owner=alice, campaign=t10, name="Johan", rule_system="t10",
        attributes={"body": 0, "combat": -1, "mind": 0, "social": -2, "initiative": 2},
        skills={"pistol": 2},
    )
    encounter = Encounter.objects.create(campaign=t10, name="Hamnen", system="t10")
    english(client, gm)
    for data in ({"source": "character", "character": johan.pk, "side": "a",
                  "weapons": "pistol"},
                 {"source": "block", "name": "Soldat", "side": "b", "initiative": "0",
                  "stance": "aimed", "skill_throw": "1", "weapons": "granat"}):
        added = post(client, encounter, data, "combat:add")
        assert added.status_code == 200, added.content.decode()[:500]
    encounter.refresh_from_db()
    return encounter
