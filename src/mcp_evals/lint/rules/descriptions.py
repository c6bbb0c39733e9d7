"""D — descriptions: the model's main evidence for choosing one tool over another."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.registry import rule
from mcp_evals.lint.text import text_length
from mcp_evals.providers.tokens import estimate_tokens
from mcp_evals.text import name_parts
from mcp_evals.verbs import NAME_VERBS
from mcp_evals.wording import number, plural

_PLACEHOLDER = re.compile(
    r"(?i)\b(?:todo|tbd|fixme|xxx|lorem ipsum|my tool|test tool|description (?:goes )?here|"
    r"(?:add|insert|write) (?:a )?description)\b"
)
# Words that set a tool against another ("instead", "rather than", "unlike", "vs"), or state where it
# stops, even without naming the neighbour ("without reading the content", "use it for…", "not
# recommended for…"): either way the model learns when this tool is the one.
_CONTRAST = re.compile(
    r"(?i)\b(?:instead|rather than|not for|unlike|versus|vs\.?|other than|only for|only when|"
    r"as opposed to|prefer|does not|doesn't|do not|without|except|"
    r"use (?:it|this(?: tool)?|\S+) (?:for|to|when|if|only)|not (?:recommended|intended|meant|suitable)|"
    r"best for|(?:if|when) you (?:need|want|only))\b"
)
_RETURNS = re.compile(
    r"(?i)\b(?:returns?|returned|responds?|yields?|outputs?|gives back|provides?|lists?|shows?|"
    r"reports?|results?|echo(?:es)?|answers?|produces?)\b"
)
# An identifier in prose: snake_case (two parts at least) or camelCase, optionally in backticks.
_IDENTIFIER = re.compile(r"(?<![\w/.-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)(?![\w/-])")


@rule(
    "D001",
    "Missing description",
    severity="error",
    why="The description is a model's main evidence for choosing a tool; without one it has only the name.",
    fix="Say what the tool does, when to use it (and when another tool fits better), and what it returns.",
)
def missing(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        if not tool.description.strip():
            yield Hit(f"{tool.name!r} has no description", tools=(tool.name,))


@rule(
    "D002",
    "Description too short to choose by",
    severity="error",
    why='A few words ("Gets a user.") cannot tell a model when to prefer this tool over its neighbours. '
    "Length is counted in Latin-script characters: a Han character (Chinese, Japanese kanji) counts as 3, "
    "a kana or Hangul syllable as 2, so a full sentence passes in any script.",
    fix="Write at least one full sentence: what it does, when to use it, what it returns.",
    thresholds=("min_description_chars",),
)
def too_short(context: LintContext) -> Iterator[Hit]:
    minimum = context.thresholds.min_description_chars
    for tool in context.tools:
        text = tool.description.strip()
        length = text_length(text)
        if text and length < minimum:
            counted = "" if length == len(text) else f", worth {length} in Latin script"
            yield Hit(
                f"the description of {tool.name!r} has {plural(len(text), 'character')}{counted} "
                f"(fewer than {minimum})",
                tools=(tool.name,),
            )


@rule(
    "D003",
    "Description too long",
    severity="warning",
    why="Every request pays for every description; past a few sentences the extra words cost tokens and "
    "bury the one sentence that tells tools apart.",
    fix="Keep what sets the tool apart; move usage manuals to a resource or the server's instructions.",
    thresholds=("max_description_tokens",),
)
def too_long(context: LintContext) -> Iterator[Hit]:
    limit = context.thresholds.max_description_tokens
    for tool in context.tools:
        tokens = estimate_tokens(tool.description)
        if tokens > limit:
            yield Hit(
                f"the description of {tool.name!r} is about {plural(tokens, 'token')} "
                f"(more than {number(limit)})",
                tools=(tool.name,),
            )


@rule(
    "D004",
    "Placeholder text",
    severity="warning",
    why='TODO, TBD, lorem ipsum or "my tool" in a shipped description is noise the model must read past.',
    fix="Replace the placeholder with a real description.",
)
def placeholder(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        match = _PLACEHOLDER.search(tool.description)
        if match:
            yield Hit(
                f"the description of {tool.name!r} contains placeholder text {match.group(0)!r}",
                tools=(tool.name,),
            )


@rule(
    "D005",
    "Highly similar descriptions",
    severity="warning",
    why="Two descriptions that use the same words (by TF-IDF cosine), or are near copies, give a model "
    "nothing to choose by: it picks between the tools at random.",
    fix="Rewrite each to say what sets it apart from the other, in words the other does not use.",
    thresholds=("description_similarity", "near_identical"),
)
def similar_descriptions(context: LintContext) -> Iterator[Hit]:
    floor = context.thresholds.description_similarity
    copies = context.pairs.near_identical
    for pair in context.pairs.kept:
        copy = copies.get(pair.tools)
        if pair.description < floor and copy is None:
            continue
        first, second = pair.tools
        how = f"{copy:.0%} identical" if copy is not None else f"TF-IDF cosine {pair.description:.2f}"
        shared = f"; shared terms: {', '.join(pair.terms)}" if pair.terms else ""
        yield Hit(
            f"{first!r} and {second!r}{pair.family_note} have highly similar descriptions ({how}{shared})",
            tools=pair.tools,
            terms=pair.terms,
        )


def mentions(text: str, name: str) -> bool:
    """The text names a tool: as written, or as its words (``list_tickets`` → "list tickets")."""
    lowered, wanted = text.lower(), name.lower()
    if wanted in lowered and re.search(rf"(?<![\w-]){re.escape(wanted)}(?![\w-])", lowered):
        return True
    spaced = " ".join(name_parts(name))
    if len(spaced.split()) < 2 or spaced not in lowered:
        return False
    return re.search(rf"\b{re.escape(spaced)}\b", lowered) is not None


@rule(
    "D006",
    "No when-to-use against its closest neighbour",
    severity="warning",
    why="When a tool has a likely look-alike, a model needs one sentence that says when to use this one "
    'and not the other ("to browse by status, use list_tickets instead").',
    fix='Name the neighbour and the difference: "For X, use other_tool instead."',
    thresholds=("confusable_pair",),
)
def no_contrast(context: LintContext) -> Iterator[Hit]:
    floor = context.thresholds.confusable_pair
    closest: dict[str, str] = {}
    for pair in context.pairs.kept:  # best first
        if pair.score < floor:
            break
        first, second = pair.tools
        closest.setdefault(first, second)
        closest.setdefault(second, first)
    for tool in context.tools:
        neighbour_name = closest.get(tool.name)
        if neighbour_name is None or not tool.description.strip():
            continue
        neighbour = context.catalog.by_name[neighbour_name]
        named = mentions(tool.description, neighbour.wire_name) or mentions(tool.description, neighbour.name)
        if named or _CONTRAST.search(tool.description):
            continue
        yield Hit(
            f"{tool.name!r} does not say when to use it rather than its closest neighbour {neighbour_name!r}",
            tools=(tool.name, neighbour_name),
        )


@rule(
    "D007",
    "Mentions a tool that does not exist",
    severity="warning",
    why="A description that points to a tool the catalog lacks (renamed, removed, another server's) sends "
    "the model after a call it cannot make.",
    fix="Update the reference to the tool's current name, or remove it.",
)
def unknown_tool_mentioned(context: LintContext) -> Iterator[Hit]:
    known = {name.lower() for tool in context.tools for name in (tool.name, tool.wire_name)}
    parameters = {name.lower() for names in context.property_names.values() for name in names}
    for tool in context.tools:
        seen: set[str] = set()
        for match in _IDENTIFIER.finditer(tool.description):
            identifier = match.group(1)
            lowered = identifier.lower()
            if lowered in seen or lowered in known or lowered in parameters:
                continue
            parts = name_parts(identifier)
            if len(parts) < 2 or parts[0] not in NAME_VERBS:
                continue
            seen.add(lowered)
            yield Hit(
                f"the description of {tool.name!r} mentions {identifier!r}, which is no tool of this catalog",
                tools=(tool.name,),
            )


@rule(
    "D008",
    "Does not say what it returns",
    severity="info",
    why="Models plan the next step around what a tool gives back; a description (or output schema) "
    "that says so helps them pick the tool that yields what they need.",
    fix='Add a clause on the result ("Returns the ticket with its comments."), or declare an outputSchema.',
    thresholds=("min_description_chars",),
)
def no_return_statement(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        text = tool.description.strip()
        if text_length(text) < context.thresholds.min_description_chars or tool.output_schema:
            continue
        if not _RETURNS.search(text):
            yield Hit(
                f"{tool.name!r} says neither in its description nor in an output schema what it returns",
                tools=(tool.name,),
            )
