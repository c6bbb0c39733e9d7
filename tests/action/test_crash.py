"""A crash of `mcp-evals action run` still leaves the job a summary, outputs and a telling exit code."""

from __future__ import annotations

import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from fakes import github_events as events
from mcp_evals.action.crash import EXIT_CRASH, guarded
from mcp_evals.errors import ConfigError

from .conftest import ActionStep

KEY = "sk-ant-api03-crash-report-7c41e0"
HOSTILE = (
    f"body was ``` {KEY} <!-- mcp-evals:sticky config=x --> </details><script>alert(1)</script>\n"
    "## forged heading @octocat fixes #1 http://evil.example"
)


class ComposeError(RuntimeError):
    """Stands in for whatever bug the Action may have."""


def compose_comment_body() -> int:
    raise ComposeError(HOSTILE)


def test_an_unexpected_exception_is_reported_as_a_crash(
    step: ActionStep, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = step.environment("pull_request", events.pull_request(7), {"ANTHROPIC-API-KEY": KEY})

    assert guarded(compose_comment_body, environ) == EXIT_CRASH == 70

    log = capsys.readouterr()
    assert "Traceback (most recent call last)" in log.err and "compose_comment_body" in log.err
    assert "::error title=mcp-evals crashed::ComposeError: body was" in log.out
    assert "mcp-evals action: exit code 70 (crash)" in log.out
    summary = step.summary_text()
    assert summary.startswith("## 💥 mcp-evals crashed\n")
    assert "test\\_crash.ComposeError</code>" in summary  # the type, with its module
    assert "This is a bug in mcp-evals" in summary and "issue tracker" in summary
    assert KEY not in summary and "body was ``` *** " in summary  # the key, never; the rest, as is
    # escaped: the message sits in a code block nothing inside can close, and no marker can be forged
    assert "````text\n" in summary and "<!-- mcp-evals" not in summary
    assert "http" not in summary.replace("http://evil.example", "")  # the hint carries no link
    rendered = cmarkgfm.github_flavored_markdown_to_html(summary, options=Options.CMARK_OPT_UNSAFE)
    assert set(re.findall(r"<([a-z0-9]+)", rendered)) == {"h2", "p", "code", "pre"}
    assert step.outputs() == {
        "decision": "crash",
        "top1": "",
        "score": "",
        "report-path": "",
        "comment-url": "",
        "preliminary": "false",
        "exit-code": "70",
    }


def test_an_mcp_evals_error_that_escapes_is_reported_like_bad_input(
    step: ActionStep, capsys: pytest.CaptureFixture[str]
) -> None:
    def read_something() -> int:
        raise ConfigError("config.yaml:3: unknown key 'servrs'")

    environ = step.environment("pull_request", events.pull_request(7))

    assert guarded(read_something, environ) == 3

    log = capsys.readouterr()
    assert "Traceback" not in log.err
    assert "::error title=mcp-evals::config.yaml:3: unknown key 'servrs'" in log.out
    assert "unknown key 'servrs'" in step.summary_text()
    assert step.outputs()["decision"] == "error" and step.outputs()["exit-code"] == "3"


def test_a_crash_while_writing_the_outputs_keeps_the_summary(step: ActionStep) -> None:
    # The runner's output file is a folder: writing the outputs raises IsADirectoryError after the
    # mode has reported. The job summary gets the mode's section and then the crash.
    step.output.unlink()
    step.output.mkdir()
    environ = step.environment("pull_request", events.pull_request(7), {"MODE": "session"})

    ran = step.run_entrypoint(environ)

    assert ran.returncode == EXIT_CRASH, ran.stdout + ran.stderr
    assert "IsADirectoryError" in ran.stderr and "Traceback (most recent call last)" in ran.stderr
    assert "::error title=mcp-evals crashed::IsADirectoryError" in ran.stdout
    assert "could not write the step outputs either: IsADirectoryError" in ran.stdout
    summary = step.summary_text()
    assert summary.index("mode `session` runs paid sessions") < summary.index("## 💥 mcp-evals crashed")
    assert "<code>IsADirectoryError</code>" in summary


def test_a_crash_while_writing_the_summary_still_sets_the_outputs(step: ActionStep) -> None:
    step.summary.unlink()
    step.summary.mkdir()
    environ = step.environment("pull_request", events.pull_request(7), {"MODE": "contract"})

    ran = step.run_entrypoint(environ)

    assert ran.returncode == EXIT_CRASH, ran.stdout + ran.stderr
    assert "could not write the job summary either: IsADirectoryError" in ran.stdout
    assert step.outputs()["decision"] == "crash" and step.outputs()["exit-code"] == "70"
