"""The lint on real servers nobody here wrote: the npm reference servers and mcp-server-time (PyPI).

Each server is read live, as `mcp-evals lint` reads it, and linted on its own. The grades and
findings asserted here are the ones docs/lint.md quotes.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
from pathlib import Path

import pytest

from conftest import HELPDESK, RunCli, one_worker
from mcp_evals.lint.engine import lint
from mcp_evals.lint.model import LintReport
from mcp_evals.servers.extract import extract_catalog
from support.catalog_helpers import PYTHON, REPO_ROOT, node_server, write_config

# the module-scoped servers: started once, on one worker
pytestmark = one_worker(__name__)

SERVERS = {
    "memory": ("mcp-server-memory", []),
    "everything": ("mcp-server-everything", ["stdio"]),
    "filesystem": ("mcp-server-filesystem", ["{folder}"]),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, LintReport]:
    folder = tmp_path_factory.mktemp("filesystem-root")
    found = {}
    for name in ("memory", "everything", "filesystem", "time"):
        if name == "time":
            command, args = PYTHON, ["-m", "mcp_server_time"]
        else:
            package_bin, raw = SERVERS[name]
            command, args = str(node_server(package_bin)), [arg.format(folder=folder) for arg in raw]
        config = write_config(
            tmp_path_factory.mktemp(name), [{"name": name, "command": command, "args": args, "timeout": 60}]
        )
        found[name] = lint(extract_catalog(config))
    return found


def rules(report: LintReport) -> set[str]:
    return {finding.rule for finding in report.findings}


def test_the_reference_servers_grades(reports: dict[str, LintReport]) -> None:
    grades = {name: report.grade.letter for name, report in reports.items()}
    assert grades == {"memory": "C", "everything": "A", "filesystem": "D", "time": "A"}
    assert reports["time"].findings == []


def test_filesystem_documents_none_of_its_paths(reports: dict[str, LintReport]) -> None:
    report = reports["filesystem"]
    undocumented = {
        (finding.tools[0], finding.parameter) for finding in report.findings if finding.rule == "S001"
    }
    assert ("read_text_file", "path") in undocumented and ("move_file", "destination") in undocumented
    pairs = [pair.tools for pair in report.predicted_pairs]
    assert ("list_directory", "list_directory_with_sizes") in pairs
    assert ("read_file", "read_text_file") in pairs
    assert any(
        finding.rule == "T003" and "allowed directories" in finding.message for finding in report.findings
    )


def test_memory_predicts_the_pair_a_model_confused_and_no_create_delete_pair(
    reports: dict[str, LintReport],
) -> None:
    """mcpgrade's calibration saw create_relations taken for create_entities; create and delete of one
    object are opposite actions, which a request tells apart."""
    report = reports["memory"]
    pairs = [pair.tools for pair in report.predicted_pairs]
    assert ("create_entities", "create_relations") in pairs
    assert not any(
        {first.split("_")[0], second.split("_")[0]} == {"create", "delete"} for first, second in pairs
    )
    assert {"S001", "C001", "D005"} <= rules(report)


def test_everything_has_a_short_description_and_mixes_no_styles_on_its_own(
    reports: dict[str, LintReport],
) -> None:
    report = reports["everything"]
    assert [finding.tools for finding in report.findings if finding.rule == "D002"] == [("echo",)]
    assert "N001" not in rules(report)  # all kebab-case: consistent on its own


def test_servers_of_mixed_styles_in_one_config_mix_conventions(tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        [
            {"name": "memory", "command": str(node_server("mcp-server-memory")), "timeout": 60},
            {
                "name": "everything",
                "command": str(node_server("mcp-server-everything")),
                "args": ["stdio"],
                "prefix": True,
                "timeout": 60,
            },
        ],
    )
    report = lint(extract_catalog(config))
    [mixed] = [finding for finding in report.findings if finding.rule == "N001"]
    assert "kebab-case" in mixed.message and "snake_case" in mixed.message


def test_the_helpdesk_prediction_against_the_lexical_baseline(tmp_path: Path, run_cli: RunCli) -> None:
    """The figures docs/lint.md quotes: the lexical baseline's run on examples/helpdesk, then the lint."""
    results = tmp_path / "lexical.ndjson"
    config = HELPDESK / "mcp-evals.yaml"
    ran = run_cli("run", "--config", config, "--provider", "lexical", "--results", results)
    assert ran.returncode in (0, 1), ran.stderr
    linted = run_cli("lint", "--config", config, "--results", results, "--format", "json")
    assert linted.returncode == 0, linted.stderr
    check = LintReport.model_validate_json(linted.stdout).prediction
    assert check is not None and check.catalog_matches
    assert (check.predicted, check.hits, check.observed) == (4, 0, 19)
    assert [pair.tools for pair in LintReport.model_validate_json(linted.stdout).predicted_pairs] == [
        ("search_tickets", "list_tickets"),
        ("list_invoices", "get_invoice"),
        ("search_articles", "get_article"),
        ("issue_refund", "apply_account_credit"),
    ]
    assert not any(pair.predicted for pair in check.observed_pairs)


REFERENCE = REPO_ROOT / "tests" / "reference-servers"
MEASURED = re.compile(
    r"Measured on\s+`@modelcontextprotocol/server-everything`, `-filesystem` and `-memory` "
    r"(?P<servers>[\d.]+), "
    r"whose SDK is\s+`@modelcontextprotocol/sdk` (?P<sdk>[\d.]+) with `zod` (?P<zod>[\d.]+).*?"
    r"`mcp-server-time` (?P<time>[\d.]+)",
    re.DOTALL,
)


def measured_versions() -> dict[str, str]:
    docs = (REPO_ROOT / "docs" / "lint.md").read_text("utf-8")
    found = MEASURED.search(docs)
    assert found, "docs/lint.md no longer states the versions the reference grades were measured on"
    servers = found["servers"]
    return {
        "node_modules/@modelcontextprotocol/server-everything": servers,
        "node_modules/@modelcontextprotocol/server-filesystem": servers,
        "node_modules/@modelcontextprotocol/server-memory": servers,
        "node_modules/@modelcontextprotocol/sdk": found["sdk"],
        "node_modules/zod": found["zod"],
        "mcp-server-time": found["time"],
    }


def test_the_lockfile_pins_the_versions_docs_lint_md_states() -> None:
    wanted = measured_versions()
    lock = json.loads((REFERENCE / "package-lock.json").read_text("utf-8"))
    assert {key: lock["packages"][key]["version"] for key in wanted if key.startswith("node_modules/")} == {
        key: value for key, value in wanted.items() if key.startswith("node_modules/")
    }
    declared = json.loads((REFERENCE / "package.json").read_text("utf-8"))["dependencies"]
    assert set(declared.values()) == {
        wanted["node_modules/@modelcontextprotocol/server-memory"]
    }  # exact pins
    pyproject = (REPO_ROOT / "pyproject.toml").read_text("utf-8")
    assert f'"mcp-server-time=={wanted["mcp-server-time"]}"' in pyproject


def test_the_installed_servers_are_the_ones_the_grades_were_measured_on() -> None:
    node_server("mcp-server-memory")  # fails in CI, skips elsewhere, when `npm ci` has not run
    wanted = measured_versions()
    for key, version in wanted.items():
        if key.startswith("node_modules/"):
            installed = json.loads((REFERENCE / key / "package.json").read_text("utf-8"))["version"]
            assert installed == version, (
                f"{key} {installed} is installed; run `npm ci` in tests/reference-servers"
            )
    assert importlib.metadata.version("mcp-server-time") == wanted["mcp-server-time"]


def test_a_missing_reference_server_fails_in_ci_and_never_skips_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="scripts/bootstrap must run `npm ci`"):
        node_server("mcp-server-that-is-not-installed")
