"""``--batch``: the run through Anthropic's Message Batches API, at half price.

For scheduled runs where latency does not matter. The flow:

1. keep as many requests as the budget allows (the rest are ``budget`` dropouts);
2. ``POST /v1/messages/batches`` (split when a batch would pass 100,000 requests or 256 MB), and save
   the batch ids next to the results file (``<results>.batches.json``) so a killed run resumed with
   ``--resume`` polls the same batches instead of paying twice;
3. poll ``GET /v1/messages/batches/{id}`` with backoff until ``processing_status`` is ``ended``;
4. stream the results JSONL (entries come back in any order) and match them by ``custom_id``:
   ``succeeded`` entries are answers; ``errored`` ones are ``batch_errored`` and ``canceled`` /
   ``expired`` ones ``batch_expired`` dropouts; entries missing from the results are dropouts too;
5. entries rejected because the model refuses forced tool use are sent once more, in a second
   batch, with ``auto`` plus the one-tool instruction.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlsplit

import anyio

from mcp_evals.answers import ErrorKind, ToolChoiceMode
from mcp_evals.files import atomic_write
from mcp_evals.providers.base import Answer, HttpRequest, Job, as_dict, compact_json, json_body
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.wording import noun, plural

if TYPE_CHECKING:
    from mcp_evals.providers.anthropic import AnthropicProvider

T = TypeVar("T")
MAX_REQUESTS = 100_000
MAX_BYTES = 200 * 1024 * 1024  # the API's limit is 256 MB; leave room for the envelope


@dataclass
class Submitted:
    """One batch we created: its id and which job each custom_id stands for."""

    id: str
    requests: dict[str, tuple[Job, ToolChoiceMode | None]] = field(default_factory=dict)


class BatchHost(Protocol):
    """What a batch run needs from the run it serves: the narrow interface the runner implements.

    The batch layer never touches the run's state: it asks for retries, for room in the budget and
    for results to be recorded, and says what it learnt.
    """

    results_path: Path
    catalog_hash: str
    resume: bool
    forced_rejected: bool
    budget_usd: float | None
    poll_initial: float
    poll_max: float

    async def with_retries(self, call: Callable[[], Awaitable[T]]) -> T: ...

    def admit(self, job: Job) -> bool:
        """Reserve the job's worst case in the budget at the batch price; False: it does not fit."""
        ...

    def record_answer(self, job: Job, answer: Answer, mode: ToolChoiceMode | None) -> None: ...

    def record_failure(
        self, job: Job, failure: ProviderFailure, mode: ToolChoiceMode | None, *, attempts: int
    ) -> None: ...

    def record_dropout(
        self, job: Job, kind: ErrorKind, message: str, mode: ToolChoiceMode | None
    ) -> None: ...

    def record_not_sent(self, job: Job) -> None: ...

    def on_forced_rejected(self, failure: ProviderFailure) -> None: ...

    def on_fatal(self, failure: ProviderFailure) -> None: ...

    def on_budget_stop(self, message: str) -> None: ...

    def say(self, text: str) -> None: ...

    def status(self, text: str) -> None: ...


def sidecar_path(results_path: Path) -> Path:
    return results_path.with_name(results_path.name + ".batches.json")


class BatchRun:
    def __init__(self, provider: AnthropicProvider, host: BatchHost) -> None:
        self.host = host
        self.provider = provider
        self.sidecar = sidecar_path(host.results_path)
        self.submitted: list[Submitted] = []
        self.sent: set[int] = set()
        self.done: set[int] = set()
        self._serial = 0

    # -- HTTP with the runner's retry policy -----------------------------------------------------

    async def call(self, method: str, path: str, body: bytes = b"") -> Any:
        """One API call with the run's retry policy: a JSON object (or the raw bytes of results)."""
        return await self.host.with_retries(lambda: self._call_once(method, path, body))

    async def _call_once(self, method: str, path: str, body: bytes) -> Any:
        response = await self.provider.send(HttpRequest(path, body, self.provider.headers()), method=method)
        if not 200 <= response.status_code < 300:
            raise self.provider.classify_error(response.status_code, response.headers, response.content)
        if path.endswith("/results"):
            return response.content
        data = json_body(response.content)
        if not isinstance(data, dict):
            raise self.provider.invalid_response(f"{method} {path}: the body is not a JSON object")
        return data

    # -- submit ----------------------------------------------------------------------------------

    def chunks(
        self, jobs: Sequence[Job], mode_of: dict[Job, ToolChoiceMode | None]
    ) -> list[list[tuple[str, Job, bytes]]]:
        batches: list[list[tuple[str, Job, bytes]]] = [[]]
        size = 0
        for job in jobs:
            self._serial += 1
            custom_id = f"r{self._serial}-{job.fixture.id[:40]}-s{job.sample}"
            custom_id = "".join(c if c.isalnum() or c in "-_" else "_" for c in custom_id)[:64]
            params = self.provider.body(job.fixture, mode_of[job])
            entry = b'{"custom_id":' + compact_json(custom_id) + b',"params":' + params + b"}"
            if batches[-1] and (len(batches[-1]) >= MAX_REQUESTS or size + len(entry) > MAX_BYTES):
                batches.append([])
                size = 0
            batches[-1].append((custom_id, job, entry))
            size += len(entry) + 1
        return [batch for batch in batches if batch]

    async def submit(self, jobs: Sequence[Job], *, forced_rejected: bool) -> list[Submitted]:
        mode_of = {job: self.provider.mode_for(job.fixture, forced_rejected=forced_rejected) for job in jobs}
        created = []
        for chunk in self.chunks(jobs, mode_of):
            body = b'{"requests":[' + b",".join(entry for _, _, entry in chunk) + b"]}"
            data = await self.call("POST", "/v1/messages/batches", body)
            batch = Submitted(id=str(data.get("id")))
            for custom_id, job, _ in chunk:
                batch.requests[custom_id] = (job, mode_of[job])
                self.sent.add(id(job))
            created.append(batch)
            self.submitted.append(batch)
            self.save()
            self.host.say(f"batch {batch.id}: {plural(len(chunk), 'request')} submitted")
        return created

    def answered(self, job: Job, answer: Answer, mode: ToolChoiceMode | None) -> None:
        self.host.record_answer(job, answer, mode)
        self.done.add(id(job))

    def failed(
        self, job: Job, failure: ProviderFailure, mode: ToolChoiceMode | None, attempts: int = 1
    ) -> None:
        self.host.record_failure(job, failure, mode, attempts=attempts)
        self.done.add(id(job))

    def not_sent(self, job: Job) -> None:
        self.host.record_not_sent(job)
        self.done.add(id(job))

    # -- the sidecar (resume) --------------------------------------------------------------------

    def save(self) -> None:
        state = {
            "catalog_hash": self.host.catalog_hash,
            "model": self.provider.settings.model,
            "batches": [
                {
                    "id": batch.id,
                    "requests": {
                        custom_id: [job.fixture.id, job.fixture.hash, job.sample, mode]
                        for custom_id, (job, mode) in batch.requests.items()
                    },
                }
                for batch in self.submitted
            ],
        }
        with atomic_write(self.sidecar) as stream:
            json.dump(state, stream)

    def load(self, jobs: Sequence[Job]) -> list[Submitted]:
        """Batches an earlier, interrupted run submitted for jobs this run still needs."""
        try:
            state = json.loads(self.sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        if (
            state.get("catalog_hash") != self.host.catalog_hash
            or state.get("model") != self.provider.settings.model
        ):
            return []
        wanted = {(job.fixture.id, job.fixture.hash, job.sample): job for job in jobs}
        restored = []
        for saved in state.get("batches", []):
            batch = Submitted(id=str(saved.get("id")))
            for custom_id, (fixture_id, fixture_hash, sample, mode) in saved.get("requests", {}).items():
                job = wanted.get((fixture_id, fixture_hash, sample))
                if job is not None:
                    batch.requests[custom_id] = (job, mode)
            if batch.requests:
                restored.append(batch)
        return restored

    # -- poll and collect ------------------------------------------------------------------------

    async def wait_until_ended(self, batch: Submitted) -> dict[str, Any]:
        delay = self.host.poll_initial
        while True:
            data = await self.call("GET", f"/v1/messages/batches/{batch.id}")
            counts = as_dict(data.get("request_counts"))
            done = sum(int(counts.get(key) or 0) for key in ("succeeded", "errored", "canceled", "expired"))
            status = str(data.get("processing_status"))
            self.host.status(f"batch {batch.id} {status} {done}/{len(batch.requests)}")
            if status == "ended":
                return dict(data)
            await anyio.sleep(delay)
            delay = min(delay * 1.5, self.host.poll_max)

    def results_path(self, batch: Submitted, data: dict[str, Any]) -> str:
        """The results URL, but only on the API's own host (the key is never sent elsewhere)."""
        own = f"/v1/messages/batches/{batch.id}/results"
        url = data.get("results_url")
        if not isinstance(url, str) or not url:
            return own
        base = urlsplit(str(self.provider.client.base_url))
        target = urlsplit(url)
        if target.netloc and target.netloc != base.netloc:
            return own
        base_path = base.path.rstrip("/")
        path = (
            target.path[len(base_path) :] if base_path and target.path.startswith(base_path) else target.path
        )
        return path or own

    async def collect(self, batch: Submitted) -> list[Job]:
        """Record every entry of an ended batch; return the jobs to re-send without forced tool use."""
        data = await self.wait_until_ended(batch)
        raw = await self.call("GET", self.results_path(batch, data))
        seen: set[str] = set()
        resend: list[Job] = []
        for line in bytes(raw).splitlines():
            entry = as_dict(json_body(line))
            custom_id = str(entry.get("custom_id"))
            if custom_id not in batch.requests or custom_id in seen:
                continue
            seen.add(custom_id)
            job, mode = batch.requests[custom_id]
            result = as_dict(entry.get("result"))
            kind = result.get("type")
            if kind == "succeeded":
                body = as_dict(result.get("message"))
                try:
                    answer = self.provider.parse_message(body, request_id=body.get("id"))
                except ProviderFailure as unusable:
                    self.failed(job, unusable, mode)
                    continue
                self.answered(job, answer, mode)
            elif kind == "errored":
                error = as_dict(result.get("error"))
                if error.get("type") == "error" and isinstance(error.get("error"), dict):
                    error = error["error"]
                why = self.provider.classify_entry_error(
                    str(error.get("type") or ""), str(error.get("message") or "")
                )
                if why.rejects_forced_tool_choice and mode == "forced":
                    self.host.on_forced_rejected(why)
                    resend.append(job)
                    continue
                self.dropout(job, "batch_errored", f"batch entry errored: {why.message}", mode)
            else:
                self.dropout(job, "batch_expired", f"batch entry {kind or 'without a result type'}", mode)
        for custom_id, (job, mode) in batch.requests.items():
            if custom_id not in seen:
                self.dropout(
                    job, "batch_errored", f"batch {batch.id} returned no result for this request", mode
                )
        return resend

    def dropout(self, job: Job, kind: ErrorKind, message: str, mode: ToolChoiceMode | None) -> None:
        self.host.record_dropout(job, kind, message, mode)
        self.done.add(id(job))


async def run_batches(provider: AnthropicProvider, host: BatchHost, jobs: list[Job]) -> None:
    """Run ``jobs`` through Message Batches, recording every result through ``host``."""
    run = BatchRun(provider, host)
    pending = list(jobs)
    batches = run.load(pending) if host.resume else []
    if batches:
        resumed = {id(job) for batch in batches for job, _ in batch.requests.values()}
        run.sent |= resumed
        pending = [job for job in pending if id(job) not in resumed]
        run.submitted.extend(batches)
        host.say(f"resuming {plural(len(batches), 'batch', 'batches')} an earlier run submitted")
    # The budget: keep what fits at the batch price (the first request's estimate includes the cache write).
    allowed: list[Job] = []
    for job in pending:
        if host.admit(job):
            allowed.append(job)
            continue
        host.on_budget_stop(
            f"budget: {plural(len(allowed), 'request')} {noun(len(allowed), 'fits', 'fit')} "
            f"in ${host.budget_usd:g}; the rest are not sent"
        )
        run.not_sent(job)
    try:
        if allowed:
            batches += await run.submit(allowed, forced_rejected=host.forced_rejected)
        for batch in batches:
            resend = await run.collect(batch)
            if resend:
                for retry_batch in await run.submit(resend, forced_rejected=True):
                    for job in await run.collect(retry_batch):  # pragma: no cover - rejected twice
                        run.dropout(job, "batch_errored", "forced tool use rejected twice", None)
    except ProviderFailure as failure:
        host.on_fatal(failure)
        for job in jobs:
            if id(job) in run.done:
                continue
            if id(job) in run.sent:
                run.failed(job, failure, None, attempts=0)
            else:
                run.not_sent(job)
        return
    run.sidecar.unlink(missing_ok=True)
