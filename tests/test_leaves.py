"""The shared rules below every package (statistics, words, did-you-mean) import the standard library only."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "mcp_evals"


@pytest.mark.parametrize("leaf", ["stats.py", "text.py", "suggest.py", "verbs.py"])
def test_a_shared_rule_is_a_leaf_on_the_standard_library(leaf: str) -> None:
    tree = ast.parse((SOURCE / leaf).read_text("utf-8"))
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    allowed = set(sys.stdlib_module_names) | {"__future__", "mcp_evals.text"}
    assert {name if name.startswith("mcp_evals") else name.split(".")[0] for name in imported} <= allowed
