"""Fixtures shared by the app tests: named users for permission matrices, and static
files served without a collectstatic manifest."""

from pathlib import Path

import pytest
from django.conf import settings

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import services, simulations

ALBERT_ATTRIBUTES = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}


def pytest_configure(config):
    # WhiteNoise warns at start-up when STATIC_ROOT does not exist; tests serve static
    # files from the finders instead of a collectstatic run.
    Path(settings.STATIC_ROOT).mkdir(exist_ok=True)
    # A fast hasher for the many test users. The production one stays listed, so users
    # that log in to a real server process (site_server) can be given a real hash.
    # Streams run their database work in per-request threads; close those connections at
    # the end of each request, so PostgreSQL can drop the test database afterwards.
    settings.DATABASES["default"]["CONN_MAX_AGE"] = 0
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    ]
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        _flush_again_after_a_deadlock()


def _flush_again_after_a_deadlock():
    """After a `transaction=True` test its tables are emptied in one TRUNCATE, which takes
    every table's lock. A server process of the test (site_server: granian, as in
    production) may still be answering a page's last request then, holding one of those
    tables and wanting another; PostgreSQL ends such a deadlock by failing one side. The
    server's read ends at once, so the emptying is tried again (the failed one rolled back)
    instead of failing the test that had passed."""
    import time

    from django.db import OperationalError
    from django.db.backends.postgresql.operations import DatabaseOperations

    flush = DatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):
        for attempt in range(3):
            try:
                return flush(self, sql_list)
            except OperationalError as error:
                if "deadlock detected" not in str(error) or attempt == 2:
                    raise
                time.sleep(0.1)

    DatabaseOperations.execute_sql_flush = execute_sql_flush


@pytest.fixture(autouse=True)
def _plain_static_files(settings):
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # The tests' own process plays its simulations at the pages' priority: they test the
    # queue, the waits and the results, and on a machine whose cores are busy a nice-10
    # process takes seconds to start. The servers the tests start keep the default (the
    # stall test measures it: tests/combat/test_simulation_stall.py).
    settings.SIMULATION_NICE = 0


@pytest.fixture(autouse=True)
def _no_serve_workers(monkeypatch):
    """`serve` names SERVE_WORKERS in its process's environment, and a served process that
    has it looks for queued simulations (aoristos_site/asgi.py). Tests that run `serve`'s
    handle in this process left it set here, so a server a later test started (with this
    environment) claimed other tests' queued runs on the shared test database: kept empty
    for each test, and taken back after it."""
    monkeypatch.setenv("SERVE_WORKERS", "")


@pytest.fixture(autouse=True)
def _fresh_encounter_cache():
    """The folded encounters this process remembers are keyed by id: a test's encounter 1
    is not the last test's (the table's tray reads a character's latest fight too); so are
    the evenings' luck (table.luck) and the map pictures painted under fog (combat.fog)."""
    from combat import fog
    from table import luck

    services.forget()
    luck.forget()
    fog.forget()
    yield
    services.forget()
    luck.forget()
    fog.forget()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """A simulated run of a test's fight stops with the test (issue 29), once its fixtures
    are torn down: a run's thread writes its row through the process's SQLite writer
    queue, which waits for the test's own transaction, so stopped before the rollback it
    could not end and drain() waited out its 10 s (30 tests did, 4 minutes a suite)."""
    try:
        return (yield)
    finally:
        simulations.drain()


@pytest.fixture
def password():
    return "hjortspår-i-frusen-mark"


@pytest.fixture
def make_user(django_user_model, password):
    def make(username):
        return django_user_model.objects.create_user(username=username, password=password)

    return make


@pytest.fixture
def alice(make_user):
    """A player who owns Albert."""
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    """Another player, who owns nothing of Alice's."""
    return make_user("bob")


@pytest.fixture
def gm(make_user):
    """The GM of `campaign`."""
    return make_user("gunnar")


@pytest.fixture
def outsider(make_user):
    """A user in no campaign of the others."""
    return make_user("olle")


@pytest.fixture
def campaign(gm, alice, bob):
    """A campaign run by `gm`, with Alice and Bob as players (seats 1 and 2)."""
    from campaigns.models import Membership
    from campaigns.services import campaign_create

    # Seated directly, not through campaign_join: joining tells the table (an event in
    # the campaign's sequence), and the live-table tests count their rolls from 1.
    campaign = campaign_create(gm=gm, name="Mörkrets hjärta")
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    Membership.objects.create(campaign=campaign, user=bob, seat=2)
    return campaign


@pytest.fixture
def albert(alice):
    return Character.objects.create(
        owner=alice, name="Albert", concept="Hårdkokt livvakt", attributes=ALBERT_ATTRIBUTES
    )


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture(scope="session")
def site_server(django_db_setup, django_db_blocker, tmp_path_factory):
    """The production stack (granian + aoristos_site.asgi router) in its own process, on the
    test database, for tests of what only a real ASGI server does: live streams.

    Data written by `transaction=True` tests is committed, so the server sees it. With
    REDIS_URL set the server broadcasts through Redis, as a scaled-out site does.
    """
    from tests.servers import start_site_server

    with django_db_blocker.unblock():
        server = start_site_server(tmp_path_factory.mktemp("site-server"))
    yield server
    server.stop()


# A Phobia campaign where alice and bob play (the table's and the sheet's Phobia tests).
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
def t10(gm, alice, bob):
    """A T10 campaign (t10-ap-utdrag.txt) with Alice and Bob as players."""
    campaign = campaign_create(gm=gm, name="Staden", rule_system="t10")
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    Membership.objects.create(campaign=campaign, user=bob, seat=2)
    return campaign


@pytest.fixture
def phobia(gm, alice, bob):
    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    Membership.objects.create(campaign=campaign, user=bob, seat=2)
    return campaign
