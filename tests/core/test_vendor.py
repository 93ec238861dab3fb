"""The front-end libraries served from static/vendor/ are the files of the npm packages
vendor.json names (scripts/vendor.py checked each tarball's integrity when it copied
them): a hand-edited or stale copy fails here."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_vendored_file_is_its_packages():
    lock = json.loads((ROOT / "vendor.json").read_text())
    files = {target: sha for entry in lock.values() for target, sha in entry["sha256"].items()}
    assert "static/vendor/panzoom/panzoom.min.js" in files
    for target, sha in files.items():
        assert hashlib.sha256((ROOT / target).read_bytes()).hexdigest() == sha, target
    check = subprocess.run([sys.executable, "scripts/vendor.py", "--check"], cwd=ROOT,
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout
