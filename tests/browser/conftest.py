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


@pytest.fixture(scope="session")
def browser(browser):
    """The session's browser, whose new contexts block service workers unless a test asks
    for them (`service_workers="allow"`, the offline sheet's test): Playwright's
    `page.route` does not see a request that passes through a service worker, and the
    site's worker (issue 47) controls the characters' pages, so a held or lost request on
    a sheet went out unseen once the worker had claimed the page."""
    new_context = browser.new_context

    def without_service_workers(**options):
        options.setdefault("service_workers", "block")
        return new_context(**options)

    browser.new_context = without_service_workers
    return browser


@pytest.fixture(autouse=True)
def close_what_the_test_opened(browser):
    """Every browser context a test opens is closed after it. A page left open keeps its
    live stream and its scripts running for the rest of the session: three fights' pages
    of one test, nine of one module, each a stream on the one server process, slowed the
    tests after them until a table screen's stream took over 5 s to open under load."""
    before = set(browser.contexts)
    yield
    for context in browser.contexts:
        if context not in before:
            context.close()


@pytest.fixture
def shot(request):
    """shot(page, "name") saves a full-page screenshot under test-artifacts/screenshots."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name):
        path = SCREENSHOTS / f"{request.node.name}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test says what every page it had open showed at that moment: the
    address, the alerts and errors on the page, the last lines of the log, and a
    screenshot (FAILED-…png beside the others). A failure on CI is then read from its
    output, not guessed at."""
    report = yield
    if report.when != "call" or not report.failed:
        return report
    browser = item.funcargs.get("browser")
    if browser is None:
        return report
    lines = []
    try:
        pages = [page for context in browser.contexts for page in context.pages]
        for n, page in enumerate(pages):
            if page.is_closed():
                continue
            lines.append(f"page {n}: {page.url}")
            said = page.evaluate(
                """() => {
                  const text = (el) => el.textContent.replace(/\\s+/g, " ").trim().slice(0, 300);
                  const alerts = [...document.querySelectorAll(
                    '[role=alert], .error, .errorlist, [data-testid$="error"]')].map(text);
                  const log = [...document.querySelectorAll("#roll-log li")].slice(0, 8).map(text);
                  const live = document.getElementById("live-status")?.dataset.state ?? "";
                  const state = document.getElementById("encounter-state")?.dataset.version ?? "";
                  // What the page fetched and when (ms since it opened): a live stream that
                  // never opened shows whether its scripts came and its request went out.
                  const fetched = performance.getEntriesByType("resource").slice(-12).map(
                    (r) => `${Math.round(r.startTime)}+${Math.round(r.duration)} ms ${r.name}`);
                  return {alerts, log, live, state, fetched, now: Math.round(performance.now())};
                }"""
            )
            live, version = said["live"] or "-", said["state"] or "-"
            lines.append(f"  live stream: {live}; panel version: {version}")
            if live != "live":
                lines.append(f"  open for {said['now']} ms; fetched:")
                lines += [f"    {entry}" for entry in said["fetched"]]
            lines += [f"  alert: {text}" for text in said["alerts"] if text]
            lines += [f"  log: {text}" for text in said["log"]]
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"FAILED-{item.name}-{n}.png"), full_page=True)
    except Exception as error:  # the report stays; what could not be read is said
        lines.append(f"(the pages could not be read: {error})")
    if lines:
        report.sections.append(("open pages at the failure", "\n".join(lines)))
    return report
