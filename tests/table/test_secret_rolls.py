"""The GM's secret rolls stay the GM's (issue 23): a player learns only that the GM rolled
in secret, in every system's tray: not in the odds, the lists of earlier rolls, the log,
the sheet's "Intryck", nor through what a later roll carries (docs/rules/t10.md, "Secret rolls"; T10
"Att använda DoS och DoF"; Phobia lines 374-381: "bör spelledaren slå slaget dolt")."""

import re
from dataclasses import dataclass, field

import pytest
from django.test import Client
from django.urls import reverse

from campaign_log import audiences, reading
from characters.models import Character
from rules.t10.rolls import roll_odds
from table import services
from table.models import NoticeEvent, RollEvent
from tests.table.log_check import assert_one_query_reads_the_log

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@dataclass
class Table:
    """One system's table with the player's character, and what the GM rolls in secret."""

    campaign: object
    character: object
    secret: dict  # the GM's secret roll, as the tray posts it
    secret_dice: list[int]
    asks: list[dict]  # what the player's tray asks the odds of; the first is rolled
    own_dice: list[int]
    marks: tuple[str, ...]  # text that only the secret roll has (English pages)
    carried: tuple[str, ...] = field(default=())  # what a roll carrying from it shows
    lists: tuple[str, ...] = field(default=())  # the tray's lists of earlier rolls


@pytest.fixture
def johan(alice, t10):
    """Johan: Social Kompetens −2, so Charma −2 (t10-ap-utdrag.txt's examples)."""
    return Character.objects.create(
        owner=alice, campaign=t10, name="Johan", rule_system="t10",
        attributes={"social": -2, "combat": 0, "body": 0, "mind": 0, "initiative": 1},
        skills={"intimidate": 3, "pistol": 2, "persuade": 1},
    )


def aoristos_table(request) -> Table:
    albert = request.getfixturevalue("albert_in_campaign")
    test = {"mode": "test", "character": albert.pk, "properties": ["alertness", "wilderness"]}
    return Table(
        campaign=request.getfixturevalue("campaign"), character=albert,
        # SIN + Vildmark + 13: a label nothing else at this table has.
        secret=test | {"constant": 13, "secret": "on"}, secret_dice=[6, 6],
        asks=[test, {"mode": "hand", "hand": "2B2T+1"}], own_dice=[3, 2],
        marks=("+ 13",),
    )


def phobia_table(request) -> Table:
    jace = request.getfixturevalue("jace")
    climb = {"mode": "test", "character": jace.pk, "stat": "climbing", "difficulty": 3}
    return Table(
        campaign=request.getfixturevalue("phobia"), character=jace,
        # Lugn 12 at Ob3T6 rolls 5+5+4 = 14: failed, nervous for the rest of the situation.
        secret={"mode": "test", "character": jace.pk, "stat": "calm", "difficulty": 3,
                "secret": "on"},
        secret_dice=[5, 5, 4],
        asks=[climb, {"mode": "opposed", "character": jace.pk, "stat": "climbing",
                      "difficulty": 3, "opponent": "other", "opponent_name": "Vakten",
                      "opponent_chance": 12, "opponent_difficulty": 3}],
        own_dice=[1, 2, 3],
        marks=("nervous",),
        carried=("roll-in-situation", "Ob4T6", "+Ob1T6"),
        lists=("opponent",),
    )


def t10_table(request) -> Table:
    johan = request.getfixturevalue("johan")
    charm = {"mode": "test", "character": johan.pk, "stat": "charm", "toward": "other",
             "toward_name": "Zzkarl"}
    return Table(
        campaign=request.getfixturevalue("t10"), character=johan,
        # 1 + 1 − 2 = 0: 10 DoF, a carry of −6 to Johan's next roll with Zzkarl.
        secret=charm | {"secret": "on"}, secret_dice=[1, 1],
        asks=[charm, {"mode": "test", "character": johan.pk, "stat": "persuade"}],
        own_dice=[7, 7],
        marks=("Zzkarl", "−6", "-6", "10 DoF"),
        carried=("continues", "−6", "-6"),
        lists=("after",),
    )


@pytest.fixture(params=["aoristos", "phobia", "t10"])
def table(request) -> Table:
    return {"aoristos": aoristos_table, "phobia": phobia_table, "t10": t10_table}[
        request.param](request)


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def player(alice) -> Client:
    return logged_in(alice)


@pytest.fixture
def other_player(bob) -> Client:
    return logged_in(bob)


@pytest.fixture
def gm_client(gm) -> Client:
    return logged_in(gm)


def post_roll(client, campaign, data):
    return client.post(reverse("table:roll", args=[campaign.pk]), data, headers=HTMX)


def page(client, campaign, name="table:page") -> str:
    return client.get(reverse(name, args=[campaign.pk])).content.decode()


def odds(client, campaign, data) -> str:
    return client.get(reverse("table:odds", args=[campaign.pk]), data).content.decode()


def tray(html: str) -> str:
    """The tray form, its lists of earlier rolls included, without its one-time keys."""
    form = re.search(r'<form [^>]*id="tray-form".*?</form>', html, re.DOTALL).group(0)
    return re.sub(r'(name="(?:csrfmiddlewaretoken|idempotency_key)" value=")[^"]*', r"\1",
                  form)


def select(html: str, name: str) -> str:
    return re.search(rf'<select name="{name}".*?</select>', html, re.DOTALL).group(0)


def log_line(html: str, seq: int) -> str:
    return re.search(rf'<li class="roll[^"]*" id="roll-{seq}".*?</li>', html,
                     re.DOTALL).group(0)


def mentions(text: str, seq: int) -> bool:
    """Whether `text` names roll `seq` ("#12", "roll:12"), anywhere but its own line's
    number (the `title` of its time); not a colour ("#1f1b16")."""
    text = text.replace(f'title="#{seq}"', "")
    return bool(re.search(rf"(#|roll:){seq}(?![0-9a-fA-F])", text))


def shown_text(html: str) -> str:
    """What a page shows (text and option labels), without its markup: a random token in
    an attribute (CSRF, idempotency keys) may hold "-6" by chance."""
    html = re.sub(r"<script\b.*?</script>", " ", html, flags=re.S | re.I)
    return re.sub(r"<[^>]*>", " ", html)


def assert_only_the_secret_line(html: str, seq: int, marks):
    line = log_line(html, seq)
    assert "The GM rolled in secret." in line
    assert 'class="faces"' not in line
    assert 'class="roll-who">gunnar</span>' in line  # who rolled, and nothing else
    rest = html.replace(line, "")
    assert not mentions(rest, seq)
    shown = shown_text(html)
    for mark in marks:
        assert mark not in shown


def test_the_players_table_shows_only_that_the_gm_rolled_in_secret(
    table, player, other_player, gm_client, dice
):
    campaign = table.campaign
    tray_before = tray(page(player, campaign))
    odds_before = [odds(player, campaign, ask) for ask in table.asks]

    dice.queue[:] = table.secret_dice
    assert post_roll(gm_client, campaign, table.secret).status_code == 200
    secret = RollEvent.objects.get()
    assert secret.secret
    # The GM sees all of it (so the marks below are what the secret roll shows).
    gms = page(gm_client, campaign)
    assert any(mark in log_line(gms, secret.seq) for mark in table.marks)

    for client in (player, other_player):
        html = page(client, campaign)
        assert_only_the_secret_line(html, secret.seq, table.marks)
        assert_only_the_secret_line(page(client, campaign, "table:history"), secret.seq,
                                    table.marks)
    # The tray, its lists of earlier rolls and every odds answer are as they were.
    assert tray(page(player, campaign)) == tray_before
    for name in table.lists:
        assert f'value="roll:{secret.seq}"' not in select(page(player, campaign), name)
    assert [odds(player, campaign, ask) for ask in table.asks] == odds_before
    # What every channel sends a player (the stream, the log pages): the bare line.
    [line] = reading.events_after(campaign.pk, 0, is_gm=False)
    assert set(line) == set(audiences.SECRET_FIELDS)
    assert_one_query_reads_the_log(campaign.pk, kinds={secret.kind})


def test_a_players_roll_after_the_secret_one_carries_nothing_of_it(
    table, player, other_player, gm_client, dice
):
    campaign = table.campaign
    dice.queue[:] = table.secret_dice
    post_roll(gm_client, campaign, table.secret)
    secret = RollEvent.objects.get()
    dice.queue[:] = table.own_dice
    response = post_roll(player, campaign, table.asks[0])
    assert 'class="error"' not in response.content.decode()
    own = RollEvent.objects.exclude(pk=secret.pk).get()
    assert not own.secret
    message = audiences.visible(services.payload(own), is_gm=False)
    assert "against" not in message
    assert message.get("in_situation") is None  # Phobia: no secret Lugn situation
    assert "after" not in message.get("params", {})  # T10: no carry from it
    for client in (player, other_player):
        html = page(client, campaign)
        line = log_line(html, own.seq)
        assert not mentions(line, secret.seq)
        for mark in table.carried:
            assert mark not in shown_text(line)


@pytest.mark.parametrize("system", ["phobia", "t10"])
def test_a_secret_roll_chosen_in_a_roll_that_is_not_secret_is_refused(
    request, system, gm, player, gm_client, dice
):
    """Continuing (T10) or opposing (Phobia) a secret roll is the GM's, in secret: in the
    open, the log line would name it and show its degrees or effect."""
    table = {"phobia": phobia_table, "t10": t10_table}[system](request)
    campaign = table.campaign
    dice.queue[:] = table.secret_dice
    post_roll(gm_client, campaign, table.secret)
    secret = RollEvent.objects.get()
    if system == "t10":
        name, data = "after", table.asks[0] | {"after": f"roll:{secret.seq}"}
        refusal = "only a secret roll may continue it"
    else:
        name = "opponent"
        data = table.asks[1] | {"opponent": f"roll:{secret.seq}"}
        refusal = "only a secret roll may oppose it"
    # The GM's list names it, marked secret; a player's does not have it at all.
    assert f'value="roll:{secret.seq}">#{secret.seq} ' in select(page(gm_client, campaign),
                                                                  name)
    assert "(secret)</option>" in select(page(gm_client, campaign), name)
    assert f'value="roll:{secret.seq}"' not in select(page(player, campaign), name)

    response = post_roll(gm_client, campaign, data)
    assert response.status_code == 200
    assert refusal in response.content.decode()
    assert response.context["form"].data[name] == f"roll:{secret.seq}"  # kept as typed
    assert refusal in odds(gm_client, campaign, data)  # said before the roll too
    gm_sv = logged_in(gm)
    gm_sv.cookies["django_language"] = "sv"
    swedish = post_roll(gm_sv, campaign, data).content.decode()
    assert "bara ett hemligt slag får" in swedish
    # A player is told only that there is no such roll.
    response = post_roll(player, campaign, data)
    assert "There is no such roll" in response.content.decode()
    assert refusal not in response.content.decode()
    assert RollEvent.objects.count() == 1
    # In secret the GM may.
    # (Phobia: in secret, Jace's climb is rolled in the secret Lugn roll's situation,
    # Ob4T6.)
    dice.queue[:] = [2, 3, 4, 1] if system == "phobia" else [5, 5]
    post_roll(gm_client, campaign, data | {"secret": "on"})
    assert RollEvent.objects.count() == 2
    assert RollEvent.objects.order_by("-seq").first().secret


def test_the_secret_charm_toward_zzkarl_carries_only_into_the_gms_secret_rolls(
    request, player, other_player, gm_client, dice
):
    """Issue 23's leak: the GM's secret Charma for Johan with Zzkarl (10 DoF) must not
    show in the player's odds ("Fortsätter #1: −6") nor in the log of the player's roll."""
    table = t10_table(request)
    campaign, johan = table.campaign, table.character
    charm = table.asks[0]
    dice.queue[:] = [1, 1]
    post_roll(gm_client, campaign, charm | {"secret": "on"})
    first = RollEvent.objects.get()
    assert (first.secret, first.detail["total"]) == (True, 0)  # 10 DoF

    # The GM's next secret roll with Zzkarl carries from it (−6) ...
    gm_odds = odds(gm_client, campaign, charm | {"secret": "on"})
    assert f"Continues #{first.seq}: -6" in gm_odds
    dice.queue[:] = [10, 10]  # 20 − 2 − 6 = 12: 1 DoS
    post_roll(gm_client, campaign, charm | {"secret": "on"})
    second = RollEvent.objects.get(seq=first.seq + 1)
    assert second.secret
    assert (second.detail["params"]["after"], second.detail["params"]["carry"]) == (
        first.seq, -6)

    # ... but the player's odds and roll with Zzkarl carry nothing from either.
    mine = odds(player, campaign, charm)
    assert 'data-testid="odds-carry"' not in mine
    assert f'data-testid="odds-percent">{float(roll_odds(-2).success) * 100:.1f} %<' in mine
    # Neither does the GM's roll in the open.
    assert 'data-testid="odds-carry"' not in odds(gm_client, campaign, charm)
    dice.queue[:] = [8, 8]  # 16 − 2 = 14: 3 DoS
    post_roll(gm_client, campaign, charm)
    in_the_open = RollEvent.objects.get(seq=second.seq + 1)
    assert not in_the_open.secret
    assert "after" not in in_the_open.detail["params"]
    # The player's next roll with Zzkarl carries from that one, the newest public roll.
    mine = odds(player, campaign, charm)
    assert f"Continues #{in_the_open.seq}: +3" in mine
    dice.queue[:] = [4, 6]  # 10 − 2 + 3 = 11: a success
    post_roll(player, campaign, charm)
    players = RollEvent.objects.get(seq=in_the_open.seq + 1)
    assert players.detail["params"]["after"] == in_the_open.seq
    assert players.detail["params"]["carry"] == 3

    for client in (player, other_player):
        html = page(client, campaign)
        for secret in (first, second):
            assert_only_the_secret_line(html, secret.seq, ["Zzkarl, by", "10 DoF"])
        assert f"continues #{in_the_open.seq} +3" in log_line(html, players.seq)
    # The player's sheet: Johan's impression on Zzkarl is the public one's; the GM's sheet
    # shows the newest, its own secret roll's.
    sheet = reverse("characters:sheet", args=[johan.pk])
    theirs = player.get(sheet).content.decode()
    impressions = re.search(r'data-testid="impressions".*?</section>', theirs,
                            re.DOTALL).group(0)
    assert f"#{players.seq}" in impressions
    assert not any(mentions(impressions, s.seq) for s in (first, second))

    # An explicit continuation of the secret roll in the open is refused; nothing stored.
    count = RollEvent.objects.count()
    refused = post_roll(gm_client, campaign, charm | {"after": f"roll:{first.seq}"})
    assert "only a secret roll may continue it" in refused.content.decode()
    assert RollEvent.objects.count() == count


def test_the_sheets_impressions_hide_the_gms_secret_roll_from_players(
    request, player, gm_client, dice
):
    """Intryck (table.services.impressions): the GM's secret roll with Zzkarl is on the
    GM's view of Johan's sheet, not on his player's."""
    table = t10_table(request)
    campaign, johan = table.campaign, table.character
    sheet = reverse("characters:sheet", args=[johan.pk])
    before = re.search(r'data-testid="impressions".*?</section>',
                       player.get(sheet).content.decode(), re.DOTALL).group(0)
    dice.queue[:] = [1, 1]
    post_roll(gm_client, campaign, table.secret)
    secret = RollEvent.objects.get()
    gms = gm_client.get(sheet).content.decode()
    assert "Zzkarl" in gms
    assert 'data-testid="impression">-6<' in gms
    theirs = player.get(sheet).content.decode()
    after = re.search(r'data-testid="impressions".*?</section>', theirs, re.DOTALL).group(0)
    assert after == before
    assert "Zzkarl" not in theirs
    assert not mentions(theirs, secret.seq)


def test_a_player_cannot_end_a_situation_only_a_secret_lugn_roll_opened(
    request, player, gm_client, dice
):
    """Phobia lines 210-229: the GM's secret Lugn roll's situation is not the player's to
    see, nor to find out about by ending it; the GM may end it."""
    table = phobia_table(request)
    campaign = table.campaign
    dice.queue[:] = table.secret_dice
    post_roll(gm_client, campaign, table.secret)
    assert RollEvent.objects.get().detail["situation"] == "nervous"
    climb = table.asks[0]
    assert 'data-testid="odds-situation"' in odds(gm_client, campaign, climb | {"secret": "on"})
    assert 'data-testid="odds-dice">Ob4T6<' in odds(gm_client, campaign,
                                                      climb | {"secret": "on"})
    assert 'data-testid="odds-dice">Ob3T6<' in odds(gm_client, campaign, climb)
    end = reverse("table:situation_end", args=[campaign.pk])
    answer = player.post(end, climb, headers=HTMX)
    assert answer.status_code == 200
    assert 'data-testid="odds-situation"' not in answer.content.decode()
    assert not NoticeEvent.objects.exists()
    gm_client.post(end, climb | {"secret": "on"}, headers=HTMX)
    assert NoticeEvent.objects.filter(kind=NoticeEvent.Kind.SITUATION).count() == 1
    assert 'data-testid="odds-situation"' not in odds(gm_client, campaign,
                                                      climb | {"secret": "on"})
