"""validate_fixtures: a pure check of fixtures against a catalog, one rule at a time."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_evals import Problem, ValidationOptions, validate_fixtures
from mcp_evals.catalog.model import Tool
from mcp_evals.fixtures.model import Fixture, SourceLocation
from mcp_evals.fixtures.validate import coverage, has_errors, locate_in_config, normalize_query
from mcp_evals.fixtures.validate.schema_check import SchemaChecks
from validate_helpers import AREAS, catalog_of, helpdesk_catalog, wire_tool

CATALOG = helpdesk_catalog()
EVERYTHING_COVERED = [
    ("search_tickets", "Any open tickets about the login page?"),
    ("get_ticket", "Show me ticket 4521"),
    ("issue_refund", "Refund invoice INV-9 please"),
    ("search_articles", "How do I reset 2FA?"),
    ("debug_dump", "dump your state"),
]


def fixture(id: str, query: str | None = None, *, line: int = 1, **fields: Any) -> Fixture:
    made = Fixture.model_validate({"id": id, "query": query or f"query for {id}", **fields})
    made.source = SourceLocation(file="evals/f.yaml", line=line)
    return made


def covered(*extra: Fixture) -> list[Fixture]:
    base = [
        fixture(f"f{n}", query, expected_tool=tool, line=n)
        for n, (tool, query) in enumerate(EVERYTHING_COVERED)
    ]
    return [*base, *extra]


def rules(problems: list[Problem]) -> list[tuple[str, str]]:
    return [(problem.rule, problem.severity) for problem in problems]


def only(problems: list[Problem], rule: str) -> list[Problem]:
    return [problem for problem in problems if problem.rule == rule]


def test_a_good_set_is_valid() -> None:
    assert validate_fixtures(covered(), CATALOG) == []


def test_every_problem_has_rule_severity_location_and_message() -> None:
    problems = validate_fixtures(covered(fixture("bad", expected_tool="nope", line=40)), CATALOG)
    assert problems == [
        Problem(
            rule="unknown-tool",
            severity="error",
            message="tool 'nope' is not in the catalog (5 tools; `mcp-evals catalog` lists them)",
            file="evals/f.yaml",
            line=40,
            fixture_id="bad",
        )
    ]
    assert str(problems[0]) == (
        "evals/f.yaml:40: error [unknown-tool] tool 'nope' is not in the catalog (5 tools; "
        "`mcp-evals catalog` lists them)"
    )
    assert has_errors(problems)


def test_an_unknown_tool_reads_as_a_rename() -> None:
    renamed = catalog_of(
        *[
            tool if tool["name"] != "get_ticket" else {**tool, "name": "fetch_ticket"}
            for tool in CATALOG.servers[0].tools
        ]
    )
    problems = validate_fixtures(covered(), renamed)
    assert [p.message for p in only(problems, "unknown-tool")] == [
        "tool 'get_ticket' is not in the catalog — did you mean 'fetch_ticket'?"
    ]
    # the new name is no fixture's yet, and says where its fixtures went
    assert [p.message for p in only(problems, "uncovered-tool")] == [
        "tool 'fetch_ticket' (area 'helpdesk') has no fixture; probably renamed from 'get_ticket', "
        "which fixtures still expect (see unknown-tool)"
    ]


def test_a_rename_to_a_less_similar_name_is_still_suggested_when_it_is_uncovered() -> None:
    renamed = catalog_of(
        *[
            tool if tool["name"] != "get_ticket" else {**tool, "name": "lookup_ticket_by_id"}
            for tool in CATALOG.servers[0].tools
        ]
    )
    (problem,) = only(validate_fixtures(covered(), renamed), "unknown-tool")
    assert problem.message.endswith("did you mean 'lookup_ticket_by_id'?")


def test_case_differences_are_suggested() -> None:
    (problem,) = validate_fixtures(covered(fixture("x", expected_tool="Get_Ticket")), CATALOG)
    assert problem.message == "tool 'Get_Ticket' is not in the catalog — did you mean 'get_ticket'?"


def test_ids_must_be_unique() -> None:
    problems = validate_fixtures(
        covered(fixture("f1", "another question", expected_tool="get_ticket", line=30)), CATALOG
    )
    assert rules(problems) == [("duplicate-id", "error")]
    assert problems[0].message == "id 'f1' is already used at evals/f.yaml:1"
    assert problems[0].line == 30


@pytest.mark.parametrize(
    "query", ["show me TICKET 4521!", "  Show me, ticket 4521?  ", "show   me ticket 4521"]
)
def test_queries_must_be_unique_ignoring_case_spaces_and_punctuation(query: str) -> None:
    problems = validate_fixtures(covered(fixture("dup", query, expected_tool="get_ticket", line=9)), CATALOG)
    assert rules(problems) == [("duplicate-query", "error")]
    assert "'dup' asks the same as 'f1' (evals/f.yaml:1)" in problems[0].message


def test_normalize_query() -> None:
    assert normalize_query("  Où est l'ÉTÉ ?! ") == "où est l été"
    assert normalize_query("ticket #4521") != normalize_query("ticket 4522")


def test_select_needs_a_tool_and_refuse_or_clarify_have_none() -> None:
    problems = validate_fixtures(
        covered(
            fixture("s", "select nothing"),
            fixture("r", "refuse but expect", kind="refuse", expected_tool="get_ticket"),
            fixture("c", "clarify with args", kind="clarify", expected_args={"ticket_id": "1"}),
            fixture("ok-r", "what's the weather", kind="refuse"),
            fixture("ok-c", "refund my invoice", kind="clarify"),
        ),
        CATALOG,
    )
    assert rules(problems) == [
        ("select-without-tools", "error"),
        ("refuse-with-tools", "error"),
        ("clarify-with-args", "error"),
    ]
    assert "set `kind: refuse`" in problems[0].message


def test_a_tool_listed_twice_is_a_warning() -> None:
    problems = validate_fixtures(covered(fixture("x", expected_tools=["get_ticket", "get_ticket"])), CATALOG)
    assert rules(problems) == [("duplicate-expected-tool", "warning")]


def test_excluded_tools_are_never_expected_and_never_uncovered() -> None:
    fixtures = [f for f in covered() if f.expected_tools != ["debug_dump"]]
    assert validate_fixtures(fixtures, CATALOG, exclude_tools=["debug_*"]) == []
    problems = validate_fixtures(covered(), CATALOG, exclude_tools=["debug_dump"])
    assert rules(problems) == [("excluded-tool-expected", "error")]
    assert problems[0].fixture_id == "f4"


def test_an_exclude_entry_that_matches_nothing_is_a_warning() -> None:
    problems = validate_fixtures(covered(), CATALOG, exclude_tools=["debug_dumps"])
    assert [(p.rule, p.config_key) for p in problems] == [("exclude-unmatched", ("exclude_tools", 0))]
    assert problems[0].message.endswith("did you mean 'debug_dump'?")


def test_expected_args_only_name_parameters_of_the_tool() -> None:
    problems = validate_fixtures(
        covered(fixture("x", expected_tool="get_ticket", expected_args={"ticket": "4521"})), CATALOG
    )
    assert rules(problems) == [("unknown-argument", "error")]
    assert problems[0].message == (
        "expected_args.ticket: get_ticket has no parameter 'ticket' — did you mean 'ticket_id'?"
    )
    problems = validate_fixtures(
        covered(fixture("y", expected_tool="debug_dump", expected_args={"x": 1})), CATALOG
    )
    assert problems[0].message == "expected_args.x: debug_dump has no parameter 'x' (it takes none)"


def test_with_several_expected_tools_an_argument_may_belong_to_any() -> None:
    ok = fixture(
        "x", expected_tools=["search_tickets", "search_articles"], expected_args={"limit": 5, "query": "2FA"}
    )
    assert validate_fixtures(covered(ok), CATALOG) == []


def test_a_free_form_tool_accepts_any_argument_name() -> None:
    catalog = catalog_of({"name": "run", "inputSchema": {"type": "object", "additionalProperties": True}})
    assert (
        validate_fixtures([fixture("x", expected_tool="run", expected_args={"anything": 1})], catalog) == []
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"include_comments": "yes"},
            "'yes' does not fit get_ticket's 'include_comments': 'yes' is not of type 'boolean'",
        ),
        ({"ticket_id": 4521}, "4521 does not fit get_ticket's 'ticket_id': 4521 is not of type 'string'"),
        (
            {"ticket_id": {"contain": "45"}},
            "{'contain': '45'} does not fit get_ticket's 'ticket_id': {'contain': '45'} is not of type "
            "'string' — did you mean the matcher `contains`?",
        ),
    ],
)
def test_literals_type_check_against_the_parameter_schema(args: dict[str, Any], message: str) -> None:
    problems = validate_fixtures(
        covered(fixture("x", expected_tool="get_ticket", expected_args=args)), CATALOG
    )
    assert [(p.rule, p.message) for p in problems] == [
        ("argument-type", f"expected_args.{next(iter(args))}: {message}")
    ]


def test_schemas_with_refs_are_followed() -> None:
    good = fixture("g", expected_tool="search_tickets", expected_args={"status": "open"})
    bad = fixture("b", "b", expected_tool="search_tickets", expected_args={"status": "closed"})
    problems = validate_fixtures(covered(good, bad), CATALOG)
    assert [(p.fixture_id, p.rule) for p in problems] == [("b", "argument-type")]
    assert "'closed' is not one of ['open', 'pending', 'solved']" in problems[0].message


def test_matchers_are_checked_too() -> None:
    problems = validate_fixtures(
        covered(
            fixture(
                "one-of",
                "a",
                expected_tool="search_tickets",
                expected_args={"status": {"one_of": ["open", "gone"]}},
            ),
            fixture(
                "regex", "b", expected_tool="search_tickets", expected_args={"query": {"regex": "login("}}
            ),
            fixture(
                "contains", "c", expected_tool="search_articles", expected_args={"limit": {"contains": "5"}}
            ),
            fixture(
                "contains-ok",
                "d",
                expected_tool="search_articles",
                expected_args={"query": {"contains": "2fa"}},
            ),
            fixture("any", "e", expected_tool="issue_refund", expected_args={"amount": {"any": True}}),
            fixture(
                "nested",
                "f",
                expected_tool="search_tickets",
                expected_args={"status": {"one_of": [{"contains": "op"}, "pending"]}},
            ),
        ),
        CATALOG,
    )
    assert [(p.fixture_id, p.rule) for p in problems] == [
        ("one-of", "argument-type"),
        ("regex", "invalid-regex"),
        ("contains", "argument-type"),
    ]
    assert "one_of[1] 'gone' does not fit search_tickets's 'status'" in problems[0].message
    assert "regex 'login(' does not compile" in problems[1].message
    assert (
        "`contains` only applies to text, but search_articles's 'limit' takes integer" in problems[2].message
    )


def test_a_broken_tool_schema_does_not_break_validation() -> None:
    catalog = catalog_of(wire_tool("odd", n={"type": "strng"}, m={"$ref": "#/nowhere"}))
    assert (
        validate_fixtures([fixture("x", expected_tool="odd", expected_args={"n": 1, "m": 2})], catalog) == []
    )


def test_fixture_areas_must_be_known() -> None:
    problems = validate_fixtures(covered(fixture("x", expected_tool="get_ticket", area="ticket")), CATALOG)
    assert [(p.rule, p.message) for p in problems] == [
        ("unknown-area", "area 'ticket' is not a known area — did you mean 'tickets'?")
    ]


def test_fixture_counts_are_checked() -> None:
    options = ValidationOptions(min_fixtures=6, max_fixtures=10)
    problems = validate_fixtures(covered(), CATALOG, options)
    assert [(p.rule, p.config_key, p.file) for p in problems] == [
        ("too-few-fixtures", ("validation", "min_fixtures"), None)
    ]
    assert problems[0].message == "5 fixtures; `validation.min_fixtures` asks for at least 6"
    many = covered(*[fixture(f"m{n}", f"more {n}", expected_tool="get_ticket") for n in range(6)])
    assert rules(validate_fixtures(many, CATALOG, options)) == [("too-many-fixtures", "error")]
    assert (
        rules(validate_fixtures([], CATALOG))
        == [("no-fixtures", "warning")] + [("uncovered-tool", "warning")] * 5
    )


def test_covered_areas_are_counted() -> None:
    # areas: tickets, billing, knowledge, and "helpdesk" (debug_dump, matched by no pattern)
    fixtures = [
        f for f in covered() if f.expected_tools[0] in ("get_ticket", "search_tickets", "issue_refund")
    ]
    problems = validate_fixtures(
        fixtures, CATALOG, ValidationOptions(min_areas=3), exclude_tools=["debug_dump", "search_articles"]
    )
    assert [(p.rule, p.message) for p in problems] == [
        (
            "min-areas",
            "the fixtures cover 2 areas (billing, tickets); `validation.min_areas` asks for 3; "
            "not covered: helpdesk, knowledge",
        )
    ]
    # a refuse fixture with an explicit area covers it
    extra = fixture("r", "are you sentient", kind="refuse", area="knowledge")
    assert (
        validate_fixtures(
            [*fixtures, extra],
            CATALOG,
            ValidationOptions(min_areas=3),
            exclude_tools=["debug_dump", "search_articles"],
        )
        == []
    )


def test_uncovered_tools_warn_or_fail_with_require_all_tools() -> None:
    fixtures = [f for f in covered() if f.expected_tools != ["issue_refund"]]
    (warning,) = validate_fixtures(fixtures, CATALOG)
    assert (warning.rule, warning.severity) == ("uncovered-tool", "warning")
    assert warning.message.startswith("tool 'issue_refund' (area 'billing') has no fixture")
    (error,) = validate_fixtures(fixtures, CATALOG, ValidationOptions(require_all_tools=True))
    assert (error.rule, error.severity, error.config_key) == (
        "uncovered-tool",
        "error",
        ("validation", "require_all_tools"),
    )


def test_min_per_tool_applies_to_covered_tools() -> None:
    extra = fixture("x", "and ticket 77?", expected_tool="get_ticket")
    problems = validate_fixtures(covered(extra), CATALOG, ValidationOptions(min_per_tool=2))
    assert sorted(p.message for p in problems) == [
        f"tool {name!r} has 1 fixture; `validation.min_per_tool` asks for 2"
        for name in sorted(["search_tickets", "issue_refund", "search_articles", "debug_dump"])
    ]


def test_min_per_pattern_applies_to_each_covered_tool_and_pattern() -> None:
    fixtures = [
        fixture("a", "a", expected_tool="get_ticket", pattern="specific"),
        fixture("b", "b", expected_tool="get_ticket", pattern="specific"),
        fixture("c", "c", expected_tool="get_ticket", pattern="category"),
        fixture("d", "d", expected_tool="issue_refund", pattern="specific"),
        fixture("e", "e", expected_tool="issue_refund", pattern="specfic"),
    ]
    options = ValidationOptions(min_per_pattern={"specific": 2, "category": 1})
    problems = validate_fixtures(fixtures, CATALOG, options, exclude_tools=["search_*", "debug_*"])
    assert [(p.rule, p.severity, p.message) for p in problems] == [
        (
            "min-per-pattern",
            "error",
            "tool 'issue_refund' has 1 'specific' fixture; `validation.min_per_pattern.specific` asks for 2",
        ),
        (
            "min-per-pattern",
            "error",
            "tool 'issue_refund' has 0 'category' fixtures; `validation.min_per_pattern.category` asks for 1",
        ),
        (
            "unknown-pattern",
            "warning",
            "pattern 'specfic' is not one that `min_per_pattern` counts — did you mean 'specific'?",
        ),
    ]


def test_with_areas_configured_tools_outside_them_and_stale_entries_warn() -> None:
    areas = {**AREAS, "tickets": ["search_tickets", "get_ticket", "close_ticket"]}
    catalog = helpdesk_catalog(areas)
    problems = validate_fixtures(covered(), catalog, areas=areas, exclude_tools=[])
    assert [(p.rule, p.severity, p.config_key) for p in problems] == [
        ("area-not-explicit", "warning", ("areas",)),
        ("area-pattern-unmatched", "warning", ("areas", "tickets", 2)),
    ]
    assert problems[0].message.startswith("tool 'debug_dump' matches no pattern in `areas`")
    # without `areas` in the config nobody is expected to set them
    assert validate_fixtures(covered(), helpdesk_catalog({})) == []


def test_errors_come_before_warnings() -> None:
    problems = validate_fixtures(
        covered(
            fixture("w", "w", expected_tools=["get_ticket", "get_ticket"]),
            fixture("e", "e", expected_tool="nope"),
        ),
        CATALOG,
    )
    assert [p.severity for p in problems] == ["error", "warning"]


def test_config_problems_are_located_in_the_config() -> None:
    problems = validate_fixtures(covered(), CATALOG, ValidationOptions(min_fixtures=99))
    lines = {("validation", "min_fixtures"): 12}
    (located,) = locate_in_config(problems, "mcp-evals.yaml", lambda key: lines.get(key))
    assert (located.file, located.line) == ("mcp-evals.yaml", 12)


def test_coverage_summarises_the_set() -> None:
    fixtures = covered(fixture("r", "weather?", kind="refuse"))
    summary = coverage(fixtures, CATALOG, exclude_tools=["debug_dump"])
    assert summary.model_dump() == {
        "fixtures": 6,
        "kinds": {"select": 5, "refuse": 1},
        "tools": 4,
        "excluded_tools": 1,
        "covered_tools": 4,
        "areas": ["billing", "helpdesk", "knowledge", "tickets"],
        "covered_areas": ["billing", "helpdesk", "knowledge", "tickets"],
    }


def test_validation_is_pure() -> None:
    fixtures = covered(fixture("x", expected_tool="nope"))
    before = [f.model_dump() for f in fixtures]
    first = validate_fixtures(fixtures, CATALOG)
    assert validate_fixtures(fixtures, CATALOG) == first
    assert [f.model_dump() for f in fixtures] == before


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-3, 3, allow_nan=False)
    | st.sampled_from(["", "a", "open"]),
    lambda children: (
        st.lists(children, max_size=2) | st.dictionaries(st.sampled_from(["a", "b"]), children, max_size=2)
    ),
    max_leaves=4,
)
_TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])
_SIMPLE_SCHEMAS = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={
            "type": _TYPES | st.lists(_TYPES, min_size=1, max_size=3),
            "enum": st.lists(_JSON_VALUES, min_size=1, max_size=3),
            "const": _JSON_VALUES,
            "description": st.just("d"),
            "minimum": st.integers(-2, 2) | st.floats(-2, 2),
            "exclusiveMaximum": st.integers(-2, 2) | st.floats(-2, 2),
            "minLength": st.integers(0, 2),
            "maxLength": st.integers(0, 2),
            "pattern": st.sampled_from(["^a", "o", "^$", "[0-9]"]),
        },
    ),
    lambda children: st.fixed_dictionaries({"anyOf": st.lists(children, min_size=1, max_size=3)}),
    max_leaves=4,
)


@settings(max_examples=250, deadline=None)
@given(schema=_SIMPLE_SCHEMAS, value=_JSON_VALUES)
def test_the_fast_type_check_never_accepts_what_jsonschema_rejects(
    schema: dict[str, Any], value: Any
) -> None:
    tool = Tool(
        name="t", server="s", wire_name="t", input_schema={"type": "object", "properties": {"p": schema}}
    )
    checks = SchemaChecks()
    if checks.surely_valid(tool, "p", value):
        assert not list(jsonschema.Draft202012Validator(schema).iter_errors(value))
    # and the answer given to users is jsonschema's either way
    assert (checks.errors(tool, "p", value) is None) == (
        not list(jsonschema.Draft202012Validator(schema).iter_errors(value))
    )
