"""docs/audit.md: its side-by-side tables are what bench/peers.py renders from the measured results,
and the measured behaviour is what the live tests see.

The peers are never run here (they are not the project's dependencies, and the tests stay offline):
bench/peers/results.json keeps what they found; tests/servers/test_conformance_reference.py checks
mcp-evals' own answers on the live servers.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from servers.test_conformance_reference import EXPECTED_ACCEPTED

REPO = Path(__file__).resolve().parents[2]


def peers_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_peers", REPO / "bench" / "peers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_peers"] = module
    spec.loader.exec_module(module)
    return module


def test_the_tables_are_current() -> None:
    peers = peers_script()
    document = (REPO / "docs" / "audit.md").read_text("utf-8")
    table = peers.render(json.loads(peers.RESULTS.read_text("utf-8")))
    assert peers.splice(document, table) == document, "run `python bench/peers.py --write`"


def test_mcpscore_and_mcp_evals_saw_the_same_conformance_behaviour() -> None:
    found = json.loads((REPO / "bench" / "peers" / "results.json").read_text("utf-8"))["servers"]
    for name, methods in EXPECTED_ACCEPTED.items():
        assert found[name]["mcpscore"]["invalid_cursor"] == sorted(methods), name
        assert found[name]["mcp-evals"]["invalid_cursor"] == sorted(methods), name
        typescript = name in ("memory", "everything", "filesystem")
        assert found[name]["mcpscore"]["unknown_tool_failed"] is typescript, name
        assert found[name]["mcp-evals"]["unknown_tool"] == ("isError" if typescript else "error -32602"), name


def test_every_verdict_row_names_rules_that_exist() -> None:
    from mcp_evals.lint.rules import all_rules

    known = {rule.id for rule in all_rules()}
    for row in peers_script().ROWS:
        assert {rule.split(":")[0] for rule in row.ours} <= known, row.label
        assert row.verdict, row.label
