"""A scripted model for improve's tests, served through the fake Anthropic API on loopback.

**Choosing a tool**, it understands every request (it knows each fixture's intent, as a capable model
would) but it can only find the tool by its description: it calls the offered tool whose description
holds the most of the intent's *signature words* — the words of the intended tool's clear description
(``knowledge``) that no other tool's clear description uses. When no description holds one it guesses
the first tool (a forced request) or declines. Tool names in a description are read as pointers, not
as words ("use list_tickets instead"). So a vague catalog makes it guess, and a clear description
helps it, measurably. Refuse and clarify requests it declines.

**Asked to rewrite a description** (a request with no tools: the proposer's), it writes what it knows
the tool does (``knowledge``), adds the boundary against the tools the prompt names as confused with
it, keeps the parameters, and keeps every prompt it was sent.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fakes import fake_anthropic
from mcp_evals.fixtures.model import Fixture

_WORD = re.compile(r"[a-z]+")
STOP = frozenset(
    re.findall(
        r"[a-z]+",
        "a an and are as at be by can do does for from has have how i if in is it its me my of on or our "
        "please so that the their them there these this to us was we what when where which who will with "
        "you your any one use it not instead",
    )
)
REWRITE = re.compile(r"Write the new description of (\S+)\.")
CONFUSED = re.compile(r"^Tool (\S+)$", re.MULTILINE)
REFUSAL = "None of my tools does that."


def words(text: str) -> set[str]:
    found = set()
    for word in _WORD.findall(text.lower()):
        if word in STOP or len(word) < 3:
            continue
        found.add(word[:-1] if word.endswith("s") and len(word) > 3 else word)
    return found


@dataclass
class Wordy:
    knowledge: dict[str, str]  # tool → a clear description of it
    fixtures: Sequence[Fixture]
    prompts: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_query = {fixture.query: fixture for fixture in self.fixtures}
        known = {name: words(text) for name, text in self.knowledge.items()}
        used = Counter(word for vocabulary in known.values() for word in vocabulary)
        self.signature = {
            name: {word for word in vocabulary if used[word] == 1} for name, vocabulary in known.items()
        }
        self.names = re.compile(
            "|".join(re.escape(name) for name in sorted(self.knowledge, key=len, reverse=True))
        )

    def read(self, tool: Mapping[str, Any]) -> set[str]:
        return words(self.names.sub(" ", str(tool.get("description", ""))))

    def choose(
        self, query: str, tools: list[dict[str, Any]], choice: dict[str, Any]
    ) -> fake_anthropic.Answer:
        if not tools:
            return self.propose(query)
        fixture = self.by_query.get(query)
        if fixture is None or fixture.kind != "select":
            return fake_anthropic.Text(REFUSAL)
        wanted = self.signature.get(fixture.expected_tools[0], set())
        hits = [len(wanted & self.read(tool)) for tool in tools]
        best = max(hits)
        if best == 0 and choice.get("type") not in ("any", "tool"):
            return fake_anthropic.Text(REFUSAL)
        return fake_anthropic.Call(str(tools[hits.index(best)]["name"]), {})

    def propose(self, prompt: str) -> fake_anthropic.Answer:
        self.prompts.append(prompt)
        found = REWRITE.search(prompt)
        if found is None:
            return fake_anthropic.Text("I do not know what to write.")
        tool = found.group(1)
        section = prompt.split("Assistants confuse it with:", 1)[-1] if "Assistants confuse" in prompt else ""
        section = re.split(r"\n\n(?:What a static check|Requests users made|Write the new)", section)[0]
        confused = CONFUSED.findall(section)
        text = self.knowledge.get(tool, f"Works with {tool}.")
        if confused:
            text += f" Not for what {' or '.join(confused)} does: use that instead."
        answer = {"description": text, "parameters": {}, "why": "says what it does in its users' words"}
        return fake_anthropic.Text(json.dumps(answer))
