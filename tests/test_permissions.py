"""Who may do what, over every page and action: anonymous, outsider, player (owner),
other player and GM. Non-members see nothing of a campaign (404); a member without the
right gets 403; the anonymous are sent to log in. Checked on the server for every view."""

import pytest
from django.urls import reverse

from campaigns.models import BringRequest, JournalEntry, Membership
from campaigns.services import campaign_create, campaign_join
from characters.models import Character, Item
from table.models import FavouriteTest

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "outsider", "player", "other", "gm")
LOGIN, NOT_FOUND, FORBIDDEN, OK = "login", 404, 403, "ok"


@pytest.fixture
def world(make_user):
    users = {role: make_user(role) for role in ROLES if role != "anonymous"}
    campaign = campaign_create(gm=users["gm"], name="Kampanjen")
    campaign_join(campaign=campaign, user=users["player"])
    campaign_join(campaign=campaign, user=users["other"])
    character = Character.objects.create(owner=users["player"], campaign=campaign, name="X")
    item = Item.objects.create(character=character, name="Kofot")
    entry = JournalEntry.objects.create(campaign=campaign, author=users["player"], title="E")
    other_seat = Membership.objects.get(campaign=campaign, user=users["other"])
    # The player's character in no campaign, waiting for the GM to let it in.
    free = Character.objects.create(owner=users["player"], name="Y", dp_budget=400)
    waiting = BringRequest.objects.create(campaign=campaign, character=free)
    ids = {"c": campaign.pk, "x": character.pk, "e": entry.pk, "i": item.pk, "m": other_seat.pk}
    favourite = FavouriteTest.objects.create(
        character=character, name="F", properties=["alertness"]
    )
    ids |= {"y": free.pk, "r": waiting.pk, "f": favourite.pk}
    return users, ids


def expect(anonymous, outsider, player, other, gm):
    return dict(zip(ROLES, (anonymous, outsider, player, other, gm), strict=True))


MEMBERS = expect(LOGIN, NOT_FOUND, OK, OK, OK)
GM_ONLY = expect(LOGIN, NOT_FOUND, FORBIDDEN, FORBIDDEN, OK)
OWNER_OR_GM = expect(LOGIN, NOT_FOUND, OK, FORBIDDEN, OK)
OWNER_ONLY = expect(LOGIN, NOT_FOUND, OK, FORBIDDEN, FORBIDDEN)
# Bringing a character: a member, with a character of their own (anybody else's: 404).
OWN_CHARACTER = expect(LOGIN, NOT_FOUND, OK, NOT_FOUND, NOT_FOUND)


# Post data naming an id of `world` ("$y": the free character's id).
def resolve(data: dict | None, ids: dict) -> dict:
    return {k: ids[v[1:]] if str(v).startswith("$") else v for k, v in (data or {}).items()}


# (method, url name, argument keys, post data, expected per role)
CASES = [
    ("get", "campaigns:detail", "c", None, MEMBERS),
    ("get", "campaigns:edit", "c", None, GM_ONLY),
    ("post", "campaigns:edit", "c", {"name": "Ny", "starting_dp": 33, "level_cap": 5}, GM_ONLY),
    ("get", "campaigns:invite_qr", "c", None, GM_ONLY),
    ("post", "campaigns:invite_renew", "c", {}, GM_ONLY),
    ("post", "campaigns:gm_notes", "c", {"gm_notes": "hemligt"}, GM_ONLY),
    ("post", "campaigns:member_remove", "cm", {}, GM_ONLY),
    ("post", "campaigns:seat_move", "cm", {"direction": "up"}, GM_ONLY),
    ("get", "campaigns:awards", "c", None, GM_ONLY),
    ("post", "campaigns:character_bring", "c", {"character": "$y"}, OWN_CHARACTER),
    ("post", "campaigns:bring_request", "c", {"character": "$y"}, OWN_CHARACTER),
    ("post", "campaigns:bring_request_answer", "cr", {"answer": "decline"}, GM_ONLY),
    ("post", "campaigns:bring_request_withdraw", "cr", {}, OWNER_ONLY),
    ("get", "campaigns:journal", "c", None, MEMBERS),
    ("post", "campaigns:journal", "c", {"title": "Kväll", "body": "Text"}, MEMBERS),
    ("get", "campaigns:journal_edit", "ce", None, OWNER_OR_GM),
    ("post", "campaigns:journal_edit", "ce", {"title": "Ändrad", "body": ""}, OWNER_OR_GM),
    ("post", "campaigns:journal_delete", "ce", {}, OWNER_OR_GM),
    ("post", "campaigns:journal_pin", "ce", {}, GM_ONLY),
    ("get", "table:page", "c", None, MEMBERS),
    ("get", "table:history", "c", None, MEMBERS),
    ("get", "table:odds", "c", None, MEMBERS),
    ("get", "combat:prompts", "c", None, MEMBERS),
    ("post", "table:roll", "c", {"mode": "hand", "hand": "1B"}, MEMBERS),
    ("get", "characters:sheet", "x", None, MEMBERS),
    ("get", "characters:edit", "x", None, OWNER_OR_GM),
    ("post", "characters:edit_preview", "x", {}, OWNER_OR_GM),
    ("get", "characters:delete", "x", None, OWNER_ONLY),
    ("post", "characters:delete", "x", {}, OWNER_ONLY),
    ("post", "characters:gm_notes", "x", {"gm_notes": "hemligt"}, GM_ONLY),
    ("post", "characters:item_add", "x", {"name": "Rep", "bulk": "1", "quantity": 1}, OWNER_OR_GM),
    ("post", "characters:item_delete", "xi", {}, OWNER_OR_GM),
    ("get", "characters:advancement", "x", None, OWNER_OR_GM),
    ("post", "characters:spend", "x", {"key": "firearms"}, OWNER_OR_GM),
    ("post", "characters:undo", "x", {}, OWNER_OR_GM),
    # Rolling from the sheet at the campaign's table, and the sheet's favourite tests.
    ("post", "table:sheet_roll", "x", {"properties": ["alertness"]}, OWNER_OR_GM),
    (
        "post",
        "table:favourite_save",
        "x",
        {"favourite_name": "Spana", "properties": ["alertness"]},
        OWNER_OR_GM,
    ),
    ("post", "table:favourite_delete", "xf", {}, OWNER_OR_GM),
]


def outcome(response) -> str | int:
    if response.status_code == 302 and "/accounts/login/" in response.url:
        return LOGIN
    if response.status_code in (403, 404):
        return response.status_code
    assert response.status_code < 500, response.status_code
    return OK


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("method", "name", "keys", "data", "expected"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_permission_matrix(client, world, role, method, name, keys, data, expected):
    users, ids = world
    if role != "anonymous":
        client.force_login(users[role])
    url = reverse(name, args=[ids[key] for key in keys])
    response = client.get(url) if method == "get" else client.post(url, resolve(data, ids))
    assert outcome(response) == expected[role]


def test_refused_changes_change_nothing(client, world):
    users, ids = world
    client.force_login(users["other"])
    client.post(reverse("campaigns:gm_notes", args=[ids["c"]]), {"gm_notes": "kapat"})
    client.post(reverse("characters:edit", args=[ids["x"]]), {"name": "Kapad"})
    client.post(reverse("campaigns:member_remove", args=[ids["c"], ids["m"]]))
    answer = reverse("campaigns:bring_request_answer", args=[ids["c"], ids["r"]])
    client.post(answer, {"answer": "accept", "note": "Visst"})
    client.post(reverse("campaigns:bring_request_withdraw", args=[ids["c"], ids["r"]]))
    client.post(reverse("campaigns:character_bring", args=[ids["c"]]), {"character": ids["y"]})
    client.force_login(users["gm"])
    client.post(reverse("campaigns:bring_request_withdraw", args=[ids["c"], ids["r"]]))
    client.force_login(users["outsider"])
    client.post(answer, {"answer": "accept", "note": "Visst"})
    client.post(reverse("characters:item_delete", args=[ids["x"], ids["i"]]))
    character = Character.objects.get(pk=ids["x"])
    assert character.name == "X"
    assert character.campaign.gm_notes == ""
    assert Membership.objects.filter(pk=ids["m"]).exists()
    assert Item.objects.filter(pk=ids["i"]).exists()
    assert BringRequest.objects.get(pk=ids["r"]).status == BringRequest.Status.PENDING
    assert Character.objects.get(pk=ids["y"]).campaign is None


def test_removing_a_player_detaches_but_keeps_their_characters(client, world):
    users, ids = world
    client.force_login(users["gm"])
    player_seat = Membership.objects.get(user=users["player"])
    client.post(reverse("campaigns:member_remove", args=[ids["c"], player_seat.pk]))
    character = Character.objects.get(pk=ids["x"])
    assert character.campaign is None
    assert character.owner == users["player"]
    client.force_login(users["player"])
    assert client.get(reverse("campaigns:detail", args=[ids["c"]])).status_code == 404
    assert client.get(reverse("characters:sheet", args=[ids["x"]])).status_code == 200


def test_a_renewed_invitation_retires_the_old_code_and_link(client, world, make_user):
    users, ids = world
    campaign = Membership.objects.get(user=users["gm"]).campaign
    old_code, old_token = campaign.join_code, campaign.invite_token
    client.force_login(users["gm"])
    client.post(reverse("campaigns:invite_renew", args=[ids["c"]]))
    campaign.refresh_from_db()
    assert campaign.join_code != old_code
    assert campaign.invite_token != old_token
    client.force_login(make_user("sen"))
    assert client.get(reverse("campaigns:join", args=[old_token])).status_code == 404
    response = client.post(reverse("campaigns:join_code"), {"code": old_code})
    assert response.status_code == 400
    assert client.get(reverse("campaigns:join", args=[campaign.invite_token])).status_code == 200
