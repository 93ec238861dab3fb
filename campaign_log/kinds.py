"""The kinds of event the campaign's log holds, and what each must tell the log to join it.

The log knows no kind of its own: an app registers each kind it stores (`register`, from
its `AppConfig.ready`): the table its rolls, membership changes and notices, combat its
fights' and chronicles' records. A kind brings:

- ``model``: the table it is stored in, a model with ``campaign``, ``seq`` (numbered by
  `campaign_log.numbering`, unique per campaign) and ``created_at``;
- ``read``: the SQL that reads one of its rows as a log line (`LOG_COLUMNS` of the model's
  alias ``e``, with the joins they need), so a catch-up over every kind is one statement;
- ``from_row``: that row as the message its own payload function makes when it is stored;
- ``messages``: the messages of some of its rows by pk (a page of the history);
- ``message_kinds``: the ``kind`` its messages carry (a name, or a prefix ending in "-"),
  by which a message finds its kind;
- ``line``: the template of its line in the log (`campaign_log/_event.html` includes it);
- ``audiences``: the renderings one message needs: ``("all",)`` when its line reads the
  same to every member who may see it whole, ``("gm", "player")`` when the GM's line
  differs (`campaign_log.audiences`).

The order kinds register in is the order of their arms in the log's statements; the
numbers that merge them are the campaign's, so the order changes nothing a page shows.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# The columns every kind's `read` gives (a column a kind lacks is a typed NULL, which
# PostgreSQL needs to merge the arms), with their SQL types.
LOG_COLUMNS = (
    ("created_at", None), ("kind", "text"), ("who", "text"), ("character", "text"),
    ("label", "text"), ("hand", "text"), ("dice", "text"), ("counted", "text"),
    ("result", "integer"), ("test_base", "integer"), ("threshold", "integer"),
    ("secret", "boolean"), ("data", "text"), ("public", "text"), ("ref", "bigint"),
    ("version", "integer"), ("system", "text"), ("encounter_kind", "text"),
    ("typed_in", "boolean"),  # a roll of the table's own dice (issue 48)
)
COLUMN_NAMES = tuple(column for column, _type in LOG_COLUMNS)


@dataclass(frozen=True)
class EventKind:
    name: str
    model: type
    # (quote_name) -> ({log column: SQL over alias "e"}, "JOIN ... " SQL)
    read: Callable[[Callable[[str], str]], tuple[Mapping[str, str], str]]
    # (fields every message has: pk, campaign_id, seq, created_at; the row's LOG_COLUMNS
    # by name; a cache shared by the rows of one read) -> the message
    from_row: Callable[[dict, dict, dict], dict]
    # (pks) -> [(pk, message)], rows gone since left out
    messages: Callable[[list[int]], list[tuple[int, dict]]]
    message_kinds: tuple[str, ...]
    line: str
    audiences: tuple[str, ...] = ("all",)

    def tells(self, message_kind: str) -> bool:
        return any(
            message_kind.startswith(name) if name.endswith("-") else message_kind == name
            for name in self.message_kinds
        )


_kinds: dict[str, EventKind] = {}
_by_message_kind: dict[str, EventKind] = {}


def register(kind: EventKind) -> None:
    """Add `kind` to the log (again: replaced, so a reloaded app config is harmless)."""
    _kinds[kind.name] = kind
    _by_message_kind.clear()


def kinds() -> tuple[EventKind, ...]:
    """Every registered kind, in the order they registered (the arms of the log's reads)."""
    return tuple(_kinds.values())


def kind_of(message: Mapping[str, Any]) -> EventKind:
    """The kind a message is of, by its ``kind``."""
    name = message["kind"]
    found = _by_message_kind.get(name)
    if found is None:
        for kind in _kinds.values():
            if kind.tells(name):
                found = _by_message_kind[name] = kind
                break
        else:
            raise LookupError(f"No kind of event in the log tells {name!r}.")
    return found
