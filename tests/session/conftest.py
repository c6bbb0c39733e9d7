"""Fixtures for the session tests: the Helpdesk example with its operations tools over HTTP, task sets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.catalog_helpers import HELPDESK_SERVER, PYTHON, free_port, serve_http


@pytest.fixture(scope="session")
def ops_url() -> Iterator[str]:
    """The Helpdesk example with --ops-tools, Streamable HTTP on loopback: one process for the module,
    a fresh MCP session for every mcp-evals session. Tests use its tools that change nothing."""
    port = free_port()
    argv = [PYTHON, str(HELPDESK_SERVER), "--http", "--ops-tools", "--host", "127.0.0.1", "--port", str(port)]
    with serve_http(argv, port) as base:
        yield f"{base}/mcp"


def write_tasks(folder: Path, url: str, tasks: list[dict[str, Any]], **extra: Any) -> Path:
    """A task-set file against the server at ``url`` (JSON is YAML too)."""
    document: dict[str, Any] = {
        "name": "ops",
        "server": {"url": url},
        "system_prompt": "You are the helpdesk's assistant.",
        "arms": {
            "A": {"system_prompt_addition": "Results may carry `diagnostics`."},
            "B": {"transforms": [{"remove_field": "diagnostics"}]},
        },
        "timeouts": {"step_seconds": 5, "session_seconds": 60},
        "tasks": tasks,
        **extra,
    }
    path = folder / "tasks.yaml"
    path.write_text(json.dumps(document, indent=2))
    return path


def write_config(folder: Path, **run: Any) -> Path:
    """A config whose `run:` settings make retries quick (its server is never contacted)."""
    path = folder / "mcp-evals.yaml"
    document = {
        "servers": [{"name": "unused", "url": "http://127.0.0.1:9/mcp"}],
        "run": {"max_attempts": 2, "max_wait": 0.05, "timeout": 10, **run},
    }
    path.write_text(json.dumps(document))
    return path


MISSING_JOB = {
    "id": "missing-job",
    "prompt": "Check sync job SYNC-404.",
    "expected_tools": ["get_sync_job"],
    "script": [{"tool": "get_sync_job", "arguments": {"job_id": "SYNC-404"}, "expect_error": True}],
    "answer": {"regex": "(?i)does not exist"},
    "trap": "repeat_after_error",
    "max_steps": 8,
}
SALESFORCE = {
    "id": "salesforce-sync",
    "prompt": "Orbital Coffee's Salesforce sync SYNC-7 failed: get it running again.",
    "expected_tools": ["get_sync_job"],
    "script": [{"tool": "get_sync_job", "arguments": {"job_id": "SYNC-7"}}],
    "answer": {"regex": "(?i)reconnect"},
    "trap": "insistence",
    "max_steps": 8,
}
EU_STATUS = {
    "id": "eu-latency",
    "prompt": "Is the EU region healthy?",
    "expected_tools": ["get_service_status"],
    "script": [{"tool": "get_service_status", "arguments": {"region": "eu"}}],
    "answer": {"contains": "degraded"},
    "trap": "unstable_value",
    "max_steps": 6,
}
