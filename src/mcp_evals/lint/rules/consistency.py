"""C — consistency: how the catalog reads as a whole, where tools overlap, and when refusal collapses."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.model import PairScore
from mcp_evals.lint.registry import rule
from mcp_evals.wording import number, plural

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z]{3,}")


def confusable(context: LintContext) -> list[PairScore]:
    """The pairs a model is expected to confuse, most likely first (see docs/lint.md for the score)."""
    thresholds = context.thresholds
    return [
        pair
        for pair in context.pairs.kept
        if pair.score >= thresholds.confusable_pair or pair.overlap > thresholds.vocabulary_overlap
    ]


_RELATIONS = {
    "same": "same verb",
    "kin": "same kind of action",
    "opposed": "opposite actions",
    "other": "different writes",
    "unknown": "actions unknown",
}


def _pair_message(pair: PairScore) -> str:
    first, second = pair.tools
    shared = f"; shared terms: {', '.join(pair.terms)}" if pair.terms else ""
    return (
        f"{first!r} and {second!r}{pair.family_note} are likely to be confused (score {pair.score:.2f}: "
        f"descriptions {pair.description:.2f}, names {pair.name:.2f}, parameters {pair.parameters:.2f}, "
        f"action {pair.action:.2f} ({_RELATIONS[pair.relation]}), mentions {pair.mentions:.1f}{shared})"
    )


@rule(
    "C001",
    "Confusable pair",
    severity="warning",
    why="Tools whose names, descriptions and parameters overlap compete for the same requests; these are "
    "the pairs a model run is expected to confuse (ranked in the report).",
    fix="Merge the tools, or make each description say when to use the other instead.",
    thresholds=("confusable_pair", "vocabulary_overlap"),
)
def confusable_pairs(context: LintContext) -> Iterator[Hit]:
    for pair in confusable(context):
        if not pair.cross_server:
            yield Hit(_pair_message(pair), tools=pair.tools, terms=pair.terms)


@rule(
    "C002",
    "Overlapping tools across servers",
    severity="warning",
    why="Two servers of one config that offer the same capability make the model choose a server as well "
    "as a tool, usually on wording alone.",
    fix="Drop one of the two from the config (`exclude_tools`), or describe what each server is for.",
    thresholds=("confusable_pair", "vocabulary_overlap"),
)
def cross_server_pairs(context: LintContext) -> Iterator[Hit]:
    for pair in confusable(context):
        if pair.cross_server:
            first, second = (context.catalog.by_name[name] for name in pair.tools)
            yield Hit(
                f"{_pair_message(pair)}, from servers {first.server!r} and {second.server!r}",
                tools=pair.tools,
                terms=pair.terms,
            )


@rule(
    "C003",
    "Too many tools",
    severity="warning",
    why="Selection accuracy degrades as a catalog grows: past a few dozen tools models pick wrong tools "
    "more often, and tool search (deferred loading) starts to pay.",
    fix="Split the server by domain, expose rare tools behind a mode, or use tool search.",
    thresholds=("max_tools",),
)
def too_many_tools(context: LintContext) -> Iterator[Hit]:
    count = len(context.tools)
    if count > context.thresholds.max_tools:
        yield Hit(
            f"the catalog has {plural(count, 'tool')} (more than {number(context.thresholds.max_tools)})"
        )


def vague_tools(context: LintContext) -> list[str]:
    """Tools whose description has fewer content words than ``vague_words``."""
    limit = context.thresholds.vague_words
    return [
        tool.name
        for tool, found in zip(context.tools, context.description_words, strict=True)
        if len(found) < limit
    ]


@rule(
    "C004",
    "Refusal-collapse risk",
    severity="warning",
    why='On a large catalog of vague descriptions a model given an out-of-scope request "finds" a '
    "plausible tool instead of declining (refusal fell to 50 % in mcpgrade's calibration).",
    fix="Sharpen the vague descriptions (what each tool is NOT for), and measure refusal with enough "
    "refuse fixtures (F006).",
    thresholds=("refusal_risk_tools", "vague_share", "vague_words"),
)
def refusal_collapse(context: LintContext) -> Iterator[Hit]:
    thresholds = context.thresholds
    count = len(context.tools)
    if count < thresholds.refusal_risk_tools:
        return
    vague = vague_tools(context)
    share = len(vague) / count
    if share >= thresholds.vague_share:
        shown = ", ".join(vague[:5]) + (f" and {len(vague) - 5} more" if len(vague) > 5 else "")
        yield Hit(
            f"{plural(count, 'tool')}, {len(vague)} ({share:.0%}) with vague descriptions (fewer than "
            f"{thresholds.vague_words} content words: {shown}): out-of-scope requests may get a plausible "
            "tool call instead of a refusal"
        )


@rule(
    "C005",
    "Mixed languages",
    severity="info",
    why="Some descriptions written only in a CJK script and others only in Latin script bias selection "
    "towards the language of the request.",
    fix="Write every description in one language (English reaches the most models).",
)
def mixed_scripts(context: LintContext) -> Iterator[Hit]:
    cjk_only = [
        tool.name
        for tool in context.tools
        if _CJK.search(tool.description) and not _LATIN.search(tool.description)
    ]
    latin_only = [
        tool.name
        for tool in context.tools
        if _LATIN.search(tool.description) and not _CJK.search(tool.description)
    ]
    if cjk_only and latin_only:
        yield Hit(
            f"{plural(len(cjk_only), 'description')} {'is' if len(cjk_only) == 1 else 'are'} in a CJK "
            f"script only ({', '.join(cjk_only[:3])}) and {len(latin_only)} in Latin script only",
            tools=(cjk_only[0],),
        )
