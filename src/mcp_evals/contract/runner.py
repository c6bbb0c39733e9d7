"""Running contract cases: each live case in a sandbox of its own, between its setup and teardown.

Cases run side by side up to the concurrency asked for; the steps of one case run in order, each
with its own timeout. A failing step stops its case unless the case (or the config) says to go on.
What a run produced is a ``ContractRun``: the record every report, comparison and gate reads.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from mcp_evals.config.isolation import IsolationReport
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.contract.assertions import Observed, check
from mcp_evals.contract.chaining import ChainingError, Output, resolve
from mcp_evals.contract.load import ContractSetup, Target, target_of
from mcp_evals.contract.model import (
    AssertionResult,
    Case,
    CaseResult,
    ContractRun,
    Status,
    Step,
    StepResult,
    StepStatus,
)
from mcp_evals.contract.placeholders import left_to_fill, placeholders, shown_location
from mcp_evals.contract.snapshots import Snapshots, options_of
from mcp_evals.contract.trials import fold
from mcp_evals.errors import McpEvalsError, ServerError, ToolCallError
from mcp_evals.servers.sandbox import Isolation

if TYPE_CHECKING:
    from mcp_evals.contract.judging import JudgeLike as Judge  # the model judge, or Unasked

OUTPUT_LIMIT = 4000
CaseDone = Callable[[CaseResult], Awaitable[None] | None]


def new_run_id(now: datetime | None = None) -> str:
    """Sortable and unique enough: ``20261201T101500Z-3f9a2c``."""
    moment = now or datetime.now(UTC)
    return f"{moment:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def git_sha(folder: Path, environ: Mapping[str, str] | None = None) -> str | None:
    """The commit checked out in ``folder`` (``git rev-parse HEAD``), else ``GITHUB_SHA``, else None."""
    try:
        found = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
        if found.returncode == 0 and found.stdout.strip():
            return found.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    value = (os.environ if environ is None else environ).get("GITHUB_SHA", "").strip()
    return value or None


def output_text(text: str, structured: Any) -> str:
    """What assertions and ``{{steps.<id>.output}}`` see: the text blocks, else the structured JSON."""
    if text or structured is None:
        return text
    return json.dumps(structured, ensure_ascii=False, separators=(",", ":"))


def step_status(assertions: list[AssertionResult]) -> StepStatus:
    if any(item.status == "failed" for item in assertions):
        return "failed"
    if any(item.status == "skipped" for item in assertions):
        return "skipped"
    return "passed"


def case_status(steps: list[StepResult], error: str | None) -> Status:
    if error is not None or any(step.status == "failed" for step in steps):
        return "failed"
    if any(step.status == "skipped" for step in steps):
        return "skipped"
    return "passed"


def session_config(setup: ContractSetup, server: ServerConfig) -> Config:
    """The config a session is opened with: the user's, or a stand-in holding only this server."""
    if setup.config is not None:
        return setup.config
    path = setup.base_dir / "mcp-evals.yaml"
    return Config(servers=[server]).located(path, str(path), {})


class _Steps:
    """Runs the steps of one case in order, against a session or in simulation."""

    def __init__(
        self,
        case: Case,
        judge: Judge,
        *,
        timeout: float,
        keep_going: bool,
        listing: dict[str, dict[str, Any]] | None,
        snapshots: Snapshots | None = None,
    ) -> None:
        self.case = case
        self.snapshots = snapshots
        self.judge = judge
        self.timeout = timeout
        self.keep_going = keep_going
        self.listing = listing
        self.outputs: dict[str, Output] = {}
        self.results: list[StepResult] = []

    def stopped(self) -> bool:
        return not self.keep_going and any(result.status == "failed" for result in self.results)

    def not_run(self, step: Step, why: str) -> None:
        self.results.append(StepResult(id=step.id, tool=step.tool, status="not_run", error=why))

    async def run(self, session: Any) -> None:
        for index, step in enumerate(self.case.steps):
            if self.stopped():
                for later in self.case.steps[index:]:
                    self.not_run(later, "an earlier step failed")
                return
            unwritten = placeholders(step.input)
            if unwritten:  # a scaffolded step not written yet: never sent to the tool
                why = "; ".join(f"{shown_location(where)}: {left_to_fill(text)}" for where, text in unwritten)
                self.results.append(
                    StepResult(id=step.id, tool=step.tool, status="failed", input=step.input, error=why)
                )
                continue
            try:
                arguments = resolve(step.input, self.outputs)
            except ChainingError as error:
                self.results.append(
                    StepResult(
                        id=step.id, tool=step.tool, status="failed", input=step.input, error=str(error)
                    )
                )
                continue
            if session is None:
                observed = self.simulate(step)
            else:
                try:
                    result = await session.call_tool(step.tool, arguments, timeout=self.timeout)
                except ToolCallError as error:  # this call failed; the server is still there
                    self.results.append(
                        StepResult(
                            id=step.id, tool=step.tool, status="failed", input=arguments, error=error.message
                        )
                    )
                    continue
                except ServerError as error:  # the server is gone: nothing later can run
                    self.results.append(
                        StepResult(
                            id=step.id, tool=step.tool, status="failed", input=arguments, error=str(error)
                        )
                    )
                    for later in self.case.steps[index + 1 :]:
                        self.not_run(later, "the server stopped during an earlier step")
                    return
                listed = self.listing.get(step.tool) if self.listing is not None else None
                observed = Observed(
                    text=output_text(result.text, result.structured_content),
                    structured=result.structured_content,
                    is_error=result.is_error,
                    latency_ms=result.latency_ms,
                    mode="live",
                    tool=step.tool,
                    listed=listed is not None,
                    output_schema=_output_schema(listed),
                    seconds=self.timeout,
                )
            await self.judge_and_record(step, arguments, observed)

    def simulate(self, step: Step) -> Observed:
        value = step.expected_output
        text = (
            value
            if isinstance(value, str)
            else ""
            if value is None
            else json.dumps(value, ensure_ascii=False)
        )
        listed = self.listing.get(step.tool) if self.listing is not None else None
        return Observed(
            text=text,
            structured=value if isinstance(value, dict) else None,
            is_error=False,
            latency_ms=None,
            mode="simulation",
            tool=step.tool,
            listed=None if self.listing is None else listed is not None,
            output_schema=_output_schema(listed),
            seconds=self.timeout,
        )

    async def judge_and_record(self, step: Step, arguments: Any, observed: Observed) -> None:
        # In a thread: a user's regular expression may run up to the step timeout (patterns.py), and
        # the other cases, and Ctrl-C, must not wait for it.
        assertions = await anyio.to_thread.run_sync(check, step.expect, observed, abandon_on_cancel=True)
        if step.expect.llm_judge is not None:
            judge = step.expect.llm_judge
            expected = judge.expected
            if expected is None:
                value = step.expected_output
                expected = value if isinstance(value, str) else json.dumps(value) if value is not None else ""
            assertions.append(await self.judge.score(judge, observed.text, expected))
        if options_of(step) is not None:  # its masks are user patterns too: in a thread
            assertions.append(
                await anyio.to_thread.run_sync(self.snapshot, step, observed, abandon_on_cancel=True)
            )
        self.outputs[step.id] = Output(observed.text, observed.structured)
        self.results.append(
            StepResult(
                id=step.id,
                tool=step.tool,
                status=step_status(assertions),
                input=arguments,
                output=observed.text[:OUTPUT_LIMIT],
                structured=observed.structured,
                is_error=observed.is_error,
                latency_ms=observed.latency_ms,
                assertions=assertions,
            )
        )

    def snapshot(self, step: Step, observed: Observed) -> AssertionResult:
        if observed.mode == "simulation":
            return AssertionResult(
                kind="snapshot", status="skipped", message="simulation mode runs no tool: nothing to compare"
            )
        snapshots = self.snapshots if self.snapshots is not None else Snapshots()
        return snapshots.check(self.case, step, observed.text, observed.structured, observed.is_error)


def _output_schema(listed: dict[str, Any] | None) -> dict[str, Any] | None:
    schema = listed.get("outputSchema") if listed is not None else None
    return schema if isinstance(schema, dict) else None


async def server_listing(server: ServerConfig, setup: ContractSetup) -> dict[str, dict[str, Any]]:
    """A server's tools by name (wire shape): a ``snapshot:`` server's saved ones, else listed live."""
    saved = snapshot_listing(server, setup.config)
    if saved is not None:
        return saved
    from mcp_evals.servers.client import list_server_tools

    info = await list_server_tools(server, session_config(setup, server))
    return {str(tool.get("name")): tool for tool in info.tools}


def snapshot_listing(server: ServerConfig, config: Config | None) -> dict[str, dict[str, Any]] | None:
    """The saved tools of a ``snapshot:`` config server (wire shape, by name)."""
    if config is None or not server.snapshot:
        return None
    from mcp_evals.catalog.snapshot import read_snapshot

    servers = read_snapshot(config.resolve(server.snapshot)).servers
    match = [info for info in servers if info.name == server.name] or (servers if len(servers) == 1 else [])
    if not match:
        return None
    return {str(tool.get("name")): tool for tool in match[0].tools}


async def run_case(
    case: Case,
    setup: ContractSetup,
    judge: Judge,
    *,
    timeout_ms: int,
    continue_on_failure: bool | None = None,
    snapshots: Snapshots | None = None,
    keep_sandbox: bool = False,
) -> CaseResult:
    """Run one case in its own sandbox: set up, start (or reach) its server, run its steps in order,
    tear down (always), close."""
    target: Target = target_of(case, setup)
    keep_going = (
        continue_on_failure
        if continue_on_failure is not None
        else case.continue_on_failure
        if case.continue_on_failure is not None
        else setup.options.continue_on_failure
    )
    started = time.perf_counter()
    error: str | None = None
    isolation: IsolationReport | None = None
    steps_run: _Steps
    if target.mode == "simulation":
        listing = snapshot_listing(target.server, setup.config) if target.server is not None else None
        steps_run = _Steps(
            case,
            judge,
            timeout=timeout_ms / 1000,
            keep_going=keep_going,
            listing=listing,
            snapshots=snapshots,
        )
        await steps_run.run(None)
    else:
        assert target.server is not None
        from mcp_evals.servers.isolated import IsolatedRun, SetupFailed

        steps_run = _Steps(
            case, judge, timeout=timeout_ms / 1000, keep_going=keep_going, listing=None, snapshots=snapshots
        )
        isolation_of_case = case_isolation(case, setup, keep=keep_sandbox)
        isolated = IsolatedRun(target.server, session_config(setup, target.server), isolation_of_case)
        try:
            async with isolated.open() as session:
                steps_run.listing = {str(tool.get("name")): tool for tool in session.info.tools}
                await steps_run.run(session)
        except SetupFailed as failure:
            error = f"setup failed: {failure.message}"
            for step in case.steps:
                steps_run.not_run(step, "the setup failed")
        except McpEvalsError as failure:
            if isolated.opened:
                raise
            error = str(failure)
            for step in case.steps:
                steps_run.not_run(step, "the server could not be started or reached")
        isolation = isolated.report
    status = case_status(steps_run.results, error)
    if isolation is not None and isolation.teardown_errors:
        status = "failed"  # the next case may not start from the known state
    return CaseResult(
        name=case.name,
        file=case.shown_path,
        mode=target.mode,
        server=target.label,
        status=status,
        duration_ms=(time.perf_counter() - started) * 1000,
        error=error,
        steps=steps_run.results,
        isolation=isolation,
    )


def case_isolation(case: Case, setup: ContractSetup, *, keep: bool = False) -> Isolation:
    """The case's ``state``, ``setup`` and ``teardown``, each replacing the config's when given."""
    config = setup.config
    return Isolation.layered(
        (config, config.base_dir if config is not None else setup.base_dir),
        (case, case.path.parent),
        keep=keep,
    )


async def run_cases(
    cases: list[Case],
    setup: ContractSetup,
    judge: Judge,
    *,
    timeout_ms: int,
    concurrency: int,
    selection: list[str] | None = None,
    continue_on_failure: bool | None = None,
    on_case_done: CaseDone | None = None,
    environ: Mapping[str, str] | None = None,
    trials: int | None = None,
    update_snapshots: bool = False,
    keep_sandbox: bool = False,
) -> ContractRun:
    """Run the cases (up to ``concurrency`` at a time) into one ``ContractRun``, in case order.

    Each case runs ``trials`` times (else its own ``trials:``, else once), each trial from a fresh
    server; its snapshots are read before anything runs and written once the run is over.
    """
    snapshots = Snapshots(update=update_snapshots, environ=environ)
    snapshots.preload(cases)
    started = datetime.now(UTC)
    run = ContractRun(
        run_id=new_run_id(started),
        suite=setup.suite,
        started_at=started.isoformat(timespec="seconds"),
        selection=selection,
    )

    async def commit() -> None:  # `git rev-parse` beside the first case, not before it
        run.git_sha = await anyio.to_thread.run_sync(git_sha, setup.base_dir, environ)

    results: list[CaseResult | None] = [None] * len(cases)
    limiter = anyio.CapacityLimiter(max(1, concurrency))

    async def one(index: int, case: Case) -> None:
        runs = []
        for _ in range(trials if trials is not None else case.trials or 1):
            async with limiter:  # each trial from a fresh server, in a sandbox of its own
                runs.append(
                    await run_case(
                        case,
                        setup,
                        judge,
                        timeout_ms=timeout_ms,
                        continue_on_failure=continue_on_failure,
                        snapshots=snapshots,
                        keep_sandbox=keep_sandbox,
                    )
                )
        result = results[index] = fold(runs)
        if on_case_done is not None:
            done = on_case_done(result)
            if done is not None:
                await done

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(commit)
            for index, case in enumerate(cases):
                group.start_soon(one, index, case)
    finally:
        await judge.aclose()
    run.cases = [result for result in results if result is not None]
    run.finished_at = datetime.now(UTC).isoformat(timespec="seconds")
    run.judge = judge.spend
    snapshots.save()
    return run
