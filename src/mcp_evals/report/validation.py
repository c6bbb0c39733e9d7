"""The Markdown of a validate run: the GitHub Action's `validate` section (PR comment, job summary)
and ``mcp-evals validate --format md``.

It is rendered from the document ``mcp-evals validate --format json`` prints (the Action reads it from
that process), so both give the same Markdown. Tool names and messages come from servers and fixture
files a pull request may change: every one goes through ``escape``. The first three lines (the
verdict heading, a blank line, the counts) are never cut; when the problem table does not fit
``max_chars``, it keeps as many rows as fit (errors come first) and says how many it left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp_evals.report.escape import md_code, md_text
from mcp_evals.report.markdown import DEFAULT_MAX_CHARS, size_in_chars
from mcp_evals.wording import plural

OK_HEADING = "## ✅ mcp-evals validate: the fixtures match the live catalog"
FAILED_HEADING = "## ❌ mcp-evals validate: the fixtures do not match the live catalog"
_TABLE_HEAD = ["", "| | where | rule | problem |", "|---|---|---|---|"]


def _count(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _facts(document: Mapping[str, Any]) -> str:
    cover = document.get("coverage") or {}
    kinds = cover.get("kinds") or {}
    kind_text = ", ".join(
        f"{_count(kinds[kind])} {kind}" for kind in ("select", "refuse", "clarify") if kind in kinds
    )
    errors, warnings = _count(document.get("errors", 0)), _count(document.get("warnings", 0))
    facts = [
        f"{_count(cover.get('fixtures', 0))} fixtures" + (f" ({kind_text})" if kind_text else ""),
        f"{_count(cover.get('covered_tools', 0))} of {_count(cover.get('tools', 0))} tools covered",
        f"{len(cover.get('covered_areas') or [])} of {len(cover.get('areas') or [])} areas covered",
        f"{plural(errors, 'error')}, {plural(warnings, 'warning')}",
    ]
    return " · ".join(facts)


def problem_row(problem: Mapping[str, Any]) -> str:
    """One problem as a table row; every cell escaped (``md_code`` / ``md_text``)."""
    icon = "❌" if problem.get("severity") == "error" else "⚠️"
    where = str(problem.get("file") or "")
    if where and problem.get("line"):
        where += f":{problem['line']}"
    location = str(md_code(where)) if where else ""
    rule = md_text(problem.get("rule", ""), limit=60)
    return f"| {icon} | {location} | {rule} | {md_text(problem.get('message', ''), limit=400)} |"


def _hidden_note(hidden: Sequence[Mapping[str, Any]]) -> str:
    errors = sum(1 for problem in hidden if problem.get("severity") == "error")
    warnings = len(hidden) - errors
    counts = [plural(count, word) for count, word in ((errors, "error"), (warnings, "warning")) if count]
    return (
        f"\n*… and {plural(len(hidden), 'more problem')} ({', '.join(counts)}) not shown here: "
        "`mcp-evals validate` lists them all.*"
    )


def render_validation_markdown(
    document: Mapping[str, Any], *, max_chars: int | None = DEFAULT_MAX_CHARS
) -> str:
    """The Markdown of ``mcp-evals validate --format json``'s document, within ``max_chars`` (UTF-16).

    Line 1 is the verdict heading and line 3 the counts; neither is ever cut, even when they alone
    exceed ``max_chars``. ``max_chars=None`` keeps every problem.
    """
    heading = OK_HEADING if document.get("ok") else FAILED_HEADING
    lines = [heading, "", _facts(document)]
    problems = [problem for problem in document.get("problems") or [] if isinstance(problem, Mapping)]
    if not problems:
        return "\n".join(lines)
    rows = [problem_row(problem) for problem in problems]
    full = "\n".join([*lines, *_TABLE_HEAD, *rows])
    if max_chars is None or size_in_chars(full) <= max_chars:
        return full
    return _shortened(lines, problems, rows, max_chars)


def _shortened(
    lines: list[str], problems: Sequence[Mapping[str, Any]], rows: Sequence[str], max_chars: int
) -> str:
    """As many rows as fit with the note saying how many did not; the verdict lines always stay."""
    head = "\n".join(lines)
    table_head = "\n" + "\n".join(_TABLE_HEAD)
    # A note's length barely depends on how many rows it hides: budget for the longest one.
    room = max_chars - size_in_chars(head + table_head) - size_in_chars(_hidden_note(problems))
    kept, used = 0, 0
    for row in rows:
        used += size_in_chars(row) + 1  # its newline
        if used > room:
            break
        kept += 1
    if kept == 0:
        return head + "\n" + _hidden_note(problems)
    return "\n".join([head, *_TABLE_HEAD, *rows[:kept]]) + "\n" + _hidden_note(problems[kept:])


__all__ = ["FAILED_HEADING", "OK_HEADING", "problem_row", "render_validation_markdown"]
