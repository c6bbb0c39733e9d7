"""Escaping untrusted text for reports.

Tool names and descriptions come from servers, queries from fixture files a pull request may
change, answers and arguments from a model. None of it may inject HTML, break a table or a code
fence, close a ``<details>``, forge the hidden ``<!-- mcp-evals:… -->`` marker the GitHub Action
looks for in comment bodies, @mention people, link issues, or become a clickable link. Every
function here returns text that is safe in the one place it is meant for; the templates pick the
right one for each spot.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from markupsafe import Markup

ZWJ = "\u200d"  # zero-width joiner: invisible, and it breaks @mentions, #refs and comment openers
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Bidirectional overrides and isolates (Trojan Source): they can make a cell read as something else.
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
# What XML 1.0 cannot hold: the complement of its Char production (#x9 #xA #xD [#x20-#xD7FF]
# [#xE000-#xFFFD] [#x10000-#x10FFFF]) within what a str holds, written as the few ranges it is: the
# negated class compiles a 64K-entry bitmap (7 ms of CPU at every start), this one under 1 ms.
_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_WHITESPACE = re.compile(r"\s+")
# Backslash-escaped everywhere they could start Markdown: emphasis, code, links, tables, math,
# headings, strikethrough, HTML (already entities, kept for clarity).
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]{}~|#$!^])")
_MENTION = re.compile(r"@(?=[\w-])")
_ISSUE_REF = re.compile(r"#(?=\d)")
_COMMENT_OPEN = re.compile(r"<!")
# GitHub turns bare URLs into links; untrusted text stays unclickable (no phishing links in a comment).
_AUTOLINK = re.compile(r"(?i)(:)(?=//)|\b(www)(?=\.)")
# Letters and digits of any script stay (an area may be "ações" or "知识库"); everything that could
# end the quoted label, the list, the line or the code fence becomes "_".
_MERMAID_UNSAFE = re.compile(r"[^\w ./()-]")


def clean(text: object, *, keep_newlines: bool = True) -> str:
    """Text without control or bidi-override characters; ``\\r\\n`` becomes ``\\n``."""
    value = str(text).replace("\r\n", "\n").replace("\r", "\n")
    value = _BIDI.sub("", _CONTROL.sub("", value.replace("\t", " ")))
    return value if keep_newlines else _WHITESPACE.sub(" ", value).strip()


def truncate(text: str, limit: int | None) -> str:
    """At most ``limit`` characters plus a note of how many were cut."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}… (+{len(text) - limit:,} chars)"


def md_text(text: object, limit: int | None = 200) -> Markup:
    """Inline Markdown text, one line, safe in a table cell, a heading or a sentence."""
    value = truncate(clean(text, keep_newlines=False), limit)
    # Markdown first: the entities html.escape writes (``&#x27;``) must keep their ``#``.
    value = _MARKDOWN_SPECIAL.sub(r"\\\1", value)
    value = html.escape(value, quote=True)
    value = _MENTION.sub("@" + ZWJ, value)
    value = _ISSUE_REF.sub("#" + ZWJ, value)
    value = _AUTOLINK.sub(lambda match: match.group(0) + ZWJ, value)
    return Markup(value)


def md_code(text: object, limit: int | None = 120) -> Markup:
    """Inline code for Markdown, also safe inside a table (``<code>`` with escaped content)."""
    if str(text) == "":
        return Markup("")
    return Markup("<code>") + md_text(text, limit) + Markup("</code>")


def md_block(text: object, limit: int | None = 2000, info: str = "text") -> Markup:
    """A fenced code block that nothing inside can close, with ``<!`` broken so no marker can be forged."""
    value = truncate(clean(text), limit)
    value = _COMMENT_OPEN.sub("<" + ZWJ + "!", value)
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * max(3, longest + 1)
    return Markup(f"{fence}{info}\n{value}\n{fence}")


def mermaid_label(text: object, limit: int = 24) -> Markup:
    """A quoted Mermaid label with only harmless characters, cut to ``limit`` with an ellipsis."""
    value = _MERMAID_UNSAFE.sub("_", clean(text, keep_newlines=False)) or "_"
    if len(value) > limit:
        value = value[: limit - 1].rstrip() + "…"
    return Markup(f'"{value}"')


def mermaid_labels(texts: Sequence[object], limit: int = 24) -> list[Markup]:
    """Labels for one chart axis: each safe (``mermaid_label``), and told apart when they collide."""
    labels: list[Markup] = []
    seen: set[str] = set()
    for text in texts:
        label, number = mermaid_label(text, limit), 1
        while label in seen:
            number += 1
            label = Markup(f'{mermaid_label(text, limit - len(str(number)) - 1)[:-1]} {number}"')
        seen.add(label)
        labels.append(label)
    return labels


def plain(text: object, limit: int | None = 200) -> str:
    """One line of plain text for a terminal: no control characters, no escape sequences."""
    return truncate(clean(text, keep_newlines=False), limit)


def xml_text(text: object, limit: int | None = None) -> str:
    """Text that XML 1.0 can hold (ElementTree escapes markup but not invalid characters)."""
    return truncate(_XML_INVALID.sub("", _BIDI.sub("", str(text))), limit)


def html_text(text: object, limit: int | None = 500) -> str:
    """Clean, truncated text for the HTML report (jinja autoescape does the escaping)."""
    return truncate(clean(text), limit)
