"""Sessions' turn methods: several turns of tool use in each API's own shape, parsed back, answered."""

from __future__ import annotations

import json

import anyio
import pytest

from fakes.fake_anthropic import Call, FakeAnthropic, Text
from fakes.fake_anthropic import conversation_problem as anthropic_problem
from fakes.fake_openai import Call as OpenAICall
from fakes.fake_openai import FakeOpenAI, RawArguments
from fakes.fake_openai import conversation_problem as openai_problem
from mcp_evals.providers.anthropic import AnthropicProvider
from mcp_evals.providers.base import ProviderSettings, Secret
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.openai import OpenAIProvider
from mcp_evals.providers.turns import TurnResult

from .test_providers import SYSTEM, small_catalog

IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
LINK = {"type": "resource_link", "uri": "file:///kb/104", "name": "KB-104"}


def anthropic(fake: FakeAnthropic | None = None, caching: bool = True) -> AnthropicProvider:
    settings = ProviderSettings(
        model="claude-sonnet-4-6",
        base_url=fake.base_url if fake else "http://127.0.0.1:9",
        api_key=Secret(fake.key if fake else "k"),
        prompt_caching=caching,
    )
    return AnthropicProvider(settings, small_catalog(), SYSTEM)


def openai(fake: FakeOpenAI | None = None) -> OpenAIProvider:
    assert fake is None or fake.key is not None
    settings = ProviderSettings(
        model="gpt-4.1",
        base_url=f"{fake.base_url}/v1" if fake else "http://127.0.0.1:9",
        api_key=Secret(fake.key if fake and fake.key else "k"),
    )
    return OpenAIProvider(settings, small_catalog(), SYSTEM)


def test_anthropic_caches_the_tools_the_system_prompt_and_the_conversation_so_far() -> None:
    provider = anthropic()
    messages = provider.opening_turn("Find the duplicate charge.")
    body = provider.build_turn_request(messages).json()
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
    assert "tool_choice" not in body  # auto: the model decides when it is done
    assert messages == [{"role": "user", "content": "Find the duplicate charge."}]  # not modified
    plain = anthropic(caching=False).build_turn_request(messages).json()
    assert "cache_control" not in json.dumps(plain)


def test_anthropic_parses_every_tool_use_with_its_id_and_answers_each_in_order() -> None:
    provider = anthropic()
    content = [
        {"type": "thinking", "thinking": "…", "signature": "s"},
        {"type": "text", "text": "Looking both up."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_ticket", "input": {"ticket_id": "T-1"}},
        {"type": "tool_use", "id": "toolu_2", "name": "tickets_search", "input": "not an object"},
    ]
    body = {"content": content, "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}}
    turn = provider.parse_turn(200, {"request-id": "req_1"}, json.dumps(body).encode())
    assert [(call.id, call.call.name) for call in turn.calls] == [
        ("toolu_1", "get_ticket"),
        ("toolu_2", "tickets.search"),
    ]
    assert turn.calls[1].call.arguments is None and turn.calls[1].call.raw_arguments == '"not an object"'
    assert turn.text == "Looking both up." and turn.usage.output_tokens == 5 and turn.request_id == "req_1"
    results = [
        TurnResult("toolu_1", [{"type": "text", "text": "{}"}, IMAGE, LINK], is_error=False),
        TurnResult("toolu_2", [{"type": "text", "text": "bad arguments"}], is_error=True),
    ]
    assistant, user = provider.tool_results_turn(turn, results)
    assert assistant == {"role": "assistant", "content": content}  # thinking and signature kept
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
    assert anthropic_problem([{"role": "user", "content": "q"}, assistant, user]) is None


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
        anthropic().parse_turn(200, {}, body)
    assert caught.value.kind == "invalid_response" and caught.value.transient


def test_openai_turns_fill_in_missing_ids_and_keep_bad_arguments_raw() -> None:
    provider = openai()
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
    turn = provider.parse_turn(200, {}, json.dumps(body).encode())
    assert [call.id for call in turn.calls] == ["call_0", "call_b"]
    assert turn.calls[1].call.arguments is None and turn.calls[1].call.raw_arguments == "{oops"
    assistant, *tools = provider.tool_results_turn(
        turn,
        [
            TurnResult("call_0", [{"type": "text", "text": "line 1"}, {"type": "text", "text": "line 2"}]),
            TurnResult("call_b", [{"type": "text", "text": "not JSON"}, LINK], is_error=True),
        ],
    )
    assert assistant["tool_calls"][0]["id"] == "call_0" and "refusal" not in assistant
    assert tools == [
        {"role": "tool", "tool_call_id": "call_0", "content": "line 1\nline 2"},
        {
            "role": "tool",
            "tool_call_id": "call_b",
            "content": "not JSON\n" + json.dumps(LINK, separators=(",", ":")),
        },
    ]
    assert openai_problem([{"role": "user", "content": "q"}, assistant, *tools]) is None
    request = provider.build_turn_request([{"role": "user", "content": "q"}, assistant, *tools]).json()
    assert request["messages"][0] == {"role": "system", "content": SYSTEM}
    assert [message["role"] for message in request["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
    ]
    assert "tool_choice" not in request


@pytest.mark.parametrize("make", [anthropic, openai], ids=["anthropic", "openai"])
def test_a_scripted_turn_is_a_turn_the_api_would_accept_back(make: object) -> None:
    provider = make()  # type: ignore[operator]
    turn = provider.scripted_turn([("call_001", "tickets.search", {"query": "twice"})])
    assert [(call.id, call.call.name, call.call.provider_name) for call in turn.calls] == [
        ("call_001", "tickets.search", "tickets_search")
    ]
    messages = [*provider.opening_turn("q"), *provider.tool_results_turn(turn, [TurnResult("call_001", [])])]
    check = anthropic_problem if isinstance(provider, AnthropicProvider) else openai_problem
    assert check(messages) is None
    final = provider.scripted_turn([], "All done.")
    assert final.calls == [] and final.text == "All done."


def test_three_turns_against_each_fake_api() -> None:
    """The methods together, over HTTP, against fakes that refuse what the real APIs refuse."""

    async def converse(provider: AnthropicProvider | OpenAIProvider) -> list[str]:
        messages = provider.opening_turn("session one")
        seen = []
        try:
            for _ in range(3):
                turn = await provider.send_turn(provider.build_turn_request(messages))
                seen.append(",".join(call.call.name for call in turn.calls) or turn.text)
                if not turn.calls:
                    break
                results = [TurnResult(call.id, [{"type": "text", "text": "ok"}]) for call in turn.calls]
                messages += provider.tool_results_turn(turn, results)
        finally:
            await provider.aclose()
        return seen

    with FakeAnthropic() as fake_a, FakeOpenAI() as fake_o:
        assert isinstance(fake_a, FakeAnthropic) and isinstance(fake_o, FakeOpenAI)
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
