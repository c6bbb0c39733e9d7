"""`mcp-evals import mcpjam`: its tests and environment files (its documented schema, our own content)
become a config and select fixtures that `mcp-evals validate` passes against the live server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from support.catalog_helpers import node_server
from support.validate_helpers import run_main


def write_mcpjam(folder: Path, memory_file: Path) -> tuple[Path, Path]:
    tests = folder / "tests.json"
    tests.write_text(
        json.dumps(
            [
                {
                    "title": "Remember a person",
                    "query": "Please remember that Grace Hopper was a rear admiral who wrote a compiler.",
                    "runs": 3,
                    "model": "claude-sonnet-4-5",
                    "provider": "anthropic",
                    "expectedToolCalls": ["create_entities"],
                    "advancedConfig": {"system": "You keep a knowledge graph.", "toolChoice": "auto"},
                },
                {
                    "title": "What we know",
                    "query": "What do we have on file about Grace Hopper?",
                    "runs": 1,
                    "model": "claude-sonnet-4-5",
                    "provider": "anthropic",
                    "expectedToolCalls": ["search_nodes", "open_nodes"],
                    "judgeRequirement": "mentions the compiler",
                },
                {
                    "title": "Small talk",
                    "query": "How is your day going?",
                    "runs": 1,
                    "model": "deepseek-chat",
                    "provider": "deepseek",
                    "expectedToolCalls": [],
                },
            ],
            indent=2,
        )
    )
    environment = folder / "environment.json"
    environment.write_text(
        json.dumps(
            {
                "servers": {
                    "knowledge graph": {
                        "command": "node",
                        "args": [str(node_server("mcp-server-memory").resolve())],
                        "env": {"MEMORY_FILE_PATH": str(memory_file)},
                        "timeout": 20000,
                    }
                }
            }
        )
    )
    return tests, environment


def test_an_mcpjam_suite_imports_and_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    tests, environment = write_mcpjam(tmp_path, tmp_path / "graph.jsonl")
    outcome = run_main(capsys, "import", "mcpjam", tests, environment, "--out", "imported")
    assert outcome.code == 0, outcome.err
    lines = outcome.out.splitlines()
    assert lines[:3] == [
        "wrote imported/mcp-evals.yaml",
        "wrote imported/fixtures/mcpjam.yaml",
        "2 of 3 tests imported as fixtures",
    ]
    assert (
        "changed: test 2 ('What we know'): expects search_nodes, open_nodes; the fixture expects the first "
        "call, search_nodes (a sequence of calls is a session task: "
        "https://github.com/sbissoli/mcp-evals/blob/main/docs/sessions.md)" in lines
    )
    assert "changed: servers.knowledge graph.timeout: 20000 ms there is 20 s here" in lines
    assert any(line.startswith("not mapped: test 3 ('Small talk'): expects no tool call") for line in lines)
    assert "not mapped: test 2 ('What we know'): judgeRequirement" in outcome.out
    assert "not mapped: test 1 ('Remember a person'): advancedConfig.toolChoice" in outcome.out

    config = yaml.safe_load((tmp_path / "imported" / "mcp-evals.yaml").read_text())
    assert config["servers"] == [
        {
            "name": "knowledge-graph",
            "command": "node",
            "args": [str(node_server("mcp-server-memory").resolve())],
            "env": {"MEMORY_FILE_PATH": str(tmp_path / "graph.jsonl")},
            "cwd": "..",  # MCPJam starts it where its CLI runs: where the import ran
            "timeout": 20.0,
        }
    ]
    assert config["run"] == {"provider": "anthropic", "model": "claude-sonnet-4-5", "samples": 3}
    assert config["system_prompt"] == "You keep a knowledge graph."
    fixtures = yaml.safe_load((tmp_path / "imported" / "fixtures" / "mcpjam.yaml").read_text())["fixtures"]
    assert [(item["id"], item["expected_tools"]) for item in fixtures] == [
        ("remember-a-person", ["create_entities"]),
        ("what-we-know", ["search_nodes"]),
    ]
    assert "MCPJam also expected, later in its agent loop: open_nodes" in fixtures[1]["notes"]

    validated = run_main(capsys, "validate", "--config", "imported/mcp-evals.yaml")
    assert validated.code == 0, validated.out + validated.err
    assert "ok: 2 fixtures (2 select)" in validated.out

    again = run_main(capsys, "import", "mcpjam", tests, environment, "--out", "imported")
    assert again.code == 3
    assert "imported/mcp-evals.yaml exists: an import never writes over a file" in again.err


def test_an_openai_compatible_provider_and_a_wrong_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    tests = tmp_path / "tests.json"
    tests.write_text(
        json.dumps(
            [
                {"title": "a", "query": "q", "runs": 1, "model": "m", "provider": "openrouter",
                 "expectedToolCalls": ["t"]},
            ]
        )
    )  # fmt: skip
    environment = tmp_path / "env.json"
    environment.write_text(json.dumps({"servers": {"remote": {"url": "http://127.0.0.1:9/mcp"}}}))
    outcome = run_main(capsys, "import", "mcpjam", tests, environment)
    assert outcome.code == 0
    config = yaml.safe_load((tmp_path / "mcp-evals.yaml").read_text())
    assert config["run"] == {"provider": "openai", "model": "m", "base_url": "https://openrouter.ai/api/v1"}
    assert config["servers"] == [{"name": "remote", "url": "http://127.0.0.1:9/mcp"}]

    (tmp_path / "bad.json").write_text('{"servers": {"x": {"cwd": "."}}}')
    refused = run_main(capsys, "import", "mcpjam", tests, tmp_path / "bad.json", "--out", "other")
    assert refused.code == 3
    assert (
        refused.err.startswith("error: ")
        and "servers.x): a server needs `command` (stdio) or `url`" in refused.err
    )
    assert not (tmp_path / "other").exists()


def test_a_file_in_the_way_stops_the_whole_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    tests, environment = write_mcpjam(tmp_path, tmp_path / "graph.jsonl")
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "mcpjam.yaml").write_text("fixtures: []  # mine\n")
    outcome = run_main(capsys, "import", "mcpjam", tests, environment)
    assert outcome.code == 3
    assert "fixtures/mcpjam.yaml exists: an import never writes over a file" in outcome.err
    assert not (tmp_path / "mcp-evals.yaml").exists()  # nothing was written: all files or none
    assert (tmp_path / "fixtures" / "mcpjam.yaml").read_text() == "fixtures: []  # mine\n"
    inputs = run_main(capsys, "import", "mcpjam", tests, environment, "--out", tmp_path / "x")
    assert inputs.code == 0
