"""The Markdown of ``mcp-evals compare`` (pure: a ``Comparison`` in, text out; untrusted text escaped)."""

from __future__ import annotations

from collections.abc import Sequence

from mcp_evals.compare.paired import ArmSummary, Comparison, PairedDifference, signed
from mcp_evals.report.escape import md_code, md_text
from mcp_evals.score import CORRECT_OUTCOMES, Rate, outcome_label
from mcp_evals.score.gate import format_percent
from mcp_evals.wording import plural

SHOWN_ROWS = 50  # of the changed fixtures and the missed searches


def _rate(rate: Rate | None) -> str:
    if rate is None or rate.value is None:
        return "n/a"
    low, high = format_percent(rate.low, digits=0), format_percent(rate.high, digits=0)
    return f"{format_percent(rate.value)} ({low}–{high})"


def _score(arm: ArmSummary) -> str:
    if arm.score is None:
        return "n/a"
    if arm.score_low is None or arm.score_high is None:  # a comparison.json written before intervals
        return f"{arm.score:.1f}"
    return f"{arm.score:.1f} ({arm.score_low:.0f}–{arm.score_high:.0f})"


def _money(value: float | None) -> str:
    return "n/a" if value is None else f"${value:,.4f}"


def _number(value: float | None, digits: int = 0) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def _change(value: float | None) -> str:
    return "n/a" if value is None else f"{signed(value * 100, 0)} %"


def _points(value: float | None) -> str:
    return "n/a" if value is None else signed(value)


def _accuracy(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}%"


def _arms_table(arms: Sequence[ArmSummary]) -> list[str]:
    k = arms[0].k if arms else 3
    lines = [
        f"| arm | how the catalog reached the model | top-1 | top-{k} | refusal | accuracy | "
        "score (95 % interval) | "
        "cost / fixture | input tokens / fixture | requests / fixture |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for arm in arms:
        score = _score(arm)
        lines.append(
            f"| {md_code(arm.arm.name)} | {md_text(arm.arm.label)} | {_rate(arm.top1)} | "
            f"{_rate(arm.top_k)} | "
            f"{_rate(arm.refusal)} | {_rate(arm.accuracy)} | {score} | {_money(arm.cost_per_fixture)} | "
            f"{_number(arm.input_tokens_per_fixture)} | {_number(arm.requests_per_fixture, 1)} |"
        )
    return lines


def _pairs_table(pairs: Sequence[PairedDifference]) -> list[str]:
    lines = [
        "| second vs first | paired | accuracy | Δ points | fixes | breaks | p (exact) | cost | "
        "input tokens |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for pair in pairs:
        lines.append(
            f"| {md_code(pair.second)} vs {md_code(pair.first)} | {pair.paired} | "
            f"{_accuracy(pair.first_accuracy)} → {_accuracy(pair.second_accuracy)} | "
            f"{_points(pair.delta_pp)} | "
            f"{len(pair.fixes)} | {len(pair.breaks)} | {pair.p_value:.2g} | {_change(pair.cost_change)} | "
            f"{_change(pair.input_change)} |"
        )
    return lines


def _areas(pair: PairedDifference) -> list[str]:
    lines = [
        f"#### Per area: {md_code(pair.second)} vs {md_code(pair.first)}",
        "",
        "| area | paired | before | after | Δ points | fixes | breaks |",
        "|---|---|---|---|---|---|---|",
    ]
    for area in pair.areas:
        lines.append(
            f"| {md_text(area.area)} | {area.paired} | {_accuracy(area.before)} | {_accuracy(area.after)} | "
            f"{_points(area.delta_pp)} | {area.fixes} | {area.breaks} |"
        )
    return lines


def _retrieval(arm: ArmSummary) -> list[str]:
    retrieval = arm.retrieval
    if retrieval is None:
        return []
    found = (
        "the expected tool's area was opened"
        if arm.arm.kind == "grouped"
        else "an expected tool was revealed"
    )
    lines = [
        f"### Retrieval: {md_code(arm.arm.name)}",
        "",
        f"- retrieval recall {_rate(retrieval.recall)}: {found} "
        f"({retrieval.recall.hits} of {retrieval.recall.total} select answers)",
        f"- selection given retrieval {_rate(retrieval.selection_given_retrieval)}: of those, the model "
        f"called an expected tool ({retrieval.selection_given_retrieval.hits} of "
        f"{retrieval.selection_given_retrieval.total})",
    ]
    if retrieval.missed:
        what = "area opened" if arm.arm.kind == "grouped" else "searched for"
        lines += ["", f"| fixture | expected | {what} |", "|---|---|---|"]
        for miss in retrieval.missed[:SHOWN_ROWS]:
            shown = miss.area if arm.arm.kind == "grouped" else "; ".join(miss.searches)
            lines.append(
                f"| {md_code(miss.fixture_id)} | {', '.join(str(md_code(t)) for t in miss.expected_tools)} | "
                f"{md_text(shown or '(nothing)')} |"
            )
        if len(retrieval.missed) > SHOWN_ROWS:
            lines.append(f"\n… and {len(retrieval.missed) - SHOWN_ROWS} more (comparison.json has them all)")
    return [*lines, ""]


def _changed(comparison: Comparison) -> list[str]:
    names = [arm.arm.name for arm in comparison.arms]
    rows = [
        row
        for row in comparison.fixtures
        if len({row.outcomes.get(name) in CORRECT_OUTCOMES for name in names}) > 1
    ]
    if not rows:
        return []
    lines = [
        "### Fixtures whose answer changed",
        "",
        "| fixture | area | " + " | ".join(str(md_code(name)) for name in names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for row in rows[:SHOWN_ROWS]:
        cells = []
        for name in names:
            outcome = row.outcomes.get(name, "dropout")
            mark = "✅" if outcome in CORRECT_OUTCOMES else "❌" if outcome != "dropout" else "·"
            cells.append(f"{mark} {outcome_label(outcome)}")
        lines.append(f"| {md_code(row.id)} | {md_text(row.area)} | " + " | ".join(cells) + " |")
    if len(rows) > SHOWN_ROWS:
        lines.append(f"\n… and {len(rows) - SHOWN_ROWS} more (comparison.json has them all)")
    return [*lines, ""]


# Sessions and contract cases state their isolation; compare's arms need none, and say why.
ISOLATION = (
    "Isolation: none needed — compare calls no tool (each server is listed once, before the run), so "
    "every arm meets the same server state."
)


def render_comparison(comparison: Comparison) -> str:
    names = " vs ".join(arm.arm.name for arm in comparison.arms)
    fixtures = len(comparison.fixtures)
    status = " (PRELIMINARY: some answers never reached the model)" if comparison.preliminary else ""
    lines = [
        f"## mcp-evals compare: {md_text(names)}{status}",
        "",
        f"**Verdict.** {md_text(comparison.verdict, limit=2000)}",
        "",
        f"{md_text(comparison.provider)}/{md_text(comparison.model)} · {plural(fixtures, 'fixture')} × "
        f"{plural(len(comparison.arms), 'arm')}, interleaved in one run with the same settings · "
        f"paired exact test, alpha {comparison.alpha:g}",
        "",
        *_arms_table(comparison.arms),
        "",
        ISOLATION,
        "",
        "### Paired differences",
        "",
        *_pairs_table(comparison.pairs),
        "",
    ]
    for pair in comparison.pairs:
        if pair.areas:
            lines += [*_areas(pair), ""]
    for arm in comparison.arms:
        lines += _retrieval(arm)
    lines += _changed(comparison)
    if comparison.notes:
        lines += ["### Notes", "", *(f"- {md_text(note, limit=500)}" for note in comparison.notes), ""]
    return "\n".join(lines).rstrip() + "\n"
