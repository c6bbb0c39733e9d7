"""A session run: every (run, task, fault level, arm) of the plan, one after another, each on a fresh
server in a sandbox of its own (``servers.isolated``), recorded as it ends.

The plan goes run by run, task by task, and within a task level by level with the arms side by side,
so a budget stop leaves pairs of arms behind it, not one arm's whole half. A session the records
file holds as finished (same date, commit and setup) is not run again. A fatal model failure (a bad
key, no credit) or a budget stop ends the run; the sessions not run have no record, and the report
counts them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import anyio

from mcp_evals.answers import Message
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.isolation import IsolationReport
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.errors import ServerError
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.record.ndjson import RecordWriter
from mcp_evals.run.asker import Asker
from mcp_evals.run.budget import Budget
from mcp_evals.run.retry import RetryPolicy, with_retries
from mcp_evals.servers.sandbox import Isolation
from mcp_evals.session.judge import judge_session
from mcp_evals.session.load import arm_catalog
from mcp_evals.session.loop import Ask, Count, SessionOutcome, run_session
from mcp_evals.session.metrics import session_metrics
from mcp_evals.session.model import ArmName, FaultLevel, Task, TaskSet
from mcp_evals.session.record import SessionHeader, SessionKey, SessionRecord
from mcp_evals.session.server import ToolBoundary
from mcp_evals.wording import plural

Cell = tuple[str, float, str, int]
COUNT_RETRY = RetryPolicy(max_attempts=4, max_wait=10)


@dataclass
class Planned:
    arm: ArmName
    level: FaultLevel
    task: Task
    run: int

    @property
    def cell(self) -> Cell:
        return (self.arm, self.level.percent, self.task.id, self.run)


def plan_sessions(
    task_set: TaskSet, arms: list[ArmName], levels: list[FaultLevel], tasks: list[Task], runs: int
) -> list[Planned]:
    """Run by run, task by task, level by level, the arms side by side: A B, then B A, and so on
    (``arm_order``), so time and order fall on both arms alike."""
    plan: list[Planned] = []
    position = 0
    for run in range(1, runs + 1):
        for task in tasks:
            for level in levels:
                plan += [Planned(arm, level, task, run) for arm in arm_order(arms, position)]
                position += 1
    return plan


def arm_order(arms: Sequence[ArmName], position: int) -> list[ArmName]:
    """The arms' order at one place of the plan: rotated from one place to the next (as ``compare``
    interleaves its arms), so no arm always goes first."""
    if not arms:
        return []
    shift = position % len(arms)
    return [*arms[shift:], *arms[:shift]]


@dataclass
class RunOutcome:
    planned: int = 0
    kept: int = 0  # finished earlier (resume)
    finished: int = 0
    dropouts: Counter[str] = field(default_factory=Counter)
    budget_stopped: bool = False
    fatal: ProviderFailure | None = None
    not_run: int = 0
    spent_usd: float = 0.0

    @property
    def complete(self) -> bool:
        return self.kept + self.finished == self.planned


@dataclass
class SessionRun:
    """What every session of a run shares."""

    task_set: TaskSet
    server: ServerConfig
    config: Config
    catalog: Catalog
    askers: dict[ArmName, Asker]
    ask: dict[ArmName, Ask]
    budget: Budget | None
    writer: RecordWriter[SessionHeader, SessionRecord]
    date: str
    git_sha: str
    judge: Asker | None = None
    judge_ask: Ask | None = None
    count_tokens: bool = False
    say: Callable[[str], None] = lambda text: None
    isolation: Isolation = field(default_factory=Isolation)
    _count_failed: bool = False

    async def run(self, plan: list[Planned], done: set[Cell]) -> RunOutcome:
        outcome = RunOutcome(planned=len(plan))
        todo = [item for item in plan if item.cell not in done]
        outcome.kept = len(plan) - len(todo)
        for number, item in enumerate(todo, start=1):
            if outcome.fatal is not None or outcome.budget_stopped:
                outcome.not_run = len(todo) - number + 1
                break
            session = await self.one(item)
            record = session.record
            trap = item.task.trap
            judged_trap = trap is not None and trap.kind == "unstable_value"
            if record.status == "finished" and judged_trap and self.judge and self.judge_ask:
                judged = await judge_session(
                    self.judge, self.judge_ask, self.budget, record, item.task.prompt
                )
                record.judge = judged.record
                outcome.budget_stopped = outcome.budget_stopped or judged.budget_stop
                outcome.fatal = outcome.fatal or judged.fatal
            self.writer.write(record)
            # in a thread: the answer's regular expression may take up to the step timeout (patterns.py)
            line = await anyio.to_thread.run_sync(self.describe, item, record, abandon_on_cancel=True)
            self.say(f"[{number}/{len(todo)}] {line}")
            for line in isolation_lines(record.isolation):
                self.say(f"  {line}")
            if record.status == "finished":
                outcome.finished += 1
            elif record.status == "budget":
                outcome.budget_stopped = True
            else:
                outcome.dropouts[record.error_kind or "unknown"] += 1
            if session.fatal is not None:
                outcome.fatal = session.fatal
        if self.budget is not None:
            outcome.spent_usd = self.budget.spent_usd
        return outcome

    def describe(self, item: Planned, record: SessionRecord) -> str:
        label = f"{item.task.id} · arm {item.arm} · faults {item.level.label} · run {item.run}"
        if record.status != "finished":
            return f"{label}: {record.status} ({record.error_kind}: {record.error_message})"
        metrics = session_metrics(
            record,
            item.task,
            self.catalog,
            self.task_set.transient_errors,
            self.task_set.timeouts.step_seconds,
        )
        parts = [f"{record.end}", plural(metrics.steps, "step"), plural(metrics.bad_calls, "bad call")]
        if metrics.answer_correct is not None:
            parts.append("answer correct" if metrics.answer_correct else "answer wrong")
        if metrics.pattern_problem is not None:
            parts.append(metrics.pattern_problem)
        if record.cost_usd is not None:
            parts.append(f"${record.cost_usd:.4f}")
        return f"{label}: " + " · ".join(parts)

    async def counter(self, asker: Asker) -> Count | None:
        if not self.count_tokens:
            return None

        async def count(messages: list[Message]) -> int | None:
            if self._count_failed:
                return None
            try:
                return await with_retries(
                    COUNT_RETRY,
                    lambda: asker.provider.count_tokens(messages, asker.tools, None, asker.options),
                )
            except ProviderFailure as failure:
                self._count_failed = True
                self.say(f"note: count_tokens failed ({failure.message}); reserving by the local estimate")
                return None

        return count

    async def one(self, item: Planned) -> SessionOutcome:
        from mcp_evals.servers.isolated import IsolatedRun, SetupFailed

        key = SessionKey(
            date=self.date,
            git_sha=self.git_sha,
            arm=item.arm,
            fault_percent=item.level.percent,
            task_id=item.task.id,
            run=item.run,
        )
        setup = self.task_set.setup_hash(item.arm, item.level, item.task)
        asker = self.askers[item.arm]
        outcome: SessionOutcome | None = None
        isolated = IsolatedRun(
            self.server, self.config, self.isolation, read_only=catalog_read_only(self.catalog)
        )
        try:
            async with isolated.open(list_tools=False) as server_session:
                boundary = ToolBoundary(
                    server_session,
                    arm_catalog(self.catalog, self.task_set, item.arm),
                    seed=self.task_set.faults.seed,
                    level=item.level,
                    step_timeout=self.task_set.timeouts.step_seconds,
                )
                outcome = await run_session(
                    asker=asker,
                    ask=self.ask[item.arm],
                    boundary=boundary,
                    task=item.task,
                    transforms=self.task_set.arms[item.arm].transforms,
                    budget=self.budget,
                    key=key,
                    setup_hash=setup,
                    session_timeout=self.task_set.timeouts.session_seconds,
                    count=await self.counter(asker),
                )
        except SetupFailed as failure:
            outcome = SessionOutcome(
                SessionRecord(
                    key=key,
                    setup_hash=setup,
                    status="dropout",
                    error_kind="setup",
                    error_message=failure.message,
                )
            )
        except ServerError as failure:
            if outcome is None:
                outcome = SessionOutcome(
                    SessionRecord(
                        key=key,
                        setup_hash=setup,
                        status="dropout",
                        error_kind="mcp_server",
                        error_message=str(failure),
                    )
                )
        assert outcome is not None
        outcome.record.isolation = isolated.report
        return outcome


def catalog_read_only(catalog: Catalog) -> set[str]:
    """The server's own names of the catalog's tools marked ``readOnlyHint: true``."""
    return {
        tool.wire_name
        for tool in catalog.tools
        if tool.annotations is not None and tool.annotations.get("readOnlyHint") is True
    }


def isolation_lines(report: IsolationReport | None) -> list[str]:
    """What to tell about a session's isolation as it ends: its problems, and a sandbox kept."""
    if report is None:
        return []
    lines = [f"warning: {line}" for line in report.warnings]
    if report.sandbox is not None:
        lines.append(f"sandbox kept: {report.sandbox}")
    return lines
