"""Demo data for a new table: a GM, a player, a campaign they share, Albert from the rule
text (p. 2) playing in it with a pistol and a vest, and a fight ready to start; and a T10
campaign with Johan from its excerpt, the starter weapons, and the harbour fight of its examples
(a soldier with a k-pist against Johan in his vest); and a Phobia campaign with Jace from
its excerpt (Sprängteknik 16, line 406; Klättra, line 459), a knife in its catalogue and an
alley fight against a guard."""

import json
import os
import secrets
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction

from campaigns.models import Campaign
from campaigns.services import campaign_create, campaign_join
from characters.models import Character

DEMO_USERS = ("demo-sl", "demo-spelare")  # the GM (spelledare) and a player
DEMO_CAMPAIGN = "Demokampanjen"
DEMO_ENCOUNTER = "Bakgården"
DEMO_T10_CAMPAIGN = "Staden"
DEMO_T10_ENCOUNTER = "Hamnen"
DEMO_PHOBIA_CAMPAIGN = "Skuggorna"
DEMO_PHOBIA_ENCOUNTER = "Gränden"
JACE = {  # phobia-utdrag.txt's Jace: Sprängteknik 16 (line 406), climbing down a wall (459)
    "name": "Jace",
    "rule_system": "phobia",
    "notes": "Exemplen ur Phobia-utdraget.",
    "attributes": {"strength": 14, "endurance": 14, "agility": 13, "personality": 9,
                   "psyche": 15, "will": 11, "education": 12, "sight": 15, "hearing": 10,
                   "luck": 10},
    "skills": {"demolitions": 16, "climbing": 12, "combat_experience": 3, "first_aid": 8},
}
PHOBIA_CATALOGUE = (
    ("weapon", {"key": "kniv", "name": "Kniv", "damage": 4, "damage_type": "H",
                "skill": "combat_experience", "ranged": False}),
    ("weapon", {"key": "batong", "name": "Batong", "damage": 3, "damage_type": "K",
                "skill": "combat_experience", "ranged": False}),
)
JOHAN = {  # t10-ap-utdrag.txt's Johan: Pistol +2, Hota +3, Social Kompetens −2
    "name": "Johan",
    "rule_system": "t10",
    "notes": "Exemplen ur T10-utdraget.",
    "attributes": {"body": 0, "combat": -1, "mind": 0, "social": -2, "initiative": 2},
    "skills": {"pistol": 2, "intimidate": 3, "medicine": 1},
}
ALBERT = {
    "name": "Albert",
    "concept": "Hårdkokt modern livvakt",
    "notes": "Exemplet ur grundreglerna, sidan 2.",
    "dp_budget": 33,
    "level_cap": 5,
    "attributes": {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3},
}


def load_demo(credentials_file: Path) -> dict[str, str]:
    """Create the demo accounts and Albert once; return every demo username and password.

    Passwords are generated on the first run and kept beside the database (outside git),
    so each start can print them again. Running it twice changes nothing.
    """
    passwords = json.loads(credentials_file.read_text()) if credentials_file.exists() else {}
    User = get_user_model()
    with transaction.atomic():
        for username in DEMO_USERS:
            user, created = User.objects.get_or_create(username=username)
            if created or username not in passwords:
                passwords[username] = secrets.token_urlsafe(8)
                user.set_password(passwords[username])
                user.save()
        gm = User.objects.get(username="demo-sl")
        player = User.objects.get(username="demo-spelare")
        campaign = Campaign.objects.filter(gm=gm, name=DEMO_CAMPAIGN).first()
        if campaign is None:
            campaign = campaign_create(gm=gm, name=DEMO_CAMPAIGN)
        campaign_join(campaign=campaign, user=player)
        albert = player.characters.filter(name=ALBERT["name"]).first()
        if albert is None:
            albert = Character.objects.create(owner=player, campaign=campaign, **ALBERT)
            for key, name, bulk in (("weapon:pistol", "Pistol", "1.5"),
                                    ("armour:soft_vest", "Skyddsväst", "3")):
                albert.items.create(catalogue=key, name=name, bulk=bulk)
        if not campaign.encounters.exists():
            demo_encounter(campaign, gm, albert)
        demo_t10(gm, player)
        demo_phobia(gm, player)
    # Created owner-only from the start: the file holds plaintext passwords.
    fd = os.open(credentials_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(passwords, indent=2))
    os.chmod(credentials_file, 0o600)  # an older file may have had wider permissions
    return passwords


def demo_encounter(campaign, gm, albert) -> None:
    """A fight ready to start: Albert, with what he carries, against a thug with a knife."""
    from combat import services
    from rules.aoristos.combat import ENGINE

    encounter = services.encounter_create(campaign=campaign, name=DEMO_ENCOUNTER, house_rules={})
    membership = campaign.memberships.get(user=gm)
    levels = albert.levels()
    block = ENGINE.character_block(
        name=albert.name, levels=levels, derived=albert.secondary(levels).as_dict()
    )
    weapons, armour = services.character_gear(albert, ENGINE.catalogue())
    block.update(character_id=albert.pk, weapons=weapons, armour=armour, right=weapons[0])
    thug = {"type": "add_combatant", "name": "Torped", "side": "b", "x": 6.0, "y": 2.0,
            "physique": 3, "composure": 2, "agility": 3, "alertness": 2, "willpower": 2,
            "skills": {"melee_weapons": 2, "brawling": 2, "evasion": 1},
            "weapons": ["knife"], "right": "knife", "armour": ["leather_armour"]}
    for version, (data, controller) in enumerate(((block, albert.owner_id), (thug, None))):
        services.command_run(encounter_id=encounter.pk, membership=membership, data=data,
                             version=version, controller=controller)


def demo_t10(gm, player) -> None:
    """The T10 campaign once: Johan, the catalogue, and Hamnen ready to start (Johan with
    his pistol and vest against a soldier with a k-pist in Anläggning)."""
    soldier = {"name": "Soldat", "stance": "aimed", "skills": {"smg": 1, "throw": 1},
               "weapons": ["kpist", "granat"]}
    demo_system(gm, player, campaign_name=DEMO_T10_CAMPAIGN, system="t10", character=JOHAN,
                catalogue=(), encounter_name=DEMO_T10_ENCOUNTER,
                gear={"weapons": ["pistol"], "armour": ["vast"]}, npc=soldier)


def demo_phobia(gm, player) -> None:
    """The Phobia campaign once: Jace, the knife and the baton, and Gränden ready for its
    first round (Jace with his knife against a guard with a baton)."""
    guard = {"name": "Vakten", "strength": 12, "endurance": 10, "agility": 10, "will": 14,
             "turn_order": 5, "shock_value": 12, "skills": {"combat_experience": 8},
             "weapons": ["batong"]}
    demo_system(gm, player, campaign_name=DEMO_PHOBIA_CAMPAIGN, system="phobia",
                character=JACE, catalogue=PHOBIA_CATALOGUE,
                encounter_name=DEMO_PHOBIA_ENCOUNTER, gear={"weapons": ["kniv"]}, npc=guard)


def demo_system(
    gm, player, *, campaign_name, system, character, catalogue, encounter_name, gear, npc
) -> None:
    """A campaign of an entered rule system once, shared by the GM and the player: the
    player's `character` (what a new character rolls, rolled: Phobia's Lugn), the
    campaign's `catalogue` and a fight ready to start, the character with its `gear`
    (side a, the player's to command) against the NPC `npc` (side b)."""
    from combat import services
    from combat.models import CatalogueItem

    campaign = Campaign.objects.filter(gm=gm, name=campaign_name).first()
    if campaign is None:
        campaign = campaign_create(gm=gm, name=campaign_name, rule_system=system)
    campaign_join(campaign=campaign, user=player)
    hero = player.characters.filter(name=character["name"], campaign=campaign).first()
    if hero is None:
        hero = Character(owner=player, campaign=campaign, **character)
        hero.rolled = hero.system.creation_rolls(hero.values(), secrets.SystemRandom())
        hero.save()
    for kind, data in catalogue:
        CatalogueItem.objects.get_or_create(campaign=campaign, kind=kind, key=data["key"],
                                            defaults={"data": data})
    if campaign.encounters.exists():
        return
    encounter = services.encounter_create(campaign=campaign, name=encounter_name,
                                          house_rules={})
    engine = services.engine_of(encounter)
    membership = campaign.memberships.get(user=gm)
    levels, derived = hero.combat_stats(campaign.house_rules)
    block = engine.character_block(name=hero.name, levels=levels, derived=derived)
    block.update(type="add_combatant", character_id=hero.pk, side="a", **gear)
    other = {"type": "add_combatant", "side": "b", "npc": True, **npc}
    for version, (data, controller) in enumerate(((block, hero.owner_id), (other, None))):
        services.command_run(encounter_id=encounter.pk, membership=membership, data=data,
                             version=version, controller=controller)
