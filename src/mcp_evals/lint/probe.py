"""The live probe (``mcp-evals lint --probe``): does a server enforce its schema, and say what is wrong?

Every tool that declares required parameters is called once with ``{}``. A server that checks its
input rejects the call before doing anything, so the probe has no side effect on a correct server;
tools without required parameters are never called (``{}`` would be a real call). Nor are tools that
require task-based execution (``execution.taskSupport: required``: a plain call is refused for that
reason, not for its arguments) and tools annotated ``destructiveHint: true`` (a server that does not
check its input would run them), unless asked (``destructive``); the report says which were skipped.
The verdicts are pure functions of (tool, answer) pairs — ``probe_plan`` and ``is_actionable`` — so
they are tested without a server; ``run_probe`` adapts any async "call this tool" function to them.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence

from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.config.model import Config
from mcp_evals.lint.context import ProbeResult, ProbeSkip

# Words that say what was expected, even without naming the parameter.
_EXPECTATION = re.compile(
    r"(?i)\b(?:expected|must (?:be|have|include|provide|contain)|(?:is|are) required|"
    r"required (?:field|parameter|property|argument|key)s?|missing (?:required )?"
    r"(?:field|parameter|property|argument|key|value)s?|field required)\b"
)
MIN_ACTIONABLE_CHARS = 8

ToolCaller = Callable[[Tool, dict[str, object]], Awaitable[ProbeResult]]


TASK_REQUIRED = "requires task-based execution (execution.taskSupport: required)"
DESTRUCTIVE = "annotated destructiveHint: true (--probe-destructive calls it)"
UNMARKED = "not annotated readOnlyHint: true or destructiveHint: false (an audit calls only those)"


def marked_safe(annotations: dict[str, object] | None, task_support: str | None) -> bool:
    """Marked safe to call with ``{}``: read-only, or not destructive; never task-required.

    An unmarked tool counts as destructive (the protocol's default for ``destructiveHint``): the rule
    of ``mcp-evals audit``, which calls the tools of a server nobody configured.
    """
    if task_support == "required":
        return False
    hints = annotations or {}
    return hints.get("readOnlyHint") is True or hints.get("destructiveHint") is False


def probe_plan(
    catalog: Catalog, *, destructive: bool = False, marked_safe_only: bool = False
) -> tuple[list[Tool], list[ProbeSkip]]:
    """The tools the probe calls (those with at least one required parameter), and those it skips.

    ``marked_safe_only``: call only the tools ``marked_safe`` (``audit``); otherwise skip only the
    task-required and, unless ``destructive``, those annotated ``destructiveHint: true`` (``lint``).
    """
    targets: list[Tool] = []
    skipped: list[ProbeSkip] = []
    for tool in catalog.tools:
        if not tool.required:
            continue
        if tool.task_support == "required":
            skipped.append(ProbeSkip(tool.name, TASK_REQUIRED))
        elif not destructive and (tool.annotations or {}).get("destructiveHint") is True:
            skipped.append(ProbeSkip(tool.name, DESTRUCTIVE))
        elif marked_safe_only and not marked_safe(tool.annotations, tool.task_support):
            skipped.append(ProbeSkip(tool.name, UNMARKED))
        else:
            targets.append(tool)
    return targets, skipped


def probe_targets(catalog: Catalog, *, destructive: bool = False) -> list[Tool]:
    """The tools the probe calls."""
    return probe_plan(catalog, destructive=destructive)[0]


def is_actionable(text: str, required: Sequence[str]) -> bool:
    """An error a model can act on names a missing parameter or says what was expected."""
    if len(text.strip()) < MIN_ACTIONABLE_CHARS:
        return False
    lowered = text.lower()
    if any(re.search(rf"(?<![\w]){re.escape(name.lower())}(?![\w])", lowered) for name in required):
        return True
    return _EXPECTATION.search(text) is not None


async def run_probe(catalog: Catalog, call: ToolCaller, *, destructive: bool = False) -> list[ProbeResult]:
    """Call every probe target with ``{}`` through ``call`` and collect the answers, in catalog order."""
    return [await call(tool, {}) for tool in probe_targets(catalog, destructive=destructive)]


async def probe_servers(
    config: Config, catalog: Catalog, *, destructive: bool = False, timeout: float | None = None
) -> list[ProbeResult]:
    """The probe against the config's live servers: one session per server that has targets.

    Each call waits at most the server's ``timeout:`` (``timeout`` overrides it), documented in
    docs/lint.md: a server that never answers costs that, not a fixed 30 s per tool. A call the server
    answers with a protocol error (the SDK's own input check, say) is an error answer too: the server
    refused the call, with that message.
    """
    from mcp_evals.errors import ToolCallError
    from mcp_evals.servers.client import open_session

    targets = probe_targets(catalog, destructive=destructive)
    answers: dict[str, ProbeResult] = {}
    for server in config.servers:
        mine = [tool for tool in targets if tool.server == server.name]
        if not mine or server.snapshot:
            continue
        async with open_session(server, config, list_tools=False) as session:
            for tool in mine:
                try:
                    result = await session.call_tool(
                        tool.wire_name, {}, timeout=server.timeout if timeout is None else timeout
                    )
                except ToolCallError as error:
                    answers[tool.name] = ProbeResult(tool=tool.name, is_error=True, text=error.message)
                    continue
                answers[tool.name] = ProbeResult(tool=tool.name, is_error=result.is_error, text=result.text)
    return [answers[tool.name] for tool in targets if tool.name in answers]
