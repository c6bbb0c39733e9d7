"""``mcp-evals audit``: one server (or a config's servers), no config needed, everything free checks.

The catalog (tools, resources, resource templates, prompts), the whole lint with its security rules,
the probe (tools called with ``{}``: only those marked read-only or not destructive, never one that
requires a task) and the conformance requests, in one ``AuditReport`` with one score:

    score = weighted mean of   quality 0.5 · security 0.2 · protocol 0.2 · resources and prompts 0.1

- *quality*: the lint grade (naming, descriptions, schema, token cost, consistency);
- *security*: the X rules, by density like a lint category (penalty error 10, warning 4, info 1,
  over the tools, prompts and resources); **a security error caps the whole score at 59 (F)**: a
  poisoned description is not averaged away by good naming;
- *protocol*: the share of conformance checks passed (per server: each list method's invalid cursor,
  the unknown tool, the protocol version, capabilities declared vs served, list-change
  notifications). The 2026-07-28 readiness checks are reported beside it, not scored;
- *resources and prompts*: the R rules by density, only when the server has some.

A category that did not run leaves its weight to the others. ``--fail-under N`` fails (exit 1) below N.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import Config
from mcp_evals.lint.grade import PENALTY, category_score, letter
from mcp_evals.lint.model import LintModel, LintReport
from mcp_evals.servers.model import Conformance
from mcp_evals.wording import plural

AUDIT_FORMAT = "mcp-evals.audit/1"
WEIGHTS = {"quality": 0.5, "security": 0.2, "protocol": 0.2, "resources": 0.1}
NAMES = {
    "quality": "quality",
    "security": "security",
    "protocol": "protocol",
    "resources": "resources and prompts",
}
SECURITY_CAP = 59
# The conformance rules a check can fail (P006, readiness, is reported beside the score).
SCORED_PROTOCOL_RULES = ("P001", "P002", "P003", "P004", "P005")
CHECKS_PER_SERVER = 4  # unknown tool, protocol version, capabilities, list-change notifications


class AuditCategory(LintModel):
    key: Literal["quality", "security", "protocol", "resources"]
    name: str
    score: int
    weight: float = Field(description="Its share of the score (the weights of those that ran, scaled to 1).")
    findings: int
    detail: str = ""


class AuditedServer(LintModel):
    """What one server said about itself and offers."""

    name: str
    server_name: str | None = None
    server_version: str | None = None
    transport: str
    protocol_version: str | None = None
    tools: int
    resources: int
    prompts: int


class AuditReport(LintModel):
    """Everything ``mcp-evals audit`` found, from which every output is rendered."""

    format: str = AUDIT_FORMAT
    target: str = Field(description="What was audited: the command line, the URL, or the config.")
    servers: list[AuditedServer]
    score: int = Field(description="0–100, see the module docstring.")
    letter: Literal["A", "B", "C", "D", "F"]
    capped: str | None = Field(None, description="Why the score was capped, when it was.")
    categories: list[AuditCategory]
    fail_under: int | None = None
    lint: LintReport
    conformance: list[Conformance] = Field(default_factory=list)
    not_probed: list[str] = Field(
        default_factory=list,
        description="Tools the probe did not call: marked destructive, or task-required.",
    )
    notes: list[str] = Field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.fail_under is not None and self.score < self.fail_under


def _penalty(report: LintReport, category: str) -> tuple[int, int]:
    mine = [finding for finding in report.active if finding.category == category]
    return sum(PENALTY[finding.severity] for finding in mine), len(mine)


def audit_categories(
    report: LintReport, catalog: Catalog, conformance: Sequence[Conformance]
) -> list[AuditCategory]:
    """The audit's categories that ran, each with its score and its share of the weight."""
    quality_findings = sum(row.findings for row in report.grade.categories)
    rows: list[tuple[str, int, int, str]] = [
        ("quality", report.grade.score, quality_findings, f"lint grade {report.grade.letter}")
    ]
    entries = len(catalog.tools) + len(catalog.prompts) + len(catalog.resources)
    penalty, count = _penalty(report, "X")
    rows.append(
        ("security", category_score(penalty, entries), count, f"over {entries} tools, prompts, resources")
    )
    if conformance:
        total = sum(len(found.invalid_cursor) + CHECKS_PER_SERVER for found in conformance)
        failed = min(total, sum(1 for finding in report.active if finding.rule in SCORED_PROTOCOL_RULES))
        rows.append(
            (
                "protocol",
                round(100 * (total - failed) / total),
                failed,
                f"{total - failed} of {total} checks pass",
            )
        )
    if catalog.prompts or catalog.resources:
        penalty, count = _penalty(report, "R")
        size = len(catalog.prompts) + len(catalog.resources)
        detail = f"{len(catalog.prompts)} prompts, {len(catalog.resources)} resources and templates"
        rows.append(("resources", category_score(penalty, size), count, detail))
    total_weight = sum(WEIGHTS[key] for key, *_ in rows)
    return [
        AuditCategory(
            key=key,
            name=NAMES[key],
            score=score,
            weight=round(WEIGHTS[key] / total_weight, 4),
            findings=findings,
            detail=detail,
        )
        for key, score, findings, detail in rows
    ]


def build_audit(
    target: str,
    catalog: Catalog,
    report: LintReport,
    conformance: Sequence[Conformance],
    *,
    not_probed: Sequence[str] = (),
    fail_under: int | None = None,
) -> AuditReport:
    """The audit report of a linted catalog and its conformance answers (pure)."""
    categories = audit_categories(report, catalog, conformance)
    score = round(sum(row.score * row.weight for row in categories))
    security_errors = [f for f in report.active if f.category == "X" and f.severity == "error"]
    capped = None
    if security_errors and score > SECURITY_CAP:
        capped = f"{plural(len(security_errors), 'security error')}: the score is capped at {SECURITY_CAP}"
        score = SECURITY_CAP
    servers = [
        AuditedServer(
            name=server.name,
            server_name=server.server_name,
            server_version=server.server_version,
            transport=server.transport,
            protocol_version=server.protocol_version,
            tools=len(server.tools),
            resources=len(server.resources or []) + len(server.resource_templates or []),
            prompts=len(server.prompts or []),
        )
        for server in catalog.servers
    ]
    # The readiness notes are the report's readiness lines; without fixtures, F is not expected to run.
    notes = [note for note in report.notes if not note.startswith(("No fixtures configured", "server '"))]
    if not_probed:
        notes.append(
            f"the probe did not call {plural(len(not_probed), 'tool')} marked destructive "
            f"(or not marked read-only) or requiring a task: "
            f"{', '.join(not_probed[:10])}{' …' if len(not_probed) > 10 else ''}"
        )
    return AuditReport(
        target=target,
        servers=servers,
        score=score,
        letter=letter(score),
        capped=capped,
        categories=categories,
        fail_under=fail_under,
        lint=report,
        conformance=list(conformance),
        not_probed=list(not_probed),
        notes=notes,
    )


async def run_audit(config: Config, target: str, *, fail_under: int | None = None) -> AuditReport:
    """Read the catalog, probe the safe tools, ask the conformance requests, lint, and score."""
    from mcp_evals.lint.engine import Locations, lint
    from mcp_evals.lint.probe import probe_plan, probe_servers
    from mcp_evals.servers.conformance import check_servers
    from mcp_evals.servers.extract import extract_catalog_async

    catalog = await extract_catalog_async(config)
    safe, skipped = probe_plan(catalog, marked_safe_only=True)
    not_probed = [skip.tool for skip in skipped]
    answers = await probe_servers(config, catalog.model_copy(update={"tools": safe}))
    conformance = await check_servers(config, catalog)
    locations = Locations(
        config_file=config.shown_path,
        server_lines={
            server.name: line
            for index, server in enumerate(config.servers)
            if (line := config.line_of(("servers", index))) is not None
        },
        servers_line=config.line_of(("servers",)),
    )
    report = lint(
        catalog,
        options=config.lint,
        exclude_tools=config.exclude_tools,
        system_prompt=config.system_prompt,
        probe=answers,
        conformance=conformance,
        locations=locations,
    )
    return build_audit(target, catalog, report, conformance, not_probed=not_probed, fail_under=fail_under)
