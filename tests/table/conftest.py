import shutil

import pytest

from characters.models import Character
from table import services
from tests.conftest import ALBERT_ATTRIBUTES, PHOBIA_ATTRIBUTES
from tests.servers import PrivateRedis, Servers


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


@pytest.fixture
def servers(tmp_path):
    started = Servers(tmp_path)
    yield started
    started.stop_all()


@pytest.fixture
def private_redis(tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server on PATH (apt-get install redis-server; CI has it)")
    server = PrivateRedis(tmp_path / "redis")
    server.start()
    yield server
    server.kill()
