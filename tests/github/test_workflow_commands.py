"""GitHub workflow commands: escaped so untrusted text can never start a command of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_evals.github.workflow_commands import (
    annotation,
    escape_data,
    escape_property,
    in_github_actions,
    relative_to_workspace,
    workflow_command,
)


def test_messages_escape_percent_and_line_breaks() -> None:
    assert escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"


def test_properties_also_escape_colon_and_comma() -> None:
    assert escape_property("C:\\x,y%\n") == "C%3A\\x%2Cy%25%0A"


def test_an_annotation_has_file_line_and_title() -> None:
    line = annotation(
        "error",
        "tool 'get_ticket' is not in the catalog — did you mean 'fetch_ticket'?",
        file="evals/tickets.yaml",
        line=12,
        title="mcp-evals validate: unknown-tool",
    )
    assert line == (
        "::error file=evals/tickets.yaml,line=12,title=mcp-evals validate%3A unknown-tool::"
        "tool 'get_ticket' is not in the catalog — did you mean 'fetch_ticket'?"
    )


def test_unknown_parts_are_left_out() -> None:
    assert annotation("warning", "no file") == "::warning::no file"
    assert workflow_command("group", "Validate") == "::group::Validate"
    assert annotation("notice", "m", line=3, end_line=4, col=1, end_column=9) == (
        "::notice line=3,endLine=4,col=1,endColumn=9::m"
    )


def test_injected_commands_stay_inside_the_message() -> None:
    hostile = "bad id\n::add-mask::x\r\n::error file=a,line=1::fake"
    line = annotation("error", hostile, file="f.yaml\n::stop-commands::t", title="t,itle:x")
    assert "\n" not in line and "\r" not in line
    assert line == (
        "::error file=f.yaml%0A%3A%3Astop-commands%3A%3At,title=t%2Citle%3Ax::"
        "bad id%0A::add-mask::x%0D%0A::error file=a,line=1::fake"
    )


def test_paths_are_made_relative_to_the_workspace() -> None:
    environ = {"GITHUB_WORKSPACE": "/github/workspace"}
    assert relative_to_workspace("/github/workspace/evals/a.yaml", environ) == "evals/a.yaml"
    assert relative_to_workspace("/elsewhere/a.yaml", environ) == "/elsewhere/a.yaml"
    assert relative_to_workspace("evals/a.yaml", environ) == "evals/a.yaml"
    assert (
        annotation("error", "m", file="/github/workspace/x.yaml", environ=environ) == "::error file=x.yaml::m"
    )


def test_relative_paths_are_taken_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "evals").mkdir()
    monkeypatch.chdir(tmp_path / "evals")  # a step with `working-directory: evals`
    environ = {"GITHUB_WORKSPACE": str(tmp_path)}
    assert relative_to_workspace("fixtures/a.yaml", environ) == "evals/fixtures/a.yaml"
    assert relative_to_workspace("../mcp-evals.yaml", environ) == "mcp-evals.yaml"
    assert relative_to_workspace("fixtures/a.yaml", {}) == "fixtures/a.yaml"


def test_github_actions_is_detected_from_the_environment() -> None:
    assert in_github_actions({"GITHUB_ACTIONS": "true"})
    assert not in_github_actions({"GITHUB_ACTIONS": "false"})
    assert not in_github_actions({})
