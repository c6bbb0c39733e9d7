"""A task set: the multi-step tasks of ``mcp-evals session``, their arms and their fault levels.

A task set is one YAML (or JSON) file, parsed strictly (an unknown key is an error naming its line).
Everything here is plain data; ``session.load`` reads the file, ``session.validate`` checks it against
the catalog, and nothing in this module talks to a server or a model.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import Field, field_validator, model_validator

from mcp_evals.config.isolation import HookEntry, StateEntry, setup_field, state_field, teardown_field
from mcp_evals.config.unions import ByShape
from mcp_evals.contract.model import CaseServer
from mcp_evals.durations import Seconds
from mcp_evals.patterns import check as check_pattern
from mcp_evals.strict import FileModel, StrictModel

TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ArmName = Literal["A", "B"]
ARM_NAMES: tuple[ArmName, ...] = ("A", "B")
FaultKind = Literal["upstream_502", "html_error", "timeout", "is_error"]
FAULT_KINDS: tuple[FaultKind, ...] = ("upstream_502", "html_error", "timeout", "is_error")
TrapKind = Literal["repeat_after_error", "schema", "insistence", "unstable_value", "other"]
# A server's own error whose text says "try again" is no definitive error: repeating it is fair.
DEFAULT_TRANSIENT_ERRORS = (
    r"(?i)\bHTTP\s*(?:5\d\d|429)\b|"
    r"\b(?:5\d\d|429)\s+(?:Bad Gateway|Service Unavailable|Internal Server Error|Gateway Time-?out|"
    r"Too Many Requests)\b|"
    r"\btimed? ?out\b|\btimeout\b|\btemporar\w*|\bunavailable\b|\boverloaded\b|\brate.?limit\w*|"
    r"\btry again\b|\bretry later\b"
)
DEFAULT_MAX_STEPS = 25


class ScriptStep(StrictModel):
    """One tool call a competent agent would make."""

    tool: str = Field(min_length=1, description="The tool's catalog name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The call's arguments.")
    expect_error: bool = Field(
        False, description="The call is meant to fail (a task about a missing record): --dry does not warn."
    )


class AnswerCheck(StrictModel):
    """A mechanical check of the final answer; every check given must hold."""

    contains: Annotated[str | list[str] | None, ByShape()] = Field(
        None, description="Text (or every text of a list) the answer contains, ignoring case."
    )
    regex: str | None = Field(None, description="A regular expression (Python syntax) found in the answer.")
    json_path: str | None = Field(
        None,
        description="A path into the JSON in the answer (the whole answer, else its first fenced JSON "
        "block, else the first balanced `{…}` that parses as JSON), e.g. `status.region` or `items[0].id`; "
        "with `equals`.",
    )
    equals: Any = Field(None, description="The value at `json_path`.")

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                check_pattern(value)
            except re.error as error:
                raise ValueError(f"the regular expression does not compile: {error}") from None
        return value

    @field_validator("json_path")
    @classmethod
    def _path_reads(cls, value: str | None) -> str | None:
        if value is not None:
            parse_path(value)
        return value

    @model_validator(mode="after")
    def _something(self) -> AnswerCheck:
        if self.contains is None and self.regex is None and self.json_path is None:
            raise ValueError("give at least one of `contains`, `regex` or `json_path` (with `equals`)")
        # (a record written back has `equals: null` beside no path: that is no `equals` given)
        if (self.json_path is None and self.equals is not None) or (
            self.json_path is not None and "equals" not in self.model_fields_set
        ):
            raise ValueError("`json_path` and `equals` go together")
        return self


class Trap(StrictModel):
    """The bad behaviour a task tempts (a plain string is its kind)."""

    kind: TrapKind
    note: str = ""

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        return {"kind": value} if isinstance(value, str) else value


def _trap_as_string_too(schema: dict[str, Any]) -> None:
    """The schema says what the loader accepts: a trap is also written as its kind alone."""
    schema["anyOf"].insert(0, {"enum": list(get_args(TrapKind))})


class Task(StrictModel):
    """One multi-step task."""

    id: str = Field(description="Unique in the task set: records and reports know a task by it.")
    prompt: str = Field(min_length=1, description="What the user asks for.")
    expected_tools: list[str] = Field(
        default_factory=list, description="Tools the answer needs, in the order they should first appear."
    )
    script: list[ScriptStep] = Field(
        min_length=1, description="The calls a competent agent would make, in order (played by --dry)."
    )
    answer: AnswerCheck | None = Field(None, description="The check of the final answer.")
    trap: Trap | None = Field(
        None, description="What bad behaviour the task tempts.", json_schema_extra=_trap_as_string_too
    )
    max_steps: int = Field(
        DEFAULT_MAX_STEPS, ge=1, le=200, description="Model turns before the session is cut off."
    )

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not TASK_ID.match(value):
            raise ValueError(
                "a task id is 1–64 letters, digits, `_`, `.` or `-`, starting with a letter or digit"
            )
        return value

    @property
    def hash(self) -> str:
        """Changes when anything about the task changes: a changed task is a new task."""
        return stable_hash(self.model_dump(mode="json"))


class FaultLevel(StrictModel):
    """One fault level: X % of the tool calls fail, with one of ``kinds``."""

    percent: float = Field(ge=0, le=100, description="Share of tool calls that fail, 0–100.")
    kinds: list[FaultKind] = Field(
        default_factory=lambda: list(FAULT_KINDS), min_length=1, description="The failures to inject."
    )
    tools: list[str] = Field(default_factory=list, description="Only these tools fail (default: every tool).")

    @property
    def label(self) -> str:
        return f"{self.percent:g}%"


class Faults(StrictModel):
    """Fault injection: a deterministic rule (seed + tool + call number) per level."""

    seed: int = Field(0, description="Same seed, same faults.")
    levels: list[FaultLevel] = Field(
        default_factory=lambda: [FaultLevel(percent=0)], min_length=1, description="The levels a run can use."
    )

    @field_validator("levels")
    @classmethod
    def _unique_percents(cls, levels: list[FaultLevel]) -> list[FaultLevel]:
        percents = [level.percent for level in levels]
        repeated = sorted({percent for percent in percents if percents.count(percent) > 1})
        if repeated:
            raise ValueError(
                f"each level needs its own percent; repeated: {', '.join(f'{p:g}' for p in repeated)}"
            )
        return levels

    def level(self, percent: float) -> FaultLevel | None:
        return next((level for level in self.levels if level.percent == percent), None)


class Transform(StrictModel):
    """A change to every tool result the arm's model sees."""

    remove_field: str = Field(
        min_length=1,
        description="A JSON key, or a dotted path of keys (`provenance.retrieval`), removed wherever it "
        "appears in a result (objects at any depth, inside arrays too); the rest keeps its form.",
    )


class Arm(StrictModel):
    """One arm of the A/B comparison."""

    description: str = Field("", description="What the arm changes, for the report.")
    transforms: list[Transform] = Field(default_factory=list, description="Applied to every tool result.")
    system_prompt_addition: str = Field("", description="Appended to the task set's system prompt.")
    descriptions: dict[str, str] = Field(
        default_factory=dict, description="Tool name → rewritten description: an alternative catalog."
    )


class Timeouts(StrictModel):
    step_seconds: Seconds = Field(30.0, gt=0, description="One tool call (seconds, or 500ms, 30s, 2m).")
    session_seconds: Seconds = Field(
        900.0,
        gt=0,
        description="A whole session, model turns included (seconds, or 30s, 15m).",
    )


class JudgeSettings(StrictModel):
    """The judge of (d): does the final answer quote an unstable value without a caveat?"""

    model: str | None = Field(None, description="A cheap model of the same provider; none: not judged.")
    max_tokens: int = Field(300, ge=16)


class Arms(StrictModel):
    """The two arms; an arm with nothing to change is ``{}``."""

    A: Arm = Field(default_factory=Arm)
    B: Arm = Field(default_factory=Arm)

    def __getitem__(self, name: ArmName) -> Arm:
        return self.A if name == "A" else self.B


class TaskSet(FileModel):
    """The whole task-set file."""

    name: str = Field("", description="Shown in reports (default: the file's name).")
    server: Annotated[str | CaseServer | None, ByShape()] = Field(
        None,
        description="The server: a config server's name, or a block of its own (`command`/`args`/`env`/"
        "`cwd`, or `url`/`headers`; `cwd` is relative to this file). Default: the config's only server.",
    )
    system_prompt: str = Field(min_length=1, description="Sent in every session (each arm may add to it).")
    faults: Faults = Field(default_factory=Faults)
    arms: Arms = Field(default_factory=Arms, description="`A` and `B`.")
    transient_errors: str = Field(
        DEFAULT_TRANSIENT_ERRORS,
        description="A regular expression: a server's own error whose text matches it is not definitive.",
    )
    timeouts: Timeouts = Field(default_factory=Timeouts)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    tasks: list[Task] = Field(min_length=1)
    state: list[StateEntry] | None = state_field()
    setup: list[HookEntry] | None = setup_field()
    teardown: list[HookEntry] | None = teardown_field()

    @field_validator("transient_errors")
    @classmethod
    def _pattern_compiles(cls, value: str) -> str:
        try:
            check_pattern(value)
        except re.error as error:
            raise ValueError(f"the regular expression does not compile: {error}") from None
        return value

    @field_validator("tasks")
    @classmethod
    def _unique_ids(cls, tasks: list[Task]) -> list[Task]:
        ids = [task.id for task in tasks]
        repeated = sorted({task_id for task_id in ids if ids.count(task_id) > 1})
        if repeated:
            raise ValueError(f"task ids must be unique; repeated: {', '.join(repeated)}")
        return tasks

    def system_prompt_of(self, arm: ArmName) -> str:
        addition = self.arms[arm].system_prompt_addition.strip()
        return f"{self.system_prompt.rstrip()}\n\n{addition}" if addition else self.system_prompt

    def setup_hash(self, arm: ArmName, level: FaultLevel, task: Task) -> str:
        """What a session's result depends on besides the model: a finished session with another
        setup hash is another experiment and never stands in for this one."""
        setup: dict[str, Any] = {
            "task": task.model_dump(mode="json"),
            "arm": self.arms[arm].model_dump(mode="json"),
            "system_prompt": self.system_prompt_of(arm),
            "level": level.model_dump(mode="json"),
            "seed": self.faults.seed,
            "transient_errors": self.transient_errors,
        }
        isolation = self.model_dump(mode="json", include={"state", "setup", "teardown"}, exclude_none=True)
        if isolation:  # the starting state is part of the experiment (absent: the hash stays as it was)
            setup["isolation"] = isolation
        return stable_hash(setup)


def stable_hash(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# -- JSON paths: `status.region`, `items[0].id`, `["key with spaces"]`, an optional leading `$` -----

PathPart = str | int
_SEGMENT = re.compile(
    r"""\.?(?P<key>[A-Za-z0-9_-]+)|\[(?P<index>\d+)\]|\[(?P<quote>["'])(?P<quoted>.*?)(?P=quote)\]"""
)


def parse_path(text: str) -> tuple[PathPart, ...]:
    """``status.region`` → ("status", "region"); a path that cannot be read is a ValueError."""
    body = text.strip()
    body = body[1:] if body.startswith("$") else body
    parts: list[PathPart] = []
    position = 0
    while position < len(body):
        segment = _SEGMENT.match(body, position)
        if segment is None or (position > 0 and segment.group("key") and body[position] != "."):
            raise ValueError(f"cannot read the JSON path {text!r} at {body[position:]!r}")
        if segment.group("key") is not None:
            parts.append(segment.group("key"))
        elif segment.group("index") is not None:
            parts.append(int(segment.group("index")))
        else:
            parts.append(segment.group("quoted"))
        position = segment.end()
    if not parts:
        raise ValueError(f"the JSON path {text!r} is empty")
    return tuple(parts)


def value_at(value: Any, path: tuple[PathPart, ...]) -> tuple[bool, Any]:
    """(True, the value) at ``path``, or (False, None) when it is not there."""
    for part in path:
        if isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
            continue
        if isinstance(value, dict) and isinstance(part, str) and part in value:
            value = value[part]
            continue
        return False, None
    return True, value
