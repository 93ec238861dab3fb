"""Expected 4xx answers are logged in one line, without a traceback (core/logging.py)."""

import logging
import sys

import pytest
from django.test import Client
from django.urls import reverse

from core.logging import DropClientErrorTracebacks


def console_handler() -> logging.Handler:
    """The handler settings.LOGGING puts on the root logger."""
    handlers = [h for h in logging.getLogger().handlers if type(h) is logging.StreamHandler]
    assert handlers, logging.getLogger().handlers
    return handlers[0]


def printed(record: logging.LogRecord) -> str:
    """What the configured console handler writes for a record ("" if it drops it)."""
    handler = console_handler()
    return handler.format(record) if handler.filter(record) else ""


def django_records(caplog, prefix):
    return [r for r in caplog.records if r.name.startswith(prefix)]


def test_the_console_handler_has_the_filter():
    assert any(isinstance(f, DropClientErrorTracebacks) for f in console_handler().filters)


@pytest.mark.django_db
def test_a_403_is_one_line_without_a_traceback(caplog, campaign, alice):
    client = Client()
    client.force_login(alice)
    with caplog.at_level(logging.WARNING):
        response = client.get(reverse("campaigns:edit", args=[campaign.pk]))
    assert response.status_code == 403
    [record] = django_records(caplog, "django.request")
    # Django logs it with exc_info; the console handler's filter took it off the record.
    assert record.exc_info is None
    line = printed(record)
    assert line == f"Forbidden (Permission denied): /campaigns/{campaign.pk}/edit/"
    assert "Traceback" not in line


@pytest.mark.django_db
def test_a_400_is_one_line_without_a_traceback(caplog, campaign, alice):
    client = Client()
    client.force_login(alice)
    with caplog.at_level(logging.WARNING):
        response = client.get(reverse("table:history", args=[campaign.pk]), {"before": "²"})
    assert response.status_code == 400
    [record] = django_records(caplog, "django.request")
    line = printed(record)
    assert "\n" not in line
    assert "Traceback" not in line
    assert f"/campaigns/{campaign.pk}/table/history/" in line


def test_a_suspicious_host_is_one_line_without_a_traceback(caplog, settings):
    settings.ALLOWED_HOSTS = ["table.example"]
    with caplog.at_level(logging.WARNING):
        response = Client(raise_request_exception=False).get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    [record] = django_records(caplog, "django.security")
    assert record.name == "django.security.DisallowedHost"
    line = printed(record)
    assert "Invalid HTTP_HOST header" in line
    assert "Traceback" not in line
    assert "\n" not in line


def test_a_500_keeps_its_traceback():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.LogRecord(
            "django.request",
            logging.ERROR,
            __file__,
            1,
            "Internal Server Error: /",
            (),
            sys.exc_info(),
        )
    record.status_code = 500
    assert "Traceback" in printed(record)


def test_other_loggers_keep_their_tracebacks():
    try:
        raise ValueError("x")
    except ValueError:
        record = logging.LogRecord(
            "table.stream", logging.WARNING, __file__, 1, "m", (), sys.exc_info()
        )
    record.status_code = 404
    assert "Traceback" in printed(record)


@pytest.mark.parametrize(
    ("name", "status"),
    [("django.request", 403), ("django.request", 404), ("django.security.csrf", 403)],
)
def test_the_filter_takes_the_traceback_off_4xx_records(name, status):
    try:
        raise PermissionError("no")
    except PermissionError:
        record = logging.LogRecord(
            name, logging.WARNING, __file__, 1, "Forbidden", (), sys.exc_info()
        )
    record.status_code = status
    assert printed(record) == "Forbidden"
