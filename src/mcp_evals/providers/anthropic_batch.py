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

Each request is a ``BatchItem`` (``generate``'s arguments and a key); its body is the one the
provider's ``_body`` builds for ``generate``, so a batch entry is byte for byte a live request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio

from mcp_evals.answers import INSTRUCTED, Answer, ErrorKind, ToolChoice, ToolChoiceMode
from mcp_evals.files import atomic_write
from mcp_evals.providers.base import (
    BatchHost,
    BatchItem,
    HttpRequest,
    as_dict,
    compact_json,
    invalid_response,
    json_body,
)
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.wording import noun, plural

if TYPE_CHECKING:
    from mcp_evals.providers.anthropic import AnthropicProvider

MAX_REQUESTS = 100_000
MAX_BYTES = 200 * 1024 * 1024  # the API's limit is 256 MB; leave room for the envelope


@dataclass
class Submitted:
    """One batch we created: its id and which item (sent with which tool choice) each custom_id is."""

    id: str
    requests: dict[str, tuple[BatchItem, ToolChoiceMode | None]] = field(default_factory=dict)


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
        request = HttpRequest(path, body, self.provider._headers())
        response, _ = await self.provider._answered(request, None, method=method)
        if path.endswith("/results"):
            return response.content
        data = json_body(response.content)
        if not isinstance(data, dict):
            raise invalid_response(f"{method} {path}: the body is not a JSON object")
        return data

    # -- submit ----------------------------------------------------------------------------------

    def chunks(
        self, items: Sequence[BatchItem], choice: Mapping[int, ToolChoice | None]
    ) -> list[list[tuple[str, BatchItem, bytes]]]:
        batches: list[list[tuple[str, BatchItem, bytes]]] = [[]]
        size = 0
        for item in items:
            self._serial += 1
            custom_id = f"r{self._serial}-{item.label}"
            custom_id = "".join(c if c.isalnum() or c in "-_" else "_" for c in custom_id)[:64]
            params = self.provider._body(item.messages, item.tools, choice[id(item)], item.options)
            entry = b'{"custom_id":' + compact_json(custom_id) + b',"params":' + params + b"}"
            if batches[-1] and (len(batches[-1]) >= MAX_REQUESTS or size + len(entry) > MAX_BYTES):
                batches.append([])
                size = 0
            batches[-1].append((custom_id, item, entry))
            size += len(entry) + 1
        return [batch for batch in batches if batch]

    async def submit(self, items: Sequence[BatchItem], *, instructed: bool = False) -> list[Submitted]:
        """Create the batches for ``items``; ``instructed``: without forced tool use (auto plus the
        instruction to call one tool), for items whose forced request the model rejected."""
        choice = {id(item): INSTRUCTED if instructed else item.tool_choice for item in items}
        created = []
        for chunk in self.chunks(items, choice):
            body = b'{"requests":[' + b",".join(entry for _, _, entry in chunk) + b"]}"
            data = await self.call("POST", "/v1/messages/batches", body)
            batch = Submitted(id=str(data.get("id")))
            for custom_id, item, _ in chunk:
                sent = choice[id(item)]
                batch.requests[custom_id] = (item, sent.mode if sent is not None else None)
                self.sent.add(id(item))
            created.append(batch)
            self.submitted.append(batch)
            self.save()
            self.host.say(f"batch {batch.id}: {plural(len(chunk), 'request')} submitted")
        return created

    def answered(self, item: BatchItem, answer: Answer, mode: ToolChoiceMode | None) -> None:
        self.host.record_answer(item, answer, mode)
        self.done.add(id(item))

    def failed(
        self, item: BatchItem, failure: ProviderFailure, mode: ToolChoiceMode | None, attempts: int = 1
    ) -> None:
        self.host.record_failure(item, failure, mode, attempts=attempts)
        self.done.add(id(item))

    def not_sent(self, item: BatchItem) -> None:
        self.host.record_not_sent(item)
        self.done.add(id(item))

    # -- the sidecar (resume) --------------------------------------------------------------------

    def save(self) -> None:
        state = {
            "catalog_hash": self.host.catalog_hash,
            "model": self.provider.settings.model,
            "batches": [
                {
                    "id": batch.id,
                    "requests": {
                        custom_id: [*item.key, mode] for custom_id, (item, mode) in batch.requests.items()
                    },
                }
                for batch in self.submitted
            ],
        }
        with atomic_write(self.sidecar) as stream:
            json.dump(state, stream)

    def load(self, items: Sequence[BatchItem]) -> list[Submitted]:
        """Batches an earlier, interrupted run submitted for items this run still needs."""
        try:
            state = json.loads(self.sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        if (
            state.get("catalog_hash") != self.host.catalog_hash
            or state.get("model") != self.provider.settings.model
        ):
            return []
        wanted = {item.key: item for item in items}
        restored = []
        for saved in state.get("batches", []):
            batch = Submitted(id=str(saved.get("id")))
            for custom_id, entry in saved.get("requests", {}).items():
                *key, mode = entry
                item = wanted.get(tuple(key))
                if item is not None:
                    batch.requests[custom_id] = (item, mode)
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
        base = urlsplit(str(self.provider.base_url))
        target = urlsplit(url)
        if target.netloc and target.netloc != base.netloc:
            return own
        base_path = base.path.rstrip("/")
        path = (
            target.path[len(base_path) :] if base_path and target.path.startswith(base_path) else target.path
        )
        return path or own

    async def collect(self, batch: Submitted) -> list[BatchItem]:
        """Record every entry of an ended batch; return the items to re-send without forced tool use."""
        data = await self.wait_until_ended(batch)
        raw = await self.call("GET", self.results_path(batch, data))
        seen: set[str] = set()
        resend: list[BatchItem] = []
        for line in bytes(raw).splitlines():
            entry = as_dict(json_body(line))
            custom_id = str(entry.get("custom_id"))
            if custom_id not in batch.requests or custom_id in seen:
                continue
            seen.add(custom_id)
            item, mode = batch.requests[custom_id]
            result = as_dict(entry.get("result"))
            kind = result.get("type")
            if kind == "succeeded":
                body = as_dict(result.get("message"))
                try:
                    answer = self.provider._parse_message(body, item.tools, body.get("id"))
                except ProviderFailure as unusable:
                    self.failed(item, unusable, mode)
                    continue
                self.answered(item, answer, mode)
            elif kind == "errored":
                error = as_dict(result.get("error"))
                if error.get("type") == "error" and isinstance(error.get("error"), dict):
                    error = error["error"]
                why = self.provider._classify_entry(
                    str(error.get("type") or ""), str(error.get("message") or "")
                )
                if why.rejects_forced_tool_choice and mode == "forced":
                    self.host.on_forced_rejected(why)
                    resend.append(item)
                    continue
                self.dropout(item, "batch_errored", f"batch entry errored: {why.message}", mode)
            else:
                self.dropout(item, "batch_expired", f"batch entry {kind or 'without a result type'}", mode)
        for custom_id, (item, mode) in batch.requests.items():
            if custom_id not in seen:
                self.dropout(
                    item, "batch_errored", f"batch {batch.id} returned no result for this request", mode
                )
        return resend

    def dropout(self, item: BatchItem, kind: ErrorKind, message: str, mode: ToolChoiceMode | None) -> None:
        self.host.record_dropout(item, kind, message, mode)
        self.done.add(id(item))


async def run_batches(provider: AnthropicProvider, host: BatchHost, items: list[BatchItem]) -> None:
    """Answer ``items`` through Message Batches, recording every result through ``host``."""
    run = BatchRun(provider, host)
    pending = list(items)
    batches = run.load(pending) if host.resume else []
    if batches:
        resumed = {id(item) for batch in batches for item, _ in batch.requests.values()}
        run.sent |= resumed
        pending = [item for item in pending if id(item) not in resumed]
        run.submitted.extend(batches)
        host.say(f"resuming {plural(len(batches), 'batch', 'batches')} an earlier run submitted")
    # The budget: keep what fits at the batch price (the first request's estimate includes the cache write).
    allowed: list[BatchItem] = []
    for item in pending:
        if host.admit(item):
            allowed.append(item)
            continue
        host.on_budget_stop(
            f"budget: {plural(len(allowed), 'request')} {noun(len(allowed), 'fits', 'fit')} "
            f"in ${host.budget_usd:g}; the rest are not sent"
        )
        run.not_sent(item)
    try:
        if allowed:
            batches += await run.submit(allowed)
        for batch in batches:
            resend = await run.collect(batch)
            if resend:
                for retry_batch in await run.submit(resend, instructed=True):
                    for item in await run.collect(retry_batch):  # pragma: no cover - rejected twice
                        run.dropout(item, "batch_errored", "forced tool use rejected twice", None)
    except ProviderFailure as failure:
        host.on_fatal(failure)
        for item in items:
            if id(item) in run.done:
                continue
            if id(item) in run.sent:
                run.failed(item, failure, None, attempts=0)
            else:
                run.not_sent(item)
        return
    run.sidecar.unlink(missing_ok=True)
