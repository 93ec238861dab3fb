"""The invitation link names an address phones can open, or says they cannot (issue 26.9):
core.network.share_host chooses the address from the request's Host and where the server
listens (settings.LISTEN_HOST, which `make serve` sets from HOST)."""

from io import StringIO

import pytest
from django.urls import reverse

from core import network
from core.management.commands import serve

LAN = ["192.168.1.23", "10.0.0.7"]


def no_lan():
    return []


@pytest.mark.parametrize(
    ("host", "listen", "addresses", "expected"),
    [
        # Listening on every interface (make serve's default): a phone gets the LAN address.
        ("localhost:8000", "0.0.0.0", LAN, ("192.168.1.23:8000", True)),
        ("127.0.0.1:8000", "", LAN, ("192.168.1.23:8000", True)),
        ("[::1]:8000", "::", LAN, ("192.168.1.23:8000", True)),
        ("localhost", "0.0.0.0", LAN, ("192.168.1.23", True)),
        # HOST=127.0.0.1 make serve: the address it listens on, and phones cannot reach it.
        ("localhost:8000", "127.0.0.1", LAN, ("127.0.0.1:8000", False)),
        ("127.0.0.1:8080", "127.0.0.1", LAN, ("127.0.0.1:8080", False)),
        ("LOCALHOST:8000", "localhost", LAN, ("localhost:8000", False)),
        ("[::1]:8000", "::1", LAN, ("[::1]:8000", False)),
        # One LAN address of the laptop's: that one, not the first the system lists.
        ("localhost:8000", "10.0.0.7", LAN, ("10.0.0.7:8000", True)),
        # Reached by another name: others reach it so too (a proxy's public name as well,
        # though granian listens on 127.0.0.1 behind it).
        ("192.168.1.23:8000", "0.0.0.0", LAN, ("192.168.1.23:8000", True)),
        ("table.example.org", "127.0.0.1", LAN, ("table.example.org", True)),
        # No LAN address found: nothing better to name, and nothing known to warn of.
        ("localhost:8000", "0.0.0.0", [], ("localhost:8000", True)),
    ],
)
def test_the_invitation_names_an_address_the_server_listens_on(host, listen, addresses,
                                                               expected):
    assert network.share_host(host, listen, lambda: addresses) == expected


def test_a_server_on_loopback_never_looks_for_lan_addresses():
    def fail():
        raise AssertionError("a server on 127.0.0.1 has no LAN address to give")

    assert network.share_host("localhost:8000", "127.0.0.1", fail) == ("127.0.0.1:8000", False)


@pytest.mark.django_db
def test_the_campaign_page_says_phones_cannot_reach_a_loopback_server(
    client, gm, campaign, settings, monkeypatch
):
    monkeypatch.setattr(network, "lan_addresses", lambda: ["192.168.1.23"])
    client.force_login(gm)
    client.cookies["django_language"] = "en"
    url = reverse("campaigns:detail", args=[campaign.pk])
    join = reverse("campaigns:join", args=[campaign.invite_token])

    settings.LISTEN_HOST = "127.0.0.1"
    page = client.get(url, HTTP_HOST="localhost:8000").content.decode()
    assert f'value="http://127.0.0.1:8000{join}"' in page
    assert "192.168.1.23" not in page
    assert 'data-testid="invite-local"' in page
    assert "phones cannot open the link or the QR code" in page

    settings.LISTEN_HOST = "0.0.0.0"
    page = client.get(url, HTTP_HOST="localhost:8000").content.decode()
    assert f'value="http://192.168.1.23:8000{join}"' in page
    assert 'data-testid="invite-local"' not in page


@pytest.mark.django_db
def test_the_qr_code_names_the_same_address(client, gm, campaign, settings, monkeypatch):
    from campaigns import views

    monkeypatch.setattr(network, "lan_addresses", lambda: ["192.168.1.23"])
    encoded = []
    make = views.qrcode.make

    def spy(data, **kwargs):
        encoded.append(data)
        return make(data, **kwargs)

    monkeypatch.setattr(views.qrcode, "make", spy)
    client.force_login(gm)
    url = reverse("campaigns:invite_qr", args=[campaign.pk])
    join = reverse("campaigns:join", args=[campaign.invite_token])
    settings.LISTEN_HOST = "127.0.0.1"
    assert client.get(url, HTTP_HOST="localhost:8000").status_code == 200
    settings.LISTEN_HOST = "0.0.0.0"
    assert client.get(url, HTTP_HOST="localhost:8000").status_code == 200
    assert encoded == [f"http://127.0.0.1:8000{join}", f"http://192.168.1.23:8000{join}"]


def test_serve_tells_the_site_where_it_listens(monkeypatch):
    monkeypatch.setenv("LISTEN_HOST", "")  # restored after the test
    monkeypatch.setattr(serve, "call_command", lambda *a, **k: None)
    executed = []
    monkeypatch.setattr(serve.os, "execv", lambda path, argv: executed.append(argv))
    monkeypatch.setattr(serve.os, "chdir", lambda path: None)
    out = StringIO()
    serve.Command(stdout=out).handle(
        host="127.0.0.1", port=8000, workers="", no_demo=True, no_setup=False
    )
    assert executed
    assert "127.0.0.1" in executed[0]
    assert serve.os.environ["LISTEN_HOST"] == "127.0.0.1"  # what granian's process reads
    assert "Listening on 127.0.0.1:8000 only." in out.getvalue()
