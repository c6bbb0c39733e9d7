"""The runner: every (fixture, sample) to the model, bounded, adaptive, budgeted, resumable.

Policy lives here; wire formats live in ``providers``. For each request the runner

* dispatches it through an adaptive limiter (halved on a 429, crept back up one slot per window of
  successes) inside an anyio task group with a fixed pool of workers;
* retries transient failures with exponential backoff and jitter (tenacity), honouring the server's
  ``retry-after`` / ``retry-after-ms`` but never waiting longer than ``max_wait`` at once;
* on a fatal failure (auth, billing, unknown model, invalid request) stops dispatching at once, lets
  in-flight requests finish and records everything else as ``not_dispatched``;
* stops dispatching before the next request could cross the budget (``budget``);
* records every request that never got an answer as a dropout (``reached=False`` plus its
  ``error_kind``), which scoring leaves out: an infrastructure failure is never a wrong choice;
* appends one NDJSON line per finished request and flushes it, so a killed run loses nothing it
  finished and ``--resume`` picks up where it stopped.

The first request runs alone: it writes the prompt cache that every later request reads, and it
finds out once per run whether the model rejects forced tool use.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from mcp_evals.answers import Answer, ErrorKind, GenerateOptions, ToolChoiceMode, Usage
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import GateOptions, ScoringOptions
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.base import BatchItem, Provider
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.pricing import Price
from mcp_evals.record.model import FixtureResult
from mcp_evals.run.asker import Asker, Job
from mcp_evals.run.budget import Budget
from mcp_evals.run.plan import EXPECT_NOTHING_CACHED, make_header, plan_jobs
from mcp_evals.run.progress import Progress
from mcp_evals.run.results_file import ResultsWriter
from mcp_evals.run.retry import AdaptiveLimiter, RetryPolicy, T, retrying, with_retries
from mcp_evals.wording import plural


@dataclass
class RunSettings:
    concurrency: int = 4
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    budget_usd: float | None = None
    price: Price | None = None
    batch: bool = False  # through the provider's batch interface (Anthropic's Message Batches)
    resume: bool = False
    request_deadline: float | None = None  # hard cap on one attempt (httpx's timeout is per read)
    batch_poll_initial: float = 5.0
    batch_poll_max: float = 60.0


@dataclass
class RunSummary:
    planned: int = 0
    finished: int = 0
    reached: int = 0
    dropouts: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    spent_usd: float = 0.0
    fatal: ProviderFailure | None = None
    last_dropout: str | None = None  # the last dropout's message, for the run's summary line
    budget_stopped: bool = False
    forced_rejected: bool = False
    forced_ignored: int = 0  # answers to forced requests with no tool call: forcing was not honoured
    notes: list[str] = field(default_factory=list)
    lowest_concurrency: int | None = None
    rate_limited: int = 0
    elapsed_s: float = 0.0

    @property
    def complete(self) -> bool:
        return self.reached == self.planned


# -- the runner -------------------------------------------------------------------------------


class Runner:
    """Runs jobs through one ``Asker`` (a provider with the run's catalog and prompt) and writes
    their results."""

    def __init__(
        self,
        asker: Asker,
        settings: RunSettings,
        writer: ResultsWriter,
        *,
        progress: Progress | None = None,
        catalog_hash: str,
        total: int | None = None,
    ) -> None:
        self.asker = asker
        self.provider = asker.provider
        self.settings = settings
        self.writer = writer
        self.progress = progress
        self.catalog_hash = catalog_hash
        self.limiter = AdaptiveLimiter(settings.concurrency)
        self.summary = RunSummary(planned=total or 0)
        self.fatal: ProviderFailure | None = None
        self.forced_rejected = False
        self.budget = Budget(
            settings.budget_usd,
            settings.price,
            asker.options.max_tokens,
            prefix=asker.prefix,
            batch=settings.batch,
        )
        self._warned: set[str] = set()
        self._batch_jobs: dict[tuple[str | int, ...], Job] = {}
        self._retracted: list[str] = []
        self._held: list[FixtureResult] | None = None

    # -- state ---------------------------------------------------------------------------------

    @property
    def stopping(self) -> bool:
        return self.fatal is not None or self.budget.stopped

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress.message(text)

    # -- what a provider's batch interface needs (``providers.anthropic_batch.BatchHost``) --------

    @property
    def results_path(self) -> Path:
        return self.writer.path

    @property
    def resume(self) -> bool:
        return self.settings.resume

    @property
    def budget_usd(self) -> float | None:
        return self.settings.budget_usd

    @property
    def poll_initial(self) -> float:
        return self.settings.batch_poll_initial

    @property
    def poll_max(self) -> float:
        return self.settings.batch_poll_max

    async def with_retries(self, call: Callable[[], Awaitable[T]]) -> T:
        return await with_retries(self.settings.retry, call)

    def admit(self, item: BatchItem) -> bool:
        return self.budget.reserve() is not None

    def record_answer(self, item: BatchItem, answer: Answer, mode: ToolChoiceMode | None) -> None:
        answer = self.asker.catalog.names.resolve(answer)
        self.record(self.result(self._batch_jobs[item.key], answer=answer, attempts=1, mode=mode))

    def record_failure(
        self, item: BatchItem, failure: ProviderFailure, mode: ToolChoiceMode | None, *, attempts: int
    ) -> None:
        job = self._batch_jobs[item.key]
        self.record(self.result(job, failure=failure, attempts=attempts, mode=mode))

    def record_dropout(
        self, item: BatchItem, kind: ErrorKind, message: str, mode: ToolChoiceMode | None
    ) -> None:
        job = self._batch_jobs[item.key]
        self.record(self.result(job, kind=kind, message=message, attempts=1, mode=mode))

    def record_not_sent(self, item: BatchItem) -> None:
        self.record(self.not_sent(self._batch_jobs[item.key]))

    def status(self, text: str) -> None:
        if self.progress is not None:
            self.progress.set_status(text)

    # -- results -------------------------------------------------------------------------------

    def record(self, result: FixtureResult) -> None:
        if self._held is not None:
            self._held.append(result)  # during the warm-up, before the header is written
        else:
            self.writer.write(result)
        outcome = self.summary
        outcome.finished += 1
        if result.reached:
            outcome.reached += 1
            outcome.usage = outcome.usage + result.usage
        else:
            outcome.dropouts[result.error_kind or "unknown"] += 1
            outcome.last_dropout = result.error_message or outcome.last_dropout
        outcome.spent_usd = self.budget.spent_usd
        if self.progress is not None:
            self.progress.update(result)

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
        common: dict[str, Any] = {
            "fixture_id": job.fixture.id,
            "fixture_hash": job.fixture.hash,
            "sample": job.sample,
            "provider": self.provider.name,
            "model": self.asker.model,
            "catalog_hash": self.catalog_hash,
            "attempts": attempts,
            "mode": mode,
        }
        if answer is not None:
            answered: dict[str, Any] = {
                "text": answer.text,
                "stop_reason": answer.stop_reason,
                "usage": answer.usage,
                "cost_usd": self.budget.spend(answer.usage),
                "latency_ms": round(answer.latency_ms, 1),
                "request_id": answer.request_id,
            }
            if not answer.calls and answer.truncated:
                # Paid for but no answer: a dropout (never a wrong choice), with its usage and cost kept.
                return FixtureResult(
                    **common,
                    **answered,
                    reached=False,
                    error_kind="truncated",
                    error_message=f"the answer stopped at {answer.stop_reason} before any tool call: raise "
                    f"run.max_tokens (now {self.asker.options.max_tokens}) so the model can finish",
                )
            return FixtureResult(**common, **answered, reached=True, calls=answer.calls)
        return FixtureResult(
            **common,
            reached=False,
            cost_usd=0.0 if self.settings.price is not None else None,
            latency_ms=round(latency_ms, 1),
            request_id=failure.request_id if failure else None,
            error_kind=failure.kind if failure else kind,
            error_message=failure.message if failure else message or "",
        )

    def not_sent(self, job: Job) -> FixtureResult:
        if self.fatal is not None:
            return self.result(
                job,
                kind="not_dispatched",
                message=f"not sent: the run stopped after a fatal error "
                f"({self.fatal.kind}: {self.fatal.message})",
            )
        return self.result(
            job,
            kind="budget",
            message="not sent: the next request could have crossed the budget "
            f"of ${self.settings.budget_usd:g}",
        )

    def on_fatal(self, failure: ProviderFailure) -> None:
        if self.fatal is None:
            self.fatal = failure
            self.summary.fatal = failure
            self.say(
                f"error: {failure.kind}: {failure.message}\n"
                "  stopping: no new requests; in-flight ones finish; the rest are recorded as not reached"
            )

    # -- one request ---------------------------------------------------------------------------

    def requests_for(self, job: Job) -> int:
        """The most requests ``job`` can take: the budget reserves each one's worst case."""
        return self.budget.requests_per_job

    async def ask(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        """One attempt at one job (``compare`` asks each job through its arm instead)."""
        return await self.asker.ask(job, mode)

    async def _attempts(self, job: Job, mode: ToolChoiceMode | None, counter: list[int]) -> Answer:
        async for attempt in retrying(self.settings.retry, stop_when=lambda: self.stopping):
            with attempt:
                counter[0] += 1
                try:
                    if self.settings.request_deadline:
                        with anyio.fail_after(self.settings.request_deadline):
                            answer = await self.ask(job, mode)
                    else:
                        answer = await self.ask(job, mode)
                except TimeoutError:
                    message = "no complete answer within the deadline"
                    raise ProviderFailure.transient_failure("timeout", message) from None
                except ProviderFailure as failure:
                    if failure.kind == "rate_limited":
                        self.limiter.rate_limited()
                        self.summary.rate_limited += 1
                    raise
                self.limiter.succeeded()
                return answer
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

    async def process(self, job: Job) -> None:
        """Dispatch one job (or record why it was not sent)."""
        async with self.limiter.limiter:
            if self.stopping:
                self.record(self.not_sent(job))
                return
            requests = self.requests_for(job)
            estimate = self.budget.next_request_cost(requests)
            reservation = self.budget.reserve(requests)
            if reservation is None:
                self.on_budget_stop(self.budget.stop_message(estimate))
                self.record(self.not_sent(job))
                return
            counter = [0]
            mode = self.asker.mode_for(job.fixture, forced_rejected=self.forced_rejected)
            started = time.perf_counter()
            try:
                while True:
                    try:
                        answer = await self._attempts(job, mode, counter)
                        break
                    except ProviderFailure as failure:
                        if failure.rejects_forced_tool_choice and mode == "forced":
                            self.on_forced_rejected(failure)
                            mode = self.asker.mode_for(job.fixture, forced_rejected=True)
                            continue
                        raise
            except ProviderFailure as failure:
                if failure.stops_run:
                    self.on_fatal(failure)
                latency = (time.perf_counter() - started) * 1000
                dropout = self.result(
                    job, failure=failure, attempts=counter[0], mode=mode, latency_ms=latency
                )
                self.record(dropout)
            else:
                self.record(self.result(job, answer=answer, attempts=counter[0], mode=answer.mode or mode))
                self.check_cache(job, answer)
                if (answer.mode or mode) == "forced" and not answer.calls and not answer.truncated:
                    self.on_forced_ignored(job, answer)
            finally:
                self.budget.release(reservation)

    def on_budget_stop(self, message: str) -> None:
        if not self.summary.budget_stopped:
            self.summary.budget_stopped = True
            self.say(message)

    def on_forced_rejected(self, failure: ProviderFailure) -> None:
        if not self.forced_rejected:
            self.forced_rejected = True
            self.summary.forced_rejected = True
            note = (
                f"{self.asker.model} rejects forced tool use ({failure.message}); select "
                "fixtures ran with tool_choice auto plus an instruction to call exactly one tool "
                "(mode auto_instructed)"
            )
            self.summary.notes.append(note)
            self.say(f"note: {note}")

    def on_forced_ignored(self, job: Job, answer: Answer) -> None:
        # An API that accepts forced tool use must answer with a tool call; a server that takes the
        # parameter and ignores it (reported of Ollama) answers as with `auto`, without the instruction
        # the `auto_instructed` fallback adds. The answers stand (no call is a miss); the note says why.
        self.summary.forced_ignored += 1
        if self.summary.forced_ignored == 1:
            self.say(f"note: {self.forced_ignored_note()}")

    def forced_ignored_note(self) -> str:
        count = self.summary.forced_ignored
        return (
            f"{self.asker.model} did not honour forced tool use: {plural(count, 'answer')} to "
            "requests that forced a tool call had none (scored as no call)"
        )

    def learnt(self, job: Job, note: str) -> None:
        """A note the run learnt from ``job``'s answer: for the record's header and the terminal."""
        self.summary.notes.append(note)
        self.say(f"note: {note}")

    def disproved(self, job: Job, text: str) -> None:
        """``job``'s answer proved wrong the header's notes that contain ``text``: they leave it."""
        self._retracted.append(text)

    def check_cache(self, job: Job, answer: Answer) -> None:
        """After the first answer: say so when caching was asked for and nothing was cached."""
        if "cache" in self._warned or not self.asker.caching or not self.provider.reports_cache_usage:
            return
        self._warned.add("cache")
        usage = answer.usage
        if usage.cache_write_tokens or usage.cache_read_tokens:
            # The pre-run estimate may have said the prefix was too short to cache; the API says otherwise.
            self.disproved(job, EXPECT_NOTHING_CACHED)
            cached = usage.cache_write_tokens or usage.cache_read_tokens
            self.say(f"note: caching works: the first answer shows {cached} prompt tokens cached")
            return
        if usage.cache_write_tokens == 0 and usage.cache_read_tokens == 0:
            note = (
                f"nothing was cached: the catalog and system prompt ({usage.input_tokens} input tokens "
                f"in all) are below {self.asker.model}'s minimum cacheable prefix, so every "
                "request paid full input price"
            )
            self.learnt(job, note)

    # -- the whole run -------------------------------------------------------------------------

    async def run(self, jobs: Sequence[Job], *, notes: Sequence[str] = ()) -> RunSummary:
        started = time.monotonic()
        self.summary.planned = self.summary.planned or len(jobs)
        try:
            if self.settings.batch:
                self.writer.start(notes)
                items = []
                for job in jobs:
                    item = self.asker.batch_item(job, self.asker.mode_for(job.fixture, forced_rejected=False))
                    self._batch_jobs[item.key] = job
                    items.append(item)
                await self.provider.generate_batch(items, self)
            else:
                await self._run_concurrently(jobs, notes)
        finally:
            await self.provider.aclose()
            self.amend_record()
            self.writer.close()
            if self.progress is not None:
                self.progress.close()
            self.summary.elapsed_s = time.monotonic() - started
            self.summary.lowest_concurrency = self.limiter.lowest
        return self.summary

    def amend_record(self) -> None:
        """Put what the run learnt into the record's header (``compare``: into each arm's own)."""
        if self.summary.forced_ignored:
            self.summary.notes.append(self.forced_ignored_note())
        self.writer.amend(
            notes=self.summary.notes,
            tool_choice="auto_instructed" if self.forced_rejected else None,
            retract=self._retracted,
        )

    async def _run_concurrently(self, jobs: Sequence[Job], notes: Sequence[str]) -> None:
        if self.provider.uses_network and jobs:
            # Warm-up: one request alone writes the cache and learns whether forced tool use works,
            # so it is the first job that would force a tool call, if there is one.
            first = next(
                (
                    index
                    for index, job in enumerate(jobs)
                    if self.asker.mode_for(job.fixture, forced_rejected=False) == "forced"
                ),
                0,
            )
            warm_up, pending = jobs[first], iter([*jobs[:first], *jobs[first + 1 :]])
            self._held = []
            try:
                await self.process(warm_up)
            finally:
                held, self._held = self._held, None
                self.writer.start([*notes, *self.summary.notes])
                for result in held:
                    self.writer.write(result)
        else:
            pending = iter(jobs)
            self.writer.start(notes)

        async def worker() -> None:
            for job in pending:  # a shared iterator: each job is taken by exactly one worker
                await self.process(job)

        async with anyio.create_task_group() as group:
            for _ in range(min(self.settings.concurrency, max(1, len(jobs)))):
                group.start_soon(worker)


def summarize_dropouts(outcome: RunSummary) -> str:
    if not outcome.dropouts:
        return "none"
    return ", ".join(f"{kind} {count}" for kind, count in sorted(outcome.dropouts.items()))


async def run_eval(
    provider: Provider,
    catalog: Catalog,
    fixtures: Sequence[Fixture],
    results_path: Path,
    settings: RunSettings | None = None,
    *,
    system_prompt: str = "",
    options: GenerateOptions | None = None,
    samples: int = 1,
    progress: Progress | None = None,
) -> RunSummary:
    """Ask ``provider`` about every fixture once per sample, with ``catalog`` as its tools, and write
    ``results_path`` (library use).

    The CLI does the same with the config's settings, validation, resume and shards on top.
    """
    settings = settings or RunSettings()
    asker = Asker(provider, catalog, system_prompt, options)
    header = make_header(
        asker=asker,
        planned=fixtures,
        all_fixtures=fixtures,
        samples=samples,
        shard=None,
        limit=None,
        exclude_tools=[],
        scoring=ScoringOptions(),
        gate=GateOptions(),
    )
    jobs = plan_jobs(fixtures, samples)
    runner = Runner(
        asker,
        settings,
        ResultsWriter(results_path, header),
        progress=progress,
        catalog_hash=catalog.hash,
        total=len(jobs),
    )
    return await runner.run(jobs)
