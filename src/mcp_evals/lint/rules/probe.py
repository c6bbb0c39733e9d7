"""C006–C007 — the live probe: how a server answers a call that lacks its required arguments."""

from __future__ import annotations

from collections.abc import Iterator

from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.probe import is_actionable
from mcp_evals.lint.registry import rule
from mcp_evals.wording import noun, shorten


@rule(
    "C006",
    "Schema not enforced (probe)",
    severity="error",
    why="The server accepted a call without any of its required arguments: a declared `required` the "
    "server does not enforce misleads the model, and a wrong call fails later, far from its cause.",
    fix="Validate arguments against the input schema before running the tool.",
    needs="probe",
)
def not_enforced(context: LintContext) -> Iterator[Hit]:
    for result in context.probe or ():
        if not result.is_error and result.tool in context.catalog.by_name:
            tool = context.catalog.by_name[result.tool]
            yield Hit(
                f"{tool.name!r} accepted a call with none of its {len(tool.required)} required "
                f"{noun(len(tool.required), 'argument')} ({', '.join(tool.required)})",
                tools=(tool.name,),
            )


@rule(
    "C007",
    "Error a model cannot act on (probe)",
    severity="warning",
    why='An error that names neither the missing parameter nor what was expected ("Internal error") '
    "leaves the model no way to correct its call.",
    fix="Return errors that name the missing or invalid parameter and the expected value.",
    needs="probe",
)
def not_actionable(context: LintContext) -> Iterator[Hit]:
    for result in context.probe or ():
        tool = context.catalog.by_name.get(result.tool)
        if tool is None or not result.is_error or is_actionable(result.text, tool.required):
            continue
        yield Hit(
            f"{tool.name!r} rejects a call without its required arguments with an error that names "
            f"neither them nor what it expected: {shorten(' '.join(result.text.split()), 120)!r}",
            tools=(tool.name,),
        )
