"""F — fixtures: whether the fixture set measures what it claims to, fairly."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

from mcp_evals.catalog.model import Tool
from mcp_evals.fixtures.model import AnyValue, Contains, Fixture, OneOf, Regex, parse_expectation
from mcp_evals.fixtures.validate import fixture_area
from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.registry import rule
from mcp_evals.stats import wilson_interval
from mcp_evals.text import name_parts
from mcp_evals.wording import plural

# A concrete value in a query: quoted text, an email, a URL, a path, anything with a digit, a snake_id.
_VALUE = re.compile(
    r"""(?x)
    "[^"]+" | (?<!\w)'[^']+'(?!\w) | `[^`]+`
    | [\w.+-]+@[\w-]+\.[\w.-]+
    | https?://\S+
    | (?<![\w/])/[\w./-]+
    | (?<![\w-])[\w.:/-]*\d[\w.:/-]*
    | (?<![\w-])[A-Za-z]+_[A-Za-z0-9_]+
    """
)
# The collapse the calibration saw (refusal at 50 %) must be told apart from a healthy catalog (80 %).
COLLAPSED_RATE = 0.5
HEALTHY_RATE = 0.8


def _identifier_pattern(names: Sequence[str]) -> re.Pattern[str] | None:
    names = sorted({name for name in names if name}, key=lambda name: (-len(name), name))
    if not names:
        return None
    alternatives = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?i)(?<![\w-])(?:{alternatives})(?![\w-])")


def _multi_part(name: str) -> bool:
    return len(name_parts(name)) >= 2


@rule(
    "F001",
    "Tool vocabulary in a query",
    severity="warning",
    why='A query that contains a tool name or a parameter key verbatim ("run search_tickets") is '
    "answered by string matching; users do not talk like that, so it inflates accuracy.",
    fix="Rewrite the query in a user's own words.",
    needs="fixtures",
)
def vocabulary_leak(context: LintContext) -> Iterator[Hit]:
    tools = [name for tool in context.tools for name in (tool.name, tool.wire_name) if _multi_part(name)]
    keys = [name for names in context.property_names.values() for name in names if _multi_part(name)]
    tool_pattern, key_pattern = _identifier_pattern(tools), _identifier_pattern(keys)
    for fixture in context.fixtures or ():
        for pattern, what in ((tool_pattern, "the tool name"), (key_pattern, "the parameter key")):
            match = pattern.search(fixture.query) if pattern else None
            if match:
                yield Hit(
                    f"fixture {fixture.id!r}: the query contains {what} {match.group(0)!r} verbatim",
                    tools=tuple(fixture.expected_tools),
                    fixture=fixture,
                )
                break


def _expected_text(value: object) -> list[str]:
    """The text(s) a query should contain for an expected argument to be given in it."""
    matcher = parse_expectation(value)
    if isinstance(matcher, Contains):
        return [matcher.contains]
    if isinstance(matcher, OneOf):
        return [str(item) for item in matcher.one_of if isinstance(item, str | int | float)]
    if isinstance(matcher, AnyValue | Regex):
        return []
    if isinstance(matcher, str | int | float) and not isinstance(matcher, bool):
        return [str(matcher)]
    return []


def _identifier(value: str) -> str:
    """A value as written, without its quotes and trailing punctuation, to compare with identifiers."""
    return value.strip("\"'`").rstrip(".,:;/-").lower()


def missing_values(
    fixture: Fixture, tool: Tool, required: Sequence[str], identifiers: Collection[str] = ()
) -> list[str]:
    """The required pipeline parameters for which the query carries no concrete value.

    ``identifiers`` (the catalog's tool names and parameter keys) are vocabulary, never values: "call
    get_user" names the tool (F001) but gives no user.
    """
    query = fixture.query.lower()
    known = {name.lower() for name in identifiers}
    values = [
        match.group(0).lower()
        for match in _VALUE.finditer(fixture.query)
        if _identifier(match.group(0)) not in known
    ]
    missing = []
    for name in required:
        expected = [text.lower() for text in _expected_text(fixture.expected_args.get(name)) if text]
        given = next((text for text in expected if text in query), None)
        if given is not None:
            values = [value for value in values if given not in value and value not in given]
            continue
        if values:
            values.pop(0)
            continue
        missing.append(name)
    return missing


@rule(
    "F002",
    "Pipeline value missing from the query",
    severity="warning",
    why="A tool that needs an id or cursor from another tool cannot be called in one step unless the query "
    "gives that value; a model that first calls the other tool (rightly) is scored wrong. This made "
    "capable models look broken in mcpgrade's calibration (38 % → 100 % once fixed).",
    fix='Put a concrete value in the query ("reply to thread 1721581200.123456"), or make it `clarify`.',
    needs="fixtures",
)
def pipeline_value_missing(context: LintContext) -> Iterator[Hit]:
    by_name = context.catalog.by_name
    identifiers = {name for tool in context.tools for name in (tool.name, tool.wire_name)} | {
        name for names in context.property_names.values() for name in names
    }
    for fixture in context.fixtures or ():
        if fixture.kind != "select":
            continue
        tool = next((by_name[name] for name in fixture.expected_tools if name in by_name), None)
        if tool is None:
            continue
        required = [name for name, is_required in context.pipeline[tool.name] if is_required]
        missing = missing_values(fixture, tool, required, identifiers) if required else []
        if missing:
            yield Hit(
                f"fixture {fixture.id!r} expects {tool.name!r}, which needs {', '.join(missing)} from "
                "another tool, but the query gives no concrete value for "
                + ("it" if len(missing) == 1 else "them"),
                tools=(tool.name,),
                fixture=fixture,
                parameter=missing[0],
            )


@rule(
    "F003",
    "Tool without fixtures",
    severity="warning",
    why="A tool no fixture expects is never measured: a regression in its description goes unnoticed.",
    fix="Add select fixtures for it, or list it in `exclude_tools` if users never ask for it.",
    needs="fixtures",
)
def uncovered_tools(context: LintContext) -> Iterator[Hit]:
    expected = {name for fixture in context.fixtures or () for name in fixture.expected_tools}
    for tool in context.included:
        if tool.name not in expected:
            yield Hit(f"no fixture expects {tool.name!r}", tools=(tool.name,))


@rule(
    "F004",
    "Area without fixtures",
    severity="warning",
    why="An area with no fixture has no accuracy of its own, and no gate can protect it.",
    fix="Add fixtures for the area's tools.",
    needs="fixtures",
)
def uncovered_areas(context: LintContext) -> Iterator[Hit]:
    area_by_name = context.catalog.area_by_name
    covered = {fixture_area(fixture, area_by_name) for fixture in context.fixtures or ()}
    areas = sorted({tool.area for tool in context.included})
    for area in areas:
        if area not in covered:
            tools = [tool.name for tool in context.included if tool.area == area]
            yield Hit(
                f"area {area!r} ({plural(len(tools), 'tool')}) has no fixture",
                tools=(tools[0],),
                fixture_set=True,
            )


@rule(
    "F005",
    "No refuse fixtures",
    severity="warning",
    why="Without a request no tool can serve, the eval never sees a model act when it should decline — "
    "the failure that costs most in production.",
    fix="Add `kind: refuse` fixtures near the catalog's edges (plausible, but out of scope).",
    needs="fixtures",
)
def no_refuse(context: LintContext) -> Iterator[Hit]:
    fixtures = context.fixtures or ()
    if fixtures and not any(fixture.kind == "refuse" for fixture in fixtures):
        yield Hit(
            f"none of the {plural(len(fixtures), 'fixture')} is a refuse fixture"
            if len(fixtures) > 1
            else "the one fixture is not a refuse fixture",
            fixture_set=True,
        )


def collapsed_interval(total: int) -> tuple[float, float]:
    """The Wilson 95 % interval of a 50 % (collapsed) refusal rate measured on ``total`` fixtures."""
    return wilson_interval(COLLAPSED_RATE * total, total)


def fixtures_to_tell_collapse() -> int:
    """The fewest refuse/clarify fixtures for which a measured 50 % refusal rate is, at 95 %, told
    apart from a healthy 80 %: the interval of 50 % ends below 80 %."""
    total = 1
    while collapsed_interval(total)[1] >= HEALTHY_RATE:
        total += 1
    return total


def _shown(interval: tuple[float, float]) -> str:
    return f"{interval[0]:.0%}–{interval[1]:.0%}"


@rule(
    "F006",
    "Too few refuse and clarify fixtures",
    severity="warning",
    why="Refusal collapses on large, vague catalogs (C004); with a handful of refuse/clarify fixtures its "
    "interval is too wide to see it.",
    fix="Add refuse and clarify fixtures until their number reaches the threshold.",
    thresholds=("min_refusal_fixtures",),
    needs="fixtures",
)
def too_few_refusals(context: LintContext) -> Iterator[Hit]:
    fixtures = context.fixtures or ()
    if not fixtures:
        return
    count = sum(1 for fixture in fixtures if fixture.kind in ("refuse", "clarify"))
    target = context.thresholds.min_refusal_fixtures
    if count >= target:
        return
    yield Hit(
        f"{plural(count, 'refuse/clarify fixture')}: a measured refusal rate of 50 % would have a 95 % "
        f"interval of {_shown(collapsed_interval(count))}; "
        f"{target} give {_shown(collapsed_interval(target))} "
        f"(at least {fixtures_to_tell_collapse()} tell a collapse to {COLLAPSED_RATE:.0%} from a healthy "
        f"{HEALTHY_RATE:.0%})",
        fixture_set=True,
    )
