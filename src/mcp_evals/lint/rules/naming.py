"""N — naming: what a tool's name alone tells a model, and whether providers accept it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from mcp_evals.catalog.names import MAX_LENGTH, is_safe
from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.registry import rule
from mcp_evals.lint.text import text_length
from mcp_evals.text import name_parts, stem, words

_STYLES = (
    ("snake_case", re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")),
    ("kebab-case", re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)+$")),
    ("camelCase", re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")),
    ("PascalCase", re.compile(r"^(?:[A-Z][a-z0-9]+){2,}$")),
)
# A name made only of these says nothing about what the tool acts on.
GENERIC_WORDS = frozenset(
    re.findall(
        r"[a-z]+",
        "run get query execute exec process handle do manage perform call invoke fetch apply action tool "
        "main default api request operation task helper util utility misc generic data thing item stuff it "
        "something all any",
    )
)


def naming_style(name: str) -> str | None:
    """snake_case, kebab-case, camelCase, PascalCase; None for one word (fits any) or a mix."""
    for style, pattern in _STYLES:
        if pattern.match(name):
            return style
    return None


@rule(
    "N001",
    "Mixed naming conventions",
    severity="warning",
    why="A catalog that mixes snake_case, kebab-case and camelCase reads as several half-finished APIs; "
    "consistent names help a model generalise from one tool to the next.",
    fix="Pick one convention (snake_case is the most common for MCP tools) and rename the others.",
)
def mixed_conventions(context: LintContext) -> Iterator[Hit]:
    styles = {tool.name: naming_style(tool.wire_name) for tool in context.tools}
    counts = Counter(style for style in styles.values() if style is not None)
    if len(counts) < 2:
        return
    majority = max(counts, key=lambda style: (counts[style], style == "snake_case", style))
    others = [name for name, style in styles.items() if style is not None and style != majority]
    shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
    summary = ", ".join(f"{count} {style}" for style, count in counts.most_common())
    yield Hit(
        f"tool names mix conventions ({summary}); not {majority}: {shown}",
        tools=(others[0],),
    )


@rule(
    "N002",
    "Near-duplicate names",
    severity="error",
    why="Names a few characters apart (get_user / get_users) or equal up to synonyms and plurals "
    "(fetch_user / get_user, list_users / get_all_users) are the pairs models mix up most.",
    fix="Put the distinguishing concept in the name (get_user_by_id / list_users), or merge the tools.",
    thresholds=("name_distance",),
)
def near_duplicate_names(context: LintContext) -> Iterator[Hit]:
    for near in context.pairs.near_names:
        first, second = near.tools
        yield Hit(f"{first!r} and {second!r} are near-duplicate names: {near.reason}", tools=near.tools)


@rule(
    "N003",
    "Generic name",
    severity="warning",
    why="A name such as run, get, query or execute_task says nothing about what the tool acts on, so "
    "the model must guess from the description alone.",
    fix="Name the action and its object: search_issues, create_invoice, delete_branch.",
)
def generic_names(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        parts = name_parts(tool.wire_name)
        if parts and all(part in GENERIC_WORDS for part in parts):
            yield Hit(f"{tool.name!r} is a generic name: it does not say what it acts on", tools=(tool.name,))


@rule(
    "N004",
    "Name providers reject",
    severity="warning",
    why="The Anthropic and OpenAI tool APIs accept only ^[a-zA-Z0-9_-]{1,64}$; any other name works "
    "only through a client's name mapping, so the model sees (and users quote) another name.",
    fix="Rename the tool to at most 64 letters, digits, underscores and hyphens.",
)
def provider_names(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        if is_safe(tool.name):
            continue
        if len(tool.name) > MAX_LENGTH:
            why = f"is {len(tool.name)} characters long (the limit is {MAX_LENGTH})"
        else:
            bad = sorted({char for char in tool.name if not re.match(r"[a-zA-Z0-9_-]", char)})
            why = "contains " + " ".join(repr(char) for char in bad[:5])
        mapped = context.catalog.names.provider(tool.name)
        yield Hit(
            f"{tool.name!r} {why}: providers reject it, so models see it as {mapped!r}", tools=(tool.name,)
        )


@rule(
    "N005",
    "Description never names its subject",
    severity="info",
    why="When no meaningful word of the name appears in the description, one of the two is likely "
    "misleading, and the model has two different stories to reconcile.",
    fix="Make the name and the description talk about the same thing.",
    thresholds=("min_description_chars",),
)
def name_not_in_description(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        if text_length(tool.description.strip()) < context.thresholds.min_description_chars:
            continue  # D001/D002 report it
        parts = [stem(part) for part in name_parts(tool.wire_name) if len(part) > 3]
        parts = [part for part in parts if part not in GENERIC_WORDS]
        if not parts:
            continue
        described = set(words(tool.description))
        if not any(_mentioned(part, described) for part in parts):
            yield Hit(f"no word of the name {tool.name!r} appears in its description", tools=(tool.name,))


def _mentioned(part: str, described: set[str]) -> bool:
    prefix = part[: max(4, len(part) - 2)]
    return any(word.startswith(prefix) for word in described)
