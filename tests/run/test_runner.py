"""The runner against real fake APIs: retries, dropouts, fatal stops, budget, caching, concurrency."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from fakes.fake_anthropic import FakeAnthropic
from fakes.fake_http import Drop, Malformed, Reply, Slow, Truncated, after, query_is
from fakes.fake_openai import FakeOpenAI, RawArguments
from mcp_evals.answers import GenerateOptions
from mcp_evals.catalog.model import Catalog
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.anthropic import AnthropicProvider
from mcp_evals.providers.base import ProviderSettings, Secret
from mcp_evals.providers.openai import OpenAIProvider
from mcp_evals.providers.pricing import find_price
from mcp_evals.record.model import FixtureResult
from mcp_evals.record.read import read_results
from mcp_evals.run.asker import Asker
from mcp_evals.run.plan import plan_fixtures, shard_fixtures
from mcp_evals.run.progress import Progress
from mcp_evals.run.retry import AdaptiveLimiter, RetryPolicy
from mcp_evals.run.runner import RunSettings, RunSummary, run_eval
from mcp_evals.score import score_results
from mcp_evals.wording import plural

FAST = RetryPolicy(max_attempts=4, max_wait=0.05, initial_backoff=0.005, max_backoff=0.02)


@dataclass
class Run:
    outcome: RunSummary
    results: list[FixtureResult]
    path: Path
    stderr: str

    @property
    def by_id(self) -> dict[str, FixtureResult]:
        return {result.fixture_id: result for result in self.results}

    def kinds(self) -> Counter[str | None]:
        return Counter(result.error_kind for result in self.results)


def run_fixtures(
    tmp_path: Path,
    asker: Asker,
    fixtures: list[Fixture],
    *,
    samples: int = 1,
    concurrency: int = 4,
    retry: RetryPolicy = FAST,
    budget: float | None = None,
    **settings: Any,
) -> Run:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "results.ndjson"
    progress_path = tmp_path / "progress.txt"
    run_settings = RunSettings(
        concurrency=concurrency,
        retry=retry,
        budget_usd=budget,
        price=find_price(asker.model),
        **settings,
    )
    with progress_path.open("w") as stream:
        progress = Progress(len(fixtures) * samples, stream=stream, tty=False, interval=0.0)
        outcome = anyio.run(
            lambda: run_eval(
                asker.provider,
                asker.catalog,
                fixtures,
                path,
                run_settings,
                system_prompt=asker.system_prompt,
                options=asker.options,
                samples=samples,
                progress=progress,
            )
        )
    results = read_results(path)
    return Run(outcome, results.results, path, progress_path.read_text())


def anthropic_for(
    fake: FakeAnthropic,
    catalog: Catalog,
    model: str = "claude-opus-4-8",
    *,
    timeout: float = 5.0,
    max_tokens: int = 1024,
    caching: bool = True,
) -> Asker:
    provider = AnthropicProvider(
        ProviderSettings(model=model, base_url=fake.base_url, api_key=Secret(fake.key), timeout=timeout)
    )
    options = GenerateOptions(max_tokens=max_tokens, cache="prefix" if caching else "off")
    return Asker(provider, catalog, "Route helpdesk requests to one tool.", options)


def openai_for(fake: FakeOpenAI, catalog: Catalog, model: str) -> Asker:
    key = Secret(fake.key) if fake.key else None
    provider = OpenAIProvider(ProviderSettings(model=model, base_url=fake.base_url + "/v1", api_key=key))
    return Asker(provider, catalog, "Route.", GenerateOptions(cache="prefix"))


@pytest.fixture
def fake() -> Any:
    with FakeAnthropic() as server:
        yield server


def test_every_transient_failure_is_retried_until_the_model_answers(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fixtures = helpdesk_fixtures[:10]
    troubles = [
        fake.rate_limited(retry_after="0"),
        fake.overloaded(),
        fake.server_error(),
        Malformed(),
        Truncated(),
        Drop(),
        Slow(1.5),  # longer than the 0.5 s timeout
    ]
    for fixture, trouble in zip(fixtures[1:], troubles, strict=False):
        fake.script(trouble, when=query_is(fixture.query))

    run = run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog, timeout=0.5), fixtures)

    assert run.outcome.reached == 10 and run.outcome.complete
    assert all(result.reached and result.error_kind is None for result in run.results)
    attempts = {result.fixture_id: result.attempts for result in run.results}
    assert [attempts[fixture.id] for fixture in fixtures[1:8]] == [2] * 7
    assert attempts[fixtures[0].id] == 1 and attempts[fixtures[9].id] == 1


def test_a_fixture_that_never_reaches_the_model_is_a_dropout_not_a_wrong_answer(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fixtures = helpdesk_fixtures[:6]
    fake.script(fake.overloaded(), when=query_is(fixtures[3].query), times=None)

    run = run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog), fixtures)

    dropout = run.by_id[fixtures[3].id]
    assert dropout.reached is False and dropout.error_kind == "overloaded"
    assert dropout.attempts == FAST.max_attempts and dropout.calls == []
    assert "overloaded_error" in (dropout.error_message or "")
    assert run.outcome.reached == 5 and not run.outcome.complete and run.outcome.fatal is None
    # Scoring leaves it out: it counts as a dropout, not as a wrong tool, and the run is preliminary.
    scorecard = score_results(read_results(run.path))
    assert scorecard.preliminary
    scored = {fixture.id: fixture for fixture in scorecard.fixtures}
    assert scored[fixtures[3].id].outcome == "dropout"
    assert scorecard.coverage.reached == 5


def test_retry_after_is_honoured_and_capped(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fixtures = helpdesk_fixtures[:2]
    fake.script(fake.rate_limited(retry_after="0.4"), when=query_is(fixtures[1].query))
    started = time.monotonic()
    run = run_fixtures(
        tmp_path / "a",
        anthropic_for(fake, helpdesk_catalog),
        fixtures,
        retry=RetryPolicy(max_attempts=3, max_wait=5),
    )
    assert time.monotonic() - started >= 0.4 and run.outcome.complete

    fake.script(fake.rate_limited(retry_after="3600"), when=query_is(fixtures[1].query))
    fake.script(fake.rate_limited(retry_after="3600", retry_after_ms="50"), when=query_is(fixtures[0].query))
    started = time.monotonic()
    run = run_fixtures(
        tmp_path / "b",
        anthropic_for(fake, helpdesk_catalog),
        fixtures,
        retry=RetryPolicy(max_attempts=3, max_wait=0.2),
    )
    assert time.monotonic() - started < 2 and run.outcome.complete


def test_retry_waits_use_backoff_with_jitter_when_the_server_gives_no_hint() -> None:
    policy = RetryPolicy(initial_backoff=0.5, max_backoff=8, max_wait=60)
    waits = [policy.wait(attempt, None) for attempt in range(1, 8)]
    assert 0.375 <= waits[0] <= 0.5 and 6 <= waits[6] <= 8
    assert RetryPolicy(max_wait=2).wait(1, type("F", (), {"retry_after": 30})()) == 2


def test_a_fatal_error_stops_dispatch_lets_in_flight_finish_and_marks_the_rest(
    tmp_path: Path, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fixtures = helpdesk_fixtures[:30]
    with FakeAnthropic(latency=0.03) as fake:
        fake.script(fake.unauthorized(), when=after(6), times=None)  # the key is revoked mid-run
        run = run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog), fixtures, concurrency=3)
        sent = len(fake.model_requests())

    kinds = run.kinds()
    assert run.outcome.fatal is not None and run.outcome.fatal.kind == "auth"
    assert kinds[None] == 6  # the six answered before the key was revoked
    assert kinds["auth"] >= 1  # the request that hit it (and any in flight at the same time)
    assert kinds["not_dispatched"] == 30 - 6 - kinds["auth"]
    assert sent == 6 + kinds["auth"] <= 6 + 3  # nothing new was sent after the first 401
    assert len(run.results) == 30 and len({result.fixture_id for result in run.results}) == 30
    assert all(result.attempts == 1 for result in run.results if result.error_kind == "auth")
    stopped = [result for result in run.results if result.error_kind == "not_dispatched"]
    assert all("fatal error (auth" in (result.error_message or "") for result in stopped)
    assert "stopping: no new requests" in run.stderr


def test_a_billing_error_is_fatal_even_though_it_is_a_400(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fake.script(fake.billing(), when=after(2), times=None)
    run = run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog), helpdesk_fixtures[:8], concurrency=1)
    assert run.outcome.fatal is not None and run.outcome.fatal.kind == "billing"
    assert run.kinds() == Counter({None: 2, "billing": 1, "not_dispatched": 5})
    assert "credit balance is too low" in (run.outcome.fatal.message or "")


def test_openai_insufficient_quota_is_fatal_and_not_retried(
    tmp_path: Path, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    with FakeOpenAI() as fake:
        fake.script(fake.insufficient_quota(), when=after(1), times=None)
        provider = openai_for(fake, helpdesk_catalog, "gpt-5.4")
        run = run_fixtures(tmp_path, provider, helpdesk_fixtures[:5], concurrency=1)
    assert run.kinds() == Counter({None: 1, "billing": 1, "not_dispatched": 3})
    assert run.by_id[helpdesk_fixtures[1].id].attempts == 1


def test_a_model_that_rejects_forced_tool_use_is_detected_once_and_run_with_auto(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fake.forced_rejecting.add("claude-sonnet-5-5")  # not in the bundled list: found out live
    run = run_fixtures(
        tmp_path, anthropic_for(fake, helpdesk_catalog, model="claude-sonnet-5-5"), helpdesk_fixtures
    )

    rejected = [request for request in fake.model_requests() if request.json["tool_choice"]["type"] == "any"]
    assert len(rejected) == 1  # the warm-up request, alone, found out
    assert run.outcome.complete and run.outcome.forced_rejected
    modes = Counter(result.mode for result in run.results)
    selects = sum(1 for fixture in helpdesk_fixtures if fixture.kind == "select")
    assert modes == Counter({"auto_instructed": selects, "auto": len(helpdesk_fixtures) - selects})
    header = read_results(run.path).header
    assert any("rejects forced tool use" in note for note in header.notes)
    first = run.by_id[helpdesk_fixtures[0].id]
    assert first.attempts == 2  # the rejected request and its auto retry


def test_the_warm_up_is_a_select_fixture_so_a_rejection_is_found_before_the_header_is_written(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fake.forced_rejecting.add("claude-sonnet-5-5")
    refuse = [fixture for fixture in helpdesk_fixtures if fixture.kind != "select"][:2]
    fixtures = [*refuse, *[fixture for fixture in helpdesk_fixtures if fixture.kind == "select"][:10]]
    run = run_fixtures(
        tmp_path, anthropic_for(fake, helpdesk_catalog, model="claude-sonnet-5-5"), fixtures, concurrency=4
    )

    forced = [request for request in fake.model_requests() if request.json["tool_choice"]["type"] == "any"]
    assert len(forced) == 1 and fake.model_requests()[0].json["tool_choice"]["type"] == "any"
    assert run.outcome.complete
    header = read_results(run.path).header
    assert any("rejects forced tool use" in note for note in header.notes)
    assert header.tool_choice == "auto_instructed"


def test_a_model_known_to_reject_forced_tool_use_is_never_sent_one(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    run = run_fixtures(
        tmp_path, anthropic_for(fake, helpdesk_catalog, model="claude-opus-5-5"), helpdesk_fixtures[:6]
    )
    assert all(request.json["tool_choice"] == {"type": "auto"} for request in fake.model_requests())
    assert run.outcome.complete
    assert all(result.calls for result in run.results)  # thinking blocks came first, the call was found


def test_the_catalog_is_written_to_the_cache_once_and_read_by_every_later_request(
    tmp_path: Path, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    with FakeAnthropic(latency=0.02, min_cacheable=1024) as fake:
        run = run_fixtures(
            tmp_path, anthropic_for(fake, helpdesk_catalog), helpdesk_fixtures[:20], concurrency=8
        )
    writes = [result for result in run.results if result.usage.cache_write_tokens]
    reads = [result for result in run.results if result.usage.cache_read_tokens]
    assert len(writes) == 1 and len(reads) == 19  # the warm-up request wrote it; concurrency did not
    assert writes[0].fixture_id == helpdesk_fixtures[0].id
    assert {result.usage.cache_read_tokens for result in reads} == {writes[0].usage.cache_write_tokens}


def test_the_warm_up_runs_alone_and_then_the_whole_concurrency_at_once_without_a_ramp_up(
    tmp_path: Path, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    """docs/running.md, "Where a run's time goes": the schedule is one request, then rounds of C."""
    latency = 0.3
    with FakeAnthropic(latency=latency) as fake:
        run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog), helpdesk_fixtures[:12], concurrency=8)
        arrived = [request.at for request in fake.model_requests()]
    assert len(arrived) == 12
    warm_up, first_round, second_round = arrived[0], arrived[1:9], arrived[9:]
    assert min(first_round) >= warm_up + latency  # nothing beside the warm-up
    assert max(first_round) < min(first_round) + latency  # all 8 before any of them was answered
    assert min(second_round) >= min(first_round) + latency  # the 9th waited for a slot


def test_below_the_minimum_cacheable_length_nothing_is_cached_and_the_run_says_so(
    tmp_path: Path, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    with FakeAnthropic(min_cacheable=100_000) as fake:
        run = run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog), helpdesk_fixtures[:4])
    assert all(
        result.usage.cache_write_tokens == result.usage.cache_read_tokens == 0 for result in run.results
    )
    assert any(note.startswith("nothing was cached") for note in read_results(run.path).header.notes)


def test_the_budget_stops_dispatch_before_it_could_be_crossed(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    run = run_fixtures(
        tmp_path, anthropic_for(fake, helpdesk_catalog, max_tokens=256), helpdesk_fixtures, budget=0.06
    )
    kinds = run.kinds()
    assert run.outcome.budget_stopped and kinds["budget"] > 0 and kinds[None] > 1
    assert run.outcome.spent_usd <= 0.06
    assert sum(result.cost_usd or 0 for result in run.results) == pytest.approx(run.outcome.spent_usd)
    assert all("budget of $0.06" in (r.error_message or "") for r in run.results if r.error_kind == "budget")
    assert len(fake.model_requests()) == kinds[None]
    assert "the next request could cost up to $" in run.stderr


def test_concurrency_halves_on_rate_limits_and_creeps_back() -> None:
    limiter = AdaptiveLimiter(8)
    limiter.rate_limited()
    limiter.rate_limited()
    assert limiter.current == 2 and limiter.lowest == 2
    for _ in range(2):
        limiter.succeeded()
    assert limiter.current == 3
    for _ in range(100):
        limiter.succeeded()
    assert limiter.current == 8


def test_rate_limits_lower_the_concurrency_of_a_run(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fake.script(fake.rate_limited(retry_after="0"), when=after(1), times=3)
    run = run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog), helpdesk_fixtures[:12], concurrency=8)
    assert run.outcome.complete and run.outcome.rate_limited == 3
    assert run.outcome.lowest_concurrency is not None and run.outcome.lowest_concurrency <= 2


def test_samples_give_k_answers_per_fixture(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    run = run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog), helpdesk_fixtures[:4], samples=3)
    assert sorted((result.fixture_id, result.sample) for result in run.results) == sorted(
        (fixture.id, sample) for fixture in helpdesk_fixtures[:4] for sample in range(3)
    )
    assert read_results(run.path).header.sampling.samples == 3


def test_openai_runs_record_invalid_arguments_and_cached_prompt_tokens(
    tmp_path: Path, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fixtures = helpdesk_fixtures[:5]
    with FakeOpenAI() as fake:
        fake.answers[fixtures[2].query] = RawArguments("get_ticket", "{'ticket_id': T-1}")
        provider = openai_for(fake, helpdesk_catalog, "gpt-4.1")
        run = run_fixtures(tmp_path, provider, fixtures)
    broken = run.by_id[fixtures[2].id]
    assert broken.reached and broken.calls[0].arguments is None and broken.calls[0].raw_arguments
    assert run.by_id[fixtures[0].id].usage.cache_read_tokens == 0
    assert all(run.by_id[fixture.id].usage.cache_read_tokens > 1024 for fixture in fixtures[1:])


def test_an_openai_compatible_server_that_refuses_required_tool_choice_falls_back_once(
    tmp_path: Path, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fixtures = helpdesk_fixtures[:12]
    with FakeOpenAI(key=None) as fake:
        fake.forced_rejecting.add("local-llm")
        provider = openai_for(fake, helpdesk_catalog, "local-llm")
        run = run_fixtures(tmp_path, provider, fixtures)
        choices = [request.json["tool_choice"] for request in fake.model_requests()]
    assert choices.count("required") == 1 and run.outcome.complete and run.outcome.forced_rejected
    selects = {fixture.id for fixture in fixtures if fixture.kind == "select"}
    assert {result.mode for result in run.results if result.fixture_id in selects} == {"auto_instructed"}
    assert read_results(run.path).header.tool_choice == "auto_instructed"


def test_a_server_that_crashes_on_required_tool_choice_falls_back_once_as_llama_cpp_needs(
    tmp_path: Path, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    # llama-cpp-python's server answers tool_choice "required" with an empty HTTP 500
    # (tests/providers/test_llama_cpp.py runs the real one where it is installed).
    fixtures = helpdesk_fixtures[:8]
    crash = Reply(500, {"error": {"message": "", "type": "internal_server_error"}})
    with FakeOpenAI(key=None) as fake:
        fake.script(crash, when=lambda request: request.json.get("tool_choice") == "required", times=None)
        run = run_fixtures(tmp_path, openai_for(fake, helpdesk_catalog, "smollm2"), fixtures)
        choices = [request.json["tool_choice"] for request in fake.model_requests()]
    assert choices.count("required") == 1  # found out once, by the warm-up; never retried as an outage
    assert run.outcome.complete and run.outcome.forced_rejected
    selects = {fixture.id for fixture in fixtures if fixture.kind == "select"}
    assert {result.mode for result in run.results if result.fixture_id in selects} == {"auto_instructed"}
    [note] = [note for note in read_results(run.path).header.notes if "rejects forced tool use" in note]
    assert 'in answer to tool_choice "required"' in note


def test_a_server_that_accepts_required_but_ignores_it_is_noted_and_its_answers_stand(
    tmp_path: Path, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    fixtures = helpdesk_fixtures[:12]
    with FakeOpenAI(key=None) as fake:
        fake.forced_ignoring.add("local-llm")
        provider = openai_for(fake, helpdesk_catalog, "local-llm")
        run = run_fixtures(tmp_path, provider, fixtures)
    selects = {fixture.id for fixture in fixtures if fixture.kind == "select"}
    ignored = [r for r in run.results if r.fixture_id in selects and not r.calls]
    assert ignored and {r.mode for r in ignored} == {"forced"}  # recorded as sent, scored as no call
    assert run.outcome.complete and not run.outcome.forced_rejected
    assert run.outcome.forced_ignored == len(ignored)
    header = read_results(run.path).header
    assert header.tool_choice != "auto_instructed"
    [note] = [note for note in header.notes if "did not honour forced tool use" in note]
    assert plural(len(ignored), "answer") in note
    assert run.stderr.count("did not honour forced tool use") == 1  # said once, as it happened


def test_progress_is_plain_lines_when_not_on_a_terminal(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    run = run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog), helpdesk_fixtures[:3])
    lines = run.stderr.splitlines()
    assert lines[-1].startswith("run: done, 3/3 (100%), reached 3")
    assert "\r" not in run.stderr and "\x1b" not in run.stderr


def test_progress_on_a_terminal_redraws_one_line() -> None:
    import io

    stream = io.StringIO()
    progress = Progress(2, stream=stream, tty=True, interval=0.0)
    result = FixtureResult(
        fixture_id="a", fixture_hash="h", provider="lexical", model="bm25", catalog_hash="c", reached=True
    )
    progress.update(result)
    progress.message("note: something")
    progress.update(result)
    progress.close()
    text = stream.getvalue()
    assert "\r\x1b[K" in text and "[########################]" in text and "note: something\n" in text


# -- planning ---------------------------------------------------------------------------------


def test_shards_are_disjoint_balanced_and_together_the_whole_set(helpdesk_fixtures: list[Fixture]) -> None:
    for count in (1, 2, 3, 7):
        shards = [shard_fixtures(helpdesk_fixtures, index, count) for index in range(1, count + 1)]
        ids = [fixture.id for shard in shards for fixture in shard]
        assert sorted(ids) == sorted(fixture.id for fixture in helpdesk_fixtures)  # union, no duplicates
        assert max(map(len, shards)) - min(map(len, shards)) <= 1
    reordered = list(reversed(helpdesk_fixtures))
    assert {f.id for f in shard_fixtures(reordered, 2, 3)} == {
        f.id for f in shard_fixtures(helpdesk_fixtures, 2, 3)
    }


def test_limit_takes_the_first_fixtures_before_sharding(helpdesk_fixtures: list[Fixture]) -> None:
    assert plan_fixtures(helpdesk_fixtures, limit=5) == helpdesk_fixtures[:5]
    halves = plan_fixtures(helpdesk_fixtures, limit=10, shard="1/2") + plan_fixtures(
        helpdesk_fixtures, limit=10, shard="2/2"
    )
    assert sorted(f.id for f in halves) == sorted(f.id for f in helpdesk_fixtures[:10])


@pytest.mark.parametrize("shard", ["0/2", "3/2", "1-2", "a/b", "1/0"])
def test_a_bad_shard_is_a_usage_error(shard: str, helpdesk_fixtures: list[Fixture]) -> None:
    from mcp_evals.errors import ConfigError

    with pytest.raises(ConfigError):
        plan_fixtures(helpdesk_fixtures, shard=shard)


def test_an_answer_cut_off_at_max_tokens_before_any_call_is_a_dropout_not_a_wrong_choice(
    tmp_path: Path, fake: FakeAnthropic, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    from fakes.fake_anthropic import CutOff
    from mcp_evals.score import score_results

    selects = [fixture for fixture in helpdesk_fixtures if fixture.kind == "select"][:4]
    fake.answers[selects[1].query] = CutOff()

    run = run_fixtures(tmp_path, anthropic_for(fake, helpdesk_catalog), selects)

    cut = run.by_id[selects[1].id]
    assert not cut.reached and cut.error_kind == "truncated"
    assert "raise run.max_tokens" in (cut.error_message or "")
    assert cut.usage.output_tokens > 0 and cut.cost_usd is not None  # paid for: kept in the cost
    scorecard = score_results(read_results(run.path))
    assert scorecard.preliminary
    assert scorecard.coverage.reached == 3
    scored = {fixture.id: fixture for fixture in scorecard.fixtures}[selects[1].id]
    assert [sample.outcome for sample in scored.samples] == ["dropout"]
    assert all(selects[1].id not in pair.fixtures for pair in scorecard.confusion_pairs)
