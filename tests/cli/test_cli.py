"""The command line's own contract: exit codes and the shape of usage errors."""

from __future__ import annotations

from conftest import RunCli


def test_an_unknown_option_is_a_usage_error_with_exit_3_and_a_hint(run_cli: RunCli) -> None:
    result = run_cli("validate", "--bogus")

    assert result.returncode == 3
    assert "Traceback" not in result.stderr
    assert "error: No such option '--bogus'" in result.stderr
    assert "hint: run 'mcp-evals validate --help'" in result.stderr


def test_an_unknown_command_is_a_usage_error_with_exit_3(run_cli: RunCli) -> None:
    result = run_cli("evaluate")

    assert result.returncode == 3
    assert "error: No such command 'evaluate'" in result.stderr


def test_help_lists_every_command_and_the_exit_codes(run_cli: RunCli) -> None:
    result = run_cli("--help")

    assert result.returncode == 0
    for command in ("catalog", "validate", "schema", "run", "merge", "report", "baseline"):
        assert command in result.stdout
    assert "PRELIMINARY" in result.stdout
