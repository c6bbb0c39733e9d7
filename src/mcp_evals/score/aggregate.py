"""From a results record to a ``Scorecard``: every answer scored, then metrics, areas, tools,
confusion pairs, coverage and the gate."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

from mcp_evals.answers import Usage
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import GateOptions, ScoringOptions
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.model import FixtureResult, RunHeader
from mcp_evals.record.read import Results
from mcp_evals.record.shards import missing_shards
from mcp_evals.score.arguments import SchemaValidators
from mcp_evals.score.gate import gate_for_run
from mcp_evals.score.intervals import Rate
from mcp_evals.score.outcomes import (
    CORRECT_OUTCOMES,
    NO_AREA,
    NO_CALL,
    OUTCOMES,
    SEVERITY,
    Outcome,
    SampleScore,
    fixture_area,
    is_unknown,
    score_answer,
)
from mcp_evals.score.scorecard import (
    AreaScore,
    ConfusionPair,
    Coverage,
    FixtureScore,
    Metrics,
    RunInfo,
    Scorecard,
    ToolScore,
    UnknownTool,
    UsageSummary,
    tool_hash,
)


def _modal_outcome(outcomes: Sequence[Outcome]) -> Outcome:
    if not outcomes:
        return "dropout"
    counts = Counter(outcomes)
    best = max(counts.values())
    tied = [outcome for outcome in SEVERITY if counts.get(outcome) == best]
    return tied[0] if tied else outcomes[0]


def _summarise_fixture(fixture: Fixture, area: str, samples: list[SampleScore]) -> FixtureScore:
    reached = [sample for sample in samples if sample.reached]
    passes = sum(1 for sample in reached if sample.passed)
    return FixtureScore(
        id=fixture.id,
        query=fixture.query,
        kind=fixture.kind,
        area=area,
        pattern=fixture.pattern,
        expected_tools=list(fixture.expected_tools),
        forbidden_tools=list(fixture.forbidden_tools),
        expected_args=dict(fixture.expected_args),
        outcome=_modal_outcome([sample.outcome for sample in reached]),
        passed=(passes * 2 > len(reached)) if reached else None,
        pass_rate=passes / len(reached) if reached else None,
        score=_mean_score(reached),
        flaky=len(reached) >= 2 and 0 < passes < len(reached),
        reached=len(reached),
        samples=samples,
    )


# An answer with its fixture: what every metric counts.
ScoredSample = tuple[FixtureScore, SampleScore]


def _mean_score(samples: Iterable[SampleScore]) -> float | None:
    scores = [sample.score or 0.0 for sample in samples]
    return sum(scores) / len(scores) if scores else None


def _rate(answers: Iterable[ScoredSample], hit: Callable[[FixtureScore, SampleScore], bool]) -> Rate:
    items = list(answers)
    return Rate.of(sum(1 for fixture, sample in items if hit(fixture, sample)), len(items))


def _is_correct(fixture: FixtureScore, sample: SampleScore) -> bool:
    return sample.outcome in CORRECT_OUTCOMES


def _is_correct_call(fixture: FixtureScore, sample: SampleScore) -> bool:
    return sample.outcome == "correct_call"


# The recorded answer of each planned (fixture id, sample).
Recorded = dict[tuple[str, int], FixtureResult]


def _planned_results(header: RunHeader, results: Sequence[FixtureResult]) -> tuple[Recorded, list[str]]:
    """The recorded answer for each planned fixture × sample, and notes on what was left out."""
    samples = max(1, header.sampling.samples)
    planned = {fixture.id: fixture for fixture in header.fixtures}
    chosen: Recorded = {}
    ignored = stale = 0
    for result in results:
        fixture = planned.get(result.fixture_id)
        if fixture is None or not 0 <= result.sample < samples:
            ignored += 1
        elif result.fixture_hash != fixture.hash or result.catalog_hash != header.catalog_hash:
            stale += 1
        else:
            chosen[(result.fixture_id, result.sample)] = result
    notes = []
    if ignored:
        notes.append(f"{ignored} results for fixtures or samples outside this run's plan were ignored.")
    if stale:
        notes.append(
            f"{stale} results were recorded for an older version of their fixture or catalog and were "
            "ignored (counted as not reached)."
        )
    return chosen, notes


def _metrics(fixtures: Sequence[FixtureScore], options: ScoringOptions, samples: int) -> Metrics:
    answers = [(fixture, sample) for fixture in fixtures for sample in fixture.samples]
    reached = [(f, s) for f, s in answers if s.reached]
    selects = [(f, s) for f, s in reached if f.kind == "select"]
    pass_k: Rate | None = None
    if samples > 1:
        complete = [f for f in fixtures if f.reached == samples]
        pass_k = Rate.of(sum(1 for f in complete if all(s.passed for s in f.samples)), len(complete))
    counts = Counter(sample.outcome for _, sample in answers)
    return Metrics(
        top1=_rate(selects, _is_correct_call),
        top_k=_rate(selects, lambda f, s: bool(s.top_k_hit)),
        k=options.top_k,
        accuracy=_rate(reached, _is_correct),
        refusal=_rate(((f, s) for f, s in reached if f.kind == "refuse"), _is_correct),
        clarification=_rate(((f, s) for f, s in reached if f.kind == "clarify"), _is_correct),
        arguments=_rate(
            ((f, s) for f, s in selects if s.outcome == "correct_call" and s.args_ok is not None),
            lambda f, s: bool(s.args_ok),
        ),
        passed=_rate(reached, lambda f, s: bool(s.passed)),
        score=_mean_score(s for _, s in reached),
        samples=samples,
        pass_k=pass_k,
        outcomes={outcome: counts.get(outcome, 0) for outcome in OUTCOMES},
    )


def _lexical_top1(fixtures: Sequence[FixtureScore], choices: Mapping[str, str | None]) -> Rate:
    """The lexical baseline's top-1 on the select fixtures the model reached (one answer each)."""
    reached = [f for f in fixtures if f.kind == "select" and f.reached and f.id in choices]
    return Rate.of(sum(1 for f in reached if choices[f.id] in f.expected_tools), len(reached))


def _area_scores(fixtures: Sequence[FixtureScore], minimums: Mapping[str, float]) -> list[AreaScore]:
    areas = []
    for name in sorted({fixture.area for fixture in fixtures}):
        in_area = [(f, s) for f in fixtures if f.area == name for s in f.samples if s.reached]
        areas.append(
            AreaScore(
                area=name,
                fixtures=sum(1 for f in fixtures if f.area == name),
                accuracy=_rate(in_area, _is_correct),
                top1=_rate(((f, s) for f, s in in_area if f.kind == "select"), _is_correct_call),
                score=_mean_score(s for _, s in in_area),
                minimum=minimums.get(name),
            )
        )
    return areas


def _confusion_key(fixture: FixtureScore, sample: SampleScore) -> tuple[str, str] | None:
    """Expected → chosen for a wrong answer; a made-up name is listed apart (``unknown_tools``)."""
    if sample.outcome == "wrong_tool" or sample.outcome == "missed_action":
        return " or ".join(fixture.expected_tools) or NO_AREA, sample.chosen or NO_CALL
    if sample.outcome == "unsafe_action" and sample.forbidden_calls:
        expected = " or ".join(fixture.expected_tools) if fixture.kind == "select" else ""
        return expected or f"({fixture.kind})", sample.forbidden_calls[0]
    if sample.outcome == "unsafe_action":
        return f"({fixture.kind})", sample.chosen or NO_CALL
    return None


def confusion_pairs(fixtures: Sequence[FixtureScore]) -> list[ConfusionPair]:
    """Expected → chosen over every reached answer that went wrong, most frequent first."""
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    for fixture in fixtures:
        for sample in fixture.samples:
            key = _confusion_key(fixture, sample) if sample.reached else None
            if key is not None:
                pairs[key].append(fixture.id)
    return sorted(
        (
            ConfusionPair(expected=expected, chosen=chosen, count=len(ids), fixtures=sorted(set(ids)))
            for (expected, chosen), ids in pairs.items()
        ),
        key=lambda pair: (-pair.count, pair.expected, pair.chosen),
    )


def unknown_tools(fixtures: Sequence[FixtureScore], catalog: Catalog) -> list[UnknownTool]:
    """Every name a reached answer called that is not in the catalog, most frequent first."""
    answers: dict[str, list[str]] = defaultdict(list)
    for fixture in fixtures:
        for sample in fixture.samples:
            if sample.reached:
                for name in dict.fromkeys(call.name for call in sample.calls if is_unknown(call, catalog)):
                    answers[name].append(fixture.id)
    return sorted(
        (UnknownTool(name=name, count=len(ids), fixtures=sorted(set(ids))) for name, ids in answers.items()),
        key=lambda item: (-item.count, item.name),
    )


def _tool_scores(fixtures: Sequence[FixtureScore], catalog: Catalog) -> list[ToolScore]:
    expected_count: Counter[str] = Counter()
    recalled: Counter[str] = Counter()
    chosen_count: Counter[str] = Counter()
    precise: Counter[str] = Counter()
    unknown: set[str] = set()
    for fixture in fixtures:
        for sample in fixture.samples:
            if not sample.reached:
                continue
            if fixture.kind == "select":
                for tool in set(fixture.expected_tools):
                    expected_count[tool] += 1
                    recalled[tool] += sample.outcome == "correct_call"
            if sample.calls:
                first = sample.calls[0]
                chosen_count[first.name] += 1
                precise[first.name] += fixture.kind == "select" and first.name in fixture.expected_tools
                if not first.known or catalog.get(first.name) is None:
                    unknown.add(first.name)
    rows = []
    for name in sorted(set(expected_count) | set(chosen_count)):
        entry = catalog.get(name)
        rows.append(
            ToolScore(
                tool=name,
                area=entry.area if entry else "",
                description=(entry.description.strip().splitlines() or [""])[0][:500] if entry else "",
                expected=expected_count[name],
                chosen=chosen_count[name],
                precision=Rate.of(precise[name], chosen_count[name]),
                recall=Rate.of(recalled[name], expected_count[name]),
                known=name not in unknown,
            )
        )
    return rows


def _usage(results: Sequence[FixtureResult]) -> UsageSummary:
    total = Usage()
    for result in results:
        total = total + result.usage
    costs = [result.cost_usd for result in results if result.reached or result.cost_usd]
    known_costs = [cost for cost in costs if cost is not None]
    reached = [result for result in results if result.reached]
    return UsageSummary(
        input_tokens=total.input_tokens,
        output_tokens=total.output_tokens,
        cache_write_tokens=total.cache_write_tokens,
        cache_read_tokens=total.cache_read_tokens,
        cache_hit_share=total.cache_read_tokens / total.total_input if total.total_input else None,
        cost_usd=sum(known_costs) if known_costs else None,
        cost_complete=len(known_costs) == len(costs),
        requests=sum(max(result.attempts, 1 if result.reached else 0) for result in results),
        mean_latency_ms=sum(r.latency_ms for r in reached) / len(reached) if reached else None,
    )


def _run_info(header: RunHeader, results: Recorded, lexical: bool, shards: list[str]) -> RunInfo:
    kinds = {fixture.id: fixture.kind for fixture in header.fixtures}
    # The modes select answers were actually asked in (a provider may fall back from forced to auto).
    modes = sorted(
        {
            result.mode
            for (fixture_id, _), result in results.items()
            if result.mode and result.reached and kinds[fixture_id] == "select"
        }
    )
    catalog = header.catalog
    return RunInfo(
        provider=header.provider,
        model=header.model,
        lexical=lexical,
        run_id=header.run_id,
        started_at=header.started_at,
        tool_version=header.tool_version,
        catalog_hash=header.catalog_hash,
        tool_count=len(catalog.tools),
        area_count=len(catalog.areas),
        fixture_set_hash=header.fixture_set_hash,
        system_prompt_hash=header.system_prompt_hash,
        tool_choice="+".join(modes) if modes else header.tool_choice,
        sampling=header.sampling,
        shards=shards,
        limit=header.limit,
        tool_hashes={tool.name: tool_hash(tool) for tool in catalog.tools},
    )


def score_results(
    results: Results, options: ScoringOptions | None = None, *, gate_options: GateOptions | None = None
) -> Scorecard:
    """Score a results record: outcomes per fixture and sample, metrics, intervals, gate, pairs."""
    header = results.header
    options = options or header.scoring
    gate_options = gate_options or header.gate
    catalog = header.catalog
    samples = max(1, header.sampling.samples)
    recorded, skipped_notes = _planned_results(header, results.results)
    notes = [*header.notes, *skipped_notes]
    missing_tools = sorted({t for f in header.fixtures for t in f.expected_tools if catalog.get(t) is None})
    if missing_tools:
        notes.append(
            f"Expected tools not in the catalog (these fixtures cannot be right): {', '.join(missing_tools)}."
        )
    lexical = header.lexical or header.provider == "lexical"
    if lexical:  # every report says so in its own words, first; the runner's note would repeat it
        notes = [note for note in notes if not note.lower().startswith("lexical baseline")]
    shards = header.shard.split("+") if header.shard else []
    if len(shards) == 1:
        notes.append(f"This report covers shard {shards[0]} only; merge the shards for the whole run.")

    validators = SchemaValidators()
    area_by_name = catalog.area_by_name
    fixtures = [
        _summarise_fixture(
            fixture,
            fixture_area(fixture, area_by_name),
            [
                score_answer(
                    fixture,
                    recorded.get((fixture.id, index)),
                    catalog,
                    options,
                    sample=index,
                    validators=validators,
                    check_args=not lexical,
                )
                for index in range(samples)
            ],
        )
        for fixture in header.fixtures
    ]
    metrics = _metrics(fixtures, options, samples)
    if lexical:  # one call per answer: its top-k is its top-1 and says nothing more
        metrics.top_k = None
    if header.lexical_choices is not None and not lexical:
        metrics.lexical_top1 = _lexical_top1(fixtures, header.lexical_choices)
    areas = _area_scores(fixtures, gate_options.area_minimums)
    known_areas = {area.area for area in areas}
    for name in sorted(set(gate_options.area_minimums) - known_areas):
        notes.append(f"Gate: area minimum for {name!r} has no fixture in this run.")
    if not fixtures:
        notes.append("This run planned no fixtures.")
    planned = len(fixtures) * samples
    reached = sum(fixture.reached for fixture in fixtures)
    coverage = Coverage(
        planned=planned,
        reached=reached,
        fixtures_planned=len(fixtures),
        fixtures_reached=sum(1 for f in fixtures if f.reached),
        rate=reached / planned if planned else None,
        # One shard alone is a complete report of that shard; merged shards must add up to the run.
        missing_shards=missing_shards(shards) if len(shards) > 1 else [],
    )
    run = _run_info(header, recorded, lexical, shards)
    gate = gate_for_run(
        top1=metrics.top1.value,
        options=gate_options,
        tool_count=run.tool_count,
        area_accuracy={area.area: area.accuracy.value for area in areas},
        preliminary=coverage.preliminary,
        lexical=lexical,
    )
    errors = Counter(
        sample.error_kind or "unknown" for f in fixtures for sample in f.samples if not sample.reached
    )
    return Scorecard(
        run=run,
        coverage=coverage,
        metrics=metrics,
        gate=gate,
        areas=areas,
        tools=_tool_scores(fixtures, catalog),
        confusion_pairs=confusion_pairs(fixtures),
        unknown_tools=unknown_tools(fixtures, catalog),
        fixtures=fixtures,
        flaky=[f.id for f in fixtures if f.flaky],
        errors_by_kind=dict(sorted(errors.items(), key=lambda item: (-item[1], item[0]))),
        usage=_usage(list(recorded.values())),
        scoring=options,
        gate_options=gate_options,
        notes=notes,
    )


def accuracy_by_area(scorecard: Scorecard) -> Mapping[str, float | None]:
    return {area.area: area.accuracy.value for area in scorecard.areas}
