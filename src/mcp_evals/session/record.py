"""The session record: versioned NDJSON, one file per (date, git sha), reports rendered from it alone.

A ``header`` line is appended each time a run starts (its provider, model, task set, catalog, both
arms' system prompts, settings, the plan); then one ``session`` line per session, appended and
flushed as it ends, holding the whole trace: every model turn (request size, usage, cost, text) and
every tool call (arguments, the result as the server — or an injected fault — gave it, what the arm's
model was shown when a transform changed it). A session is keyed by (date, git sha, arm, fault level,
task, run); a finished one is never run again.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mcp_evals.answers import ErrorKind, Usage, content_text, now_iso
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.isolation import IsolationReport
from mcp_evals.record.model import Record, RecordHeader
from mcp_evals.session.model import ArmName, FaultKind, TaskSet
from mcp_evals.strict import StrictModel

SESSION_SCHEMA_VERSION = 1
Status = Literal["finished", "dropout", "budget"]
End = Literal["answered", "max_steps"]
# A session that never finished: the model API's failures (after retries), and the session's own.
DropoutKind = ErrorKind | Literal["mcp_server", "session_timeout", "setup"]
CallError = Literal["timeout", "protocol", "invalid_arguments"]
Verdict = Literal["caveated", "uncaveated", "no_unstable_value", "unclear"]


class SessionKey(StrictModel):
    date: str
    git_sha: str
    arm: ArmName
    fault_percent: float
    task_id: str
    run: int = Field(ge=1)

    def label(self) -> str:
        return f"{self.task_id} · arm {self.arm} · faults {self.fault_percent:g}% · run {self.run}"

    def cell(self) -> tuple[str, float, str, int]:
        return (self.arm, self.fault_percent, self.task_id, self.run)


class CallResult(StrictModel):
    """A tool result: content blocks in the MCP wire shape, structured content, the error flag."""

    content: list[dict[str, Any]] = Field(default_factory=list)
    structured_content: Any = None
    is_error: bool = False

    @property
    def text(self) -> str:
        return content_text(self.content)


class CallRecord(StrictModel):
    """One tool call of the model and what came of it."""

    id: str
    tool: str = Field(description="The catalog name (mapped back from the provider-safe name).")
    provider_name: str
    known: bool = True
    arguments: dict[str, Any] | None = None
    raw_arguments: str | None = Field(None, description="Arguments that were not a JSON object.")
    call_number: int = Field(ge=1, description="This tool's calls in the session so far, this one included.")
    result: CallResult = Field(description="What the server (or an injected fault) gave.")
    delivered: list[dict[str, Any]] | None = Field(
        None, description="The content the model was shown, when the arm's transforms changed it."
    )
    fault: FaultKind | None = Field(None, description="The injected fault; the server never saw the call.")
    error: CallError | None = Field(
        None, description="No result from the server: timed out, a protocol error, unusable arguments."
    )
    latency_ms: float = 0.0


class TurnRecord(StrictModel):
    """One model turn: the request's size, the answer, and the calls it made."""

    index: int = Field(ge=1)
    request_messages: int = 0
    request_bytes: int = 0
    input_tokens_counted: int | None = Field(None, description="From the free token count, when asked.")
    text: str = ""
    stop_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    latency_ms: float = 0.0
    request_id: str | None = None
    attempts: int = 1
    calls: list[CallRecord] = Field(default_factory=list)


class JudgeRecord(StrictModel):
    """(d): the judge's verdict on the final answer, with its own usage and cost."""

    model: str
    verdict: Verdict
    reason: str = ""
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    error: str | None = Field(None, description="Why there is no verdict (the judge's request failed).")


class SessionRecord(Record):
    type: Literal["session"] = "session"
    schema_version: int = SESSION_SCHEMA_VERSION
    key: SessionKey
    setup_hash: str = Field(description="The task, arm and fault level this session ran with.")
    status: Status
    end: End | None = Field(None, description="How a finished session ended.")
    error_kind: DropoutKind | None = None
    error_message: str | None = None
    turns: list[TurnRecord] = Field(default_factory=list)
    final_answer: str = ""
    usage: Usage = Field(default_factory=Usage, description="Every turn's usage (the judge's apart).")
    cost_usd: float | None = None
    judge: JudgeRecord | None = None
    isolation: IsolationReport | None = Field(
        None, description="How the session was kept apart from the others, and what went wrong."
    )
    started_at: str = Field(default_factory=now_iso)
    elapsed_ms: float = 0.0

    @property
    def calls(self) -> list[CallRecord]:
        return [call for turn in self.turns for call in turn.calls]


class ArmSetup(StrictModel):
    system_prompt: str
    catalog_hash: str


class SessionSettings(StrictModel):
    max_tokens: int
    temperature: float | None = None
    budget_usd: float | None = None
    count_tokens: bool = False
    judge_model: str | None = None
    runs: int = 1
    arms: list[ArmName]
    fault_percents: list[float]
    task_ids: list[str]


class SessionHeader(RecordHeader):
    type: Literal["header"] = "header"
    schema_version: int = SESSION_SCHEMA_VERSION
    date: str
    git_sha: str
    started_at: str = Field(default_factory=now_iso)
    provider: str
    model: str
    task_set_path: str
    task_set: TaskSet
    catalog: Catalog = Field(description="The catalog the server listed; arms may rewrite descriptions.")
    arms: dict[ArmName, ArmSetup]
    settings: SessionSettings
    notes: list[str] = Field(default_factory=list)

    def planned(self) -> list[tuple[ArmName, float, str, int]]:
        """Every (arm, fault percent, task, run) of the plan, in the order the run goes through them."""
        settings = self.settings
        return [
            (arm, percent, task_id, run)
            for run in range(1, settings.runs + 1)
            for task_id in settings.task_ids
            for percent in settings.fault_percents
            for arm in settings.arms
        ]
