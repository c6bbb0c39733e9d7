"""``mcp-evals run`` and ``mcp-evals merge`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Cli, MakeProject, Project
from fakes.fake_anthropic import API_KEY, FakeAnthropic
from fakes.fake_http import Reply, after, path_is
from fakes.fake_openai import FakeOpenAI
from mcp_evals.record.read import read_results
from mcp_evals.score import score_results


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_without_any_key_the_run_is_the_lexical_baseline(
    project: Project, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    result = cli("run", "--config", project.config, "--results", project.results)
    assert result.code == 0, result.err
    header = read_results(project.results).header
    assert header.provider == "lexical" and header.lexical and header.model == "bm25"
    assert "lexical baseline" in result.out and "lexical baseline" in result.err
    assert len(read_results(project.results).results) == 56


def test_a_paid_provider_asked_for_without_its_key_skips_with_instructions(
    project: Project, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    result = cli("run", "--config", project.config, "--provider", "anthropic", "--results", project.results)
    assert result.code == 0
    assert "ANTHROPIC_API_KEY is not set" in result.err and "secrets.ANTHROPIC_API_KEY" in result.err
    assert "mcp-evals run --provider anthropic --dry" in result.err  # plain --dry would be the baseline's
    assert not project.results.exists()


def test_a_provider_named_in_the_config_counts_as_asked_for(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    project = make_project(run={"provider": "openai"})
    result = cli("run", "--config", project.config)
    assert result.code == 0 and "OPENAI_API_KEY is not set" in result.err
    # OpenAI's own endpoint named explicitly still needs the key (only other endpoints may go without)
    clean_env.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    result = cli("run", "--config", project.config)
    assert result.code == 0 and "OPENAI_API_KEY is not set" in result.err


def test_with_a_key_anthropic_is_the_default_and_eval_variables_apply(
    project: Project, anthropic_fake: FakeAnthropic, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    clean_env.setenv("EVAL_LIMIT", "5")
    clean_env.setenv("EVAL_MODEL", "claude-sonnet-4-6")
    clean_env.setenv("EVAL_CONCURRENCY", "2")
    result = cli("run", "--config", project.config, "--results", project.results)
    assert result.code == 0, result.err
    data = read_results(project.results)
    assert data.header.provider == "anthropic" and data.header.model == "claude-sonnet-4-6"
    assert data.header.limit == 5 and len(data.results) == 5
    assert "concurrency 2" in result.err
    assert {request.json["model"] for request in anthropic_fake.model_requests()} == {"claude-sonnet-4-6"}
    # flags win over the environment
    result = cli(
        "run",
        "--config",
        project.config,
        "--results",
        project.results,
        "--limit",
        "3",
        "--model",
        "claude-haiku-4-5",
    )
    data = read_results(project.results)
    assert data.header.model == "claude-haiku-4-5" and len(data.results) == 3


def test_the_key_never_reaches_results_or_output(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.script(anthropic_fake.server_error(), times=1)
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "4")
    assert result.code == 0, result.err
    for text in (project.results.read_text(), result.out, result.err):
        assert API_KEY not in text


def test_a_key_pasted_with_a_line_break_works_and_one_with_a_stray_character_is_bad_input(
    project: Project, anthropic_fake: FakeAnthropic, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    clean_env.setenv("ANTHROPIC_API_KEY", API_KEY + "\n")
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "2")
    assert result.code == 0, result.err
    assert {request.headers["x-api-key"] for request in anthropic_fake.model_requests()} == {API_KEY}

    clean_env.setenv("ANTHROPIC_API_KEY", API_KEY + "…")
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "2")
    assert result.code == 3 and "ANTHROPIC_API_KEY holds characters" in result.err
    assert API_KEY not in result.err + result.out and "Traceback" not in result.err


def test_fixtures_that_do_not_validate_are_not_run(
    make_project: MakeProject, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    project = make_project(own_fixtures=True)
    project.write_fixtures(
        [
            {"id": "ok", "query": "Show ticket 1042", "expected_tools": ["get_ticket"]},
            {"id": "renamed", "query": "Find tickets about login", "expected_tools": ["find_tickets"]},
        ]
    )
    result = cli("run", "--config", project.config, "--results", project.results)
    assert result.code == 3
    assert "do not validate" in result.err and "find_tickets" in result.err
    assert anthropic_fake.requests == [] and not project.results.exists()


def test_dry_without_a_key_estimates_locally_and_sends_nothing(
    project: Project, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    with FakeAnthropic() as fake:
        clean_env.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        result = cli("run", "--config", project.config, "--provider", "anthropic", "--dry")
        assert fake.requests == []
    assert result.code == 0, result.err
    assert "a local estimate" in result.out
    assert (
        result.out.count("← this run") == 1
        and "with caching" in result.out.split("← this run")[0].splitlines()[-1]
    )
    for row in ("without caching", "with caching", "with --batch", "with --batch and caching"):
        assert f"  {row} " in result.out
    assert not project.results.exists()

    result = cli("run", "--config", project.config, "--provider", "openai", "--model", "gpt-5.4", "--dry")
    assert result.code == 0, result.err
    assert "  with caching " in result.out and "--batch" not in result.out  # batches are Anthropic's

    dry = ("run", "--config", project.config, "--provider", "anthropic", "--dry", "--budget-usd")
    assert "budget $0.05: a live run would send 0 of 56 requests" in cli(*dry, "0.05").out
    assert (
        "budget $0.2: a live run would send 4 of 56 requests, then stop (PRELIMINARY)" in cli(*dry, "0.2").out
    )
    assert "budget $100: this run fits" in cli(*dry, "100").out


RUNNING = Path(__file__).resolve().parents[2] / "docs" / "running.md"


def test_dry_and_lint_give_one_prefix_estimate_and_running_md_quotes_the_dry_run(
    project: Project, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    """One token estimate: lint's request prefix and `run --dry`'s are the same number (issue 28, 1)."""
    dry = cli("run", "--config", project.config, "--provider", "anthropic", "--dry")
    assert dry.code == 0, dry.err
    linted = cli("lint", "--config", project.config, "--format", "json")
    prefix = json.loads(linted.out)["tokens"]["prefix_tokens"]
    assert f"  catalog + system prompt: {prefix:,} per request (the cacheable prefix)" in dry.out.splitlines()
    # docs/running.md shows this run on examples/helpdesk (the same catalog, prompt and fixtures)
    text = RUNNING.read_text("utf-8")
    command = "$ cd examples/helpdesk && mcp-evals run --provider anthropic --dry\n"
    documented = text[text.index(command) + len(command) :].split("```")[0]
    assert documented == dry.out


def test_a_prefix_below_the_cache_minimum_is_noted_once_in_one_number_format(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    price = {"input": 5.0, "output": 25.0, "cache_write": 6.25, "cache_read": 0.5, "min_cache_tokens": 8192}
    project = make_project(run={"prices": {"claude-opus-4-8": price}})
    dry = cli("run", "--config", project.config, "--provider", "anthropic", "--dry")
    assert dry.code == 0, dry.err
    said = dry.out + dry.err
    assert said.count("below the 8,192-token minimum") == 1 and "8192" not in said
    [note] = [line for line in said.splitlines() if "8,192" in line]
    prefix = note.split("are about ")[1].split(" tokens")[0]
    assert "," in prefix and f"catalog + system prompt: {prefix} per request" in dry.out


def test_dry_with_a_key_counts_tokens_for_free_and_sends_no_message(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    count_path = "/v1/messages/count_tokens"
    anthropic_fake.script(
        anthropic_fake.rate_limited("0"), when=path_is(count_path), times=2
    )  # rate-limited too
    result = cli("run", "--config", project.config, "--dry", "--limit", "6")
    assert result.code == 0, result.err
    paths = {request.path for request in anthropic_fake.requests}
    assert paths == {"/v1/messages/count_tokens"}  # free; nothing billable
    assert "count_tokens endpoint (exact)" in result.out
    costs = {}
    for line in result.out.splitlines():
        if line.startswith("  with") and "$" in line:
            label, _, amount = line.strip().partition("$")
            costs[label.strip()] = float(amount.split()[0].replace(",", ""))
    assert costs["with caching"] < costs["without caching"]
    assert costs["with --batch"] == pytest.approx(costs["without caching"] / 2, rel=1e-3)


def test_a_budget_stop_makes_the_run_preliminary(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    result = cli("run", "--config", project.config, "--results", project.results, "--budget-usd", "0.08")
    assert result.code == 2, result.err
    assert "PRELIMINARY" in result.out
    kinds = {row.error_kind for row in read_results(project.results).results}
    assert "budget" in kinds and None in kinds


def test_a_budget_needs_a_price(project: Project, anthropic_fake: FakeAnthropic, cli: Cli) -> None:
    result = cli("run", "--config", project.config, "--model", "claude-unknown-9", "--budget-usd", "1")
    assert result.code == 3 and "no price known for model 'claude-unknown-9'" in result.err
    assert anthropic_fake.requests == []


def test_a_fatal_stop_exits_preliminary_and_resume_finishes_the_rest(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.script(anthropic_fake.billing(), when=after(10), times=None)
    first = cli("run", "--config", project.config, "--results", project.results, "--concurrency", "1")
    assert first.code == 2 and "credit balance is too low" in first.err and "hint: add credits" in first.err
    answered = {row.fixture_id for row in read_results(project.results).results if row.reached}
    assert len(answered) == 10

    anthropic_fake.rules.clear()  # credits were added
    before = len(anthropic_fake.model_requests())
    second = cli("run", "--config", project.config, "--results", project.results, "--resume")
    assert second.code == 0, second.err
    assert "10 answers kept" in second.err
    asked = {request.query for request in anthropic_fake.model_requests()[before:]}
    data = read_results(project.results)
    by_query = {fixture.query: fixture.id for fixture in data.header.fixtures}
    assert not {by_query[query] for query in asked} & answered  # nothing redone
    assert len(data.results) == 56 and all(row.reached for row in data.results)


def test_resume_refuses_a_file_of_another_model(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    assert cli("run", "--config", project.config, "--results", project.results, "--limit", "2").code == 0
    result = cli(
        "run",
        "--config",
        project.config,
        "--results",
        project.results,
        "--resume",
        "--model",
        "claude-sonnet-4-6",
    )
    assert result.code == 3 and "cannot resume" in result.err


def test_batch_runs_at_half_price_and_turns_failed_entries_into_dropouts(
    project: Project,
    anthropic_fake: FakeAnthropic,
    clean_env: pytest.MonkeyPatch,
    cli: Cli,
    helpdesk_fixtures: list,
) -> None:
    clean_env.setenv("MCP_EVALS_BATCH_POLL_SECONDS", "0.01")
    anthropic_fake.batch_polls = 2
    anthropic_fake.batch_outcomes[helpdesk_fixtures[3].query] = "expired"
    anthropic_fake.batch_outcomes[helpdesk_fixtures[5].query] = "errored"
    # named: a provider picked from the key alone would run under the default $1 cap
    result = cli(
        "run", "--config", project.config, "--results", project.results, "--batch", "--provider", "anthropic"
    )
    assert result.code == 2, result.err  # two dropouts: PRELIMINARY
    assert anthropic_fake.model_requests() == []  # everything went through the batch
    data = read_results(project.results)
    by_id = {row.fixture_id: row for row in data.results}
    assert by_id[helpdesk_fixtures[3].id].error_kind == "batch_expired"
    assert by_id[helpdesk_fixtures[5].id].error_kind == "batch_errored"
    assert sum(row.reached for row in data.results) == 54
    assert any("Message Batches" in note for note in data.header.notes)
    row = by_id[helpdesk_fixtures[0].id]
    full_price = (
        row.usage.input_tokens * 5
        + row.usage.cache_write_tokens * 6.25
        + row.usage.cache_read_tokens * 0.5
        + row.usage.output_tokens * 25
    ) / 1e6
    assert row.cost_usd == pytest.approx(full_price / 2)
    assert not (project.root / "results.ndjson.batches.json").exists()


def test_shards_merge_into_the_whole_run_and_mixed_runs_are_refused(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    parts = []
    for index in (1, 2, 3):
        part = project.root / f"shard-{index}.ndjson"
        assert cli("run", "--config", project.config, "--shard", f"{index}/3", "--results", part).code == 0
        parts.append(part)
    ids = [{row.fixture_id for row in read_results(part).results} for part in parts]
    assert not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])
    merged = project.root / "all.ndjson"
    result = cli("merge", *parts, "--out", merged)
    assert result.code == 0, result.err
    data = read_results(merged)
    assert len(data.results) == 56 and len(data.header.fixtures) == 56
    assert set().union(*ids) == {row.fixture_id for row in data.results}

    other = project.root / "other-model.ndjson"
    assert (
        cli(
            "run",
            "--config",
            project.config,
            "--shard",
            "1/3",
            "--results",
            other,
            "--model",
            "claude-sonnet-4-6",
        ).code
        == 0
    )
    refused = cli("merge", parts[1], other, "--out", project.root / "mixed.ndjson")
    assert refused.code == 3 and "model" in refused.err
    assert not (project.root / "mixed.ndjson").exists()


def test_replay_rescoring_calls_nothing(project: Project, anthropic_fake: FakeAnthropic, cli: Cli) -> None:
    assert cli("run", "--config", project.config, "--results", project.results, "--limit", "6").code == 0
    sent = len(anthropic_fake.requests)
    replayed = project.root / "replayed.ndjson"
    result = cli(
        "run",
        "--config",
        project.config,
        "--provider",
        "replay",
        "--from",
        project.results,
        "--results",
        replayed,
        "--limit",
        "6",
    )
    assert result.code == 0, result.err
    assert len(anthropic_fake.requests) == sent
    original = {row.fixture_id: row.calls for row in read_results(project.results).results}
    again = read_results(replayed)
    assert again.header.provider == "replay" and again.header.model == "claude-opus-4-8"
    assert {row.fixture_id: row.calls for row in again.results} == original


def test_openai_compatible_servers_without_a_key_work_through_a_base_url(
    project: Project, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    with FakeOpenAI(key=None) as fake:  # e.g. a local vLLM or Ollama
        result = cli(
            "run",
            "--config",
            project.config,
            "--provider",
            "openai",
            "--model",
            "llama3.1",
            "--base-url",
            fake.base_url + "/v1",
            "--results",
            project.results,
            "--limit",
            "3",
        )
        assert "authorization" not in fake.requests[0].headers
    assert result.code == 0, result.err
    assert "no price known for llama3.1" in result.err


def test_batch_needs_anthropic(project: Project, clean_env: pytest.MonkeyPatch, cli: Cli) -> None:
    result = cli("run", "--config", project.config, "--provider", "lexical", "--batch")
    assert result.code == 3 and "--batch needs the anthropic provider" in result.err


def test_resuming_with_a_smaller_plan_keeps_the_other_answers(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    assert cli("run", "--config", project.config, "--results", project.results, "--limit", "8").code == 0
    sent = len(anthropic_fake.model_requests())
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "3", "--resume")
    assert result.code == 0, result.err
    assert len(anthropic_fake.model_requests()) == sent  # nothing left to ask
    assert len(read_results(project.results).results) == 8  # paid answers are never thrown away


def test_a_replayed_lexical_baseline_is_still_a_baseline(
    project: Project, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    assert cli("run", "--config", project.config, "--results", project.results).code == 0
    replayed = project.root / "replayed.ndjson"
    result = cli(
        "run",
        "--config",
        project.config,
        "--provider",
        "replay",
        "--from",
        project.results,
        "--results",
        replayed,
    )
    assert result.code == 0, result.err
    assert read_results(replayed).header.lexical


def test_exit_codes_gate_failure_is_1_preliminary_wins_and_the_baseline_never_gates(
    make_project: MakeProject, anthropic_fake: FakeAnthropic, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    project = make_project(gate={"fail_on": ["remediate"]})  # the fake model mostly picks wrong
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "8")
    assert result.code == 1, result.err
    assert "remediate" in result.out.splitlines()[0]

    anthropic_fake.script(anthropic_fake.unauthorized(), when=after(4), times=None)
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "8")
    assert result.code == 2 and "PRELIMINARY" in result.out.splitlines()[0]

    clean_env.delenv("ANTHROPIC_API_KEY")
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "8")
    assert result.code == 0 and "lexical baseline" in result.out.splitlines()[0]


def test_budget_and_base_url_come_from_the_environment_and_flags_win(
    project: Project, anthropic_fake: FakeAnthropic, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    clean_env.setenv("EVAL_BUDGET_USD", "0.08")
    result = cli("run", "--config", project.config, "--results", project.results)
    assert result.code == 2 and "budget" in {row.error_kind for row in read_results(project.results).results}
    result = cli("run", "--config", project.config, "--results", project.results, "--budget-usd", "100")
    assert result.code == 0, result.err

    sent = len(anthropic_fake.requests)
    with FakeAnthropic() as other:
        result = cli(
            "run", "--config", project.config, "--results", project.results, "--limit", "2",
            "--base-url", other.base_url,
        )  # fmt: skip
        assert result.code == 0, result.err
        assert len(other.model_requests()) == 2 and len(anthropic_fake.requests) == sent


def test_openai_reads_its_key_and_base_url_from_the_environment(
    project: Project, openai_fake: FakeOpenAI, cli: Cli
) -> None:
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "3")
    assert result.code == 0, result.err
    header = read_results(project.results).header
    assert header.provider == "openai" and header.model == "gpt-5.4"
    assert [request.path for request in openai_fake.model_requests()] == ["/v1/chat/completions"] * 3
    bearer = f"Bearer {openai_fake.key}"
    assert all(request.headers["authorization"] == bearer for request in openai_fake.requests)


def test_with_both_keys_the_model_asked_for_picks_the_provider(
    project: Project, anthropic_fake: FakeAnthropic, openai_fake: FakeOpenAI, cli: Cli
) -> None:
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "2")
    assert result.code == 0 and read_results(project.results).header.provider == "anthropic"
    result = cli(
        "run", "--config", project.config, "--results", project.results, "--limit", "2", "--model", "gpt-5.4"
    )
    assert result.code == 0, result.err
    header = read_results(project.results).header
    assert header.provider == "openai" and header.model == "gpt-5.4"
    assert len(openai_fake.model_requests()) == 2 and len(anthropic_fake.model_requests()) == 2


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("EVAL_LIMIT", "ten", "expected a whole number"),
        ("EVAL_CONCURRENCY", "1000", "at most 256"),
        ("EVAL_BUDGET_USD", "nan", "must be more than 0"),
        ("EVAL_BUDGET_USD", "-1", "must be more than 0"),
    ],
)
def test_a_bad_eval_variable_is_bad_input(
    project: Project,
    anthropic_fake: FakeAnthropic,
    clean_env: pytest.MonkeyPatch,
    cli: Cli,
    variable: str,
    value: str,
    message: str,
) -> None:
    clean_env.setenv(variable, value)
    result = cli("run", "--config", project.config, "--results", project.results)
    assert result.code == 3 and variable in result.err and message in result.err
    assert anthropic_fake.requests == []


def test_a_base_url_without_a_scheme_is_bad_input_before_anything_is_sent(
    project: Project, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    clean_env.setenv("ANTHROPIC_API_KEY", API_KEY)
    args = ("run", "--config", project.config, "--provider", "anthropic", "--results", project.results)
    result = cli(*args, "--base-url", "127.0.0.1:9")

    assert result.code == 3
    assert "has no http:// or https:// scheme" in result.err
    assert not project.results.exists()


# -- no surprise spend -------------------------------------------------------------------------


def test_a_paid_run_nobody_named_says_so_estimates_and_runs_under_the_default_cap(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "3")
    assert result.code == 0, result.err
    assert "ANTHROPIC_API_KEY is set and no provider was named" in result.err
    assert "paid run on anthropic/claude-opus-4-8, capped at $1 (the default cap)" in result.err
    assert "  with caching" in result.err and "← this run" in result.err  # the --dry figure
    assert "budget $1: this run fits" in result.err and "· budget $1 (default cap)" in result.err
    notes = read_results(project.results).header.notes
    assert any(note.startswith("budget: capped at $1, the default cap") for note in notes)
    assert "capped at \\$1, the default cap" in result.out  # the report (Markdown, piped) repeats it


def test_the_default_cap_is_enforced(
    make_project: MakeProject, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    project = make_project(run={"max_tokens": 100_000})  # one answer could cost $2.50 on Opus
    result = cli("run", "--config", project.config, "--results", project.results)
    assert result.code == 2, result.err  # nothing sent: every fixture is a budget dropout
    assert anthropic_fake.model_requests() == []
    assert {row.error_kind for row in read_results(project.results).results} == {"budget"}


def test_a_budget_or_a_named_provider_replaces_the_default_cap(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    result = cli(
        "run", "--config", project.config, "--results", project.results, "--limit", "2", "--budget-usd", "5"
    )
    assert result.code == 0 and "capped at $5." in result.err and "default cap" not in result.err
    result = cli(
        "run",
        "--config",
        project.config,
        "--results",
        project.results,
        "--limit",
        "2",
        "--provider",
        "anthropic",
    )
    assert result.code == 0 and "no provider was named" not in result.err and "budget $" not in result.err


def test_an_unpriced_model_cannot_be_capped_so_a_run_nobody_named_is_refused(
    make_project: MakeProject, anthropic_fake: FakeAnthropic, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    clean_env.setenv("EVAL_MODEL", "claude-unlisted-9")
    project = make_project()
    result = cli("run", "--config", project.config, "--results", project.results)
    assert result.code == 3 and "Traceback" not in result.err
    assert "no price known for model 'claude-unlisted-9', so this run cannot be capped" in result.err
    assert "run: {prices: {claude-unlisted-9: {input: …, output: …}}}" in result.err
    assert "--provider anthropic" in result.err and anthropic_fake.requests == []
    priced = make_project(run={"prices": {"claude-unlisted-9": {"input": 1, "output": 5}}})
    result = cli("run", "--config", priced.config, "--results", priced.results, "--limit", "2")
    assert result.code == 0, result.err


def test_an_unwritable_results_path_is_bad_input_before_anything_is_sent(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    blocker = project.root / "out"
    blocker.write_text("a file where the results folder should be")
    result = cli("run", "--config", project.config, "--results", blocker / "run.ndjson", "--limit", "2")
    assert result.code == 3, result.err
    assert f"{blocker / 'run.ndjson'}: cannot write the file" in result.err
    assert anthropic_fake.requests == []  # not one paid request


def test_a_results_path_that_is_an_input_is_refused(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    before = project.config.read_text()
    result = cli("run", "--config", project.config, "--results", project.config, "--limit", "2")
    assert result.code == 3 and "is also the config file" in result.err
    assert project.config.read_text() == before and anthropic_fake.requests == []


def test_a_symlink_loop_in_the_fixture_folder_is_a_warning_not_a_hang(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    project = make_project(own_fixtures=True)
    project.write_fixtures([{"id": "t1", "query": "show me ticket 4821", "expected_tool": "get_ticket"}])
    folder = project.root / "evals"
    folder.mkdir()
    (project.root / "fixtures.yaml").rename(folder / "tickets.yaml")
    (folder / "a").symlink_to(".")
    (folder / "b").symlink_to(".")
    text = project.config.read_text().replace("fixtures: fixtures.yaml", "fixtures: evals/**/*.yaml")
    project.config.write_text(text)
    result = cli("validate", "--config", project.config)
    assert "a symlink leads back to" in result.err and result.err.count("warning:") == 2
    assert result.code in (0, 1), result.err


def test_odd_usage_fields_are_dropouts_and_the_run_finishes(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    odd = {
        "id": "msg_odd",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t", "name": "get_ticket", "input": {"ticket_id": "1"}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": "many", "output_tokens": -5},
    }
    anthropic_fake.script(Reply(200, odd), times=None)
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "2")
    assert result.code == 2, result.err  # PRELIMINARY: nothing reached, nothing scored, no crash
    rows = read_results(project.results).results
    assert len(rows) == 2 and {row.error_kind for row in rows} == {"invalid_response"}
    assert "Traceback" not in result.err


@pytest.mark.parametrize("budget", ["0.01", "0.08"])
def test_dry_says_how_many_requests_a_budget_allows_and_the_live_run_sends_that_many(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli, budget: str
) -> None:
    args = ("run", "--config", project.config, "--model", "claude-sonnet-4-6", "--budget-usd", budget)
    dry = cli(*args, "--dry", "--limit", "20")
    line = next(line for line in dry.out.splitlines() if line.startswith(f"budget ${budget}"))
    sent_dry = int(line.split("would send ")[1].split(" of ")[0]) if "would send" in line else 20
    assert anthropic_fake.model_requests() == []
    live = cli(*args, "--results", project.results, "--limit", "20")
    sent_live = sum(1 for row in read_results(project.results).results if row.error_kind != "budget")
    assert len(anthropic_fake.model_requests()) == sent_live
    if budget == "0.01":  # not even the first request's worst case fits: both say none
        assert sent_dry == sent_live == 0 and live.code == 2
    else:  # the live run sees real usage, --dry its estimate: the same rule, within a request
        assert 0 < sent_live < 20 and abs(sent_dry - sent_live) <= 1, (line, sent_live)


def test_the_caching_note_agrees_with_the_first_answers_usage(
    make_project: MakeProject, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    # Our price table says the model caches only from 200,000 tokens (the note "expect nothing to be
    # cached" is printed before the run); the API then caches the prefix: the record must not keep it.
    price = {"input": 3, "output": 15, "min_cache_tokens": 200_000}
    project = make_project(run={"model": "claude-sonnet-4-6", "prices": {"claude-sonnet-4-6": price}})
    result = cli("run", "--config", project.config, "--results", project.results, "--limit", "3")
    assert result.code == 0, result.err
    assert "expect nothing to be cached" in result.err and "caching works" in result.err
    header = read_results(project.results).header
    usage = [row.usage for row in read_results(project.results).results]
    assert any(item.cache_read_tokens or item.cache_write_tokens for item in usage)
    assert not any("cached" in note for note in header.notes), header.notes


def test_replay_says_when_the_fixtures_do_not_match_the_recorded_catalog(
    make_project: MakeProject, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    project = make_project(own_fixtures=True)
    project.write_fixtures([{"id": "t1", "query": "show me ticket 4821", "expected_tool": "get_ticket"}])
    assert cli("run", "--config", project.config, "--results", project.results).code == 0
    project.write_fixtures([{"id": "t1", "query": "show me ticket 4821", "expected_tool": "fetch_ticket"}])
    args = ("run", "--config", project.config, "--provider", "replay", "--from", project.results)
    result = cli(*args, "--results", project.root / "again.ndjson")
    assert result.code == 3
    assert f"the fixtures do not match the catalog recorded in {project.results}" in result.err
    assert "tool 'fetch_ticket' is not in the catalog" in result.err


REFUSE_AND_CLARIFY = [
    "billing-clarify-refund",
    "customers-clarify-update-phone",
    "refuse-book-flight",
    "refuse-roll-back-release",
    "refuse-vacation-days",
    "refuse-delete-customer-data",
    "tickets-clarify-assign-which",
]


def test_only_tools_runs_the_fixtures_of_those_tools_plus_refuse_and_clarify(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    result = cli(
        "run",
        "--config",
        project.config,
        "--results",
        project.results,
        "--only-tools",
        "search_tickets,list_tickets",
    )
    assert result.code == 0, result.err
    header = read_results(project.results).header
    assert sorted(fixture.id for fixture in header.fixtures) == sorted(
        [
            "tickets-search-android-logout",
            "tickets-search-double-charge",
            "tickets-search-webhook-410",
            "tickets-list-unassigned",
            "tickets-list-urgent-open",
            "tickets-list-agent-queue",
            "tickets-list-customer-history",
            *REFUSE_AND_CLARIFY,
        ]
    )
    assert len(anthropic_fake.model_requests()) == 14  # nothing else was asked
    note = (
        "targeted run (--only-tools search_tickets,list_tickets): 14 of 56 fixtures, those that expect or "
        "forbid these tools, plus every refuse and clarify fixture"
    )
    assert note in header.notes and f"note: {note}" in result.err
    # every report repeats it (here the Markdown on stdout, escaped)
    assert "- targeted run (--only-tools search\\_tickets,list\\_tickets): 14 of 56 fixtures" in result.out


def test_only_areas_and_only_tools_together_pick_either_and_a_forbidden_tool_counts(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    project = make_project(own_fixtures=True)
    project.write_fixtures(
        [
            {"id": "refund", "query": "refund INV-1", "expected_tool": "issue_refund"},
            {"id": "credit", "query": "credit 5 dollars", "expected_tool": "apply_account_credit",
             "forbidden_tools": ["issue_refund"]},
            {"id": "article", "query": "how do I reset 2FA", "expected_tool": "search_articles"},
            {"id": "ticket", "query": "open ticket T-1", "expected_tool": "get_ticket"},
            {"id": "refuse", "query": "book a flight", "kind": "refuse"},
        ]
    )  # fmt: skip
    picked = []
    for flags in (
        ["--only-tools", "issue_refund"],
        ["--only-areas", "knowledge"],
        ["--only-tools", "issue_refund", "--only-areas", "knowledge"],
        ["--only-tools", "get_ticket", "--only-tools", "search_articles"],
        ["--only-tools", "issue_refund", "--limit", "1"],  # --limit applies to the selection
    ):
        result = cli("run", "--config", project.config, "--results", project.results, *flags)
        assert result.code == 0, result.err
        picked.append([fixture.id for fixture in read_results(project.results).header.fixtures])
    assert picked == [
        ["refund", "credit", "refuse"],  # `credit` forbids issue_refund: a change to it can draw a call
        ["article", "refuse"],
        ["refund", "credit", "article", "refuse"],
        ["article", "ticket", "refuse"],
        ["refund"],
    ]


def test_only_tools_names_a_tool_of_the_catalog(
    project: Project, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    result = cli("run", "--config", project.config, "--only-tools", "search_ticket")
    assert result.code == 3
    assert result.err.startswith(
        "error: --only-tools: 'search_ticket' is no tool in the catalog — did you mean 'search_tickets'?"
    )
    result = cli("run", "--config", project.config, "--only-areas", "ticket")
    assert (
        result.code == 3 and "--only-areas: 'ticket' is no known area — did you mean 'tickets'?" in result.err
    )
    assert not project.results.exists()


def test_a_model_run_reports_the_lexical_baseline_beside_its_own_top1(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    result = cli("run", "--config", project.config, "--results", project.results, "--provider", "anthropic")
    assert result.code == 0, result.err
    data = read_results(project.results)
    assert data.header.lexical_choices is not None and len(data.header.lexical_choices) == 56
    choices = data.header.lexical_choices
    scorecard = score_results(data)
    assert scorecard.metrics.lexical_top1 is not None
    assert (scorecard.metrics.lexical_top1.hits, scorecard.metrics.lexical_top1.total) == (22, 49)
    assert (
        "| Lexical baseline top-1 (words alone, same fixtures: a model should beat it) | 44.9% |"
        in result.out
    )
    # a lexical run does not compare itself with itself
    lexical = cli("run", "--config", project.config, "--results", project.results, "--provider", "lexical")
    assert lexical.code == 0 and read_results(project.results).header.lexical_choices is None
    assert "Lexical baseline top-1" not in lexical.out
    # the recorded choices are the lexical baseline's own answers
    answered = {
        row.fixture_id: (row.calls[0].name if row.calls else None)
        for row in read_results(project.results).results
    }
    assert answered == choices
