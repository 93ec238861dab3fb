import pytest

from campaigns.services import campaign_create, campaign_join
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
def gm(make_user):
    return make_user("spelledaren")


@pytest.fixture
def campaign(gm, alice, bob):
    campaign = campaign_create(gm=gm, name="Nattens kant")
    campaign_join(campaign=campaign, user=alice)
    campaign_join(campaign=campaign, user=bob)
    return campaign


@pytest.fixture
def albert_in_campaign(alice, campaign):
    return Character.objects.create(
        owner=alice, campaign=campaign, name="Albert", attributes=ALBERT_ATTRIBUTES
    )
