"""The lint's judgement of each proposal (pure): one that introduces a lint error is dropped, with why.

A proposal is linted in the catalog it would change (the old catalog with that one rewrite), then
all accepted proposals together (two rewrites can become each other's near copies). An error-level
finding on a rewritten tool that the old catalog did not have drops the proposal; the findings the
old description had and the new one has not are what it answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp_evals.catalog.model import Catalog
from mcp_evals.compare.overlay import DescriptionOverlay, apply_overlay
from mcp_evals.config.model import LintOptions
from mcp_evals.improve.model import Proposal
from mcp_evals.lint.engine import lint
from mcp_evals.lint.model import Finding

FindingKey = tuple[str, tuple[str, ...], str | None]


def overlay_of(proposals: Sequence[Proposal]) -> DescriptionOverlay:
    """The overlay the proposals make (catalog B)."""
    return DescriptionOverlay(
        descriptions={proposal.tool: proposal.description for proposal in proposals},
        parameters={
            proposal.tool: dict(proposal.parameters) for proposal in proposals if proposal.parameters
        },
    )


def _nowhere(key: tuple[str, ...]) -> str:
    return "the proposal (" + ".".join(key) + ")"


def with_proposals(catalog: Catalog, proposals: Sequence[Proposal]) -> Catalog:
    return apply_overlay(catalog, overlay_of(proposals), _nowhere) if proposals else catalog


def _key(finding: Finding) -> FindingKey:
    return (finding.rule, finding.tools, finding.parameter)


def _findings(catalog: Catalog, options: LintOptions, exclude_tools: Sequence[str]) -> list[Finding]:
    return lint(catalog, None, options, exclude_tools=exclude_tools).active


def _shape_problem(proposal: Proposal, catalog: Catalog) -> str | None:
    tool = catalog.by_name[proposal.tool]
    unknown = [name for name in proposal.parameters if name not in tool.parameters]
    if unknown:
        return (
            f"it names parameters {proposal.tool} does not have ({', '.join(sorted(unknown))}); a rewrite "
            "keeps the tool's behaviour"
        )
    if not proposal.description.strip():
        return "it is empty"
    unchanged = proposal.description == tool.description and all(
        proposal.old_parameters.get(name) == text for name, text in proposal.parameters.items()
    )
    if unchanged:
        return "it changes nothing"
    return None


def _new_errors(before: set[FindingKey], after: Sequence[Finding], tools: set[str]) -> list[Finding]:
    return [
        finding
        for finding in after
        if finding.severity == "error" and tools & set(finding.tools) and _key(finding) not in before
    ]


def _drop(proposal: Proposal, reason: str) -> Proposal:
    return proposal.model_copy(update={"status": "dropped", "reason": reason})


def _because(errors: Sequence[Finding]) -> str:
    shown = "; ".join(f"{finding.rule} {finding.message}" for finding in errors[:3])
    return f"it introduces a lint error: {shown}"


def check_proposals(
    catalog: Catalog,
    proposals: Sequence[Proposal],
    options: LintOptions | None = None,
    exclude_tools: Sequence[str] = (),
) -> list[Proposal]:
    """Each proposal accepted (with the findings it answers) or dropped (with why); order kept."""
    options = options or LintOptions()
    old = _findings(catalog, options, exclude_tools)
    before = {_key(finding) for finding in old}
    checked: list[Proposal] = []
    for proposal in proposals:
        if proposal.status != "accepted":
            checked.append(proposal)
            continue
        problem = _shape_problem(proposal, catalog)
        if problem is not None:
            checked.append(_drop(proposal, problem))
            continue
        after = _findings(with_proposals(catalog, [proposal]), options, exclude_tools)
        errors = _new_errors(before, after, {proposal.tool})
        if errors:
            checked.append(_drop(proposal, _because(errors)))
            continue
        still = {_key(finding) for finding in after}
        answered = [
            f"{finding.rule} {finding.message}"
            for finding in old
            if proposal.tool in finding.tools and _key(finding) not in still
        ]
        checked.append(proposal.model_copy(update={"answers": answered}))
    accepted = [proposal for proposal in checked if proposal.status == "accepted"]
    if len(accepted) > 1:  # together: a rewrite may collide with another
        errors = _new_errors(
            before,
            _findings(with_proposals(catalog, accepted), options, exclude_tools),
            {proposal.tool for proposal in accepted},
        )
        involved = {name for finding in errors for name in finding.tools}
        checked = [
            _drop(
                proposal,
                _because([finding for finding in errors if proposal.tool in finding.tools])
                + " (with the other rewrites)",
            )
            if proposal.status == "accepted" and proposal.tool in involved
            else proposal
            for proposal in checked
        ]
    return checked
