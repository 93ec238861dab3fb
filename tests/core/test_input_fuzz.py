"""No input answers 500: every route, fuzzed, as the GM, as a player and anonymously.

The routes come from the URL resolver, so a new route is fuzzed without touching this
file; a new kind of path parameter fails loudly until it is given ids below. For each
route Hypothesis draws query parameters and form fields (the names the views read, and
unknown ones) with odd values: unicode digits, signs, exponents, 40-digit numbers, NUL,
long text, several values for one name. Each drawn input is sent as GET and as POST (form
encoded, multipart or JSON), with and without HX-Request, by each of the three clients;
every answer must be below 500. Exceptions are not turned into 500 pages here: the test
client raises them, so a failure shows its traceback.

Each example runs in a savepoint that is rolled back, so a POST that deletes the seeded
character or removes the player does not starve the next example.
"""

import json
import os
import re
import uuid
from urllib.parse import urlencode

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from campaigns.models import BringRequest, JournalEntry, Membership
from campaigns.services import campaign_create, campaign_join
from characters import services as character_services
from characters.models import Character, Item
from core import throttle
from core.params import MAX_ID
from rules.aoristos import character as rules
from rules.aoristos import dice
from table import services as table_services
from table.models import FavouriteTest

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "4"))

# Routes left out, each with its reason. (log:events is fuzzed as Django sees it: the
# ASGI router serves the real stream before Django, see table/stream.py, and its own
# tests cover odd Last-Event-ID and ?after= values.)
SKIPPED: set[str] = set()

# Every name a view or form reads from a query string or a form body.
PARAMETER_NAMES = sorted(
    {
        # accounts, language
        "username", "password", "password1", "password2", "next", "language",
        # campaigns
        "name", "rule_system", "starting_dp", "level_cap", "code", "direction", "character",
        "gm_notes", "renew_invitation", "campaign", "answer", "note", "favourite_name",
        # journal
        "title", "body", "preview", "page",
        # characters, equipment, the sheet's odds helper
        "concept", "notes", "dp_budget", "bulk", "quantity", "properties", "free", "forced",
        "threshold",
        # advancement
        "key", "target", "method", "amount", "travel_months", "hardship", "training_hours",
        "training_months", "challenge", "psych_trauma_ok", "reason",
        # the table and the API
        "mode", "hand", "purpose", "secret", "before", "after", "tb", "st",
        # encounters: commands from forms, the GM's add form, the attack preview
        "version", "type", "id", "x", "y", "weapon", "aim", "shots", "area", "source",
        "template", "side", "posture", "to", "syllables", "levels", "rounds", "default",
        "label", "weapons", "armour", "right", "left", "hidden_areas", "cover_torso",
        "skill_brawling", "save_template", "house_melee_reach",
        "house_movement_by_round_total", "kind", "weapon-key", "weapon-name", "weapon-skill",
        "weapon-hands", "weapon-fire_modes", "armour-key", "armour-area_torso",
        # whatever comes next
        "idempotency_key",
        *rules.ATTRIBUTES,
        *rules.SKILLS,
    }
)  # fmt: skip

NASTY = [
    "", " ", "0", "1", "2", "-1", "-0", "+1", "²", "٣", "١٢", "７", "⅕", "1e5", "1E400",
    "1.5", "0x1F", "1_0", "NaN", "inf", "-Infinity", "9" * 19, "9" * 40, str(2**63),
    str(-(2**63) - 1), "\x00", "1\x00", "a\x00b", "x" * 5000, "é" * 300, "<script>",
    "' OR 1=1 --", "%00", "../../etc/passwd", "//evil.example/", "javascript:alert(1)",
    "\u202e", "\ufeff", "🎲" * 10, "true", "null", "[]", "{}",
]  # fmt: skip
# Always tried, in every known name at once, besides the drawn examples: the values that
# broke views before (int("²") fails though "²".isdigit(); 40 digits overflow a bigint).
SHARP = ["²", "٣", "-1", "1e5", "9" * 40, "", "\x00", ["1", "x" * 5000]]
PLAUSIBLE = [
    "up", "down", "all", "free", "travel", "hardship", "training", "combat", "test", "hand",
    "stress", "aoristos", "phobia", "1B1T", "2B2T+1", "3", "5", "15", "on", "sv", "en",
    "gunnar", "alice", "physique", "wilderness", "/characters/",
]  # fmt: skip


def routes() -> list[tuple[str, str]]:
    """(name, route) for every URL pattern, e.g. ("characters:sheet", "characters/<id:pk>/")."""
    found = []

    def walk(patterns, prefix: str, namespace: str):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = namespace
                if pattern.namespace:
                    inner = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
                walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif isinstance(pattern, URLPattern):
                name = pattern.name or str(pattern.callback)
                found.append(
                    (f"{namespace}:{name}" if namespace else name, prefix + str(pattern.pattern))
                )

    walk(get_resolver().url_patterns, "", "")
    return found


ROUTES = [(name, route) for name, route in routes() if name not in SKIPPED]
PARAMETER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")


def test_every_route_is_fuzzed_or_skipped_on_purpose():
    names = {name for name, _route in routes()}
    assert names >= SKIPPED, "a skipped route no longer exists: update SKIPPED"
    assert len(ROUTES) >= 40
    for _name, route in ROUTES:
        assert "^" not in route, f"regex route {route!r}: teach this test its parameters"


@pytest.fixture
def world(make_user, settings):
    """A campaign with a GM and two players, characters (one free), an item, a journal
    entry, ledger entries and rolls; and a throttle cache of this test's own."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"fuzz-{uuid.uuid4()}",
        }
    }
    gm, alice, bob = make_user("gunnar"), make_user("alice"), make_user("bob")
    campaign = campaign_create(gm=gm, name="Mörkrets hjärta")
    campaign_join(campaign=campaign, user=alice)
    campaign_join(campaign=campaign, user=bob)
    albert = Character.objects.create(
        owner=alice, campaign=campaign, name="Albert", dp_budget=40, attributes={"alertness": 5}
    )
    Character.objects.create(owner=bob, campaign=campaign, name="Berit")
    free = Character.objects.create(owner=alice, name="Fri")
    waiting = BringRequest.objects.create(campaign=campaign, character=free)
    favourite = FavouriteTest.objects.create(
        character=albert, name="Spana", properties=["alertness"]
    )
    item = Item.objects.create(character=albert, name="Rep", quantity=2)
    entry = JournalEntry.objects.create(campaign=campaign, author=alice, title="Natt", body="*x*")
    character_services.dp_award(character=albert, amount=10, reason="Resa", by=gm)
    character_services.dp_spend(character=albert, key="wilderness", by=alice)
    for secret in (False, True):
        table_services.roll_record(
            campaign=campaign, actor=gm, hand=dice.parse_hand("1B1T"), secret=secret
        )
    encounter = fuzz_encounter(campaign, gm, alice, albert)
    from combat.models import CatalogueItem

    own_weapon = CatalogueItem.objects.create(
        campaign=campaign, kind="weapon", key="klubba",
        data={"key": "klubba", "name": "Klubba", "skill": "melee_weapons"},
    )
    from combat.models import MapPicture

    map_picture = MapPicture.objects.create(  # the battle map's picture (issue 27)
        encounter=encounter, content=b"\x89PNG", content_type="image/png", width_px=1,
        height_px=1,
    )
    # An import of the GM's (issue 30) and a placeholder it left in the campaign.
    from archive.models import ImportJob, Placeholder

    job = ImportJob.objects.create(user=gm, filename="kampanj.zip", size=100, status="done",
                                   campaign=campaign, summary={"rows": 1, "placeholders": 1})
    holder = make_user("platshallare")
    holder.is_active = False
    holder.save()
    Membership.objects.create(campaign=campaign, user=holder, seat=9)
    placeholder = Placeholder.objects.create(campaign=campaign, user=holder, name="platshallare")
    from campaigns.models import TableScreen

    screen = TableScreen.objects.create(campaign=campaign, name="TV")  # issue 47
    from table.models import Handout

    handout = Handout.objects.create(campaign=campaign, title="Brevet", text="Kom ensam.",
                                     picture=bytes(map_picture.content), on_screen=True,
                                     content_type=map_picture.content_type,
                                     width_px=map_picture.width_px,
                                     height_px=map_picture.height_px)
    typed = table_services.roll_record(campaign=campaign, actor=alice,  # issue 48
                                       hand=dice.parse_hand("2B"), faces=(3, 4))
    ids = {
        ("seq", "campaigns"): typed.seq,
        ("screen_pk", "campaigns"): screen.pk,
        ("handout_pk", "campaigns"): handout.pk,
        ("handout_pk", "screen"): handout.pk,
        ("token", "screen"): screen.token,
        ("token", "live"): screen.token,
        ("job", "campaigns"): job.pk,
        ("placeholder", "campaigns"): placeholder.pk,
        ("item_pk", "campaigns"): own_weapon.pk,
        ("picture", "encounters"): map_picture.pk,
        ("picture", "screen"): map_picture.pk,
        ("pk", "encounters"): encounter.pk,
        ("pk", "api"): encounter.pk,
        ("pk", "characters"): albert.pk,
        ("pk", "campaigns"): campaign.pk,
        ("pk", "live"): campaign.pk,
        ("member_pk", "campaigns"): Membership.objects.get(campaign=campaign, user=alice).pk,
        ("entry_pk", "campaigns"): entry.pk,
        ("item_pk", "characters"): item.pk,
        ("token", "campaigns"): campaign.invite_token,
        ("request_pk", "campaigns"): waiting.pk,
        ("favourite_pk", "characters"): favourite.pk,
    }
    values = [str(v) for v in ids.values()] + [str(free.pk), campaign.join_code]
    return {"users": {"gm": gm, "player": alice, "anonymous": None}, "ids": ids, "values": values}


def fuzz_encounter(campaign, gm, alice, albert):
    """A started fight: Albert (Alice's) against an NPC, with a pending attack's prompt."""
    from combat import services as combat_services
    from combat.models import Encounter
    from rules.aoristos.combat import ENGINE

    encounter = Encounter.objects.create(campaign=campaign, name="Gränden", system="aoristos")
    gm_membership = Membership.objects.get(campaign=campaign, user=gm)
    block = ENGINE.character_block(name=albert.name, levels=albert.levels(),
                                   derived=albert.secondary().as_dict())
    block.update(character_id=albert.pk, weapons=["pistol"], right="pistol")
    commands = [
        (block, alice.pk),
        ({"type": "add_combatant", "name": "Vakt", "side": "b", "x": 3.0,
          "weapons": ["knife"], "right": "knife"}, None),
        ({"type": "start"}, None),
    ]
    for version, (data, controller) in enumerate(commands):
        combat_services.command_run(encounter_id=encounter.pk, membership=gm_membership,
                                    data=data, version=version, controller=controller)
    return encounter


def fill(route: str, ids: dict, odd_ids: bool) -> str:
    first = route.split("/", 1)[0]

    def value(match):
        key = (match["name"], first)
        assert key in ids, f"{route}: no seeded object for <{match[0][1:-1]}>: add it to world()"
        real = ids[key]
        if odd_ids and match["converter"] == "id":
            return str(MAX_ID)
        return str(real)

    return "/" + PARAMETER.sub(value, route)


def values(world_values):
    text = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
    one = st.one_of(
        st.sampled_from(NASTY),
        st.sampled_from(PLAUSIBLE + world_values),
        text,
        st.integers(min_value=-(10**40), max_value=10**40).map(str),
    )
    return st.one_of(one, st.lists(one, min_size=2, max_size=3))


def inputs(world_values):
    names = st.one_of(
        st.sampled_from(PARAMETER_NAMES),
        st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12),
    )
    return st.fixed_dictionaries(
        {
            "params": st.dictionaries(names, values(world_values), max_size=10),
            # one value for every known name, under the drawn ones: "1" gets forms past
            # their first field; an odd value reaches every raw read at once
            "fill": st.one_of(st.none(), st.just("1"), values(world_values)),
            "encoding": st.sampled_from(["multipart", "urlencoded", "json"]),
            "htmx": st.booleans(),
            "odd_ids": st.booleans(),
            "language": st.sampled_from(["sv", "en"]),
            "idempotency_key": st.one_of(st.none(), st.sampled_from(NASTY)),
        }
    )


def as_pairs(params: dict) -> list[tuple[str, str]]:
    pairs = []
    for name, value in params.items():
        for one in value if isinstance(value, list) else [value]:
            pairs.append((name, one))
    return pairs


def send(client: Client, method: str, path: str, drawn: dict):
    params = dict(drawn["params"])
    if drawn["fill"] is not None:
        params = {name: drawn["fill"] for name in PARAMETER_NAMES} | params
    headers = {}
    if drawn["htmx"]:
        headers["HX-Request"] = "true"
    if drawn["idempotency_key"] is not None:
        headers["Idempotency-Key"] = drawn["idempotency_key"].replace("\x00", "")
    if method == "get":
        return client.get(path, params, headers=headers)
    if drawn["encoding"] == "multipart":
        return client.post(path, params, headers=headers)
    if drawn["encoding"] == "urlencoded":
        body = urlencode(as_pairs(params))
        return client.post(path, body, "application/x-www-form-urlencoded", headers=headers)
    return client.post(path, json.dumps(params), "application/json", headers=headers)


def sharp_examples(test):
    for number, value in enumerate(SHARP):
        drawn = {
            "params": {},
            "fill": value,
            "encoding": "multipart" if number % 2 else "urlencoded",
            "htmx": bool(number % 2),
            "odd_ids": False,
            "language": "sv",
            "idempotency_key": None,
        }
        test = example(drawn=drawn)(test)
    return test


@pytest.mark.parametrize(("name", "route"), ROUTES, ids=[name for name, _ in ROUTES])
def test_no_input_answers_500(world, name, route, monkeypatch):
    sessions = {}
    for role, user in world["users"].items():
        client = Client()  # raises what a view raises: a failure shows its traceback
        if user is not None:
            client.force_login(user)
        sessions[role] = client.cookies.get(django_settings.SESSION_COOKIE_NAME)

    @hypothesis_settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        # The seeded world is meant to be shared by the examples: each runs in a
        # savepoint that is rolled back, so none sees another's changes.
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(drawn=inputs(world["values"]))
    @sharp_examples
    def check(drawn):
        path = fill(route, world["ids"], drawn["odd_ids"])
        cache.clear()
        monkeypatch.setattr(throttle, "_cache_down_until", 0.0)
        for role, session in sessions.items():
            for method in ("get", "post"):
                with transaction.atomic():
                    client = Client()
                    if session is not None:
                        client.cookies[django_settings.SESSION_COOKIE_NAME] = session.value
                    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = drawn["language"]
                    response = send(client, method, path, drawn)
                    transaction.set_rollback(True)
                assert response.status_code < 500, (role, method, path, drawn)

    check()
