"""What ``mcp-evals improve`` writes to ``--out``: improve.md, improve.json, the overlay
descriptions.improved.yaml (read by ``compare --descriptions`` and ``validate --descriptions``), and
where its runs go (the dev run's and the proof's results and comparison).
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from pathlib import Path

from mcp_evals.compare.overlay import OVERLAY_FILE
from mcp_evals.files import atomic_write, check_writable, refuse_inputs
from mcp_evals.improve.check import overlay_of
from mcp_evals.improve.model import ImproveReport
from mcp_evals.improve.render import render_improve

IMPROVE_MD = "improve.md"
IMPROVE_JSON = "improve.json"
COMPARISON_JSON = "comparison.json"
COMPARISON_MD = "comparison.md"
DEV_ARM = "dev"


@dataclass(frozen=True)
class Outputs:
    """The files ``improve`` writes, in ``out``."""

    out: Path

    @property
    def markdown(self) -> Path:
        return self.out / IMPROVE_MD

    @property
    def json(self) -> Path:
        return self.out / IMPROVE_JSON

    @property
    def overlay(self) -> Path:
        return self.out / OVERLAY_FILE

    @property
    def dev(self) -> Path:
        return self.out / "dev"

    @property
    def proof(self) -> Path:
        return self.out / "proof"

    def all(self, *, dev_run: bool = True) -> list[Path]:
        """Every file it writes (the dev run's only when there is one: not with ``--results``)."""
        return [
            self.markdown,
            self.json,
            self.overlay,
            *([self.dev / f"{DEV_ARM}.ndjson"] if dev_run else []),
            self.proof / "A.ndjson",
            self.proof / "B.ndjson",
            self.proof / COMPARISON_JSON,
            self.proof / COMPARISON_MD,
        ]

    def check(self, inputs: dict[str, Path | None], *, dev_run: bool = True) -> None:
        """Before anything is spent: no output is an input, and every one can be written."""
        for path in self.all(dev_run=dev_run):
            refuse_inputs(path, inputs, what="the output")
            check_writable(path)


def overlay_text(report: ImproveReport) -> str:
    """descriptions.improved.yaml: the accepted rewrites, each with its pairs' verdicts, as an overlay."""
    overlay = overlay_of(report.accepted)
    verdicts: dict[str, list[str]] = {}
    for row in report.verdicts:
        for name in row.tools:
            verdicts.setdefault(name, []).append(f"{row.label}: {row.verdict}")
    lines = [
        f"# Written by `mcp-evals improve` ({report.provider}/{report.model}) on "
        f"{datetime.date.today().isoformat()}.",
        f"# Overall on the test split: {report.overall}.",
        "# Read by `mcp-evals compare --descriptions FILE` and `mcp-evals validate --descriptions FILE`.",
    ]
    if report.lexical:
        lines.append(
            "# Proposed by the rule-based rewriter and judged by the lexical baseline: not a model's gain."
        )
    if not overlay.descriptions:
        return "\n".join([*lines, "descriptions: {}", ""])
    lines.append("descriptions:")
    for name, text in overlay.descriptions.items():
        lines += [f"  # {line}" for line in verdicts.get(name, [])]
        lines.append(f"  {json.dumps(name, ensure_ascii=False)}: {json.dumps(text, ensure_ascii=False)}")
    if overlay.parameters:
        lines.append("parameters:")
        for name, texts in overlay.parameters.items():
            lines.append(f"  {json.dumps(name, ensure_ascii=False)}:")
            lines += [
                f"    {json.dumps(parameter, ensure_ascii=False)}: {json.dumps(text, ensure_ascii=False)}"
                for parameter, text in texts.items()
            ]
    return "\n".join(lines) + "\n"


def report_json(report: ImproveReport) -> str:
    """improve.json: the report as data (what ``--format json`` prints)."""
    return report.model_dump_json(indent=2) + "\n"


def write_outputs(report: ImproveReport, outputs: Outputs) -> str:
    """improve.md, improve.json and descriptions.improved.yaml; the Markdown."""
    markdown = render_improve(report)
    with atomic_write(outputs.markdown) as stream:
        stream.write(markdown)
    with atomic_write(outputs.json) as stream:
        stream.write(report_json(report))
    with atomic_write(outputs.overlay) as stream:
        stream.write(overlay_text(report))
    return markdown
