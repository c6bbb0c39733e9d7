"""Pieces of `mcp-evals action` (cli/action_cmd.py) that read best on their own."""

from __future__ import annotations

from mcp_evals.cli.action_cmd import problem_line


def test_a_validation_problem_is_one_log_line_that_is_never_a_command() -> None:
    located = {"file": "fixtures/a.yaml", "line": 4, "severity": "error", "rule": "unknown-tool"}
    assert problem_line({**located, "message": "x"}) == "fixtures/a.yaml:4: error [unknown-tool] x"
    loose = {"severity": "warning", "rule": "uncovered-tool", "message": "tool `a::add-mask::b`\nhas none"}
    line = problem_line(loose)
    assert line == "warning [uncovered-tool] tool `a::add-mask::b` has none"
    assert not line.startswith("::")
