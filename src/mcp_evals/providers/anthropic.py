"""Anthropic Messages API (``POST /v1/messages``), over httpx.

One builder, ``_body``, makes every request — a run's fixture, compare's arms, a session's turn,
synth's text prompts, Message Batches entries and ``count_tokens`` — from ``Message``s and
``ToolSpec``s.

Prompt caching (``GenerateOptions.cache``): ``cache_control`` sits on the last tool and on the system
prompt, so the tools and the system prompt — the same for every request of a run — are written to
the cache by the first request and read by every later one. They are serialized once per tools list
and prompt, so the prefix is byte-identical across requests. The instruction for models that reject
forced tool use goes in a second system block *after* the cache breakpoint, so it does not break the
prefix. A conversation (``cache="conversation"``) re-sent every turn also marks the end of its newest
message: each turn reads what the previous one wrote and writes only what is new.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, Literal

from mcp_evals.answers import (
    ONE_TOOL_INSTRUCTION,
    Answer,
    ErrorKind,
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
from mcp_evals.providers.anthropic_tool_search import MAX_CONTINUATIONS, SEARCH_TOOLS
from mcp_evals.providers.base import (
    NO_OPTIONS,
    BatchHost,
    BatchItem,
    HttpProvider,
    HttpRequest,
    ProviderSettings,
    as_dict,
    compact_json,
    invalid_response,
    json_body,
    object_schema,
    own_settings,
    token_count,
    tool_call,
)
from mcp_evals.providers.failures import ProviderFailure, http_failure, status_verdict
from mcp_evals.providers.pricing import rejects_forced_tool_choice

# From this version on the API rejects sampling parameters (temperature, top_p, top_k) with a 400.
NO_SAMPLING_PARAMETERS_FROM = "2026-10-21"
_BILLING = re.compile(r"credit balance|billing|spend limit|usage limit|insufficient", re.IGNORECASE)
_FORCED = re.compile(r"tool_choice", re.IGNORECASE)
# Stop reasons of an answer cut off before the model finished it.
_CUT_OFF_STOP_REASONS = frozenset({"max_tokens", "model_context_window_exceeded"})
_EPHEMERAL = {"type": "ephemeral"}

_ERROR_TYPES: dict[str, tuple[ErrorKind, bool]] = {
    "authentication_error": ("auth", False),
    "permission_error": ("auth", False),
    "billing_error": ("billing", False),
    "not_found_error": ("not_found", False),
    "rate_limit_error": ("rate_limited", True),
    "overloaded_error": ("overloaded", True),
    "api_error": ("server_error", True),
    "timeout_error": ("timeout", True),
    "request_too_large": ("invalid_request", False),
}


@dataclass(frozen=True)
class AnthropicSettings:
    """This provider's own settings: the API version it speaks, and the server-side tool search
    deferred tools are found with (``bm25`` or ``regex``; ``tool_search_beta``: an ``anthropic-beta``
    header for an endpoint that still has tool search behind one)."""

    anthropic_version: str = "2023-06-01"
    tool_search: Literal["bm25", "regex"] = "bm25"
    tool_search_beta: str | None = None


class AnthropicProvider(HttpProvider):
    name: ClassVar = "anthropic"
    default_base_url: ClassVar = "https://api.anthropic.com"
    label: ClassVar = "Anthropic Messages API"
    supports_batch: ClassVar = True
    reports_cache_usage: ClassVar = True
    tool_search_requests: ClassVar = 1 + MAX_CONTINUATIONS  # the first request, then each continuation

    def __init__(self, settings: ProviderSettings) -> None:
        super().__init__(settings)
        self._own = own_settings(AnthropicSettings, settings)
        self._model_json = b'{"model":' + compact_json(settings.model)

    # -- the interface ---------------------------------------------------------------------------

    async def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice | None = None,
        options: GenerateOptions = NO_OPTIONS,
    ) -> Answer:
        if any(spec.deferred for spec in tools):
            from mcp_evals.providers.anthropic_tool_search import answer_with_tool_search

            return await answer_with_tool_search(self, messages, tools, tool_choice, options)
        return await self._exchange(messages, tools, tool_choice, options)

    async def count_tokens(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice | None = None,
        options: GenerateOptions = NO_OPTIONS,
    ) -> int | None:
        """``POST /v1/messages/count_tokens``: free, the same body without ``max_tokens``."""
        if self.settings.api_key is None:
            return None
        body = json.loads(self._body(messages, tools, tool_choice, options))
        body.pop("max_tokens", None)
        body.pop("temperature", None)
        request = HttpRequest("/v1/messages/count_tokens", compact_json(body), self._headers(tools))
        response, _ = await self._answered(request, None)
        data = json_body(response.content)
        if not isinstance(data, dict) or not isinstance(data.get("input_tokens"), int):
            raise invalid_response("count_tokens answered without `input_tokens`")
        return int(data["input_tokens"])

    @property
    def counts_tokens(self) -> bool:
        return self.settings.api_key is not None

    async def generate_batch(self, items: Sequence[BatchItem], host: BatchHost) -> None:
        from mcp_evals.providers.anthropic_batch import run_batches  # only --batch runs need it

        await run_batches(self, host, list(items))

    def notes(self, options: GenerateOptions) -> list[str]:
        if options.temperature is not None and not self._sends_temperature(options):
            return [
                f"temperature {options.temperature} was not sent: anthropic-version "
                f"{self._own.anthropic_version} / model {self.settings.model} does not accept it"
            ]
        return []

    # -- the one request builder ---------------------------------------------------------------

    def _sends_temperature(self, options: GenerateOptions) -> bool:
        return (
            options.temperature is not None
            and self._own.anthropic_version < NO_SAMPLING_PARAMETERS_FROM
            and not rejects_forced_tool_choice(self.settings.model)  # these models always think
        )

    def _headers(self, tools: Sequence[ToolSpec] = ()) -> dict[str, str]:
        headers = {"anthropic-version": self._own.anthropic_version, "content-type": "application/json"}
        if self._own.tool_search_beta and any(spec.deferred for spec in tools):
            headers["anthropic-beta"] = self._own.tool_search_beta
        return headers

    def _auth_headers(self) -> dict[str, str]:
        key = self.settings.api_key
        return {"x-api-key": key.reveal()} if key is not None else {}

    def _request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        tool_choice: ToolChoice | None,
        options: GenerateOptions,
    ) -> HttpRequest:
        return HttpRequest(
            "/v1/messages", self._body(messages, tools, tool_choice, options), self._headers(tools)
        )

    def _body(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        tool_choice: ToolChoice | None,
        options: GenerateOptions,
    ) -> bytes:
        """The Messages body, assembled from pre-serialized parts so the cached prefix never changes."""
        cache = options.cache != "off"
        parts = [self._model_json, b'"max_tokens":' + str(options.max_tokens).encode()]
        if self._sends_temperature(options):
            parts.append(b'"temperature":' + compact_json(options.temperature))
        if tools:
            parts.append(b'"tools":' + self._tools_json(tools, cache))
        prompts = tuple(message.text for message in messages if message.role == "system" and message.text)
        system = self._system_json(prompts, cache) if prompts else b""
        if tool_choice is not None and tool_choice.instructed:
            instruction = compact_json({"type": "text", "text": ONE_TOOL_INSTRUCTION})
            system = system[:-1] + b"," + instruction + b"]" if system else b"[" + instruction + b"]"
        if system:
            parts.append(b'"system":' + system)
        if tools and tool_choice is not None:
            parts.append(b'"tool_choice":' + _tool_choice(tool_choice))
        rendered = [_message(message) for message in messages if message.role != "system"]
        if options.cache == "conversation":
            rendered = _mark_last_block(rendered)
        parts.append(b'"messages":' + compact_json(rendered))
        parts += [compact_json(key) + b":" + compact_json(value) for key, value in options.extras.items()]
        return b",".join(parts) + b"}"

    def _tools_json(self, tools: Sequence[ToolSpec], cache: bool) -> bytes:
        def make() -> bytes:
            definitions = [_tool(spec) for spec in tools]
            if any(spec.deferred for spec in tools):  # the search tool: never deferred, last
                definitions.append(dict(SEARCH_TOOLS[self._own.tool_search]))
            if definitions and cache:
                definitions[-1]["cache_control"] = _EPHEMERAL
            return compact_json(definitions)

        return self._remembered(("tools", id(tools), cache), make, owner=tools)

    def _system_json(self, prompts: tuple[str, ...], cache: bool) -> bytes:
        def make() -> bytes:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": text} for text in prompts]
            if cache:
                blocks[-1]["cache_control"] = _EPHEMERAL
            return compact_json(blocks)

        return self._remembered(("system", prompts, cache), make)

    # -- sending and reading -----------------------------------------------------------------------

    async def _exchange(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        tool_choice: ToolChoice | None,
        options: GenerateOptions,
    ) -> Answer:
        request = self._request(messages, tools, tool_choice, options)
        response, latency_ms = await self._answered(request, tool_choice)
        answer = parse_response(response.status_code, response.headers, response.content, tools)
        answer.latency_ms = latency_ms
        return answer

    def _classify(
        self, status: int, headers: Mapping[str, str], body: bytes, tool_choice: ToolChoice | None
    ) -> ProviderFailure:
        return classify_response(status, headers, body, self._scrub)

    def _parse_message(self, data: Any, offered: Sequence[ToolSpec], request_id: str | None) -> Answer:
        return parse_message(data, offered, request_id)

    def _classify_entry(self, error_type: str, message: str) -> ProviderFailure:
        """The error of one errored batch entry (it has no HTTP status of its own)."""
        return classify(400, error_type, message, None, scrub=self._scrub)


def parse_response(
    status: int, headers: Mapping[str, str], body: bytes, offered: Sequence[ToolSpec]
) -> Answer:
    """A 2xx Messages response as an Answer; a ProviderFailure when the body is unusable."""
    request_id = header(headers, "request-id")
    data = json_body(body)
    if data is None:
        raise invalid_response(f"HTTP {status}: the body is not valid JSON ({len(body)} bytes)", request_id)
    return parse_message(data, offered, request_id)


def classify_response(
    status: int, headers: Mapping[str, str], body: bytes, scrub: Callable[[str], str] | None = None
) -> ProviderFailure:
    """A non-2xx response as a classified failure (see ``classify``)."""
    data = as_dict(json_body(body))
    error = as_dict(data.get("error"))
    error_type = str(error.get("type") or "")
    message = str(error.get("message") or "")
    request_id = header(headers, "request-id") or data.get("request_id")
    return classify(status, error_type, message, request_id, headers, scrub)


def parse_message(data: Any, offered: Sequence[ToolSpec], request_id: str | None = None) -> Answer:
    """Parse a Message object (also the ``message`` of a succeeded batch entry)."""
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        raise invalid_response("the response is not a Message (no `content` list)", request_id)
    stop_reason = data.get("stop_reason")
    answer = Answer(
        request_id=request_id, stop_reason=stop_reason, truncated=stop_reason in _CUT_OFF_STOP_REASONS
    )
    parts: list[Text | ToolUse] = []
    for block in data["content"]:
        if not isinstance(block, dict):
            raise invalid_response("a content block is not an object", request_id)
        kind = block.get("type")
        if kind == "tool_use":  # thinking / redacted_thinking blocks may come first: skip by type
            if not isinstance(block.get("id"), str) or not block["id"]:
                raise invalid_response("a tool_use block has no id", request_id)
            given = block.get("input")
            raw = None if isinstance(given, dict) else json.dumps(given)
            name = str(block.get("name", ""))
            answer.calls.append(tool_call(offered, name, given, raw))
            parts.append(ToolUse(block["id"], name, given if isinstance(given, dict) else {}))
        elif kind == "text" and isinstance(block.get("text"), str):
            parts.append(Text(block["text"]))
    answer.message = Message.assistant(parts, raw=data["content"])
    answer.text = answer.message.text
    usage = as_dict(data.get("usage"))
    answer.usage = Usage(
        input_tokens=token_count(usage, "input_tokens", request_id),
        output_tokens=token_count(usage, "output_tokens", request_id),
        cache_write_tokens=token_count(usage, "cache_creation_input_tokens", request_id),
        cache_read_tokens=token_count(usage, "cache_read_input_tokens", request_id),
    )
    return answer


def classify(
    status: int,
    error_type: str,
    message: str,
    request_id: str | None,
    headers: Mapping[str, str] | None = None,
    scrub: Callable[[str], str] | None = None,
) -> ProviderFailure:
    """Classify an Anthropic error (HTTP status + ``error.type`` + message)."""
    kind, transient = status_verdict(status)
    if error_type in _ERROR_TYPES:
        kind, transient = _ERROR_TYPES[error_type]
    rejects_forced = False
    if status == 400 or error_type == "invalid_request_error":
        if _BILLING.search(message):
            kind, transient = "billing", False
        elif _FORCED.search(message):
            kind, transient, rejects_forced = "invalid_request", False, True
    return http_failure(
        status,
        headers or {},
        kind=kind,
        transient=transient,
        label=error_type,
        message=message,
        request_id=request_id,
        request_id_header="request-id",
        rejects_forced_tool_choice=rejects_forced,
        scrub=scrub,
    )


def _tool(spec: ToolSpec) -> dict[str, Any]:
    definition: dict[str, Any] = {"name": spec.name}
    if spec.description:
        definition["description"] = spec.description
    definition["input_schema"] = object_schema(spec.input_schema)
    if spec.deferred:
        definition["defer_loading"] = True
    return definition


@cache
def _tool_choice(choice: ToolChoice) -> bytes:
    if choice.kind == "tool":
        return compact_json({"type": "tool", "name": choice.name})
    return compact_json({"type": choice.kind})


def _message(message: Message) -> dict[str, Any]:
    if message.role == "assistant":
        if message.raw is not None:
            return {"role": "assistant", "content": message.raw}
        blocks: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, Text) and part.text:
                blocks.append({"type": "text", "text": part.text})
            elif isinstance(part, ToolUse):
                blocks.append(
                    {"type": "tool_use", "id": part.id, "name": part.name, "input": dict(part.arguments)}
                )
        return {"role": "assistant", "content": blocks}
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    content: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, ToolResult):
            content.append(_tool_result(part))
        elif isinstance(part, Text):
            content.append({"type": "text", "text": part.text})
    return {"role": "user", "content": content}


def _tool_result(result: ToolResult) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.call_id}
    if isinstance(result.content, str):
        block["content"] = result.content
    else:
        content = [_content_block(item) for item in result.content]
        if content:
            block["content"] = content
    if result.is_error:
        block["is_error"] = True
    return block


def _mark_last_block(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with a cache breakpoint on the last block of the last one (copies; the input is kept)."""
    if not messages:
        return messages
    last = dict(messages[-1])
    content = last.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list) or not content or not isinstance(content[-1], dict):
        return messages
    last["content"] = [*content[:-1], {**content[-1], "cache_control": _EPHEMERAL}]
    return [*messages[:-1], last]


def _content_block(block: Mapping[str, Any]) -> dict[str, Any]:
    """An MCP content block as a Messages API ``tool_result`` block: text and images as they are,
    anything else (audio, resource links, embedded resources) as its JSON in a text block."""
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if kind == "image" and isinstance(block.get("data"), str) and isinstance(block.get("mimeType"), str):
        source = {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}
        return {"type": "image", "source": source}
    return {"type": "text", "text": content_text([block])}
