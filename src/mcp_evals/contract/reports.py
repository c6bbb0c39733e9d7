"""Contract reports: console, JSON, one-file HTML and the Markdown section of the PR comment.

Pure functions of the recorded run (and, when given, its comparison with earlier runs). Case names
come from files a pull request may change and outputs from servers: everything is escaped for the
place it goes (``report.escape``).
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from mcp_evals.contract.model import CaseResult, ContractRun
from mcp_evals.contract.regression import CaseChange, Comparison, failing_lines
from mcp_evals.report.escape import clean, html_text, md_code, md_text, plain, truncate, xml_text
from mcp_evals.wording import plural

Format = Literal["console", "json", "html", "md", "junit"]
FORMATS: tuple[Format, ...] = ("console", "json", "html", "md", "junit")
MARKER = "<!-- mcp-evals:contract -->"
if TYPE_CHECKING:
    import jinja2

_WORD = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP", "flaky": "FLAKY", "failing": "FAIL"}
_DETAIL_LINES = 40
_ICON = {"passed": "✅", "failed": "❌", "skipped": "⏭️"}


def headline(run: ContractRun) -> str:
    total = len(run.cases)
    parts = [f"{run.passed} passed", f"{run.failed} failed"]
    if run.flaky:
        parts[-1] += f" ({len(run.flaky)} flaky)"
    if run.skipped:
        parts.append(f"{run.skipped} skipped")
    text = f"{', '.join(parts)} of {plural(total, 'case')}"
    if run.trials > 1 and run.pass_k is not None:
        text += f" · pass^{run.trials} {run.pass_k:.0%}"
    return text


def case_word(case: CaseResult) -> str:
    """PASS, FAIL, SKIP, or FLAKY for a case some of whose trials passed and some failed."""
    return _WORD[case.verdict if case.verdict == "flaky" else case.status]


def _indented(line: str) -> str:
    """One line of a diff for a terminal: its spaces kept, no control characters, cut at 300."""
    return truncate(clean(line).replace("\n", " "), 300)


def _details(case: CaseResult) -> list[str]:
    """The multi-line details of what failed (a snapshot's diff), at most 40 lines per assertion."""
    lines: list[str] = []
    for step in case.failing_steps:
        for item in step.failed_assertions:
            if item.detail:
                body = item.detail.splitlines()
                more = len(body) - _DETAIL_LINES
                lines += [f"{step.id}: {item.kind}:"] + [f"  {line}" for line in body[:_DETAIL_LINES]]
                lines += [f"  … {more} more lines"] if more > 0 else []
    return lines


def _duration(milliseconds: float | None) -> str:
    if milliseconds is None:
        return "–"
    return f"{milliseconds:.0f} ms" if milliseconds < 10_000 else f"{milliseconds / 1000:.1f} s"


def _skips(case: CaseResult) -> list[str]:
    return [
        f"{step.id}: {item.kind} — {item.message}" for step in case.steps for item in step.skipped_assertions
    ]


def isolation_lines(case: CaseResult) -> list[str]:
    """What a case's isolation came to beyond its failures: writes to a shared store, tools called on
    a shared server that may change it, the sandbox kept (``--keep-sandbox``)."""
    report = case.isolation
    if report is None:
        return []
    lines = [
        f"warning: {line}"
        for line in report.warnings
        if not line.startswith(("setup failed", "teardown failed"))  # failing_lines shows those
    ]
    if report.sandbox is not None:
        lines.append(f"sandbox kept: {report.sandbox}")
    return lines


def _change_line(change: CaseChange) -> str:
    return f"{change.name} ({change.before} → {change.now}, vs run {change.before_run})"


def render_console(run: ContractRun, comparison: Comparison | None = None) -> str:
    """Plain text for a terminal or a CI log: one line per case, what failed or was skipped under it."""
    lines = [f"mcp-evals contract: {headline(run)} · suite {plain(run.suite)} · run {run.run_id}", ""]
    for case in run.cases:
        steps = f"{plural(len(case.steps), 'step')}"
        took = _duration(case.duration_ms)
        trials = f", {case.trials.shown}" if case.trials is not None else ""
        lines.append(f"{case_word(case)}  {plain(case.name, 100)}  ({case.mode}, {steps}, {took}{trials})")
        if case.error:  # all of it: the stderr tail and the hint say why the server did not start
            lines += [f"      {plain(line, 600)}" for line in case.error.splitlines()]
        for line in failing_lines(case, limit=20) if not case.error else []:
            lines.append(f"      {plain(line, 300)}")
        lines += [f"      {_indented(line)}" for line in _details(case)]
        if case.error and case.isolation is not None:
            errors = case.isolation.teardown_errors
            lines += [f"      teardown failed: {plain(error, 600)}" for error in errors]
        lines += [f"      {plain(line, 600)}" for line in isolation_lines(case)]
        if case.status == "skipped":
            for line in _skips(case):
                lines.append(f"      skipped {plain(line, 300)}")
    if run.judge.requests or run.judge.budget_usd is not None:
        budget = f" of ${run.judge.budget_usd:g}" if run.judge.budget_usd is not None else ""
        lines += ["", f"judge: {plural(run.judge.requests, 'request')}, ${run.judge.cost_usd:.4f}{budget}"]
    if comparison is not None:
        lines += ["", *comparison_lines(comparison)]
    return "\n".join(lines) + "\n"


def comparison_lines(comparison: Comparison) -> list[str]:
    """The comparison as plain text."""
    if comparison.first:
        return ["regressions: no earlier run of this suite to compare with (no history yet)"]
    against = ", ".join(comparison.compared_with[:3]) + ("…" if len(comparison.compared_with) > 3 else "")
    lines = [
        f"compared with run {against}: {plural(len(comparison.regressions), 'regression')}, "
        f"{plural(len(comparison.fixes), 'fix', 'fixes')}, {len(comparison.still_failing)} still failing, "
        f"{len(comparison.new)} new, {comparison.unchanged} unchanged"
    ]
    for title, changes in (("regression", comparison.regressions), ("fixed", comparison.fixes)):
        for change in changes:
            lines.append(f"  {title}: {plain(_change_line(change), 200)}")
            if title == "regression":
                lines += [f"      {plain(line, 300)}" for line in change.failing]
    for name in comparison.new:
        lines.append(f"  new: {plain(name, 120)}")
    for name in comparison.removed:
        lines.append(f"  not in the later run: {plain(name, 120)}")
    return lines


def render_json(run: ContractRun, comparison: Comparison | None = None) -> str:
    """The run record and its comparison, as JSON."""
    document: dict[str, Any] = {
        "run": run.model_dump(mode="json"),
        "summary": {
            "passed": run.passed,
            "failed": run.failed,
            "skipped": run.skipped,
            "total": len(run.cases),
            "ok": run.ok,
            "trials": run.trials,
            "flaky": run.flaky,
            "pass_k": run.pass_k,
        },
        "comparison": comparison.model_dump(mode="json") if comparison is not None else None,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_contract_markdown(
    run: ContractRun, comparison: Comparison | None = None, *, max_cases: int = 50, max_failures: int = 30
) -> str:
    """The Markdown section the Action puts in the PR comment: pass/fail per case, the failing steps
    with the assertion that failed, and regressions against the previous run.

    Pure: the same run (and comparison) gives the same text. Untrusted text is escaped for Markdown
    (no HTML, links, mentions, table breaks or forged comment markers).
    """
    icon = "✅" if run.ok else "❌"
    lines = [
        MARKER,
        f"### {icon} Contract tests: {headline(run)}",
        "",
        f"Suite {md_code(run.suite)} · run {md_code(run.run_id)}"
        + (f" · commit {md_code(run.git_sha[:12])}" if run.git_sha else ""),
        "",
        "| case | mode | result | steps | time |",
        "|---|---|---|---:|---:|",
    ]
    for case in run.cases[:max_cases]:
        ran = sum(1 for step in case.steps if step.status != "not_run")
        result = f"{_ICON[case.status]} {case.status}"
        if case.trials is not None:
            result += f" ({'flaky, ' if case.verdict == 'flaky' else ''}{case.trials.shown})"
        lines.append(
            f"| {md_text(case.name, 100)} | {case.mode} | {result} | "
            f"{ran}/{len(case.steps)} | {_duration(case.duration_ms)} |"
        )
    if len(run.cases) > max_cases:
        lines.append(f"| … and {len(run.cases) - max_cases} more | | | | |")
    failures = [
        (case, line) for case in run.cases if case.status == "failed" for line in failing_lines(case, 10)
    ]
    if failures:
        lines += ["", "<details open><summary>Failing steps</summary>", ""]
        for case, line in failures[:max_failures]:
            lines.append(f"- **{md_text(case.name, 100)}** · {md_text(line, 400)}")
        if len(failures) > max_failures:
            lines.append(f"- … and {len(failures) - max_failures} more")
        lines += ["", "</details>"]
    noted = [(case, line) for case in run.cases for line in isolation_lines(case)]
    if noted:
        lines += ["", "<details open><summary>Isolation</summary>", ""]
        lines += [
            f"- **{md_text(case.name, 100)}** · {md_text(line, 400)}" for case, line in noted[:max_failures]
        ]
        if len(noted) > max_failures:
            lines.append(f"- … and {len(noted) - max_failures} more")
        lines += ["", "</details>"]
    skipped = [(case, line) for case in run.cases if case.status == "skipped" for line in _skips(case)]
    if skipped:
        lines += ["", "<details><summary>Skipped (not judged)</summary>", ""]
        lines += [
            f"- **{md_text(case.name, 100)}** · {md_text(line, 300)}" for case, line in skipped[:max_failures]
        ]
        lines += ["", "</details>"]
    if comparison is not None:
        lines += ["", *markdown_comparison(comparison)]
    return "\n".join(lines) + "\n"


def markdown_comparison(comparison: Comparison) -> list[str]:
    if comparison.first:
        return ["**Regressions:** no earlier run to compare with yet (no history)."]
    against = ", ".join(str(md_code(run_id)) for run_id in comparison.compared_with[:3])
    lines = [
        f"**Against the previous run** ({against}): {plural(len(comparison.regressions), 'regression')}, "
        f"{plural(len(comparison.fixes), 'fix', 'fixes')}, {len(comparison.still_failing)} still failing, "
        f"{len(comparison.new)} new."
    ]
    for change in comparison.regressions:
        lines.append(f"- 🔻 **{md_text(change.name, 100)}** ({change.before} → {change.now})")
        lines += [f"  - {md_text(line, 300)}" for line in change.failing[:3]]
    for change in comparison.fixes:
        lines.append(f"- 🔺 **{md_text(change.name, 100)}** ({change.before} → {change.now})")
    return lines


@cache
def _environment() -> jinja2.Environment:
    import jinja2  # only for HTML: the console report of a small suite starts sooner without it

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("mcp_evals", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["text"] = html_text
    env.globals.update(
        duration=_duration,
        failing_lines=failing_lines,
        headline=headline,
        case_word=case_word,
        isolation_lines=isolation_lines,
        json_text=_json_text,
        output_text=_output_text,
    )
    return env


def _json_text(value: Any) -> str:
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)


def _output_text(output: str) -> str:
    """A step's output for a reader: JSON (an object or an array, as tools often answer on one line)
    indented, keys in the server's order; any other text as it came."""
    if not output.lstrip().startswith(("{", "[")):
        return output
    try:
        value = json.loads(output)
    except ValueError:  # cut at 4,000 characters, or not JSON at all
        return output
    return json.dumps(value, ensure_ascii=False, indent=2)


def render_html(run: ContractRun, comparison: Comparison | None = None) -> str:
    """One self-contained HTML file: no external assets, a CSP that loads nothing, everything escaped."""
    template = _environment().get_template("contract.html.j2")
    lines = comparison_lines(comparison) if comparison is not None else []
    return template.render(run=run, comparison_lines=lines)


def skipped_reasons(case: CaseResult) -> list[str]:
    """Why a skipped case was not judged: each skipped assertion, ``step: kind — why``."""
    return _skips(case)


def failure_text(case: CaseResult) -> str:
    """What failed in a case, as plain lines (a pytest failure, a JUnit failure's body)."""
    head = f"{case_word(case)} {case.name} ({case.mode}" + (f", {case.trials.shown})" if case.trials else ")")
    lines = [head, *failing_lines(case, limit=50)]
    if case.error:
        lines += case.error.splitlines()[1:]
    return "\n".join(lines + _details(case))


def render_junit(run: ContractRun) -> str:
    """JUnit XML: one testcase per case (classname the suite, or the case file), its steps as
    ``system-out``, a ``<failure>`` with what failed (the failing assertions' messages, a flaky
    case's trials), a skipped case ``<skipped>`` with why."""
    import xml.etree.ElementTree as ET

    suites = ET.Element(
        "testsuites",
        {
            "name": "mcp-evals contract",
            "tests": str(len(run.cases)),
            "failures": str(run.failed),
            "skipped": str(run.skipped),
            "time": f"{sum(case.duration_ms for case in run.cases) / 1000:.3f}",
        },
    )
    suite = ET.SubElement(
        suites,
        "testsuite",
        {
            "name": xml_text(run.suite, 200),
            "tests": str(len(run.cases)),
            "failures": str(run.failed),
            "errors": "0",
            "skipped": str(run.skipped),
            "time": f"{sum(case.duration_ms for case in run.cases) / 1000:.3f}",
            "timestamp": run.started_at,
        },
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (("run_id", run.run_id), ("git_sha", run.git_sha), ("trials", str(run.trials))):
        if value:
            ET.SubElement(properties, "property", {"name": name, "value": xml_text(value, 200)})
    for case in run.cases:
        testcase = ET.SubElement(
            suite,
            "testcase",
            {
                "name": xml_text(case.name, 300),
                "classname": xml_text(case.file or run.suite, 300),
                "time": f"{case.duration_ms / 1000:.3f}",
            },
        )
        lines = failing_lines(case, limit=50)
        if case.status == "failed":
            verdict = f"{case.verdict} ({case.trials.shown}): " if case.trials is not None else ""
            failure = ET.SubElement(
                testcase,
                "failure",
                {
                    "message": xml_text(verdict + (lines[0] if lines else "failed"), 1000),
                    "type": case.verdict,
                },
            )
            failure.text = xml_text("\n".join(lines + _details(case)), 20_000)
        elif case.status == "skipped":
            why = [line.removeprefix("skipped ") for line in _skips(case)] or ["not judged"]
            ET.SubElement(testcase, "skipped", {"message": xml_text("; ".join(why), 1000)})
        out = ET.SubElement(testcase, "system-out")
        out.text = xml_text("\n".join(_steps_text(case)), 50_000)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _steps_text(case: CaseResult) -> list[str]:
    """A case's steps as plain text lines: the system-out of its JUnit testcase."""
    lines = [f"{case.mode}" + (f" against {case.server}" if case.server else "")]
    if case.trials is not None:
        lines.append(
            f"trials: {case.trials.shown} ({case.verdict}); the steps below are "
            + ("the first failing trial's" if case.status == "failed" else "the first trial's")
        )
    if case.error:
        lines.append(case.error)
    for step in case.steps:
        latency = f", {_duration(step.latency_ms)}" if step.latency_ms is not None else ""
        lines.append(f"step {step.id} · {step.tool} · {step.status}{latency}")
        if step.error:
            lines.append(f"  error: {step.error}")
        for item in step.assertions:
            lines.append(f"  {item.status} {item.kind}: {item.message}")
        if step.input is not None:
            lines.append(f"  input: {json.dumps(step.input, ensure_ascii=False)[:2000]}")
        if step.status != "not_run":
            lines.append(f"  output: {step.output[:2000]}")
    return lines


def render(run: ContractRun, report_format: Format, comparison: Comparison | None = None) -> str:
    if report_format == "junit":
        return render_junit(run)
    if report_format == "json":
        return render_json(run, comparison)
    if report_format == "html":
        return render_html(run, comparison)
    if report_format == "md":
        return render_contract_markdown(run, comparison)
    return render_console(run, comparison)
