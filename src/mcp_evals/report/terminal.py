"""The report for a terminal: plain text, aligned, optionally coloured.

What ``mcp-evals run`` and ``mcp-evals report`` print when standard output is a terminal: the verdict
line, the accuracy table with intervals, per area, dropouts, and the failing fixtures (id, expected →
chosen, query). No HTML, no Markdown escapes, no zero-width joiners, no Mermaid: those are for GitHub
(``markdown.py``). Untrusted text (tool names, queries, answers) still cannot reach the terminal as an
escape sequence: every such string goes through ``escape.plain``, which drops control and
bidi-override characters. Colours come from click's ``style`` only when ``color`` is true; the caller
decides (a terminal, and no ``NO_COLOR``).
"""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Callable, Sequence

import click

from mcp_evals.baseline.compare import BaselineComparison
from mcp_evals.report.escape import plain
from mcp_evals.report.formatting import (
    answer_note,
    ci,
    expected_label,
    failing_fixtures,
    fixture_outcome,
    fraction,
    money,
    number,
    percent,
    points,
    weights_text,
)
from mcp_evals.report.verdict import exit_code, verdict_text
from mcp_evals.score import OUTCOME_LABELS, Rate, Scorecard
from mcp_evals.wording import plural

# Most rows a terminal report lists before pointing at the full reports.
MAX_FAILING = 30
MAX_ROWS = 20
_STATUS_COLOURS = {
    "remediate": "red",
    "gray_zone": "yellow",
    "deprioritize_refactor": "green",
}
Style = Callable[..., str]


def display_width(text: str) -> int:
    """Terminal columns: East Asian wide characters take two, combining marks none."""
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1
        for char in text
    )


def _pad(cell: str, width: int, right: bool) -> str:
    space = " " * max(width - display_width(cell), 0)
    return space + cell if right else cell + space


def table(rows: Sequence[Sequence[str]], *, right: Sequence[bool] = (), indent: str = "  ") -> list[str]:
    """Columns aligned under their header; ``right`` marks the numeric columns. The last is not padded."""
    if not rows:
        return []
    count = len(rows[0])
    aligned = list(right) + [False] * (count - len(right))
    widths = [max(display_width(row[index]) for row in rows) for index in range(count)]
    lines = []
    for row in rows:
        cells = [
            _pad(cell, widths[index], aligned[index]) if index < count - 1 or aligned[index] else cell
            for index, cell in enumerate(row)
        ]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _rate_row(name: str, rate: Rate, thresholds: tuple[float | None, ...] = ()) -> list[str]:
    return [name, percent(rate.value, thresholds), ci(rate), fraction(rate)]


def render_terminal(
    scorecard: Scorecard,
    *,
    baseline_comparison: BaselineComparison | None = None,
    color: bool = False,
    width: int = 100,
) -> str:
    """The terminal report of a scored run (plain text; ANSI colours only when ``color``)."""

    def style(text: str, **styles: object) -> str:
        return click.style(text, **styles) if color else text  # type: ignore[arg-type]

    s, comparison = scorecard, baseline_comparison
    gate, metrics, coverage = s.gate, s.metrics, s.coverage
    code = exit_code(s, comparison)
    verdict = verdict_text(s, comparison)
    colour = (
        "yellow"
        if s.preliminary
        else "red"
        if code == 1
        else "cyan"
        if not gate.gated
        else _STATUS_COLOURS.get(gate.decision or "", "white")
    )
    lines = [style(verdict, fg=colour, bold=True), ""]
    if s.preliminary:
        lines.append(
            style("PRELIMINARY:", fg="yellow", bold=True)
            + f" {coverage.dropouts} of {coverage.planned} answers never reached the model; the numbers"
            " cover only what was answered. `mcp-evals run --resume` finishes the run."
        )
    lines.append(f"Gate: {plain(gate.message, 600)}")
    if gate.failing_reasons:
        reasons = "; ".join(plain(reason, 300) for reason in gate.failing_reasons)
        lines.append(style(f"Fails the job: {reasons}", fg="red"))
    samples = plural(metrics.samples, "sample")
    lines.append(
        f"Coverage: {coverage.reached}/{coverage.planned} answers reached ({percent(coverage.rate)}) · "
        f"{plural(coverage.fixtures_planned, 'fixture')} × {samples} · {plural(s.run.tool_count, 'tool')} in "
        f"{plural(s.run.area_count, 'area')}"
    )
    lines += ["", style("Accuracy", bold=True)]
    thresholds = (gate.remediate_below, gate.deprioritize_at)
    rows = [["metric", "value", "95% interval", "n"], _rate_row("top-1", metrics.top1, thresholds)]
    if metrics.lexical_top1 is not None:
        rows.append(_rate_row("lexical baseline top-1 (words alone)", metrics.lexical_top1))
    if metrics.top_k is not None:
        rows.append(_rate_row(f"top-{metrics.k}", metrics.top_k))
    if metrics.refusal.total:
        rows.append(_rate_row("refusal", metrics.refusal))
    if metrics.clarification.total:
        rows.append(_rate_row("clarification", metrics.clarification))
    if not s.run.lexical:
        rows.append(_rate_row("arguments", metrics.arguments))
    rows.append(_rate_row("all outcomes", metrics.accuracy))
    if metrics.pass_k is not None:
        rows.append(_rate_row(f"pass^{metrics.samples}", metrics.pass_k))
    rows.append(["weighted score", points(metrics.score), "", str(coverage.reached)])
    lines += table(rows, right=[False, True, False, True])
    if weights_text(s.scoring):
        lines.append(f"  outcome weights (not the defaults): {weights_text(s.scoring)}")
    counts = [
        style(f"{OUTCOME_LABELS[outcome]} {count}", fg="red", bold=True)
        if outcome == "unsafe_action"
        else f"{OUTCOME_LABELS[outcome]} {count}"
        for outcome, count in metrics.outcomes.items()
        if count and outcome != "dropout"
    ]
    if counts:
        lines += ["", f"Outcomes: {' · '.join(counts)}"]
    if s.unknown_tools:  # made-up names: counted as unknown tool, never a wrong tool or a refusal
        named = ", ".join(f"{plain(item.name, 60)} ({item.count})" for item in s.unknown_tools[:MAX_ROWS])
        more = f" … and {len(s.unknown_tools) - MAX_ROWS} more" if len(s.unknown_tools) > MAX_ROWS else ""
        lines.append(f"Made-up tool names (not in the catalog): {named}{more}")

    areas = [area for area in s.areas]
    if areas:
        lines += ["", style("Per area", bold=True)]
        area_rows = [["area", "accuracy", "95% interval", "answers", "score"]]
        for area in areas[:MAX_ROWS]:
            area_rows.append(
                [
                    plain(area.area, 40),
                    percent(area.accuracy.value, (area.minimum,)),
                    ci(area.accuracy),
                    fraction(area.accuracy),
                    points(area.score),
                ]
            )
        lines += table(area_rows, right=[False, True, False, True, True])
        if len(areas) > MAX_ROWS:
            lines.append(f"  … {len(areas) - MAX_ROWS} more areas (see the JSON or HTML report)")

    if coverage.dropouts:
        kinds = ", ".join(f"{plain(kind, 40)} {count}" for kind, count in s.errors_by_kind.items())
        lines += ["", style(f"Dropouts: {coverage.dropouts}", fg="yellow", bold=True) + f" ({kinds})"]

    failing = failing_fixtures(s)
    if failing:
        lines += [
            "",
            style(f"Failing fixtures ({len(failing)} of {coverage.fixtures_reached} reached)", bold=True),
        ]
        fixture_rows = [["fixture", "expected → chosen", "outcome", "query"]]
        for fixture in failing[:MAX_FAILING]:
            sample = fixture.representative
            expected = " or ".join(plain(name, 60) for name in expected_label(fixture))
            chosen = plain(sample.chosen, 60) if sample and sample.chosen else "(no call)"
            if sample and sample.forbidden_calls:
                chosen += ", forbidden " + ", ".join(plain(name, 60) for name in sample.forbidden_calls)
            fixture_rows.append(
                [plain(fixture.id, 50), f"{expected} → {chosen}", fixture_outcome(fixture), ""]
            )
        # The query gets what is left of the line (at least 40 columns; a long one is cut with a note).
        used = sum(max(display_width(row[index]) for row in fixture_rows) + 2 for index in range(3)) + 2
        room = max(width - used, 40)
        for row, fixture in zip(fixture_rows[1:], failing, strict=False):
            row[3] = plain(fixture.query, room)
        # What an answer without a call said (the lexical baseline: why it called nothing), as the
        # Markdown and HTML reports show it: on up to three lines under "expected → chosen".
        column = 2 + max(display_width(row[0]) for row in fixture_rows) + 2
        note_room = max(width - column, 40)
        for text_line, row_fixture in zip(table(fixture_rows), [None, *failing[:MAX_FAILING]], strict=True):
            lines.append(text_line)
            note = plain(answer_note(row_fixture.representative), None) if row_fixture else ""
            wrapped = textwrap.wrap(note, note_room, max_lines=3, placeholder=" …", break_on_hyphens=False)
            lines += [" " * column + part for part in wrapped]
        if len(failing) > MAX_FAILING:
            lines.append(f"  … {len(failing) - MAX_FAILING} more (see the JSON or HTML report)")
    elif coverage.reached:
        lines += ["", f"All {coverage.fixtures_reached} reached fixtures passed."]

    if s.flaky:
        shown = ", ".join(plain(fixture_id, 50) for fixture_id in s.flaky[:MAX_ROWS])
        more = f" … and {len(s.flaky) - MAX_ROWS} more" if len(s.flaky) > MAX_ROWS else ""
        lines += ["", f"Flaky (right in some samples, wrong in others): {shown}{more}"]

    if comparison is not None:
        lines += _baseline(comparison, style)

    if not s.run.lexical:
        usage = s.usage
        cost = money(usage.cost_usd) + (
            "" if usage.cost_complete else " (lower bound: some answers unpriced)"
        )
        tokens = number(usage.input_tokens + usage.cache_write_tokens + usage.cache_read_tokens)
        lines += [
            "",
            f"Usage: {tokens} input tokens · {number(usage.output_tokens)} output tokens · cost {cost}",
        ]
    if s.notes:
        lines += ["", style("Notes", bold=True)]
        lines += [f"  - {plain(note, 400)}" for note in s.notes[:MAX_ROWS]]
    return "\n".join(lines) + "\n"


def _baseline(comparison: BaselineComparison, style: Style) -> list[str]:
    lines = ["", style("Baseline", bold=True)]
    colour = "red" if comparison.fails else "yellow" if comparison.verdict == "not_comparable" else None
    message = plain(comparison.message, 1000)
    lines.append("  " + (style(message, fg=colour) if colour else message))
    for difference in comparison.differences:
        before, after = plain(difference.baseline, 80), plain(difference.current, 80)
        lines.append(f"  {plain(difference.field, 40)}: {before} → {after}")
    fixture_set = comparison.fixture_set
    for label, ids in (
        ("added", fixture_set.added),
        ("removed", fixture_set.removed),
        ("changed", fixture_set.changed),
    ):
        if ids:
            shown = ", ".join(plain(fixture_id, 50) for fixture_id in ids[:MAX_ROWS])
            more = f" … +{len(ids) - MAX_ROWS}" if len(ids) > MAX_ROWS else ""
            lines.append(f"  fixtures {label} (not compared): {shown}{more}")
    lost = {change.id for change in comparison.tool_regressions}
    changes = [
        ("regression (lost the right tool)" if change.id in lost else "regression", change)
        for change in comparison.regressions
    ]
    changes += [("fix", change) for change in comparison.fixes]
    if changes:
        rows = [["change", "fixture", "baseline", "this run"]]
        for kind, change in changes[:MAX_FAILING]:
            rows.append(
                [
                    kind,
                    plain(change.id, 50),
                    f"{OUTCOME_LABELS.get(change.before, change.before)} ({points(change.before_score)})",
                    f"{OUTCOME_LABELS.get(change.after, change.after)} ({points(change.after_score)})",
                ]
            )
        lines += table(rows)
        if len(changes) > MAX_FAILING:
            lines.append(f"  … {len(changes) - MAX_FAILING} more (see the JSON report)")
    return lines
