"""One isolated run around an MCP session: the one sequence contract cases and sessions both use.

1. a fresh sandbox, seeded with the ``state:`` files;
2. the setup commands, then the server (its config pointed at the sandbox), then the setup tool calls;
3. the run itself (the caller's steps or model turns);
4. always — after a failed step, a timeout, a dropout, a cancellation (Ctrl-C, SIGTERM) — the teardown
   tool calls while the server is open, the server stopped, the teardown commands, the sandbox removed
   (or kept, and said where).

Teardown runs shielded from cancellation, each action within its own timeout, and every failure is
recorded in the run's ``IsolationReport``, never swallowed. The report also says what a run without a
sandbox changed in a store other runs share: files a stdio server wrote outside the sandbox (watched
before and after the run), and, on a shared HTTP server, tools called that are not marked read-only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from typing import Any

import anyio

from mcp_evals.config.isolation import IsolationReport
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.errors import McpEvalsError
from mcp_evals.servers.client import open_session
from mcp_evals.servers.sandbox import (
    Isolation,
    PlacedHook,
    Sandbox,
    SetupFailed,
    apply_sandbox,
    changed,
    fingerprint,
    isolation_kind,
    read_only_tools,
    run_command,
    substitute,
    watches,
)
from mcp_evals.servers.session import ServerSession

__all__ = ["IsolatedRun", "Isolation", "SetupFailed"]


class IsolatedRun:
    """One case or session's server, in its own sandbox, between its setup and its teardown.

    ``report`` is complete once ``open()`` has exited, whatever happened inside it. ``read_only``
    (the server's own tool names marked ``readOnlyHint``) is for a run that does not list tools;
    otherwise the listing says which are.
    """

    def __init__(
        self,
        server: ServerConfig,
        config: Config,
        isolation: Isolation,
        *,
        read_only: Collection[str] | None = None,
    ) -> None:
        self.server = server
        self.config = config
        self.isolation = isolation
        self.read_only = read_only
        self.report = IsolationReport(kind=isolation_kind(server, isolation))
        self.opened = False  # the server answered the handshake (a failure after it is the run's)

    @asynccontextmanager
    async def open(self, *, list_tools: bool = True) -> AsyncIterator[ServerSession]:
        """The session, once the setup succeeded; ``SetupFailed`` when it did not (teardown ran)."""
        try:
            sandbox = Sandbox.create()
        except SetupFailed as failure:
            self.report.setup_error = failure.message
            raise
        applied = apply_sandbox(self.server, sandbox.path)
        # With setup/teardown declared, they are the isolation: a store they reset is not reported.
        places = [] if self.isolation.hooks else watches(applied, self.config, sandbox.path)
        before = fingerprint(places)
        try:
            try:
                sandbox.seed(self.isolation.state)
                await self._commands(self.isolation.setup, sandbox, setup=True)
                async with open_session(applied, self.config, list_tools=list_tools) as session:
                    self.opened = True
                    first: int | None = None  # where the run's own calls start
                    try:
                        await self._tool_calls(session, self.isolation.setup, sandbox, setup=True)
                        first = len(session.called)
                        yield session
                    finally:
                        with anyio.CancelScope(shield=True):
                            self._check_calls(session.called[first:] if first is not None else [], session)
                            await self._tool_calls(session, self.isolation.teardown, sandbox, setup=False)
            except SetupFailed as failure:
                self.report.setup_error = failure.message
                raise
            finally:
                with anyio.CancelScope(shield=True):
                    await self._commands(self.isolation.teardown, sandbox, setup=False)
        finally:
            self.report.shared_writes = changed(before, fingerprint(places))
            if self.isolation.keep:
                self.report.sandbox = str(sandbox.path)
            else:
                sandbox.remove()

    async def _commands(self, hooks: tuple[PlacedHook, ...], sandbox: Sandbox, *, setup: bool) -> None:
        for placed in hooks:
            if placed.hook.run is None:
                continue
            problem = await run_command(placed, sandbox.path, shielded=not setup)
            if problem is None:
                continue
            if setup:
                raise SetupFailed(problem)
            self.report.teardown_errors.append(problem)

    async def _tool_calls(
        self, session: ServerSession, hooks: tuple[PlacedHook, ...], sandbox: Sandbox, *, setup: bool
    ) -> None:
        for placed in hooks:
            hook = placed.hook
            if hook.tool is None:
                continue
            problem: str | None = None
            try:
                with anyio.CancelScope(shield=not setup):
                    result = await session.call_tool(
                        hook.tool, _substituted(hook.arguments, sandbox), timeout=hook.timeout
                    )
            except McpEvalsError as error:
                problem = f"{hook.shown}: {error.message}"
            else:
                if result.is_error:
                    problem = f"{hook.shown} reported an error: {result.text[:300]}"
            if problem is None:
                continue
            if setup:
                raise SetupFailed(problem)
            self.report.teardown_errors.append(problem)

    def _check_calls(self, called: list[str], session: ServerSession) -> None:
        """On a shared server (HTTP, no setup/teardown), the tools called that may have changed it."""
        if self.report.kind != "shared":
            return
        read_only = set(self.read_only) if self.read_only is not None else read_only_tools(session.info.tools)
        self.report.unmarked_calls = [name for name in dict.fromkeys(called) if name not in read_only]


def _substituted(value: Any, sandbox: Sandbox) -> Any:
    """A tool call's arguments with ``${MCP_EVALS_SANDBOX}`` replaced in every string."""
    if isinstance(value, str):
        return substitute(value, sandbox.path)
    if isinstance(value, list):
        return [_substituted(item, sandbox) for item in value]
    if isinstance(value, dict):
        return {key: _substituted(item, sandbox) for key, item in value.items()}
    return value
