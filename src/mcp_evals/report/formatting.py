"""What the Markdown and HTML reports share: the jinja2 environments and row preparation."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar

import jinja2

from mcp_evals.config.model import DEFAULT_OUTCOME_POINTS, ScoringOptions
from mcp_evals.report import escape
from mcp_evals.score import SEVERITY, FixtureScore, Rate, SampleScore, Scorecard, outcome_label
from mcp_evals.score.gate import format_percent
from mcp_evals.wording import number as count_text
from mcp_evals.wording import plural

T = TypeVar("T")


@dataclass
class Rows(Generic[T]):
    """A table's rows after shortening; ``hidden`` rows did not fit."""

    rows: list[T]
    hidden: int = 0

    def __bool__(self) -> bool:
        return bool(self.rows) or self.hidden > 0


def take(rows: Sequence[T], limit: int | None) -> Rows[T]:
    if limit is None or len(rows) <= limit:
        return Rows(list(rows))
    return Rows(list(rows[:limit]), len(rows) - limit)


def failing_fixtures(scorecard: Scorecard) -> list[FixtureScore]:
    """Failing fixtures, worst outcome first."""

    def order(fixture: FixtureScore) -> tuple[int, str]:
        position = SEVERITY.index(fixture.outcome) if fixture.outcome in SEVERITY else len(SEVERITY)
        return position, fixture.id

    return sorted(scorecard.failing, key=order)


def arguments_text(sample: SampleScore | None) -> str:
    """The first call's arguments as compact JSON (or the raw text when it was not JSON)."""
    if sample is None or not sample.calls:
        return ""
    call = sample.calls[0]
    if call.arguments is None:
        return call.raw_arguments or ""
    return json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)


def answer_note(sample: SampleScore | None) -> str:
    """What an answer without a call said, after its kind: ``refusal: I can't look up invoices`` (the
    lexical baseline says why it called nothing); empty for an answer with a call."""
    if sample is None or sample.calls or not (sample.text or sample.abstention):
        return ""
    return f"{sample.abstention}: {sample.text}" if sample.abstention else sample.text or ""


def percent(value: float | None, thresholds: tuple[float | None, ...] = ()) -> str:
    """``0.875`` → ``87.5%``; a value just below one of ``thresholds`` is never rounded onto it."""
    return format_percent(value, tuple(t for t in thresholds if t is not None))


def ci(rate: Rate) -> str:
    if rate.value is None:
        return "n/a"
    return f"{format_percent(rate.low)}–{format_percent(rate.high)}"


def fraction(rate: Rate) -> str:
    return f"{rate.hits}/{rate.total}"


def points(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def number(value: int | float | None) -> str:
    """A count as every message shows it (``wording.number``); a float to one decimal."""
    if value is None:
        return "n/a"
    return count_text(value) if isinstance(value, int) else f"{value:,.1f}"


def money(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def fixture_outcome(fixture: FixtureScore) -> str:
    """The fixture's outcome for a reader: a right tool that fails on its arguments says so."""
    if fixture.outcome == "correct_call" and fixture.passed is False:
        return "right tool, wrong arguments"
    sample = fixture.representative
    if fixture.outcome == "unsafe_action" and sample is not None and sample.forbidden_calls:
        return "unsafe action (a forbidden tool called)"
    return outcome_label(fixture.outcome)


def expected_label(fixture: FixtureScore) -> list[str]:
    return list(fixture.expected_tools) if fixture.kind == "select" else [f"({fixture.kind})"]


def weights_text(scoring: ScoringOptions) -> str:
    """The outcome weights that differ from the defaults, e.g. ``unsafe action −100``; empty if none do."""
    changed = [
        (outcome, points)
        for outcome, points in scoring.weights.items()
        if points != DEFAULT_OUTCOME_POINTS.get(outcome, 0.0)
    ]
    return ", ".join(f"{outcome_label(outcome)} {points:g}".replace("-", "−") for outcome, points in changed)


HELPERS: dict[str, Callable[..., Any]] = {
    "pct": percent,
    "ci": ci,
    "fraction": fraction,
    "points": points,
    "number": number,
    "plural": plural,
    "money": money,
    "outcome_label": outcome_label,
    "fixture_outcome": fixture_outcome,
    "expected_label": expected_label,
    "arguments_text": arguments_text,
    "answer_note": answer_note,
    "weights_text": weights_text,
}


@cache
def environment(kind: str) -> jinja2.Environment:
    """The jinja2 environment for ``markdown`` or ``html`` templates (autoescaped either way)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("mcp_evals", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.globals.update(HELPERS)
    if kind == "markdown":
        env.filters.update(md=escape.md_text, code=escape.md_code, block=escape.md_block)
    else:
        env.filters.update(text=escape.html_text)
    return env
