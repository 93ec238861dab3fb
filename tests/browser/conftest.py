"""Browser tests: Playwright drives Debian's Chromium against a live server.

Run them in their own pytest process (`pytest -m browser`): Playwright leaves an asyncio
loop in the main thread. In CI (CI=true) a missing browser fails the run; elsewhere the
tests skip with the command that installs it.
"""

import os
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        message = f"no Chromium at {CHROMIUM}: apt-get install -y chromium (or set CHROMIUM=...)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    }


@pytest.fixture
def shot(request):
    """shot(page, "name") saves a full-page screenshot under test-artifacts/screenshots."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name):
        path = SCREENSHOTS / f"{request.node.name}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
