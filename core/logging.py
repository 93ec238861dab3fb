"""Logging pieces used by settings.LOGGING."""

import logging

CLIENT_ERROR_LOGGERS = ("django.request", "django.security")


class DropClientErrorTracebacks(logging.Filter):
    """Drop the traceback from Django's records of 4xx answers.

    Django logs PermissionDenied, BadRequest and SuspiciousOperation (django.request,
    django.security.*) with exc_info: a 403 for a player at a GM page would print a whole
    traceback. Those are expected answers to what a client asked, not faults; the record
    keeps its one-line message ("Forbidden (Permission denied): /campaigns/1/edit/").
    5xx records keep their traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        from_django = any(
            record.name == name or record.name.startswith(name + ".")
            for name in CLIENT_ERROR_LOGGERS
        )
        if from_django and isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
            record.stack_info = None
        return True


class DropOutageAnswers(logging.Filter):
    """Drop Django's record of a 503 answered because the database or Redis is away.

    Django logs every 5xx answer ("Service Unavailable: /campaigns/1/table/", at ERROR,
    with the traceback when the error passed through its 500 handler): one record per
    request for as long as the outage lasts. `core.views.unavailable` marks the request
    (`outage_answer`), and `core.outage` logs the outage itself once, when it starts,
    and once when it ends. Any other 503 keeps its line.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        return not (
            getattr(record, "status_code", None) == 503 and getattr(request, "outage_answer", None)
        )
