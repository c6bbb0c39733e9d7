"""pydantic's errors as ``file:line (field): message``: one message per mistake, no pydantic internals."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError, model_validator

from mcp_evals.config.documents import load_document
from mcp_evals.config.load import load_config
from mcp_evals.config.messages import describe_validation_error
from mcp_evals.config.unions import ByShape
from mcp_evals.contract.load import load_case
from mcp_evals.errors import ConfigError, InputFileError, McpEvalsError
from mcp_evals.fixtures.load import load_fixture_file
from mcp_evals.session.load import load_task_set
from support.validate_helpers import write


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    count: int


def test_validation_errors_name_file_line_and_field(tmp_path: Path) -> None:
    document = load_document(
        write(tmp_path / "f.yaml", "items:\n  - id: a\n    count: many\n    colour: red\n")
    )
    with pytest.raises(ValidationError) as error:
        _Item.model_validate(document.data["items"][0])
    text = describe_validation_error(error.value, document, ("items", 0))
    assert "f.yaml:3 (items[0].count): Input should be a valid integer" in text
    assert "f.yaml:4 (items[0].colour): unknown key" in text


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str


class _Checked(BaseModel):
    model_config = ConfigDict(extra="forbid")
    low: int = 0
    high: int = 0

    @model_validator(mode="after")
    def _ordered(self) -> _Checked:
        if self.low > self.high:
            raise ValueError("`low` must not be above `high`")
        return self


def _no_x(key: str) -> str:
    if key.startswith("x"):
        raise ValueError(f"no key may start with x: {key!r}")
    return key


class _Unions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: Annotated[bool | Literal["low", "high"], ByShape()] = False
    paths: Annotated[str | list[str], ByShape()] = ""
    part: Annotated[_Part | str, ByShape()] = ""
    env: dict[str, str] = {}
    items: list[_Item] = []
    span: Annotated[_Checked | str, ByShape()] = ""
    named: dict[Annotated[str, AfterValidator(_no_x)], int] = {}
    tagged: Annotated[dict[str, int] | str, ByShape()] = ""


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        ("level: loud\n", ["f.yaml:1 (level): must be false, true, low or high (not 'loud')"]),
        ("paths: 5\n", ["f.yaml:1 (paths): must be a string or a list (not 5)"]),
        ("paths: {a: 1}\n", ["f.yaml:1 (paths): must be a string or a list (not a mapping)"]),
        ("paths: [a, 5]\n", ["f.yaml:1 (paths[1]): Input should be a valid string"]),
        ("part: 5\n", ["f.yaml:1 (part): must be a mapping or a string (not 5)"]),
        (
            "part:\n  nmae: x\n",
            ["f.yaml:1 (part.name): required field is missing", "f.yaml:2 (part.nmae): unknown key"],
        ),
        ("span: {low: 2, high: 1}\n", ["f.yaml:1 (span): `low` must not be above `high`"]),
        # keys that look like pydantic's names for union branches, or like ours, are still keys
        ("env:\n  str: 5\n", ["f.yaml:2 (env.str): Input should be a valid string"]),
        ("tagged:\n  <mapping>: x\n", ["f.yaml:2 (tagged.<mapping>): Input should be a valid integer"]),
        (
            "items:\n  - {id: a, count: x, _Part: 1}\n",
            ["f.yaml:2 (items[0].count): Input should be", "f.yaml:2 (items[0]._Part): unknown key"],
        ),
        # an error in a mapping's key names the key, not pydantic's marker of it
        ("named:\n  ok: 1\n  xy: 2\n", ["f.yaml:3 (named.xy): no key may start with x: 'xy'"]),
    ],
)
def test_a_union_is_one_message_naming_what_it_accepts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, messages: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    document = load_document(write(Path("f.yaml"), text))
    with pytest.raises(ValidationError) as error:
        _Unions.model_validate(document.data)
    described = describe_validation_error(error.value, document).splitlines()
    assert len(described) == len(messages), described
    assert all(line.startswith(message) for line, message in zip(described, messages, strict=True)), described


def test_more_than_the_limit_is_counted(tmp_path: Path) -> None:
    document = load_document(
        write(tmp_path / "f.yaml", "".join(f"- {{id: {n}, count: x}}\n" for n in range(5)))
    )
    with pytest.raises(ValidationError) as error:
        _Item.model_validate(document.data[0] | {"extra": 1, "more": 2, "id": 3})
    lines = describe_validation_error(error.value, document, (0,), limit=2).splitlines()
    assert len(lines) == 3 and lines[-1] == "… and 2 more problems"


# -- every union place of the real models: one message, in the user's words ----------------------------

_SERVERS = "servers:\n  - name: x\n    command: y\n"
_STEP = "name: c\nsteps:\n  - id: s\n    tool: t\n"
_TASKS = "system_prompt: p\ntasks:\n  - id: a\n    prompt: p\n    script: [{tool: t}]\n"

REAL: list[tuple[str, str, str]] = [
    (
        "mcp-evals.yaml",
        _SERVERS + "fixtures: 5\n",
        "mcp-evals.yaml:4 (fixtures): must be a string or a list (not 5)",
    ),
    (
        "mcp-evals.yaml",
        _SERVERS + "fixtures: [a, 5]\n",
        "mcp-evals.yaml:4 (fixtures[1]): Input should be a valid string",
    ),
    (
        "mcp-evals.yaml",
        _SERVERS + "fixtures: {a: b}\n",
        "mcp-evals.yaml:4 (fixtures): must be a string or a list (not a mapping)",
    ),
    (
        "mcp-evals.yaml",
        _SERVERS + "fixtures: null\n",
        "mcp-evals.yaml:4 (fixtures): must be a string or a list (not None)",
    ),
    (
        "mcp-evals.yaml",
        _SERVERS + "lint:\n  rules:\n    N001: warn\n",
        "mcp-evals.yaml:6 (lint.rules.N001): must be false, true, error, warning or info (not 'warn')",
    ),
    (
        "mcp-evals.yaml",
        _SERVERS + "lint:\n  rules:\n    N001: [a]\n",
        "mcp-evals.yaml:6 (lint.rules.N001): must be false, true, error, warning or info (not a list)",
    ),
    (
        "mcp-evals.yaml",
        _SERVERS + "lint:\n  rules:\n    X: true\n",
        "mcp-evals.yaml:6 (lint.rules.X): no lint rule 'X' (an id is N, D, S, T, C, F, R, X or P and three "
        "digits; `mcp-evals lint --rules-md` lists the rules)",
    ),
    (
        "c.yaml",
        "name: c\nserver: 5\nsteps: [{id: s, tool: t}]\n",
        "c.yaml:2 (server): must be a mapping or a string (not 5)",
    ),
    (
        "c.yaml",
        "name: c\nserver: {command: x, url: y}\nsteps: [{id: s, tool: t}]\n",
        "c.yaml:2 (server): give exactly one of `command` (stdio) or `url` (HTTP)",
    ),
    (
        "c.yaml",
        "name: c\nserver: {comand: x}\nsteps: [{id: s, tool: t}]\n",
        "c.yaml:2 (server.comand): unknown key "
        "(check the spelling; `mcp-evals schema contract` lists the allowed keys)",
    ),
    (
        "c.yaml",
        "name: c\nserver: {command: 5}\nsteps: [{id: s, tool: t}]\n",
        "c.yaml:2 (server.command): Input should be a valid string",
    ),
    (
        "c.yaml",
        _STEP + "    expect:\n      output_contains: 5\n",
        "c.yaml:6 (steps[0].expect.output_contains): must be a string or a list (not 5)",
    ),
    (
        "c.yaml",
        _STEP + "    expect:\n      output_not_contains: [a, 5]\n",
        "c.yaml:6 (steps[0].expect.output_not_contains[1]): Input should be a valid string",
    ),
    ("t.yaml", "server: 5\n" + _TASKS, "t.yaml:1 (server): must be a string or a mapping (not 5)"),
    ("t.yaml", "server: {url: 5}\n" + _TASKS, "t.yaml:1 (server.url): Input should be a valid string"),
    ("t.yaml", "server: [x]\n" + _TASKS, "t.yaml:1 (server): must be a string or a mapping (not a list)"),
    (
        "t.yaml",
        _TASKS + "    answer:\n      contains: [x, [y]]\n",
        "t.yaml:7 (tasks[0].answer.contains[1]): Input should be a valid string",
    ),
    (
        "f.yaml",
        "- {id: a, query: q, expected_tool: t, expected_args: {x: {contains: 5}}}\n",
        "f.yaml:1 ([0]): expected_args.x: Input should be a valid string",
    ),
]
_LOADERS: dict[str, Callable[[Path], Any]] = {
    "mcp-evals.yaml": load_config,
    "c.yaml": load_case,
    "t.yaml": load_task_set,
    "f.yaml": load_fixture_file,
}
# What pydantic-core calls a union's branches and a key's errors: none may reach a message.
_INTERNAL = re.compile(
    r"function-(after|before|wrap|plain)|lax-or-strict|json-or-python|tagged-union|literal\[|"
    r"\[key\]|\.(bool|str|int|float|list|dict|none)\b|list\[|dict\[|<[a-z]+>"
)


@pytest.mark.parametrize(
    ("name", "text", "expected"), REAL, ids=[f"{name}:{n}" for n, (name, _, _) in enumerate(REAL)]
)
def test_every_union_place_of_the_real_models_is_one_message_without_internals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str, expected: str
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises((ConfigError, InputFileError)) as error:
        _LOADERS[name](write(Path(name), text))
    message = str(error.value).replace(str(tmp_path) + "/", "")
    assert message.splitlines()[0] == expected, message
    assert not _INTERNAL.search(message.replace("(not a list)", "")), message


def test_the_guard_sees_an_internal_tag(tmp_path: Path) -> None:
    """A plain union (no ByShape) would name its branches: the pattern above catches that."""

    class _Plain(BaseModel):
        level: bool | Literal["low", "high"] = False

    document = load_document(write(tmp_path / "f.yaml", "level: loud\n"))
    with pytest.raises(ValidationError) as error:
        _Plain.model_validate(document.data)
    assert _INTERNAL.search(describe_validation_error(error.value, document))


def test_unknown_keys_get_a_did_you_mean_or_the_level_they_belong_at(tmp_path: Path) -> None:
    def config_error(text: str) -> str:
        with pytest.raises(ConfigError) as error:
            load_config(write(tmp_path / "mcp-evals.yaml", text))
        return str(error.value).replace(str(tmp_path) + "/", "")

    assert config_error(_SERVERS + "env: {A: b}\n") == (
        "mcp-evals.yaml:4 (env): `env` belongs inside a server entry (one level deeper), not here"
    )
    assert "`min_fixtures` belongs inside `validation:` (one level deeper)" in config_error(
        _SERVERS + "min_fixtures: 3\n"
    )
    assert "`servers` belongs at the top level (one level up)" in config_error(
        _SERVERS + "validation:\n  servers: []\n"
    )
    assert "did you mean `min_per_tool`" in config_error(_SERVERS + "validation:\n  min_per_tools: 1\n")
    path = write(tmp_path / "f.yaml", "fixtures:\n  - id: a\n    query: q\n    expected_tol: x\n")
    with pytest.raises(InputFileError, match=r"unknown key `expected_tol`; did you mean `expected_tool`"):
        load_fixture_file(path)


def test_every_loader_error_is_an_mcp_evals_error() -> None:
    assert issubclass(ConfigError, McpEvalsError) and issubclass(InputFileError, McpEvalsError)
