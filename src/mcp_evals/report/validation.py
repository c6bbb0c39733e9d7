"""The Markdown of a validate run: the GitHub Action's `validate` section (PR comment, job summary)
and ``mcp-evals validate --format md``.

It is rendered from the document ``mcp-evals validate --format json`` prints (the Action reads it from
that process), so both give the same Markdown. Tool names and messages come from servers and fixture
files a pull request may change: every one goes through ``escape``. The first three lines (the
verdict heading, a blank line, the counts) are never cut; when the problem table does not fit
``max_chars``, it keeps as many rows as fit (errors come first) and says how many it left out.

With a catalog lock (the document's ``lock`` block), a "Tool surface" section follows the counts:
one line when the catalog matches the lock, else the changes per class, the first
``SURFACE_LINES`` in a list and the rest in ``<details>``, the fixtures to re-run and the fix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp_evals.catalog.classify import CHANGE_CLASSES, CLASS_LABELS, ClassifiedChange, describe
from mcp_evals.catalog.lock import UPDATE_COMMAND
from mcp_evals.report.escape import md_code, md_text
from mcp_evals.report.markdown import DEFAULT_MAX_CHARS, size_in_chars
from mcp_evals.wording import number, plural

OK_HEADING = "## ✅ mcp-evals validate: the fixtures match the live catalog"
FAILED_HEADING = "## ❌ mcp-evals validate: the fixtures do not match the live catalog"
LOCK_HEADING = "## ❌ mcp-evals validate: the live catalog differs from its lock"
SURFACE_HEADING = "### Tool surface"
SURFACE_LINES = 30
_RERUN_TOOLS = 10
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
        f"{number(_count(kinds[kind]))} {kind}" for kind in ("select", "refuse", "clarify") if kind in kinds
    )
    errors, warnings = _count(document.get("errors", 0)), _count(document.get("warnings", 0))
    facts = [
        plural(_count(cover.get("fixtures", 0)), "fixture") + (f" ({kind_text})" if kind_text else ""),
        f"{number(_count(cover.get('covered_tools', 0)))} of {plural(_count(cover.get('tools', 0)), 'tool')} "
        "covered",
        f"{number(len(cover.get('covered_areas') or []))} of {plural(len(cover.get('areas') or []), 'area')} "
        "covered",
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
    if document.get("ok"):
        heading = OK_HEADING
    elif _count(document.get("errors", 0)) == 0 and isinstance(document.get("lock"), Mapping):
        heading = LOCK_HEADING
    else:
        heading = FAILED_HEADING
    lines = [heading, "", _facts(document)]
    lock = document.get("lock")
    if isinstance(lock, Mapping):
        lines += ["", *render_surface(lock, max_chars=None if max_chars is None else max_chars // 2)]
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


def _quote(text: str) -> str:
    return str(md_code(text, 100))


def change_line(change: Mapping[str, Any]) -> str:
    """One classified change as a list item, every name and value escaped."""
    try:
        item = ClassifiedChange.model_validate(change)
    except ValueError:
        return "- *(a change this version cannot read)*"
    line = f"- **{CLASS_LABELS[item.classification]}** · {describe(item, _quote)}"
    if item.kind == "description_changed":
        line += f" — now: {md_text(item.after or '', limit=160)}"
    return line


def render_surface(lock: Mapping[str, Any], *, max_chars: int | None = None) -> list[str]:
    """The "Tool surface" section of a lock block: one line when it matches, else the classified
    changes (``SURFACE_LINES`` shown, the rest in ``<details>`` as far as ``max_chars`` allows), the
    fixtures to re-run and the fix."""
    path = md_code(lock.get("path", ""), 200)
    tools, lock_tools = _count(lock.get("tool_count")), _count(lock.get("lock_tool_count"))
    digest = md_code(str(lock.get("hash", ""))[:12])
    status = lock.get("status")
    fix = f"**Fix:** run `{UPDATE_COMMAND}` and commit {path}; its diff in the pull request is the record."
    if status == "matches":
        return [SURFACE_HEADING, "", f"✅ catalog matches the lock ({plural(tools, 'tool')}, hash {digest})"]
    if status != "differs":
        return [SURFACE_HEADING, "", f"❌ The catalog lock {path} does not exist yet.", "", fix]
    counts = lock.get("counts") or {}
    tally = " · ".join(
        (f"**{_count(counts.get(name))} {CLASS_LABELS[name]}**" if name == "breaking" and counts.get(name)
         else f"{_count(counts.get(name))} {CLASS_LABELS[name]}")
        for name in CHANGE_CLASSES
    )  # fmt: skip
    lock_digest = md_code(str(lock.get("lock_hash") or "")[:12])
    changes = [change for change in lock.get("changes") or [] if isinstance(change, Mapping)]
    rows = [change_line(change) for change in changes]
    head = [
        SURFACE_HEADING,
        "",
        f"❌ The live catalog differs from the lock {path} ({plural(lock_tools, 'tool')}, hash "
        f"{lock_digest} → {plural(tools, 'tool')}, hash {digest}): {tally}.",
        "",
        *rows[:SURFACE_LINES],
    ]
    tail = [*_rerun(lock), "", fix]
    rest = rows[SURFACE_LINES:]
    if not rest:
        return [*head, *tail]
    room = None if max_chars is None else max_chars - size_in_chars("\n".join([*head, *tail])) - 200
    kept: list[str] = []
    for row in rest:
        if room is not None:
            room -= size_in_chars(row) + 1
            if room < 0:
                break
        kept.append(row)
    details = ["", "<details>", f"<summary>{plural(len(rest), 'more change')}</summary>", "", *kept]
    if len(kept) < len(rest):
        details += ["", f"*… and {len(rest) - len(kept)} more: `mcp-evals validate` lists them all.*"]
    return [*head, *details, "", "</details>", *tail]


def _rerun(lock: Mapping[str, Any]) -> list[str]:
    exercised = lock.get("exercised_by") or {}
    if not isinstance(exercised, Mapping) or not exercised:
        return []
    covers = [
        f"{plural(len(ids) if isinstance(ids, list) else 0, 'fixture')} "
        f"{'covers' if isinstance(ids, list) and len(ids) == 1 else 'cover'} {md_code(tool, 100)}"
        for tool, ids in list(exercised.items())[:_RERUN_TOOLS]
    ]
    more = f" and {len(exercised) - _RERUN_TOOLS} more tools" if len(exercised) > _RERUN_TOOLS else ""
    command = md_code(lock.get("rerun") or "", 1000)
    return [
        "",
        f"**Selection may have moved:** {', '.join(covers)}{more}: re-run {command} or dispatch the "
        "paid eval.",
    ]


__all__ = [
    "FAILED_HEADING",
    "LOCK_HEADING",
    "OK_HEADING",
    "SURFACE_HEADING",
    "problem_row",
    "render_surface",
    "render_validation_markdown",
]
