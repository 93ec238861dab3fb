"""The one base error of the rules core (re-exported as ``rules.RulesError``)."""


class RulesError(ValueError):
    """Base error for every rule input error (bad hands, levels, keys, budgets).

    The message is English (the JSON API shows it as is). ``code`` and ``params`` let a
    user interface say the same in its own language without parsing the message."""

    def __init__(self, message: str, *, code: str = "invalid", **params):
        super().__init__(message)
        self.code = code
        self.params = params
