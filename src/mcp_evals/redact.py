"""Taking secrets out of text before it reaches a message, a log or a file (one scrubber for all).

An error from an HTTP library may quote what it was given: a header value (``b'Bearer sk-…\\n'``),
a URL with its query. Every form a value can take in such text — as is, stripped, ``repr``-escaped,
as ``bytes`` — is replaced by ``***``.
"""

from __future__ import annotations

from collections.abc import Iterable


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every form of every secret replaced by ``***`` (longest first)."""
    forms: set[str] = set()
    for secret in secrets:
        if not secret or not secret.strip():
            continue
        forms |= {secret, secret.strip(), repr(secret)[1:-1], repr(secret.encode("utf-8", "replace"))[2:-1]}
    for form in sorted((form for form in forms if len(form) >= 4), key=len, reverse=True):
        text = text.replace(form, "***")
    return text
