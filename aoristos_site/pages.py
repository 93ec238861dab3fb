"""Django's pages behind the ASGI router, with one thread hop per request.

Pages are sync Django views served by Django's WSGI handler in a thread pool. A general
ASGI-to-WSGI adapter (a2wsgi, which this replaced) lets the page thread call back into the
event loop to read the body and to send each part of the answer, and waits for the loop
each time: three or four round trips between a page thread and the loop per request.
Each round trip hands the GIL over twice, and under load every hand-over can wait for
Python's switch interval, so a roll's answer queued behind other threads for tens of
milliseconds. Here the loop reads the whole body first, the thread runs Django and
collects the whole answer, and the loop sends it: one hop there and one back.

That fits this site: request bodies are small forms and JSON (Django refuses bodies over
`DATA_UPLOAD_MAX_MEMORY_SIZE` anyway; a body over `MAX_BODY_BYTES` is refused here with
413 before Django sees it) and answers are pages, fragments and small static files. The
live stream, the one answer that never ends, does not come here (`campaign_log.stream`).
"""

import asyncio
import io
import sys
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings

# Twice what Django accepts in a form body, so Django still gives its own clear error
# between the two; past this the body is not even read.
MAX_BODY_BYTES = 2 * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440) + 65_536


def environ_of(scope, body: bytes) -> dict:
    """The WSGI environ (PEP 3333) of an ASGI HTTP request and its whole body."""
    script_name = scope.get("root_path", "").encode("utf-8").decode("latin-1")
    path_info = scope["path"].encode("utf-8", "surrogateescape").decode("latin-1")
    if script_name and path_info.startswith(script_name):
        path_info = path_info[len(script_name) :]
    server = scope.get("server") or ("localhost", 80)
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": script_name,
        "PATH_INFO": path_info,
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 0),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = str(client[0]), str(client[1])
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("latin-1").lower()
        if name == "content-length":
            key = "CONTENT_LENGTH"
        elif name == "content-type":
            key = "CONTENT_TYPE"
        else:
            key = "HTTP_" + name.upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


def run_wsgi(app, environ: dict) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Run a WSGI app to the end in this thread: (status, headers, whole body). Closing the
    result here runs Django's request_finished (and its connection handling) in the
    thread that made the request."""
    started = {}

    def start_response(status, headers, exc_info=None):
        if exc_info and started:
            raise exc_info[1].with_traceback(exc_info[2])
        started["status"], started["headers"] = status, headers
        return chunks.append

    chunks: list[bytes] = []
    result = app(environ, start_response)
    try:
        for chunk in result:
            if chunk:
                chunks.append(chunk)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    status = int(started["status"].split(" ", 1)[0])
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in started["headers"]
    ]
    return status, headers, b"".join(chunks)


class ClientGone(Exception):
    pass


async def read_body(receive, limit: int) -> bytes | None:
    """The whole request body, or None when it is longer than `limit`."""
    parts, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        part = message.get("body", b"")
        size += len(part)
        if size > limit:
            return None
        parts.append(part)
        if not message.get("more_body", False):
            return b"".join(parts)


async def answer(send, status: int, text: bytes) -> None:
    start = {"type": "http.response.start", "status": status}
    await send(start | {"headers": [(b"content-type", b"text/plain; charset=utf-8")]})
    await send({"type": "http.response.body", "body": text})


class PageApplication:
    """An ASGI application serving a WSGI app from a pool of `threads` threads."""

    def __init__(self, app, threads: int):
        self.app = app
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="page")

    async def __call__(self, scope, receive, send) -> None:
        declared = dict(scope.get("headers", ())).get(b"content-length", b"0")
        if not declared.isdigit():
            await answer(send, 400, b"Malformed Content-Length.")
            return
        try:
            too_long = int(declared) > MAX_BODY_BYTES
            body = None if too_long else await read_body(receive, MAX_BODY_BYTES)
        except ClientGone:
            return
        if body is None:
            await answer(send, 413, b"Request body too large.")
            return
        loop = asyncio.get_running_loop()
        status, headers, content = await loop.run_in_executor(
            self.pool, run_wsgi, self.app, environ_of(scope, body)
        )
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})
