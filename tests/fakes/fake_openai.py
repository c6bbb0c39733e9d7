"""A fake OpenAI-compatible Chat Completions API on 127.0.0.1, speaking the real wire format.

Encodes what the real API does (see /work/shared/notes/apis.md):

* ``Authorization: Bearer …``; an ``x-request-id`` header on every response; errors as
  ``{"error": {"message", "type", "param", "code"}}``;
* ``tool_calls[].function.arguments`` is a JSON *string* (``RawArguments`` scripts invalid JSON);
* quota exhaustion is a 429 with ``code: insufficient_quota`` (no amount of retrying fixes it);
* reasoning models (``gpt-5*``, ``o*``) refuse ``max_tokens`` (use ``max_completion_tokens``) and
  any ``temperature`` but the default;
* an ``array`` parameter without ``items`` is rejected (Claude accepts it);
* models in ``FORCED_REJECTING`` refuse ``tool_choice: "required"``; models in ``forced_ignoring``
  accept it and answer as with ``"auto"`` (reported of Ollama);
* a ``tool`` message must answer a ``tool_call_id`` of the assistant message just before it, and an
  assistant message's every tool call must be answered before the conversation goes on (else a 400);
* multi-turn tool use (``sessions``): a conversation keyed by its first user message plays a script
  of turns, one per assistant message so far;
* automatic prompt caching: a prefix (tools + system messages) of 1,024 tokens or more seen before
  is reported as ``prompt_tokens_details.cached_tokens`` (in 128-token steps), and is included in
  ``prompt_tokens``.

Run standalone for benchmarks: ``python tests/fakes/fake_openai.py --latency 0.2``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

try:
    from .fake_http import FakeServer, Recorded, Reply
except ImportError:  # run as a script (benchmarks)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fake_http import FakeServer, Recorded, Reply  # type: ignore[no-redef]

API_KEY = "sk-openai-test-key-0123456789"
FORCED_REJECTING = {"gpt-noforce"}
MIN_CACHEABLE = 1024


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


@dataclass
class Call:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass
class RawArguments:
    """A tool call whose ``arguments`` string is sent verbatim (e.g. invalid JSON)."""

    name: str
    raw: str


@dataclass
class Text:
    text: str


Answer = Call | RawArguments | Text | list[Call | RawArguments | Text]
Chooser = Callable[[str, list[dict[str, Any]], Any], Answer]


def default_chooser(query: str, tools: list[dict[str, Any]], tool_choice: Any) -> Answer:
    names = [str(tool["function"]["name"]) for tool in tools]
    for name in names:
        if name in query:
            return Call(name, {"query": query[:40]})
    if tool_choice == "required" and names:
        return Call(names[0])
    return Text("None of my tools can do that.")


def _reasoning(model: str) -> bool:
    return model.startswith(("gpt-5", "o1", "o3", "o4"))


def _array_without_items(schema: Any) -> str | None:
    if isinstance(schema, dict):
        if schema.get("type") == "array" and "items" not in schema:
            return "array schema missing items"
        for value in schema.values():
            found = _array_without_items(value)
            if found:
                return found
    elif isinstance(schema, list):
        for value in schema:
            found = _array_without_items(value)
            if found:
                return found
    return None


class FakeOpenAI(FakeServer):
    def __init__(
        self, *, latency: float = 0.0, key: str | None = API_KEY, chooser: Chooser = default_chooser
    ) -> None:
        super().__init__(latency=latency)
        self.key = key
        self.chooser = chooser
        self.answers: dict[str, Answer] = {}
        self.cache: set[str] = set()
        self.forced_rejecting = set(FORCED_REJECTING)
        self.forced_ignoring: set[str] = set()
        # first user message → the model's turns, in order (a turn past the end answers "done")
        self.sessions: dict[str, list[Answer]] = {}

    def is_model_request(self, request: Recorded) -> bool:
        return request.method == "POST" and request.path.endswith("/chat/completions")

    def error(
        self,
        status: int,
        message: str,
        kind: str,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
        return Reply(status, body, {"x-request-id": self.request_id("req_err_"), **(headers or {})})

    def rate_limited(self, retry_after: str | None = "0") -> Reply:
        headers = {"retry-after": retry_after} if retry_after is not None else {}
        return self.error(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", headers)

    def insufficient_quota(self) -> Reply:
        return self.error(
            429,
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota",
            "insufficient_quota",
        )

    def unauthorized(self) -> Reply:
        return self.error(
            401, "Incorrect API key provided: sk-op****.", "invalid_request_error", "invalid_api_key"
        )

    def server_error(self) -> Reply:
        return self.error(500, "The server had an error while processing your request.", "server_error")

    def handle(self, request: Recorded) -> Reply:
        if self.key is not None and request.headers.get("authorization") != f"Bearer {self.key}":
            return self.unauthorized()
        if not self.is_model_request(request):
            return self.error(404, f"Invalid URL ({request.method} {request.path})", "invalid_request_error")
        body = request.json
        if not isinstance(body, dict):
            return self.error(
                400, "We could not parse the JSON body of your request.", "invalid_request_error"
            )
        model = str(body.get("model") or "")
        if model.startswith("missing-"):
            return self.error(
                404, f"The model `{model}` does not exist", "invalid_request_error", "model_not_found"
            )
        if _reasoning(model):
            if "max_tokens" in body:
                return self.error(
                    400,
                    "Unsupported parameter: 'max_tokens' is not supported with this model. "
                    "Use 'max_completion_tokens' instead.",
                    "invalid_request_error",
                    "unsupported_parameter",
                )
            if body.get("temperature", 1) != 1:
                return self.error(
                    400, "Unsupported value: 'temperature'", "invalid_request_error", "unsupported_value"
                )
        tools = body.get("tools") or []
        for tool in tools:
            problem = _array_without_items(tool["function"].get("parameters"))
            if problem:
                name = tool["function"]["name"]
                return self.error(
                    400,
                    f"Invalid schema for function '{name}': {problem}.",
                    "invalid_request_error",
                    "invalid_function_parameters",
                )
        problem = conversation_problem(body.get("messages") or [])
        if problem:
            return self.error(400, problem, "invalid_request_error", "invalid_parameter")
        choice = body.get("tool_choice", "auto")
        if model in self.forced_rejecting and choice == "required":
            return self.error(
                400, f"tool_choice 'required' is not supported with {model}", "invalid_request_error"
            )
        written: list[str] = []  # cache entries exist once the answer that wrote them is sent
        completion = self.completion(body, written)
        return Reply(
            200,
            completion,
            {"x-request-id": self.request_id("req_")},
            on_send=partial(self.remember, written),
        )

    def remember(self, keys: list[str]) -> None:
        with self.lock:
            self.cache.update(keys)

    def completion(self, body: dict[str, Any], written: list[str] | None = None) -> dict[str, Any]:
        messages = body.get("messages") or []
        query = next((str(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), "")
        tools = body.get("tools") or []
        choice = "auto" if body.get("model") in self.forced_ignoring else body.get("tool_choice")
        opening = next((m.get("content") for m in messages if m.get("role") == "user"), None)
        if isinstance(opening, str) and opening in self.sessions:
            turns = self.sessions[opening]
            played = sum(1 for message in messages if message.get("role") == "assistant")
            answer: Answer = turns[played] if played < len(turns) else Text("Done.")
        else:
            answer = self.answers.get(query) or self.chooser(query, tools, choice)
        items = answer if isinstance(answer, list) else [answer]
        tool_calls = []
        texts = []
        for item in items:
            if isinstance(item, Call):
                arguments = json.dumps(item.arguments)
            elif isinstance(item, RawArguments):
                arguments = item.raw
            else:
                texts.append(item.text)
                continue
            tool_calls.append(
                {
                    "id": self.request_id("call_"),
                    "type": "function",
                    "function": {"name": item.name, "arguments": arguments},
                }
            )
        message: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) or None}
        if tool_calls:
            message["tool_calls"] = tool_calls
        prefix = json.dumps(tools) + "".join(json.dumps(m) for m in messages if m.get("role") == "system")
        prefix_tokens = tokens(prefix)
        prompt_tokens = prefix_tokens + sum(
            tokens(json.dumps(m)) for m in messages if m.get("role") != "system"
        )
        key = hashlib.sha256((str(body.get("model")) + prefix).encode()).hexdigest()
        cached = 0
        if prefix_tokens >= MIN_CACHEABLE:
            with self.lock:
                if key in self.cache:
                    cached = prefix_tokens // 128 * 128
            if written is None:
                self.remember([key])
            else:
                written.append(key)
        completion_tokens = 10 + 10 * len(items)
        return {
            "id": self.request_id("chatcmpl-"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
        }


def conversation_problem(messages: list[Any]) -> str | None:
    """What the real API says about tool calls and tool messages that do not pair up."""
    waiting: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in waiting:
                return (
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                    f"message with 'tool_calls' (messages[{index}], tool_call_id {call_id!r})."
                )
            waiting.remove(call_id)
            continue
        if waiting:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages responding to "
                "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                + ", ".join(waiting)
            )
        if role == "assistant":
            waiting = [str(call.get("id")) for call in message.get("tool_calls") or []]
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description="Run the fake OpenAI API until stdin closes.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    fake = FakeOpenAI(latency=args.latency).start(args.port)
    print(fake.base_url + "/v1", flush=True)
    sys.stdin.read()
    fake.stop()


if __name__ == "__main__":
    main()
