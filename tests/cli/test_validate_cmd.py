"""`mcp-evals validate` end to end: the bundled example, a renamed tool, snapshots, JSON, GitHub."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from conftest import HELPDESK, REPO_ROOT, RunCli
from mcp_evals.catalog.snapshot import write_snapshot
from mcp_evals.cli import cli
from mcp_evals.config.load import load_config
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.servers.extract import extract_catalog
from support.validate_helpers import listing, run_main, write

EXAMPLE_FIXTURES = len(load_fixtures(load_config(HELPDESK / "mcp-evals.yaml")))


@pytest.fixture(scope="module")
def example_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The helpdesk example's live catalog, saved once as a snapshot for the faster tests."""
    config = load_config(HELPDESK / "mcp-evals.yaml")
    # `command: python` must be this interpreter (it has mcp), as the CLI tests' PATH makes it
    config.servers[0] = config.servers[0].model_copy(update={"command": sys.executable})
    path = tmp_path_factory.mktemp("snapshot") / "helpdesk.catalog.json"
    write_snapshot(extract_catalog(config), path)
    return path


@pytest.fixture
def project(tmp_path: Path, example_snapshot: Path) -> Path:
    """A copy of the example whose config reads the catalog from the snapshot (no server started)."""
    folder = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, folder)
    config = folder / "mcp-evals.yaml"
    text = config.read_text()
    start = text.index("servers:")
    end = text.index("areas:")
    config.write_text(
        text[:start] + f"servers:\n  - name: helpdesk\n    snapshot: {example_snapshot}\n\n" + text[end:]
    )
    return folder


def test_the_example_passes(run_cli: RunCli) -> None:
    result = run_cli("validate", "--config", HELPDESK / "mcp-evals.yaml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.fullmatch(
        rf"ok: {EXAMPLE_FIXTURES} fixtures \(\d+ select, \d+ refuse, \d+ clarify\) · "
        r"(\d+) of \1 tools covered · (\d+) of \2 areas covered · 0 errors, 0 warnings\n",
        result.stdout,
    ), result.stdout


def test_renaming_a_tool_in_the_server_fails_with_a_did_you_mean(tmp_path: Path, run_cli: RunCli) -> None:
    folder = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, folder)
    server = folder / "server.py"
    source = server.read_text()
    assert source.count("def get_ticket(") == 1
    server.write_text(source.replace("def get_ticket(", "def fetch_ticket("))

    result = run_cli("validate", cwd=folder)

    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    renamed = [line for line in lines if "[unknown-tool]" in line]
    assert renamed, result.stdout
    for line in renamed:
        assert line.startswith("fixtures/tickets.yaml:")
        assert line.endswith(
            "error [unknown-tool] tool 'get_ticket' is not in the catalog — did you mean 'fetch_ticket'?"
        )
    assert lines[-1].startswith("FAILED: ")


def test_a_snapshot_can_stand_in_for_the_live_server(
    project: Path, example_snapshot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = project / "mcp-evals.yaml"
    broken.write_text(broken.read_text().replace(f"snapshot: {example_snapshot}", "command: /does/not/exist"))
    outcome = run_main(capsys, "validate", "--config", broken, "--catalog", example_snapshot)
    assert outcome.code == 0, outcome.out + outcome.err
    assert outcome.out.startswith(f"ok: {EXAMPLE_FIXTURES} fixtures")


def test_problems_are_grouped_errors_first_with_a_summary(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        project / "fixtures" / "zz-new.yaml",
        """
        - id: new-1
          query: Pull up ticket 4521 for me
          expected_tool: get_tickets
        - id: new-2
          query: Who is on shift right now?
          expected_tools: [list_agents, list_agents]
        """,
    )
    monkeypatch.chdir(project)
    outcome = run_main(capsys, "validate")
    assert outcome.code == 1
    lines = outcome.out.splitlines()
    assert lines[0] == (
        "fixtures/zz-new.yaml:3: error [unknown-tool] tool 'get_tickets' is not in the catalog — "
        "did you mean 'get_ticket'?"
    )
    assert lines[1] == (
        "fixtures/zz-new.yaml:6: warning [duplicate-expected-tool] "
        "fixture 'new-2' lists tool 'list_agents' twice"
    )
    assert lines[2].startswith(f"FAILED: {EXAMPLE_FIXTURES + 2} fixtures (")
    assert lines[2].endswith("1 error, 1 warning")
    assert len(lines) == 3


def test_a_terminal_sees_the_severities_in_colour_unless_no_color(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unknown = "- {id: n, query: Pull up ticket 4521, expected_tool: get_tickets}\n"
    write(project / "fixtures" / "zz-new.yaml", unknown)
    monkeypatch.chdir(project)
    monkeypatch.delenv("NO_COLOR", raising=False)
    terminal = CliRunner().invoke(cli, ["validate"], color=True, standalone_mode=False)
    assert terminal.return_value == 1
    error = click.style("error", fg="red", bold=True)
    assert f"fixtures/zz-new.yaml:1: {error} [unknown-tool]" in terminal.output
    assert click.style("FAILED:", fg="red", bold=True) in terminal.output
    assert click.unstyle(terminal.output).splitlines()[-1].startswith("FAILED: ")
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b" not in CliRunner().invoke(cli, ["validate"], color=True).output


def test_warnings_alone_exit_0(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = project / "mcp-evals.yaml"
    config.write_text(config.read_text().replace("exclude_tools: []", "exclude_tools: [no_such_tool]"))
    monkeypatch.chdir(project)
    outcome = run_main(capsys, "validate")
    assert outcome.code == 0, outcome.out
    assert outcome.out.splitlines()[0].startswith("mcp-evals.yaml:")
    assert "warning [exclude-unmatched] exclude_tools lists 'no_such_tool'" in outcome.out


def test_config_rules_point_at_the_config_line(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = project / "mcp-evals.yaml"
    text = (
        config.read_text()
        .replace("min_fixtures: 30", "min_fixtures: 500")
        .replace("max_fixtures: 200", "max_fixtures: 900")
    )
    config.write_text(text)
    line = next(number for number, row in enumerate(text.splitlines(), 1) if "min_fixtures: 500" in row)
    monkeypatch.chdir(project)
    outcome = run_main(capsys, "validate")
    assert outcome.code == 1
    assert outcome.out.splitlines()[0] == (
        f"mcp-evals.yaml:{line}: error [too-few-fixtures] {EXAMPLE_FIXTURES} fixtures; "
        "`validation.min_fixtures` asks for at least 500"
    )


def test_json_output(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project / "fixtures" / "zz.yaml", "- {id: z, query: open ticket 9, expected_tool: get_tickt}\n")
    monkeypatch.chdir(project)
    outcome = run_main(capsys, "validate", "--format", "json")
    assert outcome.code == 1
    document = json.loads(outcome.out)
    assert document["ok"] is False
    assert (document["errors"], document["warnings"]) == (1, 0)
    assert document["coverage"]["fixtures"] == EXAMPLE_FIXTURES + 1
    assert document["coverage"]["covered_tools"] == document["coverage"]["tools"]
    assert len(document["catalog_hash"]) == 64
    assert document["problems"] == [
        {
            "rule": "unknown-tool",
            "severity": "error",
            "message": "tool 'get_tickt' is not in the catalog — did you mean 'get_ticket'?",
            "file": "fixtures/zz.yaml",
            "line": 1,
            "fixture_id": "z",
            "config_key": None,
        }
    ]


def test_under_github_actions_problems_are_annotations_too(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        project / "fixtures" / "zz.yaml",
        "- {id: 'z,1', query: 'open ticket 9', expected_tool: 'get_tickt'}\n",
    )
    monkeypatch.chdir(project)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project))
    outcome = run_main(capsys, "validate")
    assert outcome.code == 1
    assert outcome.out.splitlines()[-1] == (
        "::error file=fixtures/zz.yaml,line=1,title=mcp-evals validate%3A unknown-tool::"
        "tool 'get_tickt' is not in the catalog — did you mean 'get_ticket'?"
    )
    # with JSON on stdout, the annotations go to stderr (the runner reads both)
    outcome = run_main(capsys, "validate", "--format", "json")
    assert json.loads(outcome.out)["errors"] == 1
    assert outcome.err.startswith("::error file=fixtures/zz.yaml,line=1,")


def test_bad_input_under_github_actions_is_an_annotation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    outcome = run_main(capsys, "validate", "--config", tmp_path / "missing.yaml")
    assert outcome.code == 3
    assert outcome.out.startswith("::error title=mcp-evals validate::")
    assert "config file not found%0A  hint: pass --config" in outcome.out


def test_untrusted_text_cannot_start_a_line(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        project / "fixtures" / "zz.yaml",
        '- {id: "x\\n::add-mask::y", query: q, expected_tool: "a\\r\\n::error::b"}\n',
    )
    monkeypatch.chdir(project)
    outcome = run_main(capsys, "validate")
    assert outcome.code == 1
    assert not [line for line in outcome.out.splitlines() if line.startswith("::")]


def test_validate_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    before = listing(project)
    assert run_main(capsys, "validate").code == 0
    assert listing(project) == before


def test_the_rename_shown_in_the_docs_is_what_validate_prints(tmp_path: Path, run_cli: RunCli) -> None:
    """README.md and docs/fixtures.md quote this run: the example with `get_ticket` renamed."""
    project = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, project)
    server = project / "server.py"
    server.write_text(server.read_text("utf-8").replace("def get_ticket(", "def fetch_ticket(", 1), "utf-8")
    result = run_cli("validate", cwd=project)
    assert result.returncode == 1
    documented = (REPO_ROOT / "docs" / "fixtures.md").read_text("utf-8")
    block = documented.split("After `get_ticket` is renamed to `fetch_ticket` in the server:")[1]
    shown = block.split("```console\n$ mcp-evals validate\n")[1].split("```")[0]
    assert click.unstyle(result.stdout) == shown
    readme = (REPO_ROOT / "README.md").read_text("utf-8")
    assert shown.splitlines()[0] in readme
