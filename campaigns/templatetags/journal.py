"""`{% load journal %}` … `{{ entry.body|markdown }}`: journal Markdown, rendered safely."""

from django import template

from campaigns.markdown import render_markdown

register = template.Library()


@register.filter(is_safe=True)
def markdown(text):
    return render_markdown(text)
