"""OpenAI-compatible Chat Completions (``POST {base}/chat/completions``), over httpx.

Works with OpenAI and with what speaks its dialect: gateways (LiteLLM, OpenRouter), vLLM, Ollama
(``--base-url http://localhost:11434/v1``), llama.cpp (tested against llama-cpp-python's server,
which answers ``tool_choice: "required"`` with an HTTP 500: read as a forced-tool rejection).
Arguments arrive as a JSON *string*: invalid JSON is recorded as an argument problem
(``raw_arguments``), never a crash. Prompt caching is automatic on OpenAI (prefixes of 1,024 tokens
and more); the tools and the system message come first and are serialized once, so the prefix stays
identical.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from mcp_evals.answers import ToolChoiceMode, Usage
from mcp_evals.catalog.model import Tool
from mcp_evals.fixtures.model import Fixture
from mcp_evals.http_headers import header
from mcp_evals.providers.base import (
    ONE_TOOL_INSTRUCTION,
    Answer,
    HttpRequest,
    Provider,
    as_dict,
    compact_json,
    json_body,
)
from mcp_evals.providers.failures import ProviderFailure, http_failure, status_verdict
from mcp_evals.providers.turns import Turn, TurnCall, TurnResult, content_text

# Reasoning models take `max_completion_tokens` and refuse `temperature`.
_REASONING = re.compile(r"^(?:gpt-5|o\d)")
_BILLING_CODES = {"insufficient_quota", "billing_hard_limit_reached", "billing_not_active"}


class OpenAIProvider(Provider):
    name: ClassVar = "openai"
    default_base_url: ClassVar = "https://api.openai.com/v1"
    label: ClassVar = "OpenAI-compatible Chat Completions"

    @property
    def reasoning_model(self) -> bool:
        return bool(_REASONING.match(self.settings.model.rsplit("/", 1)[-1]))

    @property
    def caching(self) -> bool:
        return self.settings.prompt_caching  # automatic on OpenAI; this only warms it with one request first

    def notes(self) -> list[str]:
        if self.settings.temperature is not None and self.reasoning_model:
            model, temperature = self.settings.model, self.settings.temperature
            return [f"temperature {temperature} was not sent: {model} does not accept it"]
        return []

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = []
        for tool in self.catalog.tools:
            function: dict[str, Any] = {"name": self.catalog.names.provider(tool.name)}
            if tool.description:
                function["description"] = tool.description
            function["parameters"] = self.input_schema(tool)
            tools.append({"type": "function", "function": function})
        return tools

    def serialize_prefix(self) -> tuple[bytes, bytes]:
        system = {"role": "system", "content": self.system_prompt}
        return compact_json(self.tool_definitions()), compact_json(system)

    def body(self, fixture: Fixture, mode: ToolChoiceMode | None) -> bytes:
        tools, system = self.prefix_parts
        query = fixture.query
        if mode == "auto_instructed":
            # In the user turn, not in a second system message: the tools and the system message stay
            # one prefix for every fixture (OpenAI's prompt cache, llama.cpp's KV cache), and a chat
            # template that lists the tools after each system message (llama.cpp's
            # chatml-function-calling) lists them once, not twice.
            query = f"{query}\n\n{ONE_TOOL_INSTRUCTION}"
        messages = [system, compact_json({"role": "user", "content": query})]
        limit_key = "max_completion_tokens" if self.reasoning_model else "max_tokens"
        parts = [
            b'{"model":' + compact_json(self.settings.model),
            f'"{limit_key}":'.encode() + compact_json(self.settings.max_tokens),
        ]
        if self.settings.temperature is not None and not self.reasoning_model:
            parts.append(b'"temperature":' + compact_json(self.settings.temperature))
        parts += [
            b'"tools":' + tools,
            b'"tool_choice":' + compact_json("required" if mode == "forced" else "auto"),
            b'"messages":[' + b",".join(messages) + b"]}",
        ]
        return b",".join(parts)

    def build_request(self, fixture: Fixture, mode: ToolChoiceMode | None) -> HttpRequest:
        return HttpRequest(
            "/chat/completions", self.body(fixture, mode), {"content-type": "application/json"}
        )

    def auth_headers(self) -> dict[str, str]:
        key = self.settings.api_key
        return {"authorization": f"Bearer {key.reveal()}"} if key is not None else {}

    # -- sessions (``mcp-evals session``) --------------------------------------------------------
    #
    # Chat Completions has no error flag on a tool message: the model sees the result's text only.
    # Ids the API left out (some compatible servers do) are filled in, in the message sent back too.

    supports_turns: ClassVar = True

    def build_turn_request(self, messages: Sequence[Any]) -> HttpRequest:
        tools, system = self.prefix_parts
        head = [system] if self.system_prompt else []
        limit_key = "max_completion_tokens" if self.reasoning_model else "max_tokens"
        parts = [
            b'{"model":' + compact_json(self.settings.model),
            f'"{limit_key}":'.encode() + compact_json(self.settings.max_tokens),
        ]
        if self.settings.temperature is not None and not self.reasoning_model:
            parts.append(b'"temperature":' + compact_json(self.settings.temperature))
        if self.catalog.tools:
            parts.append(b'"tools":' + tools)
        body = b'"messages":[' + b",".join([*head, *(compact_json(message) for message in messages)])
        parts.append(body + b"]}")
        return HttpRequest("/chat/completions", b",".join(parts), {"content-type": "application/json"})

    def parse_turn(self, status: int, headers: Mapping[str, str], body: bytes) -> Turn:
        answer = self.parse_response(status, headers, body)  # raises when the body is unusable
        message = dict(answer.message) if isinstance(answer.message, dict) else {}
        raw_calls = message.get("tool_calls") or []
        sent_back: list[dict[str, Any]] = []
        calls = []
        for index, (raw, call) in enumerate(zip(raw_calls, answer.calls, strict=True)):
            call_id = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else f"call_{index}"
            sent_back.append({**raw, "id": call_id})
            calls.append(TurnCall(id=call_id, call=call))
        assistant: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if sent_back:
            assistant["tool_calls"] = sent_back
        return Turn(
            calls=calls,
            text=answer.text,
            stop_reason=answer.stop_reason,
            usage=answer.usage,
            request_id=answer.request_id,
            truncated=answer.truncated,
            message=assistant,
        )

    def tool_results_turn(self, turn: Turn, results: Sequence[TurnResult]) -> list[Any]:
        tool_messages = [
            {"role": "tool", "tool_call_id": result.call_id, "content": content_text(result.content)}
            for result in results
        ]
        return [turn.message, *tool_messages]

    def scripted_turn(self, calls: Sequence[tuple[str, str, dict[str, Any]]], text: str = "") -> Turn:
        assistant: dict[str, Any] = {"role": "assistant", "content": text or None}
        turn_calls = []
        raw_calls = []
        for call_id, name, arguments in calls:
            provider_name = self.catalog.names.provider(name)
            function = {"name": provider_name, "arguments": json.dumps(arguments)}
            raw_calls.append({"id": call_id, "type": "function", "function": function})
            turn_calls.append(TurnCall(id=call_id, call=self.tool_call(provider_name, arguments)))
        if raw_calls:
            assistant["tool_calls"] = raw_calls
        return Turn(
            calls=turn_calls, text=text, stop_reason="tool_calls" if calls else "stop", message=assistant
        )

    def parse_response(self, status: int, headers: Mapping[str, str], body: bytes) -> Answer:
        request_id = header(headers, "x-request-id")
        data = json_body(body)
        if not isinstance(data, dict):
            raise self.invalid_response(
                f"HTTP {status}: the body is not valid JSON ({len(body)} bytes)", request_id
            )
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self.invalid_response("the response has no `choices`", request_id)
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise self.invalid_response("`choices[0].message` is not an object", request_id)
        tool_calls = message.get("tool_calls")
        if tool_calls is not None and not isinstance(tool_calls, list):
            raise self.invalid_response("`tool_calls` is not a list", request_id)
        finish_reason = choices[0].get("finish_reason")
        answer = Answer(
            request_id=request_id or data.get("id"),
            stop_reason=finish_reason,
            truncated=finish_reason == "length",  # cut off at max_tokens before the model finished
        )
        for call in tool_calls or []:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                raise self.invalid_response("a tool call has no `function` object", answer.request_id)
            raw = function.get("arguments")
            if isinstance(raw, dict):  # some compatible servers send an object
                answer.calls.append(self.tool_call(str(function.get("name", "")), raw))
                continue
            text = raw if isinstance(raw, str) else ""
            try:
                arguments = json.loads(text) if text.strip() else {}
            except ValueError:
                arguments = None
            if isinstance(arguments, dict):
                answer.calls.append(self.tool_call(str(function.get("name", "")), arguments))
            else:
                answer.calls.append(self.tool_call(str(function.get("name", "")), None, raw_arguments=text))
        content = message.get("content")
        answer.text = content if isinstance(content, str) else ""
        answer.message = message
        usage = as_dict(data.get("usage"))
        details = as_dict(usage.get("prompt_tokens_details"))
        cached = self.token_count(details, "cached_tokens", request_id)
        answer.usage = Usage(
            input_tokens=max(0, self.token_count(usage, "prompt_tokens", request_id) - cached),
            output_tokens=self.token_count(usage, "completion_tokens", request_id),
            cache_read_tokens=cached,
        )
        return answer

    def classify_error(
        self, status: int, headers: Mapping[str, str], body: bytes, *, mode: ToolChoiceMode | None = None
    ) -> ProviderFailure:
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
        elif status == 500 and mode == "forced":
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
            scrub=self.scrub,
        )

    # -- conversations (synth; compare's arms) --------------------------------------------------

    supports_conversation: ClassVar = True

    def catalog_tool(self, tool: Tool) -> dict[str, Any]:
        function: dict[str, Any] = {"name": self.catalog.names.provider(tool.name)}
        if tool.description:
            function["description"] = tool.description
        function["parameters"] = self.input_schema(tool)
        return {"type": "function", "function": function}

    def function_tool(self, name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": schema},
        }

    def conversation_body(
        self,
        mode: ToolChoiceMode | None,
        tools: list[dict[str, Any]],
        messages: list[Any],
        *,
        system: str | None = None,
    ) -> bytes:
        """A Chat Completions body with these tools and messages (``system`` replaces the run's prompt)."""
        text = self.system_prompt if system is None else system
        head = [{"role": "system", "content": text}] if text else []
        if mode == "auto_instructed":
            head.append({"role": "system", "content": ONE_TOOL_INSTRUCTION})
        limit_key = "max_completion_tokens" if self.reasoning_model else "max_tokens"
        body: dict[str, Any] = {"model": self.settings.model, limit_key: self.settings.max_tokens}
        if self.settings.temperature is not None and not self.reasoning_model:
            body["temperature"] = self.settings.temperature
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "required" if mode == "forced" else "auto"
        body["messages"] = [*head, *messages]
        return compact_json(body)

    def text_request(self, system: str, user: str) -> HttpRequest:
        body = self.conversation_body(None, [], [{"role": "user", "content": user}], system=system)
        return HttpRequest("/chat/completions", body, {"content-type": "application/json"})

    def turn_request(
        self,
        fixture: Fixture,
        mode: ToolChoiceMode | None,
        tools: list[dict[str, Any]],
        history: list[Any] | None = None,
        *,
        cache: bool = False,  # OpenAI caches long prefixes by itself
    ) -> HttpRequest:
        messages = [{"role": "user", "content": fixture.query}, *(history or [])]
        body = self.conversation_body(mode, tools, messages)
        return HttpRequest("/chat/completions", body, {"content-type": "application/json"})

    def tool_result_turn(self, answer: Answer, text: str) -> list[Any]:
        message = answer.message if isinstance(answer.message, dict) else {}
        calls = message.get("tool_calls")
        call = calls[0] if isinstance(calls, list) and calls and isinstance(calls[0], dict) else None
        if call is None:
            raise self.invalid_response("no tool call to answer", answer.request_id)
        call_id = str(call.get("id") or "call_0")
        assistant = {"role": "assistant", "content": message.get("content"), "tool_calls": [call]}
        return [assistant, {"role": "tool", "tool_call_id": call_id, "content": text}]
