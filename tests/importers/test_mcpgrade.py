"""`mcp-evals import mcpgrade`: `.mcpgraderc.json` (its documented keys, our own values) and the server
it grades become a config whose lint settings `mcp-evals lint` applies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcp_evals.importers.mcpgrade import RULES
from mcp_evals.lint.rules import all_rules
from support.catalog_helpers import PYTHON, SERVERS
from support.validate_helpers import run_main

TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_time",
        "description": "Get the current time in one timezone. Returns the time as ISO 8601 text.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "zone": {"type": "string", "description": "An IANA zone, e.g. Europe/Rome."},
                "format": {"type": "object", "description": "How to write it."},
            },
            "required": ["zone"],
        },
    },
    {
        "name": "convert_time",
        "description": "Convert a time from one timezone to another. Returns both times as text.",
        "inputSchema": {"type": "object", "properties": {"when": {"type": "string"}}, "required": ["when"]},
    },
]


def lint_ids(capsys: pytest.CaptureFixture[str], config: str) -> set[str]:
    """The rules that fired on `mcp-evals lint --config CONFIG` (ignored ones left out)."""
    outcome = run_main(capsys, "lint", "--config", config, "--format", "json")
    assert outcome.code in (0, 1), outcome.err
    return {item["rule"] for item in json.loads(outcome.out)["findings"] if not item["suppressed"]}


@pytest.mark.parametrize("shape", ["snapshot", "bare array"])
def test_an_mcpgrade_setup_imports_and_lints_with_its_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.chdir(tmp_path)
    snapshot = tmp_path / "clock.json"
    snapshot.write_text(json.dumps({"serverName": "clock", "tools": TOOLS} if shape == "snapshot" else TOOLS))
    (tmp_path / "plain.yaml").write_text("servers:\n  - {name: clock, snapshot: clock.json}\n")
    before = lint_ids(capsys, "plain.yaml")
    assert {"S001", "S013"} <= before and not {"T001", "C003"} & before  # as the rc will change

    rc = tmp_path / ".mcpgraderc.json"
    rc.write_text(
        json.dumps(
            {
                "disable": ["D004", "S008", "Z001"],
                "tokenBudget": {"totalBudget": 50, "perToolBudget": 900, "maxTools": 1},
            }
        )
    )
    outcome = run_main(capsys, "import", "mcpgrade", rc, "--snapshot", snapshot, "--out", "graded")
    assert outcome.code == 0, outcome.err
    assert (
        "changed: disable D004: turns off S001, S002 (an error when the parameter is required" in outcome.out
    )
    assert "not mapped: disable 'Z001': mcpgrade has no such rule" in outcome.out
    config = yaml.safe_load((tmp_path / "graded" / "mcp-evals.yaml").read_text())
    assert config == {
        "servers": [{"name": "clock", "snapshot": "../clock.json"}],
        "lint": {
            "rules": {"S001": False, "S002": False, "S013": False},
            "thresholds": {"max_catalog_tokens": 50, "max_tool_tokens": 900, "max_tools": 1},
        },
    }
    found = lint_ids(capsys, "graded/mcp-evals.yaml")
    assert not found & {"S001", "S002", "S013"}  # disabled
    assert {"T001", "C003"} <= found  # the budget: 50 tokens in all, at most 1 tool


def test_a_stdio_server_and_the_choice_of_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    rc = tmp_path / ".mcpgraderc.json"
    rc.write_text('{"disable": ["T004"], "extra": true}')
    command = f"{PYTHON} {SERVERS / 'toy_server.py'}"
    outcome = run_main(capsys, "import", "mcpgrade", rc, "--stdio", command)
    assert outcome.code == 0, outcome.err
    assert "not mapped: extra (mcpgrade reads disable and tokenBudget only)" in outcome.out
    config = yaml.safe_load((tmp_path / "mcp-evals.yaml").read_text())
    assert config["servers"] == [
        {"name": "toy_server", "command": PYTHON, "args": [str(SERVERS / "toy_server.py")]}
    ]
    assert config["lint"] == {"rules": {"C003": False}}
    assert run_main(capsys, "catalog").code == 0

    neither = run_main(capsys, "import", "mcpgrade", rc, "--out", "x")
    assert neither.code == 3
    assert "exactly one of --snapshot FILE, --stdio CMD or --url URL" in neither.err


def test_every_rule_of_mcpgrade_maps_to_rules_we_have() -> None:
    ours = {rule.id for rule in all_rules()}
    assert len(RULES) == 26  # D001/2/4/5/6/7, N001–N004, S001–S008, T001–T004, C001–C004
    for theirs, (mapped, how, why) in RULES.items():
        assert set(mapped) <= ours, theirs
        assert how in ("same", "changed") and (how == "same") == (why == ""), theirs
