"""Running sessions for the command line: a paid run with its records and resume, and ``--dry``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio

from mcp_evals._version import __version__
from mcp_evals.answers import Usage
from mcp_evals.config.isolation import isolation_statement
from mcp_evals.errors import ConfigError, InputFileError
from mcp_evals.files import refuse_inputs
from mcp_evals.providers.pricing import ASSUMED_OUTPUT_TOKENS, Price, prices_as_of
from mcp_evals.run.asker import Asker
from mcp_evals.run.budget import Budget, requests_within
from mcp_evals.run.retry import RetryPolicy
from mcp_evals.session.aggregate import current_records
from mcp_evals.session.dry import (
    Counter,
    DrySession,
    ask_scripted,
    measure_results,
    planned_usages,
    session_cost,
    worst_case_extra,
)
from mcp_evals.session.load import arm_catalog
from mcp_evals.session.loop import Ask, ask_live, run_session
from mcp_evals.session.model import ARM_NAMES, ArmName, FaultLevel, Task
from mcp_evals.session.prepare import Prepared
from mcp_evals.session.record import ArmSetup, SessionHeader, SessionKey, SessionSettings
from mcp_evals.session.records_file import RECORDS_FILE, records_path
from mcp_evals.session.runner import (
    Cell,
    RunOutcome,
    SessionRun,
    arm_order,
    catalog_read_only,
    isolation_lines,
    plan_sessions,
)
from mcp_evals.session.server import ToolBoundary
from mcp_evals.session.transforms import removes_anything, result_paths
from mcp_evals.suggest import Suggester, did_you_mean
from mcp_evals.wording import docs_url, noun, plural

Say = Callable[[str], None]
COUNT_TOKENS_NOTE = (
    "--count-tokens needs the anthropic provider and ANTHROPIC_API_KEY; using a local estimate"
)


def counts_exactly(asker: Asker) -> bool:
    """The API counts a request's tokens for free (Anthropic's count_tokens, with a key)."""
    return asker.provider.counts_tokens


@dataclass
class Plan:
    arms: list[ArmName]
    levels: list[FaultLevel]
    tasks: list[Task]
    runs: int

    @property
    def sessions(self) -> int:
        return len(self.arms) * len(self.levels) * len(self.tasks) * self.runs


@dataclass
class LiveSettings:
    date: str
    git_sha: str
    results_dir: Path
    budget_usd: float | None
    price: Price | None
    max_tokens: int
    temperature: float | None
    retry: RetryPolicy
    request_deadline: float
    count_tokens: bool
    notes: list[str]


def resume_cells(path: Path, header: SessionHeader) -> set[Cell]:
    """The sessions the records file already holds as finished under this run's setup.

    A file of another provider or model is refused rather than mixed (exit 3)."""
    earlier = RECORDS_FILE.earlier(path)
    if earlier is None:
        return set()
    for old in earlier.headers:
        if (old.provider, old.model) != (header.provider, header.model):
            raise InputFileError(
                f"{path}: holds sessions of {old.provider}/{old.model} from today and this commit; "
                f"this run uses {header.provider}/{header.model}",
                hint="give this run its own folder with --results DIR",
            )
    chosen, _ = current_records([header], earlier.records)
    return {cell for cell, record in chosen.items() if record.status == "finished"}


def make_header(
    prepared: Prepared,
    askers: dict[ArmName, Asker],
    plan: Plan,
    settings: LiveSettings,
    judge_model: str | None,
) -> SessionHeader:
    first = next(iter(askers.values()))
    return SessionHeader(
        tool_version=__version__,
        date=settings.date,
        git_sha=settings.git_sha,
        provider=first.provider.name,
        model=first.model,
        task_set_path=prepared.task_set.shown_path,
        task_set=prepared.task_set,
        catalog=prepared.catalog,
        arms={  # both arms, whichever run: runs of one arm each are reported together, arm by arm
            arm: ArmSetup(
                system_prompt=prepared.task_set.system_prompt_of(arm),
                catalog_hash=arm_catalog(prepared.catalog, prepared.task_set, arm).hash,
            )
            for arm in ARM_NAMES
        },
        settings=SessionSettings(
            max_tokens=settings.max_tokens,
            temperature=settings.temperature,
            budget_usd=settings.budget_usd,
            count_tokens=settings.count_tokens,
            judge_model=judge_model,
            runs=plan.runs,
            arms=plan.arms,
            fault_percents=[level.percent for level in plan.levels],
            task_ids=[task.id for task in plan.tasks],
        ),
        notes=settings.notes,
    )


def run_live(
    prepared: Prepared,
    askers: dict[ArmName, Asker],
    judge: Asker | None,
    plan: Plan,
    settings: LiveSettings,
    say: Say,
) -> tuple[Path, RunOutcome]:
    """Run the plan's missing sessions; returns the records file and what the run came to."""
    path = records_path(settings.results_dir, settings.date, settings.git_sha)
    refuse_inputs(path, what="the records file")  # the task set or the config, before it is read as records
    if settings.count_tokens and not all(map(counts_exactly, askers.values())):
        say(f"note: {COUNT_TOKENS_NOTE}")
        settings.notes.append(COUNT_TOKENS_NOTE)
    header = make_header(prepared, askers, plan, settings, judge.model if judge else None)
    done = resume_cells(path, header)
    schedule = plan_sessions(prepared.task_set, plan.arms, plan.levels, plan.tasks, plan.runs)
    if done:
        kept = sum(1 for item in schedule if item.cell in done)
        say(f"resume: {plural(kept, 'finished session')} kept from {path}; {len(schedule) - kept} to run")
    say(isolation_line(prepared))
    writer = RECORDS_FILE.append(path)
    writer.write(header)
    budget = (
        Budget(settings.budget_usd, settings.price, settings.max_tokens)
        if settings.price is not None
        else None
    )

    def ask(asker: Asker) -> Ask:
        return ask_live(asker, settings.retry, settings.request_deadline)

    runner = SessionRun(
        task_set=prepared.task_set,
        server=prepared.server,
        config=prepared.config,
        catalog=prepared.catalog,
        askers=askers,
        ask={arm: ask(asker) for arm, asker in askers.items()},
        budget=budget,
        writer=writer,
        date=settings.date,
        git_sha=settings.git_sha,
        judge=judge,
        judge_ask=ask(judge) if judge is not None else None,
        count_tokens=settings.count_tokens,
        say=say,
        isolation=prepared.isolation,
    )

    async def main() -> RunOutcome:
        try:
            return await runner.run(schedule, done)
        finally:
            for asker in [*askers.values(), *([judge] if judge else [])]:
                await asker.provider.aclose()

    try:
        outcome = anyio.run(main)
    finally:
        writer.close()
    return path, outcome


# -- --dry ------------------------------------------------------------------------------------------


@asynccontextmanager
async def _setup_refused(task: Task, arm: ArmName) -> AsyncIterator[None]:
    """A setup that fails in --dry stops it (exit 3): a live run would lose every session to it."""
    from mcp_evals.servers.isolated import SetupFailed

    try:
        yield
    except SetupFailed as failure:
        raise ConfigError(
            f"{task.id} · arm {arm}: setup failed: {failure.message}",
            hint="fix the task set's (or the config's) `setup:`; the teardown ran",
        ) from None


def isolation_line(prepared: Prepared) -> str:
    """How the sessions are kept apart, in one line (docs/sessions.md#isolation)."""
    return isolation_statement(prepared.isolation_kind)


def shared_writes_ahead(prepared: Prepared, plan: Plan) -> str | None:
    """--dry on a shared server (HTTP, no setup/teardown) whose scripts call tools not marked
    read-only: said before it starts, since those calls are real writes every later session sees."""
    if prepared.isolation_kind != "shared":
        return None
    read_only = catalog_read_only(prepared.catalog)
    wire = {tool.name: tool.wire_name for tool in prepared.catalog.tools}
    called = [step.tool for task in plan.tasks for step in task.script]
    writers = [tool for tool in called if wire.get(tool, tool) not in read_only]
    if not writers:
        return None
    return (
        f"the scripts call tools not marked read-only ({', '.join(dict.fromkeys(writers))}) on a server "
        "every session shares (HTTP, no setup/teardown): --dry's calls are real and change its state, and "
        "each arm starts from what the one before it left; give the task set or the config "
        f"`setup:`/`teardown:` ({docs_url('sessions.md#isolation')})"
    )


async def _play(
    prepared: Prepared, askers: dict[ArmName, Asker], plan: Plan, count_tokens: bool, say: Say
) -> tuple[list[DrySession], Counter | None]:
    from mcp_evals.servers.isolated import IsolatedRun

    played: list[DrySession] = []
    counters: dict[ArmName, Counter] = {}
    for arm, asker in askers.items():
        counters[arm] = Counter(asker, exact=count_tokens and counts_exactly(asker))
    no_faults = FaultLevel(percent=0)
    task_set = prepared.task_set
    read_only = catalog_read_only(prepared.catalog)
    for position, task in enumerate(plan.tasks):
        for arm in arm_order(plan.arms, position):
            asker = askers[arm]
            reserved: list[int] = []
            isolated = IsolatedRun(prepared.server, prepared.config, prepared.isolation, read_only=read_only)
            async with _setup_refused(task, arm), isolated.open(list_tools=False) as server_session:
                boundary = ToolBoundary(
                    server_session,
                    arm_catalog(prepared.catalog, task_set, arm),
                    seed=task_set.faults.seed,
                    level=no_faults,
                    step_timeout=task_set.timeouts.step_seconds,
                )
                outcome = await run_session(
                    asker=asker,
                    ask=ask_scripted(asker, task, counters[arm], ASSUMED_OUTPUT_TOKENS, reserved),
                    boundary=boundary,
                    task=task,
                    transforms=task_set.arms[arm].transforms,
                    budget=None,
                    key=SessionKey(
                        date="dry", git_sha="dry", arm=arm, fault_percent=0, task_id=task.id, run=1
                    ),
                    setup_hash="dry",
                    session_timeout=task_set.timeouts.session_seconds,
                )
            outcome.record.isolation = isolated.report
            for line in isolation_lines(isolated.report):
                say(f"{task.id} · arm {arm}: {line}")
            session = DrySession(task, arm, outcome.record, reserved)
            await measure_results(session, counters[arm])
            played.append(session)
    arm_rank: dict[str, int] = {arm: rank for rank, arm in enumerate(plan.arms)}
    played.sort(key=lambda session: (plan.tasks.index(session.task), arm_rank[session.arm]))
    for asker in askers.values():
        await asker.provider.aclose()
    counter = next(iter(counters.values()), None)
    return played, counter


def run_dry(
    prepared: Prepared,
    askers: dict[ArmName, Asker],
    plan: Plan,
    *,
    price: Price | None,
    budget_usd: float | None,
    count_tokens: bool,
    max_tokens: int,
    emit: Say,
    say: Say,
) -> None:
    """Play every task's script in every arm on the real server and print the estimated cost."""
    first = next(iter(askers.values()))
    api = first.provider.label or first.provider.name
    emit(f"mcp-evals session --dry: nothing billable is sent ({api}, model {first.model})")
    emit("a scripted model plays each task's script against the real server (no faults), then answers")
    emit(isolation_line(prepared))
    ahead = shared_writes_ahead(prepared, plan)
    if ahead is not None:
        say(f"warning: {ahead}")
    played, counter = anyio.run(_play, prepared, askers, plan, count_tokens, say)
    exact = counter is not None and counter.exact
    if counter is not None and counter.problem:
        say(f"note: {counter.problem}")
    if count_tokens and not exact:
        say(f"note: {COUNT_TOKENS_NOTE}")
    emit(
        "tokens counted with Anthropic's free count_tokens endpoint"
        if exact
        else "tokens from a local estimate (±20%)"
    )
    caching = first.caching
    turns_total = 0
    for session in played:
        results = ", ".join(f"{tool} {tokens:,}" for tool, tokens in session.result_tokens) or "none"
        line = (
            f"  {session.task.id} · arm {session.arm}: {plural(len(session.record.turns), 'turn')} · "
            f"tool results {results} tokens · input {plural(sum(session.inputs), 'token')}"
        )
        if price is not None:
            cost = session_cost(session.inputs, session.outputs, price, caching=caching)
            uncached = session_cost(session.inputs, session.outputs, price, caching=False)
            line += f" · ${cost:.4f}" + (f" (${uncached:.4f} without caching)" if caching else "")
        emit(line)
        for problem in session.problems():
            say(f"warning: {session.task.id} · arm {session.arm}: {problem}")
        turns_total += len(session.record.turns)
    for warning in idle_transforms(prepared, plan, played):
        say(f"warning: {warning}")
    repeats = len(plan.levels) * plan.runs
    emit(
        f"planned run: {plural(len(plan.tasks), 'task')} × {plural(len(plan.arms), 'arm')} × "
        f"{plural(len(plan.levels), 'fault level')} × {plural(plan.runs, 'run')} = "
        f"{plural(plan.sessions, 'session')}"
    )
    if price is None:
        emit("no price known for this model: token counts only (add it under run.prices in the config)")
        return
    schedule = plan_sessions(prepared.task_set, plan.arms, plan.levels, plan.tasks, plan.runs)
    by_cell = {(session.task.id, session.arm): session for session in played}
    planned = planned_usages(
        [(by_cell[(item.task.id, item.arm)], askers[item.arm].prefix) for item in schedule],
        price,
        caching=caching,
    )
    total = sum(price.cost(usage) for usages in planned for usage in usages)
    emit(
        f"estimated cost (prices as of {prices_as_of()}; "
        f"output assumed {plural(ASSUMED_OUTPUT_TOKENS, 'token')} "
        "a turn): "
        f"${total:.4f} for the planned run" + (" with caching" if caching else "")
    )
    emit(
        f"  worst case (every turn uses max_tokens {max_tokens}): "
        f"+${worst_case_extra(turns_total, max_tokens, price) * repeats:.4f}"
    )
    if any(level.percent > 0 for level in plan.levels):
        emit("  faults add turns (errors, retries): expect more at the higher fault levels")
    if budget_usd is not None:
        sessions = [by_cell[(item.task.id, item.arm)] for item in schedule]
        emit(budget_line(sessions, planned, price, budget_usd, max_tokens, total=total))


def idle_transforms(prepared: Prepared, plan: Plan, played: list[DrySession]) -> list[str]:
    """An arm's transform that removed nothing from any result the scripts got: a typo in its field
    (``diagnostic`` for ``diagnostics``) leaves the arm the same as the other, silently."""
    warnings = []
    for arm in plan.arms:
        results = [call.result for session in played if session.arm == arm for call in session.record.calls]
        if not results:
            continue
        for transform in prepared.task_set.arms[arm].transforms:
            if any(
                removes_anything(transform, result.content, result.structured_content) for result in results
            ):
                continue
            length = transform.remove_field.count(".") + 1
            fields = set().union(
                *(result_paths(result.content, result.structured_content, length) for result in results)
            )
            warnings.append(
                f"arm {arm}: remove_field {transform.remove_field!r} removed nothing from the "
                f"{plural(len(results), 'tool result')} the scripts got, so arm {arm}'s model saw them as "
                "the server sent them" + did_you_mean(Suggester(fields)(transform.remove_field))
            )
    return warnings


def budget_line(
    sessions: list[DrySession],
    planned: list[list[Usage]],
    price: Price,
    budget_usd: float,
    max_tokens: int,
    *,
    total: float,
) -> str:
    """Where a live run under ``budget_usd`` would stop, by the live rule itself (``requests_within``):
    before each request its worst case is reserved (its input, as the live run counts or estimates
    it, as a cache write; output at ``max_tokens``), then its expected usage is spent. ``sessions``
    and ``planned`` (their expected usages) are in the run's order."""
    expected: list[Usage] = []
    inputs: list[int] = []
    ends: list[int] = []  # the number of requests sent when each planned session ends
    for session, usages in zip(sessions, planned, strict=True):
        expected += usages
        inputs += session.reserved
        ends.append(len(expected))
    sent = requests_within(
        budget_usd, price, max_tokens=max_tokens, prefix=b"", expected=expected, input_tokens=inputs
    )
    if sent == len(expected):
        return f"budget ${budget_usd:g}: the planned run fits (about ${total:.4f})"
    rule = (
        "each request reserves its worst case before it is sent (its input as a cache write, output at "
        f"max_tokens {max_tokens})"
    )
    if sent == 0:
        first = Budget(budget_usd, price, max_tokens).request_cost(inputs[0])
        return (
            f"budget ${budget_usd:g}: a live run would stop before its first request (PRELIMINARY): "
            f"{rule}, and the first could cost up to ${first:.4f}"
        )
    finished = sum(1 for end in ends if end <= sent)
    if finished == 0:
        return (
            f"budget ${budget_usd:g}: a live run would stop in its first session, after {sent} "
            f"{noun(sent, 'request')} (PRELIMINARY): {rule}"
        )
    return (
        f"budget ${budget_usd:g}: a live run would stop after about "
        f"{finished} of {plural(len(sessions), 'session')} "
        f"(PRELIMINARY): {rule}"
    )
