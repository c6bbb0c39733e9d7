"""Providers: exact request bodies, parsing of real response shapes, error classification."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import anyio
import pytest

from fakes.fake_anthropic import API_KEY, Call, FakeAnthropic
from fakes.fake_anthropic import Text as Says
from fakes.fake_openai import FakeOpenAI, RawArguments
from mcp_evals.answers import (
    AUTO,
    FORCED,
    INSTRUCTED,
    ONE_TOOL_INSTRUCTION,
    Answer,
    GenerateOptions,
    Message,
    Text,
    ToolChoice,
    ToolResult,
    ToolSpec,
    ToolUse,
)
from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.errors import ConfigError
from mcp_evals.fixtures.model import Fixture
from mcp_evals.http_headers import parse_retry_after
from mcp_evals.providers import anthropic as anthropic_api
from mcp_evals.providers import openai as openai_api
from mcp_evals.providers.anthropic import AnthropicProvider
from mcp_evals.providers.base import Provider, ProviderSettings, Secret
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.lexical import LexicalProvider
from mcp_evals.providers.openai import OpenAIProvider
from mcp_evals.run.asker import Asker

SYSTEM = "Route the request to one tool."
SEARCH_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "Words to find"}},
}


def small_catalog() -> Catalog:
    return Catalog(
        tools=[
            Tool(
                name="tickets.search",
                description="Find tickets by words.",
                input_schema=SEARCH_SCHEMA,
                server="helpdesk",
                wire_name="tickets.search",
            ),
            Tool(
                name="get_ticket",
                description="One ticket by id.",
                server="helpdesk",
                wire_name="get_ticket",
                input_schema={
                    "type": "object",
                    "properties": {"ticket_id": {"type": "string"}},
                    "required": ["ticket_id"],
                },
            ),
            Tool(
                name="refund",
                description="",
                input_schema={"properties": {}},
                server="billing",
                wire_name="refund",
            ),
        ]
    )


SELECT = Fixture(id="find", query="Find the tickets about webhooks", expected_tools=["tickets.search"])
REFUSE = Fixture(id="flight", query="Book me a flight", kind="refuse")
CATALOG = small_catalog()
CACHED = GenerateOptions(cache="prefix")


def messages(query: str = SELECT.query) -> list[Message]:
    return [Message.system(SYSTEM), Message.user(query)]


def anthropic(
    fake: FakeAnthropic | None = None, model: str = "claude-opus-4-8", **own: object
) -> AnthropicProvider:
    return AnthropicProvider(
        ProviderSettings(
            model=model,
            base_url=fake.base_url if fake else "http://127.0.0.1:9",
            api_key=Secret(fake.key if fake else API_KEY),
            own=own,
        )
    )


def generate(
    provider: Provider,
    tool_choice: ToolChoice | None = FORCED,
    options: GenerateOptions = CACHED,
    conversation: list[Message] | None = None,
    tools: tuple[ToolSpec, ...] = CATALOG.specs,
) -> Answer:
    async def ask() -> Answer:
        try:
            return await provider.generate(conversation or messages(), tools, tool_choice, options)
        finally:
            await provider.aclose()

    return anyio.run(ask)


def sent(fake: FakeAnthropic | FakeOpenAI, provider: Provider, *args: object, **kwargs: object) -> Any:
    """The body ``provider.generate`` sent (through the fake API, which checks it as the real one does)."""
    generate(provider, *args, **kwargs)  # type: ignore[arg-type]
    return fake.requests[-1].json


# -- Anthropic ---------------------------------------------------------------------------------


def test_anthropic_body_forces_a_call_and_marks_the_catalog_and_system_prompt_for_caching() -> None:
    safe = CATALOG.names.provider("tickets.search")
    assert safe != "tickets.search" and safe.startswith("tickets_search")

    with FakeAnthropic() as fake:
        body = sent(fake, anthropic(fake))

    assert body == {
        "model": "claude-opus-4-8",
        "max_tokens": 1024,
        "tools": [
            {"name": safe, "description": "Find tickets by words.", "input_schema": SEARCH_SCHEMA},
            {
                "name": "get_ticket",
                "description": "One ticket by id.",
                "input_schema": {
                    "type": "object",
                    "properties": {"ticket_id": {"type": "string"}},
                    "required": ["ticket_id"],
                },
            },
            # no description → none sent; a schema without "type" gets the object type the API requires
            {
                "name": "refund",
                "input_schema": {"type": "object", "properties": {}},
                "cache_control": {"type": "ephemeral"},
            },
        ],
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "tool_choice": {"type": "any"},
        "messages": [{"role": "user", "content": "Find the tickets about webhooks"}],
    }


def test_anthropic_tool_choices_and_which_fixtures_force_a_call() -> None:
    with FakeAnthropic() as fake:
        assert sent(fake, anthropic(fake), AUTO)["tool_choice"] == {"type": "auto"}
        assert sent(fake, anthropic(fake), ToolChoice("tool", "get_ticket"))["tool_choice"] == {
            "type": "tool",
            "name": "get_ticket",
        }
        assert "tool_choice" not in sent(fake, anthropic(fake), None)  # none sent: the API's default
    asker = Asker(anthropic(), CATALOG, SYSTEM)
    assert asker.mode_for(REFUSE, forced_rejected=False) == "auto"
    assert asker.mode_for(SELECT, forced_rejected=False) == "forced"
    assert asker.mode_for(SELECT, forced_rejected=True) == "auto_instructed"
    assert Asker(anthropic(model="claude-opus-5-5"), CATALOG).mode_for(SELECT, forced_rejected=False) == (
        "auto_instructed"  # a model known to refuse forced tool use
    )
    assert ToolChoice.of("auto_instructed") == INSTRUCTED and INSTRUCTED.mode == "auto_instructed"
    assert ToolChoice.of("forced") == FORCED and FORCED.mode == "forced" and ToolChoice.of(None) is None


def test_the_cached_prefix_is_byte_identical_across_requests_and_tool_choices() -> None:
    with FakeAnthropic() as fake:
        provider = anthropic(fake)
        for query, choice in ((SELECT.query, FORCED), (REFUSE.query, AUTO), (SELECT.query, INSTRUCTED)):
            generate(provider, choice, conversation=messages(query))
        bodies = [request.body for request in fake.requests]
    tools = bodies[0][bodies[0].index(b'"tools":') : bodies[0].index(b',"system":')]
    system = json.dumps(json.loads(bodies[0])["system"], separators=(",", ":")).encode()
    for body in bodies:
        assert tools in body and system[:-1] in body
    # The fallback instruction comes after the cached system block, so the prefix up to it is unchanged.
    instructed = json.loads(bodies[2])
    assert instructed["system"] == [
        {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": ONE_TOOL_INSTRUCTION},
    ]
    assert instructed["tool_choice"] == {"type": "auto"}


def test_without_prompt_caching_no_cache_control_is_sent() -> None:
    with FakeAnthropic() as fake:
        body = sent(fake, anthropic(fake), FORCED, GenerateOptions(cache="off"))
    assert all("cache_control" not in tool for tool in body["tools"])
    assert "cache_control" not in body["system"][0]


def test_temperature_is_only_sent_where_the_api_accepts_it() -> None:
    warm = GenerateOptions(temperature=0.0, cache="prefix")
    with FakeAnthropic() as fake:
        assert sent(fake, anthropic(fake), FORCED, warm)["temperature"] == 0.0
        newer = anthropic(fake, anthropic_version="2026-10-21")
        assert "temperature" not in sent(fake, newer, FORCED, warm)  # the fake refuses it with a 400
        assert "temperature 0.0 was not sent" in newer.notes(warm)[0]
        thinking = anthropic(fake, model="claude-opus-5-5")
        assert "temperature" not in sent(fake, thinking, AUTO, GenerateOptions(temperature=0.2))
    assert anthropic().notes(GenerateOptions(temperature=0.5)) == []


def test_anthropic_headers_carry_the_key_and_version_and_names_map_back() -> None:
    with FakeAnthropic() as fake:
        provider = anthropic(fake, anthropic_version="2026-10-21")
        safe = CATALOG.names.provider("tickets.search")
        fake.answers[SELECT.query] = [
            Says("Searching."),
            Call(safe, {"query": "webhooks"}),
            Call("no_such_tool"),
        ]
        answer = CATALOG.names.resolve(generate(provider, options=GenerateOptions(temperature=0.5)))
        request = fake.requests[-1]
    assert request.headers["x-api-key"] == API_KEY
    assert request.headers["anthropic-version"] == "2026-10-21"
    assert request.headers["content-type"] == "application/json"
    assert API_KEY.encode() not in request.body
    assert [call.name for call in answer.calls] == ["tickets.search", "no_such_tool"]
    assert answer.calls[0].provider_name == safe and answer.calls[0].arguments == {"query": "webhooks"}
    assert answer.calls[1].known is False
    assert answer.text == "Searching." and answer.stop_reason == "tool_use"
    assert answer.request_id and answer.request_id.startswith("req_")
    assert answer.message is not None and [use.name for use in answer.message.tool_uses] == [
        safe,
        "no_such_tool",
    ]


def test_thinking_blocks_before_tool_use_are_skipped_by_type() -> None:
    message = {
        "type": "message",
        "content": [
            {"type": "thinking", "thinking": "Which tool…", "signature": "abc"},
            {"type": "redacted_thinking", "data": "xyz"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_ticket", "input": {"ticket_id": "T-1"}},
        ],
        "stop_reason": "tool_use",
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": None,
        },
    }
    answer = anthropic_api.parse_response(
        200, {"request-id": "req_9"}, json.dumps(message).encode(), CATALOG.specs
    )
    assert [(call.name, call.arguments) for call in answer.calls] == [("get_ticket", {"ticket_id": "T-1"})]
    assert answer.usage.cache_write_tokens == 100 and answer.usage.cache_read_tokens == 0
    assert answer.request_id == "req_9"
    assert answer.message is not None and answer.message.raw == message["content"]  # sent back as it is


@pytest.mark.parametrize(
    ("status", "error_type", "message", "headers", "expected"),
    [
        (429, "rate_limit_error", "slow down", {"retry-after": "7"}, ("rate_limited", True, 7.0)),
        (529, "overloaded_error", "Overloaded", {}, ("overloaded", True, None)),
        (500, "api_error", "Internal", {}, ("server_error", True, None)),
        (503, "", "", {}, ("overloaded", True, None)),
        (504, "timeout_error", "timeout", {}, ("timeout", True, None)),
        (401, "authentication_error", "invalid x-api-key", {}, ("auth", False, None)),
        (403, "permission_error", "no access", {}, ("auth", False, None)),
        (404, "not_found_error", "model: claude-nope", {}, ("not_found", False, None)),
        (
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the API",
            {},
            ("billing", False, None),
        ),
        (402, "billing_error", "payment required", {}, ("billing", False, None)),
        (400, "invalid_request_error", "tools.0.input_schema: bad", {}, ("invalid_request", False, None)),
        (500, "api_error", "Internal", {"x-should-retry": "false"}, ("server_error", False, None)),
    ],
)
def test_anthropic_errors_are_classified(
    status: int,
    error_type: str,
    message: str,
    headers: dict[str, str],
    expected: tuple[str, bool, float | None],
) -> None:
    body = json.dumps(
        {"type": "error", "error": {"type": error_type, "message": message}, "request_id": "req_e"}
    )
    failure = anthropic_api.classify_response(status, headers, body.encode())
    assert (failure.kind, failure.transient, failure.retry_after) == expected
    assert failure.request_id == "req_e"
    assert failure.stops_run is (not expected[1])


def test_a_rejected_forced_tool_choice_is_recognised() -> None:
    with FakeAnthropic() as fake, pytest.raises(ProviderFailure) as raised:
        generate(anthropic(fake, model="claude-opus-5-5"), FORCED)
    assert raised.value.rejects_forced_tool_choice and raised.value.kind == "invalid_request"


def test_a_non_json_success_body_is_a_transient_invalid_response() -> None:
    with pytest.raises(ProviderFailure) as caught:
        anthropic_api.parse_response(200, {}, b'{"content": [', CATALOG.specs)
    assert caught.value.kind == "invalid_response" and caught.value.transient


def test_retry_after_in_seconds_milliseconds_or_as_a_date() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"Retry-After": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    now = datetime(2026, 11, 1, 12, 0, 0, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now.timestamp()) == pytest.approx(30)
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_the_key_is_masked_in_reprs_and_scrubbed_from_messages() -> None:
    secret = Secret("sk-ant-secret-value")
    assert "sk-ant" not in repr(secret) and "sk-ant" not in str(secret)
    assert secret.scrub("bad key sk-ant-secret-value") == "bad key ***"
    settings = ProviderSettings(model="m", api_key=secret)
    assert "sk-ant" not in repr(settings)
    # httpx shows a bad header value as bytes: the escaped form is scrubbed too
    spaced = Secret("sk-ant-secret-value\n")
    assert spaced.scrub("Illegal header value b'sk-ant-secret-value\\n'") == "Illegal header value b'***'"


def test_a_key_from_the_environment_is_trimmed_and_one_no_header_can_carry_is_refused() -> None:
    assert Secret.from_environ({"K": "  sk-ant-abc\n"}, "K").reveal() == "sk-ant-abc"  # type: ignore[union-attr]
    assert Secret.from_environ({"K": " "}, "K") is None and Secret.from_environ({}, "K") is None
    with pytest.raises(ConfigError) as raised:
        Secret.from_environ({"K": "sk-ant-abc…"}, "K")
    assert "K holds characters" in str(raised.value) and "sk-ant-abc" not in str(raised.value)


def test_a_request_that_cannot_be_sent_is_fatal_and_never_shows_the_key() -> None:
    with FakeAnthropic() as fake:
        provider = AnthropicProvider(
            ProviderSettings(
                model="claude-opus-4-8", base_url=fake.base_url, api_key=Secret("sk-ant-secret\nvalue")
            )
        )
        with pytest.raises(ProviderFailure) as raised:
            generate(provider)
        assert not fake.requests
    failure = raised.value
    assert not failure.transient and failure.stops_run and failure.kind == "invalid_request"
    assert "secret" not in failure.message and "***" in failure.message


# -- OpenAI-compatible -------------------------------------------------------------------------


def openai(fake: FakeOpenAI | None = None, model: str = "gpt-4.1") -> OpenAIProvider:
    base_url = f"{fake.base_url}/v1" if fake else "http://127.0.0.1:9"
    return OpenAIProvider(
        ProviderSettings(model=model, base_url=base_url, api_key=Secret(fake.key or "") if fake else None)
    )


def test_openai_body_uses_functions_and_required_tool_choice() -> None:
    safe = CATALOG.names.provider("tickets.search")
    with FakeOpenAI() as fake:
        body = sent(fake, openai(fake), FORCED, GenerateOptions(temperature=0.0))
        assert body["model"] == "gpt-4.1" and body["max_tokens"] == 1024 and body["temperature"] == 0.0
        assert body["tool_choice"] == "required"
        assert body["tools"][0] == {
            "type": "function",
            "function": {"name": safe, "description": "Find tickets by words.", "parameters": SEARCH_SCHEMA},
        }
        assert body["messages"] == [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": SELECT.query},
        ]
        assert sent(fake, openai(fake), AUTO)["tool_choice"] == "auto"
        named = sent(fake, openai(fake), ToolChoice("tool", "get_ticket"))["tool_choice"]
        assert named == {"type": "function", "function": {"name": "get_ticket"}}
        instructed = sent(fake, openai(fake), INSTRUCTED)
    assert instructed["messages"] == [  # one system message, so the tools+system prefix never changes
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{SELECT.query}\n\n{ONE_TOOL_INSTRUCTION}"},
    ]
    assert instructed["tool_choice"] == "auto"


def test_reasoning_models_get_max_completion_tokens_and_no_temperature() -> None:
    options = GenerateOptions(temperature=0.0)
    with FakeOpenAI() as fake:  # the fake refuses max_tokens and temperature for reasoning models
        body = sent(fake, openai(fake, "gpt-5.4"), FORCED, options)
    assert body["max_completion_tokens"] == 1024 and "max_tokens" not in body and "temperature" not in body
    assert "temperature 0.0 was not sent" in openai(model="gpt-5.4").notes(options)[0]


def test_openai_arguments_arrive_as_a_string_and_invalid_json_is_kept_not_fatal() -> None:
    with FakeOpenAI() as fake:
        fake.answers[SELECT.query] = [
            RawArguments("get_ticket", '{"ticket_id": "T-1"'),
            RawArguments("get_ticket", '{"ticket_id": "T-2"}'),
        ]
        answer = generate(openai(fake, "gpt-5.4"))
        request = fake.requests[-1]
    assert request.headers["authorization"] == f"Bearer {fake.key}"
    first, second = answer.calls
    assert (
        first.name == "get_ticket"
        and first.arguments is None
        and first.raw_arguments == '{"ticket_id": "T-1"'
    )
    assert second.arguments == {"ticket_id": "T-2"} and second.raw_arguments is None
    assert answer.request_id is not None and answer.request_id.startswith("req_")


def test_openai_cached_tokens_are_part_of_prompt_tokens() -> None:
    body = {
        "choices": [{"message": {"role": "assistant", "content": "no"}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": 2000,
            "completion_tokens": 5,
            "prompt_tokens_details": {"cached_tokens": 1536},
        },
    }
    answer = openai_api.parse_response(200, {"x-request-id": "r"}, json.dumps(body).encode(), CATALOG.specs)
    assert (answer.usage.input_tokens, answer.usage.cache_read_tokens, answer.usage.output_tokens) == (
        464,
        1536,
        5,
    )
    assert answer.usage.total_input == 2000 and answer.calls == [] and answer.text == "no"


@pytest.mark.parametrize(
    ("status", "error", "expected"),
    [
        (
            429,
            {"message": "quota", "type": "insufficient_quota", "code": "insufficient_quota"},
            ("billing", False),
        ),
        (
            429,
            {"message": "Rate limit", "type": "requests", "code": "rate_limit_exceeded"},
            ("rate_limited", True),
        ),
        (
            401,
            {"message": "Incorrect API key", "type": "invalid_request_error", "code": "invalid_api_key"},
            ("auth", False),
        ),
        (
            404,
            {"message": "no model", "type": "invalid_request_error", "code": "model_not_found"},
            ("not_found", False),
        ),
        (
            400,
            {"message": "Invalid schema for function 'x'", "type": "invalid_request_error"},
            ("invalid_request", False),
        ),
        (500, {"message": "oops", "type": "server_error"}, ("server_error", True)),
    ],
)
def test_openai_errors_are_classified(status: int, error: dict[str, str], expected: tuple[str, bool]) -> None:
    failure = openai_api.classify_response(
        status, {"x-request-id": "req_x"}, json.dumps({"error": error}).encode()
    )
    assert (failure.kind, failure.transient) == expected
    assert failure.request_id == "req_x"


def test_an_openai_compatible_500_to_a_forced_request_is_a_forced_tool_rejection() -> None:
    # llama-cpp-python's server crashes on tool_choice "required": an empty 500 (see test_llama_cpp.py)
    body = json.dumps({"error": {"message": "", "type": "internal_server_error"}}).encode()
    forced = openai_api.classify_response(500, {}, body, FORCED)
    assert forced.rejects_forced_tool_choice and not forced.transient and forced.status == 500
    assert forced.message == 'HTTP 500 internal_server_error: in answer to tool_choice "required"'
    for choice in (AUTO, INSTRUCTED, None):  # not forced: an ordinary server error, retried
        failure = openai_api.classify_response(500, {}, body, choice)
        assert not failure.rejects_forced_tool_choice and failure.transient


def test_both_apis_carry_a_conversation_of_tool_results_from_the_same_messages() -> None:
    # The neutral messages of a two-step conversation, as compare's arms and sessions build them.
    first_call = ToolUse("call_1", "get_ticket", {"ticket_id": "T-1"})
    conversation = [
        *messages(),
        Message.assistant([Text("Looking."), first_call]),
        Message.user([ToolResult("call_1", "T-1 is open")]),
    ]
    with FakeAnthropic() as fake:  # the fakes refuse a tool result that answers no call (a 400)
        body = sent(fake, anthropic(fake), AUTO, conversation=conversation)
    assert body["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "call_1", "name": "get_ticket", "input": {"ticket_id": "T-1"}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "T-1 is open"}],
        },
    ]
    with FakeOpenAI() as fake:
        body = sent(fake, openai(fake), AUTO, conversation=conversation)
    assert body["messages"][2:] == [
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_ticket", "arguments": '{"ticket_id": "T-1"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "T-1 is open"},
    ]


def test_extras_are_added_to_the_body_as_they_are() -> None:
    extras = GenerateOptions(extras={"metadata": {"user_id": "eval"}})
    with FakeAnthropic() as fake:
        assert sent(fake, anthropic(fake), AUTO, extras)["metadata"] == {"user_id": "eval"}
    with FakeOpenAI() as fake:
        assert sent(fake, openai(fake), AUTO, GenerateOptions(extras={"seed": 7}))["seed"] == 7


# -- the lexical baseline ----------------------------------------------------------------------


def test_the_lexical_baseline_picks_by_words_and_refuses_below_its_threshold() -> None:
    provider = LexicalProvider(ProviderSettings(model="bm25", own={"lexical_strictness": 1.0}))
    assert provider.lexical and not provider.uses_network
    found = CATALOG.names.resolve(generate(provider, None))
    assert [call.name for call in found.calls] == ["tickets.search"]
    assert found.text.startswith("lexical baseline:")
    declined = generate(provider, None, conversation=messages("Bake a cake"))
    assert declined.calls == [] and "no word of the query is in the catalog" in declined.text
    again = CATALOG.names.resolve(generate(provider, None))
    assert again.calls == found.calls and again.text == found.text  # deterministic


ODD_USAGE = [
    {"input_tokens": "many", "output_tokens": 3},
    {"input_tokens": 10, "output_tokens": -5},
    {"input_tokens": 1.5},
    {"input_tokens": True},
    {"cache_read_input_tokens": [1]},
]


@pytest.mark.parametrize("usage", ODD_USAGE)
def test_anthropic_odd_usage_is_a_transient_invalid_response(usage: dict[str, object]) -> None:
    body = {"content": [{"type": "tool_use", "id": "t", "name": "get_ticket", "input": {}}], "usage": usage}
    with pytest.raises(ProviderFailure) as caught:
        anthropic_api.parse_response(200, {}, json.dumps(body).encode(), CATALOG.specs)
    assert caught.value.kind == "invalid_response" and caught.value.transient


@pytest.mark.parametrize(
    "body",
    [
        {"choices": [{"message": None, "finish_reason": "stop"}]},
        {"choices": [{"message": {"tool_calls": {"id": "x"}}, "finish_reason": "tool_calls"}]},
        {"choices": [{"message": {"tool_calls": ["not a call"]}, "finish_reason": "tool_calls"}]},
        {"choices": [{"message": {"content": "hi"}}], "usage": {"prompt_tokens": "lots"}},
        {"choices": [{"message": {}}], "usage": {"prompt_tokens_details": {"cached_tokens": -1}}},
    ],
)
def test_openai_malformed_answers_are_dropouts_never_missed_actions(body: dict[str, object]) -> None:
    with pytest.raises(ProviderFailure) as caught:
        openai_api.parse_response(200, {}, json.dumps(body).encode(), CATALOG.specs)
    assert caught.value.kind == "invalid_response" and caught.value.transient


def test_anthropic_a_content_block_that_is_not_an_object_is_malformed() -> None:
    body = {"content": ["tool_use"], "usage": {"input_tokens": 1, "output_tokens": 1}}
    with pytest.raises(ProviderFailure) as caught:
        anthropic_api.parse_response(200, {}, json.dumps(body).encode(), CATALOG.specs)
    assert caught.value.kind == "invalid_response"
