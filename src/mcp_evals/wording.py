"""How counts and values read in messages and reports (one copy of each rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def number(count: int) -> str:
    """``1753`` → ``"1,753"``: how every count and token figure reads, in every message."""
    return f"{count:,}"


def noun(count: int, word: str, plural_form: str | None = None) -> str:
    """The form of ``word`` that goes with ``count``: ``noun(1, "typo")`` → ``"typo"``, else ``"typos"``."""
    return word if count == 1 else (plural_form or word + "s")


def plural(count: int, word: str, plural_form: str | None = None) -> str:
    """``plural(1, "fix", "fixes")`` → ``"1 fix"``; ``plural(1753, "token")`` → ``"1,753 tokens"``."""
    return f"{number(count)} {noun(count, word, plural_form)}"


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short_repr(value: Any, limit: int = 60) -> str:
    """A value as Python shows it, shortened: how validation messages quote a fixture's value."""
    return shorten(repr(value), limit)


def alternatives(words: Sequence[str], conjunction: str = "or") -> str:
    """``["A", "B", "C"]`` → ``"A, B or C"``: a list of choices in a sentence."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


DOCS_URL = "https://github.com/sbissoli/mcp-evals/blob/main/docs/"


def docs_url(page: str) -> str:
    """``"contract.md#isolation"`` → that page of the docs on GitHub: how every message, help text and
    report names a docs page, since a user who installed with pipx has no docs/ folder at hand."""
    return DOCS_URL + page
