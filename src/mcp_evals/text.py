"""Words: the one tokenizer and stemmer (a leaf: the standard library only).

The lexical baseline matches a query's words with a tool's, the lint compares tools' descriptions and
names, did-you-mean compares an unknown name's words with the known ones: all read text through this
module, so "which words does this say" has one answer. Splitting is on anything that is not a letter
or a digit and inside camelCase (``getHTTPServer`` → get, http, server); words are lower-cased;
stopwords say nothing about a tool and are left out; ``stem`` maps a word's common forms to one.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[\s_\-./:]+")
STOPWORDS = frozenset(
    re.findall(
        r"[a-z]+",
        "a an and any are as at be been by can do does each for from has have how i if in into is it its may "
        "me more most my no not of on one or our over please should so some such than that the their them "
        "then there these they this those to up us use used using via was we what when where which while "
        "who will with within without you your",
    )
)
# Longest first; "es" goes only after the sounds that take it (boxes, matches), so nodes → node.
_SUFFIXES = (
    ("sses", "ss"),
    ("ies", "y"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("xes", "x"),
    ("ing", ""),
    ("ed", ""),
    ("s", ""),
)


def stem(word: str) -> str:
    """A light, deterministic suffix strip that maps a word's common forms to one stem: ticket and
    tickets, node and nodes, entry and entries, refund and refunded. Never aggressive enough to merge
    two different words; not meant to be read (messages show the words as written)."""
    base = word
    if not word.endswith("ss"):
        for suffix, replacement in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                base = word[: len(word) - len(suffix)] + replacement
                break
    # create, creates, created and creating meet at "creat"; name and named at "nam"
    return base[:-1] if base.endswith("e") and len(base) > 3 else base


def tokens(text: str) -> list[str]:
    """Every word of a text, lower-cased, split also inside camelCase and snake_case."""
    return [match.lower() for match in _WORD.findall(_CAMEL.sub(" ", text))]


def name_parts(name: str) -> list[str]:
    """The lower-cased parts of an identifier: ``getUserById`` and ``get-user_by.id`` → get, user, by, id."""
    spaced = _CAMEL.sub(" ", name)
    return [part.lower() for part in _SEPARATORS.split(spaced) if part]


def surface_words(text: str) -> list[tuple[str, str]]:
    """``(stem, word)`` for each content word of a text (its tokens without stopwords); the word as
    written is kept for messages."""
    return [(stem(word), word) for word in tokens(text) if word not in STOPWORDS]


def words(text: str) -> list[str]:
    """The stems of a text's content words (see ``surface_words``)."""
    return [stem(word) for word in tokens(text) if word not in STOPWORDS]
