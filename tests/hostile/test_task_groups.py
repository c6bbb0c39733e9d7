"""One exit path for errors from concurrent code: an error raised inside an anyio task group (which
wraps it in an ExceptionGroup) is reported as the same error raised plainly is — message, exit code,
no traceback — by the CLI and by the Action."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import click
import pytest

from conftest import Cli
from mcp_evals.action.crash import guarded
from mcp_evals.cli import cli as group
from mcp_evals.errors import (
    EXIT_BAD_INPUT,
    ConfigError,
    InputFileError,
    McpEvalsError,
    ServerError,
    ToolCallError,
    user_facing,
)

from .conftest import HostileProject, tool

ERRORS: list[McpEvalsError] = [
    McpEvalsError("plain trouble", hint="do this"),
    ConfigError("mcp-evals.yaml:3 (servers): wrong"),
    InputFileError("fixtures/a.yaml:1: not YAML"),
    ServerError("raw", "tools/list returned the cursor 'c' twice; it would never end"),
    ToolCallError("raw", "no answer to tools/call 'x' within 1 s", timed_out=True),
]


class Custom(McpEvalsError):
    exit_code = 1


async def _raise_in_groups(error: BaseException, depth: int) -> None:
    async def fail() -> None:
        await anyio.sleep(0)
        raise error

    async def sibling() -> None:
        await anyio.sleep(10)  # cancelled when fail() raises: its cancellation is no user error

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(sibling)
        if depth > 1:
            tasks.start_soon(_raise_in_groups, error, depth - 1)
        else:
            tasks.start_soon(fail)


@pytest.fixture
def boom() -> Iterator[dict[str, BaseException]]:
    """A command, `boom`, that raises the error it is given inside nested task groups."""
    holder: dict[str, BaseException] = {}

    @click.command("boom")
    @click.option("--depth", type=int, default=1)
    def command(depth: int) -> None:
        anyio.run(_raise_in_groups, holder["error"], depth)

    group.add_command(command)
    try:
        yield holder
    finally:
        group.commands.pop("boom", None)


@pytest.mark.parametrize("error", [*ERRORS, Custom("a check failed")], ids=lambda error: type(error).__name__)
@pytest.mark.parametrize("depth", [1, 3])
def test_each_error_class_raised_in_a_task_group_is_one_message_and_its_exit_code(
    boom: dict[str, BaseException], cli: Cli, error: McpEvalsError, depth: int
) -> None:
    boom["error"] = error
    result = cli("boom", "--depth", str(depth))
    assert result.code == error.exit_code
    assert result.err == f"error: {error}\n"


def test_an_interrupt_in_a_task_group_is_an_interrupt(boom: dict[str, BaseException], cli: Cli) -> None:
    boom["error"] = KeyboardInterrupt()
    result = cli("boom")
    assert result.code == 130 and "Traceback" not in result.err


def test_a_bug_in_a_task_group_stays_a_traceback(boom: dict[str, BaseException], cli: Cli) -> None:
    boom["error"] = ZeroDivisionError("a bug")
    with pytest.raises(BaseExceptionGroup):
        cli("boom")


@pytest.mark.parametrize("error", ERRORS, ids=lambda error: type(error).__name__)
def test_the_action_reports_them_the_same_way(
    error: McpEvalsError,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: object,
) -> None:
    def work() -> int:
        anyio.run(_raise_in_groups, error, 2)
        return 0

    assert guarded(work, {}) == error.exit_code
    out = capsys.readouterr().out
    assert "::error title=mcp-evals::" in out and "crashed" not in out


def test_user_facing_prefers_our_error_to_a_cancellation_or_a_bug() -> None:
    inner = ConfigError("wrong")
    nested = BaseExceptionGroup("outer", [BaseExceptionGroup("inner", [ValueError("x"), inner])])
    assert user_facing(nested) is inner
    assert user_facing(inner) is inner
    bug = ExceptionGroup("bugs", [ValueError("x")])
    assert user_facing(bug) is bug


@pytest.mark.parametrize("paging", ["same-cursor", "endless"])
@pytest.mark.parametrize("command", ["catalog", "validate", "lint"])
def test_a_listing_that_never_ends_is_that_message_and_exit_3(
    hostile: HostileProject, cli: Cli, paging: str, command: str
) -> None:
    hostile.serve([tool("lookup", {"q": {"type": "string"}})], paging=paging)
    hostile.configure([{"id": "a", "query": "look it up", "expected_tools": ["lookup"]}])
    result = cli(command, "--config", hostile.config)
    assert result.code == EXIT_BAD_INPUT, result.err
    expected = (
        "tools/list returned the cursor 'same-cursor' twice; it would never end"
        if paging == "same-cursor"
        else "tools/list returned more than 1000 pages; is the cursor stuck?"
    )
    assert result.err.startswith(f"error: server 'raw': {expected}"), result.err
    assert "Traceback" not in result.err
