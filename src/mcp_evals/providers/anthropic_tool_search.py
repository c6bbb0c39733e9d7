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

from typing import TYPE_CHECKING, Any

from mcp_evals.answers import Retrieval, ToolCall, ToolChoiceMode, Usage
from mcp_evals.providers.base import Answer, HttpRequest, Job, ToolSearch

if TYPE_CHECKING:
    from mcp_evals.providers.anthropic import AnthropicProvider

SEARCH_TOOLS = {
    "bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
}
# Continuations of a paused turn before the answer is taken as it stands.
MAX_CONTINUATIONS = 2


def deferred_tools(provider: AnthropicProvider, search: ToolSearch) -> list[dict[str, Any]]:
    """Every catalog tool deferred, then the search tool (never deferred; it carries the cache mark)."""
    tools = [{**provider.catalog_tool(tool), "defer_loading": True} for tool in provider.catalog.tools]
    return [*tools, dict(SEARCH_TOOLS[search.variant])]


def tool_search_request(
    provider: AnthropicProvider,
    job: Job,
    mode: ToolChoiceMode | None,
    search: ToolSearch,
    history: list[Any] | None = None,
) -> HttpRequest:
    messages = [{"role": "user", "content": job.fixture.query}, *(history or [])]
    body = provider.conversation_body(mode, deferred_tools(provider, search), messages, cache=True)
    headers = provider.headers()
    if search.beta:
        headers["anthropic-beta"] = search.beta
    return HttpRequest("/v1/messages", body, headers)


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


def read_searches(provider: AnthropicProvider, blocks: list[Any]) -> tuple[list[str], list[str]]:
    """(what the model searched for, the catalog tools revealed) from an answer's content blocks."""
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
                mcp_name = provider.catalog.names.mcp(name) or name
                if mcp_name not in revealed:
                    revealed.append(mcp_name)
    return searches, revealed


async def answer_with_tool_search(
    provider: AnthropicProvider, job: Job, mode: ToolChoiceMode | None, search: ToolSearch
) -> Answer:
    """Ask with the catalog deferred; the first real ``tool_use`` is the model's choice."""
    blocks: list[Any] = []
    calls: list[ToolCall] = []
    usage = Usage()
    latency = 0.0
    requests = 0
    while True:
        history = [{"role": "assistant", "content": blocks}] if blocks else None
        answer = await provider.exchange(tool_search_request(provider, job, mode, search, history))
        requests += 1
        usage = usage + answer.usage
        latency += answer.latency_ms
        calls += answer.calls
        blocks = [*blocks, *(answer.message if isinstance(answer.message, list) else [])]
        if answer.stop_reason != "pause_turn" or calls or requests > MAX_CONTINUATIONS:
            break
    searches, revealed = read_searches(provider, blocks)
    answer.calls = calls
    answer.usage = usage
    answer.latency_ms = latency
    answer.message = blocks
    answer.retrieval = Retrieval(searches=searches, revealed=revealed, requests=requests)
    # Still paused after the continuations: no answer yet, so a dropout (truncated), never a choice.
    answer.truncated = answer.truncated or (answer.stop_reason == "pause_turn" and not calls)
    return answer
