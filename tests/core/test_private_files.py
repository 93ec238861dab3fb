"""The site's files are its owner's alone, whatever the umask (issue 42, core.private).

A server started under umask 0022 (the common default) wrote the SQLite database, its WAL
and SHM, and uploaded archives readable by every account on the machine: the sessions
and password hashes with them. Here a real process is started the way `make serve`
starts one, under umask 0022, on a DATA_DIR where an older version left world-readable
files, and it makes the database (in WAL mode, with a write open), an upload in
`imports/`, a backup folder and the secret key: every file is 0600, every folder 0700.
"""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from core.private import make_private

ROOT = Path(__file__).resolve().parents[2]

# Run in the server's own settings, with a write held open so the WAL and SHM exist.
SCRIPT = """
import json, os, stat, sys
from pathlib import Path
import django
django.setup()
from django.conf import settings
from django.db import connection
from archive import jobs
with connection.cursor() as c:
    c.execute("PRAGMA journal_mode")
    mode = c.fetchone()[0]
    c.execute("CREATE TABLE IF NOT EXISTS probe (x)")
    c.execute("INSERT INTO probe VALUES (1)")
    with open(jobs.upload_path(1), "wb") as f:
        f.write(b"PK")
    data = Path(settings.DATA_DIR)
    found = {str(p.relative_to(data)): stat.S_IMODE(p.stat().st_mode)
             for p in [data, *data.rglob("*")]}
    print(json.dumps({"journal": mode, "modes": found}))
"""


def test_a_server_under_umask_0022_writes_only_owner_readable_files(tmp_path):
    data = tmp_path / "var"
    (data / "imports").mkdir(parents=True)
    data.chmod(0o755)
    (data / "imports").chmod(0o755)
    left = data / "imports" / "7.zip"  # an older version's upload, world-readable
    left.write_bytes(b"PK")
    left.chmod(0o644)
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "SQLITE_PATH", "SECRET_KEY")}
    env.update(DATA_DIR=str(data), DJANGO_SETTINGS_MODULE="aoristos_site.settings")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, preexec_fn=lambda: os.umask(0o022),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["journal"] == "wal"
    modes = seen["modes"]
    for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm", "secret_key",
                 "imports/1.zip", "imports/7.zip"):
        assert modes.get(name) == 0o600, (name, oct(modes.get(name, 0)), modes)
    for name in (".", "imports"):
        assert modes.get(name) == 0o700, (name, oct(modes.get(name, 0)))
    wider = {name: oct(mode) for name, mode in modes.items() if mode & 0o077}
    assert wider == {}


def test_make_private_narrows_what_is_there_and_leaves_links(tmp_path):
    data = tmp_path / "var"
    (data / "backups").mkdir(parents=True)
    old = data / "backups" / "old.sqlite3"
    old.write_bytes(b"x")
    old.chmod(0o664)
    outside = tmp_path / "elsewhere.sqlite3"
    outside.write_bytes(b"x")
    outside.chmod(0o644)
    Path(f"{outside}-wal").write_bytes(b"x")
    Path(f"{outside}-wal").chmod(0o644)
    target = tmp_path / "shared.txt"
    target.write_text("not ours")
    target.chmod(0o644)
    (data / "link").symlink_to(target)
    before = os.umask(0o022)
    try:
        make_private(data, outside)
        assert os.umask(0o022) == 0o077
    finally:
        os.umask(before)
    assert stat.S_IMODE(old.stat().st_mode) == 0o600
    assert stat.S_IMODE((data / "backups").stat().st_mode) == 0o700
    assert stat.S_IMODE(outside.stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(f"{outside}-wal").stat().st_mode) == 0o600
    assert stat.S_IMODE(target.stat().st_mode) == 0o644  # a link is followed by nobody
