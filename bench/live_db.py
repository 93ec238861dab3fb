"""The Django side of `bench/live.py`: seed the benchmark's database, then check it.

Run by bench/live.py with the benchmark server's environment (DATA_DIR, SQLITE_PATH, ...)
and the site's directory as the working directory:

    python bench/live_db.py seed '{"players": 1000, "rate_clients": 16, "writers": 50}'
    python bench/live_db.py check '{"campaign": 123}'

Each prints one JSON object on stdout. Seeding is fast: one password hash for every user,
bulk inserts, one transaction. Three campaigns keep the measurements apart: "fanout" (a
GM and the players whose pages hold streams), "rate" (the 16 clients of the roll-rate
run) and "writers" (players with a character each, awarded UP to spend).
"""

import json
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, os.getcwd())  # the site being measured (bench/live.py sets cwd)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aoristos_site.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import (  # noqa: E402
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
)
from django.contrib.auth.hashers import make_password  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.db import transaction  # noqa: E402

from campaigns.models import Campaign, Membership  # noqa: E402
from campaigns.services import campaign_create  # noqa: E402
from characters import services as advancement  # noqa: E402
from characters.models import Character, DpEntry, default_skills  # noqa: E402
from table.models import MembershipEvent, NoticeEvent, RollEvent  # noqa: E402

# Albert of the tests (tests/conftest.py); a skill at 2 so that each raise costs UP.
ATTRIBUTES = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}
SPEND_KEY = "mechanics"
AWARD = 200
User = get_user_model()


def session_for(user) -> str:
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def users(prefix: str, count: int, password: str) -> list:
    User.objects.bulk_create(
        User(username=f"{prefix}{i:04d}", password=password) for i in range(count)
    )
    return list(User.objects.filter(username__startswith=prefix).order_by("username"))


def campaign_with(gm, players: list, name: str) -> Campaign:
    # A random, large id: Redis channels are shared by every process on the Redis server
    # (the test suite's too), so the benchmark's campaigns should not meet theirs.
    campaign = campaign_create(gm=gm, name=name, pk=random.randrange(10**8, 10**9))
    Membership.objects.bulk_create(
        Membership(campaign=campaign, user=user, role=Membership.Role.PLAYER, seat=seat)
        for seat, user in enumerate(players, start=1)
    )
    return campaign


@transaction.atomic
def seed(players: int, rate_clients: int, writers: int) -> dict:
    password = make_password("bench-password")
    tag = f"b{random.randrange(10**6):06d}-"
    gm = users(f"{tag}gm", 1, password)[0]

    fanout_players = users(f"{tag}p", players, password)
    fanout = campaign_with(gm, fanout_players, "Bench: fan-out")

    rate_players = users(f"{tag}r", rate_clients, password)
    rate = campaign_with(gm, rate_players, "Bench: roll rate")

    writer_users = users(f"{tag}w", writers, password)
    written = campaign_with(gm, writer_users, "Bench: writers")
    characters = Character.objects.bulk_create(
        Character(
            owner=user,
            campaign=written,
            name=f"Writer {i}",
            attributes=ATTRIBUTES,
            skills=default_skills() | {SPEND_KEY: 2},
        )
        for i, user in enumerate(writer_users)
    )
    for character in characters:
        advancement.dp_award(character=character, amount=AWARD, reason="Bench", by=gm)

    return {
        "fanout": {
            "campaign": fanout.pk,
            "gm": session_for(gm),
            "players": [session_for(user) for user in fanout_players],
        },
        "rate": {"campaign": rate.pk, "players": [session_for(user) for user in rate_players]},
        "writers": {
            "campaign": written.pk,
            "spend_key": SPEND_KEY,
            "writers": [
                {"session": session_for(user), "user": user.username, "character": character.pk}
                for user, character in zip(writer_users, characters, strict=True)
            ],
        },
    }


def check(campaign_id: int) -> dict:
    """What the writers left in the database: rolls per actor, whether the campaign's
    sequence numbers are 1..n with no gap or repeat, and each character's ledger."""
    campaign = Campaign.objects.get(pk=campaign_id)
    rolls = RollEvent.objects.filter(campaign=campaign)
    # The campaign's sequence numbers every event of its table: rolls, and the notices of
    # the awards the seeding made (and any membership change).
    seqs = sorted(
        [
            *rolls.values_list("seq", flat=True),
            *NoticeEvent.objects.filter(campaign=campaign).values_list("seq", flat=True),
            *MembershipEvent.objects.filter(campaign=campaign).values_list("seq", flat=True),
        ]
    )
    per_actor: dict[str, int] = {}
    for username in rolls.values_list("actor__username", flat=True):
        per_actor[username] = per_actor.get(username, 0) + 1
    ledgers = {}
    for character in Character.objects.filter(campaign=campaign).select_related("owner"):
        entries = list(DpEntry.objects.filter(character=character).order_by("pk"))
        problems = []
        for before, after in zip(entries, entries[1:], strict=False):
            if after.dp_before != before.dp_after:
                problems.append(
                    f"entry {after.pk}: dp_before {after.dp_before} != {before.dp_after}"
                )
        for entry in entries:
            if entry.dp_after != entry.dp_before + entry.amount:
                problems.append(f"entry {entry.pk}: dp_after != dp_before + amount")
        undone = [e.undoes_id for e in entries if e.undoes_id]
        if len(undone) != len(set(undone)):
            problems.append("a spend undone twice")
        spends = [e for e in entries if e.kind == DpEntry.Kind.SPEND]
        undos = [e for e in entries if e.kind == DpEntry.Kind.UNDO]
        level = character.levels()[SPEND_KEY]
        if level != 2 + len(spends) - len(undos):
            problems.append(f"{SPEND_KEY} at {level}, ledger says {2 + len(spends) - len(undos)}")
        saved = character.saved_dp()
        if entries and saved != entries[-1].dp_after:
            problems.append(f"saved UP {saved} != last dp_after {entries[-1].dp_after}")
        ledgers[character.owner.username] = {
            "spends": len(spends),
            "undos": len(undos),
            "problems": problems,
        }
    return {
        "event_seq": campaign.event_seq,
        "rolls": rolls.count(),
        "events": len(seqs),
        "seqs_contiguous": seqs == list(range(1, len(seqs) + 1)),
        "event_seq_matches": campaign.event_seq == len(seqs),
        "rolls_per_actor": per_actor,
        "ledgers": ledgers,
    }


if __name__ == "__main__":
    command, arguments = sys.argv[1], json.loads(sys.argv[2])
    if command == "seed":
        result = seed(arguments["players"], arguments["rate_clients"], arguments["writers"])
    elif command == "check":
        result = check(arguments["campaign"])
    else:
        raise SystemExit(f"unknown command {command!r}")
    out = Path(arguments["out"]) if "out" in arguments else None
    text = json.dumps(result)
    if out:
        out.write_text(text)
    else:
        print(text)
