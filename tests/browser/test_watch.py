"""The browser tests' watcher (tests/browser/watch.py) can fail: a request a page cancels
itself, a failed load and an error answer are problems; a request cut off because the
page is left (a link followed while a poll is on its way, the page closed) is not.

Pages are served by Playwright's router from a made-up origin, so no server is needed;
a held request is one the router never answers.
"""

import pytest

from tests.browser.watch import PageWatch

pytestmark = pytest.mark.browser

ORIGIN = "http://watch.test"
PAGE = """<!doctype html><title>watched</title><a id="next" href="/next">next</a>
<script>
  window.poll = () => fetch("/slow-poll").catch(() => {});
  window.cancelled = () => {
    const stop = new AbortController();
    const sent = fetch("/cancelled", {signal: stop.signal}).catch(() => {});
    setTimeout(() => stop.abort(), 200);
    return sent;
  };
</script>"""


@pytest.fixture
def watched(browser):
    context = browser.new_context()
    page = context.new_page()
    held = []

    def serve(route):
        path = route.request.url.removeprefix(ORIGIN)
        if path in ("/slow-poll", "/cancelled"):
            held.append(route)  # never answered
        elif path == "/missing":
            route.fulfill(status=404, body="gone")
        else:
            route.fulfill(status=200, content_type="text/html", body=PAGE)

    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/")
    watch = PageWatch(page)
    yield page, watch, held
    context.close()


def wait_for_held(page, held, count):
    for _ in range(250):
        if len(held) >= count:
            return
        page.wait_for_timeout(20)
    raise AssertionError(f"{len(held)} of {count} requests reached the router")


def test_a_poll_cut_off_by_following_a_link_is_no_problem(watched):
    page, watch, held = watched
    page.evaluate("() => { poll(); }")
    wait_for_held(page, held, 1)
    page.click("#next")
    page.wait_for_url(f"{ORIGIN}/next")
    page.evaluate("() => { poll(); }")
    wait_for_held(page, held, 2)
    page.reload()
    watch.quiet()
    assert watch.problems == [], watch.problems
    assert len(watch.left) == 2, watch.left


def test_a_request_the_page_cancels_itself_is_a_problem(watched):
    page, watch, held = watched
    page.evaluate("() => cancelled()")
    wait_for_held(page, held, 1)
    watch.quiet()
    assert watch.problems == [f"failed: {ORIGIN}/cancelled net::ERR_ABORTED"]
    assert watch.left == []


def test_an_error_answer_and_a_script_error_are_problems(watched):
    page, watch, _held = watched
    page.evaluate("() => fetch('/missing')")
    page.evaluate("() => { setTimeout(() => { throw new Error('boom'); }, 0); }")
    watch.quiet()
    for _ in range(250):  # the error event is reported after the task that threw
        if any("boom" in p for p in watch.problems):
            break
        page.wait_for_timeout(20)
    assert f"404: {ORIGIN}/missing" in watch.problems, watch.problems
    assert any("boom" in p for p in watch.problems), watch.problems
