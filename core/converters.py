"""Path converters. `<id:pk>` is a database id: 1 to 18 ASCII digits, so an id that would
overflow the database's 64-bit integers is simply a URL that does not exist (404)."""

from core.params import MAX_DIGITS


class IdConverter:
    regex = f"[0-9]{{1,{MAX_DIGITS}}}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))
