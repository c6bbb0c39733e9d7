"""Bad input through the real CLI: one clear message naming file, line and field; exit 3; no traceback;
nothing written. (Server-side bad input — missing command, hangs, garbage, 401 — is in the catalog tests.)
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from config.test_documents import BILLION_LAUGHS
from conftest import cli_environment
from support.validate_helpers import listing, run_main, write

SNAPSHOT = """\
{"format": "mcp-evals.catalog/1",
 "servers": [{"name": "helpdesk", "transport": "stdio",
              "tools": [{"name": "get_ticket", "inputSchema": {"type": "object"}}]}]}
"""
CONFIG = """\
servers:
  - name: helpdesk
    snapshot: snapshot.json
fixtures: fixtures/*.yaml
"""
GOOD_FIXTURES = "- {id: a, query: Show me ticket 12, expected_tool: get_ticket}\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A valid project (config, snapshot, fixtures) in the current folder; each test breaks one thing."""
    write(tmp_path / "snapshot.json", SNAPSHOT)
    write(tmp_path / "mcp-evals.yaml", CONFIG)
    write(tmp_path / "fixtures" / "tickets.yaml", GOOD_FIXTURES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fails_cleanly(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    *expected: str,
    args: tuple[str, ...] = (),
    command: tuple[str, ...] = ("validate",),
) -> str:
    """Run `mcp-evals validate` (or ``command``), assert exit 3 with one clear error and nothing
    written; return the error."""
    before = listing(project)
    outcome = run_main(capsys, *command, *args)
    assert outcome.code == 3, outcome.out + outcome.err
    assert outcome.out == ""
    assert outcome.err.startswith("error: ")
    assert "Traceback" not in outcome.err
    for text in expected:
        assert text in outcome.err, outcome.err
    assert listing(project) == before
    return outcome.err


def test_the_project_is_valid_to_begin_with(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(capsys, "validate").code == 0


def test_missing_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "mcp-evals.yaml").unlink()
    fails_cleanly(capsys, project, "mcp-evals.yaml: config file not found", "hint: pass --config PATH")


def test_unknown_key(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / "mcp-evals.yaml", CONFIG + "validation:\n  min_fixture: 3\n")
    fails_cleanly(
        capsys,
        project,
        "mcp-evals.yaml:6 (validation.min_fixture): unknown key `min_fixture`; did you mean `min_fixtures`?",
    )
    write(project / "mcp-evals.yaml", CONFIG + "validation:\n  colour: 3\n")  # nothing close
    fails_cleanly(
        capsys,
        project,
        "mcp-evals.yaml:6 (validation.colour): unknown key (check the spelling; "
        "`mcp-evals schema config` lists the allowed keys)",
    )


def test_a_tab_in_the_config_is_explained(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / "mcp-evals.yaml", CONFIG + "validation:\n\tmin_fixtures: 3\n")
    fails_cleanly(capsys, project, "mcp-evals.yaml:6: YAML indents with spaces, not tabs (line 6, column 1)")


def test_an_unknown_fixture_key_points_at_the_fixture_schema(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project / "fixtures" / "tickets.yaml", GOOD_FIXTURES + "- {id: b, query: q, colour: red}\n")
    fails_cleanly(
        capsys, project, "tickets.yaml:2 ([1].colour): unknown key", "`mcp-evals schema fixtures` lists"
    )


def test_yaml_syntax_error_shows_the_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        project / "fixtures" / "tickets.yaml", GOOD_FIXTURES + "- id: b\n  query: [unclosed\n  kind: refuse\n"
    )
    fails_cleanly(capsys, project, "tickets.yaml:4: YAML syntax error")


def test_duplicate_yaml_keys(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / "fixtures" / "tickets.yaml", "- id: a\n  query: one\n  query: two\n")
    error = fails_cleanly(
        capsys, project, "tickets.yaml:3: duplicate key 'query' (first at line 2): keep only one"
    )
    assert error.startswith("error: fixtures/tickets.yaml:3:")  # as the user knows it, not absolute


def test_a_fixture_file_that_is_a_scalar(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / "fixtures" / "tickets.yaml", "just some text\n")
    fails_cleanly(
        capsys, project, "tickets.yaml: holds a single str value, not fixtures", "hint: a fixture file is"
    )


def test_a_mapping_without_fixtures(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / "fixtures" / "tickets.yaml", "tests:\n  - {id: a, query: q}\n")
    fails_cleanly(
        capsys, project, "tickets.yaml:1: a mapping without a `fixtures:` key", "hint: write `fixtures:`"
    )


def test_a_fixture_missing_query(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / "fixtures" / "tickets.yaml", GOOD_FIXTURES + "- id: b\n  expected_tool: get_ticket\n")
    fails_cleanly(capsys, project, "fixtures/tickets.yaml:2 ([1].query): required field is missing")


def test_a_non_utf8_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "fixtures" / "tickets.yaml").write_bytes(b"- id: a\n  query: caf\xe9 au lait\n")
    fails_cleanly(
        capsys, project, "tickets.yaml:2: not valid UTF-8 (byte 0xe9", "hint: save the file as UTF-8"
    )


@pytest.mark.parametrize("command", [("validate",), ("catalog", "--out", "catalog.json")])
def test_an_unset_variable(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
) -> None:
    monkeypatch.delenv("HELPDESK_TOKEN", raising=False)
    write(
        project / "mcp-evals.yaml",
        "servers:\n  - name: helpdesk\n    command: python\n    args: [server.py]\n"
        "    env:\n      HELPDESK_TOKEN: ${HELPDESK_TOKEN}\nfixtures: fixtures/*.yaml\n",
    )
    error = fails_cleanly(
        capsys,
        project,
        "mcp-evals.yaml:6 (servers[0].env.HELPDESK_TOKEN): environment variable HELPDESK_TOKEN is not set",
        "hint: export HELPDESK_TOKEN=",
        command=command,
    )
    assert error.startswith("error: mcp-evals.yaml:6 ")  # the config as the user named it


def test_an_alias_bomb_neither_hangs_nor_eats_memory(project: Path) -> None:
    write(project / "fixtures" / "tickets.yaml", BILLION_LAUGHS)
    limit = 2 * 1024**3  # an expanded billion laughs needs far more than this

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "mcp_evals", "validate"],
        capture_output=True,
        text=True,
        cwd=project,
        env=cli_environment(),
        preexec_fn=cap_memory,
        timeout=30,
        check=False,
    )
    assert result.returncode == 3, result.stderr
    assert time.perf_counter() - started < 10
    assert "tickets.yaml:1: anchors and aliases (&name / *name) are not supported" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_alias_in_the_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / "mcp-evals.yaml", CONFIG + "exclude_tools: &x [a]\nareas: {x: *x}\n")
    fails_cleanly(capsys, project, "mcp-evals.yaml:5: anchors and aliases")


def test_a_glob_matching_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / "mcp-evals.yaml", CONFIG.replace("fixtures/*.yaml", "fixtures/*.yml"))
    fails_cleanly(capsys, project, "mcp-evals.yaml:4 (fixtures): 'fixtures/*.yml' matches no file")


def test_a_json_fixture_file_with_a_syntax_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / "mcp-evals.yaml", CONFIG.replace("fixtures/*.yaml", "fixtures/*"))
    write(project / "fixtures" / "more.json", '[\n  {"id": "b", "query": "q",}\n]\n')
    fails_cleanly(capsys, project, "more.json:2: JSON syntax error")


def test_a_missing_snapshot_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fails_cleanly(capsys, project, "nope.json", args=("--catalog", "nope.json"))


def test_a_snapshot_path_that_cannot_be_written(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fails_cleanly(
        capsys,
        project,
        "snapshot.json/new.json: cannot write the file",
        "hint: choose another path",
        command=("catalog", "--out", "snapshot.json/new.json"),
    )


@pytest.mark.parametrize("args", [("--format", "xml"), ("--no-such-flag",)])
def test_usage_errors_exit_3(
    project: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    outcome = run_main(capsys, "validate", *args)
    assert outcome.code == 3
    assert "Traceback" not in outcome.err
