"""What a new user met: serve's validate_fixtures said ok while `validate` failed, raw pydantic and
uvicorn text, a missing Python module without the interpreter hint, YAML 1.1 values shown converted,
a wrong base URL retried for long and reported without the URL."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
import yaml

from conftest import Cli
from mcp_evals.config.load import load_config
from mcp_evals.contract.load import ContractSetup
from mcp_evals.serve.harness import Harness


def locked_project(root: Path, snapshot: Path, cli: Cli) -> Path:
    """A snapshot config whose catalog lock lacks one of the live tools."""
    shutil.copy(snapshot, root / "catalog.json")
    (root / "fixtures.yaml").write_text(
        yaml.safe_dump(
            {"fixtures": [{"id": "f1", "query": "Show me ticket 4512", "expected_tools": ["get_ticket"]}]}
        )
    )
    config = root / "mcp-evals.yaml"
    document = {
        "servers": [{"name": "helpdesk", "snapshot": "catalog.json"}],
        "fixtures": "fixtures.yaml",
        "catalog": {"lock": "catalog.lock.json"},
    }
    config.write_text(yaml.safe_dump(document))
    assert cli("catalog", "--config", config, "--update-lock").code == 0
    lock = json.loads((root / "catalog.lock.json").read_text())
    lock["servers"][0]["tools"] = lock["servers"][0]["tools"][1:]
    (root / "catalog.lock.json").write_text(json.dumps(lock))
    return config


def test_serve_validate_fixtures_says_what_validate_says(
    tmp_path: Path, helpdesk_snapshot: Path, cli: Cli
) -> None:
    config = locked_project(tmp_path, helpdesk_snapshot, cli)
    command = cli("validate", "--config", config, "--format", "json")
    assert command.code == 1  # the catalog differs from its lock
    expected = json.loads(command.out)
    harness = Harness(ContractSetup.of(load_config(config)))
    served = anyio.run(harness.validate_fixtures).model_dump()
    assert served["ok"] is False and expected["ok"] is False
    assert served["coverage"] == expected["coverage"] and served["catalog_hash"] == expected["catalog_hash"]
    assert served["lock"] == expected["lock"] and served["lock"]["status"] != "matches"
    assert (served["errors"], served["warnings"]) == (expected["errors"], expected["warnings"])
