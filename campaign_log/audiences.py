"""Who sees what of an event in the campaign's log: the audiences.

Two: the campaign's GM and its players. What a player may see of an event is
`visible`'s: a secret roll is the GM's alone (the others learn only that the GM rolled in
secret), and an event with a ``"players"`` part (a fight's record, whose NPC numbers are
the GM's) shows them that part. A table screen (issue 47, `campaigns.models.TableScreen`)
reads as a player: it sees what every player may see, never more, and shares the
players' rendering of every event.

A view is the rendering of an event one audience gets (`campaign_log.lines`):

- ``"all"``: an event every member sees whole, of a kind whose line reads the same to
  whoever sees it (a public roll, a member joining, a notice): one rendering serves all;
- ``"gm"`` and ``"player"``: a secret roll, and every event of a kind whose line differs
  for the GM (a fight's record carries the GM's version number).
"""

from collections.abc import Mapping

from campaign_log.kinds import kind_of

# What an audience that may not see a secret roll learns of it.
SECRET_FIELDS = ("seq", "kind", "actor", "secret", "created_at", "time")


def visible(message, *, is_gm: bool) -> dict:
    """What a viewer may see of an event: a secret roll is the GM's alone; the others learn
    only that the GM rolled in secret (no hand, dice, label or result). An event with a
    "players" part (a combat record, whose NPC numbers are the GM's) shows players that
    part instead."""
    if message["secret"] and not is_gm:
        return {key: message[key] for key in SECRET_FIELDS}
    shown = dict(message)
    players = shown.pop("players", None)
    if players is not None and not is_gm:
        shown.update(players)
    return shown


def whole_for_everyone(message: Mapping) -> bool:
    """Whether every member may see all of `message` (`visible` gives players all of
    it): what may travel to other server processes whole (`campaign_log.broadcast`). A
    secret roll, or a record whose players' part differs from the GM's, may not."""
    if message["secret"]:
        return False
    players = message.get("players")
    return players is None or all(message.get(key) == value for key, value in players.items())


def view_of(message, *, is_gm: bool) -> str:
    """Which rendering of `message` a viewer gets: "all", "gm" or "player"."""
    if kind_of(message).audiences == ("all",) and whole_for_everyone(message):
        return "all"
    return "gm" if is_gm else "player"


def views_of(message) -> tuple[str, ...]:
    """Every view of a message that every member may see whole (what
    `campaign_log.lines.prerender` renders)."""
    return kind_of(message).audiences
