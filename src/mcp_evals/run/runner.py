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

import hashlib
import random
import time
import uuid
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

import anyio
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, stop_any
from tenacity.stop import stop_base

from mcp_evals._version import __version__
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import GateOptions, ScoringOptions
from mcp_evals.errors import ConfigError, InputFileError
from mcp_evals.fixtures.model import Fixture, fixture_set_hash
from mcp_evals.output.files import atomic_write
from mcp_evals.providers.base import Answer, Job, Provider, ProviderFailure
from mcp_evals.providers.pricing import Price
from mcp_evals.providers.tokens import estimate_request_tokens, estimate_tokens
from mcp_evals.record.model import (
    ErrorKind,
    FixtureResult,
    RunHeader,
    SamplingSettings,
    ToolChoiceMode,
    Usage,
)
from mcp_evals.record.read import read_results, write_line
from mcp_evals.run.progress import Progress

DEFAULT_RESULTS = "mcp-evals-results.ndjson"
T = TypeVar("T")
# Stop reasons of an answer cut off before it was finished (Anthropic, then OpenAI names).
CUT_OFF_STOP_REASONS = frozenset({"max_tokens", "model_context_window_exceeded", "length"})


# -- planning (pure) ---------------------------------------------------------------------------


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` → ``(2, 4)``: the second of four shards (1-based)."""
    try:
        index_text, count_text = text.split("/")
        index, count = int(index_text), int(count_text)
    except ValueError:
        raise ConfigError(f"--shard {text!r}: expected I/N, e.g. 1/4") from None
    if count < 1 or not 1 <= index <= count:
        raise ConfigError(f"--shard {text!r}: I must be between 1 and N (N ≥ 1)")
    return index, count


def shard_fixtures(fixtures: Sequence[Fixture], index: int, count: int) -> list[Fixture]:
    """A deterministic 1/N of the fixtures: balanced, disjoint, and the shards together are all of them.

    Fixtures are ordered by a hash of their id (independent of file order and machine) and dealt
    round-robin, so every shard gets a similar mix of areas and sizes differ by at most one.
    """

    def position(fixture: Fixture) -> tuple[str, str]:
        return hashlib.sha256(fixture.id.encode("utf-8")).hexdigest(), fixture.id

    ordered = sorted(fixtures, key=position)
    chosen = {fixture.id for position, fixture in enumerate(ordered) if position % count == index - 1}
    return [fixture for fixture in fixtures if fixture.id in chosen]


def plan_fixtures(
    fixtures: Sequence[Fixture], *, limit: int | None = None, shard: str | None = None
) -> list[Fixture]:
    """The fixtures a run covers: the first ``limit`` (a smoke run), then this run's shard."""
    planned = list(fixtures[:limit] if limit is not None else fixtures)
    if shard:
        planned = shard_fixtures(planned, *parse_shard(shard))
    return planned


def plan_jobs(
    fixtures: Sequence[Fixture], samples: int, done: set[tuple[str, str, int]] | None = None
) -> list[Job]:
    """One job per (fixture, sample), minus those ``done`` already holds (keyed by id, hash, sample)."""
    done = done or set()
    return [
        Job(fixture, sample)
        for fixture in fixtures
        for sample in range(samples)
        if (fixture.id, fixture.hash, sample) not in done
    ]


# -- retry and concurrency policy ---------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """How transient failures are retried (the official SDKs' backoff, with more attempts)."""

    max_attempts: int = 6
    max_wait: float = 60.0  # the longest single wait, also for a server's retry-after
    initial_backoff: float = 0.5
    max_backoff: float = 8.0

    def wait(self, attempt_number: int, failure: BaseException | None) -> float:
        retry_after = getattr(failure, "retry_after", None)
        if retry_after is not None:
            seconds = float(retry_after)
        else:
            seconds = min(self.initial_backoff * 2 ** (attempt_number - 1), self.max_backoff)
            seconds *= 1 - 0.25 * random.random()  # jitter: spread a burst of retries
        return max(0.0, min(seconds, self.max_wait))


class AdaptiveLimiter:
    """A capacity limiter that halves on rate limiting and creeps back up one slot per window."""

    def __init__(self, maximum: int) -> None:
        self.maximum = max(1, maximum)
        self.limiter = anyio.CapacityLimiter(self.maximum)
        self._successes = 0
        self.lowest = self.maximum

    @property
    def current(self) -> int:
        return int(self.limiter.total_tokens)

    def rate_limited(self) -> None:
        self.limiter.total_tokens = max(1, self.current // 2)
        self.lowest = min(self.lowest, self.current)
        self._successes = 0

    def succeeded(self) -> None:
        if self.current >= self.maximum:
            return
        self._successes += 1
        if self._successes >= self.current:  # one full window at this level without a 429
            self.limiter.total_tokens = self.current + 1
            self._successes = 0


@dataclass
class RunSettings:
    concurrency: int = 4
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    budget_usd: float | None = None
    price: Price | None = None
    batch: bool = False
    resume: bool = False
    request_deadline: float | None = None  # hard cap on one attempt (httpx's timeout is per read)
    batch_poll_initial: float = 5.0
    batch_poll_max: float = 60.0


@dataclass
class RunOutcome:
    planned: int = 0
    finished: int = 0
    reached: int = 0
    dropouts: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    spent_usd: float = 0.0
    fatal: ProviderFailure | None = None
    budget_stopped: bool = False
    forced_rejected: bool = False
    notes: list[str] = field(default_factory=list)
    lowest_concurrency: int | None = None
    rate_limited: int = 0
    elapsed_s: float = 0.0

    @property
    def complete(self) -> bool:
        return self.reached == self.planned


# -- results file -----------------------------------------------------------------------------


class ResultsWriter:
    """Writes the header once the run knows its notes, then one flushed line per finished request."""

    def __init__(
        self, path: Path, header: RunHeader, *, kept: Sequence[FixtureResult] = (), resume: bool = False
    ):
        self.path = path
        self.header = header
        self.kept = list(kept)
        self.resume = resume
        self._stream: IO[str] | None = None

    def start(self, notes: Iterable[str] = ()) -> None:
        if self._stream is not None:
            return
        extra = [note for note in notes if note not in self.header.notes]
        self.header = self.header.model_copy(update={"notes": [*self.header.notes, *extra]})
        # A fresh run replaces the file; a resumed one is rewritten (atomically) with the new header and
        # the answers it keeps, then appended to.
        with atomic_write(self.path) as stream:
            write_line(stream, self.header)
            for result in self.kept:
                write_line(stream, result)
        self._stream = self.path.open("a", encoding="utf-8")

    def write(self, result: FixtureResult) -> None:
        if self._stream is None:
            self.start()
        assert self._stream is not None
        write_line(self._stream, result)

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def amend(self, *, notes: Iterable[str] = (), tool_choice: ToolChoiceMode | None = None) -> None:
        """Put what the run learnt after the header was written into it (rewrites the file atomically).

        Reports are rendered from the record alone, so a late note (forced tool use rejected by a
        batch, nothing cached) must reach the header, not only the terminal.
        """
        extra = [note for note in notes if note not in self.header.notes]
        update: dict[str, Any] = {"notes": [*self.header.notes, *extra]} if extra else {}
        if tool_choice is not None and tool_choice != self.header.tool_choice:
            update["tool_choice"] = tool_choice
        if not update or self._stream is None:
            return
        self.close()
        self.header = self.header.model_copy(update=update)
        with self.path.open(encoding="utf-8") as source, atomic_write(self.path) as target:
            source.readline()  # the old header
            write_line(target, self.header)
            for line in source:
                target.write(line)


def resume_from(
    path: Path,
    *,
    catalog_hash: str,
    provider: str,
    model: str,
    fixtures: Sequence[Fixture],
    samples: int,
    all_fixtures: Sequence[Fixture] | None = None,
) -> tuple[list[FixtureResult], set[tuple[str, str, int]]]:
    """What an earlier (maybe killed) run in ``path`` already answered that this run can keep.

    Returns the answers to keep in the file and the (id, hash, sample) keys of ``fixtures`` that need
    no new request. Only reached answers for the same catalog, model, fixture content and sample
    count; dropouts are retried. Answers for fixtures of ``all_fixtures`` outside this run's plan (a
    smaller ``--limit``, another shard) are kept too, so resuming never throws paid answers away. A
    file made against another catalog or model is refused rather than mixed.
    """
    if not path.exists():
        return [], set()
    earlier = read_results(path)
    header = earlier.header
    if header.catalog_hash != catalog_hash or header.model != model or header.provider != provider:
        what = []
        if header.catalog_hash != catalog_hash:
            what.append(f"catalog {header.catalog_hash[:12]} (now {catalog_hash[:12]})")
        if header.model != model or header.provider != provider:
            what.append(f"model {header.provider}/{header.model} (now {provider}/{model})")
        raise InputFileError(
            f"{path}: cannot resume: the file holds a run with another {' and '.join(what)}",
            hint="write this run to a new file with --results, or drop --resume to start over",
        )
    known = {(fixture.id, fixture.hash) for fixture in [*fixtures, *(all_fixtures or ())]}
    kept = [
        result
        for result in earlier.results
        if result.reached and (result.fixture_id, result.fixture_hash) in known and result.sample < samples
    ]
    planned = {(fixture.id, fixture.hash) for fixture in fixtures}
    done = {
        (result.fixture_id, result.fixture_hash, result.sample)
        for result in kept
        if (result.fixture_id, result.fixture_hash) in planned
    }
    return kept, done


def make_header(
    *,
    provider: Provider,
    catalog: Catalog,
    planned: Sequence[Fixture],
    all_fixtures: Sequence[Fixture],
    system_prompt: str,
    samples: int,
    max_tokens: int,
    temperature: float | None,
    shard: str | None,
    limit: int | None,
    exclude_tools: Sequence[str],
    scoring: ScoringOptions,
    gate: GateOptions,
    notes: Sequence[str] = (),
) -> RunHeader:
    forced_known = provider.mode_for(Fixture(id="-", query="-"), forced_rejected=False)
    return RunHeader(
        tool_version=__version__,
        run_id=uuid.uuid4().hex[:16],
        provider=provider.name,
        model=provider.settings.model,
        baseline_only=provider.baseline_only,
        catalog=catalog,
        catalog_hash=catalog.hash,
        fixtures=list(planned),
        fixture_set_hash=fixture_set_hash(all_fixtures),
        system_prompt=system_prompt,
        system_prompt_hash=hashlib.sha256(system_prompt.encode("utf-8")).hexdigest(),
        tool_choice=forced_known or "none",
        sampling=SamplingSettings(temperature=temperature, max_tokens=max_tokens, samples=samples),
        shard=shard,
        limit=limit,
        exclude_tools=list(exclude_tools),
        scoring=scoring,
        gate=gate,
        notes=list(notes),
    )


def retrying(policy: RetryPolicy, *also_stop: stop_base) -> AsyncRetrying:
    """Tenacity for transient ProviderFailures: ``policy``'s attempts and waits, fatal ones raised."""
    return AsyncRetrying(
        stop=stop_any(stop_after_attempt(policy.max_attempts), *also_stop),
        wait=lambda state: policy.wait(
            state.attempt_number, state.outcome.exception() if state.outcome else None
        ),
        retry=retry_if_exception(lambda error: isinstance(error, ProviderFailure) and error.transient),
        sleep=anyio.sleep,
        reraise=True,
    )


async def with_retries(policy: RetryPolicy, call: Callable[[], Awaitable[T]]) -> T:
    """Await ``call()``, retrying transient ProviderFailures by ``policy`` (for one-off calls)."""
    async for attempt in retrying(policy):
        with attempt:
            return await call()
    raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover


# -- the runner -------------------------------------------------------------------------------


class _Stopping(stop_base):
    """A tenacity stop condition: give up retrying once the run is stopping."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.runner.stopping


class Runner:
    """Runs jobs against one provider and writes their results."""

    def __init__(
        self,
        provider: Provider,
        settings: RunSettings,
        writer: ResultsWriter,
        *,
        progress: Progress | None = None,
        catalog_hash: str,
        total: int | None = None,
    ) -> None:
        self.provider = provider
        self.settings = settings
        self.writer = writer
        self.progress = progress
        self.catalog_hash = catalog_hash
        self.limiter = AdaptiveLimiter(settings.concurrency)
        self.outcome = RunOutcome(planned=total or 0)
        self.fatal: ProviderFailure | None = None
        self.budget_stop = False
        self.forced_rejected = False
        self.reserved_usd = 0.0
        self._recent_input_costs: deque[float] = deque(maxlen=16)
        self._warned: set[str] = set()
        self._held: list[FixtureResult] | None = None

    # -- state ---------------------------------------------------------------------------------

    @property
    def stopping(self) -> bool:
        return self.fatal is not None or self.budget_stop

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress.message(text)

    # -- budget --------------------------------------------------------------------------------

    def next_request_cost(self) -> float:
        """What the next request could cost at most: input as recent requests cost, output at max_tokens."""
        price = self.settings.price
        if price is None:
            return 0.0
        if self._recent_input_costs:
            input_cost = max(self._recent_input_costs)
        else:  # nothing observed yet: assume the whole prompt is written to the cache
            prompt_tokens = estimate_tokens(self.provider.cache_prefix()) + 400
            input_cost = prompt_tokens * max(price.input, price.cache_write) / 1_000_000
        output_cost = self.provider.settings.max_tokens * price.output / 1_000_000
        factor = 0.5 if self.settings.batch else 1.0
        return (input_cost + output_cost) * factor

    def budget_allows(self, estimate: float) -> bool:
        budget = self.settings.budget_usd
        if budget is None:
            return True
        return self.outcome.spent_usd + self.reserved_usd + estimate <= budget

    def observe_cost(self, usage: Usage) -> float | None:
        price = self.settings.price
        if price is None:
            return None
        cost = price.cost(usage, batch=self.settings.batch)
        output_only = price.cost(Usage(output_tokens=usage.output_tokens), batch=self.settings.batch)
        self._recent_input_costs.append(cost - output_only)
        return cost

    # -- results -------------------------------------------------------------------------------

    def record(self, result: FixtureResult) -> None:
        if self._held is not None:
            self._held.append(result)  # during the warm-up, before the header is written
        else:
            self.writer.write(result)
        outcome = self.outcome
        outcome.finished += 1
        if result.reached:
            outcome.reached += 1
            outcome.usage = outcome.usage + result.usage
        else:
            outcome.dropouts[result.error_kind or "unknown"] += 1
        outcome.spent_usd += result.cost_usd or 0.0
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
            "model": self.provider.settings.model,
            "catalog_hash": self.catalog_hash,
            "attempts": attempts,
            "mode": mode,
        }
        if answer is not None:
            answered: dict[str, Any] = {
                "text": answer.text,
                "stop_reason": answer.stop_reason,
                "usage": answer.usage,
                "cost_usd": self.observe_cost(answer.usage),
                "latency_ms": round(answer.latency_ms, 1),
                "request_id": answer.request_id,
            }
            if not answer.calls and answer.stop_reason in CUT_OFF_STOP_REASONS:
                # Paid for but no answer: a dropout (never a wrong choice), with its usage and cost kept.
                return FixtureResult(
                    **common,
                    **answered,
                    reached=False,
                    error_kind="truncated",
                    error_message=f"the answer stopped at {answer.stop_reason} before any tool call: raise "
                    f"run.max_tokens (now {self.provider.settings.max_tokens}) so the model can finish",
                )
            return FixtureResult(**common, **answered, reached=True, calls=answer.calls)
        return FixtureResult(
            **common,
            reached=False,
            cost_usd=0.0 if self.settings.price is not None else None,
            latency_ms=round(latency_ms, 1),
            request_id=failure.request_id if failure else None,
            error_kind=failure.kind if failure else kind,
            error_message=self.provider.scrub(failure.message if failure else message or ""),
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
            self.outcome.fatal = failure
            self.say(
                f"error: {failure.kind}: {failure.message}\n"
                "  stopping: no new requests; in-flight ones finish; the rest are recorded as not reached"
            )

    # -- one request ---------------------------------------------------------------------------

    async def _attempts(self, job: Job, mode: ToolChoiceMode | None, counter: list[int]) -> Answer:
        async for attempt in retrying(self.settings.retry, _Stopping(self)):
            with attempt:
                counter[0] += 1
                try:
                    if self.settings.request_deadline:
                        with anyio.fail_after(self.settings.request_deadline):
                            answer = await self.provider.answer(job, mode)
                    else:
                        answer = await self.provider.answer(job, mode)
                except TimeoutError:
                    message = "no complete answer within the deadline"
                    raise ProviderFailure("timeout", message, transient=True) from None
                except ProviderFailure as failure:
                    if failure.kind == "rate_limited":
                        self.limiter.rate_limited()
                        self.outcome.rate_limited += 1
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
            estimate = self.next_request_cost()
            if not self.budget_allows(estimate):
                if not self.budget_stop:
                    self.budget_stop = True
                    self.outcome.budget_stopped = True
                    in_flight = f" (+${self.reserved_usd:.4f} in flight)" if self.reserved_usd else ""
                    self.say(
                        f"budget: spent ${self.outcome.spent_usd:.4f}{in_flight} of "
                        f"${self.settings.budget_usd:g}; the next request could cost up to ${estimate:.4f}, "
                        "so no new requests are sent (PRELIMINARY run)"
                    )
                self.record(self.not_sent(job))
                return
            self.reserved_usd += estimate
            counter = [0]
            mode = self.provider.mode_for(job.fixture, forced_rejected=self.forced_rejected)
            started = time.perf_counter()
            try:
                while True:
                    try:
                        answer = await self._attempts(job, mode, counter)
                        break
                    except ProviderFailure as failure:
                        if failure.rejects_forced_tool_choice and mode == "forced":
                            self.on_forced_rejected(failure)
                            mode = self.provider.mode_for(job.fixture, forced_rejected=True)
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
                self.check_cache(answer)
            finally:
                self.reserved_usd -= estimate

    def on_forced_rejected(self, failure: ProviderFailure) -> None:
        if not self.forced_rejected:
            self.forced_rejected = True
            self.outcome.forced_rejected = True
            note = (
                f"{self.provider.settings.model} rejects forced tool use ({failure.message}); select "
                "fixtures ran with tool_choice auto plus an instruction to call exactly one tool "
                "(mode auto_instructed)"
            )
            self.outcome.notes.append(note)
            self.say(f"note: {note}")

    def check_cache(self, answer: Answer) -> None:
        """After the first answer: say so when caching was asked for and nothing was cached."""
        if "cache" in self._warned or not self.provider.caching or self.provider.name != "anthropic":
            return
        self._warned.add("cache")
        usage = answer.usage
        if usage.cache_write_tokens == 0 and usage.cache_read_tokens == 0:
            note = (
                f"nothing was cached: the catalog and system prompt ({usage.input_tokens} input tokens "
                f"in all) are below {self.provider.settings.model}'s minimum cacheable prefix, so every "
                "request paid full input price"
            )
            self.outcome.notes.append(note)
            self.say(f"note: {note}")

    # -- the whole run -------------------------------------------------------------------------

    async def run(self, jobs: Sequence[Job], *, notes: Sequence[str] = ()) -> RunOutcome:
        started = time.monotonic()
        self.outcome.planned = self.outcome.planned or len(jobs)
        try:
            if self.settings.batch:
                from mcp_evals.providers.anthropic_batch import run_batches

                self.writer.start(notes)
                await run_batches(self, list(jobs))
            else:
                await self._run_concurrently(jobs, notes)
        finally:
            await self.provider.aclose()
            self.writer.amend(
                notes=self.outcome.notes, tool_choice="auto_instructed" if self.forced_rejected else None
            )
            self.writer.close()
            if self.progress is not None:
                self.progress.close()
            self.outcome.elapsed_s = time.monotonic() - started
            self.outcome.lowest_concurrency = self.limiter.lowest
        return self.outcome

    async def _run_concurrently(self, jobs: Sequence[Job], notes: Sequence[str]) -> None:
        if self.provider.uses_network and jobs:
            # Warm-up: one request alone writes the cache and learns whether forced tool use works,
            # so it is the first job that would force a tool call, if there is one.
            first = next(
                (
                    index
                    for index, job in enumerate(jobs)
                    if self.provider.mode_for(job.fixture, forced_rejected=False) == "forced"
                ),
                0,
            )
            warm_up, pending = jobs[first], iter([*jobs[:first], *jobs[first + 1 :]])
            self._held = []
            try:
                await self.process(warm_up)
            finally:
                held, self._held = self._held, None
                self.writer.start([*notes, *self.outcome.notes])
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


def run_notes(
    provider: Provider, price: Price | None, *, batch: bool = False, replayed: str | None = None
) -> list[str]:
    """What the header (and so every report) must say about a run before it starts."""
    notes: list[str] = []
    if provider.baseline_only:
        notes.append(
            "lexical baseline (BM25 over tool names, descriptions and parameters, not a model): "
            "advisory, never gates"
        )
    if replayed:
        notes.append(replayed)
    if batch:
        notes.append("sent through the Message Batches API (50% price; latency not measured)")
    notes.extend(provider.notes())
    if provider.uses_network and price is None:
        notes.append(f"no price known for {provider.settings.model}: cost not computed")
    if provider.name == "anthropic" and provider.caching and price is not None:
        prefix_tokens, _ = estimate_request_tokens(provider.cache_prefix(), "")
        if prefix_tokens < price.min_cache_tokens:
            notes.append(
                f"the catalog and system prompt are about {prefix_tokens} tokens, below the "
                f"{price.min_cache_tokens}-token minimum {provider.settings.model} caches: "
                "expect nothing to be cached (every request pays full input price)"
            )
    return notes


def summarize_dropouts(outcome: RunOutcome) -> str:
    if not outcome.dropouts:
        return "none"
    return ", ".join(f"{kind} {count}" for kind, count in sorted(outcome.dropouts.items()))


async def run_eval(
    provider: Provider,
    fixtures: Sequence[Fixture],
    results_path: Path,
    settings: RunSettings | None = None,
    *,
    samples: int = 1,
    progress: Progress | None = None,
) -> RunOutcome:
    """Run every fixture once per sample against ``provider`` and write ``results_path`` (library use).

    The CLI does the same with the config's settings, validation, resume and shards on top.
    """
    settings = settings or RunSettings()
    header = make_header(
        provider=provider,
        catalog=provider.catalog,
        planned=fixtures,
        all_fixtures=fixtures,
        system_prompt=provider.system_prompt,
        samples=samples,
        max_tokens=provider.settings.max_tokens,
        temperature=provider.settings.temperature,
        shard=None,
        limit=None,
        exclude_tools=[],
        scoring=ScoringOptions(),
        gate=GateOptions(),
    )
    jobs = plan_jobs(fixtures, samples)
    runner = Runner(
        provider,
        settings,
        ResultsWriter(results_path, header),
        progress=progress,
        catalog_hash=provider.catalog.hash,
        total=len(jobs),
    )
    return await runner.run(jobs)
