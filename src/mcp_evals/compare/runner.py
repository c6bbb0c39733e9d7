"""One run over several arms: every arm's jobs interleaved, one policy, one record per arm.

``ArmsRunner`` is the run's own ``Runner`` (retries and backoff, the adaptive limiter, the one
``Budget``, the stop on a fatal error, the fallback when the model refuses forced tool use, dropouts
and truncated answers) with two differences: a job is asked through its arm, and its result goes to
its arm's results file, a normal record that ``mcp-evals report`` reads like any other.

Jobs are interleaved fixture by fixture (fixture 1 in every arm, then fixture 2, …), with the arms'
order rotated from one fixture to the next, so time (a model update, a slow minute, a rate limit)
falls on every arm alike, and no arm always goes first.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mcp_evals.answers import Answer, ErrorKind, ToolChoiceMode
from mcp_evals.compare.arms import Arm
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.record.model import FixtureResult
from mcp_evals.run.asker import Job
from mcp_evals.run.budget import Budget
from mcp_evals.run.progress import Progress
from mcp_evals.run.results_file import ResultsWriter
from mcp_evals.run.runner import Runner, RunSettings, RunSummary
from mcp_evals.wording import plural


@dataclass(frozen=True, eq=False)
class ArmJob(Job):
    """A job of one arm."""

    arm: str = ""


def interleave(arms: Sequence[str], fixtures: Sequence[Fixture], samples: int = 1) -> list[ArmJob]:
    """Every (fixture, sample) in every arm: fixture by fixture, the arms' order rotated each time."""
    jobs: list[ArmJob] = []
    position = 0
    for fixture in fixtures:
        for sample in range(samples):
            shift = position % len(arms)
            for arm in [*arms[shift:], *arms[:shift]]:
                jobs.append(ArmJob(fixture, sample, arm))
            position += 1
    return jobs


class ArmWriters(ResultsWriter):
    """The runner's writer: each result to its arm's results file."""

    def __init__(self, writers: dict[str, ResultsWriter]) -> None:
        first = next(iter(writers.values()))
        super().__init__(first.path, first.header)
        self.writers = writers
        self.arm_of: dict[int, str] = {}  # id(result) → arm, set as each result is made

    def start(self, notes: Iterable[str] = ()) -> None:
        listed = list(notes)
        for writer in self.writers.values():
            writer.start(listed)

    def write(self, result: FixtureResult) -> None:
        self.writers[self.arm_of.pop(id(result))].write(result)

    def close(self) -> None:
        for writer in self.writers.values():
            writer.close()

    def amend(
        self,
        *,
        notes: Iterable[str] = (),
        tool_choice: ToolChoiceMode | None = None,
        retract: Iterable[str] = (),
    ) -> None:
        listed, retracted = list(notes), list(retract)
        for writer in self.writers.values():
            writer.amend(notes=listed, tool_choice=tool_choice, retract=retracted)


class ArmsRunner(Runner):
    """The run's runner, asking each job through its arm and recording it in its arm's file."""

    def __init__(
        self,
        arms: Sequence[Arm],
        settings: RunSettings,
        writers: dict[str, ResultsWriter],
        *,
        progress: Progress | None = None,
        total: int | None = None,
    ) -> None:
        self.arms = {arm.name: arm for arm in arms}
        self.writers = ArmWriters(writers)
        # What the run learnt about one arm goes to that arm's record only.
        self.arm_notes: dict[str, list[str]] = defaultdict(list)
        self.arm_retracted: dict[str, list[str]] = defaultdict(list)
        self.ignored: Counter[str] = Counter()  # arm → answers to forced requests with no call at all
        self.explained: dict[str, Counter[str]] = defaultdict(Counter)  # arm → reason → answers
        first = arms[0].asker
        super().__init__(
            first, settings, self.writers, progress=progress, catalog_hash=first.catalog.hash, total=total
        )
        self.budget = Budget(
            settings.budget_usd,
            settings.price,
            first.options.max_tokens,
            prefix=max((arm.asker.prefix for arm in arms), key=len),
            requests_per_job=max(arm.requests_per_job for arm in arms),
        )

    def arm(self, job: Job) -> Arm:
        assert isinstance(job, ArmJob)
        return self.arms[job.arm]

    async def ask(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        return await self.arm(job).ask(job, mode)

    def requests_for(self, job: Job) -> int:
        return self.arm(job).requests_per_job  # a full job reserves one request, a paused search three

    def learnt(self, job: Job, note: str) -> None:
        text = f"compare arm {self.arm(job).name}: {note}"
        self.arm_notes[self.arm(job).name].append(text)
        self.say(f"note: {text}")

    def disproved(self, job: Job, text: str) -> None:
        self.arm_retracted[self.arm(job).name].append(text)

    def on_forced_ignored(self, job: Job, answer: Answer) -> None:
        arm = self.arm(job)
        reason = arm.why_no_call(answer)
        if reason is not None:  # the model called the arm's own tool: forced tool use was honoured
            self.explained[arm.name][reason] += 1
            if sum(self.explained[arm.name].values()) == 1:
                self.say(f"note: {self.explained_note(arm.name, reason, 1)}")
            return
        self.summary.forced_ignored += 1
        self.ignored[arm.name] += 1
        if self.ignored[arm.name] == 1:
            self.say(f"note: {self.ignored_note(arm.name)}")

    def ignored_note(self, arm: str) -> str:
        return (
            f"compare arm {arm}: {self.asker.model} did not honour forced tool use: "
            f"{plural(self.ignored[arm], 'answer')} to requests that forced a tool call had none "
            "(scored as no call)"
        )

    def explained_note(self, arm: str, reason: str, count: int) -> str:
        called = "search_tools" if reason.startswith("search_tools") else "the search tool"
        return (
            f"compare arm {arm}: {plural(count, 'answer')} ended with no tool called because {reason} "
            f"(scored as no call; the model did call {called})"
        )

    def amend_record(self) -> None:
        """Notes about the whole run (forced tool use rejected) go to every arm; about one arm, to its."""
        tool_choice: ToolChoiceMode | None = "auto_instructed" if self.forced_rejected else None
        for name, writer in self.writers.writers.items():
            notes = [*self.summary.notes, *self.arm_notes[name]]
            notes += [
                self.explained_note(name, reason, count) for reason, count in self.explained[name].items()
            ]
            if self.ignored[name]:
                notes.append(self.ignored_note(name))
            writer.amend(
                notes=notes,
                tool_choice=tool_choice,
                retract=[*self._retracted, *self.arm_retracted[name]],
            )

    def result(
        self,
        job: Job,
        *,
        answer: Answer | None = None,
        failure: ProviderFailure | None = None,
        kind: ErrorKind | None = None,
        message: str | None = None,
        attempts: int = 0,
        mode: ToolChoiceMode | None = None,
        latency_ms: float = 0.0,
    ) -> FixtureResult:
        made = super().result(
            job,
            answer=answer,
            failure=failure,
            kind=kind,
            message=message,
            attempts=attempts,
            mode=mode,
            latency_ms=latency_ms,
        )
        arm = self.arm(job)
        update: dict[str, object] = {"catalog_hash": arm.catalog.hash}
        if answer is not None and answer.retrieval is not None:
            update["retrieval"] = answer.retrieval
        result = made.model_copy(update=update)
        self.writers.arm_of[id(result)] = arm.name
        return result

    async def run(self, jobs: Sequence[Job], *, notes: Sequence[str] = ()) -> RunSummary:
        try:
            return await super().run(jobs, notes=notes)
        finally:
            for arm in self.arms.values():
                await arm.provider.aclose()
