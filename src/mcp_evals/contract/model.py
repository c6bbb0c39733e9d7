"""Contract cases as written (strict: a typo is an error) and their results as recorded.

A case is a list of steps, each one ``tools/call`` and the assertions its result must meet. Results
are plain data (``ContractRun`` → ``CaseResult`` → ``StepResult`` → ``AssertionResult``) with a
``schema_version``, so every report and every comparison is made from the record alone.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from mcp_evals.config.isolation import (
    HookEntry,
    IsolationReport,
    StateEntry,
    setup_field,
    state_field,
    teardown_field,
)
from mcp_evals.config.model import ServerConfig, StrictModel
from mcp_evals.config.unions import ByShape
from mcp_evals.durations import Seconds
from mcp_evals.patterns import check as check_pattern
from mcp_evals.strict import FileModel

CONTRACT_SCHEMA_VERSION = "mcp-evals.contract/1"
Status = Literal["passed", "failed", "skipped"]
StepStatus = Literal["passed", "failed", "skipped", "not_run"]
Mode = Literal["live", "simulation"]
ASSERTION_KINDS = (
    "is_error",
    "output_contains",
    "output_not_contains",
    "output_equals",
    "output_matches",
    "schema_match",
    "structured_matches_output_schema",
    "tool_called",
    "latency_under",
    "llm_judge",
    "snapshot",
)
STEP_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class CaseServer(StrictModel):
    """A case's own server: the shape of the config's ``servers:`` entries, without a name.

    ``cwd`` is relative to the case file (default: the case file's folder).
    """

    command: str | None = Field(None, description="Executable that starts the server over stdio.")
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(
        default_factory=dict, description="Extra environment; `${VAR}` expands from the caller's."
    )
    cwd: str | None = Field(None, description="Working directory, relative to the case file.")
    url: str | None = Field(
        None, description="Streamable HTTP endpoint (legacy SSE is tried when that fails)."
    )
    headers: dict[str, str] = Field(default_factory=dict, description="HTTP headers; `${VAR}` expands.")
    transport: Literal["auto", "streamable-http", "sse"] = "auto"
    timeout: Seconds = Field(
        30.0,
        gt=0,
        description="How long to start, handshake and list tools (seconds, or 500ms, 30s, 2m).",
    )

    @model_validator(mode="after")
    def _one_source(self) -> CaseServer:
        if bool(self.command) == bool(self.url):
            raise ValueError("give exactly one of `command` (stdio) or `url` (HTTP)")
        if (self.args or self.env or self.cwd) and not self.command:
            raise ValueError("`args`, `env` and `cwd` only apply to a `command` server")
        if self.headers and not self.url:
            raise ValueError("`headers` only apply to a `url` server")
        return self

    def to_server_config(self, name: str, case_dir: Path) -> ServerConfig:
        cwd = str((case_dir / self.cwd) if self.cwd else case_dir) if self.command else None
        return ServerConfig(
            name=name,
            command=self.command,
            args=self.args,
            env=self.env,
            cwd=cwd,
            url=self.url,
            headers=self.headers,
            transport=self.transport,
            timeout=self.timeout,
        )


# Any JSON value, said as a type: an untyped schema tells a model nothing (lint S003), and OpenAI
# refuses an array without `items` (S006). `mcp-evals serve` hands these schemas to models.
ANY_JSON_SCHEMA: dict[str, Any] = {
    "type": ["string", "number", "integer", "boolean", "object", "array", "null"],
    "items": {},
}


def _without_titles(schema: dict[str, Any]) -> None:
    """pydantic's titles repeat the property names: tokens on every request of `serve`'s tools."""
    schema.pop("title", None)
    for value in (schema.get("properties") or {}).values():
        if isinstance(value, dict):
            value.pop("title", None)


class LlmJudge(StrictModel):
    """Ask a model to score the output from 0 to 1; the step fails below ``min_score``."""

    model_config = ConfigDict(json_schema_extra=_without_titles)

    prompt_template: str = Field(
        min_length=1, description="The question for the judge; `{actual}` and `{expected}` are filled in."
    )
    min_score: float = Field(0.7, ge=0, le=1, description="Lowest passing score (0–1).")
    model: str | None = Field(None, description="Default: `contract.judge.model` in the config.")
    expected: str | None = Field(None, description="What `{expected}` becomes (default: `expected_output`).")

    @field_validator("prompt_template")
    @classmethod
    def _names_actual(cls, template: str) -> str:
        if "{actual}" not in template:
            raise ValueError("the template must contain {actual}, where the tool's output goes")
        return template


class SnapshotOptions(StrictModel):
    """Masks for a snapshot."""

    model_config = ConfigDict(json_schema_extra=_without_titles)

    mask_paths: list[str] = Field(
        default_factory=list,
        description="JSON paths whose values are masked (`$.id`, `$..updated_at`).",
    )
    mask_patterns: list[str] = Field(
        default_factory=list,
        description="Regular expressions whose matches are masked.",
    )

    @field_validator("mask_paths")
    @classmethod
    def _paths(cls, paths: list[str]) -> list[str]:
        from mcp_evals.contract.paths import parse_path

        for path in paths:
            parse_path(path)  # a ValueError names what is wrong
        return paths

    @field_validator("mask_patterns")
    @classmethod
    def _patterns(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                check_pattern(pattern)
            except re.error as error:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {error}") from None
        return patterns


class Expect(StrictModel):
    """The assertions on one step's result; every one given must hold."""

    model_config = ConfigDict(json_schema_extra=_without_titles)

    is_error: bool | None = Field(
        None,
        description="true: the tool must report an error; false: it must not. A tool error fails the "
        "step unless `is_error: true` is expected.",
    )
    output_contains: Annotated[str | list[str] | None, ByShape()] = Field(
        None, description="Text(s) the output must include."
    )
    output_not_contains: Annotated[str | list[str] | None, ByShape()] = Field(
        None, description="Text(s) the output must not include."
    )
    output_equals: Any = Field(
        None,
        description="A string: the output text exactly. Any other JSON value: the JSON output equals it.",
        json_schema_extra=ANY_JSON_SCHEMA,
    )
    output_matches: str | None = Field(None, description="A regular expression the output must match.")
    schema_match: dict[str, Any] | None = Field(
        None, description="JSON Schema for `structuredContent`, else for the output parsed as JSON."
    )
    structured_matches_output_schema: bool | None = Field(
        None, description="true: `structuredContent` validates against the tool's declared `outputSchema`."
    )
    tool_called: str | None = Field(
        None, description="The tool the server ran: listed by the server and reached by the call."
    )
    latency_under: float | None = Field(None, gt=0, description="Milliseconds the call must stay under.")
    llm_judge: LlmJudge | None = None
    snapshot: Annotated[bool | SnapshotOptions | None, ByShape()] = Field(
        None,
        description="true, or masks: the output must equal its snapshot in `__snapshots__/` (stored by "
        "the first run; `--update-snapshots` rewrites it).",
    )

    @field_validator("output_matches")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            try:
                check_pattern(pattern)
            except re.error as error:
                raise ValueError(f"not a valid regular expression: {error}") from None
        return pattern

    @field_validator("schema_match")
    @classmethod
    def _is_schema(cls, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is not None:
            import jsonschema

            from mcp_evals import schema_refs

            try:
                schema_refs.check_schema(schema)
            except jsonschema.SchemaError as error:
                raise ValueError(f"not a valid JSON Schema: {error.message}") from None
            outside = schema_refs.outside_references(schema)
            if outside:
                raise ValueError(
                    f"$ref {outside[0]!r} points outside the schema: mcp-evals follows only local "
                    "references (#/…) and fetches nothing; copy the referenced schema under $defs"
                )
        return schema

    @property
    def given(self) -> list[str]:
        """The assertion kinds this block sets, in evaluation order."""
        return [
            kind
            for kind in ASSERTION_KINDS
            if kind in self.model_fields_set and getattr(self, kind) is not None
        ]


class Step(StrictModel):
    model_config = ConfigDict(json_schema_extra=_without_titles)

    id: str = Field(description="Unique within the case; later steps refer to it as {{steps.<id>.output}}.")
    tool: str = Field(min_length=1, description="The tool to call, by the server's own name.")
    description: str | None = None
    input: dict[str, Any] = Field(
        default_factory=dict, description="The arguments; strings may hold {{steps.<id>.…}} references."
    )
    expected_output: Any = Field(
        None,
        description="In simulation mode, the output this step pretends to get (text or JSON).",
        json_schema_extra=ANY_JSON_SCHEMA,
    )
    expect: Expect = Field(default_factory=Expect)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not STEP_ID.match(value):
            raise ValueError("a step id is a letter or _, then letters, digits, _ or - (at most 64)")
        return value


class Case(FileModel):
    name: str = Field(min_length=1, max_length=128, description="Unique among the cases.")
    description: str | None = None
    server: Annotated[CaseServer | str | None, ByShape()] = Field(
        None,
        description="A server block, or the name of a config server; absent: the config's server, "
        "or simulation mode when there is none.",
    )
    simulate: bool = Field(
        False,
        description="Run in simulation mode (outputs from `expected_output`) even when a server is known.",
    )
    continue_on_failure: bool | None = Field(
        None, description="Run later steps after one failed (default: `contract.continue_on_failure`)."
    )
    trials: int | None = Field(
        None,
        ge=1,
        le=100,
        description="Run the case this many times, each from a fresh server; it passes only when every "
        "run passes (pass^k). Default: --trials, else 1.",
    )
    steps: list[Step] = Field(min_length=1)
    state: list[StateEntry] | None = state_field()
    setup: list[HookEntry] | None = setup_field()
    teardown: list[HookEntry] | None = teardown_field()

    _path: Path = PrivateAttr(default=Path("case.yaml"))
    _shown: str = PrivateAttr(default="case.yaml")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if _CONTROL.search(value) or value != value.strip():
            raise ValueError("a case name has no control characters and no leading or trailing spaces")
        return value

    @model_validator(mode="after")
    def _simulated_without_server(self) -> Case:
        if self.simulate and self.server is not None:
            raise ValueError("a case with `simulate: true` runs no server: drop `server:` or `simulate:`")
        return self

    @model_validator(mode="after")
    def _unique_steps(self) -> Case:
        ids = [step.id for step in self.steps]
        repeated = sorted({step for step in ids if ids.count(step) > 1})
        if repeated:
            raise ValueError(f"step ids must be unique within a case; repeated: {', '.join(repeated)}")
        return self


# --------------------------------------------------------------------------- results


class AssertionResult(BaseModel):
    kind: str
    status: Status
    message: str = ""
    detail: str | None = Field(None, description="More than a line can hold: a snapshot's diff.")


class StepResult(BaseModel):
    id: str
    tool: str
    status: StepStatus
    input: Any = None
    output: str = Field("", description="The text the assertions saw (cut to 4,000 characters).")
    structured: Any = None
    is_error: bool | None = None
    latency_ms: float | None = None
    error: str | None = Field(None, description="Why the call itself failed (no answer, a protocol error).")
    assertions: list[AssertionResult] = Field(default_factory=list)

    @property
    def failed_assertions(self) -> list[AssertionResult]:
        return [item for item in self.assertions if item.status == "failed"]

    @property
    def skipped_assertions(self) -> list[AssertionResult]:
        return [item for item in self.assertions if item.status == "skipped"]


Verdict = Literal["passed", "flaky", "failing", "skipped"]


class TrialRun(BaseModel):
    """One of a case's trials: a whole run of it, from a fresh server."""

    status: Status
    duration_ms: float = 0.0
    error: str | None = None
    steps: list[StepResult] = Field(default_factory=list)


class Trials(BaseModel):
    """A case run several times. It passes only when every judged run passed (pass^k); *flaky* when
    some passed and some failed, *failing* when none passed. Skipped runs count neither way."""

    runs: list[TrialRun]

    def count(self, status: Status) -> int:
        return sum(1 for run in self.runs if run.status == status)

    @property
    def verdict(self) -> Verdict:
        passed, failed = self.count("passed"), self.count("failed")
        if passed + failed == 0:
            return "skipped"
        if failed == 0:
            return "passed"
        return "failing" if passed == 0 else "flaky"

    @property
    def shown(self) -> str:
        """``2/3 trials passed`` (skipped runs said apart)."""
        judged = self.count("passed") + self.count("failed")
        skipped = self.count("skipped")
        text = f"{self.count('passed')}/{judged} trials passed"
        return text + (f", {skipped} skipped" if skipped else "")


class CaseResult(BaseModel):
    name: str
    file: str = ""
    mode: Mode
    server: str | None = Field(None, description="The server the case ran against, as shown to users.")
    status: Status
    duration_ms: float = 0.0
    error: str | None = Field(None, description="Why the case could not run (e.g. the server did not start).")
    steps: list[StepResult] = Field(default_factory=list)
    isolation: IsolationReport | None = Field(
        None, description="How the case was kept apart from the others (live cases)."
    )
    trials: Trials | None = Field(
        None,
        description="When the case ran more than once: every run. `status`, `error` and `steps` are then "
        "the first failing run's (else the first run's), `duration_ms` all runs'.",
    )

    @property
    def failing_steps(self) -> list[StepResult]:
        return [step for step in self.steps if step.status == "failed"]

    @property
    def verdict(self) -> Verdict:
        """passed, flaky, failing (a case that failed) or skipped."""
        if self.trials is not None:
            return self.trials.verdict
        return "failing" if self.status == "failed" else self.status


class JudgeSpend(BaseModel):
    requests: int = 0
    cost_usd: float = 0.0
    budget_usd: float | None = None


class ContractRun(BaseModel):
    """One run of contract cases: what ``history`` stores and every report is rendered from."""

    schema_version: Literal["mcp-evals.contract/1"] = "mcp-evals.contract/1"
    run_id: str
    suite: str
    started_at: str
    finished_at: str = ""
    git_sha: str | None = None
    selection: list[str] | None = Field(None, description="The cases asked for with --case; None: all.")
    cases: list[CaseResult] = Field(default_factory=list)
    judge: JudgeSpend = Field(default_factory=JudgeSpend)

    def count(self, status: Status) -> int:
        return sum(1 for case in self.cases if case.status == status)

    @property
    def passed(self) -> int:
        return self.count("passed")

    @property
    def failed(self) -> int:
        return self.count("failed")

    @property
    def skipped(self) -> int:
        return self.count("skipped")

    @property
    def ok(self) -> bool:
        return self.failed == 0

    @property
    def trials(self) -> int:
        """The most runs a case had (1 when none ran more than once)."""
        return max((len(case.trials.runs) for case in self.cases if case.trials is not None), default=1)

    @property
    def flaky(self) -> list[str]:
        return [case.name for case in self.cases if case.verdict == "flaky"]

    @property
    def pass_k(self) -> float | None:
        """The share of judged cases that passed every one of their runs (None: none judged)."""
        judged = self.passed + self.failed
        return self.passed / judged if judged else None
