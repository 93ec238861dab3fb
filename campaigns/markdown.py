"""Markdown for the session journal, rendered safely.

What players type is shown to the whole table, so the output carries no HTML of their own:
- raw HTML is escaped and shown as text (`html: False`);
- links go only to http(s), mailto or relative addresses; any other scheme (javascript:,
  vbscript:, data:, file:, ...) leaves the Markdown as plain text;
- images are not loaded (a table on a LAN may be offline, and an image from elsewhere
  would tell that server who reads the journal): they become links to the picture;
- headings start at <h3>, below the page (h1) and the entry titles (h2).
"""

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})
# A scheme is what comes before the first ":" when no "/", "?" or "#" comes earlier;
# "./a:b" and "notes#x:y" are relative. Anything odd in it (%09, spaces) is not allowed.
SCHEME_RE = re.compile(r"^([^:/?#]*):")
LINK_REL = "nofollow noopener"
HEADING_OFFSET = 2


def is_safe_url(url: str) -> bool:
    """A link markdown-it has normalised (entities decoded, odd characters %-encoded)."""
    match = SCHEME_RE.match(url.strip())
    return match is None or match[1].lower() in ALLOWED_SCHEMES


def _link_open(self, tokens, idx, options, env):
    tokens[idx].attrSet("rel", LINK_REL)
    return self.renderToken(tokens, idx, options, env)


def _image(self, tokens, idx, options, env):
    """An image as a link to it, its alt text (or address) as the link text."""
    token = tokens[idx]
    src = token.attrGet("src") or ""
    alt = self.renderInlineAsText(token.children or [], options, env)
    return f'<a href="{escape(src)}" rel="{LINK_REL}" class="image-link">{escape(alt or src)}</a>'


def _heading_open(self, tokens, idx, options, env):
    token = tokens[idx]
    level = min(6, int(token.tag[1:]) + HEADING_OFFSET)
    token.tag = f"h{level}"
    return self.renderToken(tokens, idx, options, env)


def _heading_close(self, tokens, idx, options, env):
    return _heading_open(self, tokens, idx, options, env)


def build_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = is_safe_url
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("image", _image)
    md.add_render_rule("heading_open", _heading_open)
    md.add_render_rule("heading_close", _heading_close)
    return md


_parser = build_parser()


def render_markdown(text: str | None) -> SafeString:
    """Journal Markdown as HTML that is safe to put in a page as it is."""
    # Safe: raw HTML is escaped (html off), links are checked and images are only links.
    return mark_safe(_parser.render(text or ""))
