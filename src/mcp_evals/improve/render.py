"""improve.md (pure: an ``ImproveReport`` in, Markdown out): the PR-comment style report.

Every description, query-free name and model-written sentence is untrusted (``report.escape``): the
descriptions go in fenced ``diff`` blocks nothing inside can close, names and reasons in escaped
inline text.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Sequence

from mcp_evals.compare.paired import ArmSummary
from mcp_evals.improve.model import ImproveReport, PairVerdict, Proposal
from mcp_evals.report.escape import md_block, md_code, md_text
from mcp_evals.score import Rate
from mcp_evals.score.gate import format_percent
from mcp_evals.wording import plural

ICONS = {
    "improved": "✅",
    "no detectable change": "➖",
    "worse": "❌",
    "not proven": "⏸️",
    "nothing to prove": "ℹ️",
    "not tested": "⚪",
}
LEXICAL_NOTE = (
    "> [!NOTE]\n> The evaluator is the **lexical baseline** (BM25 over tool names, descriptions and "
    "parameters; no model), and the rewrites are rule-based (the distinguishing words of the dev "
    "requests, the neighbour named). **Lexical gains are not model gains**: they show how much more "
    "distinguishable the catalog became by its words alone. Run `mcp-evals improve` with a model to "
    "know what a model gains."
)
# A sentence ends at . ! or ?, but not after "e.g." or "i.e."
_SENTENCE = re.compile(r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)\s+")


def sentences(text: str) -> list[str]:
    """A description one sentence per line, so a diff shows what changed."""
    return [part for part in _SENTENCE.split(" ".join(text.split())) if part]


def description_diff(old: str, new: str) -> str:
    """The old and the new description as a diff, sentence by sentence."""
    lines = []
    for line in difflib.ndiff(sentences(old), sentences(new)):
        if line.startswith(("- ", "+ ", "  ")):
            lines.append(line[0] + line[2:])
    return "\n".join(lines)


def _rate(rate: Rate) -> str:
    if rate.value is None:
        return "n/a"
    return (
        f"{format_percent(rate.value)} ({format_percent(rate.low, digits=0)}–"
        f"{format_percent(rate.high, digits=0)})"
    )


def _score(arm: ArmSummary) -> str:
    if arm.score is None or arm.score_low is None or arm.score_high is None:
        return "n/a"
    return f"{arm.score:.1f} ({arm.score_low:.0f}–{arm.score_high:.0f})"


def _accuracy(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f} %"


def _pair(tools: Sequence[str]) -> str:
    return f"{md_code(tools[0])} ↔ {md_code(tools[1])}"


def _overall(report: ImproveReport) -> list[str]:
    comparison = report.comparison
    lines = [f"{ICONS[report.overall]} {md_text(report.verdict, 1000)}"]
    if comparison is None:
        return lines
    arms = {arm.arm.name: arm for arm in comparison.arms}
    if "A" in arms and "B" in arms:
        a, b = arms["A"], arms["B"]
        lines += [
            "",
            "| on the test split | before (A) | after (B) |",
            "|---|---|---|",
            f"| answered | {a.reached} of {a.planned} | {b.reached} of {b.planned} |",
            f"| top-1 (95 % interval) | {_rate(a.top1)} | {_rate(b.top1)} |",
            f"| accuracy | {_rate(a.accuracy)} | {_rate(b.accuracy)} |",
            f"| score (95 % interval) | {_score(a)} | {_score(b)} |",
        ]
    return lines


def _verdicts(rows: Sequence[PairVerdict], alpha: float) -> list[str]:
    lines = [
        "| pair | test fixtures | answered in both | before → after | fixes | breaks | p (Holm) | verdict |",
        "|---|---:|---:|---|---:|---:|---|---|",
    ]
    for row in rows:
        p = f"{row.p_value:.2g} ({row.p_adjusted:.2g})" if row.paired else "–"
        change = f"{_accuracy(row.before)} → {_accuracy(row.after)}" if row.paired else "–"
        verdict: str = row.verdict
        if row.unanswered:
            verdict += f" ({len(row.unanswered)} unanswered)"
        lines.append(
            f"| {_pair(row.tools)} | {len(row.fixtures)} | {row.paired} | {change} | {len(row.fixes)} | "
            f"{len(row.breaks)} | {p} | {ICONS[row.verdict]} {verdict} |"
        )
    lines += [
        "",
        "A pair's fixtures are the test fixtures that expect either tool (what a rewrite breaks elsewhere "
        "counts in the overall verdict). "
        f"Improved or worse: p below {alpha:g} after Holm's adjustment for testing "
        f"{plural(sum(1 for row in rows if row.paired), 'pair')} at once.",
    ]
    return lines


def _proposal(proposal: Proposal, verdicts: dict[str, list[PairVerdict]]) -> list[str]:
    against = ", ".join(str(md_code(name)) for name in proposal.neighbours)
    heading = f"#### {md_code(proposal.tool)}" + (f" (against {against})" if against else "")
    lines = [
        heading,
        "",
        md_block(description_diff(proposal.old_description, proposal.description), info="diff"),
    ]
    for name, text in proposal.parameters.items():
        old = proposal.old_parameters.get(name, "")
        lines += [
            "",
            f"Parameter {md_code(name)}:",
            "",
            md_block(description_diff(old, text) if old else f"+{text}", info="diff"),
        ]
    if proposal.why:
        lines += ["", f"Why: {md_text(proposal.why, 400)}"]
    if proposal.answers:
        rules = Counter(item.split(" ", 1)[0] for item in proposal.answers)
        listed = ", ".join(f"{rule} ×{count}" if count > 1 else rule for rule, count in sorted(rules.items()))
        lines += ["", f"No longer has the lint's {md_text(listed)} (improve.json lists them)."]
    shown = verdicts.get(proposal.tool, [])
    if shown:
        lines += ["", "Evidence: " + "; ".join(f"{_pair(row.tools)}: {row.verdict}" for row in shown)]
    return [*lines, ""]


def render_improve(report: ImproveReport) -> str:
    """The Markdown of one ``mcp-evals improve``."""
    title = f"## {ICONS[report.overall]} mcp-evals improve: {report.overall}"
    if report.incomplete:  # exit 2: a budget stop, dropouts, a target without a rewrite
        title += " (incomplete)"
    proven = "proven on" if report.comparison is not None else "· nothing run on the"
    lines = [
        title,
        "",
        f"{md_text(report.provider)} / {md_text(report.model)} · {plural(len(report.pairs), 'target pair')}"
        f" · {plural(len(report.accepted), 'rewrite')} {proven} "
        f"{plural(report.test_fixtures, 'held-out test fixture')} · the proposer saw "
        f"{plural(report.dev_fixtures, 'dev fixture')} and no test fixture",
    ]
    if report.lexical:
        lines += ["", LEXICAL_NOTE]
    lines += ["", "### Overall", "", *_overall(report)]
    if report.verdicts:
        lines += ["", "### Pairs", "", *_verdicts(report.verdicts, report.alpha)]
    by_tool: dict[str, list[PairVerdict]] = {}
    for row in report.verdicts:
        for name in row.tools:
            by_tool.setdefault(name, []).append(row)
    if report.accepted:
        lines += ["", "### New descriptions", ""]
        for proposal in report.accepted:
            lines += _proposal(proposal, by_tool)
    others = [proposal for proposal in report.proposals if proposal.status != "accepted"]
    if others:
        lines += ["", "### Not proposed or dropped", ""]
        lines += [
            f"- {md_code(proposal.tool)}: {proposal.status}: {md_text(proposal.reason or '', 400)}"
            for proposal in others
        ]
    if report.not_proven:
        lines += ["", "### Not proven", ""]
        lines += [
            f"- {_pair(row.tools)}: {plural(len(row.unanswered), 'test fixture')} it expects "
            f"{'was' if len(row.unanswered) == 1 else 'were'} not answered in both arms "
            f"({', '.join(str(md_code(fixture)) for fixture in row.unanswered[:8])})"
            for row in report.not_proven
        ]
    if report.places:
        lines += ["", "### In the server's source", ""]
        for place in report.places:
            what = f"{place.tool}.{place.parameter}" if place.parameter else place.tool
            state = "applied" if place.applied else md_text(place.note, 200)
            lines.append(f"- {md_code(f'{place.file}:{place.line}')} {md_code(what)}: {place.kind} — {state}")
    if report.targets_from or report.notes:
        lines += ["", "<details>", "<summary>How this was measured</summary>", ""]
        if report.targets_from:
            lines.append(f"- Targets: {md_text(report.targets_from, 400)}.")
        lines.append(
            "- Pairs targeted: "
            + "; ".join(f"{_pair(pair.tools)} ({md_text(pair.why)})" for pair in report.pairs)
            if report.pairs
            else "- No pair to target."
        )
        if report.spent_usd is not None:
            cap = f" of the ${report.budget_usd:g} cap" if report.budget_usd is not None else ""
            lines.append(f"- Spent ${report.spent_usd:.4f}{cap}.")
        lines += [f"- {md_text(note, 600)}" for note in report.notes]
        lines += ["", "</details>"]
    return "\n".join(lines).rstrip() + "\n"
