"""Fixture files: YAML or JSON, a list or `{fixtures: [...]}`, each fixture knowing its file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_evals.config.load import load_config
from mcp_evals.errors import ConfigError, InputFileError
from mcp_evals.fixtures.load import load_fixture_file, load_fixtures
from mcp_evals.fixtures.model import AnyValue, Contains, Fixture, OneOf, Regex, fixture_set_hash
from validate_helpers import write

HELPDESK = Path(__file__).resolve().parent.parent / "examples" / "helpdesk"


def test_a_list_file_with_every_field(tmp_path: Path) -> None:
    path = write(
        tmp_path / "tickets.yaml",
        """
        - id: refund-double-charge
          query: I was charged twice for March, please give the second one back
          expected_tool: issue_refund
          area: billing
          pattern: specific
          expected_args:
            invoice_id: INV-1042
            reason: {one_of: [duplicate_charge, billing_error]}
            note: {contains: twice}
            amount: {regex: '^\\d+(\\.\\d+)?$'}
            currency: {any: true}
          notes: the classic
        - id: weather
          query: What's the weather in Lisbon?
          kind: refuse
        """,
    )
    refund, weather = load_fixture_file(path)
    assert refund.expected_tools == ["issue_refund"]
    assert refund.kind == "select"
    assert (refund.area, refund.pattern, refund.notes) == ("billing", "specific", "the classic")
    matchers = refund.matchers()
    assert matchers["invoice_id"] == "INV-1042"
    assert matchers["reason"] == OneOf(one_of=["duplicate_charge", "billing_error"])
    assert matchers["note"] == Contains(contains="twice")
    assert isinstance(matchers["amount"], Regex)
    assert matchers["currency"] == AnyValue(any=True)
    assert (weather.kind, weather.expected_tools) == ("refuse", [])
    assert str(refund.source) == f"{path}:1"
    assert str(weather.source) == f"{path}:13"


def test_a_mapping_file_and_a_json_file_keep_lines(tmp_path: Path) -> None:
    mapping = write(tmp_path / "a.yaml", "fixtures:\n  - id: a\n    query: q\n    expected_tools: [x, y]\n")
    as_json = tmp_path / "b.json"
    as_json.write_text(
        '{\n  "fixtures": [\n    {"id": "b", "query": "q2", "expected_tool": "x"},\n'
        '    {\n      "id": "c",\n      "query": "q3",\n      "expected_tool": "y"\n    }\n  ]\n}\n'
    )
    fixtures = load_fixtures([mapping, as_json])
    assert [(f.id, f.expected_tools, f.source.line if f.source else None) for f in fixtures] == [
        ("a", ["x", "y"], 2),
        ("b", ["x"], 3),
        ("c", ["y"], 4),
    ]


def test_shorthands_are_forgiving_but_not_ambiguous(tmp_path: Path) -> None:
    fixture = Fixture.model_validate({"id": 7, "query": "q", "expected_tools": "get_ticket"})
    assert (fixture.id, fixture.expected_tools) == ("7", ["get_ticket"])
    with pytest.raises(ValueError, match="not both"):
        Fixture.model_validate({"id": "a", "query": "q", "expected_tool": "x", "expected_tools": ["y"]})


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("- id: a\n  expected_tool: x\n", r"f\.yaml:1 \(\[0\]\.query\): required field is missing"),
        ("- id: a\n  query: '   '\n", r"f\.yaml:2 \(\[0\]\.query\): the query is blank"),
        (
            "- id: a\n  query: q\n  expected_tool: x\n  expected_tools: [y]\n",
            r"f\.yaml:1 \(\[0\]\): give `expected_tool` or `expected_tools`, not both",
        ),
        ("- id: a\n  query: q\n  kind: maybe\n", r"f\.yaml:3 \(\[0\]\.kind\): Input should be 'select'"),
        ("- id: a\n  query: q\n  expeced_tool: x\n", r"f\.yaml:3 \(\[0\]\.expeced_tool\): unknown key"),
        ("- id: a\n  query: q\n  source: {file: x}\n", r"f\.yaml:3 \(\[0\]\.source\): unknown key"),
        (
            "- id: a\n  query: q\n  expected_args: {n: {one_of: []}}\n",
            r"expected_args\.n: List should have at least 1",
        ),
        ("- just a string\n", r"f\.yaml:1: a fixture must be a mapping"),
        ("fixtures: {id: a}\n", r"f\.yaml:1: `fixtures` must be a list"),
        ("fixtures: []\nextra: 1\n", r"f\.yaml:2: unknown key 'extra'"),
        ("id: a\nquery: q\n", r"f\.yaml:1: a mapping without a `fixtures:` key"),
        ("42\n", r"holds a single int value, not fixtures"),
    ],
)
def test_bad_fixture_files_name_file_line_and_field(tmp_path: Path, body: str, message: str) -> None:
    path = write(tmp_path / "f.yaml", body)
    with pytest.raises(InputFileError, match=message):
        load_fixture_file(path, display_base=tmp_path)


def test_an_empty_file_holds_no_fixtures(tmp_path: Path) -> None:
    assert load_fixture_file(write(tmp_path / "f.yaml", "# nothing yet\n")) == []


def test_a_config_loads_its_globs_relative_to_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    write(project / "evals" / "b.yaml", "- {id: b, query: q2, expected_tool: x}\n")
    write(project / "evals" / "a.yaml", "- {id: a, query: q1, expected_tool: x}\n")
    write(project / "evals" / "more" / "c.json", '[{"id": "c", "query": "q3", "expected_tool": "x"}]')
    config = load_config(
        write(
            project / "mcp-evals.yaml",
            """
            servers: [{name: s, snapshot: snap.json}]
            fixtures: [evals/*.yaml, "evals/**/*.json", evals/a.yaml]
            """,
        )
    )
    monkeypatch.chdir(tmp_path)
    fixtures = load_fixtures(config)
    assert [fixture.id for fixture in fixtures] == ["a", "b", "c"]  # sorted per glob, each file once
    # shown relative to the current folder, as editors and GitHub annotations want
    assert [str(fixture.source) for fixture in fixtures] == [
        "project/evals/a.yaml:1",
        "project/evals/b.yaml:1",
        "project/evals/more/c.json:1",
    ]


def test_a_glob_that_matches_nothing_is_an_error(tmp_path: Path) -> None:
    config = load_config(
        write(tmp_path / "mcp-evals.yaml", "servers: [{name: s, command: x}]\nfixtures: evals/*.yml\n")
    )
    with pytest.raises(
        InputFileError, match=r"mcp-evals\.yaml:2 \(fixtures\): 'evals/\*\.yml' matches no file"
    ):
        load_fixtures(config)


def test_a_config_without_fixtures_is_an_error(tmp_path: Path) -> None:
    config = load_config(write(tmp_path / "mcp-evals.yaml", "servers: [{name: s, command: x}]\n"))
    with pytest.raises(ConfigError, match="no `fixtures:` in the config"):
        load_fixtures(config)


def test_the_hash_follows_content_not_location_or_notes() -> None:
    one = Fixture(id="a", query="q", expected_tools=["x"], notes="n1")
    moved = one.model_copy(update={"notes": "other"})
    changed = Fixture(id="a", query="q?", expected_tools=["x"])
    assert one.hash == moved.hash != changed.hash
    assert fixture_set_hash([one, changed]) == fixture_set_hash([changed, one])
    assert "source" not in json.loads(one.model_dump_json())


def test_the_example_fixtures_load() -> None:
    fixtures = load_fixtures(load_config(HELPDESK / "mcp-evals.yaml"))
    assert len(fixtures) >= 30
    assert {fixture.kind for fixture in fixtures} == {"select", "refuse", "clarify"}
    assert all(fixture.source and fixture.source.line for fixture in fixtures)
