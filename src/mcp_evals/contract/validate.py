"""``mcp-evals contract validate``: cases checked against the tools their servers list, calling none.

Loading has already checked each case's shape and its ``{{steps.…}}`` references. Here every step
is held against its server's catalog: the tool exists, the input fits its input schema (parts that
hold a reference are filled in at run time and are not judged; a step that expects a tool error may
send bad input on purpose), and the assertions can hold at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from mcp_evals import schema_refs
from mcp_evals.config.documents import dotted
from mcp_evals.contract.chaining import step_into, walk
from mcp_evals.contract.model import Case
from mcp_evals.contract.placeholders import left_to_fill, placeholders
from mcp_evals.errors import where
from mcp_evals.suggest import did_you_mean, suggest

Listing = Mapping[str, Mapping[str, Any]]


class CaseProblem(BaseModel):
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


def _problem(case: Case, location: tuple[str | int, ...], message: str) -> CaseProblem:
    return CaseProblem(
        location=where(case.shown_path, case.line_of(location), dotted(location)), message=message
    )


def _holds_reference(value: Any, path: tuple[str | int, ...]) -> bool:
    for part in path:
        found, value = step_into(value, part)
        if not found:
            return False
    return any("{{" in text for _, text in walk(value))


def validate_case(case: Case, listing: Listing | None) -> list[CaseProblem]:
    """The problems of one case against its server's tools (``listing``: wire-shape tools by name)."""
    problems: list[CaseProblem] = []
    unwritten: dict[int, list[tuple[str | int, ...]]] = {}
    for index, step in enumerate(case.steps):  # a scaffold's placeholders, with a catalog or without
        for location, text in placeholders(step.input):
            unwritten.setdefault(index, []).append(location)
            problems.append(_problem(case, ("steps", index, "input", *location), left_to_fill(text)))
    if listing is None:
        return problems
    for index, step in enumerate(case.steps):
        tool = listing.get(step.tool)
        if tool is None:
            hint = did_you_mean(suggest(step.tool, listing, limit=1), lead="; ")
            problems.append(
                _problem(case, ("steps", index, "tool"), f"the server lists no tool {step.tool!r}{hint}")
            )
            continue
        schema = tool.get("inputSchema")
        # A step that expects a tool error may send bad input on purpose: that is what it tests.
        if isinstance(schema, dict) and step.expect.is_error is not True:
            try:
                errors = sorted(
                    schema_refs.errors(schema, step.input), key=lambda item: list(item.absolute_path)
                )
            except schema_refs.UnusableSchema as unusable:
                errors = []
                problems.append(
                    _problem(case, ("steps", index, "input"), f"{step.tool!r}: input not checked: {unusable}")
                )
            for error in errors:
                path = tuple(error.absolute_path)
                if _holds_reference(step.input, path):
                    continue  # filled in at run time
                if any(path[: len(location)] == location for location in unwritten.get(index, [])):
                    continue  # reported above: not written yet
                location = ("steps", index, "input", *path)
                problems.append(
                    _problem(
                        case, location, f"does not fit the input schema of {step.tool!r}: {error.message}"
                    )
                )
        expect = step.expect
        if expect.structured_matches_output_schema and not isinstance(tool.get("outputSchema"), dict):
            problems.append(
                _problem(
                    case,
                    ("steps", index, "expect", "structured_matches_output_schema"),
                    f"{step.tool!r} declares no outputSchema, so this assertion cannot pass",
                )
            )
        if expect.tool_called is not None and expect.tool_called != step.tool:
            problems.append(
                _problem(
                    case,
                    ("steps", index, "expect", "tool_called"),
                    f"the step calls {step.tool!r}, so `tool_called: {expect.tool_called}` cannot pass",
                )
            )
    return problems
