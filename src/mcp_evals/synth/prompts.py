"""The prompts of both synthesis steps (pure: text in, text out).

Step 1 prompts see the catalog; ``paraphrase_prompt`` sees only goals and values. Every prompt asks
for JSON alone, so any model can answer it (no structured-output feature needed).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp_evals.catalog.model import Tool
from mcp_evals.synth.model import Intent, IntentKind

INTENT_SYSTEM = (
    "You write test cases for an evaluation of how well an AI assistant picks the right tool of a "
    "software service. Describe goals that real users of the service have. For every required "
    "parameter invent one concrete, realistic value (an id in the format the schema implies, a date, "
    "a name, an amount) that the user states, so the request can be served in one step without "
    "looking anything up first. Write each goal plainly, as a note to a colleague, and never use "
    "a tool's name or a parameter's name in it. Answer with JSON only, no prose."
)
PARAPHRASE_SYSTEM = (
    "You turn notes about what someone wants into the words that person would actually type to an "
    "assistant. Write as the persona: their vocabulary, their level of detail, one or two sentences, "
    "in the requested language. Keep every value listed in must_include exactly as written (ids, "
    "dates, names, amounts); add no other ids or values. Never mention tools, functions or APIs. "
    "Answer with JSON only, no prose."
)
_PATTERN_GUIDE = (
    "Mix the patterns: specific (the plain case, named directly), category (the outcome the user "
    "wants, not how to get it), boundary (close to what another tool does, but this tool's job)."
)


@dataclass(frozen=True)
class Ask:
    """One step-1 request: its prompts, what it writes and for which tool(s)."""

    source: str  # "tool X", "pair X/Y", "refuse", "clarify"
    kind: IntentKind
    system: str
    user: str
    count: int
    tools: tuple[str, ...] = ()


def describe_tool(tool: Tool) -> str:
    """A tool as step 1 sees it: name, description, input schema."""
    schema = json.dumps(tool.input_schema, ensure_ascii=False, sort_keys=True)
    return f"Tool {tool.name}\nDescription: {tool.description or '(none)'}\nInput schema: {schema}"


def tool_ask(tool: Tool, count: int) -> Ask:
    user = (
        f"{describe_tool(tool)}\n\n"
        f"Write {count} goals that need this tool. {_PATTERN_GUIDE}\n"
        'Answer: {"intents": [{"goal": "…", "values": {"<parameter>": <value>}, '
        '"pattern": "specific|category|boundary"}]}'
    )
    return Ask(f"tool {tool.name}", "select", INTENT_SYSTEM, user, count, (tool.name,))


def pair_ask(first: Tool, second: Tool) -> Ask:
    user = (
        "These two tools are easy to confuse.\n\n"
        f"{describe_tool(first)}\n\n{describe_tool(second)}\n\n"
        f"Write one goal that needs {first.name} and would be wrong for {second.name}, and one goal "
        f"that needs {second.name} and would be wrong for {first.name}.\n"
        'Answer: {"intents": [{"tool": "<tool name>", "goal": "…", "values": {"<parameter>": <value>}, '
        '"pattern": "boundary"}]}'
    )
    tools = (first.name, second.name)
    return Ask(f"pair {first.name}/{second.name}", "select", INTENT_SYSTEM, user, 2, tools)


def scope_of(tools: Sequence[Tool]) -> str:
    return "\n".join(f"- {tool.name}: {tool.description or '(no description)'}" for tool in tools)


def refuse_ask(tools: Sequence[Tool], count: int) -> Ask:
    user = (
        f"The service's tools:\n{scope_of(tools)}\n\n"
        f"Write {count} requests its users could plausibly make that none of these tools can serve: "
        "near the edges of what the service does, not absurd. State any values the user would give.\n"
        'Answer: {"intents": [{"goal": "…"}]}'
    )
    return Ask("refuse", "refuse", INTENT_SYSTEM, user, count, tuple(tool.name for tool in tools))


def clarify_ask(tools: Sequence[Tool], count: int) -> Ask:
    described = "\n\n".join(describe_tool(tool) for tool in tools)
    user = (
        f"{described}\n\n"
        f"Write {count} goals that need one of these tools but leave out a value it requires, so an "
        "assistant would have to ask for it first. Name the tool and the required parameter(s) left "
        "out; give values for the other required parameters.\n"
        'Answer: {"intents": [{"tool": "<tool name>", "goal": "…", "missing": ["<parameter>"], '
        '"values": {"<parameter>": <value>}}]}'
    )
    return Ask("clarify", "clarify", INTENT_SYSTEM, user, count, tuple(tool.name for tool in tools))


def paraphrase_prompt(intents: Sequence[Intent], persona: str, language: str) -> tuple[str, str]:
    """The held-out request: the persona, the language, and per intent only its goal and values.

    Nothing of the catalog is passed in: no tool, description, schema or parameter name.
    """
    items: list[dict[str, Any]] = [
        {"n": number, "goal": intent.goal, "must_include": intent.must_include}
        for number, intent in enumerate(intents, start=1)
    ]
    user = (
        f"Persona: {persona}\nLanguage: {language}\n\n"
        f"Notes ({len(items)}):\n{json.dumps(items, ensure_ascii=False, indent=1)}\n\n"
        'Answer: {"queries": [{"n": <number>, "query": "…"}]}, one query per note.'
    )
    return PARAPHRASE_SYSTEM, user
