"""Front-end libraries from the npm registry, served from our own static files (the table
may have no internet): `make vendor` fetches each package of vendor.json from the
registry, checks the tarball against the registry's integrity hash, and copies the named
files under static/vendor/. The copies are committed, so `make serve` needs no network;
`--check` (run by the test suite) confirms they are still the files of those tarballs,
by the sha256 vendor.json keeps of each."""

import base64
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "vendor.json"


def fetch(package: str, entry: dict) -> dict[str, bytes]:
    with urllib.request.urlopen(entry["tarball"], timeout=60) as answer:  # noqa: S310
        data = answer.read()
    algorithm, _, expected = entry["integrity"].partition("-")
    digest = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
    if digest != expected:
        raise SystemExit(f"{package}: the tarball does not match its integrity hash")
    found = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member, target in entry["files"].items():
            found[target] = tar.extractfile(member).read()
    return found


def main(argv: list[str]) -> int:
    lock = json.loads(LOCK.read_text())
    if "--check" in argv:
        bad = [
            target
            for entry in lock.values()
            for target, sha in entry.get("sha256", {}).items()
            if not (ROOT / target).exists()
            or hashlib.sha256((ROOT / target).read_bytes()).hexdigest() != sha
        ]
        for target in bad:
            print(f"{target}: missing or not the file of its package (run make vendor)")
        return 1 if bad else 0
    for package, entry in lock.items():
        entry["sha256"] = {}
        for target, content in fetch(package, entry).items():
            path = ROOT / target
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            entry["sha256"][target] = hashlib.sha256(content).hexdigest()
            print(f"{package}@{entry['version']}: {target} ({len(content):,} bytes)")
    LOCK.write_text(json.dumps(lock, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
