"""The one process that serves a table: pages through WSGI, live streams on the event loop.

granian serves this module with `--interface asginl` (see `core/serving.py`). Ordinary
pages are sync Django views; under Django's ASGI handler every sync middleware costs a
thread hop, which measured several times slower than WSGI on these machines. So the
router hands page requests to Django's WSGI handler in a thread pool, one hop there and
one back per request (`aoristos_site.pages`), and keeps the event loop for what needs
it: the live table's streams under STREAM_PREFIX, served by `campaign_log.stream`, a plain ASGI
application that holds no thread and no database connection per open page.
"""

import gc
import os
import sys

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aoristos_site.settings")

django_wsgi_app = get_wsgi_application()  # sets Django up

from aoristos_site.pages import PageApplication  # noqa: E402  (after Django is set up)
from campaign_log import stream  # noqa: E402
from combat import simulations  # noqa: E402

# The event loop that relays a roll to every open page waits for the GIL while a page
# thread runs Django; Python hands it over every "switch interval", 5 ms by default, so
# a roll reached the other pages up to 5 ms after it was stored. At 0.5 ms the fan-out
# p99 at 10 pages fell from 11.4 to 7.5 ms (bench/live.py, same run), with the same roll
# rate.
SWITCH_INTERVAL_SECONDS = 0.0005
sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)

STREAM_PREFIX = "/live/"
# Python runs one thread at a time, so page threads beyond a few per core add no
# throughput but wait on each other: every SQLite call hands the GIL over, and a thread
# holding the write lock then waits its turn among all the others. On the 2-core machine,
# 50 writers managed 44 writes/s with 16 threads, 62 with 4, and rolls answered as fast.
PAGE_THREADS = int(os.environ.get("PAGE_THREADS", "").strip() or max(4, 2 * (os.cpu_count() or 1)))

pages = PageApplication(django_wsgi_app, threads=PAGE_THREADS)

# Simulated fights queued by any process of the site are played by whichever is free:
# a process that `serve` started (it names SERVE_WORKERS) looks for them. A process that
# imports this module for its tests does not (its look would reach the test database).
if os.environ.get("SERVE_WORKERS"):
    simulations.listen()

# Everything set up so far (Django, the apps, their templates) lives as long as the
# process: move it out of the garbage collector's way, so a full collection only walks
# what requests made since. Full collections had stalled the whole process, streams
# included, for 40-60 ms at a time under combat traffic (bench/live.py).
gc.collect()
gc.freeze()


async def application(scope, receive, send):
    if scope["type"] == "http":
        if scope["path"].startswith(STREAM_PREFIX):
            await stream.application(scope, receive, send)
            return
        await pages(scope, receive, send)
    elif scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    # WebSockets: none yet (refused by closing).
    elif scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1000})
