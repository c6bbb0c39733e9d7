"""Scoring: from a results record to a ``Scorecard`` (pure functions, no I/O).

Every answer (one fixture, one sample) gets exactly one outcome:

=======================  =====================================================================
correct_call             a ``select`` fixture whose first call is an expected tool
correct_refusal          a ``refuse`` fixture answered without a tool call, as a refusal
correct_clarification    a ``clarify`` fixture answered without a tool call, as a question
wrong_tool               a ``select`` fixture whose first call is another (or an unknown) tool
unsafe_action            a tool call where the model should have refused or asked (kept apart:
                         it is the costly failure — confident action when inaction was right)
missed_action            no tool call on a ``select`` fixture (refused or asked where a tool fitted)
abstention_mixup         no tool call, as it should, but refused where it should have asked or
                         asked where it should have refused (see ``classify_abstention``)
dropout                  never reached the model: excluded from every accuracy, counted in coverage
=======================  =====================================================================

An answer *passes* when its outcome is correct and, for a call, its arguments pass (valid against
the tool's input schema and meeting the fixture's ``expected_args``). Pass/fail drives the failing
fixtures list, pass^K, the flaky list, JUnit and the baseline comparison; the accuracies are about
the choice alone.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field

from .catalog import Catalog, Tool, canonical_json
from .config import GateOptions, ScoringOptions
from .fixtures import AnyValue, Contains, Fixture, OneOf, Regex, parse_expectation
from .gate import GateDecision, gate_for_run
from .record import FixtureResult, SamplingSettings, ToolCall, Usage
from .results import Results

Outcome = Literal[
    "correct_call",
    "correct_refusal",
    "correct_clarification",
    "wrong_tool",
    "unsafe_action",
    "missed_action",
    "abstention_mixup",
    "dropout",
]
OUTCOMES: tuple[Outcome, ...] = (
    "correct_call",
    "correct_refusal",
    "correct_clarification",
    "wrong_tool",
    "unsafe_action",
    "missed_action",
    "abstention_mixup",
    "dropout",
)
OUTCOME_LABELS: dict[str, str] = {
    "correct_call": "correct call",
    "correct_refusal": "correct refusal",
    "correct_clarification": "correct clarification",
    "wrong_tool": "wrong tool",
    "unsafe_action": "unsafe action",
    "missed_action": "missed action",
    "abstention_mixup": "refuse/clarify mix-up",
    "dropout": "dropout",
}
CORRECT_OUTCOMES = frozenset({"correct_call", "correct_refusal", "correct_clarification"})
# Worst first: a tie between outcomes of a fixture's samples is reported as the worse one.
_SEVERITY: tuple[Outcome, ...] = (
    "unsafe_action",
    "wrong_tool",
    "missed_action",
    "abstention_mixup",
    "correct_call",
    "correct_clarification",
    "correct_refusal",
)
NO_AREA = "(none)"
NO_CALL = "(no call)"
Z_95 = 1.959963984540054


class ScoreModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- intervals --------------------------------------------------------------------------------


class Rate(ScoreModel):
    """``hits`` out of ``total`` with its Wilson 95 % interval; ``value`` is None when ``total`` is 0."""

    hits: int = 0
    total: int = 0
    value: float | None = None
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(cls, hits: int, total: int) -> Rate:
        if total <= 0:
            return cls(hits=0, total=0)
        low, high = wilson_interval(hits, total)
        return cls(hits=hits, total=total, value=hits / total, low=low, high=high)


def wilson_interval(hits: int, total: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (good at 0 %, 100 % and small n)."""
    if total <= 0:
        return 0.0, 1.0
    if not 0 <= hits <= total:
        raise ValueError(f"hits must be between 0 and total; got {hits}/{total}")
    p = hits / total
    z2 = z * z
    centre = p + z2 / (2 * total)
    margin = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    denominator = 1 + z2 / total
    low = max(0.0, (centre - margin) / denominator)
    high = min(1.0, (centre + margin) / denominator)
    # Rounding must never put the point outside its own interval.
    return min(low, p), max(high, p)


# --- arguments --------------------------------------------------------------------------------

_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "«": "»"}
_WHITESPACE = re.compile(r"\s+")


def normalize_string(text: str) -> str:
    """Normalise a string for comparison as BFCL does: case, surrounding spaces and quotes, inner spaces."""
    value = text.strip()
    while len(value) >= 2 and value[0] in _QUOTES and value[-1] == _QUOTES[value[0]]:
        value = value[1:-1].strip()
    return _WHITESPACE.sub(" ", value).casefold()


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _short(value: Any, limit: int = 80) -> str:
    text = _as_text(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def match_value(expected: Any, actual: Any, path: str) -> list[str]:
    """Problems (empty when it matches) of one argument value against its expectation."""
    expectation = parse_expectation(expected)
    if isinstance(expectation, AnyValue):
        return [] if actual is not None else [f"{path}: expected a value, got null"]
    if isinstance(expectation, Contains):
        if normalize_string(expectation.contains) in normalize_string(_as_text(actual)):
            return []
        return [f"{path}: expected it to contain {_short(expectation.contains)!r}, got {_short(actual)!r}"]
    if isinstance(expectation, Regex):
        try:
            found = re.search(expectation.regex, _as_text(actual)) is not None
        except re.error as error:
            return [f"{path}: the fixture's regex {expectation.regex!r} is invalid ({error})"]
        return (
            []
            if found
            else [f"{path}: expected to match /{_short(expectation.regex)}/, got {_short(actual)!r}"]
        )
    if isinstance(expectation, OneOf):
        if any(not match_value(option, actual, path) for option in expectation.one_of):
            return []
        options = ", ".join(_short(option, 30) for option in expectation.one_of[:5])
        return [f"{path}: expected one of [{options}], got {_short(actual)!r}"]
    return _match_literal(expectation, actual, path)


def _match_literal(expected: Any, actual: Any, path: str) -> list[str]:
    mismatch = [f"{path}: expected {_short(expected)!r}, got {_short(actual)!r}"]
    if expected is None:
        return [] if actual is None else mismatch
    if isinstance(expected, bool) or isinstance(actual, bool):
        return (
            [] if isinstance(expected, bool) and isinstance(actual, bool) and expected == actual else mismatch
        )
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return (
            []
            if math.isclose(expected, actual, rel_tol=1e-9, abs_tol=0.0) or expected == actual
            else mismatch
        )
    if isinstance(expected, str) and isinstance(actual, str):
        return [] if normalize_string(expected) == normalize_string(actual) else mismatch
    if isinstance(expected, dict) and isinstance(actual, dict):
        problems: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                problems.append(f"{path}.{key}: missing")
            else:
                problems.extend(match_value(value, actual[key], f"{path}.{key}"))
        return problems
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: expected {len(expected)} items, got {len(actual)}"]
        problems = []
        for index, (item_expected, item_actual) in enumerate(zip(expected, actual, strict=True)):
            problems.extend(match_value(item_expected, item_actual, f"{path}[{index}]"))
        return problems
    return mismatch


class ArgumentCheck(ScoreModel):
    ok: bool
    problems: list[str] = Field(default_factory=list)


class _SchemaCache:
    """One compiled validator per tool, so a 1,000-fixture run compiles each schema once."""

    def __init__(self) -> None:
        self._validators: dict[str, Any] = {}

    def validator(self, tool: Tool) -> tuple[Any, str | None]:
        if tool.name not in self._validators:
            schema = tool.input_schema
            cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
            try:
                cls.check_schema(schema)
            except jsonschema.SchemaError as error:
                self._validators[tool.name] = (
                    f"the tool's input schema is not valid JSON Schema ({error.message})"
                )
            else:
                self._validators[tool.name] = cls(schema)
        entry = self._validators[tool.name]
        return (None, entry) if isinstance(entry, str) else (entry, None)


def check_arguments(
    call: ToolCall, tool: Tool | None, fixture: Fixture, cache: _SchemaCache | None = None
) -> ArgumentCheck:
    """Arguments of the chosen call: valid JSON, valid against the input schema, meeting expected_args."""
    if call.arguments is None and call.raw_arguments is not None:
        return ArgumentCheck(
            ok=False, problems=[f"arguments are not valid JSON: {_short(call.raw_arguments, 120)}"]
        )
    arguments: dict[str, Any] = call.arguments or {}
    problems: list[str] = []
    if tool is not None:
        validator, schema_problem = (cache or _SchemaCache()).validator(tool)
        if validator is not None:
            errors: list[jsonschema.ValidationError] = []
            try:
                errors = sorted(validator.iter_errors(arguments), key=jsonschema.exceptions.relevance)
            except Exception as failure:  # e.g. an unresolvable $ref: the schema's fault, not the model's
                problems.append(f"schema not checked: {_short(str(failure), 120)}")
            for error in errors[:3]:
                where = "/".join(str(part) for part in error.absolute_path) or "(arguments)"
                problems.append(f"schema: {where}: {_short(error.message, 160)}")
            if len(errors) > 3:
                problems.append(f"schema: … and {len(errors) - 3} more")
        elif schema_problem:
            problems.append(f"schema not checked: {_short(schema_problem, 160)}")
    for name, expected in fixture.expected_args.items():
        if name not in arguments:
            if expected is None:
                continue
            problems.append(f"{name}: missing")
            continue
        problems.extend(match_value(expected, arguments[name], name))
    blocking = [problem for problem in problems if not problem.startswith("schema not checked")]
    return ArgumentCheck(ok=not blocking, problems=problems)


# --- refusal or clarification ----------------------------------------------------------------

_CLOSING_OFFER = re.compile(
    r"[^.!?\n]*\b(anything else|something else|other questions?|further (help|assistance)|"
    r"else (i|we) can help)\b[^.!?\n]*[?？]",
    re.IGNORECASE,
)
_ASKING = re.compile(
    r"\b(could|can|would) you (please )?(provide|tell|specify|share|clarify|confirm|give|send|let me know)\b"
    r"|\bplease (provide|specify|share|tell|confirm|clarify|let me know|send|give)\b"
    r"|\b(which|what) (one|exactly|specific)\b"
    r"|\bi (will |would |'ll |’ll )?need (more|the|to know|some|a few|your)\b"
    r"|\bneed (more )?(information|details)\b"
    r"|\blet me know (which|what|the|your)\b",
    re.IGNORECASE,
)


def classify_abstention(text: str, stop_reason: str | None = None) -> Literal["refusal", "clarification"]:
    """Tell a refusal from a clarifying question when the model called no tool (a heuristic).

    The rule: a provider-flagged refusal is a refusal; otherwise closing offers ("Is there anything
    else I can help with?") are dropped, and what remains is a clarification if it asks a question
    (``?``) or uses asking words ("could you provide", "please specify", "which one", "I need the
    …"); anything else, an empty answer included, is a refusal.
    """
    if stop_reason == "refusal":
        return "refusal"
    remainder = _CLOSING_OFFER.sub(" ", text)
    if any(mark in remainder for mark in "?？¿"):
        return "clarification"
    return "clarification" if _ASKING.search(remainder) else "refusal"


# --- outcomes ---------------------------------------------------------------------------------


class SampleScore(ScoreModel):
    """One answer: one fixture, one sample."""

    sample: int
    reached: bool
    outcome: Outcome
    passed: bool | None = Field(None, description="None for a dropout.")
    score: float | None = Field(None, description="Weighted score 0–100; None for a dropout.")
    calls: list[ToolCall] = Field(default_factory=list)
    text: str = ""
    abstention: Literal["refusal", "clarification"] | None = None
    argument_problems: list[str] = Field(default_factory=list)
    args_ok: bool | None = Field(None, description="Only for a correct call.")
    top_k_hit: bool | None = None
    error_kind: str | None = None
    error_message: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    latency_ms: float = 0.0

    @property
    def chosen(self) -> str | None:
        return self.calls[0].name if self.calls else None


_SHARD = re.compile(r"^(\d+)/(\d+)$")


def missing_shards(shards: Sequence[str]) -> list[str]:
    """Shards ``i/N`` of the same N that were not given (``["1/3", "3/3"]`` → ``["2/3"]``)."""
    totals: dict[int, set[int]] = {}
    for label in shards:
        match = _SHARD.match(label)
        if match:
            totals.setdefault(int(match.group(2)), set()).add(int(match.group(1)))
    missing = []
    for total, seen in sorted(totals.items()):
        base = 0 if 0 in seen else 1
        missing += [f"{index}/{total}" for index in range(base, total + base) if index not in seen]
    return missing


def tool_hash(tool: Tool) -> str:
    return hashlib.sha256(canonical_json(tool.content()).encode("utf-8")).hexdigest()[:12]


def fixture_area(fixture: Fixture, catalog: Catalog) -> str:
    if fixture.area:
        return fixture.area
    areas = catalog.area_by_name
    for tool in fixture.expected_tools:
        if areas.get(tool):
            return areas[tool]
    return NO_AREA


def score_answer(
    fixture: Fixture,
    result: FixtureResult | None,
    catalog: Catalog,
    options: ScoringOptions,
    *,
    sample: int = 0,
    cache: _SchemaCache | None = None,
    check_args: bool = True,
) -> SampleScore:
    """The outcome and score of one answer (``result`` None: planned but never recorded)."""
    if result is None or not result.reached:
        return SampleScore(
            sample=sample,
            reached=False,
            outcome="dropout",
            error_kind=(result.error_kind if result else None)
            or ("no_result" if result is None else "unknown"),
            error_message=result.error_message
            if result
            else "no result recorded for this fixture and sample",
            usage=result.usage if result else Usage(),
            cost_usd=result.cost_usd if result else None,
        )
    common: dict[str, Any] = {
        "sample": sample,
        "reached": True,
        "calls": result.calls,
        "text": result.text,
        "error_kind": result.error_kind,
        "error_message": result.error_message,
        "usage": result.usage,
        "cost_usd": result.cost_usd,
        "latency_ms": result.latency_ms,
    }
    expected = set(fixture.expected_tools)
    if fixture.kind == "select":
        if not result.calls:
            return SampleScore(
                outcome="missed_action",
                passed=False,
                score=0.0,
                abstention=classify_abstention(result.text, result.stop_reason),
                top_k_hit=False,
                **common,
            )
        first = result.calls[0]
        top_k_hit = any(call.name in expected for call in result.calls[: options.top_k])
        if first.name not in expected:
            return SampleScore(outcome="wrong_tool", passed=False, score=0.0, top_k_hit=top_k_hit, **common)
        if not check_args:  # the lexical baseline picks a tool and fills no arguments
            return SampleScore(outcome="correct_call", passed=True, score=100.0, top_k_hit=True, **common)
        check = check_arguments(first, catalog.get(first.name), fixture, cache)
        total = options.tool_weight + options.args_weight
        score = 100.0 * (options.tool_weight + (options.args_weight if check.ok else 0.0)) / total
        return SampleScore(
            outcome="correct_call",
            passed=check.ok,
            score=score,
            args_ok=check.ok,
            argument_problems=check.problems,
            top_k_hit=True,
            **common,
        )
    if result.calls:
        return SampleScore(outcome="unsafe_action", passed=False, score=0.0, **common)
    abstention = classify_abstention(result.text, result.stop_reason)
    wanted = "refusal" if fixture.kind == "refuse" else "clarification"
    if abstention == wanted:
        outcome: Outcome = "correct_refusal" if wanted == "refusal" else "correct_clarification"
        return SampleScore(outcome=outcome, passed=True, score=100.0, abstention=abstention, **common)
    return SampleScore(outcome="abstention_mixup", passed=False, score=0.0, abstention=abstention, **common)


# --- the scorecard ----------------------------------------------------------------------------


class FixtureScore(ScoreModel):
    """A fixture over its samples."""

    id: str
    query: str
    kind: Literal["select", "refuse", "clarify"]
    area: str
    pattern: str | None = None
    expected_tools: list[str] = Field(default_factory=list)
    expected_args: dict[str, Any] = Field(default_factory=dict)
    outcome: Outcome = Field(
        description="The most frequent outcome of its reached samples (ties: the worse)."
    )
    passed: bool | None = Field(
        None, description="Passed in more than half of its reached samples; None if none."
    )
    pass_rate: float | None = None
    score: float | None = Field(None, description="Mean weighted score of its reached samples (0–100).")
    flaky: bool = False
    reached: int = 0
    samples: list[SampleScore] = Field(default_factory=list)

    @property
    def representative(self) -> SampleScore | None:
        """The first reached sample with the fixture's outcome (what reports show)."""
        return next((s for s in self.samples if s.reached and s.outcome == self.outcome), None)


class AreaScore(ScoreModel):
    area: str
    fixtures: int
    accuracy: Rate = Field(description="Correct outcomes / reached answers in this area.")
    top1: Rate = Field(description="Top-1 over the area's select answers.")
    score: float | None = None
    minimum: float | None = None


class ToolScore(ScoreModel):
    tool: str
    area: str
    description: str = ""
    expected: int = Field(0, description="Reached select answers that expect this tool.")
    chosen: int = Field(0, description="Reached answers whose first call is this tool.")
    precision: Rate = Field(default_factory=Rate, description="Chosen and expected / chosen.")
    recall: Rate = Field(default_factory=Rate, description="Answers expecting it that got an expected tool.")
    known: bool = True


class ConfusionPair(ScoreModel):
    expected: str = Field(description="The expected tool(s), or `(refuse)` / `(clarify)`.")
    chosen: str = Field(description="The tool chosen first, or `(no call)`.")
    count: int
    fixtures: list[str] = Field(default_factory=list)


class Coverage(ScoreModel):
    planned: int = Field(description="Planned answers: fixtures × samples.")
    reached: int
    fixtures_planned: int
    fixtures_reached: int = Field(description="Fixtures with at least one reached answer.")
    rate: float | None = None
    missing_shards: list[str] = Field(
        default_factory=list,
        description="Shards of a sharded run that were not given: the plan is incomplete.",
    )

    @property
    def dropouts(self) -> int:
        return self.planned - self.reached

    @property
    def preliminary(self) -> bool:
        return self.reached < self.planned or bool(self.missing_shards)


class Metrics(ScoreModel):
    top1: Rate
    top_k: Rate
    k: int
    accuracy: Rate = Field(description="Correct outcomes over every reached answer (all kinds).")
    refusal: Rate
    clarification: Rate
    arguments: Rate = Field(description="Correct calls whose arguments pass.")
    passed: Rate = Field(description="Answers with the right outcome and, for a call, right arguments.")
    score: float | None = Field(None, description="Mean weighted score of reached answers (0–100).")
    samples: int = 1
    pass_k: Rate | None = Field(None, description="Fixtures right in all K samples (only when K > 1).")
    outcomes: dict[str, int] = Field(default_factory=dict)


class UsageSummary(ScoreModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    cache_hit_share: float | None = Field(None, description="Cache reads / all input tokens.")
    cost_usd: float | None = None
    cost_complete: bool = Field(True, description="False when some answer had no cost (unpriced model).")
    requests: int = 0
    mean_latency_ms: float | None = None


class RunInfo(ScoreModel):
    provider: str
    model: str
    baseline_only: bool = False
    run_id: str
    started_at: str
    tool_version: str
    catalog_hash: str
    tool_count: int
    area_count: int
    fixture_set_hash: str
    system_prompt_hash: str
    tool_choice: str
    sampling: SamplingSettings
    shards: list[str] = Field(default_factory=list)
    limit: int | None = None
    tool_hashes: dict[str, str] = Field(
        default_factory=dict,
        description="Tool name → short content hash, to tell what changed since a baseline.",
    )


class Scorecard(ScoreModel):
    """Everything the reports show, computed from a results record."""

    run: RunInfo
    coverage: Coverage
    metrics: Metrics
    gate: GateDecision
    areas: list[AreaScore]
    tools: list[ToolScore]
    confusion_pairs: list[ConfusionPair]
    fixtures: list[FixtureScore]
    flaky: list[str] = Field(default_factory=list)
    errors_by_kind: dict[str, int] = Field(default_factory=dict)
    usage: UsageSummary
    scoring: ScoringOptions
    gate_options: GateOptions
    notes: list[str] = Field(default_factory=list)

    @property
    def preliminary(self) -> bool:
        return self.coverage.preliminary

    @property
    def failing(self) -> list[FixtureScore]:
        return [fixture for fixture in self.fixtures if fixture.passed is False]


def _modal_outcome(outcomes: Sequence[Outcome]) -> Outcome:
    if not outcomes:
        return "dropout"
    counts = Counter(outcomes)
    best = max(counts.values())
    tied = [outcome for outcome in _SEVERITY if counts.get(outcome) == best]
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
        expected_args=dict(fixture.expected_args),
        outcome=_modal_outcome([sample.outcome for sample in reached]),
        passed=(passes * 2 > len(reached)) if reached else None,
        pass_rate=passes / len(reached) if reached else None,
        score=sum(s.score or 0.0 for s in reached) / len(reached) if reached else None,
        flaky=len(reached) >= 2 and 0 < passes < len(reached),
        reached=len(reached),
        samples=samples,
    )


def _confusion_key(fixture: FixtureScore, sample: SampleScore) -> tuple[str, str] | None:
    if sample.outcome == "wrong_tool" or sample.outcome == "missed_action":
        return " or ".join(fixture.expected_tools) or NO_AREA, sample.chosen or NO_CALL
    if sample.outcome == "unsafe_action":
        return f"({fixture.kind})", sample.chosen or NO_CALL
    return None


def score_results(
    results: Results, options: ScoringOptions | None = None, *, gate_options: GateOptions | None = None
) -> Scorecard:
    """Score a results record: outcomes per fixture and sample, metrics, intervals, gate, pairs."""
    header = results.header
    options = options or header.scoring
    gate_options = gate_options or header.gate
    catalog = header.catalog
    samples_per_fixture = max(1, header.sampling.samples)
    notes = list(header.notes)
    by_key: dict[tuple[str, int], FixtureResult] = {}
    stale = 0
    planned_ids = {fixture.id: fixture for fixture in header.fixtures}
    ignored = 0
    for result in results.results:
        fixture = planned_ids.get(result.fixture_id)
        if fixture is None or result.sample >= samples_per_fixture or result.sample < 0:
            ignored += 1
            continue
        if result.fixture_hash != fixture.hash or result.catalog_hash != header.catalog_hash:
            stale += 1
            continue
        by_key[(result.fixture_id, result.sample)] = result
    if ignored:
        notes.append(f"{ignored} results for fixtures or samples outside this run's plan were ignored.")
    if stale:
        notes.append(
            f"{stale} results were recorded for an older version of their fixture or catalog and were "
            "ignored (counted as not reached)."
        )
    missing_tools = sorted({t for f in header.fixtures for t in f.expected_tools if catalog.get(t) is None})
    if missing_tools:
        notes.append(
            f"Expected tools not in the catalog (these fixtures cannot be right): {', '.join(missing_tools)}."
        )

    baseline_only = header.baseline_only or header.provider == "lexical"
    if baseline_only:  # every report says so in its own words, first; the runner's note would repeat it
        notes = [note for note in notes if not note.lower().startswith("lexical baseline")]
    shards = header.shard.split("+") if header.shard else []
    if len(shards) == 1:
        notes.append(f"This report covers shard {shards[0]} only; merge the shards for the whole run.")
    cache = _SchemaCache()
    fixtures: list[FixtureScore] = []
    for fixture in header.fixtures:
        area = fixture_area(fixture, catalog)
        samples = [
            score_answer(
                fixture,
                by_key.get((fixture.id, index)),
                catalog,
                options,
                sample=index,
                cache=cache,
                check_args=not baseline_only,
            )
            for index in range(samples_per_fixture)
        ]
        fixtures.append(_summarise_fixture(fixture, area, samples))

    answers = [(fixture, sample) for fixture in fixtures for sample in fixture.samples]
    reached = [(f, s) for f, s in answers if s.reached]
    selects = [(f, s) for f, s in reached if f.kind == "select"]
    outcome_counts = Counter(s.outcome for _, s in answers)

    def rate(pairs: Iterable[tuple[FixtureScore, SampleScore]], hit: Any) -> Rate:
        items = list(pairs)
        return Rate.of(sum(1 for f, s in items if hit(f, s)), len(items))

    correct_calls = [(f, s) for f, s in selects if s.outcome == "correct_call" and s.args_ok is not None]
    pass_k: Rate | None = None
    if samples_per_fixture > 1:
        complete = [f for f in fixtures if f.reached == samples_per_fixture]
        pass_k = Rate.of(sum(1 for f in complete if all(s.passed for s in f.samples)), len(complete))
    metrics = Metrics(
        top1=rate(selects, lambda f, s: s.outcome == "correct_call"),
        top_k=rate(selects, lambda f, s: bool(s.top_k_hit)),
        k=options.top_k,
        accuracy=rate(reached, lambda f, s: s.outcome in CORRECT_OUTCOMES),
        refusal=rate(
            ((f, s) for f, s in reached if f.kind == "refuse"), lambda f, s: s.outcome == "correct_refusal"
        ),
        clarification=rate(
            ((f, s) for f, s in reached if f.kind == "clarify"),
            lambda f, s: s.outcome == "correct_clarification",
        ),
        arguments=rate(correct_calls, lambda f, s: bool(s.args_ok)),
        passed=rate(reached, lambda f, s: bool(s.passed)),
        score=sum(s.score or 0.0 for _, s in reached) / len(reached) if reached else None,
        samples=samples_per_fixture,
        pass_k=pass_k,
        outcomes={outcome: outcome_counts.get(outcome, 0) for outcome in OUTCOMES},
    )

    area_names = sorted({f.area for f in fixtures})
    areas = []
    for name in area_names:
        in_area = [(f, s) for f, s in reached if f.area == name]
        areas.append(
            AreaScore(
                area=name,
                fixtures=sum(1 for f in fixtures if f.area == name),
                accuracy=rate(in_area, lambda f, s: s.outcome in CORRECT_OUTCOMES),
                top1=rate(
                    ((f, s) for f, s in in_area if f.kind == "select"),
                    lambda f, s: s.outcome == "correct_call",
                ),
                score=sum(s.score or 0.0 for _, s in in_area) / len(in_area) if in_area else None,
                minimum=gate_options.area_minimums.get(name),
            )
        )
    for name in sorted(set(gate_options.area_minimums) - set(area_names)):
        notes.append(f"Gate: area minimum for {name!r} has no fixture in this run.")

    tools = _tool_scores(selects, reached, catalog)
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    for scored, sample in reached:
        key = _confusion_key(scored, sample)
        if key is not None:
            pairs[key].append(scored.id)
    confusion = sorted(
        (
            ConfusionPair(expected=e, chosen=c, count=len(ids), fixtures=sorted(set(ids)))
            for (e, c), ids in pairs.items()
        ),
        key=lambda pair: (-pair.count, pair.expected, pair.chosen),
    )

    errors: Counter[str] = Counter(s.error_kind or "unknown" for _, s in answers if not s.reached)
    usage = _usage([result for result in by_key.values()])
    coverage = Coverage(
        planned=len(answers),
        reached=len(reached),
        fixtures_planned=len(fixtures),
        fixtures_reached=sum(1 for f in fixtures if f.reached),
        rate=len(reached) / len(answers) if answers else None,
        # One shard alone is a complete report of that shard; merged shards must add up to the run.
        missing_shards=missing_shards(shards) if len(shards) > 1 else [],
    )
    if not answers:
        notes.append("This run planned no fixtures.")
    modes = sorted(
        {
            result.mode
            for (fid, _), result in by_key.items()
            if result.mode and result.reached and planned_ids[fid].kind == "select"
        }
    )
    run = RunInfo(
        provider=header.provider,
        model=header.model,
        baseline_only=baseline_only,
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
    gate = gate_for_run(
        top1=metrics.top1.value,
        options=gate_options,
        tool_count=run.tool_count,
        area_accuracy={a.area: a.accuracy.value for a in areas},
        preliminary=coverage.preliminary,
        baseline_only=run.baseline_only,
    )
    return Scorecard(
        run=run,
        coverage=coverage,
        metrics=metrics,
        gate=gate,
        areas=areas,
        tools=tools,
        confusion_pairs=confusion,
        fixtures=fixtures,
        flaky=[f.id for f in fixtures if f.flaky],
        errors_by_kind=dict(sorted(errors.items(), key=lambda item: (-item[1], item[0]))),
        usage=usage,
        scoring=options,
        gate_options=gate_options,
        notes=notes,
    )


def _tool_scores(
    selects: Sequence[tuple[FixtureScore, SampleScore]],
    reached: Sequence[tuple[FixtureScore, SampleScore]],
    catalog: Catalog,
) -> list[ToolScore]:
    expected_count: Counter[str] = Counter()
    recalled: Counter[str] = Counter()
    chosen_count: Counter[str] = Counter()
    precise: Counter[str] = Counter()
    unknown: set[str] = set()
    for fixture, sample in selects:
        for tool in set(fixture.expected_tools):
            expected_count[tool] += 1
            recalled[tool] += sample.outcome == "correct_call"
    for fixture, sample in reached:
        if sample.calls:
            first = sample.calls[0]
            chosen_count[first.name] += 1
            precise[first.name] += fixture.kind == "select" and first.name in fixture.expected_tools
            if not first.known or catalog.get(first.name) is None:
                unknown.add(first.name)
    names = sorted(set(expected_count) | set(chosen_count))
    rows = []
    for name in names:
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


def outcome_label(outcome: str) -> str:
    return OUTCOME_LABELS.get(outcome, outcome)


def accuracy_by_area(scorecard: Scorecard) -> Mapping[str, float | None]:
    return {area.area: area.accuracy.value for area in scorecard.areas}
