"""The page bridge (aoristos_site/pages.py): the ASGI router hands a page to Django's WSGI
handler in one hop. These check it keeps what WSGI promises: the whole body, the path
and headers as PEP 3333 spells them, every response header, close() in the page thread,
and a clear 413 for a body too large to read."""

import asyncio
import threading

from aoristos_site import pages


def scope(path="/", method="GET", headers=(), query=b""):
    return {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "root_path": "",
        "headers": list(headers),
        "client": ("192.0.2.7", 50123),
        "server": ("127.0.0.1", 8000),
    }


def serve(app, scope_, parts=(b"",), disconnect=False):
    """Run one request through PageApplication(app); the messages it sent."""
    sent = []
    messages = [
        {"type": "http.request", "body": part, "more_body": i < len(parts) - 1}
        for i, part in enumerate(parts)
    ]
    if disconnect:
        messages = [*messages[:1], {"type": "http.disconnect"}]

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    async def run():
        bridge = pages.PageApplication(app, threads=2)
        try:
            await bridge(scope_, receive, send)
        finally:
            bridge.pool.shutdown()

    asyncio.run(run())
    return sent


class Echo:
    """A WSGI app that answers with what it was given, and notes where it ran."""

    def __init__(self):
        self.environ = None
        self.ran_in = None
        self.closed_in = None

    def __call__(self, environ, start_response):
        self.environ = environ
        self.ran_in = threading.current_thread().name
        body = environ["wsgi.input"].read()
        start_response(
            "201 Created",
            [("Content-Type", "text/plain"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")],
        )
        app = self

        class Result(list):
            def close(self):
                app.closed_in = threading.current_thread().name

        return Result([b"got:", body])


def test_the_body_arrives_whole_however_it_was_split():
    echo = Echo()
    headers = [(b"content-type", b"application/x-www-form-urlencoded")]
    sent = serve(echo, scope("/x", "POST", headers), parts=(b"hand=2B", b"2T", b"+1"))
    assert sent[0]["status"] == 201
    assert sent[1]["body"] == b"got:hand=2B2T+1"


def test_every_response_header_is_kept_including_repeated_ones():
    sent = serve(Echo(), scope())
    assert sent[0]["headers"] == [
        (b"content-type", b"text/plain"),
        (b"set-cookie", b"a=1"),
        (b"set-cookie", b"b=2"),
    ]


def test_django_runs_and_closes_in_a_page_thread_not_on_the_event_loop():
    echo = Echo()
    serve(echo, scope())
    assert echo.ran_in.startswith("page")
    assert echo.closed_in == echo.ran_in


def test_the_environ_is_pep_3333():
    echo = Echo()
    headers = [
        (b"content-type", b"text/plain"),
        (b"content-length", b"0"),
        (b"x-thing", b"one"),
        (b"x-thing", b"two"),
        (b"cookie", b"sessionid=abc"),
    ]
    serve(echo, scope("/rollpersoner/Åsa", headers=headers, query=b"before=12&x=%C3%B6"))
    environ = echo.environ
    # PEP 3333: the path's UTF-8 bytes, each as one latin-1 character.
    assert environ["PATH_INFO"] == "/rollpersoner/Åsa".encode().decode("latin-1")
    assert environ["QUERY_STRING"] == "before=12&x=%C3%B6"
    assert environ["REQUEST_METHOD"] == "GET"
    assert environ["CONTENT_TYPE"] == "text/plain"
    assert environ["CONTENT_LENGTH"] == "0"
    assert environ["HTTP_X_THING"] == "one,two"
    assert environ["HTTP_COOKIE"] == "sessionid=abc"
    assert environ["REMOTE_ADDR"] == "192.0.2.7"
    assert (environ["SERVER_NAME"], environ["SERVER_PORT"]) == ("127.0.0.1", "8000")
    assert environ["wsgi.url_scheme"] == "http"


def test_a_declared_body_too_large_is_413_without_reading_it_or_running_django():
    echo = Echo()
    length = str(pages.MAX_BODY_BYTES + 1).encode()
    sent = serve(echo, scope("/x", "POST", [(b"content-length", length)]), parts=(b"x",))
    assert sent[0]["status"] == 413
    assert echo.environ is None


def test_an_undeclared_body_too_large_is_413_once_it_passes_the_limit():
    echo = Echo()
    part = b"x" * (pages.MAX_BODY_BYTES // 4 + 1)
    sent = serve(echo, scope("/x", "POST"), parts=(part,) * 5)
    assert sent[0]["status"] == 413
    assert echo.environ is None


def test_a_malformed_content_length_is_400_not_a_crash():
    echo = Echo()
    sent = serve(echo, scope("/x", "POST", [(b"content-length", b"12abc")]))
    assert sent[0]["status"] == 400
    assert echo.environ is None


def test_a_client_that_leaves_mid_body_gets_nothing_and_runs_nothing():
    echo = Echo()
    sent = serve(echo, scope("/x", "POST"), parts=(b"a", b"b"), disconnect=True)
    assert sent == []
    assert echo.environ is None


def test_django_answers_through_the_bridge(db, client):
    """The real handler: a page, its headers and a 404 for a non-ASCII path."""
    from django.core.handlers.wsgi import WSGIHandler

    sent = serve(WSGIHandler(), scope("/healthz"))
    assert sent[0]["status"] == 200
    assert sent[1]["body"] == b"ok"
    sent = serve(WSGIHandler(), scope("/finns-inte/Åsa"))
    assert sent[0]["status"] == 404
