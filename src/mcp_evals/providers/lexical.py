"""The *lexical baseline*: BM25 over each tool's words, no network, no key, fully deterministic.

Not a model. It ranks tools by word overlap between the query and the tool's name, title,
description and parameter names/descriptions, picks the best, and refuses when even the best scores
below ``lexical_threshold``. It is what ``mcp-evals run`` uses when no API key is present, so that
the main command produces a full report for free; its number is advisory (``lexical``) and
never gates. A catalog where the lexical baseline already scores high has distinctive wording; one
where a model barely beats it may be leaning on keywords.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Mapping
from typing import ClassVar

from mcp_evals.catalog.model import Tool
from mcp_evals.providers.base import Answer, Job, OfflineProvider
from mcp_evals.record.model import ToolChoiceMode

K1 = 1.2
B = 0.75
NAME_WEIGHT = 3  # a word in the tool name counts as much as three in the description
_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_STOPWORDS = frozenset(
    re.findall(
        r"[a-z]+",
        "a an and are as at be by can do does for from has have how i if in is it its me my of on or our "
        "please so that the their them there these this to us was we what when where which who will with you "
        "your",
    )
)


def stem(word: str) -> str:
    """A light, deterministic suffix strip: enough to match ticket/tickets, refund/refunded."""
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + replacement
    return word


def words(text: str) -> list[str]:
    spaced = _CAMEL.sub(" ", text)
    tokens = (token.lower() for token in _WORD.findall(spaced))
    return [stem(token) for token in tokens if token not in _STOPWORDS]


def tool_words(tool: Tool) -> list[str]:
    parts = [tool.name.replace("_", " ").replace("-", " ").replace(".", " ")] * NAME_WEIGHT
    parts += [tool.title or "", tool.description]
    for name, schema in tool.parameters.items():
        parts.append(name.replace("_", " "))
        if isinstance(schema, dict) and isinstance(schema.get("description"), str):
            parts.append(schema["description"])
    return words(" ".join(parts))


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
        self.idf = {
            term: math.log((count - frequency + 0.5) / (frequency + 0.5) + 1)
            for term, frequency in document_frequency.items()
        }

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


class LexicalProvider(OfflineProvider):
    name: ClassVar = "lexical"
    lexical = True
    label: ClassVar = "lexical baseline (BM25, not a model)"

    _index: Bm25Index | None = None

    @property
    def index(self) -> Bm25Index:
        if self._index is None:
            self._index = Bm25Index({tool.name: tool_words(tool) for tool in self.catalog.tools})
        return self._index

    def rank(self, query: str) -> list[tuple[str, float]]:
        return self.index.scores(words(query))

    async def answer(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        started = time.perf_counter()
        ranked = self.rank(job.fixture.query)
        top = ", ".join(f"{name} {score:.2f}" for name, score in ranked[:3])
        answer = Answer(request_id=None)
        if ranked and ranked[0][1] >= self.settings.lexical_threshold:
            best = ranked[0][0]
            answer.calls.append(self.tool_call(self.catalog.names.provider(best), {}))
            answer.stop_reason = "tool_use"
            answer.text = f"lexical baseline: best matches {top}"
        else:
            answer.stop_reason = "end_turn"
            answer.text = (
                f"lexical baseline: no tool scored {self.settings.lexical_threshold:g} or more "
                f"(best {top or 'none'}), so no tool is called"
            )
        answer.latency_ms = (time.perf_counter() - started) * 1000
        return answer
