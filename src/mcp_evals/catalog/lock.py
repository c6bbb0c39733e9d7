"""The catalog lock: the committed snapshot a pull request's live catalog is compared with.

``mcp-evals catalog --update-lock`` writes it; ``mcp-evals validate`` reads it and fails when the live
catalog differs, with every change classified (``classify``) and, for selection-affecting changes,
the fixtures that exercise the changed tools, so a reviewer knows what to re-run. Pure: the lock is
read by ``snapshot.read_lock``, the fixtures by the caller.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from mcp_evals.catalog.classify import ChangeClass, ClassifiedChange, counts
from mcp_evals.catalog.diff import diff_catalogs
from mcp_evals.catalog.model import Catalog
from mcp_evals.wording import plural

UPDATE_COMMAND = "mcp-evals catalog --update-lock"
LockStatus = Literal["matches", "differs", "missing"]
LOCK_VERDICTS: dict[str, str] = {
    "matches": "catalog matches the lock",
    "differs": "catalog differs from the lock",
    "missing": "catalog lock missing",
}


class LockCheck(BaseModel):
    """The live catalog against the lock: what `validate --format json` prints as its `lock` block."""

    path: str = Field(description="The lock file, as the config names it.")
    status: LockStatus
    tool_count: int = Field(description="Tools in the live catalog.")
    hash: str = Field(description="The live catalog's hash.")
    lock_tool_count: int | None = Field(None, description="Tools in the lock; None when it is missing.")
    lock_hash: str | None = None
    counts: dict[ChangeClass, int] = Field(default_factory=dict)
    changes: list[ClassifiedChange] = Field(default_factory=list)
    exercised_by: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Tool with a selection-affecting change → the fixtures that expect or forbid it.",
    )
    rerun: str | None = Field(
        None, description="The command that re-runs just those fixtures (plus refuse and clarify ones)."
    )

    @property
    def failed(self) -> bool:
        return self.status != "matches"


def check_lock(
    catalog: Catalog,
    locked: Catalog | None,
    path: str,
    exercised_by: Mapping[str, Sequence[str]] | None = None,
) -> LockCheck:
    """Compare ``catalog`` with the ``locked`` one (None: the lock file does not exist yet).

    ``exercised_by`` maps tool names to the fixtures that exercise them (see
    ``fixtures.validate.fixtures_by_tool``); only tools with a selection-affecting change are kept.
    """
    check = LockCheck(path=path, status="missing", tool_count=len(catalog.tools), hash=catalog.hash)
    if locked is None:
        return check
    check.lock_tool_count, check.lock_hash = len(locked.tools), locked.hash
    diff = diff_catalogs(locked, catalog)
    if not diff.changed:
        check.status = "matches"
        return check
    check.status = "differs"
    check.changes = diff.changes
    check.counts = counts(diff.changes)
    selection = sorted({item.tool for item in diff.changes if item.classification == "selection"})
    check.exercised_by = {
        tool: sorted(exercised_by[tool]) for tool in selection if exercised_by and exercised_by.get(tool)
    }
    if check.exercised_by:
        check.rerun = rerun_command(list(check.exercised_by))
    return check


def rerun_command(tools: Sequence[str]) -> str:
    """``mcp-evals run --only-tools a,b`` (one flag per tool when a name holds a comma), shell-quoted."""
    if any("," in tool for tool in tools):
        return "mcp-evals run " + " ".join(f"--only-tools {shlex.quote(tool)}" for tool in tools)
    return f"mcp-evals run --only-tools {shlex.quote(','.join(tools))}"


def matches_line(check: LockCheck) -> str:
    """The one line a matching lock gets: "catalog matches the lock (22 tools, hash f82d3b07f24d)"."""
    return f"catalog matches the lock ({plural(check.tool_count, 'tool')}, hash {check.hash[:12]})"
