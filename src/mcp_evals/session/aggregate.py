"""From a records file to its summary (pure): per arm × fault level, per task, and A − B.

The sessions counted are those every run on the records file planned (``RecordsPlan``: runs of one
day and commit may each plan a part, ``--arm A`` then ``--arm B``): for each (arm, fault level, task,
run) the record with the newest task set's setup for it (a finished one over a dropout, a later one
over an earlier). A record of another setup (the task or the arm changed since) is stale and left
out. Dropouts and budget stops are left out of every measure of the sessions (bad calls, accuracy,
steps, tool success, path efficiency, expected tools, A − B) and counted apart, as are the sessions
never run; what dropouts and budget stops spent is in the cost and token totals.

Intervals are 95 % (``stats``): Student's t for means (bad calls per task, steps, path efficiency; a
difference is the mean of paired differences, A and B of the same task, fault level and run), Wilson
for rates, Newcombe's paired interval for the difference of the answer accuracies.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import Field, computed_field

from mcp_evals import stats
from mcp_evals.config.isolation import IsolationKind
from mcp_evals.score.intervals import Rate
from mcp_evals.session.metrics import SessionMetrics, session_metrics
from mcp_evals.session.model import ARM_NAMES, ArmName
from mcp_evals.session.record import SessionHeader, SessionRecord
from mcp_evals.strict import StrictModel

Cell = tuple[str, float, str, int]


class Mean(StrictModel):
    """A mean (or a difference of rates) with its 95 % interval; a mean of one value has none."""

    n: int = 0
    mean: float | None = None
    low: float | None = None
    high: float | None = None


def mean_interval(values: Sequence[float], *, floor: float | None = None) -> Mean:
    """The mean and its Student's t interval (``stats``); ``floor`` bounds the low end (a count)."""
    if not values:
        return Mean()
    found = stats.mean_interval(values)
    if found is None:
        return Mean(n=len(values), mean=values[0])
    low = found.low if floor is None else max(floor, found.low)
    return Mean(n=len(values), mean=found.mean, low=low, high=found.high)


def paired_rate_difference(pairs: Sequence[tuple[bool, bool]]) -> Mean:
    """A − B of a right/wrong rate over paired sessions, with Newcombe's paired interval (``stats``)."""
    if not pairs:
        return Mean()
    counts = stats.PairedCounts(
        both=sum(1 for a, b in pairs if a and b),
        first_only=sum(1 for a, b in pairs if a and not b),
        second_only=sum(1 for a, b in pairs if b and not a),
        neither=sum(1 for a, b in pairs if not a and not b),
    )
    low, high = stats.newcombe_paired_interval(counts)
    return Mean(n=counts.pairs, mean=counts.difference, low=low, high=high)


class CellSummary(StrictModel):
    """One arm at one fault level."""

    arm: ArmName
    fault_percent: float
    planned: int = 0
    finished: int = 0
    dropouts: dict[str, int] = Field(default_factory=dict)
    budget_stops: int = 0
    not_run: int = 0
    bad_calls: Mean = Field(default_factory=Mean, description="Bad calls per task (a session).")
    repeated_after_error: Mean = Field(default_factory=Mean)
    schema_rejected: Mean = Field(default_factory=Mean)
    insistence: Mean = Field(default_factory=Mean)
    accuracy: Rate = Field(default_factory=Rate)
    steps: Mean = Field(default_factory=Mean)
    tool_success_rate: float | None = None
    path_efficiency: Mean = Field(default_factory=Mean)
    expected_in_order: Rate = Field(default_factory=Rate)
    uncaveated: Rate = Field(
        default_factory=Rate, description="(d): judged answers quoting without a caveat."
    )
    cost_usd: float = 0.0
    judge_cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0


class Difference(StrictModel):
    """A − B at one fault level, over the pairs where both arms finished."""

    fault_percent: float
    pairs: int = 0
    bad_calls: Mean = Field(default_factory=Mean)
    accuracy: Mean = Field(default_factory=Mean, description="In points of 1 (0.25 = 25 points).")


class TaskRow(StrictModel):
    task_id: str
    trap: str | None = None
    bad_calls: dict[str, Mean] = Field(default_factory=dict, description="By `arm fault%`.")
    correct: dict[str, Rate] = Field(default_factory=dict)


class SessionSummary(StrictModel):
    name: str
    provider: str
    model: str
    date: str
    git_sha: str
    tool_version: str
    arms: dict[str, str] = Field(description="Arm → its system prompt (both arms, run or not).")
    arm_descriptions: dict[str, str] = Field(default_factory=dict)
    planned_arms: list[str] = Field(default_factory=list, description="The arms some run planned.")
    judge_model: str | None = None
    planned: int = 0
    finished: int = 0
    dropouts: dict[str, int] = Field(default_factory=dict)
    budget_stops: int = 0
    not_run: int = 0
    stale: int = Field(0, description="Records of an earlier setup, left out.")
    cells: list[CellSummary] = Field(default_factory=list)
    differences: list[Difference] = Field(default_factory=list)
    tasks: list[TaskRow] = Field(default_factory=list)
    cost_usd: float = 0.0
    judge_cost_usd: float = 0.0
    notes: list[str] = Field(default_factory=list)
    isolation: list[IsolationKind] = Field(
        default_factory=list, description="How the sessions were kept apart (each kind seen, in order)."
    )
    isolation_warnings: list[str] = Field(
        default_factory=list,
        description="Per session: a setup or teardown that failed, a write to a shared store.",
    )
    teardown_failures: int = Field(0, description="Sessions whose teardown failed.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def preliminary(self) -> bool:
        """Not every planned session finished, or a teardown failed (the sessions after it may not
        have started from the same state): the numbers describe only what they can."""
        return self.finished < self.planned or self.teardown_failures > 0


@dataclass
class RecordsPlan:
    """What a records file planned: every run started on it (one header each), joined.

    Runs of one day and commit share a file, and each may plan a part (``--arm A``, then
    ``--arm B``; one fault level, then another): the sessions planned are every run's. Each is judged
    by the newest header's task set (its task, arm and fault level, hashed into a setup); a session a
    run planned for a task or level the newest task set no longer has is left out."""

    header: SessionHeader  # the newest: its task set, catalog and settings
    arms: list[ArmName]
    fault_percents: list[float]
    task_ids: list[str]
    cells: list[Cell]  # in the order a run goes through them
    setups: dict[Cell, str]  # each planned session's setup hash under the newest task set


def records_plan(headers: Sequence[SessionHeader]) -> RecordsPlan:
    header = headers[-1]
    task_set = header.task_set
    tasks = {task.id: task for task in task_set.tasks}
    planned = {cell for old in headers for cell in old.planned()}
    setups: dict[Cell, str] = {}
    for arm, percent, task_id, run in planned:
        level = task_set.faults.level(percent)
        if level is not None and task_id in tasks:
            setups[(arm, percent, task_id, run)] = task_set.setup_hash(arm, level, tasks[task_id])
    arms = [arm for arm in ARM_NAMES if any(cell[0] == arm for cell in setups)]
    levels = task_set.faults.levels
    percents = [level.percent for level in levels if any(cell[1] == level.percent for cell in setups)]
    task_ids = [task.id for task in task_set.tasks if any(cell[2] == task.id for cell in setups)]
    arm_rank: dict[str, int] = {arm: rank for rank, arm in enumerate(ARM_NAMES)}
    cells = sorted(
        setups,
        key=lambda cell: (cell[3], task_ids.index(cell[2]), percents.index(cell[1]), arm_rank[cell[0]]),
    )
    return RecordsPlan(header, arms, percents, task_ids, cells, setups)


def current_records(
    headers: Sequence[SessionHeader], sessions: Sequence[SessionRecord]
) -> tuple[dict[Cell, SessionRecord], int]:
    """The record of each planned session under the newest header's setup, and how many records are
    stale (of another setup: the task, the arm or the fault level changed since)."""
    plan = records_plan(headers)
    chosen: dict[Cell, SessionRecord] = {}
    stale = 0
    for record in sessions:
        cell = record.key.cell()
        if plan.setups.get(cell) != record.setup_hash or record.key.date != plan.header.date:
            stale += 1
            continue
        previous = chosen.get(cell)
        if previous is None or record.status == "finished" or previous.status != "finished":
            chosen[cell] = record
    return chosen, stale


def summarize(headers: Sequence[SessionHeader], sessions: Sequence[SessionRecord]) -> SessionSummary:
    """The summary of a records file: its headers (one per run started on it) and its sessions."""
    plan = records_plan(headers)
    header = plan.header
    task_set = header.task_set
    tasks = {task.id: task for task in task_set.tasks}
    chosen, stale = current_records(headers, sessions)
    metrics: dict[Cell, SessionMetrics] = {
        cell: session_metrics(
            record, tasks[cell[2]], header.catalog, task_set.transient_errors, task_set.timeouts.step_seconds
        )
        for cell, record in chosen.items()
        if record.status == "finished"
    }
    prompts = {arm: setup.system_prompt for old in headers for arm, setup in old.arms.items()}
    notes = list(dict.fromkeys(note for old in headers for note in old.notes))
    summary = SessionSummary(
        name=task_set.name or header.task_set_path,
        provider=header.provider,
        model=header.model,
        date=header.date,
        git_sha=header.git_sha,
        tool_version=header.tool_version,
        arms={arm: prompts[arm] for arm in ARM_NAMES if arm in prompts},
        arm_descriptions={arm: task_set.arms[arm].description for arm in ARM_NAMES},
        planned_arms=plan.arms,
        judge_model=header.settings.judge_model,
        stale=stale,
        notes=notes,
    )
    planned = plan.cells
    summary.planned = len(planned)
    for arm in plan.arms:
        for percent in plan.fault_percents:
            cells = [cell for cell in planned if cell[0] == arm and cell[1] == percent]
            if cells:
                summary.cells.append(_cell(arm, percent, cells, chosen, metrics))
    dropouts: Counter[str] = Counter()
    for cell_summary in summary.cells:
        summary.finished += cell_summary.finished
        summary.budget_stops += cell_summary.budget_stops
        summary.not_run += cell_summary.not_run
        dropouts.update(cell_summary.dropouts)
        summary.cost_usd += cell_summary.cost_usd
        summary.judge_cost_usd += cell_summary.judge_cost_usd
    summary.dropouts = dict(dropouts)
    if set(plan.arms) == {"A", "B"}:
        summary.differences = [_difference(percent, planned, metrics) for percent in plan.fault_percents]
    summary.tasks = [_task_row(task_id, plan, metrics) for task_id in plan.task_ids]
    _isolation(summary, [chosen[cell] for cell in planned if cell in chosen])
    return summary


def _isolation(summary: SessionSummary, records: Sequence[SessionRecord]) -> None:
    """The isolation the sessions ran under, and every problem of it, session by session."""
    reports = [(record, record.isolation) for record in records if record.isolation is not None]
    summary.isolation = list(dict.fromkeys(report.kind for _, report in reports))
    for record, report in reports:
        summary.isolation_warnings += [f"{record.key.label()}: {line}" for line in report.warnings]
        summary.teardown_failures += bool(report.teardown_errors)


def _cell(
    arm: ArmName,
    percent: float,
    cells: Sequence[Cell],
    chosen: dict[Cell, SessionRecord],
    metrics: dict[Cell, SessionMetrics],
) -> CellSummary:
    summary = CellSummary(arm=arm, fault_percent=percent, planned=len(cells))
    done = [metrics[cell] for cell in cells if cell in metrics]
    dropouts: Counter[str] = Counter()
    for cell in cells:
        record = chosen.get(cell)
        if record is None:
            summary.not_run += 1
            continue
        summary.cost_usd += record.cost_usd or 0.0
        summary.input_tokens += record.usage.total_input
        summary.output_tokens += record.usage.output_tokens
        if record.judge is not None:
            summary.judge_cost_usd += record.judge.cost_usd or 0.0
        if record.status == "budget":
            summary.budget_stops += 1
        elif record.status == "dropout":
            dropouts[record.error_kind or "unknown"] += 1
    summary.dropouts = dict(dropouts)
    summary.finished = len(done)
    summary.bad_calls = mean_interval([m.bad_calls for m in done], floor=0.0)
    summary.repeated_after_error = mean_interval([m.repeated_after_error for m in done], floor=0.0)
    summary.schema_rejected = mean_interval([m.schema_rejected for m in done], floor=0.0)
    summary.insistence = mean_interval([m.insistence for m in done], floor=0.0)
    checked = [m.answer_correct for m in done if m.answer_correct is not None]
    summary.accuracy = Rate.of(sum(checked), len(checked))
    summary.steps = mean_interval([m.steps for m in done], floor=0.0)
    calls = sum(m.calls for m in done)
    summary.tool_success_rate = (calls - sum(m.failed_calls for m in done)) / calls if calls else None
    summary.path_efficiency = mean_interval([m.path_efficiency for m in done], floor=0.0)
    summary.expected_in_order = Rate.of(sum(m.expected_in_order for m in done), len(done))
    judged = [m.unstable_uncaveated for m in done if m.unstable_uncaveated is not None]
    summary.uncaveated = Rate.of(sum(judged), len(judged))
    return summary


def _difference(percent: float, planned: Sequence[Cell], metrics: dict[Cell, SessionMetrics]) -> Difference:
    bad: list[float] = []
    correct: list[tuple[bool, bool]] = []
    for arm, cell_percent, task_id, run in planned:
        if arm != "A" or cell_percent != percent:
            continue
        a, b = metrics.get(("A", percent, task_id, run)), metrics.get(("B", percent, task_id, run))
        if a is None or b is None:
            continue
        bad.append(a.bad_calls - b.bad_calls)
        if a.answer_correct is not None and b.answer_correct is not None:
            correct.append((a.answer_correct, b.answer_correct))
    return Difference(
        fault_percent=percent,
        pairs=len(bad),
        bad_calls=mean_interval(bad),
        accuracy=paired_rate_difference(correct),
    )


def _task_row(task_id: str, plan: RecordsPlan, metrics: dict[Cell, SessionMetrics]) -> TaskRow:
    task = next(task for task in plan.header.task_set.tasks if task.id == task_id)
    row = TaskRow(task_id=task_id, trap=task.trap.kind if task.trap is not None else None)
    for arm in plan.arms:
        for percent in plan.fault_percents:
            if not any(cell[0] == arm and cell[1] == percent for cell in plan.cells):
                continue
            found = [
                value
                for (cell_arm, cell_percent, cell_task, _), value in metrics.items()
                if cell_arm == arm and cell_percent == percent and cell_task == task_id
            ]
            label = column_label(arm, percent)
            row.bad_calls[label] = mean_interval([m.bad_calls for m in found], floor=0.0)
            checked = [m.answer_correct for m in found if m.answer_correct is not None]
            row.correct[label] = Rate.of(sum(checked), len(checked))
    return row


def column_label(arm: str, percent: float) -> str:
    return f"{arm} {percent:g}%"


_SHA = re.compile(r"^[0-9a-f]{7,40}$")


def short_sha(sha: str) -> str:
    return sha[:7] if _SHA.match(sha) else sha
