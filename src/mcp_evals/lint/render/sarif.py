"""The lint as SARIF 2.1.0, for GitHub code scanning (``github/codeql-action/upload-sarif``).

Code scanning shows only results with a physical location, so every result has one: the fixture's
line, or the config line of the server that publishes the tool, or the config's `servers:` /
`fixtures:` line for findings about the whole catalog or fixture set. Ignored findings stay in the
log as suppressed results (``suppressions``), with the reason from `lint.ignore`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath
from typing import Any

from mcp_evals._version import __version__
from mcp_evals.lint.model import CATEGORY_NAMES, Finding, LintReport
from mcp_evals.lint.rules import all_rules
from mcp_evals.report.escape import plain
from mcp_evals.wording import docs_url

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
DOCS_URI = docs_url("lint.md")
TOOL_NAME = "mcp-evals lint"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
FINGERPRINT_KEY = "mcpEvalsLint/v1"


def artifact_uri(file: str) -> str:
    """A repository-relative URI (forward slashes); an absolute path becomes a ``file://`` URI, and a URL
    (an audited HTTP server) stays as it is."""
    if "://" in file:
        return file
    path = Path(file)
    if path.is_absolute():
        return path.as_uri()
    return str(PurePosixPath(*path.parts)) if path.parts else file


def fingerprint(finding: Finding) -> str:
    """Stable across runs and line moves: the rule and what it is about, not the wording or the line."""
    parts = [finding.rule, *finding.tools, finding.fixture_id or "", finding.parameter or ""]
    if finding.subject is not None:  # added later: the fingerprints of findings without one stay
        parts.append(finding.subject)
    key = "\x1f".join(parts)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _rule(rule_id: str) -> dict[str, Any]:
    item = next(rule for rule in all_rules() if rule.id == rule_id)
    properties: dict[str, Any] = {"tags": ["mcp", CATEGORY_NAMES[item.category]]}  # type: ignore[index]
    if item.security_severity is not None:
        if "security" not in properties["tags"]:
            properties["tags"].append("security")
        properties["security-severity"] = f"{item.security_severity:.1f}"
    return {
        "id": item.id,
        "name": "".join(word.capitalize() for word in item.title.replace("-", " ").split() if word.isalnum()),
        "shortDescription": {"text": item.title},
        "fullDescription": {"text": item.why},
        "help": {"text": item.fix},
        "helpUri": f"{DOCS_URI}#{item.id.lower()}",
        "defaultConfiguration": {"level": LEVELS[item.severity]},
        "properties": properties,
    }


def _result(finding: Finding, index: int, default_file: str) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(finding.file or default_file)},
            "region": {"startLine": max(1, finding.line or 1)},
        }
    }
    if finding.tools:
        location["logicalLocations"] = [
            {"name": plain(name, 200), "kind": "function"} for name in finding.tools
        ]
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": index,
        "level": LEVELS[finding.severity],
        "message": {"text": plain(finding.message, 1000)},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(finding)},
    }
    if finding.suppressed is not None:
        result["suppressions"] = [{"kind": "external", "justification": plain(finding.suppressed, 500)}]
    return result


def sarif_document(report: LintReport, *, default_file: str = "mcp-evals.yaml") -> dict[str, Any]:
    """The SARIF log of a lint report; ``default_file`` locates a finding that has no file."""
    rule_ids = sorted({finding.rule for finding in report.findings}, key=report.rules_run.index)
    rules = [_rule(rule_id) for rule_id in rule_ids]
    index = {rule_id: position for position, rule_id in enumerate(rule_ids)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": __version__,
                        "informationUri": DOCS_URI,
                        "rules": rules,
                    }
                },
                "results": [
                    _result(finding, index[finding.rule], default_file) for finding in report.findings
                ],
                "properties": {
                    "grade": report.grade.letter,
                    "score": report.grade.score,
                    "catalogHash": report.catalog_hash,
                },
            }
        ],
    }


def render_sarif(report: LintReport, *, default_file: str = "mcp-evals.yaml") -> str:
    return json.dumps(sarif_document(report, default_file=default_file), indent=2, ensure_ascii=False)
