"""Demo data (core.demo, `manage.py load_demo`) and the pieces of `serve` that can run
without starting a server: LAN address discovery and argument parsing."""

import json
import os
import pathlib
import stat
import subprocess
from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from campaigns.models import Campaign
from characters.models import Character
from core import network
from core.demo import load_demo
from core.management.commands import serve

DEMO_USERNAMES = {"demo-sl", "demo-spelare"}


def mode(path: pathlib.Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- load_demo ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_load_demo_creates_the_gm_the_player_and_albert(tmp_path):
    logins = load_demo(tmp_path / "logins.json")
    assert set(logins) == DEMO_USERNAMES
    User = get_user_model()
    assert set(User.objects.values_list("username", flat=True)) == DEMO_USERNAMES

    albert = Character.objects.get(name="Albert")
    assert albert.owner.username == "demo-spelare"
    # Worked figure, p. 2: FYS 3, KAO 3, RÖR 2, SIN 5, VIL 3 → 33 UP, Handlingskraft 9.
    assert albert.attribute("physique") == 3
    assert albert.attribute("composure") == 3
    assert albert.attribute("agility") == 2
    assert albert.attribute("alertness") == 5
    assert albert.attribute("willpower") == 3
    report = albert.evaluate()
    assert report.dp_spent == 33
    assert report.secondary.drive == 9
    assert report.secondary.carrying_capacity == 12
    assert report.valid, report.issues
    assert not Character.objects.filter(owner__username="demo-sl").exists()


@pytest.mark.django_db
def test_the_demo_has_a_t10_campaign_with_johan_and_the_harbour_fight(tmp_path):
    """T10 to try at once: Johan (the excerpt's: Pistol +2, Hota +3, Social Kompetens −2),
    the examples' weapons in the catalogue, and Hamnen ready to start, Johan in his vest
    (Kroppsskydd 2) commanded by the player against a soldier with a k-pist."""
    from combat import services
    from combat.models import Encounter

    load_demo(tmp_path / "logins.json")
    johan = Character.objects.get(name="Johan")
    assert (johan.rule_system, johan.campaign.rule_system) == ("t10", "t10")
    assert johan.owner.username == "demo-spelare"
    assert johan.campaign.memberships.filter(user=johan.owner).exists()
    hamnen = Encounter.objects.get(name="Hamnen")
    state = services.folded(hamnen).state
    me, soldier = state.combatants
    assert (me.character_id, me.protection, dict(me.skills)["pistol"]) == (johan.pk, 2, 2)
    assert [w.name for w in soldier.weapons] == ["K-pist", "Handgranat"]
    assert soldier.npc
    assert hamnen.controllers == {me.id: johan.owner_id}
    assert not state.started
    client = Client()
    client.force_login(johan.owner)
    page = client.get(hamnen.get_absolute_url())
    assert page.status_code == 200
    assert 'data-testid="combatant-c1"' in page.content.decode()


@pytest.mark.django_db
def test_the_demo_has_a_phobia_campaign_with_jace_and_the_alley_fight(tmp_path):
    """Phobia to try at once: Jace (the excerpt's Sprängteknik 16, line 406) with his Lugn
    rolled (2T6, line 231), a knife and a baton in the catalogue, and Gränden ready for its
    first round: Jace, commanded by the player, against a guard."""
    from combat import services
    from combat.models import Encounter
    from rules.phobia.character import derived

    load_demo(tmp_path / "logins.json")
    jace = Character.objects.get(name="Jace")
    assert (jace.rule_system, jace.campaign.rule_system) == ("phobia", "phobia")
    assert jace.owner.username == "demo-spelare"
    assert jace.skills["demolitions"] == 16
    calm = jace.rolled["calm"]
    assert len(calm) == 2
    assert all(1 <= die <= 6 for die in calm)
    turn_order = {d.key: d.value for d in derived(jace.values(), jace.rolled)}["turn_order"]
    granden = Encounter.objects.get(name="Gränden")
    state = services.folded(granden).state
    me, guard = state.combatants
    assert (me.character_id, me.turn_order) == (jace.pk, turn_order)
    assert [w.name for w in me.weapons] == ["Kniv"]
    assert [w.name for w in guard.weapons] == ["Batong"]
    assert guard.npc
    assert granden.controllers == {me.id: jace.owner_id}
    client = Client()
    client.force_login(jace.owner)
    page = client.get(granden.get_absolute_url())
    assert page.status_code == 200
    assert 'data-testid="combatant-c1"' in page.content.decode()
    sheet = client.get(jace.get_absolute_url())
    assert sheet.status_code == 200


@pytest.mark.django_db
def test_demo_passwords_authenticate(tmp_path):
    logins = load_demo(tmp_path / "logins.json")
    for username, password in logins.items():
        assert isinstance(password, str)
        assert len(password) >= 8
        user = authenticate(username=username, password=password)
        assert user is not None, username
        assert user.username == username
        assert authenticate(username=username, password=password + "x") is None
    assert logins["demo-sl"] != logins["demo-spelare"]


@pytest.mark.django_db
def test_load_demo_twice_changes_nothing(tmp_path):
    credentials = tmp_path / "logins.json"
    first = load_demo(credentials)
    User = get_user_model()
    hashes = dict(User.objects.values_list("username", "password"))
    users, characters = User.objects.count(), Character.objects.count()

    second = load_demo(credentials)
    assert second == first
    assert json.loads(credentials.read_text()) == first
    assert dict(User.objects.values_list("username", "password")) == hashes
    assert User.objects.count() == users == 2
    assert Character.objects.count() == characters == 3  # Albert, T10's Johan, Phobia's Jace
    assert Character.objects.filter(name="Albert").count() == 1
    for username, password in second.items():
        assert authenticate(username=username, password=password) is not None


@pytest.mark.django_db
def test_credentials_file_holds_the_logins_and_is_private(tmp_path):
    credentials = tmp_path / "logins.json"
    logins = load_demo(credentials)
    assert json.loads(credentials.read_text()) == logins
    assert mode(credentials) == 0o600
    load_demo(credentials)
    assert mode(credentials) == 0o600


@pytest.mark.django_db
def test_credentials_are_never_readable_by_others(tmp_path, monkeypatch):
    credentials = tmp_path / "logins.json"
    seen_modes = []
    real_chmod = pathlib.Path.chmod

    def spy_chmod(self, *args, **kwargs):
        if self.exists():
            seen_modes.append((self.name, mode(self), self.read_text()))
        return real_chmod(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "chmod", spy_chmod)
    old_umask = os.umask(0o022)
    try:
        logins = load_demo(credentials)
    finally:
        os.umask(old_umask)
    for name, file_mode, content in seen_modes:
        if any(password in content for password in logins.values()):
            assert file_mode & 0o077 == 0, f"{name} held passwords with mode {file_mode:o}"
    assert mode(credentials) == 0o600


@pytest.mark.django_db
def test_load_demo_recovers_a_lost_credentials_file(tmp_path):
    credentials = tmp_path / "logins.json"
    load_demo(credentials)
    credentials.unlink()
    logins = load_demo(credentials)
    assert set(logins) == DEMO_USERNAMES
    for username, password in logins.items():
        assert authenticate(username=username, password=password) is not None
    assert Character.objects.filter(name="Albert").count() == 1


@pytest.mark.django_db
def test_load_demo_recreates_a_deleted_demo_user(tmp_path):
    credentials = tmp_path / "logins.json"
    first = load_demo(credentials)
    get_user_model().objects.filter(username="demo-spelare").delete()  # Albert goes with him
    assert not Character.objects.exists()
    second = load_demo(credentials)
    assert second["demo-sl"] == first["demo-sl"]
    assert authenticate(username="demo-spelare", password=second["demo-spelare"]) is not None
    assert Character.objects.get(name="Albert").owner.username == "demo-spelare"
    assert Campaign.objects.count() == 3  # Demokampanjen, Staden (T10), Skuggorna (Phobia)
    assert Character.objects.get(name="Albert").campaign.memberships.count() == 2
    assert Character.objects.get(name="Johan").campaign.memberships.count() == 2


@pytest.mark.django_db
def test_load_demo_command_prints_both_logins(tmp_path, settings):
    settings.DATA_DIR = tmp_path
    out = StringIO()
    call_command("load_demo", stdout=out)
    printed = out.getvalue()
    logins = json.loads((tmp_path / "demo-logins.json").read_text())
    assert set(logins) == DEMO_USERNAMES
    lines = [line.split() for line in printed.splitlines()]
    for username, password in logins.items():
        assert [username, password] in lines, printed

    out = StringIO()
    call_command("load_demo", stdout=out)
    assert out.getvalue() == printed
    assert get_user_model().objects.count() == 2


# --- serve: LAN addresses --------------------------------------------------------------------


def test_lan_addresses_on_this_machine():
    addresses = network.lan_addresses()
    assert isinstance(addresses, list)
    assert all(isinstance(addr, str) for addr in addresses)
    assert not any(addr.startswith("127.") for addr in addresses)
    assert len(addresses) == len(set(addresses))


IP_OUTPUT = """\
1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
2: wlan0    inet 192.168.1.23/24 brd 192.168.1.255 scope global dynamic wlan0\\  valid_lft 1
3: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\\  valid_lft forever
2: wlan0    inet 192.168.1.23/24 brd 192.168.1.255 scope global secondary wlan0\\  valid_lft 1
5: lo2    inet 127.0.1.1/8 scope host lo2\\       valid_lft forever preferred_lft forever
"""


def test_lan_addresses_from_ip_output(monkeypatch):
    calls = []

    def fake_run(argv, **kwargs):
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, stdout=IP_OUTPUT, stderr="")

    monkeypatch.setattr(network.shutil, "which", lambda name: "/usr/sbin/ip")
    monkeypatch.setattr(network.subprocess, "run", fake_run)
    assert network.lan_addresses() == ["192.168.1.23", "172.17.0.1"]
    assert len(calls) == 1
    assert calls[0][0] == "ip"


def test_lan_addresses_with_empty_ip_output(monkeypatch):
    monkeypatch.setattr(network.shutil, "which", lambda name: "/usr/sbin/ip")
    monkeypatch.setattr(
        network.subprocess,
        "run",
        lambda argv, **kwargs: subprocess.CompletedProcess(argv, 1, stdout="", stderr="boom"),
    )
    assert network.lan_addresses() == []


def test_lan_addresses_without_ip_uses_the_hostname(monkeypatch):
    monkeypatch.setattr(network.shutil, "which", lambda name: None)
    monkeypatch.setattr(
        network.socket,
        "gethostbyname_ex",
        lambda host: (host, [], ["127.0.1.1", "10.0.0.7", "127.0.0.1", "10.0.0.7", "10.0.0.8"]),
    )
    assert network.lan_addresses() == ["10.0.0.7", "10.0.0.8"]


def test_lan_addresses_without_ip_and_unresolvable_hostname(monkeypatch):
    def fail(host):
        raise OSError("no such host")

    monkeypatch.setattr(network.shutil, "which", lambda name: None)
    monkeypatch.setattr(network.socket, "gethostbyname_ex", fail)
    assert network.lan_addresses() == []


# --- serve: arguments (parsed only; handle() would exec a server) ----------------------------


def parse_serve(*argv):
    return serve.Command().create_parser("manage.py", "serve").parse_args(list(argv))


def test_serve_defaults_listen_on_every_interface_port_8000(monkeypatch):
    monkeypatch.delenv("HOST", raising=False)
    monkeypatch.delenv("PORT", raising=False)
    options = parse_serve()
    assert options.host == "0.0.0.0"
    assert options.port == 8000
    assert options.no_demo is False


def test_serve_defaults_come_from_host_and_port_env(monkeypatch):
    monkeypatch.setenv("HOST", "127.0.0.1")
    monkeypatch.setenv("PORT", "8123")
    options = parse_serve()
    assert options.host == "127.0.0.1"
    assert options.port == 8123


def test_serve_command_line_wins(monkeypatch):
    monkeypatch.setenv("PORT", "8123")
    options = parse_serve("--host", "::", "--port", "9000", "--no-demo")
    assert options.host == "::"
    assert options.port == 9000
    assert options.no_demo is True


@pytest.mark.parametrize("argv", [("--port", "abc"), ("--port",), ("--colour", "red")])
def test_serve_rejects_bad_arguments(argv):
    with pytest.raises(CommandError):
        parse_serve(*argv)


@pytest.mark.django_db
def test_the_demo_has_a_fight_ready_to_start(tmp_path):
    from combat import services
    from combat.models import Encounter

    load_demo(tmp_path / "logins.json")
    load_demo(tmp_path / "logins.json")
    encounter = Encounter.objects.get(campaign__rule_system="aoristos")
    state = services.folded(encounter).state
    albert, thug = state.combatants
    assert (albert.name, albert.right, [a.key for a in albert.armour]) == (
        "Albert", "pistol", ["soft_vest"])
    assert thug.npc
    assert encounter.controllers == {albert.id: albert_owner_id(albert)}


def albert_owner_id(combatant):
    return Character.objects.get(pk=combatant.character_id).owner_id
