"""Conversations: several turns of tool use as neutral messages, in each API's own shape on the wire,
parsed back (with the ids results must carry), answered."""

from __future__ import annotations

import json

import anyio
import pytest

from fakes.fake_anthropic import Call, FakeAnthropic, Text
from fakes.fake_openai import Call as OpenAICall
from fakes.fake_openai import FakeOpenAI, RawArguments
from mcp_evals.answers import Answer, GenerateOptions, Message, ToolResult, ToolUse
from mcp_evals.providers import anthropic as anthropic_api
from mcp_evals.providers import openai as openai_api
from mcp_evals.providers.anthropic import AnthropicProvider
from mcp_evals.providers.base import Provider, ProviderSettings, Secret
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.openai import OpenAIProvider

from .test_providers import SYSTEM, small_catalog

IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
LINK = {"type": "resource_link", "uri": "file:///kb/104", "name": "KB-104"}
CATALOG = small_catalog()
CONVERSATION = GenerateOptions(cache="conversation")


def anthropic(fake: FakeAnthropic) -> AnthropicProvider:
    settings = ProviderSettings(model="claude-sonnet-4-6", base_url=fake.base_url, api_key=Secret(fake.key))
    return AnthropicProvider(settings)


def openai(fake: FakeOpenAI) -> OpenAIProvider:
    settings = ProviderSettings(
        model="gpt-4.1", base_url=f"{fake.base_url}/v1", api_key=Secret(fake.key or "")
    )
    return OpenAIProvider(settings)


def ask(provider: Provider, messages: list[Message], options: GenerateOptions = CONVERSATION) -> Answer:
    async def go() -> Answer:
        try:
            return await provider.generate(messages, CATALOG.specs, None, options)
        finally:
            await provider.aclose()

    return anyio.run(go)


def opening(prompt: str = "Find the duplicate charge.") -> list[Message]:
    return [Message.system(SYSTEM), Message.user(prompt)]


def test_anthropic_caches_the_tools_the_system_prompt_and_the_conversation_so_far() -> None:
    messages = opening()
    with FakeAnthropic() as fake:
        ask(anthropic(fake), messages)
        body = fake.requests[-1].json
        ask(anthropic(fake), messages, GenerateOptions(cache="off"))
        plain = fake.requests[-1].json
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Find the duplicate charge.", "cache_control": {"type": "ephemeral"}}
            ],
        }
    ]
    assert "tool_choice" not in body  # no tool choice: the model decides when it is done
    assert messages == opening()  # not modified
    assert "cache_control" not in json.dumps(plain)


def test_anthropic_parses_every_tool_use_with_its_id_and_answers_each_in_order() -> None:
    content = [
        {"type": "thinking", "thinking": "…", "signature": "s"},
        {"type": "text", "text": "Looking both up."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_ticket", "input": {"ticket_id": "T-1"}},
        {"type": "tool_use", "id": "toolu_2", "name": "tickets_search", "input": "not an object"},
    ]
    body = {"content": content, "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}}
    turn = anthropic_api.parse_response(
        200, {"request-id": "req_1"}, json.dumps(body).encode(), CATALOG.specs
    )
    turn = CATALOG.names.resolve(turn)
    assert turn.message is not None
    assert [(use.id, call.name) for use, call in zip(turn.message.tool_uses, turn.calls, strict=True)] == [
        ("toolu_1", "get_ticket"),
        ("toolu_2", "tickets.search"),
    ]
    assert turn.calls[1].arguments is None and turn.calls[1].raw_arguments == '"not an object"'
    assert turn.text == "Looking both up." and turn.usage.output_tokens == 5 and turn.request_id == "req_1"
    results = [
        ToolResult("toolu_1", [{"type": "text", "text": "{}"}, IMAGE, LINK], is_error=False),
        ToolResult("toolu_2", [{"type": "text", "text": "bad arguments"}], is_error=True),
    ]
    with FakeAnthropic() as fake:  # it refuses results that do not answer the turn before (a 400)
        ask(anthropic(fake), [*opening("q"), turn.message, Message.user(results)])
        _, assistant, user = fake.requests[-1].json["messages"]
    assert assistant == {"role": "assistant", "content": content}  # thinking and signature kept
    user["content"][-1].pop("cache_control")  # the conversation's newest block is the cache breakpoint
    assert user["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [
                {"type": "text", "text": "{}"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": IMAGE["data"]},
                },
                {"type": "text", "text": json.dumps(LINK, separators=(",", ":"))},
            ],
        },
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": [{"type": "text", "text": "bad arguments"}],
            "is_error": True,
        },
    ]


@pytest.mark.parametrize(
    "body",
    [
        b"<html>502</html>",
        b'{"content": "not a list"}',
        b'{"content": [{"type": "tool_use", "name": "get_ticket", "input": {}}]}',
        b'{"content": [], "usage": {"input_tokens": "many"}}',
    ],
    ids=["not json", "no content list", "tool_use without id", "usage"],
)
def test_anthropic_a_malformed_turn_is_a_transient_failure_never_a_crash(body: bytes) -> None:
    with pytest.raises(ProviderFailure) as caught:
        anthropic_api.parse_response(200, {}, body, CATALOG.specs)
    assert caught.value.kind == "invalid_response" and caught.value.transient


def test_openai_turns_fill_in_missing_ids_and_keep_bad_arguments_raw() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "refusal": None,
        "tool_calls": [
            {"type": "function", "function": {"name": "get_ticket", "arguments": '{"ticket_id": "T-1"}'}},
            {"id": "call_b", "type": "function", "function": {"name": "refund", "arguments": "{oops"}},
        ],
    }
    body = {"choices": [{"message": message, "finish_reason": "tool_calls"}], "usage": {}}
    turn = openai_api.parse_response(200, {}, json.dumps(body).encode(), CATALOG.specs)
    assert turn.message is not None
    assert [use.id for use in turn.message.tool_uses] == ["call_0", "call_b"]
    assert turn.calls[1].arguments is None and turn.calls[1].raw_arguments == "{oops"
    results = [
        ToolResult("call_0", [{"type": "text", "text": "line 1"}, {"type": "text", "text": "line 2"}]),
        ToolResult("call_b", [{"type": "text", "text": "not JSON"}, LINK], is_error=True),
    ]
    with FakeOpenAI() as fake:  # it refuses tool messages that answer no call of the turn before (a 400)
        ask(openai(fake), [*opening("q"), turn.message, Message.user(results)])
        request = fake.requests[-1].json
    system, user, assistant, *tools = request["messages"]
    assert system == {"role": "system", "content": SYSTEM} and user == {"role": "user", "content": "q"}
    assert assistant["tool_calls"][0]["id"] == "call_0" and "refusal" not in assistant
    assert tools == [
        {"role": "tool", "tool_call_id": "call_0", "content": "line 1\nline 2"},
        {
            "role": "tool",
            "tool_call_id": "call_b",
            "content": "not JSON\n" + json.dumps(LINK, separators=(",", ":")),
        },
    ]
    assert "tool_choice" not in request


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_a_scripted_turn_is_a_turn_the_api_would_accept_back(api: str) -> None:
    """``session --dry`` plays scripts with assistant messages nobody asked a model for."""
    safe = CATALOG.names.provider("tickets.search")
    scripted = Message.assistant([ToolUse("call_001", safe, {"query": "twice"})])
    conversation = [*opening("q"), scripted, Message.user([ToolResult("call_001", [])])]
    with FakeAnthropic() as fake_a, FakeOpenAI() as fake_o:
        provider = anthropic(fake_a) if api == "anthropic" else openai(fake_o)
        answer = ask(provider, conversation)  # the fake refuses a conversation the API would refuse
    assert answer.stop_reason in ("end_turn", "stop")


def test_three_turns_against_each_fake_api() -> None:
    """Turns together, over HTTP, against fakes that refuse what the real APIs refuse."""

    async def converse(provider: AnthropicProvider | OpenAIProvider) -> list[str]:
        messages = opening("session one")
        seen = []
        try:
            for _ in range(3):
                turn = CATALOG.names.resolve(
                    await provider.generate(messages, CATALOG.specs, None, CONVERSATION)
                )
                seen.append(",".join(call.name for call in turn.calls) or turn.text)
                if not turn.calls or turn.message is None:
                    break
                results = [
                    ToolResult(use.id, [{"type": "text", "text": "ok"}]) for use in turn.message.tool_uses
                ]
                messages += [turn.message, Message.user(results)]
        finally:
            await provider.aclose()
        return seen

    with FakeAnthropic() as fake_a, FakeOpenAI() as fake_o:
        fake_a.sessions["session one"] = [
            [Call("get_ticket", {"ticket_id": "T-1"}), Call("tickets_search", {"query": "x"})],
            Call("get_ticket", {"ticket_id": "T-2"}),
            Text("Both found."),
        ]
        fake_o.sessions["session one"] = [
            [OpenAICall("get_ticket", {"ticket_id": "T-1"}), RawArguments("refund", "{")],
            Text("Done."),
        ]
        assert anyio.run(converse, anthropic(fake_a)) == [
            "get_ticket,tickets.search",
            "get_ticket",
            "Both found.",
        ]
        assert anyio.run(converse, openai(fake_o)) == ["get_ticket,refund", "Done."]
        assert len(fake_a.model_requests()) == 3 and len(fake_o.model_requests()) == 2
