"""What the rules look at: the catalog, the fixtures and the analyses several rules share, computed once.

The expensive part is the all-pairs comparison of tools (names, descriptions, parameters): it runs
once per lint, in ``pairs``, and feeds the name, description and consistency rules and the confusion
prediction alike.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from mcp_evals.catalog.model import Catalog, Tool, matches
from mcp_evals.config.model import LintThresholds
from mcp_evals.fixtures.model import Fixture
from mcp_evals.lint.model import PairScore
from mcp_evals.lint.schemas import pipeline_parameters, properties_of, walk
from mcp_evals.lint.text import (
    TfIdf,
    canonical_parts,
    cosine,
    jaccard,
    shared_terms,
)
from mcp_evals.providers.pricing import Price
from mcp_evals.providers.tokens import estimate_tool_tokens
from mcp_evals.suggest import edit_distance
from mcp_evals.text import surface_words
from mcp_evals.wording import plural

# How much each signal weighs in a pair's confusion score (documented in docs/lint.md).
DESCRIPTION_WEIGHT = 0.5
NAME_WEIGHT = 0.3
PARAMETER_WEIGHT = 0.2
# Up to this edit distance, near names are found through deletion neighbourhoods (else pair by pair).
MAX_DELETION_LIMIT = 3
# Descriptions this similar (TF-IDF cosine) are also compared character by character, for near copies.
COPY_FLOOR = 0.5


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
    """Every pair of tools compared: those a rule may report kept, every score counted for ranks."""

    kept: list[PairScore] = field(default_factory=list)
    near_names: list[NearName] = field(default_factory=list)
    near_identical: dict[tuple[str, str], float] = field(default_factory=dict)
    scores: list[float] = field(default_factory=list)  # the score of every pair that shares anything
    pair_count: int = 0  # every pair, those that share nothing (score 0) included


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

    @cached_property
    def nodes(self) -> dict[str, list[tuple[str, dict[str, Any]]]]:
        """Tool → every (sub-)schema of its input schema with its path (walked once for all rules)."""
        return {tool.name: list(walk(tool.input_schema)) for tool in self.tools}

    @cached_property
    def property_names(self) -> dict[str, set[str]]:
        """Tool → the names of the properties its input schema declares at any depth."""
        return {
            name: {key for _, node in nodes for key in properties_of(node)}
            for name, nodes in self.nodes.items()
        }

    # ------------------------------------------------------------------ tokens

    @cached_property
    def tool_tokens(self) -> dict[str, int]:
        """Estimated tokens of each tool's definition as a model receives it."""
        return {tool.name: estimate_tool_tokens(self.catalog.spec(tool)) for tool in self.tools}

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


def compare_all(context: LintContext) -> PairAnalysis:
    """Score every pair of tools; keep the pairs some rule may report.

    This is the lint's one quadratic step (124,750 pairs for 500 tools). Rather than visiting every
    pair, each tool meets only the earlier tools it shares something with, through inverted indexes
    of description terms, name parts and parameter names: a pair that shares nothing scores 0 and
    needs no work. Near-duplicate spellings are found through deletion neighbourhoods (two names
    within k edits share a string that k deletions make of each), then confirmed by edit distance.
    """
    tools = context.tools
    count = len(tools)
    thresholds = context.thresholds
    vectors = context.tfidf.vectors
    names = context.name_parts
    parameters = context.parameter_sets
    word_sets = context.word_sets
    trigrams = [character_trigrams(tool.description) for tool in tools]
    keep_floor = thresholds.confusable_pair
    overlap_floor = thresholds.vocabulary_overlap
    similar_floor = thresholds.description_similarity
    analysis = PairAnalysis(pair_count=count * (count - 1) // 2)
    near = _near_names(context)
    near_before: dict[int, set[int]] = defaultdict(set)
    for earlier, later in near:
        near_before[later].add(earlier)
    for (i, j), reason in sorted(near.items()):
        analysis.near_names.append(NearName((tools[i].name, tools[j].name), reason))
    term_postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
    name_postings: dict[str, list[int]] = defaultdict(list)
    parameter_postings: dict[str, list[int]] = defaultdict(list)
    raw: list[tuple[int, int, float, float, float, float, float]] = []
    scores = analysis.scores
    for i in range(count):
        dots: dict[int, float] = defaultdict(float)
        for term, weight in vectors[i].items():
            postings = term_postings[term]
            for j, other in postings:
                dots[j] += weight * other
            postings.append((i, weight))
        shared_names: dict[int, int] = defaultdict(int)
        for part in names[i]:
            for j in name_postings[part]:
                shared_names[j] += 1
            name_postings[part].append(i)
        shared_parameters: dict[int, int] = defaultdict(int)
        for parameter in parameters[i]:
            for j in parameter_postings[parameter]:
                shared_parameters[j] += 1
            parameter_postings[parameter].append(i)
        names_i, params_i, words_i = len(names[i]), len(parameters[i]), word_sets[i]
        size_i = len(words_i)
        candidates = dots.keys() | shared_names.keys() | shared_parameters.keys() | near_before[i]
        for j in candidates:
            description = dots.get(j, 0.0)
            shared = shared_names.get(j, 0)
            if (j, i) in near or (shared and shared == names_i == len(names[j])):
                name = 1.0
            else:
                name = shared / (names_i + len(names[j]) - shared) if shared else 0.0
            shared = shared_parameters.get(j, 0)
            params = shared / (params_i + len(parameters[j]) - shared) if shared else 0.0
            score = DESCRIPTION_WEIGHT * description + NAME_WEIGHT * name + PARAMETER_WEIGHT * params
            scores.append(score)
            if score >= keep_floor or description >= similar_floor or description >= COPY_FLOOR:
                raw.append((j, i, score, description, name, params, jaccard(word_sets[j], words_i)))
            elif (
                description
                and (size := len(word_sets[j]))
                and min(size, size_i) > overlap_floor * max(size, size_i)
            ):
                overlap = jaccard(word_sets[j], words_i)
                if overlap > overlap_floor:
                    raw.append((j, i, score, description, name, params, overlap))
    for i, j, score, description, name, params, overlap in raw:
        copy = jaccard(trigrams[i], trigrams[j]) if description >= COPY_FLOOR else 0.0
        if copy >= thresholds.near_identical:
            analysis.near_identical[(tools[i].name, tools[j].name)] = copy
        elif score < keep_floor and description < similar_floor and overlap <= overlap_floor:
            continue
        analysis.kept.append(
            PairScore(
                tools=(tools[i].name, tools[j].name),
                score=round(score, 4),
                description=round(description, 4),
                name=round(name, 4),
                parameters=round(params, 4),
                overlap=round(overlap, 4),
                terms=tuple(context.surface.get(term, term) for term in shared_terms(vectors[i], vectors[j])),
                cross_server=tools[i].server != tools[j].server,
            )
        )
    scores.sort(reverse=True)
    analysis.kept.sort(key=lambda pair: (-pair.score, pair.tools))
    return analysis


def _may_overlap(size_a: int, size_b: int, floor: float) -> bool:
    """Whether two sets of these sizes can have a Jaccard above ``floor`` (at best min/max)."""
    return size_a > 0 and min(size_a, size_b) > floor * max(size_a, size_b)


def _deletions(name: str, limit: int) -> set[str]:
    """Every string ``limit`` or fewer deletions make of ``name``."""
    found = {name}
    frontier = {name}
    for _ in range(limit):
        frontier = {word[:index] + word[index + 1 :] for word in frontier for index in range(len(word))}
        found |= frontier
    return found


def _near_names(context: LintContext) -> dict[tuple[int, int], str]:
    """(earlier index, later index) → why two names are near-duplicates (spelling, or the same words)."""
    limit = context.thresholds.name_distance
    lowered = [tool.wire_name.lower() for tool in context.tools]
    found: dict[tuple[int, int], str] = {}
    eligible = [index for index, name in enumerate(lowered) if len(name) > 4]
    candidates: set[tuple[int, int]] = set()
    if limit <= MAX_DELETION_LIMIT:
        by_variant: dict[str, list[int]] = defaultdict(list)
        for index in eligible:
            for variant in _deletions(lowered[index], min(limit, len(lowered[index]) - 1)):
                by_variant[variant].append(index)
        candidates = {(a, b) for group in by_variant.values() for a in group for b in group if a < b}
    else:  # deletion neighbourhoods grow combinatorially: compare names of close lengths instead
        candidates = {
            (a, b)
            for a in eligible
            for b in eligible
            if a < b and abs(len(lowered[a]) - len(lowered[b])) <= limit
        }
    for a, b in sorted(candidates):
        reason = _near_name(lowered[a], lowered[b], limit)
        if reason is not None:
            found[(a, b)] = reason
    by_words: dict[frozenset[str], list[int]] = defaultdict(list)
    for index, parts in enumerate(context.name_parts):
        if parts:
            by_words[parts].append(index)
    for group in by_words.values():
        for a in group:
            for b in group:
                if a < b and (a, b) not in found:
                    found[(a, b)] = "the same words once synonyms and plurals are merged"
    return found


def character_trigrams(text: str) -> frozenset[str]:
    """The three-character pieces of a text (case and spacing ignored): near copies share nearly all."""
    flat = " ".join(text.lower().split())
    return frozenset(flat[index : index + 3] for index in range(max(len(flat) - 2, 0)))


def _near_name(a: str, b: str, limit: int) -> str | None:
    """Why two (lower-cased) names are near-duplicates by spelling, or None."""
    found = edit_distance(a, b, limit)
    if found > limit:
        return None
    return f"{plural(found, 'edit')} apart"
