"""Issue 26, item 3: undo names its moves. The GM's undo menu names each move by its log
line and who made it; the log greys an undone move (and says so to screen readers) until
it is redone; version numbers are the GM's alone."""

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from campaign_log import reading
from combat import services
from combat.models import CombatRecord

pytestmark = pytest.mark.django_db

VERSION = re.compile(r"\bv\d+\b")


def started(fight, gm, run, dice):
    dice.queue += [1, 3]  # Albert (SIN 5) acts first: stress 1B1F, the 1 counts
    run(fight, gm, {"type": "start"})
    fight.refresh_from_db()
    return fight


def albert_of(fight, alice):
    return next(cid for cid, owner in fight.controllers.items() if owner == alice.pk)


def log_item(html: str, version: int) -> str:
    found = re.search(rf'<li class="[^"]*combat-record[^"]*"[^>]*data-version="{version}"'
                      r'.*?</li>', html, re.S)
    assert found, f"no log line of v{version}"
    return found.group(0)


@pytest.fixture
def moved(fight, gm, alice, run, dice):
    """Albert (Alice's) has moved 2 m: the fight's newest move, hers."""
    fight = started(fight, gm, run, dice)
    run(fight, alice, {"type": "move", "id": albert_of(fight, alice), "x": 2.0, "y": 0.0})
    fight.refresh_from_db()
    return fight


def test_the_undo_menu_names_each_move_by_its_line_and_its_maker(client, gm, alice, moved):
    client.force_login(gm)
    html = client.get(moved.get_absolute_url()).content.decode()
    menu = re.search(r'<select name="to" data-testid="undo-to">(.*?)</select>', html, re.S)
    options = re.findall(r'<option value="(\d+)">(.*?)</option>', menu.group(1))
    newest_to, newest = options[0]
    # The newest move (v4, Alice's) is undone by going back to v3, the start (v3) to v2.
    assert int(newest_to) == moved.version - 1
    assert newest.startswith(f"v{moved.version} · ")
    assert newest == f"v{moved.version} · Albert rör sig 2,0 m (1 KP). — {alice.username}"
    assert options[1][0] == str(moved.version - 2)
    assert options[1][1].endswith(f"— {gm.username}")
    # The first move (adding Albert) goes back to the start.
    assert options[-1][0] == "0"
    assert "Albert" in options[-1][1]
    assert len(options) == moved.version


def test_an_undone_move_is_greyed_in_the_log_until_redone(client, gm, alice, moved, run):
    version = moved.version
    run(moved, gm, {"type": "undo", "to": version - 1})
    for user in (gm, alice):
        client.force_login(user)
        html = client.get(moved.get_absolute_url()).content.decode()
        line = log_item(html, version)
        assert "undone" in line.split(">")[0]  # the <li>'s class
        assert '<del class="roll-what">' in line
        assert re.search(r'class="visually-hidden undone-mark">[^<]+:</span>', line)
        assert "undone" not in log_item(html, version - 1).split(">")[0]
    client.force_login(gm)
    redo_named = client.get(moved.get_absolute_url()).content.decode()
    assert re.search(rf'data-testid="redo-move">[^<]*v{version} · [^<]*Albert', redo_named)
    run(moved, gm, {"type": "redo"})
    html = client.get(moved.get_absolute_url()).content.decode()
    line = log_item(html, version)
    assert "undone" not in line.split(">")[0]
    assert "<del" not in line


def test_undo_and_redo_lines_say_which_moves_they_take_back(gm, alice, moved, run):
    version = moved.version
    run(moved, gm, {"type": "undo", "to": version - 2})
    undo = CombatRecord.objects.get(encounter=moved, version=version + 1)
    assert undo.lines == [{"kind": "Undo", "undone": [version - 1, version], "to": version - 2}]
    assert undo.public_lines == [{"kind": "Undo", "undone": [version - 1, version]}]
    run(moved, gm, {"type": "redo"})
    redo = CombatRecord.objects.get(encounter=moved, version=version + 2)
    assert redo.public_lines == [{"kind": "Redo", "redone": [version - 1]}]
    messages = {m["version"]: m for m in reading.events_page(
        moved.campaign_id, before=None, is_gm=False)[0] if m["kind"] == "combat"}
    assert "undone" not in messages[version - 1]
    assert messages[version]["undone"] is True


def test_the_streamed_undo_line_carries_what_it_undoes_per_audience(gm, alice, moved, run):
    """The stream renders an undo's line once per audience: both name the versions to
    grey (the pages' script does it), only the GM's says which version it went back to."""
    from campaign_log.lines import render_event

    version = moved.version
    run(moved, gm, {"type": "undo", "to": version - 1})
    message = reading.events_page(moved.campaign_id, before=None, is_gm=True)[0][0]
    for is_gm in (True, False):
        html = render_event(message, is_gm=is_gm, language="en")
        assert f'data-undoes="{version}"' in html
        assert 'data-undone-label="undone"' in html
        assert "The GM undoes a move." in strip_tags(html)
        assert bool(VERSION.search(strip_tags(html) + html)) == is_gm


def test_players_never_see_version_numbers(client, gm, alice, moved, run):
    run(moved, gm, {"type": "undo", "to": moved.version - 1})
    client.force_login(alice)
    for url in (moved.get_absolute_url(), reverse("combat:list", args=[moved.campaign_id]),
                reverse("table:page", args=[moved.campaign_id])):
        html = client.get(url).content.decode()
        assert not VERSION.search(html), (url, VERSION.search(html))
    client.force_login(gm)
    assert VERSION.search(client.get(moved.get_absolute_url()).content.decode())


def test_a_player_gets_no_undo_menu(client, alice, moved):
    client.force_login(alice)
    html = client.get(moved.get_absolute_url()).content.decode()
    assert 'data-testid="undo-to"' not in html
    assert 'data-testid="redo"' not in html


def test_the_undo_menu_offers_the_latest_moves_and_undoes_them(client, gm, alice, moved, run):
    """More moves than the menu shows: the oldest listed goes back to the move before it,
    and choosing an option undoes that move and every later one."""
    albert = albert_of(moved, alice)
    for x in range(3, 3 + 12):  # the GM places Albert (no KP)
        run(moved, gm, {"type": "update_combatant", "id": albert, "x": float(x)})
    moved.refresh_from_db()
    result = services.folded(moved)
    menu = services.undo_menu(moved, services.engine_of(moved), result, 12)
    assert [c["version"] for c in menu["undo_choices"]] == list(result.applied[-12:])[::-1]
    assert menu["undo_choices"][-1]["to"] == result.applied[-13]
    assert menu["redo_move"] is None
    oldest = menu["undo_choices"][-1]
    run(moved, gm, {"type": "undo", "to": oldest["to"]})
    moved.refresh_from_db()
    assert services.folded(moved).applied[-1] == oldest["to"]
