"""The one tokenizer and stemmer: the lexical baseline and the lint read a text as the same words."""

from __future__ import annotations

import pytest

from mcp_evals import text
from mcp_evals.lint.context import LintContext
from mcp_evals.providers import lexical
from support.records import catalog, tool

DESCRIPTION = (
    "Creates a ticket for the customer's request using the getHTTPServer settings; "
    "created tickets are searchable, and creating one notifies the team."
)


def test_the_lexical_baseline_and_the_lint_read_a_description_as_the_same_words() -> None:
    described = tool("create_ticket", "tickets", DESCRIPTION)
    linted = LintContext(catalog(described)).description_words[0]
    assert lexical.words(DESCRIPTION) == [stemmed for stemmed, _ in linted]
    assert set(lexical.words(DESCRIPTION)) <= set(lexical.tool_words(described))


def test_words_split_camel_case_drop_stopwords_and_meet_at_one_stem() -> None:
    assert text.tokens("getHTTPServer by_id") == ["get", "http", "server", "by", "id"]
    found = text.words(DESCRIPTION)
    assert "using" not in found and "the" not in found
    assert found.count(text.stem("ticket")) == 2  # "ticket" and "tickets"
    assert text.stem("creates") == text.stem("created") == text.stem("creating") == text.stem("create")


@pytest.mark.parametrize(
    ("name", "parts"),
    [("getUserById", ["get", "user", "by", "id"]), ("get-user_by.id", ["get", "user", "by", "id"])],
)
def test_name_parts(name: str, parts: list[str]) -> None:
    assert text.name_parts(name) == parts
