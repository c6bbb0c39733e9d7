"""What the rules look at: the catalog, the fixtures and the analyses several rules share, computed once.

The expensive part is the all-pairs comparison of tools (names, descriptions, parameters): it runs
once per lint, in ``pairs``, and feeds the name, description and consistency rules and the confusion
prediction alike.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from mcp_evals.catalog.model import Catalog, Tool, matches
from mcp_evals.config.model import LintThresholds
from mcp_evals.fixtures.model import Fixture
from mcp_evals.lint.model import PairScore
from mcp_evals.lint.schemas import pipeline_parameters
from mcp_evals.lint.text import (
    TfIdf,
    bigrams,
    canonical_parts,
    cosine,
    jaccard,
    levenshtein,
    shared_terms,
    surface_words,
)
from mcp_evals.providers.pricing import Price
from mcp_evals.providers.tokens import estimate_tokens

# How much each signal weighs in a pair's confusion score (documented in docs/lint.md).
DESCRIPTION_WEIGHT = 0.5
NAME_WEIGHT = 0.3
PARAMETER_WEIGHT = 0.2
# Pairs scoring below this are not kept (only counted, for ranks): they are far from any threshold.
KEEP_FLOOR = 0.2


@dataclass(frozen=True)
class Hit:
    """What a rule found, before the engine gives it its severity and location."""

    message: str
    tools: tuple[str, ...] = ()
    fixture: Fixture | None = None
    parameter: str | None = None
    terms: tuple[str, ...] = ()
    # For a finding about the fixture set as a whole: point at the config's `fixtures:` line.
    fixture_set: bool = False


@dataclass(frozen=True)
class ProbeResult:
    """What a server answered when a tool with required parameters was called with ``{}``."""

    tool: str
    is_error: bool
    text: str


@dataclass(frozen=True)
class NearName:
    """Two names a model can take for one another, and why."""

    tools: tuple[str, str]
    reason: str


@dataclass
class PairAnalysis:
    """Every pair of tools compared: those worth reporting kept, every score counted for ranks."""

    kept: list[PairScore] = field(default_factory=list)
    near_names: list[NearName] = field(default_factory=list)
    near_identical: dict[tuple[str, str], float] = field(default_factory=dict)
    scores: list[float] = field(default_factory=list)  # every pair's score, highest first


@dataclass
class LintContext:
    """The inputs of one lint run and the analyses computed from them on first use."""

    catalog: Catalog
    thresholds: LintThresholds = field(default_factory=LintThresholds)
    fixtures: Sequence[Fixture] | None = None
    exclude_tools: Sequence[str] = ()
    system_prompt: str = ""
    price: Price | None = None
    model: str | None = None
    probe: Sequence[ProbeResult] | None = None

    @property
    def tools(self) -> list[Tool]:
        return self.catalog.tools

    @cached_property
    def included(self) -> list[Tool]:
        """Tools that take part in the eval (not in `exclude_tools`)."""
        return [tool for tool in self.tools if not matches(tool.name, self.exclude_tools)]

    # ------------------------------------------------------------------ descriptions

    @cached_property
    def description_words(self) -> list[list[tuple[str, str]]]:
        return [surface_words(tool.description) for tool in self.tools]

    @cached_property
    def surface(self) -> Mapping[str, str]:
        """Each stem → the form the catalog writes most, for messages."""
        counts: Counter[tuple[str, str]] = Counter(
            pair for tool_words in self.description_words for pair in tool_words
        )
        best: dict[str, tuple[int, str]] = {}
        for (stemmed, word), count in counts.items():
            if stemmed not in best or (count, word) > best[stemmed]:
                best[stemmed] = (count, word)
        return {stemmed: word for stemmed, (_, word) in best.items()}

    @cached_property
    def tfidf(self) -> TfIdf:
        return TfIdf.fit([[stemmed for stemmed, _ in tool_words] for tool_words in self.description_words])

    @cached_property
    def word_sets(self) -> list[frozenset[str]]:
        return [frozenset(stemmed for stemmed, _ in tool_words) for tool_words in self.description_words]

    # ------------------------------------------------------------------ names and parameters

    @cached_property
    def name_parts(self) -> list[frozenset[str]]:
        return [frozenset(canonical_parts(tool.wire_name)) for tool in self.tools]

    @cached_property
    def parameter_sets(self) -> list[frozenset[str]]:
        return [frozenset(name.lower() for name in tool.parameters) for tool in self.tools]

    @cached_property
    def pipeline(self) -> dict[str, list[tuple[str, bool]]]:
        """Tool → its pipeline parameters (ids, cursors, tokens, timestamps) and whether each is required."""
        return {tool.name: pipeline_parameters(tool) for tool in self.tools}

    # ------------------------------------------------------------------ tokens

    @cached_property
    def tool_tokens(self) -> dict[str, int]:
        """Estimated tokens of each tool's definition as a model receives it."""
        return {tool.name: estimate_tokens(tool_definition(tool)) for tool in self.tools}

    # ------------------------------------------------------------------ pairs

    @cached_property
    def pairs(self) -> PairAnalysis:
        return compare_all(self)

    @cached_property
    def position(self) -> dict[str, int]:
        return {tool.name: index for index, tool in enumerate(self.tools)}

    def score_of(self, first: str, second: str) -> float:
        """The confusion score of any two tools (the same formula as ``compare_all``)."""
        i, j = self.position[first], self.position[second]
        vectors, names, parameters = self.tfidf.vectors, self.name_parts, self.parameter_sets
        near = any(set(near.tools) == {first, second} for near in self.pairs.near_names)
        name = 1.0 if near or (names[i] and names[i] == names[j]) else jaccard(names[i], names[j])
        return (
            DESCRIPTION_WEIGHT * cosine(vectors[i], vectors[j])
            + NAME_WEIGHT * name
            + PARAMETER_WEIGHT * jaccard(parameters[i], parameters[j])
        )


def tool_definition(tool: Tool) -> str:
    """The tool as a provider receives it (Anthropic's shape; OpenAI's differs by a few keys)."""
    document: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def compare_all(context: LintContext) -> PairAnalysis:
    """Score every pair of tools; keep the pairs some rule may report."""
    tools = context.tools
    thresholds = context.thresholds
    vectors = context.tfidf.vectors
    names = context.name_parts
    parameters = context.parameter_sets
    word_sets = context.word_sets
    wire = [tool.wire_name for tool in tools]
    lowered = [name.lower() for name in wire]
    name_bigrams = [bigrams(name) for name in lowered]
    descriptions = [" ".join(tool.description.lower().split()) for tool in tools]
    distance = thresholds.name_distance
    analysis = PairAnalysis()
    floor = min(KEEP_FLOOR, thresholds.confusable_pair)
    for i in range(len(tools)):
        vector_i, names_i, params_i, words_i = vectors[i], names[i], parameters[i], word_sets[i]
        for j in range(i + 1, len(tools)):
            description = cosine(vector_i, vectors[j]) if vector_i and vectors[j] else 0.0
            name = jaccard(names_i, names[j])
            reason = _near_name(lowered[i], lowered[j], name_bigrams[i], name_bigrams[j], distance)
            if reason is None and names_i and names_i == names[j]:
                reason = "the same words once synonyms and plurals are merged"
            if reason is not None:
                name = 1.0
                analysis.near_names.append(NearName((tools[i].name, tools[j].name), reason))
            params = jaccard(params_i, parameters[j])
            score = DESCRIPTION_WEIGHT * description + NAME_WEIGHT * name + PARAMETER_WEIGHT * params
            analysis.scores.append(score)
            overlap = jaccard(words_i, word_sets[j])
            if description >= 0.5 and descriptions[i] and descriptions[j]:
                similar = _char_similarity(descriptions[i], descriptions[j], thresholds.near_identical)
                if similar is not None:
                    analysis.near_identical[(tools[i].name, tools[j].name)] = similar
            if score >= floor or description >= thresholds.description_similarity or overlap > 0.5:
                terms = tuple(context.surface.get(term, term) for term in shared_terms(vector_i, vectors[j]))
                analysis.kept.append(
                    PairScore(
                        tools=(tools[i].name, tools[j].name),
                        score=round(score, 4),
                        description=round(description, 4),
                        name=round(name, 4),
                        parameters=round(params, 4),
                        overlap=round(overlap, 4),
                        terms=terms,
                        cross_server=tools[i].server != tools[j].server,
                    )
                )
    analysis.scores.sort(reverse=True)
    analysis.kept.sort(key=lambda pair: (-pair.score, pair.tools))
    return analysis


def _near_name(a: str, b: str, grams_a: frozenset[str], grams_b: frozenset[str], limit: int) -> str | None:
    """Why two (lower-cased) names are near-duplicates by spelling, or None."""
    if min(len(a), len(b)) <= 4 or abs(len(a) - len(b)) > limit:
        return None
    # An edit touches at most two bigrams: names within `limit` edits share most of theirs.
    if len(grams_a & grams_b) < max(len(grams_a), len(grams_b)) - 2 * limit:
        return None
    found = levenshtein(a, b, limit)
    if found > limit:
        return None
    return f"{found} edit{'s' if found != 1 else ''} apart"


def _char_similarity(a: str, b: str, floor: float) -> float | None:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
        return None
    ratio = matcher.ratio()
    return ratio if ratio >= floor else None
