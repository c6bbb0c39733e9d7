"""The rule registry: every rule's id, severity, why, fix and thresholds, and the function that checks it.

Rules register themselves with ``@rule(...)`` in the modules of ``lint.rules``, whose ``all_rules()``
imports them all and returns them in a stable order (by category, then id). The registry is also the
source of the rules table in docs/lint.md (``rules_markdown``), so the docs cannot drift from the code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from mcp_evals.lint.model import CATEGORY_NAMES, Severity

if TYPE_CHECKING:
    from mcp_evals.lint.context import Hit, LintContext

Needs = Literal["catalog", "fixtures", "probe"]
Check = Callable[["LintContext"], Iterable["Hit"]]


@dataclass(frozen=True)
class Rule:
    """One lint rule: stable id (category letter + number), default severity, why it matters, the fix."""

    id: str
    title: str
    severity: Severity
    why: str
    fix: str
    check: Check
    thresholds: tuple[str, ...] = ()
    needs: Needs = "catalog"
    graded: bool = True
    # For a security rule: GitHub code scanning's `security-severity` (0.0–10.0), its SARIF property.
    security_severity: float | None = None

    @property
    def category(self) -> str:
        return self.id[0]


RULES: dict[str, Rule] = {}
ORDER: list[str] = list(CATEGORY_NAMES)


def rule(
    id: str,
    title: str,
    *,
    severity: Severity,
    why: str,
    fix: str,
    thresholds: tuple[str, ...] = (),
    needs: Needs = "catalog",
    graded: bool = True,
    security_severity: float | None = None,
) -> Callable[[Check], Check]:
    """Register a check function as rule ``id``."""

    def register(check: Check) -> Check:
        if id in RULES:
            raise ValueError(f"lint rule {id} is registered twice")
        RULES[id] = Rule(id, title, severity, why, fix, check, thresholds, needs, graded, security_severity)
        return check

    return register
