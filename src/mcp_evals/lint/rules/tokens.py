"""T — token cost: what the catalog costs on every request a model answers."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.registry import rule
from mcp_evals.wording import number, plural

BOILERPLATE_CHARS = 40
_SPACES = re.compile(r"\s+")


@rule(
    "T001",
    "Catalog too large",
    severity="warning",
    why="Every request carries the whole catalog: a large one is a tax on each model call, and a long "
    "context of tool definitions dilutes attention.",
    fix="Trim descriptions and schemas, drop tools users never need, or split the server by domain.",
    thresholds=("max_catalog_tokens",),
)
def catalog_too_large(context: LintContext) -> Iterator[Hit]:
    total = sum(context.tool_tokens.values())
    limit = context.thresholds.max_catalog_tokens
    if total > limit:
        yield Hit(
            f"the catalog's tool definitions are about {plural(total, 'token')} (more than {number(limit)})"
        )


@rule(
    "T002",
    "Tool definition too large",
    severity="warning",
    why="One bloated definition usually means boilerplate prose or an over-nested schema, paid for on "
    "every request.",
    fix="Shorten the description, flatten the schema, remove repeated text.",
    thresholds=("max_tool_tokens",),
)
def tool_too_large(context: LintContext) -> Iterator[Hit]:
    limit = context.thresholds.max_tool_tokens
    for tool in context.tools:
        tokens = context.tool_tokens[tool.name]
        if tokens > limit:
            yield Hit(
                f"the definition of {tool.name!r} is about {plural(tokens, 'token')} "
                f"(more than {number(limit)})",
                tools=(tool.name,),
            )


@rule(
    "T003",
    "Repeated boilerplate",
    severity="warning",
    why="The same opening or closing sentence in many descriptions multiplies its token cost and tells "
    "the tools apart not at all.",
    fix="Say it once, in the server's instructions, and keep each description about its own tool.",
    thresholds=("boilerplate_tools",),
)
def boilerplate(context: LintContext) -> Iterator[Hit]:
    openings: dict[str, list[str]] = defaultdict(list)
    endings: dict[str, list[str]] = defaultdict(list)
    for tool in context.tools:
        text = _SPACES.sub(" ", tool.description.strip().lower())
        if len(text) < BOILERPLATE_CHARS * 2:
            continue
        openings[text[:BOILERPLATE_CHARS]].append(tool.name)
        endings[text[-BOILERPLATE_CHARS:]].append(tool.name)
    for where, groups in (("open", openings), ("end", endings)):
        for text, names in groups.items():
            if len(names) >= context.thresholds.boilerplate_tools:
                shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
                yield Hit(
                    f"{len(names)} descriptions {where} with the same text ({text.strip()!r}): {shown}",
                    tools=(names[0],),
                )
