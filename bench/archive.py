"""Campaign archive benchmark (issue 30): `make bench` (or `python bench/archive.py
[--quick]`).

What a GM waits for: the download of a campaign's archive and its import as a new
campaign, for a campaign of ROLLS rolls, NOTICES notices and JOURNAL journal posts
(--quick: a tenth), on a scratch SQLite database (or DATABASE_URL's, in a database of
its own). Baseline in the same run: reading the same rows with the ORM (what any page of
the table's history does, per row). Medians of 3 runs, wall time.

Prints a markdown table with the other benches' columns.
"""

import atexit
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUICK = "--quick" in sys.argv or os.environ.get("BENCH_QUICK") == "1"
ROLLS = 3_000 if QUICK else 30_000
NOTICES = 300 if QUICK else 3_000
JOURNAL = 20 if QUICK else 200
RUNS = 3


def setup() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="aoristos-bench-archive-"))
    os.environ.setdefault("DATA_DIR", str(scratch))
    if not os.environ.get("DATABASE_URL"):
        os.environ["SQLITE_PATH"] = str(scratch / "bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aoristos_site.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    if connection.vendor == "postgresql":  # a database of its own, dropped at the end
        connection.settings_dict["TEST"]["NAME"] = "aoristos_bench_archive"
        made = setup_databases(verbosity=0, interactive=False)
        atexit.register(teardown_databases, made, verbosity=0)
    else:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)


def campaign_of(size: int):
    from django.contrib.auth import get_user_model

    from campaigns.models import Campaign, JournalEntry, Membership
    from campaigns.services import campaign_create
    from characters.models import Character
    from table.models import NoticeEvent, RollEvent

    User = get_user_model()
    gm = User.objects.create_user(username=f"sl{size}")
    players = [User.objects.create_user(username=f"spelare{size}-{n}") for n in range(4)]
    campaign = campaign_create(gm=gm, name="Bänken")
    for seat, player in enumerate(players, 1):
        Membership.objects.create(campaign=campaign, user=player, seat=seat)
        Character.objects.create(owner=player, campaign=campaign, name=f"RP {seat}")
    RollEvent.objects.bulk_create(
        RollEvent(campaign=campaign, seq=seq, actor=players[seq % 4], kind="hand", hand="3B",
                  dice=[2, 5, 6], counted=[2, 5, 6], result=13, secret=seq % 9 == 0,
                  label="SIN + Vildmark")
        for seq in range(1, ROLLS + 1))
    NoticeEvent.objects.bulk_create(
        NoticeEvent(campaign=campaign, seq=ROLLS + n, kind="award", actor=gm.username,
                    data={"amount": 2, "reason": "Sessionen", "characters": ["RP 1"]})
        for n in range(1, NOTICES + 1))
    JournalEntry.objects.bulk_create(
        JournalEntry(campaign=campaign, author=gm, title=f"Session {n}", body="Vi flydde. " * 40)
        for n in range(JOURNAL))
    Campaign.objects.filter(pk=campaign.pk).update(event_seq=ROLLS + NOTICES)
    campaign.refresh_from_db()
    return campaign, gm


def main() -> None:
    setup()
    from django.contrib.auth import get_user_model

    from archive import format as fmt
    from archive.export import campaign_archive
    from archive.importer import Importer
    from table.models import NoticeEvent, RollEvent

    campaign, gm = campaign_of(ROLLS)
    membership = campaign.memberships.select_related("user").get(user=gm)
    rows = ROLLS + NOTICES + JOURNAL
    path = Path(os.environ["DATA_DIR"]) / "bench.zip"
    exports, imports, reads = [], [], []
    for run in range(RUNS):
        started = time.perf_counter()
        with path.open("wb") as f:
            for chunk in campaign_archive(campaign, membership):
                f.write(chunk)
        exports.append(time.perf_counter() - started)
        importer_user = get_user_model().objects.create_user(username=f"import{run}")
        started = time.perf_counter()
        with fmt.Archive(path) as archive:
            made = Importer(archive, importer_user).run()
        imports.append(time.perf_counter() - started)
        assert RollEvent.objects.filter(campaign=made).count() == ROLLS
        started = time.perf_counter()
        read = sum(1 for _ in RollEvent.objects.filter(campaign=campaign).iterator(500))
        read += sum(1 for _ in NoticeEvent.objects.filter(campaign=campaign).iterator(500))
        reads.append(time.perf_counter() - started)
        assert read == ROLLS + NOTICES
    export_s, import_s = statistics.median(exports), statistics.median(imports)
    read_s = statistics.median(reads)
    size = path.stat().st_size
    print(f"bench/archive.py: {rows:,} rows, {RUNS} runs, medians")
    print("| measurement | result | per 1,000 rows | baseline (same run) | ratio | goal | ok? |")
    print("|---|---|---|---|---|---|---|")
    baseline = f"reading the rolls and notices with the ORM: {read_s:.2f} s"
    print(f"| campaign archive: download of {rows:,} rows (zip of {size / 1e6:.1f} MB) | "
          f"{export_s:.2f} s ({rows / export_s:,.0f} rows/s) | {1e6 * export_s / rows:.0f} ms "
          f"| {baseline} | ×{export_s / read_s:.1f} | none (measured) | – |")
    print(f"| campaign archive: import of the same | {import_s:.2f} s "
          f"({rows / import_s:,.0f} rows/s) | {1e6 * import_s / rows:.0f} ms | {baseline} | "
          f"×{import_s / read_s:.1f} | none (measured) | – |")


if __name__ == "__main__":
    main()
