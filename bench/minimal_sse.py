"""The fan-out baseline of `make bench` (bench/live.py): the least an SSE server does.

Standard-library asyncio, one process, one event loop, no framework:

- GET /events holds a stream: chunked `text/event-stream` that starts with `retry: 1000`;
- POST /roll writes one event (`id: <seq>`, then `data:` lines about as long as a real
  roll's HTML) to every open stream, then answers 200;
- GET /healthz answers "ok".

Per campaign (the tables measurement, bench/tables.py): GET /events?c=N holds a stream of
campaign N only, and POST /roll?c=N writes the event (numbered in campaign N's own
sequence) only to campaign N's streams, answering with the number
(`data-rolled="<seq>"`, as the site's roll answer carries it). Without ?c= the two are as
above: one sequence, every plain stream.

Keep-alive HTTP/1.1. Usage: python bench/minimal_sse.py PORT [EVENT_BYTES]
"""

import asyncio
import resource
import sys

streams: set[asyncio.StreamWriter] = set()
seq = 0
campaign_streams: dict[bytes, set[asyncio.StreamWriter]] = {}
campaign_seq: dict[bytes, int] = {}


def campaign_of(path: bytes) -> bytes | None:
    """The campaign a path's query names (?c=N), else None."""
    _path, _, query = path.partition(b"?")
    for pair in query.split(b"&"):
        name, _, value = pair.partition(b"=")
        if name == b"c" and value:
            return value
    return None


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def event_data(size: int) -> bytes:
    """`data:` lines of HTML, `size` bytes in all (a real roll's event is about 480)."""
    line = b"data: " + b"<span class='die'>6</span>" * 3 + b"\n"
    lines = line * (size // len(line) + 1)
    return lines[: size - 1] + b"\n"


def response(body: bytes, content_type: bytes = b"text/html; charset=utf-8") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s" % (
        content_type,
        len(body),
        body,
    )


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes):
    global seq
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            method, path, _version = lines[0].split(b" ", 2)
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if length:
                await reader.readexactly(length)
            if method == b"GET" and path.startswith(b"/events"):
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                    b"Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + chunk(b"retry: 1000\n\n")
                )
                campaign = campaign_of(path)
                held = streams if campaign is None else campaign_streams.setdefault(campaign, set())
                held.add(writer)
                try:
                    while await reader.read(65536):  # until the page leaves
                        pass
                finally:
                    held.discard(writer)
                return
            if method == b"POST" and path.startswith(b"/roll") and (campaign := campaign_of(path)):
                number = campaign_seq[campaign] = campaign_seq.get(campaign, 0) + 1
                event = chunk(b"id: %d\n%s\n" % (number, data))
                for stream in campaign_streams.get(campaign, ()):
                    stream.write(event)
                writer.write(
                    response(b'<div id="tray-errors" role="alert" data-rolled="%d"></div>' % number)
                )
            elif method == b"POST" and path.startswith(b"/roll"):
                seq += 1
                event = chunk(b"id: %d\n%s\n" % (seq, data))
                for stream in streams:
                    stream.write(event)
                writer.write(response(b'<div id="tray-errors" role="alert"></div>'))
            elif path.startswith(b"/healthz"):
                writer.write(response(b"ok", b"text/plain"))
            else:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def main(port: int, size: int) -> None:
    data = event_data(size)
    server = await asyncio.start_server(
        lambda r, w: handle(r, w, data), "127.0.0.1", port, backlog=4096
    )
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1000))
