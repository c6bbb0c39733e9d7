"""A scripted model for the comparison tests: right about every helpdesk fixture, except where told.

The oracle knows each fixture's expected tool. Shown tools, it calls the expected one when it is
there; shown a search tool, it searches with the query's words; shown one router per area, it opens
the expected tool's area; asked to refuse or clarify, it answers in words. ``wrong`` scripts the
mistakes: (query, context) → the tool it calls instead, where the context says which arm is asking
("A", "B", "full", "deferred", "grouped"). The same oracle answers through the fake Anthropic and
the fake OpenAI API.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fakes import fake_anthropic, fake_openai
from mcp_evals.fixtures.model import Fixture

REWRITTEN = "REWRITTEN:"  # catalog B's descriptions start with it
REFUSAL = "I can't help with that: none of my tools does it."
QUESTION = "Which one do you mean? Please tell me the id."


def context_of(tools: list[dict[str, Any]], catalog_size: int | None = None) -> str:
    """Which arm a request comes from, by what it offers: "deferred" (a search tool, or tools a search
    revealed), "grouped" (routers), "B" (catalog B), "partial" (some catalog tools: the second
    request of a grouped or client-side deferred arm) or "full"."""
    names = [name_of(tool) for tool in tools]
    descriptions = [description_of(tool) for tool in tools]
    server_search = any(str(tool.get("type", "")).startswith("tool_search_tool_") for tool in tools)
    if server_search or names == ["search_tools"] or any(tool.get("defer_loading") for tool in tools):
        return "deferred"
    if names and all(name.startswith("open_") for name in names):
        return "grouped"
    if any(description.startswith(REWRITTEN) for description in descriptions):
        return "B"
    if catalog_size is not None and len(tools) < catalog_size:
        return "partial"
    return "full"


def name_of(tool: dict[str, Any]) -> str:
    return str(tool["function"]["name"] if "function" in tool else tool.get("name", ""))


def description_of(tool: dict[str, Any]) -> str:
    return str(tool["function"].get("description", "") if "function" in tool else tool.get("description", ""))


@dataclass
class Oracle:
    fixtures: list[Fixture]
    wrong: dict[tuple[str, str], str] = field(default_factory=dict)  # (query, context) → tool called instead
    searches: dict[str, str] = field(default_factory=dict)  # query → what the model searches for
    catalog_size: int | None = None  # tells a partial catalog (a second request) from the full one

    def __post_init__(self) -> None:
        self.by_query = {fixture.query: fixture for fixture in self.fixtures}

    def decide(self, query: str, tools: list[dict[str, Any]], forced: bool) -> tuple[str, Any]:
        """("call", name, arguments) / ("text", words) for the request."""
        fixture = self.by_query.get(query)
        context = context_of(tools, self.catalog_size)
        names = [name_of(tool) for tool in tools]
        if fixture is None:
            return ("text", REFUSAL)
        if context == "deferred" and names == ["search_tools"]:
            if fixture.kind != "select":
                return ("text", REFUSAL if fixture.kind == "refuse" else QUESTION)
            return ("call", ("search_tools", {"query": self.searches.get(query, query)}))
        if context == "grouped":
            if fixture.kind != "select":
                return ("text", REFUSAL if fixture.kind == "refuse" else QUESTION)
            target = self.wrong.get((query, "grouped-area")) or (fixture.expected_tools or [""])[0]
            for tool in tools:
                if re.search(rf"\b{re.escape(target)}\b", description_of(tool)):
                    return ("call", (name_of(tool), {}))
            return ("call", (names[0], {}))
        if fixture.kind != "select":  # declines even when the system prompt says "exactly one tool"
            return ("text", REFUSAL if fixture.kind == "refuse" else QUESTION)
        for arm in (context, "any"):
            instead = self.wrong.get((query, arm))
            if instead is not None and (instead in names or not names):
                return ("call", (instead, {}))
        arguments = {
            key: value for key, value in fixture.expected_args.items() if not isinstance(value, dict | list)
        }
        expected = next((name for name in fixture.expected_tools if name in names), None)
        if expected is not None:
            return ("call", (expected, arguments))
        if forced and names:
            return ("call", (names[0], {}))
        return ("text", REFUSAL)

    def anthropic(self) -> Callable[[str, list[dict[str, Any]], dict[str, Any]], fake_anthropic.Answer]:
        def choose(query: str, tools: list[dict[str, Any]], choice: dict[str, Any]) -> fake_anthropic.Answer:
            kind, value = self.decide(query, tools, choice.get("type") in ("any", "tool"))
            if kind == "text":
                return fake_anthropic.Text(value)
            return fake_anthropic.Call(value[0], value[1])

        return choose

    def openai(self) -> Callable[[str, list[dict[str, Any]], Any], fake_openai.Answer]:
        def choose(query: str, tools: list[dict[str, Any]], choice: Any) -> fake_openai.Answer:
            kind, value = self.decide(query, tools, choice == "required")
            if kind == "text":
                return fake_openai.Text(value)
            return fake_openai.Call(value[0], value[1])

        return choose
