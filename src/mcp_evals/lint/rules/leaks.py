"""X — security, what leaks: secrets embedded in a catalog (X005) and links that would carry the
conversation away (X006).

The same texts as the rules of ``security`` (``scanned``), the other half of the category: a secret
is reported by its kind and first characters, never whole; a link by its host and what it would carry.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.registry import rule
from mcp_evals.lint.rules.security import hit_at, normalized, scanned, visible
from mcp_evals.wording import shorten

_PLACEHOLDER = re.compile(r"(?i)example|placeholder|your|dummy|sample|redacted|x{4,}|\*{3,}|\.\.\.|<[^>]*>")


def _placeholder(value: str) -> bool:
    """A documentation sample, not a secret: EXAMPLE, your-key, xxxx, one character repeated."""
    body = re.sub(r"^[A-Za-z]+[_-]", "", value)
    if _PLACEHOLDER.search(value):
        return True
    return bool(body) and max(body.count(char) for char in set(body)) > len(body) / 2


# ------------------------------------------------------------------------------------------------ secrets
SECRET_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b"), "an AWS access key id"),
    (
        re.compile(r"(?i)aws.{0,20}secret.{0,20}[:=]\s*['\"]?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"),
        "an AWS secret access key",
    ),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"), "a GitHub token"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,255}\b"), "a GitHub token"),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), "a GitLab token"),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), "a Slack token"),
    (
        re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"),
        "a Slack webhook",
    ),
    (re.compile(r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}"), "an Anthropic API key"),
    (
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}"),
        "an OpenAI API key",
    ),
    (re.compile(r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"), "an OpenAI API key"),
    (re.compile(r"\b[sr]k_live_[A-Za-z0-9]{20,}"), "a Stripe live key"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), "a Google API key"),
    (re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"), "a private key block"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), "a JSON Web Token"),
)


# Something every pattern of SECRET_PATTERNS needs: most texts have none of it, and are skipped.
_SECRET_HINT = re.compile(
    r"A[KSGIRNP][A-Z]{2}[A-Z0-9]{16}|secret|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|hooks\.slack|sk-|_live_|"
    r"AIza|PRIVATE KEY|eyJ",
    re.IGNORECASE,
)


def secrets(text: str) -> list[tuple[str, str]]:
    """(kind, a safe excerpt) of every secret in ``text``: the first 4 characters and the length only."""
    found: list[tuple[str, str]] = []
    if not _SECRET_HINT.search(text):
        return found
    for pattern, kind in SECRET_PATTERNS:
        for match in pattern.finditer(text):
            value = match.group(match.lastindex or 0)
            if "PRIVATE KEY" not in value and _placeholder(value):
                continue
            excerpt = value if "PRIVATE KEY" in value else f"{value[:4]}… ({len(value)} characters)"
            found.append((kind, excerpt))
    return found


@rule(
    "X005",
    "Embedded secret",
    severity="error",
    why="A key, token or private key in a description or schema is sent to every model provider and "
    "every client that lists the server, and ends up in logs and snapshots.",
    fix="Remove it and revoke it: it has been published. Read secrets from the server's environment.",
    graded=False,
    security_severity=9.5,
)
def embedded_secret(context: LintContext) -> Iterator[Hit]:
    memo: dict[str, list[tuple[str, str]]] = {}
    for scan in scanned(context):
        text = scan.text
        if text.text not in memo:
            memo[text.text] = secrets(text.text)
        found = memo[text.text]
        if found:
            kinds = sorted({kind for kind, _ in found})
            yield hit_at(text, f"{text.where} holds {', '.join(kinds)}: {found[0][1]}")


# ------------------------------------------------------------------------------------------------ links


_URL = re.compile(r"(?i)\b(?:https?|wss?|ftp)://[^\s<>\"'`)\]]+")
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*([^)\s]+)")
_PLACEHOLDERS = re.compile(
    r"\$\{([^}]*)\}|\{\{([^}]*)\}\}|\{([^{}]*)\}|%7B([^%]*)%7D|<([A-Za-z_][\w-]*)>", re.IGNORECASE
)
_SENSITIVE = re.compile(
    r"(?i)conversation|history|context|messages?|chat|prompt|secret|token|key|password|passwd|credential|"
    r"cookie|session|env|memory|summary|transcript|file_?content|contents|clipboard|ssh"
)
_APPEND = re.compile(
    r"(?i)\b(?:append|add|include|put|encode|pass|attach|insert)\b[^.;\n]{0,60}\b(?:to|in|into|as)\s+"
    r"(?:the\s+)?(?:url|link|query(?:\s+string)?|request\s+url)\b"
)
_EXAMPLE_HOSTS = re.compile(r"(?i)(?:^|\.)(?:example\.(?:com|org|net)|localhost|127\.0\.0\.1|invalid|test)$")


def _placeholders(text: str) -> list[str]:
    """The names of the template placeholders of ``text``: ``{id}``, ``${token}``, ``{{ctx}}``, …"""
    return [next(group for group in groups if group) for groups in _PLACEHOLDERS.findall(text)]


def exfiltration_links(text: str) -> list[tuple[str, str]]:
    """(why, the URL) of every link in ``text`` that would carry data away when followed or shown.

    A link to an example host (example.com, localhost) is documentation, never reported.
    """
    flat = normalized(text)
    images = [match.group(1) for match in _IMAGE.finditer(flat)]
    found: list[tuple[str, str]] = []
    for match in _URL.finditer(flat):
        url = match.group(0).rstrip(".,;:")
        try:
            host = urlsplit(url).hostname or ""
        except ValueError:
            continue
        if _EXAMPLE_HOSTS.search(host):
            continue
        cut = min((position for mark in "?#" if (position := url.find(mark)) >= 0), default=len(url))
        names, query_names = _placeholders(url), _placeholders(url[cut:])
        image = any(url in source for source in images)
        if any(_SENSITIVE.search(name) for name in names):
            found.append(("a link templated with what looks like conversation data or a secret", url))
        elif query_names:
            found.append(("a link whose query string the model fills in", url))
        elif image and (names or cut < len(url)):
            found.append(("an image link with data in it (a client that renders it sends the data)", url))
        elif names and _APPEND.search(flat):
            found.append(("a link the model is told to add data to", url))
    return found


@rule(
    "X006",
    "Link that invites exfiltration",
    severity="warning",
    why="A URL with a template for the conversation, a secret or a parameter in its query string "
    "(https://x.example/c?d={context}), or an image link a client renders, turns the model into the "
    "carrier of data to whoever owns the host.",
    fix="Remove the link from the text the model reads; a tool that needs a URL builds it in the server.",
    graded=False,
    security_severity=7.0,
)
def exfiltration(context: LintContext) -> Iterator[Hit]:
    for scan in scanned(context):
        text = scan.text
        if not text.prose or ("://" not in text.text and "%3A%2F%2F" not in text.text.upper()):
            continue
        found = exfiltration_links(text.text)
        if found:
            why, url = found[0]
            yield hit_at(text, f"{text.where} holds {why}: {shorten(visible(url), 120)!r}")
