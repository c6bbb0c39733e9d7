"""``mcp-evals session validate``: a task set against the catalog, with no model and no cost.

Every tool a task names (``expected_tools``, ``script``), an arm rewrites or a fault level targets
must be in the catalog (with a did-you-mean); every script call's arguments must fit the tool's
input schema; a task needs room for its script (``max_steps`` above the script's length: one turn
per call, then the answer). Warnings: expected tools the script does not call in that order, and an
arm's ``remove_field`` that no tool's output schema has (when tools declare output schemas; without
any, ``--dry`` warns when a transform removed nothing from the results the scripts got).
"""

from __future__ import annotations

from typing import Literal

import jsonschema
from pydantic import BaseModel, Field

from mcp_evals import schema_refs
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.documents import dotted
from mcp_evals.errors import where
from mcp_evals.score.arguments import SchemaValidators
from mcp_evals.session.metrics import in_order
from mcp_evals.session.model import ARM_NAMES, TaskSet
from mcp_evals.session.transforms import schema_paths
from mcp_evals.suggest import Suggester, did_you_mean
from mcp_evals.wording import noun, plural


class TaskProblem(BaseModel):
    """One finding: its rule, how bad, where (file, line and field), and what is wrong."""

    rule: str = Field(description="Stable rule id, e.g. `unknown-tool`.")
    severity: Literal["error", "warning"]
    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        """``file:line: severity [rule] field: message``, as ``mcp-evals validate`` prints a fixture's
        problems; line breaks in the message are shown escaped, so no part of it starts a line."""
        text = f"{where(self.file, self.line)}: {self.severity} [{self.rule}] {self.field}: {self.message}"
        return text.replace("\r", "\\r").replace("\n", "\\n")


def validate_task_set(task_set: TaskSet, catalog: Catalog) -> list[TaskProblem]:
    """Every problem of ``task_set`` against ``catalog``, errors first, in file order."""
    problems: list[TaskProblem] = []
    suggest = Suggester(catalog.tool_names)
    validators = SchemaValidators()

    def add(
        rule: str,
        location: tuple[str | int, ...],
        message: str,
        severity: Literal["error", "warning"] = "error",
    ) -> None:
        problems.append(
            TaskProblem(
                rule=rule,
                severity=severity,
                file=task_set.shown_path,
                line=task_set.line_of(location),
                field=dotted(location),
                message=message,
            )
        )

    def known(location: tuple[str | int, ...], name: str) -> bool:
        if catalog.get(name) is not None:
            return True
        add("unknown-tool", location, f"no tool {name!r} in the catalog{did_you_mean(suggest(name))}")
        return False

    for index, task in enumerate(task_set.tasks):
        base: tuple[str | int, ...] = ("tasks", index)
        for position, name in enumerate(task.expected_tools):
            known((*base, "expected_tools", position), name)
        for position, step in enumerate(task.script):
            location = (*base, "script", position)
            if not known((*location, "tool"), step.tool):
                continue
            tool = catalog.get(step.tool)
            assert tool is not None
            validator, _ = validators.validator(tool)
            if validator is None:
                continue  # the tool's own schema is broken: nothing to check the script against
            try:
                errors = sorted(
                    schema_refs.iter_errors(validator, step.arguments), key=jsonschema.exceptions.relevance
                )
            except schema_refs.UnusableSchema as unusable:
                add(
                    "script-arguments",
                    (*location, "arguments"),
                    f"{step.tool}: not checked: {unusable}",
                    "warning",
                )
                continue
            for error in errors[:3]:
                path = [part for part in error.absolute_path]
                add("script-arguments", (*location, "arguments", *path), f"{step.tool}: {error.message}")
        if task.max_steps <= len(task.script):
            add(
                "max-steps",
                (*base, "max_steps"),
                f"max_steps {task.max_steps} leaves no turn for the answer after the script's "
                f"{plural(len(task.script), 'call')}; give at least {len(task.script) + 1}",
            )
        called = [step.tool for step in task.script]
        all_known = all(catalog.get(name) is not None for name in [*called, *task.expected_tools])
        if all_known and task.expected_tools and not in_order(task.expected_tools, called):
            add(
                "expected-order",
                (*base, "expected_tools"),
                "the script does not call the expected tools in this order; one of the two is wrong",
                "warning",
            )
    for arm in ARM_NAMES:
        for name in task_set.arms[arm].descriptions:
            known(("arms", arm, "descriptions", name), name)
    for index, level in enumerate(task_set.faults.levels):
        for position, name in enumerate(level.tools):
            known(("faults", "levels", index, "tools", position), name)
    declared = [tool.output_schema for tool in catalog.tools if tool.output_schema]
    for arm in ARM_NAMES if declared else ():
        for index, transform in enumerate(task_set.arms[arm].transforms):
            length = transform.remove_field.count(".") + 1
            fields = set().union(*(schema_paths(schema, length) for schema in declared))
            if transform.remove_field in fields:
                continue
            add(
                "unknown-field",
                ("arms", arm, "transforms", index, "remove_field"),
                f"no tool's output schema has a field {transform.remove_field!r} "
                f"({len(declared)} of {plural(len(catalog.tools), 'tool')} "
                f"{noun(len(declared), 'declares', 'declare')} one): the transform may remove "
                f"nothing, leaving arm {arm} the same as arm {'B' if arm == 'A' else 'A'}"
                + did_you_mean(Suggester(fields)(transform.remove_field)),
                "warning",
            )
    return sorted(problems, key=lambda problem: (problem.severity != "error", problem.line or 0))
