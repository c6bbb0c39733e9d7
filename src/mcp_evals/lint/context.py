"""What the rules look at: the catalog, the fixtures and the analyses several rules share, computed once.

The expensive part is the comparison of tools in pairs (``lint.pairs``): it runs once per lint, in
``pairs``, and feeds the name, description and consistency rules and the confusion prediction alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from mcp_evals.catalog.model import Catalog, Tool, matches
from mcp_evals.config.model import LintThresholds
from mcp_evals.fixtures.model import Fixture
from mcp_evals.lint.schemas import pipeline_parameters, properties_of, walk
from mcp_evals.lint.text import canonical_parts
from mcp_evals.providers.pricing import Price
from mcp_evals.providers.tokens import estimate_tool_tokens
from mcp_evals.servers.model import Conformance
from mcp_evals.text import surface_words

if TYPE_CHECKING:
    from mcp_evals.lint.pairs import Features, PairAnalysis


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
    # What it is about when not a tool (a prompt, a resource, a method), and the server to point at.
    subject: str | None = None
    server: str | None = None


@dataclass(frozen=True)
class ProbeResult:
    """What a server answered when a tool with required parameters was called with ``{}``."""

    tool: str
    is_error: bool
    text: str


@dataclass(frozen=True)
class ProbeSkip:
    """A tool the probe did not call, and why."""

    tool: str
    reason: str


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
    conformance: Sequence[Conformance] | None = None

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

    # ------------------------------------------------------------------ names and parameters

    @cached_property
    def name_parts(self) -> list[frozenset[str]]:
        return [frozenset(canonical_parts(tool.wire_name)) for tool in self.tools]

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
    def features(self) -> Features:
        """What the pair score reads of each tool (see ``lint.pairs``)."""
        from mcp_evals.lint.pairs import Features

        return Features(self.tools, [[stemmed for stemmed, _ in words] for words in self.description_words])

    @cached_property
    def pairs(self) -> PairAnalysis:
        from mcp_evals.lint.pairs import compare_all

        return compare_all(self)

    @cached_property
    def position(self) -> dict[str, int]:
        return {tool.name: index for index, tool in enumerate(self.tools)}

    def score_of(self, first: str, second: str) -> float:
        """The confusion score of any two tools (the formula of ``lint.pairs``; a family's pair for two
        tools of one family)."""
        family = self.pairs.family_of.get(first)
        if family is not None and second in family.tools:
            first, second = family.tools[0], family.tools[1]
        return self.features.components(self.position[first], self.position[second]).score
