"""OpenAI-compatible Chat Completions (``POST {base}/chat/completions``), over httpx.

Works with OpenAI and with what speaks its dialect: gateways (LiteLLM, OpenRouter), vLLM, Ollama
(``--base-url http://localhost:11434/v1``), llama.cpp (tested against llama-cpp-python's server,
which answers ``tool_choice: "required"`` with an HTTP 500: read as a forced-tool rejection).
Arguments arrive as a JSON *string*: invalid JSON is recorded as an argument problem
(``raw_arguments``), never a crash. Prompt caching is automatic on OpenAI (prefixes of 1,024 tokens
and more); the tools and the system message come first and are serialized once, so the prefix stays
identical.

One builder, ``_body``, makes every request from ``Message``s. Chat Completions has no error flag on
a tool message (the model sees the result's text only); ids the API left out (some compatible
servers do) are filled in, in the message sent back too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from typing import Any, ClassVar

from mcp_evals.answers import (
    ONE_TOOL_INSTRUCTION,
    Answer,
    GenerateOptions,
    Message,
    Text,
    ToolChoice,
    ToolResult,
    ToolSpec,
    ToolUse,
    Usage,
    content_text,
)
from mcp_evals.http_headers import header
from mcp_evals.providers.base import (
    NO_OPTIONS,
    HttpProvider,
    HttpRequest,
    as_dict,
    compact_json,
    invalid_response,
    json_body,
    object_schema,
    token_count,
    tool_call,
)
from mcp_evals.providers.failures import ProviderFailure, http_failure, status_verdict

# Reasoning models take `max_completion_tokens` and refuse `temperature`.
_REASONING = re.compile(r"^(?:gpt-5|o\d)")
_BILLING_CODES = {"insufficient_quota", "billing_hard_limit_reached", "billing_not_active"}
_HEADERS = {"content-type": "application/json"}


class OpenAIProvider(HttpProvider):
    name: ClassVar = "openai"
    default_base_url: ClassVar = "https://api.openai.com/v1"
    label: ClassVar = "OpenAI-compatible Chat Completions"

    async def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice | None = None,
        options: GenerateOptions = NO_OPTIONS,
    ) -> Answer:
        if any(spec.deferred for spec in tools):
            raise ValueError("Chat Completions has no tool search: deferred tools are searched by the caller")
        body = self._body(messages, tools, tool_choice, options)
        response, latency_ms = await self._answered(
            HttpRequest("/chat/completions", body, _HEADERS), tool_choice
        )
        answer = parse_response(response.status_code, response.headers, response.content, tools)
        answer.latency_ms = latency_ms
        return answer

    def notes(self, options: GenerateOptions) -> list[str]:
        if options.temperature is not None and self._reasoning_model:
            return [
                f"temperature {options.temperature} was not sent: {self.settings.model} does not accept it"
            ]
        return []

    # -- the one request builder ---------------------------------------------------------------

    @property
    def _reasoning_model(self) -> bool:
        return bool(_REASONING.match(self.settings.model.rsplit("/", 1)[-1]))

    def _auth_headers(self) -> dict[str, str]:
        key = self.settings.api_key
        return {"authorization": f"Bearer {key.reveal()}"} if key is not None else {}

    def _body(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        tool_choice: ToolChoice | None,
        options: GenerateOptions,
    ) -> bytes:
        limit_key = "max_completion_tokens" if self._reasoning_model else "max_tokens"
        parts = [
            b'{"model":' + compact_json(self.settings.model),
            f'"{limit_key}":{options.max_tokens}'.encode(),
        ]
        if options.temperature is not None and not self._reasoning_model:
            parts.append(b'"temperature":' + compact_json(options.temperature))
        if tools:
            parts.append(b'"tools":' + self._remembered(("tools", id(tools)), lambda: _tools(tools), tools))
            if tool_choice is not None:
                parts.append(b'"tool_choice":' + _tool_choice(tool_choice))
        rendered: list[bytes] = []
        instruct = tool_choice is not None and tool_choice.instructed
        for message in messages:
            if message.role == "system":
                if message.text:
                    rendered.append(self._remembered(("system", message.text), partial(_system, message)))
                continue
            if instruct and message.role == "user" and isinstance(message.content, str):
                # In the user turn, not in a second system message: the tools and the system message stay
                # one prefix for every request (OpenAI's prompt cache, llama.cpp's KV cache), and a chat
                # template that lists the tools after each system message (llama.cpp's
                # chatml-function-calling) lists them once, not twice.
                message = Message.user(f"{message.content}\n\n{ONE_TOOL_INSTRUCTION}")
                instruct = False
            rendered += [compact_json(item) for item in _messages(message)]
        parts.append(b'"messages":[' + b",".join(rendered) + b"]")
        parts += [compact_json(key) + b":" + compact_json(value) for key, value in options.extras.items()]
        return b",".join(parts) + b"}"

    def _classify(
        self, status: int, headers: Mapping[str, str], body: bytes, tool_choice: ToolChoice | None
    ) -> ProviderFailure:
        return classify_response(status, headers, body, tool_choice, self._scrub)


def classify_response(
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    tool_choice: ToolChoice | None = None,
    scrub: Callable[[str], str] | None = None,
) -> ProviderFailure:
    """A non-2xx response as a classified failure. ``tool_choice``: the request's, for servers that
    answer forced tool use with a crash."""
    error = as_dict(as_dict(json_body(body)).get("error"))
    message = str(error.get("message") or "")
    code = str(error.get("code") or "")
    error_type = str(error.get("type") or "")
    request_id = header(headers, "x-request-id")
    kind, transient = status_verdict(status)
    rejects_forced = False
    if code in _BILLING_CODES or error_type == "insufficient_quota":
        kind, transient = "billing", False  # a 429 that no amount of waiting fixes
    elif status == 404 or code == "model_not_found":
        kind, transient = "not_found", False
    elif status == 400 and "tool_choice" in message:
        kind, transient, rejects_forced = "invalid_request", False, True
    elif status == 500 and tool_choice is not None and tool_choice.forced:
        # Some servers crash on `"required"` instead of refusing it (llama-cpp-python asserts
        # `tool_choice == "auto"`, an empty 500). Falling back costs one request; a real outage
        # fails the retried request too and is classified as usual then.
        kind, transient, rejects_forced = "invalid_request", False, True
        message = (message + " " if message else "") + 'in answer to tool_choice "required"'
    return http_failure(
        status,
        headers,
        kind=kind,
        transient=transient,
        label=code or error_type,
        message=message,
        request_id=request_id,
        request_id_header="x-request-id",
        rejects_forced_tool_choice=rejects_forced,
        scrub=scrub,
    )


def parse_response(
    status: int, headers: Mapping[str, str], body: bytes, offered: Sequence[ToolSpec]
) -> Answer:
    """A 2xx Chat Completions response as an Answer; a ProviderFailure when the body is unusable."""
    request_id = header(headers, "x-request-id")
    data = json_body(body)
    if not isinstance(data, dict):
        raise invalid_response(f"HTTP {status}: the body is not valid JSON ({len(body)} bytes)", request_id)
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise invalid_response("the response has no `choices`", request_id)
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise invalid_response("`choices[0].message` is not an object", request_id)
    tool_calls = message.get("tool_calls")
    if tool_calls is not None and not isinstance(tool_calls, list):
        raise invalid_response("`tool_calls` is not a list", request_id)
    finish_reason = choices[0].get("finish_reason")
    answer = Answer(
        request_id=request_id or data.get("id"),
        stop_reason=finish_reason,
        truncated=finish_reason == "length",  # cut off at max_tokens before the model finished
    )
    parts: list[Text | ToolUse] = []
    sent_back: list[dict[str, Any]] = []
    for index, call in enumerate(tool_calls or []):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(call, dict) or not isinstance(function, dict):
            raise invalid_response("a tool call has no `function` object", answer.request_id)
        name = str(function.get("name", ""))
        raw = function.get("arguments")
        if isinstance(raw, dict):  # some compatible servers send an object
            made = tool_call(offered, name, raw)
        else:
            text = raw if isinstance(raw, str) else ""
            try:
                arguments = json.loads(text) if text.strip() else {}
            except ValueError:
                arguments = None
            made = (
                tool_call(offered, name, arguments)
                if isinstance(arguments, dict)
                else tool_call(offered, name, None, raw_arguments=text)
            )
        answer.calls.append(made)
        call_id = call["id"] if isinstance(call.get("id"), str) and call["id"] else f"call_{index}"
        sent_back.append({**call, "id": call_id})
        parts.append(ToolUse(call_id, name, made.arguments or {}))
    content = message.get("content")
    answer.text = content if isinstance(content, str) else ""
    if answer.text:
        parts.insert(0, Text(answer.text))
    assistant: dict[str, Any] = {"role": "assistant", "content": content}
    if sent_back:
        assistant["tool_calls"] = sent_back
    answer.message = Message.assistant(parts, raw=assistant)
    usage = as_dict(data.get("usage"))
    details = as_dict(usage.get("prompt_tokens_details"))
    cached = token_count(details, "cached_tokens", request_id)
    answer.usage = Usage(
        input_tokens=max(0, token_count(usage, "prompt_tokens", request_id) - cached),
        output_tokens=token_count(usage, "completion_tokens", request_id),
        cache_read_tokens=cached,
    )
    return answer


def _tools(tools: Sequence[ToolSpec]) -> bytes:
    definitions = []
    for spec in tools:
        function: dict[str, Any] = {"name": spec.name}
        if spec.description:
            function["description"] = spec.description
        function["parameters"] = object_schema(spec.input_schema)
        definitions.append({"type": "function", "function": function})
    return compact_json(definitions)


def _system(message: Message) -> bytes:
    return compact_json({"role": "system", "content": message.text})


@cache
def _tool_choice(choice: ToolChoice) -> bytes:
    if choice.kind == "tool":
        return compact_json({"type": "function", "function": {"name": choice.name}})
    return compact_json("required" if choice.kind == "any" else choice.kind)


def _messages(message: Message) -> list[dict[str, Any]]:
    """A message as Chat Completions messages: tool results are messages of their own."""
    if message.role == "assistant":
        if message.raw is not None:
            return [message.raw]
        assistant: dict[str, Any] = {"role": "assistant", "content": message.text or None}
        uses = message.tool_uses
        if uses:
            assistant["tool_calls"] = [
                {
                    "id": use.id,
                    "type": "function",
                    "function": {"name": use.name, "arguments": json.dumps(dict(use.arguments))},
                }
                for use in uses
            ]
        return [assistant]
    if isinstance(message.content, str):
        return [{"role": message.role, "content": message.content}]
    rendered: list[dict[str, Any]] = [
        {
            "role": "tool",
            "tool_call_id": part.call_id,
            "content": part.content if isinstance(part.content, str) else content_text(part.content),
        }
        for part in message.content
        if isinstance(part, ToolResult)
    ]
    text = "\n".join(part.text for part in message.content if isinstance(part, Text))
    if text:
        rendered.append({"role": "user", "content": text})
    return rendered
