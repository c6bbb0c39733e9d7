"""The proposer's prompt and its answer (pure: text in, text out).

The proposer sees the catalog, the lint's findings on the tool, the tool it is confused with, and
requests of the **dev** split only. ``examples`` never takes a test fixture, and ``held_out`` checks
the finished prompt against every test query, so a rewrite can never be tuned to the fixtures that
judge it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.fixtures.model import Fixture
from mcp_evals.improve.model import ToolTarget
from mcp_evals.improve.targets import DevAnswer
from mcp_evals.synth.parse import Malformed, json_object

PROPOSER_SYSTEM = (
    "You rewrite the description of one tool of an MCP server so that an AI assistant, choosing among "
    "all the server's tools, picks this one exactly when it should. Keep what the tool does: never "
    "promise a capability, a parameter or a value it does not have. Say what it does and what it "
    "returns in the words its users use, and state its boundary against the tool it is confused with: "
    "when to use the other one instead, naming it. One paragraph, at most about 80 words. You may also "
    "rewrite the descriptions of its existing parameters (never add or rename one). Answer with JSON "
    "only, no prose."
)
ANSWER_SHAPE = (
    'Answer: {"description": "…", "parameters": {"<existing parameter>": "…"}, '
    '"why": "one sentence: what the new text makes clear"}'
)
EXAMPLES_PER_TOOL = 6
CATALOG_LISTED = 200  # past this many tools, the catalog is listed by name and first sentence only
SUMMARY_CHARS = 160


def describe(tool: Tool) -> str:
    """A tool as the proposer sees it: name, description, input schema."""
    schema = json.dumps(tool.input_schema, ensure_ascii=False, sort_keys=True)
    return f"Tool {tool.name}\nDescription: {tool.description or '(none)'}\nInput schema: {schema}"


def _listing(catalog: Catalog) -> str:
    tools = catalog.tools
    lines = []
    for tool in tools[:CATALOG_LISTED]:
        text = " ".join(tool.description.split()) or "(no description)"
        if len(tools) > CATALOG_LISTED // 4 and len(text) > SUMMARY_CHARS:
            text = text[: SUMMARY_CHARS - 1] + "…"
        lines.append(f"- {tool.name}: {text}")
    if len(tools) > CATALOG_LISTED:
        lines.append(f"- … and {len(tools) - CATALOG_LISTED} more tools")
    return "\n".join(lines)


@dataclass(frozen=True)
class Example:
    """A dev request, the tool that should answer it and, when the dev run got it wrong, what it called."""

    query: str
    expected: str
    wrong: bool = False  # the dev run answered it wrong
    called: str | None = None  # what it called then (None: no tool)

    @property
    def line(self) -> str:
        wrong = f" (an assistant called {self.called or 'no tool'})" if self.wrong else ""
        return f"- {json.dumps(self.query, ensure_ascii=False)} → {self.expected}{wrong}"


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def examples(
    target: ToolTarget,
    dev: Sequence[Fixture],
    answers: Mapping[str, DevAnswer],
    test_queries: Sequence[str] = (),
    *,
    per_tool: int = EXAMPLES_PER_TOOL,
) -> list[Example]:
    """Dev requests for the tool and its neighbours (those the dev run got wrong first); a dev query
    that is, or holds, a test query is left out."""
    held = {_normal(query) for query in test_queries}
    found: list[Example] = []
    for tool in [target.tool, *target.neighbours]:
        candidates = []
        for fixture in dev:
            if fixture.split == "test" or fixture.kind != "select" or tool not in fixture.expected_tools:
                continue
            query = _normal(fixture.query)
            if not query or any(test in query for test in held if test):
                continue  # it is, or it holds, a test query: the prompt would show it
            answer = answers.get(fixture.id)
            wrong = answer is not None and not answer.right
            candidates.append(
                Example(fixture.query, tool, wrong, answer.chosen if wrong and answer else None)
            )
        candidates.sort(key=lambda example: not example.wrong)  # the ones it got wrong first (stable)
        found += candidates[:per_tool]
    return found


def proposal_prompt(target: ToolTarget, catalog: Catalog, shown: Sequence[Example]) -> tuple[str, str]:
    """The system prompt and the user message asking for one tool's new description."""
    tool = catalog.by_name[target.tool]
    parts = [
        f"The server's tools ({len(catalog.tools)}):\n{_listing(catalog)}",
        f"The tool to rewrite:\n{describe(tool)}",
    ]
    neighbours = [catalog.by_name[name] for name in target.neighbours if name in catalog.by_name]
    if neighbours:
        described = "\n\n".join(describe(other) for other in neighbours)
        parts.append(f"Assistants confuse it with:\n{described}")
    if target.findings:
        parts.append(
            "What a static check found on it:\n" + "\n".join(f"- {note.line}" for note in target.findings)
        )
    if shown:
        parts.append(
            "Requests users made (the tool that should answer each; where an assistant chose wrong, what "
            "it called):\n" + "\n".join(example.line for example in shown)
        )
    parts.append(f"Write the new description of {tool.name}.\n{ANSWER_SHAPE}")
    return PROPOSER_SYSTEM, "\n\n".join(parts)


def held_out(prompt: str, test_queries: Sequence[str]) -> list[str]:
    """The test queries a prompt contains (it must contain none)."""
    text = _normal(prompt)
    return [query for query in test_queries if _normal(query) and _normal(query) in text]


@dataclass(frozen=True)
class Proposed:
    """A proposer's answer: the new description, parameter descriptions and the reason."""

    description: str
    parameters: dict[str, str]
    why: str = ""


def _text(value: object) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def parse_proposal(text: str) -> Proposed:
    """The proposal in a model's answer; ``Malformed`` when it holds no usable description."""
    data = json_object(text)
    description = _text(data.get("description"))
    if not description:
        raise Malformed("the answer has no `description`")
    raw = data.get("parameters")
    parameters = (
        {str(name): _text(value) for name, value in raw.items() if _text(value)}
        if isinstance(raw, dict)
        else {}
    )
    return Proposed(description, parameters, _text(data.get("why")))
