"""The pictures in README.md and docs/reports.md, taken by the browser tests' own pages.

``scripts/screenshots`` (``UPDATE_SCREENSHOTS=1``) writes them to docs/img/; a plain run takes them
into a temporary folder, so a change that breaks a picture fails here before anyone re-takes it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from .conftest import GOLDEN, REPO_ROOT
from .pages import comment_html, open_page, wait_for_charts

IMAGES = REPO_ROOT / "docs" / "img"
UPDATE = os.environ.get("UPDATE_SCREENSHOTS") == "1"
MAX_BYTES = 300_000  # each picture is committed: keep it modest
SHOWN_IN = {"report-comment.png": ["README.md", "docs/reports.md"], "report-html.png": ["docs/reports.md"]}
PNG = b"\x89PNG\r\n\x1a\n"


def _target(name: str, tmp_path: Path) -> Path:
    return (IMAGES if UPDATE else tmp_path) / name


def test_the_html_report(browser: Browser, tmp_path: Path) -> None:
    """The golden helpdesk report, its fixtures filtered to the failing ones."""
    path = _target("report-html.png", tmp_path)
    with open_page(browser, (GOLDEN / "helpdesk.html").as_uri()) as (page, watch):
        page.select_option("#filter-status", "fail")
        page.screenshot(path=path, full_page=True, animations="disabled")
        assert watch.problems == []
    assert path.read_bytes().startswith(PNG) and path.stat().st_size < MAX_BYTES


def test_the_pr_comment(browser: Browser, tmp_path: Path) -> None:
    """The golden helpdesk Markdown report as GitHub shows the PR comment (its sections closed)."""
    page_path = tmp_path / "comment.html"
    page_path.write_text(comment_html((GOLDEN / "helpdesk.md").read_text(encoding="utf-8")), encoding="utf-8")
    path = _target("report-comment.png", tmp_path)
    with open_page(browser, page_path.as_uri()) as (page, watch):
        assert wait_for_charts(page) == 1
        page.locator(".comment").screenshot(path=path, animations="disabled")
        assert watch.problems == []
    assert path.read_bytes().startswith(PNG) and path.stat().st_size < MAX_BYTES


@pytest.mark.parametrize("name", sorted(SHOWN_IN))
def test_the_pictures_are_committed_and_shown(name: str) -> None:
    path = IMAGES / name
    assert path.exists(), f"{path} is missing: run scripts/screenshots"
    assert path.read_bytes().startswith(PNG) and path.stat().st_size < MAX_BYTES
    for document in SHOWN_IN[name]:
        assert f"(docs/img/{name})" in (REPO_ROOT / document).read_text(encoding="utf-8").replace(
            "(img/", "(docs/img/"
        ), f"{document} does not show {name}"
