"""The Markdown of a validate run (report/validation.py): what the Action comments for mode=validate
and what `mcp-evals validate --format md` prints."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import cmarkgfm
from cmarkgfm.cmark import Options

from mcp_evals.catalog.lock import LockCheck, check_lock
from mcp_evals.catalog.model import Catalog, ServerInfo, build_catalog
from mcp_evals.report.escape import ZWJ
from mcp_evals.report.markdown import size_in_chars
from mcp_evals.report.validation import (
    FAILED_HEADING,
    LOCK_HEADING,
    OK_HEADING,
    SURFACE_LINES,
    render_validation_markdown,
)

from .conftest import RunCli
from .test_hostile import ALLOWED_TAGS, HOSTILE, MARKER, _parse, _Tags, _unescaped_pipes

COVERAGE = {
    "fixtures": 40,
    "kinds": {"select": 36, "refuse": 2, "clarify": 2},
    "tools": 15,
    "excluded_tools": 0,
    "covered_tools": 14,
    "areas": ["billing", "tickets", "users", "kb"],
    "covered_areas": ["billing", "tickets", "users", "kb"],
}


def problem(index: int, text: str = "", severity: str = "error") -> dict[str, Any]:
    return {
        "rule": "unknown-tool",
        "severity": severity,
        "message": f"tool {text or 'x'} is not in the catalog ({index})",
        "file": "fixtures/tickets.yaml",
        "line": index + 1,
        "fixture_id": f"f{index}",
        "config_key": None,
    }


def document(problems: list[dict[str, Any]]) -> dict[str, Any]:
    errors = sum(1 for p in problems if p["severity"] == "error")
    return {
        "ok": errors == 0,
        "errors": errors,
        "warnings": len(problems) - errors,
        "coverage": COVERAGE,
        "catalog_hash": "0" * 64,
        "problems": problems,
    }


def test_a_valid_fixture_set_is_a_heading_and_its_counts() -> None:
    assert render_validation_markdown(document([])).splitlines() == [
        OK_HEADING,
        "",
        "40 fixtures (36 select, 2 refuse, 2 clarify) · 14 of 15 tools covered · 4 of 4 areas covered · "
        "0 errors, 0 warnings",
    ]


def test_hostile_tool_names_and_messages_are_escaped() -> None:
    problems = [
        {**problem(index, text), "rule": text, "file": f"fixtures/{text}.yaml"}
        for index, text in enumerate(HOSTILE)
    ]
    text = render_validation_markdown(document(problems))
    assert text.startswith(FAILED_HEADING + "\n")
    assert MARKER not in text and "<!--" not in text  # no forged sticky-comment marker
    assert "@octocat" not in text and "#1" not in text  # no mentions, no issue links
    rendered = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    parsed = _parse(rendered)
    opened = {tag for tag in parsed.tags if not tag.startswith("/")}
    assert opened <= ALLOWED_TAGS, f"unexpected HTML from untrusted text: {opened - ALLOWED_TAGS}"
    assert "a" not in opened and "img" not in opened and "script" not in opened
    assert all(name != "href" for name, _ in parsed.attributes)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "fixtures/" in line]
    assert len(rows) == len(HOSTILE)  # a newline in a message never starts a line of its own
    assert all(_unescaped_pipes(row) == 5 for row in rows)  # a | in a message never adds a column
    assert parsed.tags.count("tr") == len(HOSTILE) + 1
    assert "@" + ZWJ + "octocat" in text


def test_many_problems_are_shortened_within_the_comment_limit_never_the_verdict() -> None:
    problems = [problem(index, "`" + "x" * 300 + "`") for index in range(3000)]
    problems += [problem(index, "w", severity="warning") for index in range(3000, 5000)]
    full = render_validation_markdown(document(problems), max_chars=None)
    assert size_in_chars(full) > 1_000_000

    text = render_validation_markdown(document(problems))  # the default: a PR comment's size
    assert 60_000 < size_in_chars(text) <= 65_000
    assert text.splitlines()[:3] == full.splitlines()[:3]
    assert text.splitlines()[0] == FAILED_HEADING
    assert "3,000 errors, 2,000 warnings" in text.splitlines()[2]
    shown = len(re.findall(r"^\| ❌ ", text, re.M))
    hidden = 5000 - shown
    assert text.rstrip().endswith(
        f"*… and {hidden:,} more problems ({3000 - shown:,} errors, 2,000 warnings) not shown here: "
        "`mcp-evals validate` lists them all.*"
    )
    assert "⚠️" not in text  # errors come first, so they are what is shown

    tiny = render_validation_markdown(document(problems), max_chars=100)  # too small for anything
    assert tiny.splitlines()[:3] == full.splitlines()[:3]
    assert "| ❌" not in tiny and "5,000 more problems (3,000 errors, 2,000 warnings)" in tiny


def test_a_table_that_fits_is_not_touched() -> None:
    problems = [problem(index) for index in range(5)]
    text = render_validation_markdown(document(problems), max_chars=10_000)
    assert text == render_validation_markdown(document(problems), max_chars=None)
    assert "not shown" not in text and len(text.splitlines()) == 3 + 3 + 5


def test_validate_format_md_prints_what_the_action_comments(tmp_path: Path, run_cli: RunCli) -> None:
    listing = [
        {"name": name, "description": "A tool.", "inputSchema": {"type": "object"}}
        for name in ("get_ticket<script>|@octocat", "list_tickets")
    ]
    servers = [{"name": "helpdesk", "transport": "stdio", "prefix": False, "tools": listing}]
    snapshot = {"format": "mcp-evals.catalog/1", "servers": servers}
    (tmp_path / "cat.json").write_text(json.dumps(snapshot), "utf-8")
    (tmp_path / "mcp-evals.yaml").write_text(
        "servers:\n  - name: helpdesk\n    snapshot: cat.json\nfixtures: fixtures.yaml\n", "utf-8"
    )
    (tmp_path / "fixtures.yaml").write_text(
        "- id: t1\n  query: show me ticket 4\n  expected_tool: get_ticket\n"
        "- id: t2\n  query: what is open?\n  expected_tool: list_tickets\n",
        "utf-8",
    )

    markdown = run_cli("validate", "--format", "md", cwd=tmp_path)
    as_json = run_cli("validate", "--format", "json", cwd=tmp_path)

    assert markdown.returncode == as_json.returncode == 1, markdown.stderr
    assert markdown.stdout == render_validation_markdown(json.loads(as_json.stdout)) + "\n"
    assert markdown.stdout.startswith(FAILED_HEADING + "\n")
    assert "<code>fixtures.yaml:3</code>" in markdown.stdout and "did you mean" in markdown.stdout
    assert "<script>" not in markdown.stdout and "@octocat" not in markdown.stdout


# -- the "Tool surface" section: the live catalog against the catalog lock --------------------------


def _catalog(*tools: dict[str, Any]) -> Catalog:
    return build_catalog([ServerInfo(name="helpdesk", transport="stdio", tools=list(tools))])


def _tool(name: str, description: str = "A tool.", **properties: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "required": []},
    }


def lock_document(lock: LockCheck, errors: int = 0) -> dict[str, Any]:
    return {**document([problem(0)] if errors else []), "ok": False, "lock": lock.model_dump(mode="json")}


def _render(text: str) -> _Tags:
    return _parse(cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE))


def test_a_matching_lock_is_one_line() -> None:
    catalog = _catalog(_tool("get_ticket"))
    check = check_lock(catalog, catalog, "evals/catalog.lock.json")
    text = render_validation_markdown({**document([]), "lock": check.model_dump(mode="json")})
    assert text.splitlines() == [
        OK_HEADING,
        "",
        "40 fixtures (36 select, 2 refuse, 2 clarify) · 14 of 15 tools covered · 4 of 4 areas covered · "
        "0 errors, 0 warnings",
        "",
        "### Tool surface",
        "",
        f"✅ catalog matches the lock (1 tool, hash <code>{catalog.hash[:12]}</code>)",
    ]


def test_a_missing_lock_says_so_with_the_fix() -> None:
    check = check_lock(_catalog(_tool("get_ticket")), None, "evals/catalog.lock.json")
    text = render_validation_markdown(lock_document(check))
    assert text.splitlines()[0] == LOCK_HEADING
    assert text.splitlines()[-3:] == [
        "❌ The catalog lock <code>evals/catalog.lock.json</code> does not exist yet.",
        "",
        "**Fix:** run `mcp-evals catalog --update-lock` and commit <code>evals/catalog.lock.json</code>; "
        "its diff in the pull request is the record.",
    ]


def test_the_tool_surface_counts_lists_and_names_the_fixtures_to_re_run() -> None:
    old = _catalog(
        _tool("search_tickets", "Search tickets.", query={"type": "string"}),
        _tool("list_tickets", "List tickets.", status={"type": "string"}),
        _tool("merge_tickets", "Merge two tickets."),
    )
    new = _catalog(
        _tool("search_tickets", "Search tickets and comments.", query={"type": "string"}),
        _tool("list_tickets", "List tickets.", status={"type": "string"}, limit={"type": "integer"}),
    )
    fixtures = {"search_tickets": ["s1", "s2", "s3"], "list_tickets": ["l1"]}
    check = check_lock(new, old, "evals/catalog.lock.json", fixtures)
    text = render_validation_markdown({**document([]), "ok": False, "lock": check.model_dump(mode="json")})
    surface = text[text.index("### Tool surface") :].splitlines()
    assert surface == [
        "### Tool surface",
        "",
        f"❌ The live catalog differs from the lock <code>evals/catalog.lock.json</code> (3 tools, hash "
        f"<code>{old.hash[:12]}</code> → 2 tools, hash <code>{new.hash[:12]}</code>): **1 breaking** · "
        "1 selection-affecting · 1 compatible.",
        "",
        "- **breaking** · <code>merge\\_tickets</code>: tool removed",
        "- **selection-affecting** · <code>search\\_tickets</code>: description changed — now: Search "
        "tickets and comments.",
        "- **compatible** · <code>list\\_tickets</code>: optional parameter <code>limit</code> added",
        "",
        "**Selection may have moved:** 3 fixtures cover <code>search\\_tickets</code>: re-run "
        "<code>mcp-evals run --only-tools search\\_tickets</code> or dispatch the paid eval.",
        "",
        "**Fix:** run `mcp-evals catalog --update-lock` and commit <code>evals/catalog.lock.json</code>; "
        "its diff in the pull request is the record.",
    ]
    assert text.splitlines()[0] == LOCK_HEADING
    # With fixture errors too, the heading says the fixtures fail; the section is the same.
    both = render_validation_markdown(lock_document(check, errors=1))
    assert both.splitlines()[0] == FAILED_HEADING and "\n".join(surface) in both


def test_hostile_tool_names_and_descriptions_in_the_tool_surface_are_escaped() -> None:
    old = _catalog(*(_tool(f"t{index}", "Old.", p={"type": "string"}) for index in range(len(HOSTILE))))
    new = _catalog(
        *(
            _tool(f"t{index}", text, p={"type": "string", "description": text}, **{text: {"type": "string"}})
            for index, text in enumerate(HOSTILE)
        ),
        *(_tool(text) for text in HOSTILE),
    )
    fixtures = {f"t{index}": [text] for index, text in enumerate(HOSTILE)}
    check = check_lock(new, old, MARKER + "lock.json", fixtures)
    assert len(check.changes) == 4 * len(HOSTILE)  # added tool, description, parameter description, parameter
    text = render_validation_markdown(lock_document(check))
    assert MARKER not in text and "<!--" not in text
    assert "@octocat" not in text and "#1" not in text
    parsed = _render(text)
    opened = {tag for tag in parsed.tags if not tag.startswith("/")}
    assert opened <= ALLOWED_TAGS, f"unexpected HTML from untrusted text: {opened - ALLOWED_TAGS}"
    assert not [name for name, _ in parsed.attributes if name.startswith("on") or name in {"href", "src"}]
    # Every change is one list item: a newline in a name or description never starts a line of its own.
    assert parsed.tags.count("li") == len(check.changes)
    assert parsed.tags.count("details") == parsed.tags.count("/details") == 1
    items = [line for line in text.splitlines() if line.startswith("- **")]
    assert len(items) == len(check.changes)
    assert len(items[:SURFACE_LINES]) == SURFACE_LINES
    assert f"<summary>{len(check.changes) - SURFACE_LINES} more changes</summary>" in text
    assert "<script>alert(1)</script>" in "".join(parsed.text)  # shown, as text


def test_a_huge_tool_surface_stays_within_the_comment_limit() -> None:
    old = _catalog(*(_tool(f"tool_{index}", "x" * 300) for index in range(3000)))
    new = _catalog(*(_tool(f"tool_{index}", "y" * 300) for index in range(3000)))
    check = check_lock(new, old, "evals/catalog.lock.json")
    text = render_validation_markdown(lock_document(check))
    assert size_in_chars(text) <= 65_000
    parsed = _render(text)
    assert parsed.tags.count("details") == parsed.tags.count("/details") == 1
    shown = len([line for line in text.splitlines() if line.startswith("- **")])
    assert SURFACE_LINES < shown < 3000
    assert f"*… and {3000 - shown} more: `mcp-evals validate` lists them all.*" in text
    assert text.rstrip().endswith("its diff in the pull request is the record.")  # the fix always shows
