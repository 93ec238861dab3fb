"""The one base error of the rules core (re-exported as ``rules.RulesError``)."""


class RulesError(ValueError):
    """Base error for every rule input error (bad hands, levels, keys, budgets)."""
