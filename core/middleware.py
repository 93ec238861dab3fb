from contextlib import ExitStack

from django.conf import settings
from django.db import connections
from django.utils import translation

from core import outage


class LanguageMiddleware:
    """Swedish unless the user picked another language with the switch.

    Unlike Django's LocaleMiddleware this ignores the browser's Accept-Language: the
    table plays in Swedish by default, whatever language a phone is set to.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        available = {code for code, _name in settings.LANGUAGES}
        language = chosen if chosen in available else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        translation.deactivate()
        return response


class OutageMiddleware:
    """503 with Retry-After while the database or Redis is away (core.outage).

    `process_exception` turns a view's error that shows the database or Redis away into
    the 503 (`core.views.unavailable`); any other error goes on to Django's 500. Errors
    raised in another middleware never reach this one as exceptions (Django turns them
    into a response around each middleware), so `core.views.server_error` does the same
    for them.

    Placed outside SessionMiddleware, so that while the database is away the queries of
    the whole request, a session saved on the way out included, are watched: the first
    one that succeeds ends the outage. Outside an outage it costs one attribute check.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if outage.database.active:
            with ExitStack() as watching:
                for connection in connections.all():
                    watching.enter_context(connection.execute_wrapper(answered))
                response = self.get_response(request)
        else:
            response = self.get_response(request)
        if outage.redis.active and not getattr(request, "outage_answer", None):
            outage.probe_redis()
        return response

    def process_exception(self, request, exception):
        away = outage.note(exception)
        if away is None:
            return None
        from core.views import unavailable

        return unavailable(request, away)


def answered(execute, sql, params, many, context):
    """A query wrapper (while the database is away): a query that succeeds ends the
    outage."""
    result = execute(sql, params, many, context)
    outage.database_answered()
    return result
