"""``mcp-evals contract fuzz``: arguments a tool's input schema refuses, and what the server does with them.

For each tool the server lists, calls built from its ``inputSchema``: a required argument left out,
an argument of the wrong type, ``null`` where it is not allowed, a value outside its ``enum``, an
unknown argument where ``additionalProperties`` is false (each with valid values for the rest), and,
for a tool that only reads, a 1 MiB string where a string goes. A refused call must come back as a
protocol error (-32602, invalid params) or a result with ``isError``; anything else is a *finding*:
the call was accepted, answered with another error code, the server crashed, or it did not answer
in time. A crashed or stuck server is started again for the next call.

Which tools are called (``callable``): by default a tool annotated read-only, and a tool annotated
idempotent and not destructive with refused arguments only (never a call its schema accepts);
``--include-writes`` adds the other tools not annotated destructive, ``--include-destructive`` every
tool. A tool that requires task-based execution is never called (it would not answer in one call).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.errors import ServerError, ToolCallError
from mcp_evals.wording import plural

INVALID_PARAMS = -32602
HUGE = 1024 * 1024
_MAX_PROPERTIES = 20
Reach = Literal["read-only", "writes", "destructive"]
Outcome = Literal["rejected", "answered", "accepted", "other-error", "crashed", "hung"]
FINDINGS: tuple[Outcome, ...] = ("crashed", "hung", "accepted", "other-error")
_WRONG: dict[str, Any] = {
    "string": 12345,
    "number": "not a number",
    "integer": "not a number",
    "boolean": "not a boolean",
    "array": {"not": "an array"},
    "object": ["not", "an", "object"],
}


@dataclass
class Probe:
    """One call: what is wrong with its arguments, and whether the schema refuses them."""

    tool: str
    what: str
    arguments: dict[str, Any]
    must_refuse: bool = True


def hints(tool: Mapping[str, Any]) -> dict[str, Any]:
    found = tool.get("annotations")
    return found if isinstance(found, dict) else {}


def callable_tool(tool: Mapping[str, Any], reach: Reach) -> tuple[bool, str]:
    """Whether fuzz may call ``tool`` at this reach, and (when not) why, with the flag that would.

    mcp-evals' own small rule over the MCP annotations: readOnlyHint, idempotentHint, destructiveHint
    as the server declares them (a hint it leaves out is not assumed), and a required task.
    """
    notes = hints(tool)
    execution = tool.get("execution")
    if isinstance(execution, dict) and execution.get("taskSupport") == "required":
        return False, "it requires task-based execution (one call does not run it)"
    if notes.get("readOnlyHint") is True or reach == "destructive":
        return True, ""
    if notes.get("destructiveHint") is True:
        return False, "annotated destructive: --include-destructive calls it"
    if notes.get("idempotentHint") is True or reach == "writes":
        return True, ""
    return False, "not annotated read-only or idempotent, it may write: --include-writes calls it"


def only_refused(tool: Mapping[str, Any], reach: Reach) -> bool:
    """A tool that may write gets only calls its schema refuses, unless writes were asked for."""
    return hints(tool).get("readOnlyHint") is not True and reach == "read-only"


def _types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    return [item for item in kind if isinstance(item, str)] if isinstance(kind, list) else []


def sample(schema: Any, depth: int = 0) -> Any:
    """A value ``schema`` takes (the simplest one), for the arguments a probe does not break."""
    if not isinstance(schema, dict) or depth > 6:
        return "fuzz"
    for key in ("const", "default"):
        if key in schema:
            return copy.deepcopy(schema[key])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return copy.deepcopy(schema["enum"][0])
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return copy.deepcopy(schema["examples"][0])
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return sample(schema[key][0], depth + 1)
    kinds = [kind for kind in _types(schema) if kind != "null"] or ["string"]
    kind = kinds[0]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = low + 1 if isinstance(low, int | float) else 1
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return True
    if kind == "array":
        count = schema.get("minItems", 0)
        return [sample(schema.get("items"), depth + 1) for _ in range(count if isinstance(count, int) else 0)]
    if kind == "object":
        properties = _mapping(schema.get("properties"))
        listed = schema.get("required")
        required = listed if isinstance(listed, list) else []
        return {name: sample(properties.get(name), depth + 1) for name in required if isinstance(name, str)}
    length = schema.get("minLength", 1)
    text = "fuzz" if schema.get("format") != "uri" else "https://example.invalid/fuzz"
    return text.ljust(length if isinstance(length, int) else 1, "z")


def probes(tool: Mapping[str, Any], *, refused_only: bool) -> Iterator[Probe]:
    """The calls for one tool, each breaking one thing and keeping the rest valid."""
    name = str(tool.get("name"))
    schema = _mapping(tool.get("inputSchema"))
    properties = _mapping(schema.get("properties"))
    listed = schema.get("required")
    required = [item for item in listed if isinstance(item, str)] if isinstance(listed, list) else []
    base = {item: sample(properties.get(item)) for item in required}
    for item in required:
        yield Probe(
            name, f"without the required `{item}`", {key: v for key, v in base.items() if key != item}
        )
    for item, part in list(properties.items())[:_MAX_PROPERTIES]:
        if not isinstance(part, dict):
            continue
        kinds = _types(part)
        if kinds and not any(key in part for key in ("anyOf", "oneOf")):
            wrong = next((value for kind, value in _WRONG.items() if kind in kinds[:1]), None)
            if wrong is not None and not _fits(wrong, kinds):
                yield Probe(
                    name, f"`{item}` of the wrong type ({type(wrong).__name__})", {**base, item: wrong}
                )
            if "null" not in kinds:
                yield Probe(name, f"`{item}` null", {**base, item: None})
        if isinstance(part.get("enum"), list) and "fuzz-not-one-of-them" not in part["enum"]:
            yield Probe(name, f"`{item}` not one of its values", {**base, item: "fuzz-not-one-of-them"})
        if "string" in kinds and not refused_only:
            limit = part.get("maxLength")
            refused = isinstance(limit, int) and limit < HUGE
            yield Probe(name, f"`{item}` a 1 MiB string", {**base, item: "x" * HUGE}, must_refuse=refused)
    if schema.get("additionalProperties") is False:
        yield Probe(name, "an argument it does not declare", {**base, "fuzz_unknown_argument": 1})


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _fits(value: Any, kinds: list[str]) -> bool:
    checks = {
        "string": isinstance(value, str),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }
    return any(checks.get(kind, False) for kind in kinds)


class Call(BaseModel):
    """What one probe came to."""

    tool: str
    what: str
    outcome: Outcome
    detail: str = ""
    latency_ms: float | None = None

    @property
    def finding(self) -> bool:
        return self.outcome in FINDINGS


class Skipped(BaseModel):
    tool: str
    why: str


class FuzzReport(BaseModel):
    """One server's fuzz run."""

    server: str
    reach: Reach
    calls: list[Call] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)
    restarts: int = 0

    @property
    def findings(self) -> list[Call]:
        order = {outcome: index for index, outcome in enumerate(FINDINGS)}
        return sorted((call for call in self.calls if call.finding), key=lambda call: order[call.outcome])

    @property
    def tools(self) -> int:
        return len({call.tool for call in self.calls})


def judge(probe: Probe, result: Any = None, error: BaseException | None = None) -> tuple[Outcome, str]:
    """What a probe's answer means: refused as it should be, or a finding (with what was seen)."""
    if isinstance(error, ToolCallError):
        if error.timed_out:
            return "hung", error.message.split(": ", 1)[-1]
        if error.code == INVALID_PARAMS:
            return "rejected", f"error {INVALID_PARAMS}"
        shown = error.message.split(": ", 1)[-1][:200]
        return ("other-error" if probe.must_refuse else "answered"), shown
    if isinstance(error, ServerError):
        return "crashed", str(error).splitlines()[0][:300]
    if result.is_error:
        return "rejected" if probe.must_refuse else "answered", f"isError: {result.text[:160]}"
    if probe.must_refuse:
        return "accepted", f"a result without isError: {result.text[:160]}"
    return "answered", result.text[:160]


@dataclass
class Fuzz:
    """Fuzzes one server's tools in one session, started again when the server crashes or hangs."""

    server: ServerConfig
    config: Config
    reach: Reach = "read-only"
    timeout: float = 10.0
    only: list[str] = field(default_factory=list)

    async def run(self) -> FuzzReport:
        from mcp_evals.servers.client import list_server_tools

        report = FuzzReport(server=self.server.name, reach=self.reach)
        listed = await list_server_tools(self.server, self.config)
        planned: list[Probe] = []
        for tool in listed.tools:
            name = str(tool.get("name"))
            if self.only and name not in self.only:
                continue
            allowed, why = callable_tool(tool, self.reach)
            if not allowed:
                report.skipped.append(Skipped(tool=name, why=why))
                continue
            planned += list(probes(tool, refused_only=only_refused(tool, self.reach)))
        remaining = list(planned)
        while remaining:
            remaining = await self._session(remaining, report)
        return report

    async def _session(self, remaining: list[Probe], report: FuzzReport) -> list[Probe]:
        """Run probes in one session until they are done or the server must be started again."""
        from mcp_evals.servers.client import open_session

        async with open_session(self.server, self.config, list_tools=False) as session:
            for index, probe in enumerate(remaining):
                started = time.perf_counter()
                try:
                    result = await session.call_tool(probe.tool, probe.arguments, timeout=self.timeout)
                except ServerError as error:
                    outcome, detail = judge(probe, error=error)
                else:
                    outcome, detail = judge(probe, result=result)
                took = (time.perf_counter() - started) * 1000
                report.calls.append(
                    Call(tool=probe.tool, what=probe.what, outcome=outcome, detail=detail, latency_ms=took)
                )
                if outcome in ("crashed", "hung"):
                    report.restarts += 1
                    return remaining[index + 1 :]
        return []


def render_console(reports: list[FuzzReport]) -> str:
    from mcp_evals.report.escape import plain

    lines: list[str] = []
    for report in reports:
        found = report.findings
        again = (
            f" · the server was started again {plural(report.restarts, 'time')}" if report.restarts else ""
        )
        lines.append(
            f"mcp-evals contract fuzz: {plural(len(found), 'finding')} in "
            f"{plural(report.tools, 'tool')} of server {plain(report.server)} "
            f"({plural(len(report.calls), 'call')}, {report.reach})" + (again if report.restarts else "")
        )
        for call in found:
            lines.append(
                f"FINDING  {plain(call.tool, 80)}: {call.what} — {call.outcome}: {plain(call.detail, 240)}"
            )
        refused = sum(1 for call in report.calls if call.outcome == "rejected")
        lines.append(f"refused as they should be: {plural(refused, 'call')}")
        for skipped in report.skipped:
            lines.append(f"not called: {plain(skipped.tool, 80)} — {skipped.why}")
        lines.append("")
    return "\n".join(lines)


def render_json(reports: list[FuzzReport]) -> str:
    import json

    documents = [
        {
            **report.model_dump(mode="json"),
            "findings": [call.model_dump(mode="json") for call in report.findings],
        }
        for report in reports
    ]
    return json.dumps({"servers": documents}, indent=2, ensure_ascii=False) + "\n"
