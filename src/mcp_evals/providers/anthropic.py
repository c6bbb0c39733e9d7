"""Anthropic Messages API (``POST /v1/messages``), over httpx.

Prompt caching: ``cache_control`` sits on the last tool and on the system prompt, so the catalog
and the system prompt — the same for every fixture — are written to the cache by the first request
and read by every later one. The tools and system blocks are serialized once per run, so the prefix
is byte-identical across fixtures. The fallback instruction for models that reject forced tool use
goes in a second system block *after* the cache breakpoint, so it does not break the prefix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from mcp_evals.answers import ErrorKind, ToolChoiceMode, Usage
from mcp_evals.catalog.model import Tool
from mcp_evals.fixtures.model import Fixture
from mcp_evals.http_headers import header
from mcp_evals.providers.base import (
    ONE_TOOL_INSTRUCTION,
    Answer,
    HttpRequest,
    Job,
    Provider,
    ToolSearch,
    as_dict,
    compact_json,
    json_body,
)
from mcp_evals.providers.failures import ProviderFailure, http_failure, status_verdict
from mcp_evals.providers.pricing import find_price, rejects_forced_tool_choice
from mcp_evals.providers.turns import Turn, TurnCall, TurnResult, content_text

# From this version on the API rejects sampling parameters (temperature, top_p, top_k) with a 400.
NO_SAMPLING_PARAMETERS_FROM = "2026-10-21"
_BILLING = re.compile(r"credit balance|billing|spend limit|usage limit|insufficient", re.IGNORECASE)
_FORCED = re.compile(r"tool_choice", re.IGNORECASE)
# Stop reasons of an answer cut off before the model finished it.
_CUT_OFF_STOP_REASONS = frozenset({"max_tokens", "model_context_window_exceeded"})

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


class AnthropicProvider(Provider):
    name: ClassVar = "anthropic"
    default_base_url: ClassVar = "https://api.anthropic.com"
    label: ClassVar = "Anthropic Messages API"

    # -- request ---------------------------------------------------------------------------------

    @property
    def caching(self) -> bool:
        return self.settings.prompt_caching

    @property
    def sends_temperature(self) -> bool:
        return (
            self.settings.temperature is not None
            and self.settings.anthropic_version < NO_SAMPLING_PARAMETERS_FROM
            and not rejects_forced_tool_choice(self.settings.model)  # these models always think
        )

    def notes(self) -> list[str]:
        notes = []
        if self.settings.temperature is not None and not self.sends_temperature:
            notes.append(
                f"temperature {self.settings.temperature} was not sent: anthropic-version "
                f"{self.settings.anthropic_version} / model {self.settings.model} does not accept it"
            )
        return notes

    def catalog_tool(self, tool: Tool) -> dict[str, Any]:
        definition: dict[str, Any] = {"name": self.catalog.names.provider(tool.name)}
        if tool.description:
            definition["description"] = tool.description
        definition["input_schema"] = self.input_schema(tool)
        return definition

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = [self.catalog_tool(tool) for tool in self.catalog.tools]
        if tools and self.caching:
            tools[-1]["cache_control"] = {"type": "ephemeral"}
        return tools

    def system_blocks(self) -> list[dict[str, Any]]:
        block: dict[str, Any] = {"type": "text", "text": self.system_prompt}
        if self.caching:
            block["cache_control"] = {"type": "ephemeral"}
        return [block]

    def serialize_prefix(self) -> tuple[bytes, bytes]:
        return compact_json(self.tool_definitions()), compact_json(self.system_blocks())

    def body(self, fixture: Fixture, mode: ToolChoiceMode | None) -> bytes:
        """The request body, assembled from pre-serialized parts so the cached prefix never changes."""
        tools, system = self.prefix_parts
        if mode == "auto_instructed":
            system = system[:-1] + b"," + compact_json({"type": "text", "text": ONE_TOOL_INSTRUCTION}) + b"]"
        tool_choice: dict[str, Any] = {"type": "any" if mode == "forced" else "auto"}
        parts = [
            b'{"model":' + compact_json(self.settings.model),
            b'"max_tokens":' + compact_json(self.settings.max_tokens),
        ]
        if self.sends_temperature:
            parts.append(b'"temperature":' + compact_json(self.settings.temperature))
        if self.catalog.tools:
            parts.append(b'"tools":' + tools)
        if self.system_prompt or mode == "auto_instructed":
            parts.append(b'"system":' + system)
        if self.catalog.tools:
            parts.append(b'"tool_choice":' + compact_json(tool_choice))
        parts.append(b'"messages":' + compact_json([{"role": "user", "content": fixture.query}]) + b"}")
        return b",".join(parts)

    def headers(self) -> dict[str, str]:
        return {"anthropic-version": self.settings.anthropic_version, "content-type": "application/json"}

    def auth_headers(self) -> dict[str, str]:
        key = self.settings.api_key
        return {"x-api-key": key.reveal()} if key is not None else {}

    def build_request(self, fixture: Fixture, mode: ToolChoiceMode | None) -> HttpRequest:
        return HttpRequest("/v1/messages", self.body(fixture, mode), self.headers())

    def mode_for(self, fixture: Fixture, *, forced_rejected: bool) -> ToolChoiceMode | None:
        known = rejects_forced_tool_choice(self.settings.model)
        return super().mode_for(fixture, forced_rejected=forced_rejected or known)

    def min_cache_tokens(self) -> int | None:
        price = find_price(self.settings.model)
        return price.min_cache_tokens if price is not None else None

    # -- sessions (``mcp-evals session``) --------------------------------------------------------
    #
    # A session re-sends the whole conversation every turn, so besides the tools and the system
    # prompt a third cache breakpoint moves to the end of the newest message: each turn reads what
    # the previous one wrote and writes only what is new.

    supports_turns: ClassVar = True

    def build_turn_request(self, messages: Sequence[Any]) -> HttpRequest:
        tools, system = self.prefix_parts
        parts = [
            b'{"model":' + compact_json(self.settings.model),
            b'"max_tokens":' + compact_json(self.settings.max_tokens),
        ]
        if self.sends_temperature:
            parts.append(b'"temperature":' + compact_json(self.settings.temperature))
        if self.catalog.tools:
            parts.append(b'"tools":' + tools)
        if self.system_prompt:
            parts.append(b'"system":' + system)
        marked = _mark_last_block(list(messages)) if self.caching else list(messages)
        parts.append(b'"messages":' + compact_json(marked) + b"}")
        return HttpRequest("/v1/messages", b",".join(parts), self.headers())

    def parse_turn(self, status: int, headers: Mapping[str, str], body: bytes) -> Turn:
        request_id = header(headers, "request-id")
        data = json_body(body)
        answer = (
            self.parse_message(data, request_id)
            if data is not None
            else self.parse_response(status, headers, body)  # raises: the body is not JSON
        )
        uses = [
            block for block in data["content"] if isinstance(block, dict) and block.get("type") == "tool_use"
        ]
        calls = []
        for block, call in zip(uses, answer.calls, strict=True):
            if not isinstance(block.get("id"), str) or not block["id"]:
                raise self.invalid_response("a tool_use block has no id", request_id)
            if not isinstance(block.get("input"), dict):
                call = call.model_copy(update={"raw_arguments": json.dumps(block.get("input"))})
            calls.append(TurnCall(id=block["id"], call=call))
        return Turn(
            calls=calls,
            text=answer.text,
            stop_reason=answer.stop_reason,
            usage=answer.usage,
            request_id=request_id,
            truncated=answer.truncated,
            message=data["content"],
        )

    def tool_results_turn(self, turn: Turn, results: Sequence[TurnResult]) -> list[Any]:
        blocks = []
        for result in results:
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.call_id}
            content = [_content_block(item) for item in result.content]
            if content:
                block["content"] = content
            if result.is_error:
                block["is_error"] = True
            blocks.append(block)
        return [{"role": "assistant", "content": turn.message}, {"role": "user", "content": blocks}]

    def scripted_turn(self, calls: Sequence[tuple[str, str, dict[str, Any]]], text: str = "") -> Turn:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        turn_calls = []
        for call_id, name, arguments in calls:
            provider_name = self.catalog.names.provider(name)
            content.append({"type": "tool_use", "id": call_id, "name": provider_name, "input": arguments})
            turn_calls.append(TurnCall(id=call_id, call=self.tool_call(provider_name, arguments)))
        return Turn(
            calls=turn_calls,
            text=text,
            stop_reason="tool_use" if calls else "end_turn",
            message=content,
        )

    # -- response --------------------------------------------------------------------------------

    def parse_message(self, data: Any, request_id: str | None = None) -> Answer:
        """Parse a Message object (also the ``message`` of a succeeded batch entry)."""
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise self.invalid_response("the response is not a Message (no `content` list)", request_id)
        stop_reason = data.get("stop_reason")
        answer = Answer(
            request_id=request_id, stop_reason=stop_reason, truncated=stop_reason in _CUT_OFF_STOP_REASONS
        )
        texts = []
        for block in data["content"]:
            if not isinstance(block, dict):
                raise self.invalid_response("a content block is not an object", request_id)
            kind = block.get("type")
            if kind == "tool_use":  # thinking / redacted_thinking blocks may come first: skip by type
                answer.calls.append(self.tool_call(str(block.get("name", "")), block.get("input")))
            elif kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
        answer.text = "\n".join(texts)
        answer.message = data["content"]
        usage = as_dict(data.get("usage"))
        answer.usage = Usage(
            input_tokens=self.token_count(usage, "input_tokens", request_id),
            output_tokens=self.token_count(usage, "output_tokens", request_id),
            cache_write_tokens=self.token_count(usage, "cache_creation_input_tokens", request_id),
            cache_read_tokens=self.token_count(usage, "cache_read_input_tokens", request_id),
        )
        return answer

    def parse_response(self, status: int, headers: Mapping[str, str], body: bytes) -> Answer:
        request_id = header(headers, "request-id")
        data = json_body(body)
        if data is None:
            raise self.invalid_response(
                f"HTTP {status}: the body is not valid JSON ({len(body)} bytes)", request_id
            )
        return self.parse_message(data, request_id)

    def classify_error(
        self, status: int, headers: Mapping[str, str], body: bytes, *, mode: ToolChoiceMode | None = None
    ) -> ProviderFailure:
        data = as_dict(json_body(body))
        error = as_dict(data.get("error"))
        error_type = str(error.get("type") or "")
        message = str(error.get("message") or "")
        request_id = header(headers, "request-id") or data.get("request_id")
        return classify(status, error_type, message, request_id, headers, self.scrub)

    # -- conversations (synth; compare's arms) --------------------------------------------------

    supports_conversation: ClassVar = True
    supports_tool_search: ClassVar = True

    @property
    def tool_search_requests(self) -> int:
        from mcp_evals.providers.anthropic_tool_search import MAX_CONTINUATIONS  # compare only

        return 1 + MAX_CONTINUATIONS  # the first request, then each continuation of a paused turn

    def function_tool(self, name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "description": description, "input_schema": schema}

    def conversation_body(
        self,
        mode: ToolChoiceMode | None,
        tools: list[dict[str, Any]],
        messages: list[Any],
        *,
        cache: bool = False,
        system: str | None = None,
    ) -> bytes:
        """A Messages body with these tools and messages (``system`` replaces the run's prompt)."""
        tools = [dict(tool) for tool in tools]
        blocks: list[dict[str, Any]] = []
        text = self.system_prompt if system is None else system
        if text:
            blocks.append({"type": "text", "text": text})
        if cache and self.caching:
            if tools:
                tools[-1]["cache_control"] = {"type": "ephemeral"}
            if blocks:
                blocks[-1]["cache_control"] = {"type": "ephemeral"}
        if mode == "auto_instructed":
            blocks.append({"type": "text", "text": ONE_TOOL_INSTRUCTION})
        body: dict[str, Any] = {"model": self.settings.model, "max_tokens": self.settings.max_tokens}
        if self.sends_temperature:
            body["temperature"] = self.settings.temperature
        if tools:
            body["tools"] = tools
        if blocks:
            body["system"] = blocks
        if tools and mode is not None:
            body["tool_choice"] = {"type": "any" if mode == "forced" else "auto"}
        body["messages"] = messages
        return compact_json(body)

    def text_request(self, system: str, user: str) -> HttpRequest:
        messages = [{"role": "user", "content": user}]
        return HttpRequest(
            "/v1/messages", self.conversation_body(None, [], messages, system=system), self.headers()
        )

    def turn_request(
        self,
        fixture: Fixture,
        mode: ToolChoiceMode | None,
        tools: list[dict[str, Any]],
        history: list[Any] | None = None,
        *,
        cache: bool = False,
    ) -> HttpRequest:
        messages = [{"role": "user", "content": fixture.query}, *(history or [])]
        body = self.conversation_body(mode, tools, messages, cache=cache)
        return HttpRequest("/v1/messages", body, self.headers())

    def tool_result_turn(self, answer: Answer, text: str) -> list[Any]:
        content = answer.message if isinstance(answer.message, list) else []
        call = next(
            (block for block in content if isinstance(block, dict) and block.get("type") == "tool_use"), None
        )
        if call is None:
            raise self.invalid_response("no tool_use block to answer", answer.request_id)
        result = {"type": "tool_result", "tool_use_id": str(call.get("id", "")), "content": text}
        return [{"role": "assistant", "content": content}, {"role": "user", "content": [result]}]

    async def tool_search_answer(self, job: Job, mode: ToolChoiceMode | None, search: ToolSearch) -> Answer:
        """The fixture asked with every catalog tool deferred behind Anthropic's tool search."""
        from mcp_evals.providers.anthropic_tool_search import answer_with_tool_search  # compare only

        return await answer_with_tool_search(self, job, mode, search)

    # -- Message Batches (``--batch``) -----------------------------------------------------------

    def classify_entry_error(self, error_type: str, message: str) -> ProviderFailure:
        """Classify the error of one errored batch entry (it has no HTTP status of its own)."""
        return classify(400, error_type, message, None)

    supports_batch: ClassVar = True
    reports_cache_usage: ClassVar = True

    async def run_batch(self, host: Any, jobs: list[Job]) -> None:
        from mcp_evals.providers.anthropic_batch import run_batches  # only --batch runs need it

        await run_batches(self, host, jobs)

    # -- free token counting (for --dry) ------------------------------------------------------

    async def count_tokens(self, request: HttpRequest) -> int | None:
        if self.settings.api_key is None:
            return None
        body = json.loads(request.body)
        body.pop("max_tokens", None)
        body.pop("temperature", None)
        response = await self.send(
            HttpRequest("/v1/messages/count_tokens", compact_json(body), self.headers())
        )
        if response.status_code != 200:
            raise self.classify_error(response.status_code, response.headers, response.content)
        data = json_body(response.content)
        if not isinstance(data, dict) or not isinstance(data.get("input_tokens"), int):
            raise self.invalid_response("count_tokens answered without `input_tokens`")
        return int(data["input_tokens"])


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


def _mark_last_block(messages: list[Any]) -> list[Any]:
    """The messages with a cache breakpoint on the last block of the last one (copies; the input is kept)."""
    if not messages or not isinstance(messages[-1], dict):
        return messages
    last = dict(messages[-1])
    content = last.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list) or not content or not isinstance(content[-1], dict):
        return messages
    last["content"] = [*content[:-1], {**content[-1], "cache_control": {"type": "ephemeral"}}]
    return [*messages[:-1], last]


def _content_block(block: dict[str, Any]) -> dict[str, Any]:
    """An MCP content block as a Messages API ``tool_result`` block: text and images as they are,
    anything else (audio, resource links, embedded resources) as its JSON in a text block."""
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if kind == "image" and isinstance(block.get("data"), str) and isinstance(block.get("mimeType"), str):
        source = {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}
        return {"type": "image", "source": source}
    return {"type": "text", "text": content_text([block])}
