"""The site's data files are its owner's alone (issue 42).

The SQLite database holds sessions and password hashes; its WAL and SHM hold the newest
of them; `imports/` holds uploaded archives and `backups/` whole copies. With a common
umask (0022) they were readable by every account on the machine, and a readable session
is a taken-over login. So, before anything is opened:

- the process's umask is 0077: every file it makes (the database, its WAL and SHM, which
  SQLite creates with the database's own mode, uploads, imports, backups, the secret
  key, logs) is 0600 and every folder 0700, whatever the umask it was started with;
- what an older version or a wider umask left in `DATA_DIR` (and the SQLite file, where
  `SQLITE_PATH` puts it elsewhere) is narrowed to the same modes.

Nothing here imports Django: the settings call it first thing.
"""

import contextlib
import os
import stat
from pathlib import Path

UMASK = 0o077
FILE_MODE = 0o600
FOLDER_MODE = 0o700


def narrow(path: Path) -> None:
    """`path` (a file or a folder, if it exists) readable by its owner alone."""
    try:
        found = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(found.st_mode):
        return  # a link's target is whoever made it's to guard
    wanted = FOLDER_MODE if stat.S_ISDIR(found.st_mode) else FILE_MODE
    if stat.S_IMODE(found.st_mode) & ~wanted:
        # Another account's file in our folder is not ours to change.
        with contextlib.suppress(PermissionError):
            path.chmod(stat.S_IMODE(found.st_mode) & wanted)


def make_private(data_dir: Path, *also: Path) -> None:
    """Set the umask and narrow `data_dir`, everything in it, and each of `also` (with
    its SQLite companions `-wal`, `-shm`, `-journal`)."""
    os.umask(UMASK)
    data_dir.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    narrow(data_dir)
    for root, folders, files in os.walk(data_dir):
        for name in (*folders, *files):
            narrow(Path(root) / name)
    for path in also:
        for companion in ("", "-wal", "-shm", "-journal"):
            narrow(Path(f"{path}{companion}"))
