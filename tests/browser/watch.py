"""One watcher of what goes wrong on a page, for every browser test that asks for none.

Console errors, page errors, failed requests and answers of 400 or more are problems. Two
things are not:

- A request the browser cuts off because its page is being left (a link, a reload, a form
  sent, the page closed): Chromium reports it as failed with `net::ERR_ABORTED`, which is
  no fault of the page. The table's live stream and its prompts poll are cut off that way
  on every navigation, and a poll that happens to be under way when the test moves on is
  cut off too. Such a request is told apart by its timing, not by its address: it was
  sent while a navigation of the main frame was under way, or a navigation started after
  it was sent. That is decided when the problems are read, not when the failure is
  reported: on a busy machine Chromium reported the cut-off poll before the navigation
  that cut it off. An abort with no navigation after it (a page that cancels its own
  request) still counts.
- A POST answered 400: a refused save, on purpose. It is counted in `refusals`, and each
  test says how many it expects.
"""

import time

from playwright.sync_api import TimeoutError as PlaywrightTimeout

ABORTED = "net::ERR_ABORTED"


class PageWatch:
    def __init__(self, page):
        self.page = page
        self._problems: list[str] = []
        self._aborted: list[tuple[str, int, bool]] = []  # (line, navigations, leaving) sent
        self.refusals = 0
        self._navigations = 0  # main-frame navigations started so far
        self._leaving = False  # one has started and not yet arrived (or the page closed)
        self._sent: dict = {}  # request -> (navigations, leaving) when it was sent
        page.on("console", self._console)
        page.on("pageerror", lambda error: self._problems.append(f"page error: {error}"))
        page.on("request", self._request)
        page.on("requestfailed", self._failed)
        page.on("requestfinished", self._finished)
        page.on("response", self._response)
        page.on("framenavigated", self._arrived)
        page.on("close", self._closed)

    def _cut_off(self, navigations: int, leaving: bool) -> bool:
        return leaving or self._navigations > navigations

    @property
    def problems(self) -> list[str]:
        return self._problems + [line for line, navigations, leaving in self._aborted
                                 if not self._cut_off(navigations, leaving)]

    @property
    def left(self) -> list[str]:
        """The requests forgiven: cut off by leaving their page."""
        return [line for line, navigations, leaving in self._aborted
                if self._cut_off(navigations, leaving)]

    def _request(self, request):
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self._navigations += 1
            self._leaving = True
        self._sent[request] = (self._navigations, self._leaving)

    def _arrived(self, frame):
        if frame == self.page.main_frame:
            self._leaving = False

    def _closed(self, _page):
        self._navigations += 1
        self._leaving = True

    def _finished(self, request):
        self._sent.pop(request, None)

    def _failed(self, request):
        navigations, leaving = self._sent.pop(request, (self._navigations, self._leaving))
        line = f"failed: {request.url} {request.failure}"
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self._leaving = False  # that navigation will not arrive
            self._problems.append(line)
        elif request.failure == ABORTED:
            self._aborted.append((line, navigations, leaving or self._leaving))
        else:
            self._problems.append(line)

    def quiet(self, *, timeout_s: float = 10.0, streams: str = "/live/"):
        """Waits until no request of the page is on its way (the live stream, which never
        ends, aside)."""
        deadline = time.monotonic() + timeout_s
        while True:
            open_ = [r.url for r in self._sent
                     if streams not in r.url and not r.is_navigation_request()]
            if not open_:
                return
            assert time.monotonic() < deadline, f"still on their way after {timeout_s} s: {open_}"
            self.page.wait_for_timeout(20)

    def _console(self, message):
        # Chromium logs every 4xx answer as "Failed to load resource"; a refused save is
        # answered 400 on purpose (counted in refusals), any other 4xx is caught below.
        if message.type == "error" and "status of 400" not in message.text:
            self._problems.append(f"console: {message.text}")

    def _response(self, response):
        if response.status == 400 and response.request.method == "POST":
            self.refusals += 1
        elif response.status >= 400:
            self._problems.append(f"{response.status}: {response.url}")


def wait_while_it_advances(page, finished, progress: str, *, stall_s: float = 30.0, what="the run"):
    """Waits for the locator `finished` as long as the page's progress keeps moving.

    A long run (a simulation, an import) takes as long as the machine needs: a busy
    laptop may take minutes where CI takes seconds, so no fixed deadline fits it. This
    waits as long as `progress` (a JavaScript expression read from the page, e.g. a
    progress bar's value) changes at least once every `stall_s` seconds, and fails when
    it stands still that long without `finished` appearing.
    """
    last, since = object(), time.monotonic()
    while True:
        try:
            finished.wait_for(state="visible", timeout=500)
            return
        except PlaywrightTimeout:
            pass
        seen = page.evaluate(f"() => {progress}")
        if seen != last:
            last, since = seen, time.monotonic()
        elif time.monotonic() - since > stall_s:
            raise AssertionError(f"{what} stood still at {seen!r} for {stall_s:.0f} s")
