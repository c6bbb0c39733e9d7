"""mcp-assert's assertion files (its documented format, our own files): run as they are, and imported.

The assertions call npm's server-memory. Each of their assertion kinds is used once; what maps with
a change of meaning and what does not map is said, and a file whose assertion is not a tool call is
neither run nor written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcp_evals.contract.load import load_case
from support.catalog_helpers import node_server
from support.validate_helpers import listing, run_main

ADA = {"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}]}


def server(store: Path) -> dict[str, Any]:
    return {"command": str(node_server("mcp-server-memory")), "env": {"MEMORY_FILE_PATH": f"{store}"}}


def suite(folder: Path, store: Path) -> Path:
    """A suite in mcp-assert's format, one level of subfolders as it reads them."""
    files: dict[str, dict[str, Any]] = {
        "create.yaml": {
            "name": "creates ada",
            "server": server(store),
            "assert": {
                "tool": "create_entities",
                "args": ADA,
                "expect": {"not_error": True, "contains": ["Ada"]},
            },
            "timeout": "20s",
        },
        "search/by-name.yaml": {
            "name": "search finds a created entity",
            "server": server(store),
            "setup": [
                {"tool": "create_entities", "args": ADA},
                {"tool": "open_nodes", "args": {"names": ["Ada"]}, "capture": {"who": "$.entities[0].name"}},
            ],
            "assert": {
                "tool": "search_nodes",
                "args": {"query": "{{who}}"},
                "expect": {
                    "not_error": True,
                    "json_path": {"$.entities[0].entityType": "person", "$.entities[0].name": "Ada"},
                    "contains_any": ["Ada", "Grace"],
                    "in_order": ["entities", "Ada", "relations"],
                    "matches_regex": ["(?i)FIRST PROGRAM", '"entityType":\\s*"person"'],
                    "not_empty": True,
                    "not_contains": ["Grace"],
                },
            },
        },
        "search/empty.yaml": {
            "name": "an empty graph answers with empty lists",
            "server": server(store.with_name("empty.jsonl")),
            "assert": {
                "tool": "read_graph",
                "args": {},
                "expect": {
                    "equals": '\n{\n  "entities": [],\n  "relations": []\n}  ',
                    "file_contains": {"/tmp/x": "y"},
                },
            },
        },
        "errors.yaml": {
            "name": "observations for nobody",
            "server": server(store),
            "assert": {
                "tool": "add_observations",
                "args": {"observations": [{"entityName": "Nobody", "contents": ["x"]}]},
                "expect": {"contains": ["not found"]},
            },
        },
        "resources.yaml": {
            "name": "lists resources",
            "server": server(store),
            "assert_resources": {"list": {}},
        },
        "skipped.yaml": {
            "name": "skipped",
            "skip": True,
            "server": server(store),
            "assert": {"tool": "read_graph"},
        },
    }
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(content, sort_keys=False))
    return folder


def test_a_suite_runs_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    suite(tmp_path / "evals", tmp_path / "memory.jsonl")
    ran = run_main(capsys, "contract", "--fixtures", "evals", "--no-history", "--format", "json")
    document = json.loads(ran.out)
    results = {case["name"]: case["status"] for case in document["run"]["cases"]}
    assert results == {
        "creates ada": "passed",
        "search finds a created entity": "passed",
        "an empty graph answers with empty lists": "passed",
        # mcp-assert passes it: "not found" is in the text of the tool's error; here a tool error fails
        "observations for nobody": "failed",
    }
    assert ran.code == 1
    err = ran.err
    assert "mcp-assert compatibility: each assertion file is a case" in err
    assert "not mapped: evals/search/empty.yaml assert.expect.file_contains" in err
    assert "not run: evals/resources.yaml: `assert_resources`" in err
    assert "not run: evals/skipped.yaml: `skip: true`" in err
    # the captured name reached the asserted call, with its type
    [searched] = [
        case for case in document["run"]["cases"] if case["name"] == "search finds a created entity"
    ]
    assert searched["steps"][-1]["input"] == {"query": "Ada"}
    assert [step["id"] for step in searched["steps"]] == ["setup-1", "setup-2", "assert"]

    none = run_main(capsys, "contract", "--fixtures", "evals", "--no-history", "--compat", "none")
    assert none.code == 3  # its files are not our format: our loader says so


def test_a_suite_imports_as_cases_that_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = suite(tmp_path / "evals", tmp_path / "memory.jsonl")
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (folder / "fixture.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "searches in the fixture",
                "server": {**server(tmp_path / "memory.jsonl"), "args": ["--data", "{{fixture}}/data"]},
                "assert": {
                    "tool": "search_nodes",
                    "args": {"query": "{{fixture}}"},
                    "expect": {"not_error": True},
                },
            }
        )
    )
    before = listing(folder)
    ran = run_main(capsys, "import", "mcp-assert", "evals", "--out", "imported", "--fixture", "fixture")
    assert ran.code == 0, ran.err
    written = sorted(path.name for path in (tmp_path / "imported" / "evals" / "contract").iterdir())
    assert written == [
        "an-empty-graph-answers-with-empty-lists.yaml",
        "creates-ada.yaml",
        "observations-for-nobody.yaml",
        "search-finds-a-created-entity.yaml",
        "searches-in-the-fixture.yaml",
    ]
    assert listing(folder) == before  # their files are left as they were
    out = ran.out
    assert "wrote imported/evals/contract/creates-ada.yaml" in out
    assert "not mapped: evals/resources.yaml: not written: `assert_resources`" in out
    assert "changed: each server gets PATH, HOME, the locale and its `env`" in out
    case = load_case(tmp_path / "imported" / "evals" / "contract" / "searches-in-the-fixture.yaml")
    assert case.steps[0].input == {"query": str(fixture.resolve())}
    assert isinstance(case.server, object) and f"{fixture.resolve()}/data" in yaml.safe_dump(
        case.model_dump()
    )
    searched = load_case(tmp_path / "imported" / "evals" / "contract" / "search-finds-a-created-entity.yaml")
    assert searched.steps[-1].input == {"query": "{{steps.setup-2.json.entities[0].name}}"}
    expect = searched.steps[-1].expect
    assert expect.is_error is False and expect.output_not_contains == ["Grace"]
    assert expect.output_matches is not None and expect.output_matches.startswith(r"\A(?=")
    assert expect.schema_match is not None and len(expect.schema_match["allOf"]) == 2

    # the written cases run (our semantics: the tool error of "observations for nobody" fails)
    (tmp_path / "memory.jsonl").unlink(missing_ok=True)
    again = run_main(
        capsys, "contract", "--fixtures", "imported/evals/contract", "--no-history", "--format", "json"
    )
    statuses = {case["name"]: case["status"] for case in json.loads(again.out)["run"]["cases"]}
    assert statuses["creates ada"] == "passed" and statuses["search finds a created entity"] == "passed"
    assert statuses["observations for nobody"] == "failed"

    in_the_way = run_main(
        capsys, "import", "mcp-assert", "evals", "--out", "imported", "--fixture", "fixture"
    )
    assert in_the_way.code == 3 and "exists: an import never writes over a file" in in_the_way.err


def test_a_fixture_suite_without_fixture_is_said_and_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evals").mkdir()
    assertion = {
        "name": "reads the fixture",
        "server": server(tmp_path / "m.jsonl"),
        "assert": {"tool": "search_nodes", "args": {"query": "{{fixture}}/a"}},
    }
    (tmp_path / "evals" / "a.yaml").write_text(yaml.safe_dump(assertion))
    (tmp_path / "evals" / "b.yaml").write_text(
        yaml.safe_dump(
            {"name": "reads", "server": server(tmp_path / "m.jsonl"), "assert": {"tool": "read_graph"}}
        )
    )
    ran = run_main(capsys, "contract", "--fixtures", "evals", "--no-history")
    assert ran.code == 0, ran.out + ran.err
    assert (
        "not run: evals/a.yaml: it uses {{fixture}}: import it with `mcp-evals import mcp-assert DIR"
        in ran.err
    )
    assert "1 passed, 0 failed of 1 case" in ran.out


@pytest.mark.parametrize(
    ("expect", "output", "holds"),
    [
        ({"min_results": 2}, [1, 2], True),
        ({"min_results": 2}, [1], False),
        ({"max_results": 1}, {"items": [1, 2]}, False),
        ({"min_results": 1}, {"locations": [{"file": "a.go"}]}, True),
        ({"min_results": 1}, {"entities": [1]}, False),  # not one of the fields mcp-assert looks in
        ({"json_path": {"$.a.b[1]": 3}}, {"a": {"b": [0, 3]}}, True),
        ({"json_path": {"$.a.b[1]": 3}}, {"a": {"b": [0, "3"]}}, False),  # ours compares types too
        ({"net_delta": 0}, {"net_delta": 0}, True),
    ],
)
def test_result_counts_and_json_paths_map_to_a_schema(
    expect: dict[str, Any], output: Any, holds: bool
) -> None:
    import jsonschema

    from mcp_evals.contract.mcpassert import convert

    converted = convert(
        {"name": "n", "server": {"command": "x"}, "assert": {"tool": "t", "expect": expect}},
        "a.yaml",
        "n",
        fixture=None,
        environ={},
    )
    assert converted.case is not None
    schema = converted.case["steps"][-1]["expect"]["schema_match"]
    assert jsonschema.Draft202012Validator(schema).is_valid(output) is holds


@pytest.mark.parametrize(
    ("patterns", "text", "holds"),
    [
        (["(?i)HELLO", "wor.d"], "hello world", True),
        (["(?i)HELLO", "planet"], "hello world", False),
        (["^hello"], "say hello", False),
        (["^say", "(?s)hello.world"], "say hello\nworld", True),
    ],
)
def test_several_patterns_must_all_match(patterns: list[str], text: str, holds: bool) -> None:
    import re

    from mcp_evals.contract.mcpassert import convert

    converted = convert(
        {
            "name": "n",
            "server": {"command": "x"},
            "assert": {"tool": "t", "expect": {"matches_regex": patterns}},
        },
        "a.yaml",
        "n",
        fixture=None,
        environ={},
    )
    assert converted.case is not None
    pattern = converted.case["steps"][-1]["expect"]["output_matches"]
    assert (re.search(pattern, text) is not None) is holds


def test_their_environment_variables_become_ours() -> None:
    from mcp_evals.contract.mcpassert import convert

    block = {"command": "srv", "args": ["--price", "$5"], "env": {"A": "${HOME}/x", "B": "$USER-y", "C": "$"}}
    converted = convert(
        {"name": "n", "server": block, "assert": {"tool": "t"}}, "a.yaml", "n", fixture=None, environ={}
    )
    assert converted.case is not None
    assert converted.case["server"]["env"] == {"A": "${HOME:-}/x", "B": "${USER:-}-y", "C": "$$"}
    assert converted.case["server"]["args"] == ["--price", "$$5"]
