"""Pieces of `mcp-evals action` (action/steps.py) that read best on their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_evals.action.build import run_build
from mcp_evals.fixtures.validate import Problem


def problem_line(problem: dict[str, object]) -> str:
    """What `action run` prints for a problem of `validate --format json`."""
    return Problem.model_validate(problem).log_line()


def test_a_validation_problem_is_one_log_line_that_is_never_a_command() -> None:
    located = {"file": "fixtures/a.yaml", "line": 4, "severity": "error", "rule": "unknown-tool"}
    assert problem_line({**located, "message": "x"}) == "fixtures/a.yaml:4: error [unknown-tool] x"
    loose = {"severity": "warning", "rule": "uncovered-tool", "message": "tool `a::add-mask::b`\nhas none"}
    line = problem_line(loose)
    assert line == "warning [uncovered-tool] tool `a::add-mask::b`\\nhas none"
    assert len(line.splitlines()) == 1
    assert not line.startswith("::")


def test_a_multi_line_build_runs_whole_under_one_group_title(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = {
        "PATH": "/usr/bin:/bin",
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_EVENT_NAME": "pull_request",
        "INPUT_BUILD": "echo one > one.txt\necho two > two.txt\n",  # a `build: |` block
    }
    assert run_build(environ) == 0
    assert (tmp_path / "one.txt").exists() and (tmp_path / "two.txt").exists()
    assert capsys.readouterr().out.splitlines() == ["::group::Build: echo one > one.txt …", "::endgroup::"]
