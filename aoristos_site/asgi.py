"""The one process that serves a table: pages through WSGI, live streams through ASGI.

granian serves this module with `--interface asginl` (see `core/management/commands/serve.py`).
Ordinary pages are sync Django views; under Django's ASGI handler every sync middleware
costs a thread hop, which measured several times slower than WSGI on these machines
(`make bench` measures it again). So the router hands page requests to Django's WSGI
handler in a thread pool (one hop per request) and keeps the event loop for what needs
it: long-lived streams under STREAM_PREFIX (the live table), and WebSockets.
"""

import os

from a2wsgi import WSGIMiddleware
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aoristos_site.settings")

django_asgi = get_asgi_application()  # async views: streams; also what `make bench` compares

from django.core.wsgi import get_wsgi_application  # noqa: E402  (after settings are set up)

STREAM_PREFIX = "/live/"
PAGE_THREADS = int(os.environ.get("PAGE_THREADS", "16"))

django_wsgi = WSGIMiddleware(get_wsgi_application(), workers=PAGE_THREADS)


async def application(scope, receive, send):
    if scope["type"] == "http" and not scope["path"].startswith(STREAM_PREFIX):

        async def receive_coroutine():
            # a2wsgi hands receive() to run_coroutine_threadsafe, which needs a real
            # coroutine; granian's receive returns another awaitable (bodies failed).
            return await receive()

        await django_wsgi(scope, receive_coroutine, send)
    else:
        await django_asgi(scope, receive, send)
