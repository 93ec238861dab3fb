import pytest

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from table import services
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
        owner=alice, campaign=campaign, name="Albert", attributes=ALBERT_ATTRIBUTES
    )


# A Phobia campaign (tests/table/test_phobia_*.py): Jace is alice's, bob plays too.
PHOBIA_ATTRIBUTES = {
    "strength": 12,
    "endurance": 14,
    "agility": 10,
    "personality": 9,
    "psyche": 13,
    "will": 11,
    "education": 8,
    "sight": 15,
    "hearing": 7,
    "luck": 10,
}


@pytest.fixture
def phobia(gm, alice, bob):
    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    Membership.objects.create(campaign=campaign, user=bob, seat=2)
    return campaign


@pytest.fixture
def jace(alice, phobia):
    return Character.objects.create(
        owner=alice,
        campaign=phobia,
        name="Jace",
        rule_system="phobia",
        attributes=PHOBIA_ATTRIBUTES,
        skills={"climbing": 14, "demolitions": 16},
        rolled={"calm": [3, 5]},
    )
