"""bench/contract_startup.py times the same cases in our format and in mcp-assert's: both suites run
and pass here, each case against a fresh npm server-memory with a store of its own."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from support.catalog_helpers import REPO_ROOT
from support.validate_helpers import run_main


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "contract_startup", REPO_ROOT / "bench" / "contract_startup.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmarks_two_suites_are_the_same_passing_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours, theirs = bench().write_suites(tmp_path, 3)
    names = []
    for folder, compat in ((ours, "none"), (theirs, "mcp-assert")):
        ran = run_main(
            capsys, "contract", "--fixtures", folder, "--compat", compat, "--no-history", "--format", "json"
        )
        assert ran.code == 0, ran.out + ran.err
        cases = json.loads(ran.out)["run"]["cases"]
        assert [case["status"] for case in cases] == ["passed"] * 3
        names.append([case["name"] for case in cases])
    assert names[0] == names[1] == ["create 0", "read 1", "search 2"]
    stores = sorted(path.name for path in tmp_path.glob("memory-3-*.jsonl"))
    assert stores == ["memory-3-0.jsonl", "memory-3-1.jsonl", "memory-3-2.jsonl"]  # a store per case
