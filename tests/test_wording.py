"""How counts read: one plural, one number format, and no hand-made `(s)` in any message; and how
a message names a docs page."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from mcp_evals.wording import docs_url, noun, number, plural

SOURCE = Path(__file__).resolve().parents[1] / "src" / "mcp_evals"


def test_plural_number_and_noun() -> None:
    assert plural(1, "fix", "fixes") == "1 fix" and plural(0, "fix", "fixes") == "0 fixes"
    assert plural(1753, "token") == "1,753 tokens" and number(4096) == "4,096"
    assert noun(1, "covers", "cover") == "covers" and noun(2, "typo") == "typos"


def test_no_message_pluralises_by_hand() -> None:
    """`1 sample(s)`, `1 fix(es)`, `case{'s' if …}`: every count in a message goes through ``plural``."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.JoinedStr):
                continue
            for part in node.values:  # `case{'s' if n != 1 else ''}`
                value = part.value if isinstance(part, ast.FormattedValue) else None
                if isinstance(value, ast.IfExp) and "'s'" in {
                    ast.unparse(value.body),
                    ast.unparse(value.orelse),
                }:
                    found.append(f"{path.relative_to(SOURCE)}:{node.lineno}: {ast.unparse(value)}")
            for before, part in zip(node.values, node.values[1:], strict=False):
                counted = isinstance(before, ast.FormattedValue) and isinstance(part, ast.Constant)
                if counted and re.match(r" [a-z][a-z ]*\((e?s)\)", str(part.value)):
                    found.append(f"{path.relative_to(SOURCE)}:{node.lineno}: {part.value}")
    assert found == []


def test_a_docs_page_is_named_by_its_address_on_github() -> None:
    assert docs_url("lint.md#x001") == "https://github.com/sbissoli/mcp-evals/blob/main/docs/lint.md#x001"
