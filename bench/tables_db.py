"""The Django side of the tables measurement (bench/tables.py): seed its PostgreSQL database.

Run by bench/tables.py in the site's environment (DATABASE_URL of the measurement's own
database), with the site's directory as the working directory:

    python bench/tables_db.py seed '{"tables": 300, "players": 5, "out": "/tmp/x.json"}'

Writes one JSON object to "out" (or prints it). `seed` makes `tables` campaigns, each
with a GM and `players` players (one user each; a database session for each, made in
bulk as bench/live_db.py's `session_for` makes one) and one started Aoristos encounter
of two NPCs the GM commands (bench/live_db.py's `started_encounter`), so that the GM's
"end activation" can be sent again and again through the JSON API, each against the
version the previous answer showed. Everything in one transaction; users, memberships
and sessions in bulk (300 tables: a few seconds, most of it the encounters' commands).
"""

import datetime
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import live_db  # noqa: E402  (sets Django up for the site in the working directory)
from django.conf import settings  # noqa: E402
from django.contrib.auth import (  # noqa: E402
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
)
from django.contrib.auth.hashers import make_password  # noqa: E402
from django.contrib.sessions.backends.base import VALID_KEY_CHARS  # noqa: E402
from django.contrib.sessions.models import Session  # noqa: E402
from django.db import transaction  # noqa: E402
from django.utils import timezone  # noqa: E402
from django.utils.crypto import get_random_string  # noqa: E402

from campaigns.models import Campaign  # noqa: E402


def sessions_for(users: list) -> list[str]:
    """A logged-in database session per user, inserted in one statement (what
    live_db.session_for makes one at a time)."""
    store = live_db.SessionStore()
    expires = timezone.now() + datetime.timedelta(seconds=settings.SESSION_COOKIE_AGE)
    rows = []
    for user in users:
        data = {
            SESSION_KEY: str(user.pk),
            BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
            HASH_SESSION_KEY: user.get_session_auth_hash(),
        }
        key = get_random_string(32, VALID_KEY_CHARS)
        rows.append(Session(session_key=key, session_data=store.encode(data), expire_date=expires))
    Session.objects.bulk_create(rows, batch_size=1000)
    return [row.session_key for row in rows]


@transaction.atomic
def seed(tables: int, players: int) -> dict:
    password = make_password("bench-password")
    tag = f"t{random.randrange(10**6):06d}-"
    gms = live_db.users(f"{tag}gm", tables, password)
    seated = live_db.users(f"{tag}p", tables * players, password)
    gm_sessions = sessions_for(gms)
    player_sessions = sessions_for(seated)
    out = []
    for i, gm in enumerate(gms):
        campaign = live_db.campaign_with(
            gm, seated[i * players : (i + 1) * players], f"Bench: table {i + 1}"
        )
        encounter = live_db.started_encounter(campaign, f"Bench: table {i + 1}")
        out.append(
            {
                "campaign": campaign.pk,
                "gm": gm_sessions[i],
                "players": player_sessions[i * players : (i + 1) * players],
                "encounter": encounter,
            }
        )
    seqs = dict(
        Campaign.objects.filter(pk__in=[t["campaign"] for t in out]).values_list("pk", "event_seq")
    )
    for table in out:
        table["seq"] = seqs[table["campaign"]]  # the encounter's set-up records are events
    return {"tables": out}


if __name__ == "__main__":
    command_name, arguments = sys.argv[1], json.loads(sys.argv[2])
    if command_name == "seed":
        result = seed(arguments["tables"], arguments.get("players", 5))
    else:
        raise SystemExit(f"unknown command {command_name!r}")
    text = json.dumps(result)
    if "out" in arguments:
        Path(arguments["out"]).write_text(text)
    else:
        print(text)
