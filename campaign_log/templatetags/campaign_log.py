"""The log's template filter: the line template of an event's kind (`campaign_log.kinds`)."""

from django import template

from campaign_log.kinds import kind_of

register = template.Library()


@register.filter
def line_template(message) -> str:
    """``{% include roll|line_template %}``: the template that tells `message`'s kind."""
    return kind_of(message).line
