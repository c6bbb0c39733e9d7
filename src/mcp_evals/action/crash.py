"""A crash of `action run` (a bug in mcp-evals) still reports: summary, outputs, annotation, exit 70."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Mapping

from mcp_evals._version import __version__
from mcp_evals.action.context import say
from mcp_evals.errors import McpEvalsError, user_facing
from mcp_evals.github import append_summary, secret_values, write_outputs
from mcp_evals.github.workflow_commands import workflow_command
from mcp_evals.report.escape import md_block, md_code

EXIT_CRASH = 70


def _redacted(text: str, environ: Mapping[str, str]) -> str:
    """``text`` without any secret the Action was given: the log masks them, a summary does not."""
    for secret in secret_values(environ):
        for value in (secret, *secret.splitlines()):
            if len(value.strip()) >= 4:
                text = text.replace(value.strip(), "***")
    return text


def crash_markdown(error: BaseException, environ: Mapping[str, str]) -> str:
    """The job summary of a crashed run: what was raised (escaped, no secrets) and what to do."""
    kind = type(error).__qualname__
    if type(error).__module__ not in ("builtins", "__main__"):
        kind = f"{type(error).__module__}.{kind}"
    message = _redacted(str(error), environ) or "(no message)"
    return (
        "## 💥 mcp-evals crashed\n\n"
        f"The Action stopped on an unexpected {md_code(kind)}. This is a bug in mcp-evals, not a problem "
        "with your server, fixtures or inputs; what had not run yet did not run, and this step fails.\n\n"
        f"{md_block(message, limit=2000)}\n\n"
        "Please report it in the mcp-evals issue tracker with the traceback this step's log shows right "
        "after the `mcp-evals crashed` error, and the mcp-evals version "
        f"({md_code(__version__)}).\n"
    )


def report_failure(environ: Mapping[str, str], markdown: str, decision: str, exit_code: int) -> None:
    """A summary and outputs for a run that ended before its modes could report; never raises."""
    outputs = {"decision": decision, **dict.fromkeys(("top1", "score", "report-path", "comment-url"), "")}
    outputs |= {"preliminary": "false", "exit-code": str(exit_code)}
    writers: dict[str, Callable[[], None]] = {
        "the job summary": lambda: append_summary(environ.get("GITHUB_STEP_SUMMARY"), markdown),
        "the step outputs": lambda: write_outputs(environ.get("GITHUB_OUTPUT"), outputs),
    }
    for what, write in writers.items():
        try:
            write()
        except Exception as failure:  # what went wrong first is what to report
            say(f"mcp-evals: could not write {what} either: {type(failure).__name__}: {failure}")


def guarded(work: Callable[[], int], environ: Mapping[str, str]) -> int:
    """``work()``'s exit code; should it raise, the job still gets a summary and outputs.

    A ``McpEvalsError`` is reported like bad input: its message, its exit code. Anything else is a bug:
    an error annotation and the traceback go to the log, the summary says mcp-evals crashed (with the
    exception, escaped and without secrets), ``decision`` is ``crash`` and the step exits with
    ``EXIT_CRASH``.
    """
    try:
        try:
            return work()
        except BaseExceptionGroup as group:  # errors from concurrent code: unwrapped as the CLI does
            raise user_facing(group) from None
    except McpEvalsError as error:
        message = _redacted(str(error), environ)
        say(workflow_command("error", message, title="mcp-evals"))
        report_failure(environ, f"## ⚠️ mcp-evals: error\n\n{md_block(message)}\n", "error", error.exit_code)
        return error.exit_code
    except Exception as error:  # a bug: reported, not swallowed (the step fails)
        headline = _redacted(f"{type(error).__name__}: {error}", environ)
        say(workflow_command("error", headline, title="mcp-evals crashed"))
        sys.stdout.flush()
        traceback.print_exception(error)
        sys.stderr.flush()
        report_failure(environ, crash_markdown(error, environ), "crash", EXIT_CRASH)
        say(f"mcp-evals action: exit code {EXIT_CRASH} (crash)")
        return EXIT_CRASH
