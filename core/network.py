"""Where the table's server can be reached from other devices on the LAN."""

import shutil
import socket
import subprocess

from django.conf import settings


def lan_addresses() -> list[str]:
    """IPv4 addresses other devices on the LAN can reach, found without sending a packet."""
    found: list[str] = []
    if shutil.which("ip"):
        out = subprocess.run(
            ["ip", "-o", "-4", "addr", "show", "up"], capture_output=True, text=True, check=False
        ).stdout
        found = [line.split()[3].split("/")[0] for line in out.splitlines() if " inet " in line]
    else:
        try:
            found = socket.gethostbyname_ex(socket.gethostname())[2]
        except OSError:
            found = []
    return [addr for addr in dict.fromkeys(found) if not addr.startswith("127.")]


LOCAL_HOSTS = {"localhost", "127.0.0.1", "[::1]", "::1"}
ANY_HOSTS = {"", "0.0.0.0", "::", "[::]"}


def loopback(host: str) -> bool:
    """Whether a listening address is this computer's alone (127.x.y.z, ::1, localhost)."""
    host = host.strip().strip("[]").lower()
    return host in {"localhost", "::1"} or host.startswith("127.")


def share_host(host: str, listen_host: str = "", addresses=None) -> tuple[str, bool]:
    """The host (with port) a link for other devices names, and whether phones on the LAN
    can reach it (issue 26.9).

    `host` is the request's Host; `listen_host` where the server listens (`make serve`'s
    HOST, settings.LISTEN_HOST; empty: not known, as all interfaces). A request that did
    not come as localhost keeps its host: others reach the server the same way (a public
    name behind a proxy too). When the GM browses as localhost, "localhost" would lead
    every phone to itself: the link names the address the server listens on, a LAN
    address when it listens on all of them; a server on loopback alone is this
    computer's, and phones cannot reach it whatever the link says. `addresses`: what
    finds the LAN addresses (lan_addresses).
    """
    if host.startswith("["):  # [::1]:8000
        name, _, rest = host.partition("]")
        name, port = name + "]", rest.removeprefix(":")
    else:
        name, _, port = host.rpartition(":") if host.count(":") == 1 else (host, "", "")
    if name.lower() not in LOCAL_HOSTS:
        return host, True

    def with_port(address: str) -> str:
        address = f"[{address}]" if ":" in address and not address.startswith("[") else address
        return f"{address}:{port}" if port else address

    listen = listen_host.strip()
    if loopback(listen):
        return with_port(listen), False
    if listen not in ANY_HOSTS:  # one address of this computer's
        return with_port(listen), True
    found = (addresses or lan_addresses)()
    if found:
        return with_port(found[0]), True
    return host, True  # no LAN address found: nothing better to name, nothing known


def shareable_url(request, path: str) -> tuple[str, bool]:
    """An absolute URL for `path` that a phone on the LAN can open, and whether one can
    (share_host: False when the server listens on this computer alone)."""
    host, reachable = share_host(request.get_host(), settings.LISTEN_HOST)
    return f"{request.scheme}://{host}{path}", reachable
