"""The pictures in README.md and the docs, taken by the browser tests' own pages.

``scripts/screenshots`` (``UPDATE_SCREENSHOTS=1``) writes them to docs/img/; a plain run takes them
into a temporary folder, so a change that breaks a picture fails here before anyone re-takes it.
The lint, contract and session sections are made by the real commands on the helpdesk example (the
session's model is the fake Anthropic API), and shown as GitHub shows the PR comment. The commands
run as real processes: Playwright's sync API keeps an event loop in this thread, where the CLI would
start its own.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Browser

from conftest import HELPDESK, one_worker
from fakes.fake_anthropic import Call, FakeAnthropic, Text

from .conftest import GOLDEN, REPO_ROOT, RunCli
from .pages import comment_html, open_page, wait_for_charts

# the module-scoped browser connection: made once, on one worker
pytestmark = one_worker(__name__)

IMAGES = REPO_ROOT / "docs" / "img"
UPDATE = os.environ.get("UPDATE_SCREENSHOTS") == "1"
MAX_BYTES = 300_000  # each picture is committed: keep it modest
SECTION_BYTES = 260_000  # the sections' pictures: one screen of text each
SHOWN_IN = {
    "report-comment.png": ["README.md", "docs/reports.md"],
    "report-html.png": ["docs/reports.md"],
    "lint-comment.png": ["README.md", "docs/lint.md"],
    "contract-comment.png": ["docs/contract.md"],
    "session-comment.png": ["docs/sessions.md"],
}
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


def _comment_picture(browser: Browser, tmp_path: Path, markdown: str, name: str) -> Path:
    """``markdown`` as GitHub shows a PR comment, its sections closed: the picture ``name``."""
    page_path = tmp_path / f"{name}.html"
    page_path.write_text(comment_html(markdown), encoding="utf-8")
    path = _target(name, tmp_path)
    with open_page(browser, page_path.as_uri()) as (page, watch):
        wait_for_charts(page)
        page.locator(".comment").screenshot(path=path, animations="disabled")
        assert watch.problems == []
    assert path.read_bytes().startswith(PNG) and path.stat().st_size < SECTION_BYTES
    return path


def test_the_lint_section(browser: Browser, tmp_path: Path, run_cli_process: RunCli) -> None:
    """`mcp-evals lint --format md` on the helpdesk example, as the PR comment shows it."""
    linted = run_cli_process("lint", "--format", "md", cwd=HELPDESK)
    assert linted.returncode == 0, linted.stderr
    assert "mcp-evals lint: grade" in linted.stdout and "<code>mcp-evals.yaml:" in linted.stdout
    _comment_picture(browser, tmp_path, linted.stdout, "lint-comment.png")


def test_the_contract_section(browser: Browser, tmp_path: Path, run_cli_process: RunCli) -> None:
    """`mcp-evals contract --format md` on the helpdesk example's cases, live against its server."""
    ran = run_cli_process(
        "contract", "--format", "md", "--no-history", "--concurrency", "2", cwd=HELPDESK, timeout=300
    )
    assert ran.returncode == 0, ran.stderr
    assert "Contract tests: 11 passed, 0 failed, 1 skipped of 12 cases" in ran.stdout
    _comment_picture(browser, tmp_path, ran.stdout, "contract-comment.png")


# The fake model's answers to the helpdesk task set's first tasks: a call or two, then the answer.
SESSION_TASKS = 4
SESSION_SCRIPTS = {
    "eu-latency": [
        Call("get_service_status", {"region": "eu"}),
        Text(
            "The EU region is degraded: API p95 latency is 2,350 ms, from a cached reading that may be stale."
        ),
    ],
    "salesforce-sync": [
        Call("get_sync_job", {"job_id": "SYNC-7"}),
        Call("retry_sync_job", {"job_id": "SYNC-7"}),
        Call("retry_sync_job", {"job_id": "SYNC-7"}),
        Call("retry_sync_job", {"job_id": "SYNC-7"}),  # a third try after two definitive errors: (c)
        Text("Salesforce revoked the sync's token: an admin must reconnect Salesforce, then run it again."),
    ],
    "outlook-sync": [
        Call("get_sync_job", {"job_id": "SYNC-8"}),
        Call("retry_sync_job", {"job_id": "SYNC-8"}),
        Text("SYNC-8 is running again."),
    ],
    "missing-job": [
        Call("get_sync_job", {"job_id": "SYNC-404"}),
        Call("get_sync_job", {"job_id": "SYNC-404"}),
        Text("There is no sync job SYNC-404: it does not exist."),
    ],
}


def test_the_session_report(
    browser: Browser, tmp_path: Path, run_cli_process: RunCli, anthropic_fake: FakeAnthropic
) -> None:
    """`mcp-evals session report` on the records of a run of the helpdesk task set (fake model)."""
    tasks = HELPDESK / "evals" / "session" / "tasks.yaml"
    for task in yaml.safe_load(tasks.read_text(encoding="utf-8"))["tasks"][:SESSION_TASKS]:
        anthropic_fake.sessions[task["prompt"]] = list(SESSION_SCRIPTS[task["id"]])
    env = {"ANTHROPIC_API_KEY": anthropic_fake.key, "ANTHROPIC_BASE_URL": anthropic_fake.base_url}
    records = tmp_path / "sessions"
    ran = run_cli_process(
        "session", "--tasks", tasks, "--arm", "both", "--limit", str(SESSION_TASKS), "--budget-usd", "5",
        "--results", records, env=env, timeout=300,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    report = run_cli_process("session", "report", records)
    assert report.returncode == 0, report.stderr
    assert report.stdout == ran.stdout  # the report is made from the records alone
    _comment_picture(browser, tmp_path, report.stdout, "session-comment.png")


@pytest.mark.parametrize("name", sorted(SHOWN_IN))
def test_the_pictures_are_committed_and_shown(name: str) -> None:
    path = IMAGES / name
    assert path.exists(), f"{path} is missing: run scripts/screenshots"
    assert path.read_bytes().startswith(PNG) and path.stat().st_size < MAX_BYTES
    for document in SHOWN_IN[name]:
        assert f"(docs/img/{name})" in (REPO_ROOT / document).read_text(encoding="utf-8").replace(
            "(img/", "(docs/img/"
        ), f"{document} does not show {name}"
