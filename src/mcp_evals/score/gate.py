"""The gate: what a top-1 accuracy means for the catalog, and whether it fails the job.

Thresholds come from ``GateOptions`` (defaults 85 % and 90 %, as fractions):

==================  =========================  ===================================================
top-1               decision                   recommendation
==================  =========================  ===================================================
< 85 %              ``remediate``              open a remediation: deferred loading, code mode, or
                                               grouping tools
85 % up to 90 %     ``gray_zone``              keep watching; re-evaluate after the next tool or
                                               description change
>= 90 %             ``deprioritize_refactor``  deprioritize catalog refactoring; keep consolidating
                                               through enums
==================  =========================  ===================================================

Decisions are advisory: only those listed in ``fail_on`` fail the job, and so does an area below its
``area_minimums`` entry. A PRELIMINARY run (some answers never reached the model) still gets a
decision, shown as not authoritative, but never fails anything. The lexical baseline gets none at
all: it is *not gated* (a recommendation to remediate a catalog is a model's to earn).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_evals.config.model import GateOptions
from mcp_evals.strict import StrictModel
from mcp_evals.wording import plural

Decision = Literal["remediate", "gray_zone", "deprioritize_refactor"]
DECISION_LABELS: dict[str, str] = {
    "remediate": "remediate",
    "gray_zone": "gray zone",
    "deprioritize_refactor": "deprioritize refactor",
}
RECOMMENDATIONS: dict[str, str] = {
    "remediate": "open a remediation: deferred loading, code mode, or grouping tools",
    "gray_zone": "keep watching; re-evaluate after the next tool or description change",
    "deprioritize_refactor": "deprioritize catalog refactoring; keep consolidating through enums",
}
NOT_GATED = "not gated (lexical baseline)"
# A computed 17/20 must land on the 85 % boundary even after float arithmetic.
_EPSILON = 1e-9


class AreaShortfall(StrictModel):
    area: str
    accuracy: float | None
    minimum: float


class GateDecision(BaseModel):
    """The gate's verdict on one run."""

    model_config = ConfigDict(extra="forbid")

    decision: Decision | None = Field(description="None when no select fixture reached the model.")
    top1: float | None
    tool_count: int
    remediate_below: float
    deprioritize_at: float
    message: str
    recommendation: str = ""
    authoritative: bool = Field(True, description="False for a PRELIMINARY run or the lexical baseline.")
    gated: bool = Field(True, description="False for the lexical baseline: it gets no decision at all.")
    advisory_reason: str | None = None
    area_shortfalls: list[AreaShortfall] = Field(default_factory=list)
    failing_reasons: list[str] = Field(
        default_factory=list, description="Why the job fails; empty = it does not."
    )

    @property
    def fails(self) -> bool:
        return bool(self.failing_reasons)

    @property
    def label(self) -> str:
        if not self.gated:
            return NOT_GATED
        return DECISION_LABELS[self.decision] if self.decision else "no decision"


def format_percent(
    value: float | None, thresholds: tuple[float, ...] = (), digits: int = 1, *, strip: bool = False
) -> str:
    """``0.8499`` → ``84.99%`` when one decimal would round it onto a threshold it is below."""
    if value is None:
        return "n/a"
    text = f"{value * 100:.{digits}f}"
    if any(float(text) / 100 >= threshold - _EPSILON > value for threshold in thresholds):
        text = f"{math.floor(value * 10 ** (digits + 3)) / 10 ** (digits + 1):.{digits + 1}f}"
    if strip and "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text}%"


def _tools(count: int) -> str:
    return plural(count, "tool")


def evaluate_gate(top1: float, options: GateOptions | None = None, *, tool_count: int) -> GateDecision:
    """The decision for a top-1 accuracy (a fraction) over a catalog of ``tool_count`` tools."""
    options = options or GateOptions()
    low, high = options.remediate_below, options.deprioritize_at
    shown = format_percent(top1, (low, high))
    low_text, high_text = format_percent(low, strip=True), format_percent(high, strip=True)
    decision: Decision
    if top1 + _EPSILON < low:
        decision = "remediate"
        message = f"Top-1 accuracy {shown} across {_tools(tool_count)} is below {low_text}"
    elif top1 + _EPSILON < high:
        decision = "gray_zone"
        message = (
            f"Top-1 accuracy {shown} across {_tools(tool_count)} is in the gray zone ({low_text}–{high_text})"
        )
    else:
        decision = "deprioritize_refactor"
        message = f"Top-1 accuracy {shown} across {_tools(tool_count)} is at or above {high_text}"
    recommendation = RECOMMENDATIONS[decision]
    reasons = [f"gate decision `{decision}` is listed in gate.fail_on"] if decision in options.fail_on else []
    return GateDecision(
        decision=decision,
        top1=top1,
        tool_count=tool_count,
        remediate_below=low,
        deprioritize_at=high,
        message=f"{message}: {recommendation}.",
        recommendation=recommendation,
        failing_reasons=reasons,
    )


def gate_for_run(
    *,
    top1: float | None,
    options: GateOptions,
    tool_count: int,
    area_accuracy: Mapping[str, float | None],
    preliminary: bool,
    lexical: bool,
) -> GateDecision:
    """The gate for a whole run: decision, per-area minimums, and whether it may fail the job."""
    if lexical:
        shown = (
            "n/a"
            if top1 is None
            else format_percent(top1, (options.remediate_below, options.deprioritize_at))
        )
        return GateDecision(
            decision=None,
            top1=top1,
            tool_count=tool_count,
            remediate_below=options.remediate_below,
            deprioritize_at=options.deprioritize_at,
            message=f"Not gated (lexical baseline): top-1 {shown} across {_tools(tool_count)} by words "
            "alone. Only a model run gets a gate decision; a model should beat this number.",
            authoritative=False,
            gated=False,
            advisory_reason="lexical baseline: not gated",
        )
    if top1 is None:
        gate = GateDecision(
            decision=None,
            top1=None,
            tool_count=tool_count,
            remediate_below=options.remediate_below,
            deprioritize_at=options.deprioritize_at,
            message=f"No select fixture reached the model: no gate decision ({_tools(tool_count)}).",
        )
    else:
        gate = evaluate_gate(top1, options, tool_count=tool_count)
    shortfalls = []
    for area, minimum in sorted(options.area_minimums.items()):
        accuracy = area_accuracy.get(area)
        if accuracy is not None and accuracy + _EPSILON < minimum:
            shortfalls.append(AreaShortfall(area=area, accuracy=accuracy, minimum=minimum))
    reasons = list(gate.failing_reasons)
    reasons += [
        f"area {item.area!r} accuracy {format_percent(item.accuracy, (item.minimum,))} is below its minimum "
        f"{format_percent(item.minimum, strip=True)}"
        for item in shortfalls
    ]
    advisory: str | None = None
    if preliminary:
        advisory = (
            "PRELIMINARY run: some answers never reached the model, so this decision is not authoritative"
        )
    return gate.model_copy(
        update={
            "area_shortfalls": shortfalls,
            "authoritative": advisory is None,
            "advisory_reason": advisory,
            "failing_reasons": reasons if advisory is None else [],
        }
    )
