"""Where the table's server can be reached from other devices on the LAN."""

import shutil
import socket
import subprocess


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


def shareable_url(request, path: str) -> str:
    """An absolute URL for `path` that a phone on the LAN can open.

    When the GM browses the server itself as localhost, a link or QR code with
    "localhost" would lead every phone to itself: use the LAN address instead.
    """
    host = request.get_host()
    name, _, port = host.rpartition(":") if host.count(":") == 1 else (host, "", "")
    if name in LOCAL_HOSTS:
        addresses = lan_addresses()
        if addresses:
            host = f"{addresses[0]}:{port}" if port else addresses[0]
    return f"{request.scheme}://{host}{path}"
