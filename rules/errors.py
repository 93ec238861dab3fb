"""The one base error of the rules core (re-exported as ``rules.RulesError``)."""


class RulesError(ValueError):
    """Base error for every rule input error (bad hands, levels, keys, budgets).

    The message is English (the JSON API shows it as is). ``code`` and ``params`` let a
    user interface say the same in its own language without parsing the message; with a
    ``template`` (the message before its params, marked with ``gettext_noop``) it can
    translate the template and fill it."""

    def __init__(self, message: str, *, code: str = "invalid", template: str = "", **params):
        super().__init__(message)
        self.code = code
        self.template = template  # the message before its params, marked for translation
        self.params = params


def gettext_noop(message: str) -> str:
    """Marks a message of the rules core for translation (makemessages finds it); the rules
    core stays free of Django, the apps translate (RulesError.translated)."""
    return message
