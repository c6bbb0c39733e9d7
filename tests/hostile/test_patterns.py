"""User patterns are time-bounded: a regular expression that backtracks catastrophically fails its
step (a contract assertion, a session's answer, a fixture's matcher) with a clear message within the
step's limit, and never hangs a command."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from conftest import Cli
from fakes.fake_anthropic import Call, FakeAnthropic, Text
from mcp_evals import patterns
from mcp_evals.record.read import read_results
from mcp_evals.score import score_results
from mcp_evals.score.arguments import match_value
from mcp_evals.session.metrics import check_answer
from mcp_evals.session.model import AnswerCheck
from support.validate_helpers import catalog_of, wire_tool

from .conftest import HostileProject, tool

EVIL = r"^(a+)+$"
VICTIM = "a" * 34 + "!"
QUICK = 0.5  # the limit where its length is not what a test is about: each stop costs a worker that long


@pytest.fixture
def quick_limit(monkeypatch: pytest.MonkeyPatch) -> float:
    """``patterns.DEFAULT_SECONDS`` shortened to ``QUICK`` for this test (this process only)."""
    monkeypatch.setattr(patterns, "DEFAULT_SECONDS", QUICK)
    return QUICK


def test_a_catastrophic_pattern_is_stopped_at_its_limit_and_the_worker_recovers() -> None:
    started = time.monotonic()
    with pytest.raises(patterns.PatternTimeout, match=r"took longer than 0.5 s and was stopped"):
        patterns.search(EVIL, VICTIM, seconds=0.5)
    assert time.monotonic() - started < 5
    assert patterns.search(r"(x+x+)+y", "xxxy", seconds=5)  # a new worker takes the next match
    assert not patterns.search(r"(x+x+)+y", "xxxz", seconds=5)
    with pytest.raises(re.error):
        patterns.search(r"(unclosed", "x")


@pytest.mark.parametrize(
    ("pattern", "simple"),
    [
        (r"SYNC-\d+", True),
        (r"(?i)does not exist", True),
        (r"^[a-z]+$", True),
        (EVIL, False),
        (r"^(\w+\s?)*$", False),
        (r"(a|aa)*b", False),
        (r".*x.*y", False),
        (r"(\d)\1", False),
    ],
)
def test_only_patterns_that_cannot_backtrack_much_run_in_the_caller(pattern: str, simple: bool) -> None:
    assert patterns.is_simple(pattern) is simple


def test_a_fixture_matcher_that_never_ends_is_an_argument_problem_not_a_hang(quick_limit: float) -> None:
    problems = match_value({"regex": EVIL}, VICTIM, "q")
    assert len(problems) == 1 and f"took longer than {quick_limit:g} s" in problems[0]


def test_a_session_answer_regex_that_never_ends_fails_the_check() -> None:
    with pytest.raises(patterns.PatternTimeout):
        check_answer(AnswerCheck(regex=EVIL), VICTIM, seconds=0.5)


def test_contract_output_matches_fails_its_step_within_the_step_timeout(
    hostile: HostileProject, cli: Cli
) -> None:
    hostile.serve([tool("lookup", {"q": {"type": "string"}})], calls={"lookup": {"text": VICTIM}})
    hostile.configure()
    hostile.case(
        "evil", [{"id": "a", "tool": "lookup", "input": {"q": "x"}, "expect": {"output_matches": EVIL}}]
    )
    started = time.monotonic()
    result = cli("contract", "--config", hostile.config, "--timeout", "1s", "--no-history")
    assert time.monotonic() - started < 30
    assert result.code == 1, result.out + result.err
    assert "output_matches" in result.out and "took longer than 1 s and was stopped" in result.out


def test_a_session_answer_regex_honours_the_step_timeout(
    hostile: HostileProject, cli: Cli, anthropic_fake: FakeAnthropic, tmp_path: Path
) -> None:
    hostile.serve([tool("lookup", {"q": {"type": "string"}})])
    task = {
        "id": "t1",
        "prompt": "Look up q.",
        "expected_tools": ["lookup"],
        "script": [{"tool": "lookup", "arguments": {"q": "x"}}],
        "answer": {"regex": r"^(\w+\s?)*$"},
        "max_steps": 4,
    }
    tasks = hostile.tasks([task], timeouts={"step_seconds": 1, "session_seconds": 30})
    anthropic_fake.sessions["Look up q."] = [Call("lookup", {"q": "x"}), Text("word " * 30 + "!")]
    started = time.monotonic()
    result = cli(
        "session",
        "--tasks",
        tasks,
        "--arm",
        "A",
        "--fault",
        "0",
        "--budget-usd",
        "1",
        "--results",
        tmp_path / "r",
    )
    assert time.monotonic() - started < 60
    assert result.code == 0, result.err
    assert "answer wrong · the answer is not checked: the regular expression" in result.err


def test_a_schema_pattern_from_a_server_is_time_bounded_too(quick_limit: float) -> None:
    from mcp_evals import schema_refs

    with pytest.raises(schema_refs.UnusableSchema, match=f"took longer than {quick_limit:g} s"):
        schema_refs.errors({"type": "string", "pattern": EVIL}, VICTIM)
    assert [error.message for error in schema_refs.errors({"pattern": r"^\d+$"}, "12x")] == [
        "'12x' does not match '^\\\\d+$'"
    ]


def test_lint_probe_waits_the_servers_timeout_not_a_fixed_30_seconds(
    hostile: HostileProject, cli: Cli
) -> None:
    """A server that never answers a call: each probe call waits the server's `timeout:` (here 10 s: the
    handshake through the SDK shares it, and takes seconds on a loaded machine), not a fixed 30 s."""
    hostile.serve([tool("lookup", {"q": {"type": "string"}})], calls={"lookup": "hang"})
    config = hostile.configure([{"id": "a", "query": "look up q", "expected_tools": ["lookup"]}])
    result = cli("lint", "--config", config, "--probe")  # was "within 30 s", whatever the config said
    assert "Traceback" not in result.err
    assert "no answer to tools/call 'lookup' within 10 s" in result.out, result.out


DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema"


@pytest.mark.parametrize(
    ("keyword", "schema"),
    [
        ("patternProperties", {"patternProperties": {EVIL: {}}}),
        # each keyword first in its schema: it is the one that meets the pattern (no other one's
        # timeout, no remembered one, hides it: every case has a name of its own)
        ("additionalProperties", {"additionalProperties": False, "patternProperties": {EVIL: {}}}),
        (
            "additionalProperties (draft-07)",
            {"$schema": DRAFT_07, "additionalProperties": {}, "patternProperties": {EVIL: {}}},
        ),
        ("propertyNames", {"propertyNames": {"pattern": EVIL}}),
        (
            "unevaluatedProperties",
            {"unevaluatedProperties": False, "patternProperties": {EVIL: {}}},
        ),
        (
            "unevaluatedProperties (2019-09)",
            {
                "$schema": DRAFT_2019,
                "unevaluatedProperties": False,
                "$ref": "#/$defs/named",  # followed by jsonschema's own walk, which searches in-thread
                "$defs": {"named": {"patternProperties": {EVIL: {}}}},
            },
        ),
    ],
)
def test_every_schema_keyword_that_runs_a_servers_pattern_on_a_name_is_time_bounded(
    keyword: str, schema: dict[str, object], quick_limit: float
) -> None:
    from mcp_evals import schema_refs

    name = "a" * (40 + len(keyword)) + "!"  # a name no other case met
    started = time.monotonic()
    with pytest.raises(
        schema_refs.SlowPattern,
        match=rf"the regular expression /\^\(a\+\)\+\$/ took longer than {quick_limit:g} s",
    ):
        schema_refs.errors({"type": "object", **schema}, {name: 1})
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (
            {
                "patternProperties": {"^x-": {"type": "integer"}, r"^y\d+z+$": {}},
                "additionalProperties": False,
            },
            {"x-a": "s", "q": 1, "y1zz": 0},
        ),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"q": 1, "r": 2}),
        ({"properties": {"a": {}}, "additionalProperties": {"type": "string"}}, {"a": 1, "r": 2}),
        ({"patternProperties": {"^x-": {}, "(a)": {}}, "additionalProperties": False}, {"x-1": 1, "zz": 2}),
        ({"patternProperties": {r"^(\w+-)+\d$": {"type": "integer"}}}, {"ab-cd-1": "s", "ab": 1}),
        ({"patternProperties": {r"^x-\d+$": {}}, "unevaluatedProperties": False}, {"x-12": 1, "q": 1}),
        (
            {
                "$schema": DRAFT_2019,
                "allOf": [{"patternProperties": {"^x": {}}}],
                "unevaluatedProperties": False,
            },
            {"xa": 1, "b": 1},
        ),
        (
            {
                "$schema": DRAFT_07,
                "patternProperties": {"^x": {"type": "string"}},
                "additionalProperties": False,
            },
            {"xa": 1, "b": 1},
        ),
        ({"propertyNames": {"pattern": r"^[a-z]+(_[a-z]+)*$"}}, {"snake_case": 1, "Camel": 2}),
    ],
)
def test_the_bounded_keywords_say_what_jsonschema_says(schema: dict[str, object], value: object) -> None:
    """The same verdicts and messages as jsonschema's own keywords on patterns that end quickly."""
    import jsonschema

    from mcp_evals import schema_refs

    def messages(errors: list[jsonschema.ValidationError]) -> list[tuple[str, list[object]]]:
        return sorted((error.message, list(error.absolute_path)) for error in errors)

    plain = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema)
    expected = messages(list(plain.iter_errors(value)))
    assert expected, "each case breaks the schema somewhere"
    assert messages(schema_refs.errors(schema, value)) == expected


def labelled(pattern: str) -> dict[str, object]:
    """A tool whose one parameter is a mapping with keys named by the server's pattern."""
    labels = {
        "type": "object",
        "patternProperties": {pattern: {"type": "string"}},
        "additionalProperties": False,
    }
    return tool("tag", {"labels": labels})


def test_validate_meets_a_servers_catastrophic_patternProperties_with_a_warning_in_time(
    hostile: HostileProject, cli: Cli
) -> None:
    """A fixture key the server's pattern backtracks on: `validate` says that key is not checked, naming
    the pattern, and ends (it would have searched that key for hours had it consulted the pattern
    unbounded; before, it never consulted patternProperties at all)."""
    hostile.serve([labelled(EVIL), tool("code", {"value": {"type": "string", "pattern": EVIL}})])
    key = "a" * 36 + "!"
    config = hostile.configure(
        [
            {
                "id": "f1",
                "query": "Tag it",
                "expected_tools": ["tag"],
                "expected_args": {"labels": {key: "x"}},
            },
            {
                "id": "f2",
                "query": "Code it",
                "expected_tools": ["code"],
                "expected_args": {"value": key + "?"},
            },
        ]
    )
    started = time.monotonic()
    result = cli("validate", "--config", config)
    assert time.monotonic() - started < 30
    assert "Traceback" not in result.err
    assert result.code == 0, result.out + result.err  # warnings: the fixtures are not wrong
    shown = result.out + result.err
    assert shown.count("slow-pattern") == 2, shown
    assert f"the key {key!r} is not checked against tag's 'labels'" in shown
    assert f"{key + '?'!r} is not checked against code's 'value'" in shown
    assert "the regular expression /^(a+)+$/ took longer than 2 s and was stopped" in shown


def test_scoring_a_call_against_a_catastrophic_patternProperties_is_not_checked_in_time(
    hostile: HostileProject, cli: Cli, anthropic_fake: FakeAnthropic, tmp_path: Path, quick_limit: float
) -> None:
    """The model's arguments meet the server's schema when scored: a key the server's pattern
    backtracks on leaves the schema not checked (a note, not a failed call), and the run ends."""
    hostile.serve([labelled(EVIL)])
    key = "a" * 37 + "!"
    config = hostile.configure(
        [
            {
                "id": "f1",
                "query": "Tag it",
                "expected_tools": ["tag"],
                "expected_args": {"labels": {"any": True}},
            }
        ]
    )
    anthropic_fake.answers["Tag it"] = Call("tag", {"labels": {key: "x"}})
    results = tmp_path / "r.ndjson"
    started = time.monotonic()
    ran = cli("run", "--config", config, "--results", results)
    assert time.monotonic() - started < 60
    assert "Traceback" not in ran.err
    assert ran.code in (0, 1), ran.out + ran.err
    [fixture] = score_results(read_results(results)).fixtures
    [sample] = fixture.samples
    assert sample.outcome == "correct_call" and sample.args_ok, sample
    [note] = sample.argument_problems
    assert note.startswith(
        "schema not checked: the schema cannot be used (the regular expression /^(a+)+$/ took longer "
        f"than {quick_limit:g} s"
    )


def test_contract_validate_says_a_step_input_is_not_checked_when_the_servers_pattern_never_ends(
    hostile: HostileProject, cli: Cli, quick_limit: float
) -> None:
    hostile.serve([labelled(EVIL)])
    hostile.configure()
    key = "a" * 38 + "!"
    hostile.case("tag", [{"id": "a", "tool": "tag", "input": {"labels": {key: "x"}}}])
    started = time.monotonic()
    result = cli("contract", "validate", "--config", hostile.config)
    assert time.monotonic() - started < 30
    assert "Traceback" not in result.err
    assert result.code == 1, result.out + result.err
    assert "'tag': input not checked: the schema cannot be used (the regular expression /^(a+)+$/ took" in (
        result.out + result.err
    )


def test_a_pattern_nested_thousands_deep_is_a_clear_error_never_a_recursion_traceback() -> None:
    """`re`'s parser recurses once per group: a server's pattern of 3,000 nested groups overflowed it
    (RecursionError) in the metaschema check, the scoring validator and validate's fast path."""
    import jsonschema

    from mcp_evals import schema_refs
    from mcp_evals.fixtures.validate.schema_check import SchemaChecks
    from mcp_evals.score.arguments import SchemaValidators

    deep = "(" * 3000 + "a" + ")" * 3000
    with pytest.raises(re.error, match="nests groups too deeply"):
        patterns.search(deep, "a")
    for schema in ({"type": "object", "patternProperties": {deep: {}}}, {"type": "string", "pattern": deep}):
        with pytest.raises(jsonschema.SchemaError, match="nests too deeply to be checked"):
            schema_refs.check_schema(schema)
        with pytest.raises(schema_refs.UnusableSchema, match="nests groups too deeply"):
            schema_refs.errors(schema, {"a": 1} if "patternProperties" in schema else "a")
    [tool] = catalog_of(wire_tool("code", v={"type": "string", "pattern": deep})).tools
    validator, problem = SchemaValidators().validator(tool)
    assert validator is None and problem is not None and "nests too deeply" in problem
    assert SchemaChecks().errors(tool, "v", "a") is None  # not checked; the linter's business


def test_a_users_pattern_nested_thousands_deep_is_refused_with_a_message_never_a_traceback() -> None:
    """Where a case, a task set or a fixture's pattern is checked on load, `re`'s RecursionError (which
    pydantic passes through as a traceback) is the same refusal as any pattern that does not compile."""
    import pydantic

    from mcp_evals.contract.model import Expect, SnapshotOptions
    from mcp_evals.session.model import AnswerCheck

    deep = "(" * 3000 + "a" + ")" * 3000
    with pytest.raises(re.error, match="nests groups too deeply"):
        patterns.check(deep)
    patterns.check(r"^\d+$")
    for model, field in (
        (Expect, {"output_matches": deep}),
        (SnapshotOptions, {"mask_patterns": [deep]}),
        (AnswerCheck, {"regex": deep}),
    ):
        with pytest.raises(pydantic.ValidationError, match="nests groups too deeply"):
            model.model_validate(field)
    [code] = catalog_of(wire_tool("code", v="string")).tools
    from mcp_evals.fixtures.model import parse_expected
    from mcp_evals.fixtures.validate.schema_check import SchemaChecks

    [(path, message)] = SchemaChecks().check("v", parse_expected({"regex": deep}), [code])
    assert path == "v" and "does not compile (the pattern nests groups too deeply)" in message


def test_a_schema_whose_yaml_aliases_hold_themselves_is_walked_once() -> None:
    """A contract case's `schema_match` is YAML: an alias may make a node hold itself, or be shared a
    billion times over. The search for patterns to bound walks each node once, and ends."""
    import yaml

    from mcp_evals import schema_refs

    looped = yaml.safe_load("a: &a {type: object, unevaluatedProperties: false, allOf: [*a]}")["a"]
    with pytest.raises(schema_refs.UnusableSchema):
        schema_refs.errors(looped, {"x": 1})
    levels = ["l0: &l0 {patternProperties: {'^(a+)+$': {}}, unevaluatedProperties: false}"]
    levels += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]" for n in range(1, 10)]
    shared = yaml.safe_load("\n".join(levels))["l9"]  # 10⁹ paths to one node
    started = time.monotonic()
    schema_refs.validator({"allOf": shared})
    assert time.monotonic() - started < 5
