"""Fixtures for the scoring and report tests: handmade records and golden files."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

CheckGolden = Callable[[str, str], None]
RunCli = Callable[..., subprocess.CompletedProcess[str]]  # the root conftest's ``run_cli`` fixture


@pytest.fixture
def golden() -> CheckGolden:
    """Compare text with ``golden/NAME``; ``UPDATE_GOLDEN=1 pytest tests/report`` rewrites the files."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if UPDATE:
            path.write_text(text, encoding="utf-8", newline="\n")
            return
        assert path.exists(), f"{path} is missing: run UPDATE_GOLDEN=1 pytest tests/report"
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"{name} differs from its golden file (UPDATE_GOLDEN=1 to accept the change)"

    return check
