"""The confusion score's features, one by one, and the comparison of large catalogs (lint.pairs)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_evals.catalog.model import ServerInfo, Tool, build_catalog
from mcp_evals.lint.actions import action_of, relation, verb_of
from mcp_evals.lint.context import LintContext
from mcp_evals.lint.engine import lint
from mcp_evals.lint.pairs import CANDIDATE_DF

from .helpers import catalog, found, tool


def one(name: str, description: str, **options: Any) -> Tool:
    return catalog(tool(name, description, **options)).tools[0]


def scores(source: Any) -> dict[tuple[str, str], float]:
    context = LintContext(catalog=source)
    names = [item.name for item in source.tools]
    return {
        (first, second): context.score_of(first, second)
        for index, first in enumerate(names)
        for second in names[index + 1 :]
    }


@pytest.mark.parametrize(
    ("word", "verb"),
    [
        ("Retrieves", "retrieve"),
        ("searches", "search"),
        ("finding", "find"),
        ("Copies", None),
        ("Monitor", None),
    ],
)
def test_a_verb_is_read_through_its_inflection(word: str, verb: str | None) -> None:
    assert verb_of(word) == verb


def test_the_verb_is_the_descriptions_opening_word_else_the_names_else_the_opening_words() -> None:
    # "search_feedback" sends feedback: the description's first word beats the name's first verb.
    feedback = action_of(one("search_feedback", "Send feedback on a search result so we can improve it."))
    assert (feedback.verb, feedback.kind) == ("send", "create")
    status = action_of(one("monitor_get", "Returns one monitor with its configuration and current state."))
    assert (status.verb, status.kind) == ("get", "read")
    late = action_of(one("monitor_delete", "Permanently delete a monitor and stop its schedule."))
    assert (late.verb, late.kind) == ("delete", "delete")
    assert late.objects == {"monitor"}


def test_without_a_verb_a_declared_read_only_hint_gives_the_kind() -> None:
    listing = tool("agent", "Autonomous research agent on the open web, for questions that span many sites.")
    writes = build_catalog(
        [ServerInfo(name="s", transport="stdio", tools=[{**listing, "annotations": {"readOnlyHint": False}}])]
    ).tools[0]
    assert action_of(writes).kind == "write"
    assert (
        action_of(
            one("agent", "Autonomous research agent on the open web, for questions that span many sites.")
        ).kind
        is None
    )


def test_objects_come_from_the_name_and_the_required_parameters_not_their_handles() -> None:
    thread = action_of(
        one(
            "slack_reply_to_thread",
            "Reply to a specific message thread in Slack.",
            params={"channel_id": "string", "thread_ts": "string", "text": "string"},
            required=["channel_id", "thread_ts", "text"],
        ),
        frozenset({"slack"}),
    )
    assert thread.objects == {"thread", "channel"}  # not "id", "ts", "text", "slack", "to"


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("Create multiple new entities in the graph.", "Delete multiple entities from the graph.", "opposed"),
        ("Get one monitor by its id.", "Update a monitor's schedule.", "opposed"),
        ("Start an interact session on a page.", "Stop the interact session of a page.", "opposed"),
        ("Update a monitor's schedule.", "Delete a monitor for good.", "other"),
        ("Extract structured data from a web page.", "Scrape the content of one web page.", "kin"),
        ("Create a new issue.", "Add a new issue.", "same"),
        ("Autonomous research agent.", "Get one monitor by its id.", "unknown"),
    ],
)
def test_how_two_actions_relate(first: str, second: str, expected: str) -> None:
    assert relation(action_of(one("a_tool", first)), action_of(one("b_tool", second))) == expected


GRAPH = "in the knowledge graph with their names, types and observations"


def test_opposite_actions_on_one_object_score_lower_than_one_verb_on_sibling_objects() -> None:
    source = catalog(
        tool("create_entities", f"Create multiple new entities {GRAPH}.", params={"entities": "array"}),
        tool("create_relations", f"Create multiple new relations {GRAPH}.", params={"relations": "array"}),
        tool("delete_relations", f"Delete multiple relations {GRAPH}.", params={"relations": "array"}),
    )
    found_scores = scores(source)
    opposite = found_scores[("create_relations", "delete_relations")]
    siblings = found_scores[("create_entities", "create_relations")]
    assert siblings > opposite
    assert [pair.tools for pair in lint(source).predicted_pairs][:1] == [
        ("create_entities", "create_relations")
    ]


def test_a_parameter_most_tools_share_says_less_than_a_rare_one() -> None:
    def file_tool(name: str, description: str, parameter: str = "path") -> dict[str, Any]:
        return tool(name, description, params={parameter: "string"}, required=[parameter])

    common = [
        file_tool(
            "read_media_file", "Read an image or audio file and return it as base64 with its MIME type."
        ),
        file_tool("get_file_info", "Retrieve size, times and permissions of a file without reading it."),
        file_tool("create_directory", "Create a folder, with its missing parents, if it is not there yet."),
        file_tool("list_directory", "Show the entries of one folder, files and folders marked apart."),
    ]
    rare = [
        file_tool(
            "read_media_file",
            "Read an image or audio file and return it as base64 with its MIME type.",
            "blob",
        ),
        file_tool(
            "get_file_info", "Retrieve size, times and permissions of a file without reading it.", "blob"
        ),
        *common[2:],
    ]
    assert (
        scores(catalog(*common))[("read_media_file", "get_file_info")]
        < scores(catalog(*rare))[("read_media_file", "get_file_info")]
    )


def test_a_description_that_names_the_other_tool_adds_to_the_score() -> None:
    quiet = catalog(
        tool("extract_data", "Pull structured fields out of pages with a language model."),
        tool("scrape_page", "Fetch one page's content as markdown or HTML."),
    )
    named = catalog(
        tool("extract_data", "Pull structured fields out of pages; for a whole page, scrape page is better."),
        tool("scrape_page", "Fetch one page's content as markdown or HTML, or extract data as JSON."),
    )
    assert scores(named)[("extract_data", "scrape_page")] > scores(quiet)[("extract_data", "scrape_page")]


def test_a_description_that_states_its_boundary_answers_d006() -> None:
    neighbours = (
        tool(
            "read_file",
            "Read the complete contents of a file from the file system as text.",
            params={"path": "string"},
        ),
        tool(
            "read_text_file",
            "Read the complete contents of a file from the file system as text, in any encoding.",
        ),
    )
    assert [finding.tools for finding in found("D006", catalog(*neighbours))]
    bounded = (
        neighbours[0],
        tool(
            "read_text_file",
            "Read the complete contents of a file from the file system as text, in any encoding. Not "
            "recommended for images: they come back as base64.",
        ),
    )
    assert ("read_text_file", "read_file") not in [
        finding.tools for finding in found("D006", catalog(*bounded))
    ]


def test_names_one_edit_apart_are_no_near_duplicates_when_their_actions_are_opposite() -> None:
    source = catalog(
        tool("get_user", "Return one user's profile with their name, email and team."),
        tool("set_user", "Change one user's profile: their name, email or team."),
        tool("get_users", "Return every user of the workspace, one page at a time."),
    )
    assert [finding.tools for finding in found("N002", source)] == [("get_user", "get_users")]


def numbered(count: int) -> list[dict[str, Any]]:
    return [
        tool(
            f"query_table_t{number:04d}",
            f"Run a read-only SQL query against warehouse table t{number:04d} and return up to 100 rows.",
            params={"sql": "string"},
            required=["sql"],
        )
        for number in range(count)
    ]


def test_tools_the_same_but_for_a_number_are_one_family_reported_once_with_its_size() -> None:
    source = catalog(
        *numbered(60), tool("send_email", "Send an email to one recipient; returns its message id.")
    )
    report = lint(source)
    by_rule = {
        rule: [finding for finding in report.findings if finding.rule == rule]
        for rule in ("N002", "D005", "C001")
    }
    assert [len(findings) for findings in by_rule.values()] == [1, 1, 1]
    assert "60 names that differ only by a number" in by_rule["N002"][0].message
    assert "and 58 more tools the same but for a number" in by_rule["C001"][0].message
    [pair] = report.predicted_pairs
    assert (pair.tools, pair.family) == (("query_table_t0000", "query_table_t0001"), 60)
    context = LintContext(catalog=source)
    assert context.score_of("query_table_t0007", "query_table_t0042") == pytest.approx(pair.score, abs=1e-3)


def test_a_large_catalog_still_finds_its_look_alikes_among_thousands_of_pairs() -> None:
    areas = [f"area{chr(97 + index // 26)}{chr(97 + index % 26)}" for index in range(CANDIDATE_DF + 40)]
    tools = [
        tool(f"archive_{area}", f"Archive the {area} records of one account; returns how many were moved.")
        for area in areas
    ]
    tools += [
        tool(
            "search_tickets",
            "Find support tickets by words in their subject or comments; best matches first.",
        ),
        tool("list_tickets", "List support tickets by status and assignee, newest first; no word search."),
    ]
    report = lint(catalog(*tools))
    assert ("search_tickets", "list_tickets") in [pair.tools for pair in report.predicted_pairs]


def test_a_kept_pairs_score_is_the_score_any_two_tools_get() -> None:
    source = catalog(
        tool("create_entities", f"Create multiple new entities {GRAPH}.", params={"entities": "array"}),
        tool("create_relations", f"Create multiple new relations {GRAPH}.", params={"relations": "array"}),
    )
    context = LintContext(catalog=source)
    [pair] = context.pairs.kept
    assert context.score_of(*pair.tools) == pytest.approx(pair.score, abs=1e-4)


def test_docs_lint_md_gives_the_score_with_these_weights() -> None:
    from pathlib import Path

    from mcp_evals.lint import pairs

    docs = (Path(__file__).resolve().parents[2] / "docs" / "lint.md").read_text("utf-8")
    formula = (
        f"factor × ({pairs.DESCRIPTION_WEIGHT:g} description + {pairs.NAME_WEIGHT:g} name + "
        f"{pairs.PARAMETER_WEIGHT:g} parameters + {pairs.ACTION_WEIGHT:g} action + "
        f"{pairs.MENTION_WEIGHT:g} mentions)"
    )
    assert formula in docs
    assert f"{pairs.FACTORS['opposed']:g} when the actions are opposed" in docs
    assert f"past {pairs.CANDIDATE_DF} tools" in docs and f"keeps its {pairs.NEIGHBOURS} strongest" in docs
