"""From intents and their paraphrases to fixtures (pure): the lint's judgement, ids, the split.

Two checks keep the held-out step held out and the result honest, both the lint's own fixture rules
(called, not rewritten):

* before the paraphrase, an intent whose goal names a tool or a parameter by its identifier (F001,
  on the goal: names of two or more parts, ``search_tickets``, ``customerId``; a one-word name such
  as ``echo`` or ``query`` is an ordinary word and passes) is dropped: the held-out step must never
  read the catalog's vocabulary;
* after it, a query that names a tool or a parameter the same way (F001) is dropped, and a query
  for a pipeline tool without a concrete value for its id (F002) is flagged: kept, with a note, and
  never in the test split (a test fixture must be a fair question).
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import ValidationOptions
from mcp_evals.fixtures.model import Fixture
from mcp_evals.fixtures.validate import has_errors, normalize_query, validate_fixtures
from mcp_evals.lint.context import LintContext
from mcp_evals.lint.rules.fixtures import pipeline_value_missing, vocabulary_leak
from mcp_evals.synth.model import Candidate, Intent


@dataclass
class Dropped:
    """Something synthesis left out, and why (shown in the command's summary)."""

    what: str
    reason: str


@dataclass
class Assembly:
    fixtures: list[Fixture] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)  # ids of fixtures kept with a lint warning


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]


def screen_intents(
    intents: Sequence[Intent], catalog: Catalog, exclude_tools: Sequence[str] = ()
) -> tuple[list[Intent], list[Dropped]]:
    """The intents fit to paraphrase: their tool exists, and their goal names no tool or parameter."""
    known: list[Intent] = []
    dropped: list[Dropped] = []
    for intent in intents:
        if intent.kind == "refuse" or intent.tool in catalog.by_name:
            known.append(intent)
        else:
            dropped.append(
                Dropped(f"intent {intent.goal!r}", f"{intent.source}: names no tool of the catalog")
            )
    probes = [Fixture(id=f"goal-{index}", query=intent.goal) for index, intent in enumerate(known)]
    context = LintContext(catalog=catalog, fixtures=probes, exclude_tools=exclude_tools)
    leaking = {hit.fixture.id: hit.message for hit in vocabulary_leak(context) if hit.fixture}
    kept = []
    for probe, intent in zip(probes, known, strict=True):
        if probe.id in leaking:
            reason = leaking[probe.id].split(": ", 1)[-1].replace("the query", "the goal", 1)
            dropped.append(Dropped(f"intent {intent.goal!r}", f"F001 before the paraphrase: {reason}"))
        else:
            kept.append(intent)
    return kept, dropped


def _expected_args(intent: Intent, query: str, catalog: Catalog) -> dict[str, Any]:
    """The values the query states verbatim, for parameters the tool declares."""
    tool = catalog.by_name.get(intent.tool or "")
    if tool is None:
        return {}
    folded = query.casefold()
    return {
        name: value
        for name, value in intent.values.items()
        if name in tool.parameters
        and isinstance(value, str | int | float)
        and not isinstance(value, bool)
        and str(value).strip()
        and str(value).casefold() in folded
    }


def to_fixture(candidate: Candidate, catalog: Catalog) -> Fixture:
    intent, query = candidate.intent, candidate.query
    digest = _short_hash(query)
    if intent.kind == "refuse":
        return Fixture(
            id=f"synth-refuse-{digest}",
            query=query,
            kind="refuse",
            notes=f"synthesized: out of scope: {intent.goal}",
            origin="synthesized",
        )
    if intent.kind == "clarify":
        return Fixture(
            id=f"synth-clarify-{intent.tool}-{digest}",
            query=query,
            kind="clarify",
            notes=f"synthesized: needs {intent.tool} but leaves out {', '.join(intent.missing)}: "
            f"{intent.goal}",
            origin="synthesized",
        )
    return Fixture(
        id=f"synth-{intent.tool}-{digest}",
        query=query,
        expected_tools=[intent.tool or ""],
        pattern=intent.pattern,
        expected_args=_expected_args(intent, query, catalog),
        notes=f"synthesized from the intent: {intent.goal}",
        origin="synthesized",
    )


def _fits_the_catalog(fixture: Fixture, catalog: Catalog) -> Fixture | None:
    """The fixture as `validate` accepts it: without its expected arguments if they do not fit."""
    options = ValidationOptions()
    if not has_errors(validate_fixtures([fixture], catalog, options)):
        return fixture
    bare = fixture.model_copy(update={"expected_args": {}})
    return bare if not has_errors(validate_fixtures([bare], catalog, options)) else None


def _group(fixture: Fixture) -> str:
    return fixture.expected_tools[0] if fixture.kind == "select" and fixture.expected_tools else fixture.kind


def assign_splits(fixtures: Sequence[Fixture], test_share: float, *, frozen: bool) -> list[Fixture]:
    """``split`` for each new fixture, assigned once and deterministically.

    With a frozen test split (the output file has one), every new fixture joins dev. Otherwise, per
    tool (and for refuse and clarify), the fixtures whose id hashes lowest go to test, about
    ``test_share`` of each group. Flagged fixtures (a lint warning in their notes) stay in dev.
    """
    if frozen:
        return [fixture.model_copy(update={"split": "dev"}) for fixture in fixtures]
    groups: dict[str, list[Fixture]] = defaultdict(list)
    for fixture in fixtures:
        if not (fixture.notes or "").startswith("flagged"):
            groups[_group(fixture)].append(fixture)
    test: set[str] = set()
    for members in groups.values():
        ranked = sorted(members, key=lambda item: hashlib.sha256(item.id.encode("utf-8")).hexdigest())
        test.update(item.id for item in ranked[: math.floor(len(ranked) * test_share + 0.5)])
    return [
        fixture.model_copy(update={"split": "test" if fixture.id in test else "dev"}) for fixture in fixtures
    ]


def assemble(
    candidates: Sequence[Candidate],
    catalog: Catalog,
    *,
    existing: Sequence[Fixture] = (),
    test_share: float = 0.3,
    frozen: bool = False,
    exclude_tools: Sequence[str] = (),
) -> Assembly:
    """Fixtures from the paraphrased candidates, judged by the lint, deduplicated, split."""
    result = Assembly()
    seen = {normalize_query(fixture.query) for fixture in existing}
    ids = {fixture.id for fixture in existing}
    fixtures: list[Fixture] = []
    for candidate in candidates:
        fixture = _fits_the_catalog(to_fixture(candidate, catalog), catalog)
        if fixture is None:
            result.dropped.append(
                Dropped(f"query {candidate.query!r}", "does not validate against the catalog")
            )
            continue
        key = normalize_query(fixture.query)
        if key in seen or fixture.id in ids:
            result.dropped.append(Dropped(f"query {fixture.query!r}", "a fixture already asks this"))
            continue
        seen.add(key)
        ids.add(fixture.id)
        fixtures.append(fixture)

    context = LintContext(catalog=catalog, fixtures=fixtures, exclude_tools=exclude_tools)
    leaks = {hit.fixture.id: hit.message for hit in vocabulary_leak(context) if hit.fixture}
    unfair = {hit.fixture.id: hit.message for hit in pipeline_value_missing(context) if hit.fixture}
    kept = []
    for fixture in fixtures:
        if fixture.id in leaks:
            result.dropped.append(Dropped(f"query {fixture.query!r}", f"F001: {leaks[fixture.id]}"))
            continue
        if fixture.id in unfair:
            note = f"flagged by the lint (F002, kept in dev): {unfair[fixture.id]}. {fixture.notes or ''}"
            fixture = fixture.model_copy(update={"notes": note.strip()})
            result.flagged.append(fixture.id)
        kept.append(fixture)
    result.fixtures = assign_splits(kept, test_share, frozen=frozen)
    return result
