"""HTTPS settings (SECURE_COOKIES=1 passes `check --deploy`), TLS in `make serve`, the
admin site off by default, and the Content Security Policy header and templates."""

import http.client
import json
import os
import re
import secrets
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from core.management.commands import serve
from core.serving import granian_command
from tests.servers import ROOT, free_port

TEMPLATES = ROOT / "templates"


def run_django(code: str, tmp_path: Path, **env) -> subprocess.CompletedProcess:
    """Python code in a fresh process with these settings' environment variables."""
    environ = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DEBUG",
            "SECURE_COOKIES",
            "ADMIN_ENABLED",
            "HSTS_SECONDS",
            "SSL_REDIRECT",
            "PROXY_SSL_HEADER",
            "HSTS_INCLUDE_SUBDOMAINS",
            "HSTS_PRELOAD",
            "DJANGO_ALLOW_ASYNC_UNSAFE",  # the browser tests set it; a deployment never does
        }
    }
    environ |= {
        "DJANGO_SETTINGS_MODULE": "aoristos_site.settings",
        "DATA_DIR": str(tmp_path),
        "SECRET_KEY": secrets.token_urlsafe(64),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True
    )


def deploy_check(tmp_path, **env) -> subprocess.CompletedProcess:
    code = (
        "import sys; sys.argv = ['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'];"
        "from django.core.management import execute_from_command_line;"
        "execute_from_command_line(sys.argv)"
    )
    return run_django(code, tmp_path, **env)


def setting_values(tmp_path, *names, **env) -> dict:
    code = (
        "import django, json; django.setup(); from django.conf import settings;"
        f"print(json.dumps({{n: getattr(settings, n, None) for n in {list(names)!r}}}))"
    )
    result = run_django(code, tmp_path, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# --- HTTPS settings --------------------------------------------------------------------------


def test_deploy_check_is_clean_with_secure_cookies(tmp_path):
    result = deploy_check(tmp_path, SECURE_COOKIES="1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout + result.stderr
    assert "WARNINGS" not in result.stdout + result.stderr


def test_deploy_check_is_clean_with_subdomains_and_preload_asked_for(tmp_path):
    result = deploy_check(
        tmp_path, SECURE_COOKIES="1", HSTS_INCLUDE_SUBDOMAINS="1", HSTS_PRELOAD="1"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(0 silenced)" in result.stdout + result.stderr


def test_deploy_check_warns_on_plain_http(tmp_path):
    """The check can fail: without SECURE_COOKIES the HTTPS warnings are there."""
    result = deploy_check(tmp_path)
    assert result.returncode != 0
    for code in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert code in result.stderr


def test_secure_cookies_turns_on_what_https_needs(tmp_path):
    names = (
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_SSL_REDIRECT",
        "SECURE_PROXY_SSL_HEADER",
        "SECURE_CROSS_ORIGIN_OPENER_POLICY",
    )
    plain = setting_values(tmp_path, *names)
    assert plain["SESSION_COOKIE_SECURE"] is False
    # Browsers ignore COOP on a plain-HTTP LAN address and warn on every page: not sent.
    assert plain["SECURE_CROSS_ORIGIN_OPENER_POLICY"] is None
    assert plain["SECURE_SSL_REDIRECT"] is False
    assert not plain["SECURE_HSTS_SECONDS"]
    assert plain["SECURE_PROXY_SSL_HEADER"] is None

    secure = setting_values(tmp_path, *names, SECURE_COOKIES="1")
    assert secure["SESSION_COOKIE_SECURE"] is secure["CSRF_COOKIE_SECURE"] is True
    assert secure["SECURE_HSTS_SECONDS"] == 86400
    assert secure["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is False
    assert secure["SECURE_SSL_REDIRECT"] is True
    assert secure["SECURE_CROSS_ORIGIN_OPENER_POLICY"] == "same-origin"

    proxied = setting_values(
        tmp_path,
        *names,
        SECURE_COOKIES="1",
        HSTS_SECONDS="31536000",
        SSL_REDIRECT="0",
        PROXY_SSL_HEADER="X-Forwarded-Proto",
    )
    assert proxied["SECURE_HSTS_SECONDS"] == 31536000
    assert proxied["SECURE_SSL_REDIRECT"] is False
    assert proxied["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]


# --- the admin site --------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/admin/", "/admin/login/"])
def test_admin_is_off_by_default(client, path):
    assert client.get(path).status_code == 404


def test_admin_is_on_when_asked_for(tmp_path):
    code = (
        "import django; django.setup(); from django.conf import settings;"
        "from django.urls import resolve, reverse;"
        "print('django.contrib.admin' in settings.INSTALLED_APPS, reverse('admin:index'))"
    )
    assert run_django(code, tmp_path, ADMIN_ENABLED="1").stdout.split() == ["True", "/admin/"]
    off = run_django(code.replace(", reverse('admin:index')", ""), tmp_path)
    assert off.stdout.split() == ["False"]


# --- TLS in make serve -----------------------------------------------------------------------


def test_granian_command_serves_tls_when_given_a_certificate():
    plain = granian_command("0.0.0.0", 8000)
    assert "--ssl-certificate" not in plain
    tls = granian_command("0.0.0.0", 8000, ssl_certfile="/c.pem", ssl_keyfile="/k.pem")
    assert tls[tls.index("--ssl-certificate") + 1] == "/c.pem"
    assert tls[tls.index("--ssl-keyfile") + 1] == "/k.pem"
    assert tls[-1] == plain[-1]  # the application stays last


def test_serve_needs_both_tls_files_or_neither(monkeypatch, tmp_path):
    monkeypatch.delenv("SSL_CERTFILE", raising=False)
    monkeypatch.delenv("SSL_KEYFILE", raising=False)
    assert serve.tls_files() == ("", "")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_text("x")
    key.write_text("x")
    monkeypatch.setenv("SSL_CERTFILE", str(cert))
    with pytest.raises(CommandError, match="both"):
        serve.tls_files()
    monkeypatch.setenv("SSL_KEYFILE", str(tmp_path / "missing.pem"))
    with pytest.raises(CommandError, match="no such file"):
        serve.tls_files()
    monkeypatch.setenv("SSL_KEYFILE", str(key))
    assert serve.tls_files() == (str(cert), str(key))


def test_serve_prints_https_addresses(monkeypatch, tmp_path, settings):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_text("x")
    key.write_text("x")
    monkeypatch.setenv("SSL_CERTFILE", str(cert))
    monkeypatch.setenv("SSL_KEYFILE", str(key))
    monkeypatch.setattr(serve, "call_command", lambda *a, **k: None)
    monkeypatch.setattr(serve, "lan_addresses", lambda: ["192.168.1.23"])
    executed = []
    monkeypatch.setattr(serve.os, "execv", lambda path, argv: executed.append(argv))
    monkeypatch.setattr(serve.os, "chdir", lambda path: None)
    from io import StringIO

    out = StringIO()
    command = serve.Command(stdout=out)
    command.handle(host="0.0.0.0", port=8443, workers="", no_demo=True, no_setup=False)
    text = out.getvalue()
    assert "https://localhost:8443/" in text
    assert "https://192.168.1.23:8443/" in text
    assert "http://" not in text
    assert executed[0][executed[0].index("--ssl-certificate") + 1] == str(cert)


@pytest.fixture
def certificate(tmp_path):
    """A self-signed certificate for 127.0.0.1 and its PKCS#8 key (as mkcert makes)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def plain_http_get(port: int, path: str) -> int:
    plain = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    plain.request("GET", path)
    response = plain.getresponse()
    response.read()
    return response.status


def test_granian_serves_https_with_hsts_and_secure_cookies(tmp_path, certificate):
    cert, key = certificate
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env |= {
        "DATA_DIR": str(tmp_path),
        "STATIC_ROOT": str(tmp_path / "static"),
        "SECRET_KEY": secrets.token_urlsafe(64),
        "SECURE_COOKIES": "1",
    }
    # As `make serve` does: hashed static files for whitenoise.
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    command = granian_command("127.0.0.1", port, ssl_certfile=str(cert), ssl_keyfile=str(key))
    log = tmp_path / "server.log"
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=log.open("a")
    )
    context = ssl.create_default_context(cafile=str(cert))
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=2)
                conn.request("GET", "/accounts/login/")
                response = conn.getresponse()
                break
            except OSError:
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        body = response.read().decode()
        assert response.status == 200, body[:500]
        assert response.getheader("Strict-Transport-Security") == "max-age=86400"
        cookie = response.getheader("Set-Cookie")
        assert "csrftoken=" in cookie
        assert "Secure" in cookie
        assert "default-src 'self'" in response.getheader("Content-Security-Policy")
        # Plain HTTP on the TLS port gets nowhere.
        with pytest.raises((OSError, http.client.HTTPException)):
            plain_http_get(port, "/healthz")
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()


# --- Content Security Policy -----------------------------------------------------------------


@pytest.mark.django_db
def test_pages_carry_the_content_security_policy(client):
    policy = client.get("/accounts/login/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["base-uri"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["form-action"] == "'self'"
    assert "unsafe" not in policy


@pytest.mark.django_db
def test_api_and_errors_carry_it_too(client):
    assert "Content-Security-Policy" in client.get("/api/v1/aoristos/odds?hand=1B")
    assert "Content-Security-Policy" in client.get("/no-such-page/")


INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "an inline <script>"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "an on*= event attribute"),
    (re.compile(r"javascript:", re.I), "a javascript: URL"),
    (re.compile(r"\shx-on", re.I), "hx-on (htmx evaluates it with eval)"),
    (re.compile(r"\sstyle\s*=", re.I), "a style= attribute"),
    (re.compile(r"<style", re.I), "an inline <style>"),
    (re.compile(r"hx-(vals|headers)[^=]*=\s*['\"]\s*js:", re.I), "js: in hx-vals/hx-headers"),
    (re.compile(r"hx-trigger=[\"'][^\"']*\[", re.I), "an hx-trigger filter (eval)"),
]


@pytest.mark.parametrize(
    "template", sorted(TEMPLATES.rglob("*.html")), ids=lambda p: str(p.relative_to(TEMPLATES))
)
def test_no_template_needs_inline_script_or_style(template):
    text = template.read_text()
    found = [what for pattern, what in INLINE if pattern.search(text)]
    assert not found, f"{template.name} has {', '.join(found)}: move it to static/js/site.js"


@pytest.mark.django_db
def test_plain_http_pages_send_no_cross_origin_opener_policy(client):
    assert "Cross-Origin-Opener-Policy" not in client.get("/accounts/login/").headers
