"""verbs.py: the one table of action verbs, and the three readers that draw their sets from it (init's
areas, lint's verb kinds, lint's D007)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lint.helpers import catalog, tool
from mcp_evals import verbs
from mcp_evals.fixtures.scaffold import subject
from mcp_evals.lint.actions import action_of, verb_of
from mcp_evals.lint.engine import lint
from mcp_evals.lint.text import canonical_parts

SOURCE = Path(__file__).resolve().parents[1] / "src" / "mcp_evals"


def test_each_verb_is_listed_once_and_every_set_is_drawn_from_the_table() -> None:
    listed = [verb for words in verbs._BY_KIND.values() for verb in words.split()]
    assert len(listed) == len(set(listed)) == len(verbs.VERBS)
    nouns_too = verbs._NOUNS_TOO.split()
    assert len(nouns_too) == len(set(nouns_too))
    assert verbs.VERB_OR_NOUN <= verbs.VERBS
    assert set(verbs._LEADING_NOUNS_TOO.split()) <= verbs.VERB_OR_NOUN
    assert set(verbs.KIND) <= verbs.VERBS and set(verbs.KIND.values()) == {
        "read",
        "create",
        "update",
        "delete",
        "start",
        "stop",
    }
    assert {verb for group in verbs.VERB_GROUPS for verb in group} <= verbs.VERBS
    assert verbs.VERB_ONLY | verbs.VERB_OR_NOUN == verbs.VERBS
    assert verbs.SYNONYM["fetch"] == "get" and verbs.SYNONYM["get"] == "get"


def test_no_other_module_keeps_a_verb_list_of_its_own() -> None:
    """The three lists that disagreed (init's, lint's kinds, D007's) are gone: a module that needs verbs
    imports them from verbs.py."""
    offenders = []
    for path in sorted(SOURCE.rglob("*.py")):
        if path.name == "verbs.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [target.id for target in targets if isinstance(target, ast.Name)]
                if any(re.fullmatch(r"_?(TOOL_)?VERBS|VERB_\w+|SYNONYM|_KINDS", name) for name in names):
                    offenders.append(f"{path.relative_to(SOURCE)}: {names}")
    assert offenders == []


@pytest.mark.parametrize(
    ("name", "about"),
    [
        ("get_ticket", "ticket"),
        ("list_open_tickets", "ticket"),
        ("issue_refund", "refund"),
        ("issue_read", "issue"),
        # verbs lint knew and init did not: init took the verb for what the tool is about
        ("abort_job", "job"),
        ("halt_pipeline", "pipeline"),
        ("unregister_webhook", "webhook"),
        ("new_ticket", "ticket"),
        ("get_comments", "comment"),
    ],
)
def test_init_finds_what_a_name_is_about_past_its_verbs(name: str, about: str) -> None:
    assert subject(name) == about


def test_comment_is_a_verb_only_as_a_names_first_word() -> None:
    """`comment` is a verb lint knows (kind create) and a noun as often: a verb only when it leads."""
    assert "comment" in verbs.VERB_OR_NOUN and verbs.KIND["comment"] == "create"
    assert subject("comment_on_issue") == "issue"
    assert subject("list_comment_threads") == subject("add_comment") == "comment"


@pytest.mark.parametrize(
    ("word", "verb", "kind"),
    [("Aborting", "abort", "stop"), ("Retrieves", "retrieve", "read"), ("Copies", None, None)],
)
def test_lint_reads_a_verbs_kind_from_the_table(word: str, verb: str | None, kind: str | None) -> None:
    assert verb_of(word) == verb
    if verb is not None:
        assert verbs.KIND[verb] == kind


def test_lint_merges_synonyms_from_the_table() -> None:
    assert canonical_parts("fetch_ticket") == canonical_parts("get_ticket")
    [made] = catalog(tool("fetch_ticket", "Fetches one ticket by its id; returns the ticket.")).tools
    assert action_of(made).verb == "get"


def mentions(description: str) -> list[str]:
    report = lint(catalog(tool("reply_ticket", description), tool("search_tickets", index=1)))
    return [finding.message for finding in report.findings if finding.rule == "D007"]


def test_d007_reads_a_word_in_prose_as_a_tool_name_by_any_verb_only_word() -> None:
    """D007 knew 41 verbs: `archive_ticket` (a renamed tool, say) passed unnoticed."""
    for name in ("fetch_ticket", "archive_ticket", "publish_reply", "run_query"):
        assert mentions(f"Reply on a ticket; then use {name}. Returns the reply.") == [
            f"the description of 'reply_ticket' mentions {name!r}, which is no tool of this catalog"
        ]
    # a word that is a noun as often is no tool's name: an option, a field
    for name in ("changeTracking", "store_id", "count_only", "search_tickets"):
        assert mentions(f"Reply on a ticket; set {name} as needed. Returns the reply.") == []
