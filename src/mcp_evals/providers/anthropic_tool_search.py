"""Anthropic's tool search: every catalog tool deferred behind one server-side search tool.

The request carries every catalog tool with ``defer_loading: true`` and ONE search tool that is never
deferred (``tool_search_tool_bm25_20251119`` or ``tool_search_tool_regex_20251119``). The model sees
only the search tool; the API runs its searches and shows it the tools they reveal. The answer holds,
before the model's own ``tool_use``, a ``server_tool_use`` block (what it searched for) and a
``tool_search_tool_result`` block (``tool_references`` to the tools revealed). Those server tools
need no ``tool_result`` from us. A long server-side turn may stop with ``stop_reason: pause_turn``:
the conversation goes back as it is, and the model carries on.

Prompt caching keeps working: deferred tools are not part of the prompt prefix, so ``cache_control``
sits on the search tool (the last tool) and on the system prompt, the stable prefix of every request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcp_evals.answers import (
    Answer,
    GenerateOptions,
    Message,
    Retrieval,
    ToolCall,
    ToolChoice,
    ToolSpec,
    Usage,
)

if TYPE_CHECKING:
    from mcp_evals.providers.anthropic import AnthropicProvider

SEARCH_TOOLS = {
    "bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
}
# Continuations of a paused turn before the answer is taken as it stands.
MAX_CONTINUATIONS = 2


def _references(content: Any) -> list[str]:
    """Tool names in a search result: ``{"tool_references": [...]}`` or a list of ``tool_reference``."""
    if isinstance(content, dict):
        content = content.get("tool_references")
    if not isinstance(content, list):
        return []  # an error result (tool_search_tool_result_error) reveals nothing
    return [
        str(item["tool_name"])
        for item in content
        if isinstance(item, dict) and item.get("type") == "tool_reference" and "tool_name" in item
    ]


def read_searches(blocks: list[Any]) -> tuple[list[str], list[str]]:
    """(what the model searched for, the tools revealed, as the model sees their names) from an
    answer's content blocks."""
    searches: list[str] = []
    revealed: list[str] = []
    search_ids: set[str] = set()
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "server_tool_use":
            search_ids.add(str(block.get("id", "")))
            given = block.get("input")
            given = given if isinstance(given, dict) else {}
            text = given.get("query", given.get("pattern", ""))
            searches.append(text if isinstance(text, str) else str(text))
        elif kind == "tool_search_tool_result" or (
            kind == "tool_result" and str(block.get("tool_use_id", "")) in search_ids
        ):
            for name in _references(block.get("content")):
                if name not in revealed:
                    revealed.append(name)
    return searches, revealed


async def answer_with_tool_search(
    provider: AnthropicProvider,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    tool_choice: ToolChoice | None,
    options: GenerateOptions,
) -> Answer:
    """Ask with the deferred tools behind the search tool; the first real ``tool_use`` is the
    model's choice. A paused turn goes back as it is, up to ``MAX_CONTINUATIONS`` times."""
    blocks: list[Any] = []
    parts: list[Any] = []
    calls: list[ToolCall] = []
    usage = Usage()
    latency = 0.0
    requests = 0
    while True:
        history = [Message.assistant((), raw=blocks)] if blocks else []
        answer = await provider._exchange([*messages, *history], tools, tool_choice, options)
        requests += 1
        usage = usage + answer.usage
        latency += answer.latency_ms
        calls += answer.calls
        if answer.message is not None:
            parts += answer.message.parts
            raw = answer.message.raw
            blocks = [*blocks, *(raw if isinstance(raw, list) else [])]
        if answer.stop_reason != "pause_turn" or calls or requests > MAX_CONTINUATIONS:
            break
    searches, revealed = read_searches(blocks)
    answer.calls = calls
    answer.usage = usage
    answer.latency_ms = latency
    answer.message = Message.assistant(parts, raw=blocks)
    answer.retrieval = Retrieval(searches=searches, revealed=revealed, requests=requests)
    # Still paused after the continuations: no answer yet, so a dropout (truncated), never a choice.
    answer.truncated = answer.truncated or (answer.stop_reason == "pause_turn" and not calls)
    return answer
