"""Strict reading of what a request carries: integers and saved text.

Python's own int() and str.isdigit() are too kind for input from the network: "²".isdigit()
is True but int("²") fails, int("٣") is 3, int(" 7 ") is 7, and a 40-digit number
overflows the database's 64-bit integers. Every integer a view reads from a query string,
a form field it does not validate with a Form, or a header goes through `strict_int`:
ASCII digits only, at most MAX_DIGITS of them, within bounds. Anything else answers 400
(django.core.exceptions.BadRequest, rendered by core.views.bad_request), never 500.
"""

from django.core.exceptions import BadRequest
from django.utils.translation import gettext as _

# 18 digits always fit a signed 64-bit integer (SQLite's and PostgreSQL's bigint).
MAX_DIGITS = 18
MAX_ID = 10**MAX_DIGITS - 1


class ParamError(BadRequest):
    """Malformed input; the message says which parameter, for the 400 page."""


def ascii_digits(text: str, max_digits: int = MAX_DIGITS) -> bool:
    """Whether `text` is a plain whole number: ASCII digits only, at most `max_digits`."""
    return text.isascii() and text.isdigit() and len(text) <= max_digits


def strict_int(
    value: str | None,
    *,
    name: str,
    min_value: int = 0,
    max_value: int = MAX_ID,
    default: int | None = None,
) -> int | None:
    """The integer in `value` (ASCII digits, optionally one leading "-" when min_value < 0).

    None or "" gives `default`; anything else that is not such an integer, or is outside
    [min_value, max_value], raises ParamError.
    """
    if value is None or value == "":
        return default
    text = value[1:] if value.startswith("-") and min_value < 0 else value
    if not ascii_digits(text):
        raise ParamError(_("%(name)s must be a whole number.") % {"name": name})
    number = int(value)
    if not min_value <= number <= max_value:
        raise ParamError(
            _("%(name)s must be between %(min)s and %(max)s.")
            % {"name": name, "min": min_value, "max": max_value}
        )
    return number


def strict_id(value: str | None, *, name: str) -> int | None:
    """A database id (1 or more) from a query or form; None when missing or empty."""
    return strict_int(value, name=name, min_value=1)


def saved_text(value: str | None, *, max_length: int) -> str:
    """Text typed into a field that is saved as it is: without NUL characters, which
    PostgreSQL refuses to store, and cut to `max_length`."""
    return (value or "").replace("\x00", "")[:max_length]
