"""What a person sees: `run` and `report` on a real terminal (a pseudo-terminal) print plain text;
piped, they print the Markdown they always printed."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from conftest import Project, RunCli, cli_environment
from mcp_evals.record.read import Results, write_line
from support.records import helpdesk_results

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def on_a_terminal(*args: str | Path, env: Mapping[str, str] | None = None) -> tuple[int, str]:
    """Run ``mcp-evals ARGS…`` with its standard output on a pseudo-terminal; (exit code, what it showed)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_evals", *map(str, args)],
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env={"COLUMNS": "160", **cli_environment(env)},
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    code = process.wait(timeout=120)
    return code, b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def saved(tmp_path: Path, results: Results) -> Path:
    path = tmp_path / "results.ndjson"
    with path.open("w", encoding="utf-8") as stream:
        write_line(stream, results.header)
        for row in results.results:
            write_line(stream, row)
    return path


def test_report_on_a_terminal_is_coloured_plain_text(tmp_path: Path) -> None:
    code, shown = on_a_terminal("report", saved(tmp_path, helpdesk_results()))
    assert code == 0
    assert "\x1b[" in shown  # coloured
    text = ANSI.sub("", shown)
    assert text.startswith("mcp-evals: remediate — top-1 57.1%")
    assert "Failing fixtures (7 of 11 reached)" in text and "search_tickets → create_ticket" in text
    assert "<code>" not in text and "```mermaid" not in text and "\u200d" not in text


def test_no_color_turns_colours_off_and_format_md_prints_the_comment(tmp_path: Path) -> None:
    results = saved(tmp_path, helpdesk_results())
    code, shown = on_a_terminal("report", results, env={"NO_COLOR": "1"})
    assert code == 0 and "\x1b" not in shown and shown.startswith("mcp-evals: remediate")
    code, shown = on_a_terminal("report", results, "--format", "md")
    assert code == 0 and shown.startswith("## 🔴 mcp-evals: remediate") and "<details>" in shown


def test_piped_output_keeps_the_markdown(run_cli_process: RunCli, tmp_path: Path) -> None:
    """A real pipe, from a real process."""
    done = run_cli_process("report", saved(tmp_path, helpdesk_results()))
    assert done.stdout.startswith("## 🔴 mcp-evals: remediate") and "\x1b" not in done.stdout
    done = run_cli_process("report", tmp_path / "results.ndjson", "--format", "text")
    assert done.stdout.startswith("mcp-evals: remediate") and "\x1b" not in done.stdout


def test_run_on_a_terminal_ends_with_the_plain_report(project: Project) -> None:
    code, shown = on_a_terminal("run", "--config", project.config, "--results", project.results)
    assert code == 0
    text = ANSI.sub("", shown)
    assert text.startswith("mcp-evals: not gated (lexical baseline) — top-1")
    assert "Accuracy\n  metric" in text and "<" not in text
