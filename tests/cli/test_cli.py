"""The command line's own contract: exit codes and the shape of usage errors, as the OS sees them (a real
subprocess, ``python -m mcp_evals``: these are the suite's smoke tests of the process itself)."""

from __future__ import annotations

import pytest

from conftest import RunCli


def test_an_unknown_option_is_a_usage_error_with_exit_3_and_a_hint(run_cli_process: RunCli) -> None:
    result = run_cli_process("validate", "--bogus")

    assert result.returncode == 3
    assert "Traceback" not in result.stderr
    assert "error: No such option '--bogus'" in result.stderr
    assert "hint: run 'mcp-evals validate --help'" in result.stderr


def test_an_unknown_command_is_a_usage_error_with_exit_3(run_cli_process: RunCli) -> None:
    result = run_cli_process("evaluate")

    assert result.returncode == 3
    assert "error: No such command 'evaluate'" in result.stderr


def test_help_lists_every_command_and_the_exit_codes(run_cli_process: RunCli) -> None:
    result = run_cli_process("--help")

    assert result.returncode == 0
    for command in ("catalog", "validate", "schema", "run", "merge", "report", "baseline"):
        assert command in result.stdout
    assert "PRELIMINARY" in result.stdout


def test_help_lists_each_command_with_its_own_summary_without_importing_it() -> None:
    """`--help` reads the summaries table; each summary says what the command's own help says first."""
    import importlib

    import click

    from mcp_evals.cli import COMMANDS, SUMMARIES

    for name, target in COMMANDS.items():
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(f"mcp_evals.cli.{module_name}"), attribute)
        assert isinstance(command, click.Command)
        if command.hidden:
            assert name not in SUMMARIES
            continue
        listed = click.Command(name, help=SUMMARIES[name]).get_short_help_str(10**6)
        assert listed == command.get_short_help_str(10**6), name


def test_help_imports_no_command_module() -> None:
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from mcp_evals.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(name for name in sys.modules if name.startswith('mcp_evals.') and '_cmd' in name))\n"
        "heavy = ('httpx', 'mcp', 'jinja2', 'anyio')\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-2:] == ["[]", "[]"]


@pytest.mark.parametrize("args", [("--help",), ("validate", "--bogus"), ("evaluate",)])
def test_the_in_process_cli_shows_what_a_real_process_shows(
    run_cli: RunCli, run_cli_process: RunCli, args: tuple[str, ...]
) -> None:
    """CONTRIBUTING.md: the CLI tests run the command in the test's process, as a process would run it."""
    here, there = run_cli(*args), run_cli_process(*args)
    assert (here.returncode, here.stdout, here.stderr) == (there.returncode, there.stdout, there.stderr)
