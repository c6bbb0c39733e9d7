"""No schema reference leaves the document: a server's `$ref` to a URL or a file is never fetched.

Each command that uses a JSON Schema runs against a server whose tool schemas point at a loopback
HTTP server that records every request: it must see none, and no command may show a traceback.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli
from mcp_evals import schema_refs

from .conftest import Hits, HostileProject, tool


def remote_tools(hits: Hits) -> list[dict[str, Any]]:
    return [
        tool("lookup", {"ticket": {"$ref": f"{hits.base_url}/ticket.json"}}),
        tool("readfile", {"path": {"$ref": "file:///etc/passwd"}}),
        tool(
            "report",
            {"query": {"type": "string"}},
            outputSchema={"type": "object", "properties": {"n": {"$ref": f"{hits.base_url}/out.json"}}},
        ),
    ]


@pytest.fixture
def remote(hostile: HostileProject, hits: Hits) -> HostileProject:
    hostile.serve(remote_tools(hits), calls={"report": {"structured": {"n": "x"}}})
    hostile.configure(
        [
            {
                "id": "f1",
                "query": "Look up ticket 7",
                "expected_tools": ["lookup"],
                "expected_args": {"ticket": 7},
            },
            {
                "id": "f2",
                "query": "Read the notes file",
                "expected_tools": ["readfile"],
                "expected_args": {"path": 3},
            },
            {"id": "f3", "query": "Report the count", "expected_tools": ["report"]},
        ]
    )
    return hostile


def no_traceback(text: str) -> None:
    assert "Traceback" not in text and "ExceptionGroup" not in text and "_Wrapped" not in text, text


def test_the_factory_refuses_every_uri_and_never_fetches(hits: Hits) -> None:
    for reference in (f"{hits.base_url}/x.json", "file:///etc/passwd", "other.json"):
        with pytest.raises(schema_refs.OutsideReference, match="points outside the schema"):
            schema_refs.errors({"properties": {"a": {"$ref": reference}}}, {"a": 1})
    # local references and the bundled metaschemas still resolve
    local = {"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}
    assert [error.message for error in schema_refs.errors(local, {"a": "x"})] == [
        "'x' is not of type 'integer'"
    ]
    assert (
        schema_refs.errors({"$ref": "https://json-schema.org/draft/2020-12/schema"}, {"type": "string"}) == []
    )
    assert hits.paths == []


def test_validate_lint_and_catalog_fetch_nothing(remote: HostileProject, hits: Hits, cli: Cli) -> None:
    result = cli("validate", "--config", remote.config)
    no_traceback(result.err)
    assert result.code in (0, 1), result.err
    lint = cli("lint", "--config", remote.config)
    no_traceback(lint.err)
    assert (
        f"refers to '{hits.base_url}/ticket.json', which does not resolve" in lint.out and lint.code == 1
    ), lint.out + lint.err
    snapshot = remote.root / "catalog.json"
    caught = cli("catalog", "--config", remote.config, "--out", snapshot)
    assert caught.code == 0, caught.err
    changed = json.loads(snapshot.read_text())
    changed["servers"][0]["tools"][0]["inputSchema"]["properties"]["ticket"] = {
        "$ref": f"{hits.base_url}/v2.json"
    }
    newer = remote.root / "catalog-2.json"
    newer.write_text(json.dumps(changed))
    diff = cli("catalog", "diff", snapshot, newer)
    no_traceback(diff.err)
    assert diff.code in (0, 1), diff.err
    assert hits.paths == []


def test_run_with_the_lexical_provider_fetches_nothing(
    remote: HostileProject, hits: Hits, cli: Cli, tmp_path: Path
) -> None:
    result = cli(
        "run", "--config", remote.config, "--provider", "lexical", "--results", tmp_path / "r.ndjson"
    )
    no_traceback(result.err)
    assert result.code in (0, 1), result.err
    assert hits.paths == []


def test_contract_validate_reports_the_reference_as_a_finding(
    remote: HostileProject, hits: Hits, cli: Cli
) -> None:
    remote.case("look", [{"id": "a", "tool": "lookup", "input": {"ticket": 7}}])
    result = cli("contract", "validate", "--config", remote.config)
    no_traceback(result.err)
    assert result.code == 1, result.out + result.err
    assert f"$ref '{hits.base_url}/ticket.json' points outside the schema" in result.out + result.err
    assert hits.paths == []


def test_a_contract_output_schema_with_a_remote_reference_fails_its_step(
    remote: HostileProject, hits: Hits, cli: Cli
) -> None:
    remote.case(
        "count",
        [
            {
                "id": "a",
                "tool": "report",
                "input": {"query": "x"},
                "expect": {"structured_matches_output_schema": True},
            }
        ],
    )
    result = cli("contract", "--config", remote.config, "--no-history")
    no_traceback(result.err)
    assert result.code == 1, result.out + result.err
    assert "points outside the schema" in result.out
    assert hits.paths == []


def test_a_schema_match_with_a_remote_reference_is_bad_input(
    remote: HostileProject, hits: Hits, cli: Cli
) -> None:
    remote.case(
        "count",
        [
            {
                "id": "a",
                "tool": "report",
                "input": {"query": "x"},
                "expect": {"schema_match": {"properties": {"n": {"$ref": f"{hits.base_url}/n.json"}}}},
            }
        ],
    )
    result = cli("contract", "--config", remote.config, "--no-history")
    no_traceback(result.err)
    assert result.code == 3, result.out + result.err
    assert "count.yaml" in result.err and "points outside the schema" in result.err
    assert hits.paths == []


def test_session_validate_and_dry_fetch_nothing(remote: HostileProject, hits: Hits, cli: Cli) -> None:
    tasks = remote.tasks(
        [
            {
                "id": "t1",
                "prompt": "Look up ticket 7.",
                "expected_tools": ["lookup"],
                "script": [{"tool": "lookup", "arguments": {"ticket": 7}}],
                "answer": {"contains": "7"},
                "max_steps": 4,
            }
        ]
    )
    result = cli("session", "validate", "--tasks", tasks)
    no_traceback(result.err)
    assert result.code == 0, result.out + result.err
    assert "not checked" in result.out and "points outside the schema" in result.out
    dry = cli("session", "--tasks", tasks, "--dry", "--provider", "anthropic")
    no_traceback(dry.err)
    assert dry.code == 0, dry.out + dry.err
    assert hits.paths == []


def test_every_validator_is_built_by_the_factory() -> None:
    """Only schema_refs.py builds validators: a second place would bring the fetching default back."""
    source = Path(__file__).resolve().parents[2] / "src" / "mcp_evals"
    builders = re.compile(
        r"validator_for\(|Draft\d+Validator|referencing\.Registry|(?<!schema_refs)\.iter_errors\("
    )
    offenders = [
        f"{path.relative_to(source)}: {found.group()}"
        for path in sorted(source.rglob("*.py"))
        if path.name != "schema_refs.py"
        for found in builders.finditer(path.read_text("utf-8"))
    ]
    assert offenders == []
