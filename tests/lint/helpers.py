"""Small catalogs and fixture sets for the lint tests, written the way a server publishes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_evals.catalog.model import Catalog, ServerInfo, build_catalog
from mcp_evals.config.model import LintOptions, LintThresholds
from mcp_evals.fixtures.model import Fixture, SourceLocation
from mcp_evals.lint.context import ProbeResult
from mcp_evals.lint.engine import lint
from mcp_evals.lint.model import Finding, LintReport
from mcp_evals.servers.model import Conformance

# Distinct descriptions, so a tool's default description trips no similarity rule.
DESCRIPTIONS = (
    "Search support tickets by free text across subjects and comments; returns the best matches first.",
    "Issue a refund for a paid invoice back to the original card and return the refund receipt.",
    "Post a chat message to a team channel and return the id of the posted message.",
    "Convert an amount between two currencies at today's exchange rate; returns the converted amount.",
    "Schedule a calendar event with attendees and a time slot, returning the new event.",
    "Resize an uploaded picture to a given width and height and give back a download link.",
    "Translate a paragraph of prose into another human language; returns the translated text.",
    "Measure the round-trip latency to a network host and report it in milliseconds.",
)


def tool(
    name: str,
    description: str | None = None,
    *,
    params: dict[str, Any] | None = None,
    required: Sequence[str] = (),
    schema: dict[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
    index: int = 0,
) -> dict[str, Any]:
    """One tools/list entry; ``params``: name → JSON Schema (a string: that type, with a description)."""
    if schema is None:
        properties = {
            key: {"type": value, "description": f"The {key}."} if isinstance(value, str) else value
            for key, value in (params or {}).items()
        }
        schema = {"type": "object", "properties": properties, "required": list(required)}
    wire: dict[str, Any] = {
        "name": name,
        "description": DESCRIPTIONS[index % len(DESCRIPTIONS)] if description is None else description,
        "inputSchema": schema,
    }
    if output_schema is not None:
        wire["outputSchema"] = output_schema
    return wire


def catalog(*tools: dict[str, Any], server: str = "demo") -> Catalog:
    return build_catalog([ServerInfo(name=server, transport="stdio", tools=list(tools))])


def servers(**listings: Sequence[dict[str, Any]]) -> Catalog:
    """A catalog of several servers (none prefixed: the tool names must differ)."""
    return build_catalog(
        [ServerInfo(name=name, transport="stdio", tools=list(tools)) for name, tools in listings.items()]
    )


def distinct(*names: str) -> Catalog:
    """Tools with these names and distinct default descriptions."""
    return catalog(*(tool(name, index=index) for index, name in enumerate(names)))


def fixture(
    id: str,
    query: str,
    tools: Sequence[str] = (),
    *,
    kind: str = "select",
    args: dict[str, Any] | None = None,
    line: int = 1,
    area: str | None = None,
) -> Fixture:
    item = Fixture.model_validate(
        {
            "id": id,
            "query": query,
            "expected_tools": list(tools),
            "kind": kind,
            "expected_args": args or {},
            "area": area,
        }
    )
    item.source = SourceLocation(file="fixtures/cases.yaml", line=line)
    return item


def run(
    source: Catalog,
    fixtures: Sequence[Fixture] | None = None,
    *,
    probe: Sequence[ProbeResult] | None = None,
    conformance: Sequence[Conformance] | None = None,
    **thresholds: Any,
) -> LintReport:
    options = LintOptions(thresholds=LintThresholds(**thresholds))
    return lint(source, fixtures, options, probe=probe, conformance=conformance)


def found(
    rule: str, source: Catalog, fixtures: Sequence[Fixture] | None = None, **options: Any
) -> list[Finding]:
    """The findings of one rule."""
    return [finding for finding in run(source, fixtures, **options).findings if finding.rule == rule]
