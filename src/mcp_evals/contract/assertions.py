"""The assertions of a step, as pure functions of what the step observed.

A tool error is a result (``isError``), not an exception, and it fails the step unless the step
expects it (``is_error: true``). What a mode cannot observe is *skipped* with the reason, never
passed: simulation mode measures no latency and runs no tool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcp_evals import patterns
from mcp_evals.contract.model import AssertionResult, Expect, Mode

SNIPPET = 160


@dataclass
class Observed:
    """What one step saw: its output, and what is known about the tool it called."""

    text: str
    structured: Any
    is_error: bool
    latency_ms: float | None
    mode: Mode
    tool: str
    listed: bool | None = None
    output_schema: dict[str, Any] | None = None
    reached: bool = True
    seconds: float = patterns.DEFAULT_SECONDS  # what a user's regular expression may take: the step timeout

    def json(self) -> tuple[bool, Any]:
        """(True, value): ``structuredContent``, else the output parsed as JSON; (False, None) if neither."""
        if self.structured is not None:
            return True, self.structured
        try:
            return True, json.loads(self.text)
        except ValueError:
            return False, None


def shorten(text: str, limit: int = SNIPPET) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def snippet(text: str, limit: int = SNIPPET) -> str:
    """Output quoted for a message: one line, cut to ``limit``."""
    return repr(shorten(text, limit))


def _texts(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _passed(kind: str, message: str) -> AssertionResult:
    return AssertionResult(kind=kind, status="passed", message=message)


def _failed(kind: str, message: str) -> AssertionResult:
    return AssertionResult(kind=kind, status="failed", message=message)


def _skipped(kind: str, message: str) -> AssertionResult:
    return AssertionResult(kind=kind, status="skipped", message=message)


def check(expect: Expect, observed: Observed) -> list[AssertionResult]:
    """Every assertion ``expect`` gives except ``llm_judge`` and ``snapshot`` (the runner's)."""
    results: list[AssertionResult] = []
    given = expect.given
    if "is_error" in given:
        results.append(check_is_error(bool(expect.is_error), observed))
    elif observed.is_error:
        results.append(_failed("is_error", f"the tool reported an error (isError): {snippet(observed.text)}"))
    for kind in given:
        if kind in ("is_error", "llm_judge", "snapshot"):  # the runner asks the judge and the snapshots
            continue
        results.append(CHECKS[kind](getattr(expect, kind), observed))
    return results


def check_is_error(expected: bool, observed: Observed) -> AssertionResult:
    if observed.is_error == expected:
        return _passed("is_error", "the tool reported an error" if expected else "no tool error")
    if expected:
        return _failed("is_error", f"expected a tool error, got a result: {snippet(observed.text)}")
    return _failed("is_error", f"the tool reported an error: {snippet(observed.text)}")


def check_contains(value: str | list[str], observed: Observed) -> AssertionResult:
    missing = [text for text in _texts(value) if text not in observed.text]
    if missing:
        return _failed("output_contains", f"{missing[0]!r} is not in the output {snippet(observed.text)}")
    return _passed("output_contains", "found " + ", ".join(repr(text) for text in _texts(value)))


def check_not_contains(value: str | list[str], observed: Observed) -> AssertionResult:
    present = [text for text in _texts(value) if text in observed.text]
    if present:
        return _failed("output_not_contains", f"{present[0]!r} is in the output {snippet(observed.text)}")
    return _passed("output_not_contains", "absent: " + ", ".join(repr(text) for text in _texts(value)))


def check_equals(value: Any, observed: Observed) -> AssertionResult:
    if isinstance(value, str):
        if observed.text == value:
            return _passed("output_equals", "the output text is exactly as expected")
        return _failed("output_equals", f"expected {snippet(value)}, got {snippet(observed.text)}")
    parsed, data = observed.json()
    if not parsed:
        return _failed("output_equals", f"expected JSON, the output is not JSON: {snippet(observed.text)}")
    if data == value:
        return _passed("output_equals", "the JSON output is exactly as expected")
    shown = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return _failed(
        "output_equals",
        f"expected {snippet(json.dumps(value, ensure_ascii=False, sort_keys=True))}, got {snippet(shown)}",
    )


def check_matches(pattern: str, observed: Observed) -> AssertionResult:
    try:
        found = patterns.search(pattern, observed.text, seconds=observed.seconds)
    except patterns.PatternTimeout as error:
        return _failed("output_matches", str(error))
    if found:
        return _passed("output_matches", f"matches /{pattern}/")
    return _failed("output_matches", f"/{pattern}/ does not match the output {snippet(observed.text)}")


def schema_problem(schema: dict[str, Any], data: Any) -> str | None:
    """The first way ``data`` breaks ``schema`` (with where), or None when it validates.

    A schema that cannot check anything (a ``$ref`` leaving it, which is never fetched) is a problem.
    """
    from mcp_evals import schema_refs  # only for the steps that check a schema: jsonschema is slow to import

    try:
        error = schema_refs.best_error(schema_refs.validator(schema), data)
    except schema_refs.UnusableSchema as unusable:
        return str(unusable)
    if error is None:
        return None
    where = "$" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
    )
    return f"at {where}: {error.message}"


def check_schema(schema: dict[str, Any], observed: Observed) -> AssertionResult:
    parsed, data = observed.json()
    if not parsed:
        return _failed("schema_match", f"the output is not JSON: {snippet(observed.text)}")
    problem = schema_problem(schema, data)
    source = "structuredContent" if observed.structured is not None else "the output (as JSON)"
    if problem is None:
        return _passed("schema_match", f"{source} matches the schema")
    return _failed("schema_match", f"{source} does not match the schema: {shorten(problem, 300)}")


def check_output_schema(wanted: bool, observed: Observed) -> AssertionResult:
    kind = "structured_matches_output_schema"
    if not wanted:
        return _skipped(kind, "`structured_matches_output_schema: false` checks nothing")
    if observed.listed is None:
        return _skipped(kind, "no catalog in simulation mode: the tool's outputSchema is unknown")
    if not observed.listed:
        return _failed(kind, f"the server does not list {observed.tool!r}, so it declares no outputSchema")
    if observed.output_schema is None:
        return _failed(kind, f"{observed.tool!r} declares no outputSchema")
    if observed.structured is None:
        return _failed(kind, "the result has no structuredContent to check against the outputSchema")
    problem = schema_problem(observed.output_schema, observed.structured)
    if problem is None:
        return _passed(kind, "structuredContent matches the tool's outputSchema")
    return _failed(kind, f"structuredContent breaks the tool's outputSchema: {shorten(problem, 300)}")


def check_tool_called(name: str, observed: Observed) -> AssertionResult:
    """The tool the server ran: the one called, listed by the server, and reached (not refused as unknown)."""
    if name != observed.tool:
        return _failed("tool_called", f"the step called {observed.tool!r}, not {name!r}")
    if observed.mode == "simulation" and observed.listed is None:
        return _skipped("tool_called", "no server runs tools in simulation mode")
    if observed.listed is False:
        return _failed("tool_called", f"the server does not list {name!r}: it cannot have run it")
    if not observed.reached:
        return _failed("tool_called", f"the server did not run {name!r}: the call was refused")
    if observed.mode == "simulation":
        return _passed("tool_called", f"{name!r} is in the saved catalog (simulation: nothing ran)")
    return _passed("tool_called", f"the server ran {name!r}")


def check_latency(limit_ms: float, observed: Observed) -> AssertionResult:
    if observed.latency_ms is None:
        return _skipped("latency_under", "simulation mode measures no latency")
    if observed.latency_ms < limit_ms:
        return _passed("latency_under", f"{observed.latency_ms:.0f} ms < {limit_ms:g} ms")
    return _failed("latency_under", f"took {observed.latency_ms:.0f} ms, the limit is {limit_ms:g} ms")


CHECKS: dict[str, Any] = {
    "output_contains": check_contains,
    "output_not_contains": check_not_contains,
    "output_equals": check_equals,
    "output_matches": check_matches,
    "schema_match": check_schema,
    "structured_matches_output_schema": check_output_schema,
    "tool_called": check_tool_called,
    "latency_under": check_latency,
}
