"""The one did-you-mean: typos and renames are offered, guesses that share nothing are not."""

from __future__ import annotations

import pytest

from mcp_evals.suggest import Suggester, did_you_mean, edit_distance, is_typo, suggest

# server-memory's tool names, against server-everything's catalog (a config pointed at the wrong
# server): none of these is any of those.
MEMORY = (
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "read_graph",
    "search_nodes",
    "open_nodes",
)
EVERYTHING = (
    "echo",
    "get-annotated-message",
    "get-env",
    "get-resource-links",
    "get-resource-reference",
    "get-structured-content",
    "get-sum",
    "get-tiny-image",
    "gzip-file-as-resource",
    "toggle-simulated-logging",
    "toggle-subscriber-updates",
    "trigger-elicitation-request",
    "trigger-long-running-operation",
    "trigger-sampling-request",
)


@pytest.mark.parametrize("name", MEMORY)
def test_a_guess_that_shares_nothing_is_not_offered(name: str) -> None:
    # validation prefers the uncovered tools: here every tool of the catalog
    assert Suggester(EVERYTHING)(name, prefer=EVERYTHING) == []


@pytest.mark.parametrize(
    ("name", "names", "prefer", "expected"),
    [
        ("serch_nodes", ("search_nodes", "open_nodes", "read_graph"), (), ["search_nodes"]),
        ("get_ticket", ("fetch_ticket", "issue_refund"), ("fetch_ticket",), ["fetch_ticket"]),
        (
            "get_ticket",
            ("lookup_ticket_by_id", "issue_refund"),
            ("lookup_ticket_by_id",),
            ["lookup_ticket_by_id"],
        ),
        ("memory__search_nodes", ("kg__search_nodes", "kg__open_nodes"), (), ["kg__search_nodes"]),
        ("Get_Ticket", ("get_ticket", "fetch_ticket"), (), ["get_ticket"]),
        ("getTicket", ("get_ticket",), (), ["get_ticket"]),
    ],
)
def test_typos_renames_and_prefixes_are_offered(
    name: str, names: tuple[str, ...], prefer: tuple[str, ...], expected: list[str]
) -> None:
    assert Suggester(names)(name, prefer=prefer) == expected


def test_a_shared_word_alone_is_not_enough_for_a_name_nobody_prefers() -> None:
    # lookup_ticket_by_id shares "ticket" with get_ticket; only as a likely rename is it offered
    assert suggest("get_ticket", ["lookup_ticket_by_id"]) == []


def test_did_you_mean_reads_in_every_callers_style() -> None:
    assert did_you_mean(["a"]) == " — did you mean 'a'?"
    assert did_you_mean(["a", "b"], lead="; ", quote=lambda n: f"`{n}`") == "; did you mean `a` or `b`?"
    assert did_you_mean([]) == ""


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [("read_grpah", "read_graph", 1), ("kitten", "sitting", 3), ("ca", "abc", 3), ("same", "same", 0)],
)
def test_edit_distance_counts_an_adjacent_swap_as_one(a: str, b: str, distance: int) -> None:
    assert edit_distance(a, b) == distance
    assert edit_distance(a, b, limit=1) == min(distance, 2)


def test_a_typo_is_a_keystroke_or_two() -> None:
    assert is_typo("read_grpah", "read_graph") and is_typo("get_tickte", "get_ticket")
    assert not is_typo("get_ticket", "fetch_ticket")
