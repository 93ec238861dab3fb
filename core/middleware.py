from django.conf import settings
from django.utils import translation


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
