"""The one base error of the rules core (re-exported as ``rules.RulesError``)."""


class RulesError(ValueError):
    """Base error for every rule input error (bad hands, levels, keys, budgets).

    The message is English (the JSON API shows it as is). ``code`` and ``params`` let a
    user interface say the same in its own language without parsing the message; with a
    ``template`` (the message before its params, marked with ``gettext_noop``)
    :meth:`translated` does it."""

    def __init__(self, message: str, *, code: str = "invalid", template: str = "", **params):
        super().__init__(message)
        self.code = code
        self.template = template  # the message before its params, marked for translation
        self.params = params

    def translated(self, gettext) -> str:
        """The message in the user's language: `template` translated by `gettext`, then
        filled with the params; the English message when there is no template or the
        translation does not fit its params."""
        if not self.template:
            return str(self)
        try:
            return gettext(self.template).format(**self.params)
        except (KeyError, IndexError, ValueError, AttributeError):
            return str(self)


def gettext_noop(message: str) -> str:
    """Marks a message of the rules core for translation (makemessages finds it); the rules
    core stays free of Django, the apps translate (RulesError.translated)."""
    return message
