"""The one exception tree of mcp-evals.

Every error a user can cause or fix is a ``McpEvalsError`` whose message says what happened, where
(file, line, field or server) and what to do. The CLI alone turns it into output and an exit code;
anything else escaping is a bug and shows a traceback.

    McpEvalsError                 exit 3 unless said otherwise
    ├── ConfigError               the config file or a flag is wrong
    ├── InputFileError            a fixture, snapshot or results file cannot be read or parsed
    └── ServerError               an MCP server could not be started, reached or listed
        └── ToolCallError         one tools/call got a protocol error or no answer in time

A model API's failures are not in this tree: they are ``providers.base.ProviderFailure``s, which the
runner records as dropouts (never a crash, never a wrong answer).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_PRELIMINARY = 2
EXIT_BAD_INPUT = 3


class McpEvalsError(Exception):
    """An error with a message meant for the user."""

    exit_code: int = EXIT_BAD_INPUT

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  hint: {self.hint}"


def where(path: str | Path | None, line: int | None = None, field: str | None = None) -> str:
    """Format a location as ``file:line (field)`` for messages; parts that are unknown are left out."""
    text = str(path) if path is not None else ""
    if line is not None:
        text = f"{text}:{line}" if text else f"line {line}"
    if field:
        text = f"{text} ({field})" if text else field
    return text


class ConfigError(McpEvalsError):
    """The config file or a command-line option is wrong."""


class InputFileError(McpEvalsError):
    """A fixture, snapshot or results file cannot be read or does not have the expected shape."""


class ServerError(McpEvalsError):
    """An MCP server could not be started, reached or listed."""

    def __init__(self, server: str, message: str, *, stderr_tail: str = "", hint: str | None = None) -> None:
        text = f"server {server!r}: {message}"
        if stderr_tail.strip():
            indented = "\n".join(f"    | {line}" for line in stderr_tail.rstrip().splitlines())
            text += f"\n  last lines of its stderr:\n{indented}"
        super().__init__(text, hint=hint)
        self.server = server
        self.stderr_tail = stderr_tail


class ToolCallError(ServerError):
    """One ``tools/call`` failed at the protocol level or timed out; the session itself may live on.

    A tool that reports a failure (``isError``) is a result, never this error.
    """

    def __init__(
        self,
        server: str,
        message: str,
        *,
        timed_out: bool = False,
        hint: str | None = None,
        code: int | None = None,
    ) -> None:
        super().__init__(server, message, hint=hint)
        self.timed_out = timed_out
        self.code = code  # the JSON-RPC error code, when the server answered with an error


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def user_facing(error: BaseException) -> BaseException:
    """What to report for ``error``: inside (nested) exception groups — concurrent code wraps every
    error in one — the first ``McpEvalsError``, else the first interrupt or exit; anything else is
    a bug and stays as it is (its traceback shows every part)."""
    if not isinstance(error, BaseExceptionGroup):
        return error
    leaves = list(_leaves(error))
    for wanted in (McpEvalsError, KeyboardInterrupt, SystemExit):
        for leaf in leaves:
            if isinstance(leaf, wanted):
                return leaf
    return error
