"""The encounter's page misses no record, whenever one is stored while the page is read
(issue 41). The page is read in several statements: the encounter's row, the member's
campaign, the log, the panel; a command of another member may be stored between any two
of them. Whatever the moment, every record newer than the panel comes through the page's
stream (opened after ``?after=``), and nothing the log shows comes a second time.

The race this guards: a player opened the fight as the GM started it. The encounter's row
was read before the start was stored, the campaign's last number after it, and the stream
opened after that number: the page showed the fight unstarted, and the start never came
(tests/browser/test_first_evening.py, T10, under load: Lina's token never active)."""

import re

import pytest
from django.urls import reverse

from combat import pages, services, views
from combat.models import CombatRecord, Encounter
from tests.combat.helpers import english


def stored_while(monkeypatch, where: str, store):
    """Run `store()` (a command of someone else) at the moment `where` of the page's reads."""
    if where == "after the encounter's row":  # before the member's campaign is read
        original = pages.get_membership

        def membership(*args, **kwargs):
            store()
            return original(*args, **kwargs)

        monkeypatch.setattr(pages, "get_membership", membership)
    elif where == "after the campaign, before the log":
        original_log = views.events_page

        def log_then(*args, **kwargs):
            store()
            return original_log(*args, **kwargs)

        monkeypatch.setattr(views, "events_page", log_then)
    elif where == "after the log":
        original_log = views.events_page

        def log_first(*args, **kwargs):
            read = original_log(*args, **kwargs)
            store()
            return read

        monkeypatch.setattr(views, "events_page", log_first)
    elif where == "before the panel":
        original_context = views.page_context

        def context(*args, **kwargs):
            store()
            return original_context(*args, **kwargs)

        monkeypatch.setattr(views, "page_context", context)
    else:
        raise AssertionError(where)


def read_page(html: str) -> tuple[int, int, list[int]]:
    """The panel's version, the seq the stream opens after, and the seqs the log shows."""
    panel = int(re.search(r'id="encounter-state" class="encounter-state" data-version="(\d+)"',
                          html).group(1))
    after = int(re.search(r'hx-sse:connect="[^"]*\?after=(\d+)"', html).group(1))
    shown = [int(seq) for seq in re.findall(r'<li class="roll[^"]*" id="roll-(\d+)"', html)]
    return panel, after, shown


@pytest.mark.django_db
@pytest.mark.parametrize("where", [
    "after the encounter's row",
    "after the campaign, before the log",
    "after the log",
    "before the panel",
])
def test_a_record_stored_while_the_page_is_read_is_in_the_panel_or_comes_by_the_stream(
    client, monkeypatch, gm, alice, t10, where
):
    encounter = Encounter.objects.create(campaign=t10, name="Gränden", system="t10")
    gm_membership = t10.memberships.get(user=gm)
    for version, (name, side) in enumerate((("Lina", "a"), ("Rövaren", "b"))):
        services.command_run(encounter_id=encounter.pk, membership=gm_membership,
                             version=version, data={"type": "add_combatant", "name": name,
                                                    "side": side, "initiative": 0})
    started = []

    def the_gm_starts():
        if not started:  # once, at that moment
            started.append(services.command_run(encounter_id=encounter.pk,
                                                membership=gm_membership, version=2,
                                                data={"type": "start"}))

    stored_while(monkeypatch, where, the_gm_starts)
    english(client, alice)
    response = client.get(reverse("combat:page", args=[encounter.pk]))
    assert response.status_code == 200
    assert started, "the start was stored while the page was read"

    panel, after, shown = read_page(response.content.decode())
    records = dict(CombatRecord.objects.filter(encounter=encounter).values_list("version", "seq"))
    assert max(records) == 3  # the two added, then the start
    missed = {v: seq for v, seq in records.items() if v > panel and seq <= after}
    assert not missed, (
        f"the panel is at v{panel} and the stream opens after event {after}: "
        f"record(s) {missed} (version: seq) never reach the page")
    assert all(seq <= after for seq in shown), (
        f"the log shows {shown} and the stream opens after {after}: lines twice")
