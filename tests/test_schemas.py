"""The JSON Schemas for editors: committed under schemas/, current, and true to the real files."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from mcp_evals.cli.schema_cmd import Which, schema_document, schema_text
from mcp_evals.config.documents import load_document
from support.validate_helpers import run_main

REPO_ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = REPO_ROOT / "schemas"
EXAMPLES = REPO_ROOT / "examples"


@pytest.mark.parametrize("which", ["config", "fixtures", "contract", "session"])
def test_the_committed_schemas_are_up_to_date(which: Which) -> None:
    committed = (SCHEMAS / f"{which}.schema.json").read_text("utf-8")
    assert committed == schema_text(which), (
        f"schemas/{which}.schema.json is stale: run `mcp-evals schema {which} > schemas/{which}.schema.json`"
    )


@pytest.mark.parametrize("which", ["config", "fixtures", "contract", "session"])
def test_the_schemas_are_valid_json_schemas(which: Which) -> None:
    document = schema_document(which)
    jsonschema.Draft202012Validator.check_schema(document)


def test_the_command_prints_a_schema(capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_main(capsys, "schema", "fixtures")
    assert outcome.code == 0
    assert json.loads(outcome.out)["title"] == "mcp-evals fixture file"
    assert json.loads(run_main(capsys, "schema").out)["title"].startswith("mcp-evals config")


@pytest.mark.parametrize(
    "config", sorted(EXAMPLES.glob("*/mcp-evals.yaml")), ids=lambda path: path.parent.name
)
def test_every_example_config_matches_the_config_schema(config: Path) -> None:
    jsonschema.validate(load_document(config).data, schema_document("config"))


@pytest.mark.parametrize(
    "fixtures",
    sorted(path for path in EXAMPLES.glob("*/fixtures/*") if path.suffix in (".yaml", ".yml", ".json")),
    ids=lambda path: f"{path.parent.parent.name}/{path.name}",
)
def test_every_example_fixture_file_matches_the_fixture_schema(fixtures: Path) -> None:
    jsonschema.validate(load_document(fixtures).data, schema_document("fixtures"))


@pytest.mark.parametrize(
    "data",
    [
        [{"id": "a", "query": "q", "expected_tool": "x", "colour": "red"}],
        [{"id": "a", "query": "q", "expected_tool": "x", "expected_tools": ["y"]}],
        [{"id": "a"}],
        {"fixtures": [], "extra": 1},
        [{"id": "a", "query": "q", "kind": "maybe"}],
        [{"id": "a", "query": "q", "expected_args": {"n": {"one_of": []}}}],
    ],
)
def test_the_fixture_schema_catches_what_the_loader_refuses(data: object) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema_document("fixtures"))


def test_the_config_schema_catches_typos_and_missing_sources() -> None:
    schema = schema_document("config")
    jsonschema.validate({"servers": [{"name": "s", "command": "x"}]}, schema)
    for data in (
        {"servers": [{"name": "s", "command": "x"}], "validaton": {}},
        {"servers": [{"name": "s"}]},
        {"servers": [{"name": "s", "command": "x", "url": "http://h"}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(data, schema)


@pytest.mark.parametrize(
    "tasks", sorted(EXAMPLES.glob("*/evals/session/*.yaml")), ids=lambda path: path.parent.parent.parent.name
)
def test_every_example_task_set_matches_the_session_schema(tasks: Path) -> None:
    jsonschema.validate(load_document(tasks).data, schema_document("session"))


def test_the_session_schema_refuses_what_the_loader_refuses() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"system_prompt": "x", "tasks": [{"id": "t", "prompt": "p", "script": [], "max_step": 3}]},
            schema_document("session"),
        )
