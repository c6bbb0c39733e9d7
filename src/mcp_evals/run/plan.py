"""Planning a run (pure): which fixtures, which jobs, the header every report is rendered from."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Collection, Mapping, Sequence

from mcp_evals._version import __version__
from mcp_evals.config.model import GateOptions, ScoringOptions
from mcp_evals.fixtures.model import Fixture, fixture_set_hash
from mcp_evals.fixtures.validate import fixture_area
from mcp_evals.providers.pricing import Price
from mcp_evals.providers.tokens import estimate_prefix_tokens
from mcp_evals.record.model import RunHeader, SamplingSettings
from mcp_evals.record.shards import parse_shard
from mcp_evals.run.asker import Asker, Job
from mcp_evals.wording import number


def shard_fixtures(fixtures: Sequence[Fixture], index: int, count: int) -> list[Fixture]:
    """A deterministic 1/N of the fixtures: balanced, disjoint, and the shards together are all of them.

    Fixtures are ordered by a hash of their id (independent of file order and machine) and dealt
    round-robin, so every shard gets a similar mix of areas and sizes differ by at most one.
    """

    def position(fixture: Fixture) -> tuple[str, str]:
        return hashlib.sha256(fixture.id.encode("utf-8")).hexdigest(), fixture.id

    ordered = sorted(fixtures, key=position)
    chosen = {fixture.id for position, fixture in enumerate(ordered) if position % count == index - 1}
    return [fixture for fixture in fixtures if fixture.id in chosen]


def select_fixtures(
    fixtures: Sequence[Fixture],
    *,
    tools: Collection[str] = (),
    areas: Collection[str] = (),
    area_by_name: Mapping[str, str] | None = None,
) -> list[Fixture]:
    """A targeted re-run (``--only-tools``, ``--only-areas``): the fixtures that expect or forbid one of
    ``tools`` or count in one of ``areas``, plus every refuse and clarify fixture (a changed tool can
    draw a call where none was right). With neither, every fixture; with both, either picks one."""
    if not tools and not areas:
        return list(fixtures)
    by_name = area_by_name or {}
    return [
        fixture
        for fixture in fixtures
        if fixture.kind != "select"
        or any(name in tools for name in (*fixture.expected_tools, *fixture.forbidden_tools))
        or (areas and fixture_area(fixture, by_name) in areas)
    ]


def plan_fixtures(
    fixtures: Sequence[Fixture], *, limit: int | None = None, shard: str | None = None
) -> list[Fixture]:
    """The fixtures a run covers: the first ``limit`` (a smoke run), then this run's shard."""
    planned = list(fixtures[:limit] if limit is not None else fixtures)
    if shard:
        planned = shard_fixtures(planned, *parse_shard(shard))
    return planned


def plan_jobs(
    fixtures: Sequence[Fixture], samples: int, done: set[tuple[str, str, int]] | None = None
) -> list[Job]:
    """One job per (fixture, sample), minus those ``done`` already holds (keyed by id, hash, sample)."""
    done = done or set()
    return [
        Job(fixture, sample)
        for fixture in fixtures
        for sample in range(samples)
        if (fixture.id, fixture.hash, sample) not in done
    ]


def make_header(
    *,
    asker: Asker,
    planned: Sequence[Fixture],
    all_fixtures: Sequence[Fixture],
    samples: int,
    shard: str | None,
    limit: int | None,
    exclude_tools: Sequence[str],
    scoring: ScoringOptions,
    gate: GateOptions,
    notes: Sequence[str] = (),
    lexical_choices: dict[str, str | None] | None = None,
) -> RunHeader:
    forced_known = asker.mode_for(Fixture(id="-", query="-"), forced_rejected=False)
    catalog, system_prompt, options = asker.catalog, asker.system_prompt, asker.options
    return RunHeader(
        tool_version=__version__,
        run_id=uuid.uuid4().hex[:16],
        provider=asker.provider.name,
        model=asker.model,
        lexical=asker.provider.lexical,
        catalog=catalog,
        catalog_hash=catalog.hash,
        fixtures=list(planned),
        fixture_set_hash=fixture_set_hash(all_fixtures),
        system_prompt=system_prompt,
        system_prompt_hash=hashlib.sha256(system_prompt.encode("utf-8")).hexdigest(),
        tool_choice=forced_known or "none",
        sampling=SamplingSettings(
            temperature=options.temperature, max_tokens=options.max_tokens, samples=samples
        ),
        shard=shard,
        limit=limit,
        exclude_tools=list(exclude_tools),
        scoring=scoring,
        gate=gate,
        notes=list(notes),
        lexical_choices=lexical_choices,
    )


# The pre-run caching note's words: the runner takes the note back when the first answer shows caching.
EXPECT_NOTHING_CACHED = "expect nothing to be cached"


def caching_note(prefix_tokens: int, price: Price, model: str) -> str | None:
    """What to say when a request's prefix is below the model's caching minimum (None when it is not):
    the run's note, and ``--dry``'s line for the counted prefix."""
    if prefix_tokens >= price.min_cache_tokens:
        return None
    return (
        f"the catalog and system prompt are about {number(prefix_tokens)} tokens, below the "
        f"{number(price.min_cache_tokens)}-token minimum {model} caches: {EXPECT_NOTHING_CACHED} (every "
        "request pays full input price)"
    )


def run_notes(
    asker: Asker, price: Price | None, *, batch: bool = False, replayed: str | None = None
) -> list[str]:
    """What the header (and so every report) must say about a run before it starts."""
    provider = asker.provider
    notes: list[str] = []
    if provider.lexical:
        notes.append(
            "lexical baseline (BM25 over tool names, descriptions and parameters, not a model): "
            "advisory, never gates"
        )
    if replayed:
        notes.append(replayed)
    if batch:
        notes.append("sent through the Message Batches API (50% price; latency not measured)")
    notes.extend(asker.notes())
    if provider.uses_network and price is None:
        notes.append(f"no price known for {asker.model}: cost not computed")
    if provider.reports_cache_usage and asker.caching and price is not None:
        prefix_tokens = estimate_prefix_tokens(asker.tools, asker.system_prompt)
        note = caching_note(prefix_tokens, price, asker.model)
        if note is not None:
            notes.append(note)
    return notes
