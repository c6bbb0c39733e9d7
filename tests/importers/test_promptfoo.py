"""`mcp-evals import promptfoo`: a promptfooconfig.yaml with an `mcp` provider (its documented format,
our own content) becomes a config and contract cases that `contract validate` passes and that run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from support.catalog_helpers import node_server
from support.validate_helpers import run_main


def promptfoo_config(memory: str) -> dict[str, Any]:
    return {
        "description": "The memory server, tool by tool",
        "prompts": ["{{ prompt }}"],
        "providers": [
            {
                "id": "mcp",
                "config": {
                    "enabled": True,
                    "timeout": 20000,
                    "defaultArgs": {},
                    "server": {
                        "command": "node",
                        "args": [memory],
                        "name": "memory",
                        "env": {"MEMORY_FILE_PATH": "{{ env.MCP_EVALS_TEST_GRAPH }}"},
                    },
                },
            },
            {
                "id": "anthropic:messages:claude-sonnet-4-5",
                "config": {
                    "mcp": {
                        "enabled": True,
                        "server": {
                            "url": "http://127.0.0.1:9/mcp",
                            "name": "remote notes",
                            "auth": {"type": "bearer", "token": "{{ env.NOTES_TOKEN }}"},
                        },
                    }
                },
            },
        ],
        "defaultTest": {"assert": [{"type": "not-contains", "value": "Traceback"}]},
        "tests": [
            {
                "description": "store a person",
                "vars": {
                    "prompt": '{"tool": "create_entities", "args": {"entities": [{"name": "Hopper", '
                    '"entityType": "person", "observations": ["wrote a compiler"]}]}}'
                },
                "assert": [
                    {"type": "contains", "value": "Hopper"},
                    {"type": "is-json"},
                    {"type": "latency", "threshold": 15000},
                ],
            },
            {
                "description": "find her",
                "vars": {"prompt": '{"tool": "search_nodes", "args": {"query": "Hopper"}}'},
                "assert": [
                    {"type": "icontains", "value": "COMPILER"},
                    {"type": "contains-all", "value": ["Hopper", "person"]},
                    {"type": "javascript", "value": "output.length > 10"},
                ],
            },
            {
                "description": "a rubric",
                "vars": {"prompt": '{"tool": "read_graph", "args": {}}'},
                "assert": [{"type": "llm-rubric", "value": "lists Hopper", "threshold": 0.8}],
            },
            {"vars": {"prompt": "not a tool call"}},
        ],
    }


def test_a_promptfoo_mcp_suite_imports_validates_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCP_EVALS_TEST_GRAPH", str(tmp_path / "graph.jsonl"))
    monkeypatch.setenv("NOTES_TOKEN", "not-used")
    source = tmp_path / "promptfooconfig.yaml"
    source.write_text(yaml.safe_dump(promptfoo_config(str(node_server("mcp-server-memory").resolve()))))
    outcome = run_main(capsys, "import", "promptfoo", source)
    assert outcome.code == 0, outcome.err
    assert outcome.out.splitlines()[:5] == [
        "wrote mcp-evals.yaml",
        "wrote evals/contract/store-a-person.yaml",
        "wrote evals/contract/find-her.yaml",
        "wrote evals/contract/a-rubric.yaml",
        "2 servers; 3 cases from the mcp provider's tests",
    ]
    assert (
        "not mapped: tests[1].assert[3]: assert javascript (no equivalent in a contract case)" in outcome.out
    )
    assert "not mapped: tests[3]: vars.prompt is not a tool call" in outcome.out
    assert "not mapped: providers[1] (anthropic:messages:claude-sonnet-4-5): its tests judge a model's" in (
        outcome.out
    )
    assert "changed: tests[2].assert[1]: llm-rubric is asked of an OpenAI-compatible judge" in outcome.out

    config = yaml.safe_load((tmp_path / "mcp-evals.yaml").read_text())
    assert config["servers"][0]["env"] == {"MEMORY_FILE_PATH": "${MCP_EVALS_TEST_GRAPH}"}
    assert config["servers"][1] == {
        "name": "remote-notes",
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"Authorization": "Bearer ${NOTES_TOKEN}"},
    }
    assert config["contract"] == {"cases": "evals/contract", "timeout_ms": 20000}
    found = yaml.safe_load((tmp_path / "evals" / "contract" / "find-her.yaml").read_text())
    assert found["server"] == "memory"
    assert found["steps"][0]["expect"] == {
        "output_not_contains": "Traceback",
        "output_matches": "(?i)COMPILER",
        "output_contains": ["Hopper", "person"],
    }
    rubric = yaml.safe_load((tmp_path / "evals" / "contract" / "a-rubric.yaml").read_text())
    assert rubric["steps"][0]["expect"]["llm_judge"]["min_score"] == 0.8

    validated = run_main(capsys, "contract", "validate")
    assert validated.code == 0, validated.out + validated.err
    assert validated.out.strip() == "ok: 3 cases: 3 checked against a catalog; 0 problems"
    # Each case gets a server of its own; the graph file they share carries the person across.
    for name in ("store a person", "find her"):
        ran = run_main(capsys, "contract", "--no-history", "--case", name)
        assert ran.code == 0, ran.out + ran.err


def test_a_config_without_an_mcp_server_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "promptfooconfig.yaml"
    source.write_text(yaml.safe_dump({"providers": ["openai:gpt-5.4-mini"], "tests": []}))
    outcome = run_main(capsys, "import", "promptfoo", source)
    assert outcome.code == 3
    assert "promptfooconfig.yaml: no MCP server in its providers" in outcome.err
    assert not (tmp_path / "mcp-evals.yaml").exists()
