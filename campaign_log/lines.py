"""One event as a line of the campaign's log, rendered once per view and language for
the whole site where it can be.

A view is what an audience may see of an event (`campaign_log.audiences`): ``"all"``
for an event every member sees whole and whose kind's line reads the same to everyone,
``"gm"`` and ``"player"`` otherwise. The line is its kind's template
(`campaign_log.kinds`), included by ``campaign_log/_event.html``.

With Redis, the process that stores an event every member may see whole renders it
(`prerender`, in the request's thread, for the site's language and the request's) and
sends the lines with the event, so the other processes show it without rendering it
again (`campaign_log.broadcast`). Nothing a player may not see is rendered there: a
record whose GM lines differ from the players' travels as its number only.
"""

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from campaign_log.audiences import view_of, views_of, visible, whole_for_everyone

__all__ = ["prerender", "render_event", "render_view", "view_of", "views_of"]

# The lines a message carries (prerendered), by "view:language".
RENDERED = "rendered"


# Keys the templates only ask `{% if %}` of, given where a message may lack them: a key
# Django cannot find costs it three exceptions and a dir() of the dict each time.
FALSY_DEFAULTS = {"undone": False, "template": ""}


def render_event(message, *, is_gm: bool, language: str) -> str:
    message = FALSY_DEFAULTS | visible(message, is_gm=is_gm)
    message.pop(RENDERED, None)
    with translation.override(language):
        return render_to_string("campaign_log/_event.html", {"roll": message, "is_gm": is_gm})


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
    if not whole_for_everyone(message):
        return message
    languages = dict.fromkeys((settings.LANGUAGE_CODE, translation.get_language()))
    rendered = {
        f"{view}:{language}": render_event(message, is_gm=view == "gm", language=language)
        for language in languages
        if language
        for view in views_of(message)
    }
    return {**message, RENDERED: rendered}
