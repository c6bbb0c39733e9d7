"""The Markdown report of a session run, rendered from its summary alone (pure).

Everything a server, a model or a task-set file wrote is escaped (``report.escape``): task ids,
names, system prompts, error messages. The section fits a PR comment; ``max_chars`` cuts the
per-task table first.
"""

from __future__ import annotations

from mcp_evals.config.isolation import isolation_statement
from mcp_evals.report.escape import md_block, md_code, md_text
from mcp_evals.score.intervals import Rate
from mcp_evals.session.aggregate import CellSummary, Mean, SessionSummary, column_label, short_sha
from mcp_evals.wording import plural


def _number(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _mean(mean: Mean, digits: int = 2) -> str:
    if mean.mean is None:
        return "–"
    if mean.low is None or mean.high is None:
        return f"{mean.mean:.{digits}f} (n={mean.n})"
    return f"{mean.mean:.{digits}f} [{mean.low:.{digits}f}, {mean.high:.{digits}f}]"


def _signed(mean: Mean, *, scale: float = 1.0, unit: str = "", digits: int = 2) -> str:
    if mean.mean is None:
        return "–"
    value = f"{mean.mean * scale:+.{digits}f}{unit}"
    if mean.low is None or mean.high is None:
        return f"{value} (n={mean.n})"
    return f"{value} [{mean.low * scale:+.{digits}f}, {mean.high * scale:+.{digits}f}]"


def _rate(rate: Rate) -> str:
    if rate.value is None or rate.low is None or rate.high is None:
        return "–"
    return f"{rate.value:.0%} [{rate.low:.0%}, {rate.high:.0%}] ({rate.hits}/{rate.total})"


def _dropouts(dropouts: dict[str, int]) -> str:
    return ", ".join(f"{md_code(kind)} {count}" for kind, count in sorted(dropouts.items())) or "0"


def _cell_row(cell: CellSummary) -> str:
    cells = [
        cell.arm,
        f"{cell.fault_percent:g}%",
        f"{cell.finished}/{cell.planned}",
        _mean(cell.bad_calls),
        _number(cell.repeated_after_error.mean),
        _number(cell.schema_rejected.mean),
        _number(cell.insistence.mean),
        _rate(cell.accuracy),
        _number(cell.steps.mean, 1),
        "–" if cell.tool_success_rate is None else f"{cell.tool_success_rate:.0%}",
        _number(cell.path_efficiency.mean),
        f"{cell.expected_in_order.hits}/{cell.expected_in_order.total}",
        f"${cell.cost_usd:.4f}",
    ]
    return "| " + " | ".join(cells) + " |"


def render_session_markdown(summary: SessionSummary, *, max_chars: int | None = None) -> str:
    """The report; with ``max_chars``, the per-task table is cut to fit (and says so)."""
    head = _head(summary)
    tail = _tail(summary)
    tasks = _task_lines(summary)
    if max_chars is not None:
        room = max_chars - len(head) - len(tail) - 200
        kept: list[str] = []
        for line in tasks:
            if len("\n".join(kept)) + len(line) > room:
                kept.append(
                    f"\n… {len(tasks) - len(kept)} more lines left out to fit; the records hold them all."
                )
                break
            kept.append(line)
        tasks = kept
    return "\n".join([head, *tasks, tail]).rstrip() + "\n"


def _head(summary: SessionSummary) -> str:
    lines = [f"## mcp-evals session: {md_text(summary.name)}", ""]
    icon = "⚠️ **PRELIMINARY**" if summary.preliminary else "✅ complete"
    lines.append(
        f"{icon} · {md_code(summary.provider)}/{md_code(summary.model)} · {md_text(summary.date)} · "
        f"commit {md_code(short_sha(summary.git_sha))} · {plural(summary.planned, 'session')} planned: "
        f"{summary.finished} finished, {summary.budget_stops} stopped by the budget, "
        f"{sum(summary.dropouts.values())} dropouts, {summary.not_run} not run"
    )
    if summary.isolation:
        lines += ["", "; ".join(md_text(isolation_statement(kind)) for kind in summary.isolation)]
    if summary.finished < summary.planned:
        lines += [
            "",
            "Not every planned session finished: dropouts, budget stops and sessions not run are left out "
            "of every measure below, which describes only the sessions that finished (what dropouts and "
            "budget stops spent is in the cost). "
            "`mcp-evals session` again (same day, same commit) runs only what is missing.",
        ]
    if summary.teardown_failures:
        lines += [
            "",
            f"The teardown failed in {plural(summary.teardown_failures, 'session')}: the sessions after it "
            "may not have started from the same state (see *Isolation* below).",
        ]
    lines += ["", "### Arms", ""]
    for arm in summary.arms:
        description = summary.arm_descriptions.get(arm, "")
        idle = "" if arm in summary.planned_arms else " (not in the plan)"
        lines.append(f"- **{arm}**{idle}" + (f": {md_text(description)}" if description else ""))
    lines += ["", "<details><summary>System prompts</summary>", ""]
    for arm, prompt in summary.arms.items():
        lines += [f"**{arm}**", "", str(md_block(prompt, limit=4000)), ""]
    lines += ["</details>", "", "### By arm and fault level", ""]
    lines.append(
        "| arm | faults | finished | bad calls / task | (a) repeated | (b) schema | (c) insistence | "
        "answer accuracy | steps | tool success | path efficiency | expected in order | cost |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    lines += [_cell_row(cell) for cell in summary.cells]
    lines += [
        "",
        "Bad calls: (a) the same call repeated after a definitive error, (b) a call the tool's schema "
        "rejects, (c) a third or later call on one tool and arguments when all so far failed; a call "
        "counts once. Means with 95 % intervals.",
    ]
    if summary.differences:
        lines += ["", "### A − B", ""]
        lines.append("| faults | pairs | bad calls / task, A − B | answer accuracy, A − B |")
        lines.append("|---|---|---|---|")
        for difference in summary.differences:
            lines.append(
                f"| {difference.fault_percent:g}% | {difference.pairs} | {_signed(difference.bad_calls)} | "
                f"{_signed(difference.accuracy, scale=100, unit=' pts', digits=0)} |"
            )
        lines += [
            "",
            "Paired by task and run: the mean of A − B with its 95 % interval. Below 0 bad calls, A makes "
            "fewer; an interval that holds 0 shows no difference at this size.",
        ]
    return "\n".join(lines) + "\n"


def _task_lines(summary: SessionSummary) -> list[str]:
    columns = [column_label(cell.arm, cell.fault_percent) for cell in summary.cells]
    lines = ["### Bad calls per task", ""]
    lines.append("| task | trap | " + " | ".join(md_text(column) for column in columns) + " |")
    lines.append("|---|---|" + "---|" * len(columns))
    for row in summary.tasks:
        values = [_mean(row.bad_calls[column]) for column in columns]
        lines.append(f"| {md_code(row.task_id)} | {md_text(row.trap or '–')} | " + " | ".join(values) + " |")
    return lines


def _tail(summary: SessionSummary) -> str:
    lines = [""]
    if summary.judge_model:
        lines += [
            f"### (d) Unstable values quoted without a caveat (judge {md_code(summary.judge_model)})",
            "",
        ]
        lines += ["| arm | faults | uncaveated / judged |", "|---|---|---|"]
        for cell in summary.cells:
            lines.append(f"| {cell.arm} | {cell.fault_percent:g}% | {_rate(cell.uncaveated)} |")
        lines += [
            "",
            f"Judge cost: ${summary.judge_cost_usd:.4f} (its own line; not in the sessions' cost).",
            "",
        ]
    if summary.isolation_warnings:
        lines += ["### Isolation", ""]
        lines += [f"- ⚠️ {md_text(line, 400)}" for line in summary.isolation_warnings[:20]]
        if len(summary.isolation_warnings) > 20:
            lines.append(f"- … and {len(summary.isolation_warnings) - 20} more (the records hold them all)")
        lines.append("")
    lines.append("### Cost and dropouts")
    lines.append("")
    lines.append(
        f"Sessions ${summary.cost_usd:.4f} + judge ${summary.judge_cost_usd:.4f} = "
        f"${summary.cost_usd + summary.judge_cost_usd:.4f}. "
        f"Dropouts (not scored): {_dropouts(summary.dropouts)}. "
        f"Budget stops: {summary.budget_stops}. Not run: {summary.not_run}."
    )
    if summary.stale:
        lines.append(f"{plural(summary.stale, 'record')} of an earlier setup of a task or an arm left out.")
    for note in summary.notes:
        lines.append(f"- note: {md_text(note, 400)}")
    lines.append("")
    lines.append(f"<sub>mcp-evals {md_text(summary.tool_version)} · session records</sub>")
    return "\n".join(lines)
