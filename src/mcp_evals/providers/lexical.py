"""The *lexical baseline*: BM25 over each tool's words, no network, no key, fully deterministic.

Not a model. It ranks tools by word overlap between the query and the tool's name, title,
description and parameters (nested ones included), picks the best, and refuses when the evidence
is too thin. It is what ``mcp-evals run`` uses when no API key is present, so that the main command
produces a full report for free; its number is advisory (``lexical``) and never gates. A catalog
where the lexical baseline already scores high has distinctive wording; one where a model barely
beats it may be leaning on keywords.

When to call: a raw BM25 score means nothing across catalogs — a word's IDF is bounded by the
number of tools, so a two-tool catalog never reaches the score a 22-tool one gives a single
matched word. The score is therefore measured in *distinctive words*: divided by the score of one
word that only one tool uses (``unit_score``). The evidence asked for grows with the catalog, as
the chance that an out-of-scope query hits some tool's word by accident grows with the number of
tools: the best tool is called when its score reaches ``strictness × log2(tools)`` distinctive
words (default 0.25: any shared word on a one-tool catalog, a quarter of a word on two tools, 1.1
words on 22). A query that shares no word with the catalog is always a refusal.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from mcp_evals.answers import Answer, GenerateOptions, Message, ToolChoice, ToolSpec
from mcp_evals.providers.base import NO_OPTIONS, OfflineProvider, ProviderSettings, own_settings, tool_call
from mcp_evals.text import words

K1 = 1.2
B = 0.75
NAME_WEIGHT = 3  # a word in the tool name counts as much as three in the description
DEFAULT_STRICTNESS = 0.25
_SCHEMA_DEPTH = 3  # nested parameters (items of an array of objects) carry words a model reads too


def _schema_words(schema: Any, depth: int = 0) -> list[str]:
    """Parameter names and descriptions, into nested objects and array items."""
    if not isinstance(schema, dict) or depth > _SCHEMA_DEPTH:
        return []
    parts: list[str] = []
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, child in properties.items():
            parts.append(str(name).replace("_", " "))
            if isinstance(child, dict):
                if isinstance(child.get("description"), str):
                    parts.append(child["description"])
                parts += _schema_words(child, depth + 1)
    parts += _schema_words(schema.get("items"), depth + 1)
    return parts


class Described(Protocol):
    """What the lexical baseline reads of a tool (a catalog ``Tool`` or the ``ToolSpec`` a model sees)."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def description(self) -> str: ...
    @property
    def input_schema(self) -> Mapping[str, Any]: ...


def tool_words(tool: Described) -> list[str]:
    parts = [tool.name.replace("_", " ").replace("-", " ").replace(".", " ")] * NAME_WEIGHT
    parts += [tool.title or "", tool.description, *_schema_words(tool.input_schema)]
    return words(" ".join(parts))


def idf(tools: int, using: int) -> float:
    """BM25's inverse document frequency of a word ``using`` of ``tools`` tools contain."""
    return math.log((tools - using + 0.5) / (using + 0.5) + 1)


def unit_score(tools: int) -> float:
    """The score of one word only one tool uses, once, at average length: one *distinctive word*."""
    return idf(max(tools, 1), 1)


def required_words(tools: int, strictness: float = DEFAULT_STRICTNESS) -> float:
    """Distinctive words of evidence the best tool needs before it is called."""
    return strictness * math.log2(max(tools, 1))


class Bm25Index:
    """BM25 (Okapi) over a fixed set of documents."""

    def __init__(self, documents: Mapping[str, list[str]]) -> None:
        self.names = list(documents)
        self.frequencies = {name: Counter(tokens) for name, tokens in documents.items()}
        self.lengths = {name: len(tokens) for name, tokens in documents.items()}
        count = len(documents) or 1
        self.average_length = sum(self.lengths.values()) / count or 1.0
        document_frequency: Counter[str] = Counter()
        for tokens in documents.values():
            document_frequency.update(set(tokens))
        self.idf = {term: idf(count, frequency) for term, frequency in document_frequency.items()}

    def scores(self, query: list[str]) -> list[tuple[str, float]]:
        """Every document's score, best first; ties broken by name so the order is deterministic."""
        terms = Counter(query)
        ranked = []
        for name in self.names:
            frequencies = self.frequencies[name]
            norm = K1 * (1 - B + B * self.lengths[name] / self.average_length)
            score = 0.0
            for term in terms:
                tf = frequencies.get(term, 0)
                if tf:
                    score += self.idf[term] * tf * (K1 + 1) / (tf + norm)
            ranked.append((name, score))
        ranked.sort(key=lambda item: (-item[1], item[0]))
        return ranked


class Lexical:
    """The lexical baseline over one set of tools: rank them for a query, call the best or refuse."""

    def __init__(self, tools: Sequence[Described], strictness: float = DEFAULT_STRICTNESS) -> None:
        self.tools = tools
        self.strictness = strictness
        self.index = Bm25Index({tool.name: tool_words(tool) for tool in tools})

    def rank(self, query: str) -> list[tuple[str, float]]:
        return self.index.scores(words(query))

    def evidence(self, score: float) -> float:
        """A BM25 score in distinctive words (see the module docstring)."""
        return score / unit_score(len(self.tools))

    @property
    def needed(self) -> float:
        return required_words(len(self.tools), self.strictness)

    def calls(self, ranked: list[tuple[str, float]]) -> bool:
        """Whether the best-ranked tool has the evidence these tools ask for."""
        best = ranked[0][1] if ranked else 0.0
        return best > 0 and self.evidence(best) >= self.needed

    def choose(self, query: str) -> str | None:
        """The tool the lexical baseline calls for this query (its name), or None when it refuses."""
        ranked = self.rank(query)
        return ranked[0][0] if self.calls(ranked) else None


@dataclass(frozen=True)
class LexicalSettings:
    """This provider's own setting: how much evidence a call needs (see the module docstring)."""

    lexical_strictness: float = DEFAULT_STRICTNESS


class LexicalProvider(OfflineProvider):
    """The lexical baseline as a provider: it answers the last user message with the tools it is given."""

    name: ClassVar = "lexical"
    lexical = True
    label: ClassVar = "lexical baseline (BM25, not a model)"

    def __init__(self, settings: ProviderSettings) -> None:
        super().__init__(settings)
        self._strictness = own_settings(LexicalSettings, settings).lexical_strictness
        self._lexical: Lexical | None = None

    def _over(self, tools: Sequence[ToolSpec]) -> Lexical:
        """The baseline over ``tools`` (kept while the same tools list is asked again)."""
        if self._lexical is None or self._lexical.tools is not tools:
            self._lexical = Lexical(tools, self._strictness)
        return self._lexical

    async def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice | None = None,
        options: GenerateOptions = NO_OPTIONS,
    ) -> Answer:
        started = time.perf_counter()
        query = next((message.text for message in reversed(messages) if message.role == "user"), "")
        lexical = self._over(tools)
        ranked = lexical.rank(query)
        top = ", ".join(f"{name} {lexical.evidence(score):.2f}" for name, score in ranked[:3])
        answer = Answer(request_id=None)
        best = ranked[0][1] if ranked else 0.0
        if lexical.calls(ranked):
            answer.calls.append(tool_call(tools, ranked[0][0], {}))
            answer.stop_reason = "tool_use"
            answer.text = f"lexical baseline: best matches (in distinctive words) {top}"
        else:
            answer.stop_reason = "end_turn"
            why = (
                "no word of the query is in the catalog"  # every tool scores 0: no "best" to list
                if best <= 0
                else (
                    f"the best match has {lexical.evidence(best):.2f} distinctive words of evidence, "
                    f"below the {lexical.needed:.2f} this catalog asks for (best {top})"
                )
            )
            answer.text = f"lexical baseline: {why}, so no tool is called"
        answer.latency_ms = (time.perf_counter() - started) * 1000
        return answer
