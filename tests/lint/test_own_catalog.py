"""`mcp-evals serve`'s own tools pass our own lint: typed schemas, one-line descriptions, no finding
above info."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_evals.lint.model import LintReport
from support.catalog_helpers import PYTHON, write_config
from support.validate_helpers import run_main

SOURCE = Path(__file__).resolve().parents[2] / "src"


def test_the_serve_catalog_lints_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The server is this checkout's code, whatever the environment has installed.
    server = {"name": "serve", "command": PYTHON, "args": ["-m", "mcp_evals", "serve"], "timeout": 60}
    config = write_config(tmp_path, [{**server, "env": {"PYTHONPATH": str(SOURCE)}}])
    monkeypatch.chdir(tmp_path)
    outcome = run_main(capsys, "lint", "--config", config.path, "--format", "json")
    report = LintReport.model_validate_json(outcome.out)
    assert outcome.code == 0, outcome.err
    assert report.tools == 13
    assert [finding.message for finding in report.findings if finding.severity != "info"] == []
    assert max(tool.tokens for tool in report.tokens.largest) <= 1200  # T002's threshold


def test_serve_tool_descriptions_are_one_line_without_the_source_indentation() -> None:
    import anyio

    from mcp_evals.serve.app import build_server

    async def listed() -> list[str]:
        server = build_server(harness=None)  # type: ignore[arg-type]  # listing calls no harness method
        return [tool.description or "" for tool in await server.list_tools()]

    descriptions = anyio.run(listed)
    assert descriptions and all("\n" not in text and "  " not in text for text in descriptions)
