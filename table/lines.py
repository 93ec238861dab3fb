"""One event as a line of the table's log, rendered once per view and language for the
whole site where it can be.

A view is what a viewer may see of an event (`services.visible`):

- ``"all"``: an event every member sees whole and whose line does not depend on who
  reads it (a public roll, a member joining, a notice): one rendering serves the GM and
  the players alike;
- ``"gm"`` and ``"player"``: a secret roll, a combat record (its line carries the GM's
  version number, and its NPC numbers may be the GM's alone).

With Redis, the process that stores an event every member may see whole renders it
(`prerender`, in the request's thread, for the site's language and the request's) and
sends the lines with the event, so the other processes show it without rendering it
again (`table.broadcast`). Nothing a player may not see is rendered there: a record whose
GM lines differ from the players' travels as its number only, as before.
"""

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from table import services

# The lines a message carries (prerendered), by "view:language".
RENDERED = "rendered"


def view_of(message, *, is_gm: bool) -> str:
    """Which rendering of `message` a viewer gets: "all", "gm" or "player"."""
    if message["kind"] != "combat" and services.whole_for_everyone(message):
        return "all"
    return "gm" if is_gm else "player"


def views_of(message) -> tuple[str, ...]:
    """Every view of a message that every member may see whole (what `prerender` renders)."""
    return ("all",) if message["kind"] != "combat" else ("gm", "player")


# Keys the templates only ask `{% if %}` of, given where a message may lack them: a key
# Django cannot find costs it three exceptions and a dir() of the dict each time.
FALSY_DEFAULTS = {"undone": False, "template": ""}


def render_event(message, *, is_gm: bool, language: str) -> str:
    message = FALSY_DEFAULTS | services.visible(message, is_gm=is_gm)
    message.pop(RENDERED, None)
    with translation.override(language):
        return render_to_string("table/_event.html", {"roll": message, "is_gm": is_gm})


def render_view(message, view: str, language: str) -> str:
    """The line of `message` for a view ("all" renders as a player sees it: the same)."""
    carried = message.get(RENDERED)
    if carried:
        html = carried.get(f"{view}:{language}")
        if isinstance(html, str):
            return html
    return render_event(message, is_gm=view == "gm", language=language)


def prerender(message) -> dict:
    """`message` with its lines for every view, in the site's language and the active one
    (the request's), when every member may see all of it; else `message` unchanged."""
    if not services.whole_for_everyone(message):
        return message
    languages = dict.fromkeys((settings.LANGUAGE_CODE, translation.get_language()))
    rendered = {
        f"{view}:{language}": render_event(message, is_gm=view == "gm", language=language)
        for language in languages
        if language
        for view in views_of(message)
    }
    return {**message, RENDERED: rendered}
