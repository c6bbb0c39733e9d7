"""A fake Anthropic Messages API on 127.0.0.1, speaking the real wire format.

Encodes what the real API does (see /work/shared/notes/apis.md):

* ``x-api-key`` and ``anthropic-version`` are required; ``2026-10-21`` rejects ``temperature``,
  ``top_p`` and ``top_k`` with a 400; every response has a ``request-id`` header and error bodies
  carry ``request_id``;
* tools need ``input_schema.type == "object"`` and names matching ``^[a-zA-Z0-9_-]{1,128}$``;
* models in ``FORCED_REJECTING`` (Opus 5.5, Fable 5.1) answer a forced ``tool_choice`` (``any`` /
  ``tool``) with a 400 and always think: their content starts with a ``thinking`` block;
* prompt caching: ``cache_control`` marks breakpoints over the prefix tools → system → messages.
  The first request with a prefix reports it as ``cache_creation_input_tokens``; a later request
  with a byte-identical prefix reports ``cache_read_input_tokens``. Below the model's minimum
  cacheable length nothing is cached and both counters read 0. An entry exists only once the
  response that wrote it has been sent (concurrent first requests all write);
* ``POST /v1/messages/count_tokens`` (same body minus ``max_tokens``) → ``{"input_tokens": N}``;
* Message Batches: create, poll until ``ended``, results JSONL in a shuffled order, with
  ``succeeded`` / ``errored`` / ``expired`` / ``canceled`` entries;
* tool search: one server tool ``tool_search_tool_bm25_20251119`` / ``tool_search_tool_regex_20251119``
  (named ``tool_search_tool_bm25`` / ``_regex``), never deferred, beside tools marked
  ``defer_loading: true`` (all tools deferred is a 400). The model sees only non-deferred tools and
  those a search revealed. It searches (with the query's words, or ``search_terms[query]``), and
  the answer holds a ``server_tool_use`` block (``srvtoolu_`` id, ``input.query``) and a
  ``tool_search_tool_result`` block (``tool_references``, at most 5) before its own ``tool_use``.
  Deferred tools are not part of the prompt: only revealed ones count as input tokens, and the cache
  prefix is the non-deferred tools and the system prompt. A query in ``pause_after_search`` stops
  after the search with ``stop_reason: pause_turn``; sent back, the turn carries on. With
  ``tool_search_beta`` set, a request with a search tool needs that ``anthropic-beta`` header;
* multi-turn tool use (``sessions``): a conversation keyed by its first user message plays a script
  of turns, one per assistant turn so far. As the real API does, every ``tool_use`` of an assistant
  turn must be answered by a ``tool_result`` (same id) at the start of the next user message, and a
  ``tool_result`` must answer a ``tool_use`` of the turn just before (else a 400).

Tokens are counted as 4 characters each, plus a 300-token tool-use preamble when tools are given.

Run standalone for benchmarks: ``python tests/fakes/fake_anthropic.py --latency 0.2``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

try:
    from .fake_http import FakeServer, Recorded, Reply
except ImportError:  # run as a script (benchmarks): python tests/fakes/fake_anthropic.py
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fake_http import FakeServer, Recorded, Reply  # type: ignore[no-redef]

API_KEY = "sk-ant-test-key-0123456789"
FORCED_REJECTING = {"claude-opus-5-5", "claude-fable-5-1"}
SEARCH_TOOLS = {
    "tool_search_tool_bm25_20251119": "tool_search_tool_bm25",
    "tool_search_tool_regex_20251119": "tool_search_tool_regex",
}
SEARCH_RESULTS = 5  # the API returns 3-5 references per search
NO_SAMPLING_FROM = "2026-10-21"
MIN_CACHEABLE = {"claude-opus-4-8": 4096, "claude-haiku-4-5": 4096, "claude-sonnet-4-6": 1024}
DEFAULT_MIN_CACHEABLE = 1024
TOOL_PREAMBLE = 300
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


@dataclass
class Call:
    """A tool call the fake model makes."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass
class Text:
    """A text answer (no tool call)."""

    text: str


@dataclass
class CutOff:
    """The model thought until max_tokens and never answered (``stop_reason: max_tokens``)."""


Answer = Call | Text | CutOff | list[Call | Text]
Chooser = Callable[[str, list[dict[str, Any]], dict[str, Any]], Answer]


def default_chooser(query: str, tools: list[dict[str, Any]], tool_choice: dict[str, Any]) -> Answer:
    """Call the tool whose name the query mentions, else the first tool; decline when not forced."""
    names = [str(tool.get("name")) for tool in tools]
    for name in names:
        if name in query:
            return Call(name, {"query": query[:40]})
    if tool_choice.get("type") in ("any", "tool") and names:
        return Call(names[0], {})
    return Text("No tool fits this request.")


@dataclass
class Batch:
    id: str
    results: list[dict[str, Any]]
    polls_left: int
    created_at: str


class FakeAnthropic(FakeServer):
    def __init__(
        self,
        *,
        latency: float = 0.0,
        key: str = API_KEY,
        chooser: Chooser = default_chooser,
        min_cacheable: int | None = None,
        batch_polls: int = 1,
        seed: int = 7,
    ) -> None:
        super().__init__(latency=latency)
        self.key = key
        self.chooser = chooser
        self.answers: dict[str, Answer] = {}
        self.min_cacheable = min_cacheable
        self.cache: set[str] = set()
        self.batches: dict[str, Batch] = {}
        self.batch_polls = batch_polls
        self.batch_outcomes: dict[str, str] = {}  # query → "errored" / "expired" / "canceled"
        self.random = random.Random(seed)
        self.forced_rejecting = set(FORCED_REJECTING)
        # first user message → the model's turns, in order (a turn past the end answers "done")
        self.sessions: dict[str, list[Answer]] = {}
        self.search_terms: dict[str, str] = {}  # query → what the model searches for
        self.pause_after_search: set[str] = set()  # queries whose first turn pauses after the search
        self.tool_search_beta: str | None = None  # an endpoint that still has tool search behind a beta

    def is_model_request(self, request: Recorded) -> bool:
        return request.method == "POST" and request.path == "/v1/messages"

    # -- errors in the real shape ----------------------------------------------------------------

    def error(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> Reply:
        request_id = self.request_id("req_err_")
        body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id}
        return Reply(status, body, {"request-id": request_id, **(headers or {})})

    def rate_limited(self, retry_after: str | None = "0", retry_after_ms: str | None = None) -> Reply:
        headers = {"anthropic-ratelimit-requests-remaining": "0"}
        if retry_after is not None:
            headers["retry-after"] = retry_after
        if retry_after_ms is not None:
            headers["retry-after-ms"] = retry_after_ms
        return self.error(
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
            headers,
        )

    def overloaded(self) -> Reply:
        return self.error(529, "overloaded_error", "Overloaded")

    def server_error(self) -> Reply:
        return self.error(500, "api_error", "Internal server error")

    def unauthorized(self) -> Reply:
        return self.error(401, "authentication_error", "invalid x-api-key")

    def billing(self) -> Reply:
        return self.error(
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing "
            "to upgrade or purchase credits.",
        )

    def forced_rejected(self, model: str = "claude-opus-5-5", choice: str = "any") -> Reply:
        return self.error(
            400,
            "invalid_request_error",
            f"tool_choice.type: '{choice}' (forced tool use) is not supported with {model}, which always "
            "uses extended thinking; use tool_choice auto",
        )

    # -- the Messages API ------------------------------------------------------------------------

    def handle(self, request: Recorded) -> Reply:
        if request.headers.get("x-api-key") != self.key:
            return self.unauthorized()
        if not request.headers.get("anthropic-version"):
            return self.error(400, "invalid_request_error", "anthropic-version: header is required")
        path = request.path
        if request.method == "POST" and path == "/v1/messages":
            return self.messages(request.json, request.headers)
        if request.method == "POST" and path == "/v1/messages/count_tokens":
            return self.count_tokens(request.json, request.headers)
        if request.method == "POST" and path == "/v1/messages/batches":
            return self.create_batch(request.json, request.headers)
        match = re.fullmatch(r"/v1/messages/batches/([\w-]+)(/results)?", path)
        if request.method == "GET" and match:
            return self.batch_results(match.group(1)) if match.group(2) else self.poll_batch(match.group(1))
        return self.error(404, "not_found_error", f"Not found: {request.method} {path}")

    def check(self, body: Any, headers: dict[str, str], *, count: bool = False) -> Reply | None:
        """The validation the real API does before answering (a Reply when the request is refused)."""
        if not isinstance(body, dict):
            return self.error(400, "invalid_request_error", "the body must be a JSON object")
        model = str(body.get("model") or "")
        if not model.startswith("claude-"):
            return self.error(404, "not_found_error", f"model: {model}")
        if not count and not isinstance(body.get("max_tokens"), int):
            return self.error(400, "invalid_request_error", "max_tokens: Field required")
        if count and "max_tokens" in body:
            return self.error(400, "invalid_request_error", "max_tokens: Extra inputs are not permitted")
        if headers.get("anthropic-version", "") >= NO_SAMPLING_FROM:
            for parameter in ("temperature", "top_p", "top_k"):
                if parameter in body:
                    return self.error(
                        400,
                        "invalid_request_error",
                        f"{parameter}: sampling parameters are not supported with anthropic-version "
                        f"{headers['anthropic-version']}",
                    )
        tools = body.get("tools") or []
        refused = self.check_tool_search(tools, headers)
        if refused is not None:
            return refused
        for index, tool in enumerate(tools):
            if is_search_tool(tool):
                continue
            if not _NAME.match(str(tool.get("name", ""))):
                return self.error(
                    400, "invalid_request_error", f"tools.{index}.name: String should match pattern"
                )
            if (tool.get("input_schema") or {}).get("type") != "object":
                return self.error(
                    400, "invalid_request_error", f"tools.{index}.input_schema.type: Input should be 'object'"
                )
        choice = body.get("tool_choice") or {"type": "auto"}
        if model in self.forced_rejecting and choice.get("type") in ("any", "tool"):
            return self.forced_rejected(model, str(choice.get("type")))
        problem = conversation_problem(body.get("messages") or [])
        if problem is not None:
            return self.error(400, "invalid_request_error", problem)
        breakpoints = sum(
            1
            for block in [*tools, *self._system(body)]
            if isinstance(block, dict) and "cache_control" in block
        )
        if breakpoints > 4:
            return self.error(
                400, "invalid_request_error", "A maximum of 4 blocks with cache_control may be provided"
            )
        return None

    def check_tool_search(self, tools: list[Any], headers: dict[str, str]) -> Reply | None:
        searchers = [tool for tool in tools if is_search_tool(tool)]
        for tool in tools:
            kind = str(tool.get("type", "")) if isinstance(tool, dict) else ""
            if kind.startswith("tool_search_tool_") and SEARCH_TOOLS.get(kind) != tool.get("name"):
                return self.error(400, "invalid_request_error", f"tools: unknown server tool {kind!r}")
        deferred = [tool for tool in tools if isinstance(tool, dict) and tool.get("defer_loading")]
        if deferred and len(deferred) == len(tools):
            return self.error(
                400,
                "invalid_request_error",
                "All tools have defer_loading set. At least one tool must be non-deferred.",
            )
        if deferred and not searchers:
            return self.error(400, "invalid_request_error", "defer_loading needs a tool search tool in tools")
        if len(searchers) > 1:
            return self.error(400, "invalid_request_error", "tools: at most one tool search tool")
        beta = self.tool_search_beta
        if searchers and beta and beta not in headers.get("anthropic-beta", "").split(","):
            return self.error(400, "invalid_request_error", f"tool search requires the beta header {beta}")
        return None

    @staticmethod
    def _system(body: dict[str, Any]) -> list[Any]:
        system = body.get("system")
        if isinstance(system, str):
            return [{"type": "text", "text": system}]
        return list(system or [])

    def segments(self, body: dict[str, Any]) -> tuple[list[tuple[str, bool]], str]:
        """The prefix in cache order (tools → system), each with whether it is a breakpoint; then the rest."""
        tools = [tool for tool in body.get("tools") or [] if not tool.get("defer_loading")]
        parts = [(json.dumps(tool), "cache_control" in tool) for tool in tools]
        parts += [(json.dumps(block), "cache_control" in block) for block in self._system(body)]
        return parts, json.dumps(body.get("messages"))

    def min_for(self, model: str) -> int:
        return (
            self.min_cacheable
            if self.min_cacheable is not None
            else MIN_CACHEABLE.get(model, DEFAULT_MIN_CACHEABLE)
        )

    def usage(self, body: dict[str, Any], *, write: bool, written: list[str] | None = None) -> dict[str, int]:
        """The request's token counts; with ``write``, its prefixes enter the cache (or ``written``,
        for the reply to add when it is sent)."""
        model = str(body.get("model"))
        parts, rest = self.segments(body)
        preamble = TOOL_PREAMBLE if body.get("tools") else 0
        total = preamble + sum(tokens(text) for text, _ in parts) + tokens(rest)
        breakpoints = [index for index, (_, marked) in enumerate(parts) if marked]
        usage = {"input_tokens": total, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not breakpoints:
            return usage
        prefixes = []
        for index in breakpoints:
            text = model + "".join(part for part, _ in parts[: index + 1])
            prefix_tokens = preamble + sum(tokens(part) for part, _ in parts[: index + 1])
            prefixes.append((hashlib.sha256(text.encode()).hexdigest(), prefix_tokens))
        last_tokens = prefixes[-1][1]
        if last_tokens < self.min_for(model):
            return usage  # silently nothing cached
        read = 0
        with self.lock:
            for key, prefix_tokens in prefixes:
                if key in self.cache:
                    read = max(read, prefix_tokens)
        if write:
            keys = [key for key, prefix_tokens in prefixes if prefix_tokens >= self.min_for(model)]
            if written is None:
                self.remember(keys)
            else:
                written += keys
        usage["cache_read_input_tokens"] = read
        usage["cache_creation_input_tokens"] = last_tokens - read
        usage["input_tokens"] = total - last_tokens
        return usage

    def remember(self, keys: list[str]) -> None:
        with self.lock:
            self.cache.update(keys)

    def message(self, body: dict[str, Any], written: list[str] | None = None) -> dict[str, Any]:
        query = ""
        for message in body.get("messages") or []:
            # The user's words: a later user turn that only carries tool results does not replace them.
            if message.get("role") == "user" and (isinstance(message["content"], str) or not query):
                query = (
                    message["content"]
                    if isinstance(message["content"], str)
                    else json.dumps(message["content"])
                )
        tools = body.get("tools") or []
        choice = body.get("tool_choice") or {"type": "auto"}
        system = " ".join(str(block.get("text")) for block in self._system(body) if isinstance(block, dict))
        if choice.get("type") == "auto" and "exactly one" in system:
            choice = {"type": "any"}  # the model follows the instruction to call a tool
        messages = body.get("messages") or []
        opening = message_text(messages[0]) if messages and isinstance(messages[0], dict) else None
        content: list[dict[str, Any]] = []
        revealed_tokens = 0
        searcher = next((tool for tool in tools if is_search_tool(tool)), None)
        paused = False
        if searcher is not None:
            revealed = self.revealed_in(body, tools)
            if not revealed:
                revealed, blocks = self.search(query, searcher, tools)
                content += blocks
                paused = query in self.pause_after_search
            revealed_tokens = sum(tokens(json.dumps(tool)) for tool in revealed)
            tools = [tool for tool in tools if not tool.get("defer_loading") and not is_search_tool(tool)]
            tools += revealed
        if paused:
            items: list[Call | Text] = []
            cut_off = False
        elif opening is not None and opening in self.sessions:
            turns = self.sessions[opening]
            played = sum(1 for message in messages if message.get("role") == "assistant")
            answer: Answer = turns[played] if played < len(turns) else Text("Done.")
            cut_off = isinstance(answer, CutOff)
            items = [] if isinstance(answer, CutOff) else answer if isinstance(answer, list) else [answer]
        else:
            answer = self.answers.get(query) or self.chooser(query, tools, choice)
            cut_off = isinstance(answer, CutOff)
            items = [] if isinstance(answer, CutOff) else answer if isinstance(answer, list) else [answer]
        if cut_off or str(body.get("model")) in self.forced_rejecting:
            content.insert(0, {"type": "thinking", "thinking": "The user wants …", "signature": "sig_fake"})
        for item in items:
            if isinstance(item, Call):
                content.append(
                    {
                        "type": "tool_use",
                        "id": self.request_id("toolu_"),
                        "name": item.name,
                        "input": item.input,
                    }
                )
            else:
                content.append({"type": "text", "text": item.text})
        calls = any(block["type"] == "tool_use" for block in content)
        usage = self.usage(body, write=True, written=written)
        usage["input_tokens"] += revealed_tokens  # tool_reference blocks are expanded inline
        usage["output_tokens"] = 12 + 8 * len(items) + 10 * (searcher is not None)
        if paused:
            stop_reason = "pause_turn"
        else:
            stop_reason = "max_tokens" if cut_off else "tool_use" if calls else "end_turn"
        return {
            "id": self.request_id("msg_"),
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }

    def search(
        self, query: str, searcher: dict[str, Any], tools: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The model's search and the API's answer to it: (tools revealed, the two content blocks)."""
        deferred = [tool for tool in tools if tool.get("defer_loading")]
        terms = self.search_terms.get(query, query)
        if searcher["name"] == "tool_search_tool_regex":
            words = sorted(set(re.findall(r"[a-z]{4,}", terms.lower())), key=lambda word: (-len(word), word))
            pattern = "(?i)" + "|".join(words[:6])
            found = [tool for tool in deferred if words and re.search(pattern, _searchable(tool))]
            given = {"query": pattern}
        else:
            wanted = set(re.findall(r"[a-z0-9]+", terms.lower()))
            scored = [
                (len(wanted & set(re.findall(r"[a-z0-9]+", _searchable(tool).lower()))), tool)
                for tool in deferred
            ]
            found = [tool for score, tool in sorted(scored, key=lambda item: -item[0]) if score > 0]
            given = {"query": terms}
        found = found[:SEARCH_RESULTS]
        use_id = self.request_id("srvtoolu_")
        blocks = [
            {"type": "server_tool_use", "id": use_id, "name": searcher["name"], "input": given},
            {
                "type": "tool_search_tool_result",
                "tool_use_id": use_id,
                "content": {
                    "type": "tool_search_tool_search_result",
                    "tool_references": [
                        {"type": "tool_reference", "tool_name": tool["name"]} for tool in found
                    ],
                },
            },
        ]
        return found, blocks

    @staticmethod
    def revealed_in(body: dict[str, Any], tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Tools an earlier search of this conversation revealed (a continued turn does not search again)."""
        names: list[str] = []
        for message in body.get("messages") or []:
            content = message.get("content") if message.get("role") == "assistant" else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_search_tool_result":
                    names += [ref["tool_name"] for ref in block["content"].get("tool_references", [])]
        return [tool for tool in tools if tool.get("name") in names]

    def messages(self, body: Any, headers: dict[str, str]) -> Reply:
        refused = self.check(body, headers)
        if refused is not None:
            return refused
        written: list[str] = []  # cache entries exist once the answer that wrote them is sent
        message = self.message(body, written)
        return Reply(
            200, message, {"request-id": self.request_id("req_")}, on_send=partial(self.remember, written)
        )

    def count_tokens(self, body: Any, headers: dict[str, str]) -> Reply:
        refused = self.check(body, headers, count=True)
        if refused is not None:
            return refused
        usage = self.usage(body, write=False)
        total = (
            usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"]
        )
        return Reply(200, {"input_tokens": total}, {"request-id": self.request_id("req_")})

    # -- Message Batches -------------------------------------------------------------------------

    def create_batch(self, body: Any, headers: dict[str, str]) -> Reply:
        requests = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(requests, list) or not requests:
            return self.error(400, "invalid_request_error", "requests: must be a non-empty list")
        ids = [str(entry.get("custom_id")) for entry in requests]
        if len(set(ids)) != len(ids) or not all(
            re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", custom_id) for custom_id in ids
        ):
            return self.error(
                400, "invalid_request_error", "custom_id must be unique and match ^[a-zA-Z0-9_-]{1,64}$"
            )
        results = []
        for entry in requests:
            params = entry.get("params")
            query = ""
            for message in (params or {}).get("messages") or []:
                if message.get("role") == "user":
                    query = str(message.get("content"))
            outcome = self.batch_outcomes.get(query)
            if outcome in ("expired", "canceled"):
                result: dict[str, Any] = {"type": outcome}
            elif outcome == "errored":
                result = {
                    "type": "errored",
                    "error": {
                        "type": "error",
                        "error": {"type": "api_error", "message": "Internal server error"},
                    },
                }
            else:
                refused = self.check(params, headers)
                if refused is not None:
                    error = refused.body["error"] if isinstance(refused.body, dict) else {}
                    result = {"type": "errored", "error": {"type": "error", "error": error}}
                else:
                    result = {"type": "succeeded", "message": self.message(params)}
            results.append({"custom_id": entry["custom_id"], "result": result})
        self.random.shuffle(results)  # results come back in any order
        batch = Batch(
            id=self.request_id("msgbatch_"), results=results, polls_left=self.batch_polls, created_at=_now()
        )
        self.batches[batch.id] = batch
        return Reply(200, self.batch_object(batch, ended=False), {"request-id": self.request_id("req_")})

    def batch_object(self, batch: Batch, *, ended: bool) -> dict[str, Any]:
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if ended:
            for entry in batch.results:
                counts[entry["result"]["type"]] += 1
        else:
            counts["processing"] = len(batch.results)
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": batch.created_at,
            "ended_at": _now() if ended else None,
            "expires_at": None,
            "results_url": f"{self.base_url}/v1/messages/batches/{batch.id}/results" if ended else None,
        }

    def poll_batch(self, batch_id: str) -> Reply:
        batch = self.batches.get(batch_id)
        if batch is None:
            return self.error(404, "not_found_error", f"batch {batch_id}")
        batch.polls_left -= 1
        return Reply(
            200, self.batch_object(batch, ended=batch.polls_left < 0), {"request-id": self.request_id("req_")}
        )

    def batch_results(self, batch_id: str) -> Reply:
        batch = self.batches.get(batch_id)
        if batch is None or batch.polls_left >= 0:
            return self.error(404, "not_found_error", f"no results for batch {batch_id} (yet)")
        lines = "".join(json.dumps(entry) + "\n" for entry in batch.results)
        return Reply(
            200, lines.encode(), {"content-type": "application/binary", "request-id": self.request_id("req_")}
        )


def message_text(message: dict[str, Any]) -> str | None:
    """A message's text: its string content, or its text blocks joined (a cache mark makes blocks)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return "".join(str(block.get("text")) for block in content)
    return None


def conversation_problem(messages: list[Any]) -> str | None:
    """What the real API says about a conversation whose tool uses and results do not pair up."""
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            return f"messages.{index}: Input should be an object"
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        results = [
            b.get("tool_use_id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
        before = messages[index - 1] if index else {}
        before_blocks = before.get("content") if isinstance(before.get("content"), list) else []
        uses = [b.get("id") for b in before_blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        if message.get("role") == "user" and before.get("role") == "assistant" and uses:
            leading = results[: len(uses)]
            missing = [use for use in uses if use not in leading]
            if missing:
                return (
                    f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately "
                    f"after: {', '.join(map(str, missing))}. Each `tool_use` block must have a corresponding "
                    "`tool_result` block in the next message."
                )
        unexpected = [result for result in results if result not in uses]
        if unexpected:
            return (
                f"messages.{index}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{unexpected[0]}. Each `tool_result` block must have a corresponding `tool_use` block in "
                "the previous message."
            )
    return None


def is_search_tool(tool: Any) -> bool:
    return isinstance(tool, dict) and str(tool.get("type", "")).startswith("tool_search_tool_")


def _searchable(tool: dict[str, Any]) -> str:
    """What tool search reads: the name, the description, argument names and their descriptions."""
    schema = tool.get("input_schema") or {}
    parts = [str(tool.get("name", "")).replace("_", " "), str(tool.get("description", ""))]
    for name, argument in (schema.get("properties") or {}).items():
        parts += [
            name.replace("_", " "),
            str(argument.get("description", "")) if isinstance(argument, dict) else "",
        ]
    return " ".join(parts)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def main() -> None:
    parser = argparse.ArgumentParser(description="Run the fake Anthropic API until stdin closes.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    fake = FakeAnthropic(latency=args.latency).start(args.port)
    print(fake.base_url, flush=True)
    sys.stdin.read()
    fake.stop()


if __name__ == "__main__":
    main()


@contextmanager
def anthropic_in_env(monkeypatch: pytest.MonkeyPatch, **options: Any) -> Iterator[FakeAnthropic]:
    """A started fake whose key and address are what the code under test reads (``ANTHROPIC_API_KEY``,
    ``ANTHROPIC_BASE_URL``), stopped at the end; ``options`` are ``FakeAnthropic``'s."""
    server = FakeAnthropic(**options)
    server.start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", server.key)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    try:
        yield server
    finally:
        server.stop()
