"""Idempotency keys: a POST that must not happen twice carries one.

A form that changes something a player would not want done twice (a roll, a UP spend, an
undo, an award) renders a random key in a hidden ``idempotency_key`` field, and the page
gets a fresh key after each success. The row the POST makes stores the key, under a
unique constraint per user; a retried POST (a phone that lost the answer and sends again)
meets the constraint, changes nothing and is answered with the row the first one made.
A POST without a key (an old page) behaves as before. A malformed key is refused (400).
"""

import re
import secrets

from django.utils.translation import gettext as _

FIELD = "idempotency_key"
KEY = re.compile(r"[A-Za-z0-9_-]{16,64}")  # URL-safe base64, as secrets.token_urlsafe makes


class InvalidKey(ValueError):
    """A key that is present but malformed; ``message`` is for the user."""

    def __init__(self):
        self.message = _("This form has an invalid key. Reload the page and try again.")
        super().__init__(self.message)


def new_key() -> str:
    """A fresh key for a form: 24 URL-safe characters (144 random bits)."""
    return secrets.token_urlsafe(18)


def key_from(data) -> str | None:
    """The key a POST carries: None when it has none (behave as before), else the key.
    Raises InvalidKey when it is not 16-64 URL-safe characters."""
    value = data.get(FIELD)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not KEY.fullmatch(value):
        raise InvalidKey
    return value
