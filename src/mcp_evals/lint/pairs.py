"""Which tools a model will take for one another: the confusion score of a pair, and the pairs worth it.

A pair's score is what a model can see of both tools, weighed as measured on the calibration set
(tests/lint/calibration, figures in docs/lint.md):

    factor(actions) × (0.35 description + 0.2 name + 0.1 parameters + 0.2 action + 0.15 mentions)

- *description*: the TF-IDF cosine of the two descriptions;
- *name*: the overlap of the name parts (synonymous verbs and plurals merged), each part weighted by
  its rarity in the catalog, so a server prefix every tool carries counts for nothing (1 for
  near-duplicate names);
- *parameters*: the overlap of the parameter names, times how rare the shared ones are: a lone `path`
  or `id` that most tools take says little, `relations` that two tools take says much;
- *action*: one kind of action on one object under the same or another verb (extract and scrape a
  URL, check and retrieve a job's status) scores the rarity of that object; one verb on sibling
  objects (create entities, create relations) scores 0.5;
- *mentions*: each description that mentions the other tool's name adds 0.5;
- *factor*: 0.5 for opposite actions on one object or a read against a write (create/delete,
  start/stop, get/update), 0.75 for two different writes (update/delete), else 1.

A catalog of thousands of tools cannot afford every pair. Candidates come from an inverted index of
each tool's distinctive features (description terms, name parts, parameters, objects that at most
``CANDIDATE_DF`` tools share); each tool keeps its ``NEIGHBOURS`` strongest candidates, and only those
pairs are scored in full. Under ``CANDIDATE_DF`` tools nothing is left out. Tools that are the same
but for numbers in their name and description (a gateway that mounts one server many times) form a
*family*: one representative takes part in the comparison, and the family is one pair, reported once
with its size.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from mcp_evals.catalog.model import Tool
from mcp_evals.lint.actions import FILLER, Action, action_of, common_name_parts, informativeness, relation
from mcp_evals.lint.model import PairScore, Relation
from mcp_evals.lint.text import TfIdf, canonical_parts, jaccard, shared_terms
from mcp_evals.suggest import edit_distance
from mcp_evals.text import name_parts, stem
from mcp_evals.wording import plural

if TYPE_CHECKING:
    from mcp_evals.lint.context import LintContext

DESCRIPTION_WEIGHT = 0.35
NAME_WEIGHT = 0.2
PARAMETER_WEIGHT = 0.1
ACTION_WEIGHT = 0.2
MENTION_WEIGHT = 0.15
SIBLING_ACTION = 0.5  # one verb on two different objects
FACTORS: Mapping[Relation, float] = {"same": 1.0, "kin": 1.0, "unknown": 1.0, "other": 0.75, "opposed": 0.5}
# Up to this edit distance, near names are found through deletion neighbourhoods (else pair by pair).
MAX_DELETION_LIMIT = 3
# Descriptions this similar (TF-IDF cosine) are also compared character by character, for near copies.
COPY_FLOOR = 0.5
# Features shared by more tools than this propose no candidate pair (they still count in the score).
CANDIDATE_DF = 200
# How many candidates each tool keeps, strongest first, for the full score.
NEIGHBOURS = 10
FAMILY_MIN = 3  # tools the same but for numbers, from this many on, are one family
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class NearName:
    """Two names a model can take for one another, and why."""

    tools: tuple[str, str]
    reason: str


@dataclass(frozen=True)
class Family:
    """Tools that are the same but for numbers in their name and description (first: the representative)."""

    tools: tuple[str, ...]


@dataclass
class PairAnalysis:
    """The pairs compared: those a rule may report kept, every computed score counted for ranks."""

    kept: list[PairScore] = field(default_factory=list)
    near_names: list[NearName] = field(default_factory=list)
    near_identical: dict[tuple[str, str], float] = field(default_factory=dict)
    families: list[Family] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)  # the score of every pair scored in full
    pair_count: int = 0  # every pair of the catalog

    @cached_property
    def family_of(self) -> dict[str, Family]:
        return {name: family for family in self.families for name in family.tools}


@dataclass(frozen=True)
class Components:
    """A pair's score and what it is made of."""

    score: float
    description: float
    name: float
    parameters: float
    action: float
    mentions: float
    relation: Relation


class Features:
    """What the score reads of each tool of a catalog, computed once.

    Rarity (TF-IDF, and how many tools share a name part, a parameter or an object) is counted over
    distinct tools: a family counts once, plus one more member so that its own pair can be scored.
    Every other member of a family reads as its representative.
    """

    def __init__(self, tools: Sequence[Tool], description_words: Sequence[Sequence[str]]) -> None:
        self.tools = tools
        self.families = families_of(tools)
        self.row: list[int] = list(range(len(tools)))
        hidden = {index for group in self.families for index in group[2:]}
        rows = [index for index in range(len(tools)) if index not in hidden]
        for position, index in enumerate(rows):
            self.row[index] = position
        for group in self.families:
            for index in group[2:]:
                self.row[index] = self.row[group[0]]
        self.rows = rows
        distinct = [tools[index] for index in rows]
        count = len(distinct)
        self.vectors = TfIdf.fit([description_words[index] for index in rows]).vectors
        self.word_sets = [frozenset(description_words[index]) for index in rows]
        self.common = common_name_parts(distinct)
        common_stems = {stem(part) for part in self.common} | self.common
        self.names = [
            frozenset(part for part in canonical_parts(tool.wire_name) if part not in common_stems)
            for tool in distinct
        ]
        name_counts = Counter(part for parts in self.names for part in parts)
        self.name_weight = {part: math.log((1 + count) / (1 + df)) + 1 for part, df in name_counts.items()}
        self.parameters = [frozenset(parameter_key(name) for name in tool.parameters) for tool in distinct]
        parameter_counts = Counter(key for keys in self.parameters for key in keys)
        self.parameter_weight = {key: informativeness(df, count) for key, df in parameter_counts.items()}
        self.actions: list[Action] = [action_of(tool, self.common) for tool in distinct]
        object_counts = Counter(item for action in self.actions for item in action.objects)
        self.object_weight = {item: informativeness(df, count) for item, df in object_counts.items()}
        self.own = [
            frozenset(stem(part) for part in name_parts(tool.wire_name) if part not in self.common | FILLER)
            for tool in distinct
        ]
        # (smaller, larger) rows whose names are near-duplicates; a family's own pair is one.
        self.near: set[tuple[int, int]] = {
            (self.row[group[0]], self.row[group[1]]) for group in self.families
        }

    def names_of(self, a: int, b: int) -> tuple[str, str]:
        """The catalog names of two rows."""
        return (self.tools[self.rows[a]].name, self.tools[self.rows[b]].name)

    def mentions(self, a: int, b: int) -> bool:
        """The description of row ``a`` names the tool of row ``b`` (every distinctive word of its name)."""
        own = self.own[b]
        return bool(own) and own <= self.word_sets[a] and not own <= self.own[a]

    def components(self, i: int, j: int) -> Components:
        """The score of tools ``i`` and ``j`` (catalog indexes) and its parts (symmetric)."""
        return self.row_components(self.row[i], self.row[j])

    def row_components(self, a: int, b: int) -> Components:
        first, second = self.vectors[a], self.vectors[b]
        if len(first) > len(second):
            first, second = second, first
        description = sum(weight * second[term] for term, weight in first.items() if term in second)
        names_a, names_b = self.names[a], self.names[b]
        if ((a, b) if a < b else (b, a)) in self.near:
            name = 1.0
        else:
            shared = names_a & names_b
            name = (
                sum(self.name_weight[part] for part in shared)
                / sum(self.name_weight[part] for part in names_a | names_b)
                if shared
                else 0.0
            )
        parameters = 0.0
        shared_parameters = self.parameters[a] & self.parameters[b]
        if shared_parameters:
            union = len(self.parameters[a] | self.parameters[b])
            rarity = sum(self.parameter_weight[key] for key in shared_parameters) / len(shared_parameters)
            parameters = rarity * math.sqrt(len(shared_parameters) / union)
        how = relation(self.actions[a], self.actions[b])
        action = 0.0
        if how in ("same", "kin"):
            shared_objects = self.actions[a].objects & self.actions[b].objects
            if shared_objects:
                action = max(self.object_weight[item] for item in shared_objects)
            elif how == "same" and self.actions[a].objects and self.actions[b].objects:
                action = SIBLING_ACTION
        mentions = 0.5 * self.mentions(a, b) + 0.5 * self.mentions(b, a)
        # An action that cannot be read leaves the description to say what the tool does.
        description_weight = DESCRIPTION_WEIGHT + (ACTION_WEIGHT if how == "unknown" else 0.0)
        score = FACTORS[how] * (
            description_weight * description
            + NAME_WEIGHT * name
            + PARAMETER_WEIGHT * parameters
            + ACTION_WEIGHT * action
            + MENTION_WEIGHT * mentions
        )
        return Components(score, description, name, parameters, action, mentions, how)


def parameter_key(name: str) -> str:
    """A parameter name as compared: its parts stemmed (``entityNames`` and ``entity_name`` meet)."""
    return " ".join(stem(part) for part in name_parts(name)) or name.lower()


def masked(text: str) -> str:
    return _NUMBER.sub("#", text)


def families_of(tools: Sequence[Tool]) -> list[list[int]]:
    """Groups of at least ``FAMILY_MIN`` tools equal but for the numbers in their names and descriptions."""
    groups: dict[tuple[str, str, tuple[str, ...]], list[int]] = defaultdict(list)
    for index, tool in enumerate(tools):
        key = (
            masked(tool.wire_name),
            masked(" ".join(tool.description.split())),
            tuple(sorted(tool.parameters)),
        )
        groups[key].append(index)
    return [members for members in groups.values() if len(members) >= FAMILY_MIN]


def compare_all(context: LintContext) -> PairAnalysis:
    """Score the candidate pairs of the catalog; keep the pairs some rule may report."""
    tools = context.tools
    count = len(tools)
    features = context.features
    analysis = PairAnalysis(pair_count=count * (count - 1) // 2)
    seconds = {features.row[group[1]] for group in features.families}
    shown = [row for row in range(len(features.rows)) if row not in seconds]
    near = _near_names(context, shown, features)
    features.near |= set(near)
    for (a, b), reason in sorted(near.items()):
        analysis.near_names.append(NearName(features.names_of(a, b), reason))
    keep = _Keeper(context, analysis)
    for a, b in sorted(_candidates(features, shown) | set(near)):
        keep.consider(a, b, features.row_components(a, b))
    for group in features.families:
        first, second = features.row[group[0]], features.row[group[1]]
        analysis.families.append(Family(tuple(tools[index].name for index in group)))
        analysis.near_names.append(
            NearName(features.names_of(first, second), f"{len(group)} names that differ only by a number")
        )
        keep.consider(first, second, features.row_components(first, second), family=len(group))
    analysis.scores.sort(reverse=True)
    analysis.kept.sort(key=lambda pair: (-pair.score, pair.tools))
    return analysis


class _Keeper:
    """Records every scored pair's score and keeps those a rule may report."""

    def __init__(self, context: LintContext, analysis: PairAnalysis) -> None:
        self.context = context
        self.features = context.features
        self.analysis = analysis
        self.trigrams: dict[int, frozenset[str]] = {}

    def _trigrams(self, row: int) -> frozenset[str]:
        if row not in self.trigrams:
            self.trigrams[row] = character_trigrams(self.context.tools[self.features.rows[row]].description)
        return self.trigrams[row]

    def consider(self, a: int, b: int, parts: Components, *, family: int | None = None) -> None:
        thresholds = self.context.thresholds
        features = self.features
        self.analysis.scores.append(parts.score)
        words_a, words_b = features.word_sets[a], features.word_sets[b]
        overlap = 0.0
        if parts.description and _may_overlap(len(words_a), len(words_b), thresholds.vocabulary_overlap):
            overlap = jaccard(words_a, words_b)
        copy = 0.0
        if parts.description >= COPY_FLOOR:
            trigrams_a, trigrams_b = self._trigrams(a), self._trigrams(b)
            if _may_overlap(len(trigrams_a), len(trigrams_b), thresholds.near_identical):
                copy = jaccard(trigrams_a, trigrams_b)
        names = features.names_of(a, b)
        if copy >= thresholds.near_identical:
            self.analysis.near_identical[names] = copy
        elif (
            parts.score < thresholds.confusable_pair
            and parts.description < thresholds.description_similarity
            and overlap <= thresholds.vocabulary_overlap
        ):
            return
        surface = self.context.surface
        first, second = (self.context.tools[features.rows[row]] for row in (a, b))
        # Built from values of known types: pydantic's validation of thousands of pairs is skipped.
        self.analysis.kept.append(
            PairScore.model_construct(
                tools=names,
                score=round(parts.score, 4),
                description=round(parts.description, 4),
                name=round(parts.name, 4),
                parameters=round(parts.parameters, 4),
                action=round(parts.action, 4),
                mentions=parts.mentions,
                relation=parts.relation,
                overlap=round(overlap, 4),
                terms=tuple(
                    surface.get(term, term) for term in shared_terms(features.vectors[a], features.vectors[b])
                ),
                cross_server=first.server != second.server,
                family=family,
            )
        )


def _candidates(features: Features, shown: Sequence[int]) -> set[tuple[int, int]]:
    """Pairs of ``shown`` rows that share a feature.

    Past ``CANDIDATE_DF`` rows, only features at most ``CANDIDATE_DF`` rows share propose pairs, and
    each row keeps its ``NEIGHBOURS`` strongest (by the weight of what they share).
    """
    large = len(shown) > CANDIDATE_DF
    postings: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for row in shown:
        vector = features.vectors[row]
        for term, weight in vector.items():
            postings[("d", term)].append((row, weight))
        for part in features.names[row] | features.actions[row].objects:
            if not large or part not in vector:  # in a large catalog, a word of both counts once
                postings[("n", part)].append((row, 0.2))
        for key in features.parameters[row]:
            postings[("p", key)].append((row, 0.1))
    found: set[tuple[int, int]] = set()
    if not large:
        for posting in postings.values():
            rows = sorted(row for row, _ in posting)
            found.update((a, b) for position, a in enumerate(rows) for b in rows[position + 1 :])
        return found
    by_row: dict[int, list[tuple[list[tuple[int, float]], float]]] = defaultdict(list)
    for posting in postings.values():
        if 1 < len(posting) <= CANDIDATE_DF:
            for row, weight in posting:
                by_row[row].append((posting, weight))
    for row, entries in by_row.items():
        strength: dict[int, float] = defaultdict(float)
        for posting, weight in entries:
            for other, other_weight in posting:
                strength[other] += weight * other_weight
        strength.pop(row, None)
        best = heapq.nlargest(NEIGHBOURS, ((value, -other) for other, value in strength.items()))
        found.update((row, -other) if row < -other else (-other, row) for _, other in best)
    return found


def _may_overlap(size_a: int, size_b: int, floor: float) -> bool:
    """Whether two sets of these sizes can have a Jaccard above ``floor`` (at best min/max)."""
    return size_a > 0 and min(size_a, size_b) > floor * max(size_a, size_b)


def _deletions(name: str, limit: int) -> set[str]:
    """Every string ``limit`` or fewer deletions make of ``name``."""
    if limit <= 2:  # the default: each pair of positions once (j ≥ i), which is twice as fast
        ones = [name[:index] + name[index + 1 :] for index in range(len(name))] if limit else []
        found = {name, *ones}
        if limit == 2:
            for index, one in enumerate(ones):
                found.update([one[:other] + one[other + 1 :] for other in range(index, len(one))])
        return found
    found = {name}
    frontier = {name}
    for _ in range(limit):
        frontier = {word[:index] + word[index + 1 :] for word in frontier for index in range(len(word))}
        found |= frontier
    return found


def _near_names(context: LintContext, shown: Sequence[int], features: Features) -> dict[tuple[int, int], str]:
    """(smaller row, larger row) → why two names are near-duplicates (spelling, or the same words).

    Names that differ by opposite actions (get_user / set_user) are not near-duplicates to a model.
    """
    limit = context.thresholds.name_distance
    tools = context.tools
    lowered = {row: tools[features.rows[row]].wire_name.lower() for row in shown}
    found: dict[tuple[int, int], str] = {}
    eligible = [row for row in shown if len(lowered[row]) > 4]
    candidates: set[tuple[int, int]] = set()
    if limit <= MAX_DELETION_LIMIT:
        # Most variants belong to one name: keep its row, and a list only once a second name has it.
        by_variant: dict[str, int | list[int]] = {}
        for row in eligible:
            for variant in _deletions(lowered[row], min(limit, len(lowered[row]) - 1)):
                earlier = by_variant.setdefault(variant, row)
                if earlier == row:
                    continue
                if isinstance(earlier, list):
                    candidates.update((other, row) for other in earlier)
                    earlier.append(row)
                else:
                    candidates.add((earlier, row))
                    by_variant[variant] = [earlier, row]
    else:  # deletion neighbourhoods grow combinatorially: compare names of close lengths instead
        candidates = {
            (a, b)
            for a in eligible
            for b in eligible
            if a < b and abs(len(lowered[a]) - len(lowered[b])) <= limit
        }
    for a, b in sorted(candidates):
        distance = edit_distance(lowered[a], lowered[b], limit)
        if distance <= limit:
            found[(a, b)] = f"{plural(distance, 'edit')} apart"
    by_words: dict[frozenset[str], list[int]] = defaultdict(list)
    for row in shown:
        parts = context.name_parts[features.rows[row]]
        if parts:
            by_words[parts].append(row)
    for group in by_words.values():
        for a in group:
            for b in group:
                if a < b and (a, b) not in found:
                    found[(a, b)] = "the same words once synonyms and plurals are merged"
    actions = features.actions
    return {
        pair: why for pair, why in found.items() if relation(actions[pair[0]], actions[pair[1]]) != "opposed"
    }


def character_trigrams(text: str) -> frozenset[str]:
    """The three-character pieces of a text (case and spacing ignored): near copies share nearly all."""
    flat = " ".join(text.lower().split())
    return frozenset(flat[index : index + 3] for index in range(max(len(flat) - 2, 0)))
