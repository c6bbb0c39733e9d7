"""Fixtures for the scoring and report tests: handmade records, golden files, and one Chromium."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import pytest
from playwright.sync_api import Browser

from .pages import CHROMIUM, MERMAID_JS, connect, start_chromium

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


def _missing(what: str, how: str) -> NoReturn:
    """Fail in CI (a browser test must never be skipped there), skip with the reason elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing: scripts/bootstrap must {how}")
    pytest.skip(f"{what} is missing: {how} (scripts/bootstrap does)")


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Debian's Chromium for one test module (about 1 CPU-s to start): its DevTools address. One
    Chromium for a whole worker's session once stopped answering Playwright's connection (30 s, after
    the websocket opened) for the next module, on a machine with more workers than cores: what a
    module leaves in a browser no longer reaches the next module."""
    if not CHROMIUM.exists():
        _missing(str(CHROMIUM), "install Debian's chromium with apt-get")
    if not MERMAID_JS.exists():
        _missing(str(MERMAID_JS), "run `npm ci` in tests/report/browser")
    with start_chromium(tmp_path_factory.mktemp("chromium")) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Browser]:
    """Playwright connected to the module's Chromium (see ``pages``: why not longer)."""
    with connect(chromium) as connected:
        yield connected
