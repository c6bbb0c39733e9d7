"""``mcp-evals audit``: one server, no config, every free check, one score; as a user runs it.

Real servers only: the npm server-memory, the plain JSON-RPC ``conformance_server.py`` (strict,
sloppy, poisoned), an SDK server over HTTP. Each run is a real ``mcp-evals`` process.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import RunCli
from mcp_evals.lint.audit import AuditReport
from mcp_evals.lint.probe import marked_safe
from support.catalog_helpers import PYTHON, SERVERS, free_port, node_server, serve_http

SARIF_SCHEMA = json.loads((Path(__file__).parents[1] / "lint" / "sarif-schema-2.1.0.json").read_text("utf-8"))
CONFORMANCE = SERVERS / "conformance_server.py"


def test_server_memory_in_an_empty_folder(tmp_path: Path, run_cli: RunCli) -> None:
    memory = node_server("mcp-server-memory")
    result = run_cli("audit", "--format", "json", "--command", memory, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = AuditReport.model_validate_json(result.stdout)
    [server] = report.servers
    assert (server.server_name, server.tools, server.resources) == ("memory-server", 9, 1)
    assert [row.key for row in report.categories] == ["quality", "security", "protocol", "resources"]
    rules = {finding.rule for finding in report.lint.findings}
    assert {"S001", "C001", "P001", "P002", "P006"} <= rules
    assert not any(rule.startswith("X") for rule in rules)
    assert report.score == round(sum(row.score * row.weight for row in report.categories))
    assert list(tmp_path.iterdir()) == []  # nothing written: no config, no memory file, no report


def test_its_sarif_validates_and_locates_every_result(tmp_path: Path, run_cli: RunCli) -> None:
    memory = node_server("mcp-server-memory")
    out = tmp_path / "audit.sarif"
    result = run_cli("audit", "--format", "sarif", "--output", out, "--command", memory, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    log = json.loads(out.read_text("utf-8"))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "mcp-evals audit"
    assert isinstance(run["properties"]["auditScore"], int)
    assert run["results"] and all(result["locations"][0]["physicalLocation"] for result in run["results"])


def test_a_poisoned_server_is_capped_fails_under_and_its_sarif_carries_security_severity(
    tmp_path: Path, run_cli: RunCli
) -> None:
    sarif = tmp_path / "poisoned.sarif"
    args = ["--fail-under", "60", "--command", PYTHON, CONFORMANCE, "poisoned"]
    result = run_cli("audit", "--format", "sarif", "--output", sarif, *args, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    log = json.loads(sarif.read_text("utf-8"))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert {"X001", "X002", "X003"} <= set(rules)
    assert rules["X001"]["properties"]["security-severity"] == "8.0"
    assert log["runs"][0]["properties"]["auditScore"] == 59
    text = run_cli("audit", *args, cwd=tmp_path)
    assert text.returncode == 1
    assert "capped: 3 security errors: the score is capped at 59" in text.stdout
    assert "U+200B ZERO WIDTH SPACE ×2" in text.stdout and "\u200b" not in text.stdout
    assert text.stdout.rstrip().splitlines()[-1].startswith("FAILED: score 59/100 (below --fail-under 60)")


def test_a_strict_server_scores_full_protocol_and_the_probe_never_calls_a_destructive_tool(
    tmp_path: Path, run_cli: RunCli
) -> None:
    calls = tmp_path / "calls.ndjson"
    result = run_cli(
        "audit",
        "--format",
        "json",
        "--env",
        f"CALLS_FILE={calls}",
        "--fail-under",
        "50",
        "--command",
        PYTHON,
        CONFORMANCE,
        "strict",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    report = AuditReport.model_validate_json(result.stdout)
    protocol = next(row for row in report.categories if row.key == "protocol")
    assert (protocol.score, protocol.detail) == (100, "8 of 8 checks pass")
    assert report.not_probed == ["delete_forecasts"]
    called = [json.loads(line) for line in calls.read_text("utf-8").splitlines()]
    assert [call["name"] for call in called] == ["get_forecast", "mcp_evals_no_such_tool"]
    assert all(call["arguments"] == {} for call in called)


def test_markdown_for_a_job_summary(tmp_path: Path, run_cli: RunCli) -> None:
    result = run_cli("audit", "--format", "md", "--command", PYTHON, CONFORMANCE, "sloppy", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert (
        lines[0].startswith("### 🛡️ mcp-evals audit: ")
        and "| quality | security | protocol |" in result.stdout
    )
    assert "2026-07-28 readiness of &#x27;sloppy&#x27;: 0 of 3 checks pass" in result.stdout
    assert "| 0 <sub>(0 of 7 checks pass)</sub> |" in result.stdout
    assert "[P001](https://github.com/sbissoli/mcp-evals/blob/main/docs/lint.md#p001)" in result.stdout


def test_an_http_server_by_url(tmp_path: Path, run_cli: RunCli) -> None:
    port = free_port()
    with serve_http([PYTHON, SERVERS / "toy_server.py", "--http", str(port)], port) as base:
        result = run_cli("audit", "--format", "json", "--url", f"{base}/mcp", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = AuditReport.model_validate_json(result.stdout)
    assert report.target == f"{base}/mcp" and report.servers[0].transport == "streamable-http"
    assert report.conformance[0].notes  # the readiness checks that need stdio were not assessed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give one of --command, --url or --config"),
        (("--url", "http://127.0.0.1:9/mcp", "--command", "x"), "not --command and --url"),
        (("--env", "1BAD", "--command", "x"), "--env '1BAD': expected NAME=VALUE or NAME"),
        (("--command", "mcp-evals-no-such-server-here"), "command not found"),
    ],
)
def test_bad_input_is_one_message_and_exit_3(
    tmp_path: Path, run_cli: RunCli, args: tuple[str, ...], message: str
) -> None:
    result = run_cli("audit", *args, cwd=tmp_path)
    assert result.returncode == 3
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("annotations", "task", "safe"),
    [
        ({"readOnlyHint": True}, None, True),
        ({"destructiveHint": False}, None, True),
        ({"readOnlyHint": True}, "required", False),
        ({"destructiveHint": True}, None, False),
        (None, None, False),  # unmarked: the protocol's default is destructive
        ({"readOnlyHint": False}, "optional", False),
    ],
)
def test_which_tools_the_probe_may_call(
    annotations: dict[str, object] | None, task: str | None, safe: bool
) -> None:
    assert marked_safe(annotations, task) is safe
