"""`mcp-evals compare --arms` against fake APIs that answer tool search the way the real ones do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli, MakeProject
from fakes.fake_anthropic import FakeAnthropic, anthropic_in_env
from fakes.fake_http import Recorded, Reply
from fakes.fake_openai import FakeOpenAI
from mcp_evals.answers import Usage
from mcp_evals.catalog.model import Catalog
from mcp_evals.compare.paired import Comparison
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.pricing import find_price
from mcp_evals.record.read import read_results
from mcp_evals.run.budget import Budget
from mcp_evals.stats import sign_test

from .oracle import Oracle, context_of


@pytest.fixture
def oracle(helpdesk_fixtures: list[Fixture], helpdesk_catalog: Catalog) -> Oracle:
    return Oracle(list(helpdesk_fixtures), catalog_size=len(helpdesk_catalog.tools))


@pytest.fixture
def anthropic(clean_env: pytest.MonkeyPatch, oracle: Oracle) -> Iterator[FakeAnthropic]:
    with anthropic_in_env(clean_env, chooser=oracle.anthropic()) as server:
        yield server


def arm_requests(fake: FakeAnthropic | FakeOpenAI, arm: str, size: int | None = None) -> list[Recorded]:
    return [r for r in fake.model_requests() if context_of(r.json.get("tools") or [], size) == arm]


def compare(cli: Cli, config: Path, out: Path, *extra: str) -> Any:
    return cli("compare", "--config", config, "--budget-usd", "10", "--out", out, *extra)


def test_the_deferred_request_defers_every_tool_behind_one_search_tool_and_keeps_the_cache_marks(
    make_project: MakeProject, anthropic: FakeAnthropic, helpdesk_catalog: Catalog, cli: Cli, tmp_path: Path
) -> None:
    project = make_project(
        compare={"tool_search": {"variant": "regex", "beta": "advanced-tool-use-2025-11-20"}}
    )
    anthropic.tool_search_beta = "advanced-tool-use-2025-11-20"  # an endpoint that still needs it

    result = compare(cli, project.config, tmp_path / "o", "--arms", "full,deferred", "--limit", "3")

    assert result.code == 0, result.err
    deferred = arm_requests(anthropic, "deferred")
    assert len(deferred) == 3
    for request in deferred:
        assert request.headers["anthropic-beta"] == "advanced-tool-use-2025-11-20"
        tools = request.json["tools"]
        assert tools[-1] == {
            "type": "tool_search_tool_regex_20251119",
            "name": "tool_search_tool_regex",
            "cache_control": {"type": "ephemeral"},
        }
        catalog_tools = tools[:-1]
        assert [tool["name"] for tool in catalog_tools] == helpdesk_catalog.tool_names
        for tool, expected in zip(catalog_tools, helpdesk_catalog.tools, strict=True):
            assert tool == {
                "name": expected.name,
                "description": expected.description,
                "input_schema": expected.input_schema,
                "defer_loading": True,
            }
        assert request.json["system"][-1]["cache_control"] == {"type": "ephemeral"}
    full = arm_requests(anthropic, "full")
    assert all("anthropic-beta" not in request.headers for request in full)
    assert all(not any("defer_loading" in tool for tool in request.json["tools"]) for request in full)


def test_searches_and_revealed_tools_are_recorded_and_the_first_real_call_is_the_choice(
    make_project: MakeProject,
    anthropic: FakeAnthropic,
    helpdesk_fixtures: list[Fixture],
    cli: Cli,
    tmp_path: Path,
) -> None:
    refund = next(f for f in helpdesk_fixtures if f.id == "billing-refund-duplicate-charge")
    anthropic.search_terms[refund.query] = "refund money back invoice"
    out = tmp_path / "o"

    result = compare(cli, make_project().config, out, "--arms", "full,deferred")

    assert result.code == 0, result.err
    records = {r.fixture_id: r for r in read_results(out / "deferred.ndjson").results}
    answer = records[refund.id]
    assert answer.retrieval is not None
    assert answer.retrieval.searches == ["refund money back invoice"] and answer.retrieval.requests == 1
    assert "issue_refund" in answer.retrieval.revealed and len(answer.retrieval.revealed) <= 5
    assert [call.name for call in answer.calls] == ["issue_refund"]  # the server_tool_use is not a call
    comparison = Comparison.model_validate_json((out / "comparison.json").read_text())
    deferred = comparison.arms[1]
    assert deferred.arm.name == "deferred" and deferred.retrieval is not None
    recall = deferred.retrieval.recall
    assert recall.total == sum(f.kind == "select" for f in helpdesk_fixtures)
    assert len(deferred.retrieval.missed) == recall.total - recall.hits
    # an answer whose search missed is never counted in selection given retrieval
    assert deferred.retrieval.selection_given_retrieval.total == recall.hits


def test_a_paused_turn_is_sent_back_and_both_requests_are_paid_for(
    make_project: MakeProject,
    anthropic: FakeAnthropic,
    helpdesk_fixtures: list[Fixture],
    cli: Cli,
    tmp_path: Path,
) -> None:
    fixture = next(f for f in helpdesk_fixtures if f.id == "billing-refund-duplicate-charge")
    anthropic.search_terms[fixture.query] = "refund money back invoice"
    anthropic.pause_after_search.add(fixture.query)
    out = tmp_path / "o"

    result = compare(cli, make_project().config, out, "--arms", "full,deferred")

    assert result.code == 0, result.err
    sent = [r for r in arm_requests(anthropic, "deferred") if r.query == fixture.query]
    assert len(sent) == 2
    continued = sent[1].json["messages"]
    assert [message["role"] for message in continued] == ["user", "assistant"]
    assert [block["type"] for block in continued[1]["content"]] == [
        "server_tool_use",
        "tool_search_tool_result",
    ]
    answer = next(r for r in read_results(out / "deferred.ndjson").results if r.fixture_id == fixture.id)
    assert answer.retrieval is not None and answer.retrieval.requests == 2
    assert [call.name for call in answer.calls] == ["issue_refund"]
    assert answer.retrieval.searches == ["refund money back invoice"]


def test_the_client_side_search_takes_two_requests_and_counts_both(
    make_project: MakeProject,
    clean_env: pytest.MonkeyPatch,
    oracle: Oracle,
    helpdesk_fixtures: list[Fixture],
    cli: Cli,
    tmp_path: Path,
) -> None:
    usages: list[dict[str, Any]] = []

    class Recording(FakeOpenAI):
        def completion(self, body: dict[str, Any], written: list[str] | None = None) -> dict[str, Any]:
            answer = super().completion(body, written)
            names = [tool["function"]["name"] for tool in body.get("tools") or []]
            second = any(message.get("role") == "tool" for message in body["messages"])
            with self.lock:
                usages.append(
                    {
                        "messages": body["messages"],
                        "deferred": names == ["search_tools"] or second,
                        **answer["usage"],
                    }
                )
            return answer

    fake = Recording(chooser=oracle.openai())
    out = tmp_path / "o"
    with fake:
        assert fake.key is not None
        clean_env.setenv("OPENAI_API_KEY", fake.key)
        clean_env.setenv("OPENAI_BASE_URL", fake.base_url + "/v1")
        project = make_project(compare={"tool_search": {"top_k": 3}})
        result = compare(
            cli, project.config, out, "--arms", "full,deferred", "--model", "gpt-5.4", "--limit", "6"
        )

    assert result.code == 0, result.err
    selects = [f for f in helpdesk_fixtures[:6] if f.kind == "select"]
    searches = arm_requests(fake, "deferred")
    assert len(searches) == len(selects)
    for request in searches:
        assert request.json["tools"] == [
            {
                "type": "function",
                "function": {
                    "name": "search_tools",
                    "description": request.json["tools"][0]["function"]["description"],
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "query": {
                                "type": "string",
                                "description": "What the user wants done, in a few words.",
                            }
                        },
                        "required": ["query"],
                    },
                },
            }
        ]
    seconds = [r for r in fake.model_requests() if any(m.get("role") == "tool" for m in r.json["messages"])]
    assert len(seconds) == len(selects)
    for request in seconds:
        assert 1 <= len(request.json["tools"]) <= 3
        roles = [message["role"] for message in request.json["messages"]]
        assert roles == ["system", "user", "assistant", "tool"]
    price = find_price("gpt-5.4")
    assert price is not None
    for answer in read_results(out / "deferred.ndjson").results:
        fixture = next(f for f in helpdesk_fixtures if f.id == answer.fixture_id)
        asked = [u for u in usages if u["messages"][1]["content"] == fixture.query and u["deferred"]]
        expected = Usage()
        for usage in asked:
            cached = usage["prompt_tokens_details"]["cached_tokens"]
            expected = expected + Usage(
                input_tokens=usage["prompt_tokens"] - cached,
                output_tokens=usage["completion_tokens"],
                cache_read_tokens=cached,
            )
        assert answer.retrieval is not None
        assert answer.retrieval.requests == len(asked) == (2 if fixture.kind == "select" else 1)
        assert answer.usage == expected  # both requests, in the usage and so in the cost
        assert answer.cost_usd == pytest.approx(price.cost(expected))
        if fixture.kind == "select":
            assert answer.retrieval.searches == [fixture.query] and answer.retrieval.revealed
    comparison = Comparison.model_validate_json((out / "comparison.json").read_text())
    deferred = comparison.arms[1]
    total = len(helpdesk_fixtures[:6])
    assert deferred.requests_per_fixture == pytest.approx((2 * len(selects) + total - len(selects)) / total)


def test_the_grouped_arm_opens_an_area_then_offers_its_tools(
    make_project: MakeProject, anthropic: FakeAnthropic, helpdesk_catalog: Catalog, cli: Cli, tmp_path: Path
) -> None:
    out = tmp_path / "o"

    result = compare(cli, make_project().config, out, "--arms", "grouped,full", "--limit", "4")

    assert result.code == 0, result.err
    routers = arm_requests(anthropic, "grouped")
    assert len(routers) == 4
    tools = routers[0].json["tools"]
    assert [tool["name"] for tool in tools] == [f"open_{area}" for area in helpdesk_catalog.areas]
    billing = next(tool for tool in tools if tool["name"] == "open_billing")
    assert billing["description"].startswith("Open the billing tools, then call one of them. They are: ")
    assert "issue_refund: " in billing["description"] and "search_tickets" not in billing["description"]
    assert tools[-1]["cache_control"] == {"type": "ephemeral"}
    seconds = arm_requests(anthropic, "partial", len(helpdesk_catalog.tools))
    assert len(seconds) == 4
    for request in seconds:
        names = [tool["name"] for tool in request.json["tools"]]
        areas = {helpdesk_catalog.by_name[name].area for name in names}
        assert len(areas) == 1 and len(names) == sum(t.area in areas for t in helpdesk_catalog.tools)
        _user, assistant, result_turn = request.json["messages"]
        call = assistant["content"][-1]
        assert call["type"] == "tool_use" and call["name"] == f"open_{areas.pop()}"
        assert result_turn["content"][0]["tool_use_id"] == call["id"]
    answers = read_results(out / "grouped.ndjson").results
    assert all(a.retrieval is not None and a.retrieval.area and a.retrieval.requests == 2 for a in answers)
    # the full arm comes first whatever order --arms names them in: it is the reference
    comparison = Comparison.model_validate_json((out / "comparison.json").read_text())
    assert [arm.arm.name for arm in comparison.arms] == ["full", "grouped"]


def test_paired_statistics_and_the_gate_says_which_remediation_helped(
    make_project: MakeProject,
    anthropic: FakeAnthropic,
    oracle: Oracle,
    helpdesk_fixtures: list[Fixture],
    cli: Cli,
    tmp_path: Path,
) -> None:
    selects = [f for f in helpdesk_fixtures if f.kind == "select"]
    for fixture in selects[:9]:
        oracle.wrong[(fixture.query, "full")] = "list_agents"  # the whole catalog confuses these
        anthropic.search_terms[fixture.query] = " ".join(fixture.expected_tools[0].split("_"))
    oracle.wrong[(selects[9].query, "deferred")] = "list_agents"
    anthropic.search_terms[selects[9].query] = "list agents"
    for fixture in selects[10:]:
        anthropic.search_terms[fixture.query] = " ".join(fixture.expected_tools[0].split("_"))
    for fixture in selects[20:24]:
        oracle.wrong[(fixture.query, "grouped-area")] = "list_agents"  # opens the wrong area
    out = tmp_path / "o"

    result = compare(cli, make_project().config, out, "--arms", "full,deferred,grouped")

    assert result.code == 0, result.err
    comparison = Comparison.model_validate_json((out / "comparison.json").read_text())
    pairs = {(pair.first, pair.second): pair for pair in comparison.pairs}
    deferred = pairs[("full", "deferred")]
    assert sorted(deferred.fixes) == sorted(f.id for f in selects[:9])
    assert deferred.breaks == [selects[9].id]
    assert deferred.p_value == pytest.approx(sign_test(1, 9))
    assert deferred.delta_pp == pytest.approx(100 * 8 / len(helpdesk_fixtures))
    grouped = pairs[("full", "grouped")]
    assert len(grouped.fixes) == 9 and sorted(grouped.breaks) == sorted(f.id for f in selects[20:24])
    assert grouped.p_value == pytest.approx(sign_test(4, 9))
    assert ("deferred", "grouped") in pairs
    # the full arm's gate decision, with the evidence of the remediation that helped
    full = comparison.arms[0]
    assert full.gate.decision == "remediate"
    assert comparison.verdict.startswith(full.gate.message)
    cost = round(deferred.cost_change * 100) if deferred.cost_change is not None else None
    assert cost is not None
    evidence = f"deferred: +14.3 points, p = {deferred.p_value:.2g}, cost {cost:+d} %".replace("-", "−")
    assert f"On this catalog the remediation that helped: {evidence}." in comparison.verdict
    assert "grouped" not in comparison.verdict.split("helped:")[1]
    # per arm: top-1 and the score with their intervals, cost and input tokens per fixture
    assert full.top1.low is not None and full.cost_per_fixture and full.input_tokens_per_fixture
    for arm in comparison.arms:
        assert arm.score is not None and arm.score_low is not None and arm.score_high is not None
        assert arm.score_low <= arm.score <= arm.score_high
        row = next(
            line for line in result.out.splitlines() if line.startswith(f"| <code>{arm.arm.name}</code> |")
        )
        assert f" | {arm.score:.1f} ({arm.score_low:.0f}–{arm.score_high:.0f}) | " in row
    assert "| score (95 % interval) |" in result.out
    assert comparison.arms[1].input_tokens_per_fixture < full.input_tokens_per_fixture
    assert "### Retrieval: <code>deferred</code>" in result.out


def test_none_helped_is_said_with_each_arms_evidence(
    make_project: MakeProject,
    anthropic: FakeAnthropic,
    oracle: Oracle,
    helpdesk_fixtures: list[Fixture],
    cli: Cli,
    tmp_path: Path,
) -> None:
    selects = [f for f in helpdesk_fixtures if f.kind == "select"]
    for fixture in selects[:2]:
        oracle.wrong[(fixture.query, "full")] = "list_agents"
    for fixture in selects:
        anthropic.search_terms[fixture.query] = " ".join(fixture.expected_tools[0].split("_"))

    result = compare(cli, make_project().config, tmp_path / "o", "--arms", "full,deferred")

    assert result.code == 0, result.err
    comparison = Comparison.model_validate_json((tmp_path / "o" / "comparison.json").read_text())
    assert (
        "None of the remediations tried helped on this catalog (a real gain needs p below 0.05): "
        "deferred: +3.6 points, p = 0.5" in comparison.verdict
    )


def test_the_deferred_and_grouped_arms_need_a_model_and_grouped_needs_areas(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, anthropic: FakeAnthropic, cli: Cli
) -> None:
    project = make_project()
    result = cli("compare", "--config", project.config, "--arms", "full,deferred", "--provider", "lexical")
    assert result.code == 3 and "need a model, not the lexical baseline" in result.err
    one_area = make_project(areas={})
    result = cli("compare", "--config", one_area.config, "--arms", "full,grouped", "--budget-usd", "1")
    assert result.code == 3 and "the grouped arm needs at least two areas" in result.err
    result = cli("compare", "--config", project.config, "--arms", "full,lazy", "--budget-usd", "1")
    assert result.code == 3 and "give distinct arms among full, deferred, grouped" in result.err
    assert anthropic.requests == []


def test_a_two_request_arm_reserves_two_requests_of_budget() -> None:
    price = find_price("claude-sonnet-4-6")
    assert price is not None
    one = Budget(1.0, price, 1024, prefix=b"x" * 4000)
    two = Budget(1.0, price, 1024, prefix=b"x" * 4000, requests_per_job=2)
    assert two.next_request_cost() == pytest.approx(2 * one.next_request_cost())
    assert one.next_request_cost(3) == pytest.approx(3 * one.next_request_cost())


def test_a_paused_tool_search_reserves_its_three_requests_so_the_cap_holds(
    make_project: MakeProject,
    anthropic: FakeAnthropic,
    helpdesk_fixtures: list[Fixture],
    cli: Cli,
    tmp_path: Path,
) -> None:
    # Every request can cost at most $1 (input free, 1,000 output tokens at $1,000 per million), and
    # a deferred turn that pauses twice costs exactly that three times: 1 request + 2 continuations.
    project = make_project(
        run={
            "max_tokens": 1000,
            "prices": {"claude-opus-4-8": {"input": 0, "output": 1000, "cache_write": 0, "cache_read": 0}},
        }
    )
    first = helpdesk_fixtures[0]
    paused = {
        "id": "msg_paused",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-8",
        "content": [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "tool_search_tool_bm25",
                "input": {"query": "x"},
            }
        ],
        "stop_reason": "pause_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 1000},
    }

    def deferred(request: Recorded) -> bool:
        return request.query == first.query and context_of(request.json.get("tools") or []) == "deferred"

    anthropic.script(Reply(200, paused, {"request-id": "req_p"}), when=deferred, times=None)
    cap = 2.5  # the full arm's answer (cents) and two requests' worst case fit; three do not
    out = tmp_path / "o"

    result = cli(
        "compare", "--config", project.config, "--arms", "full,deferred", "--limit", "1",
        "--concurrency", "1", "--budget-usd", str(cap), "--out", out,
    )  # fmt: skip

    assert result.code == 2, result.err  # PRELIMINARY: the deferred answer was never asked for
    records = [*read_results(out / "full.ndjson").results, *read_results(out / "deferred.ndjson").results]
    spent = sum(record.cost_usd or 0.0 for record in records)
    assert 0 < spent <= cap  # the cap holds: the paused turn's third request would have crossed it
    assert [r for r in anthropic.model_requests() if deferred(r)] == []
    stopped = read_results(out / "deferred.ndjson").results[0]
    assert not stopped.reached and stopped.error_kind == "budget"
    assert "could cost up to $3.0000" in result.err  # three requests' worst case, reserved before sending


def test_the_grouped_arm_through_an_openai_compatible_api(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, oracle: Oracle, cli: Cli, tmp_path: Path
) -> None:
    fake = FakeOpenAI(chooser=oracle.openai())
    with fake:
        assert fake.key is not None
        clean_env.setenv("OPENAI_API_KEY", fake.key)
        clean_env.setenv("OPENAI_BASE_URL", fake.base_url + "/v1")
        result = compare(cli, make_project().config, tmp_path / "o", "--arms", "full,grouped", "--limit", "5")
        seconds = [r for r in fake.model_requests() if any(m["role"] == "tool" for m in r.json["messages"])]

    assert result.code == 0, result.err  # the fake refuses tool messages out of order: none were
    assert len(seconds) == 5
    for request in seconds:
        assistant, answer = request.json["messages"][-2:]
        assert assistant["tool_calls"][0]["function"]["name"].startswith("open_")
        assert answer == {
            "role": "tool",
            "tool_call_id": assistant["tool_calls"][0]["id"],
            "content": answer["content"],
        }
    comparison = Comparison.model_validate_json((tmp_path / "o" / "comparison.json").read_text())
    assert comparison.pairs[0].paired == 5 and comparison.arms[1].requests_per_fixture == 2


def test_a_failed_second_request_is_retried_without_paying_for_the_first_again(
    make_project: MakeProject, anthropic: FakeAnthropic, helpdesk_catalog: Catalog, cli: Cli, tmp_path: Path
) -> None:
    def second_request(request: Recorded) -> bool:
        return isinstance(request.json, dict) and len(request.json.get("messages") or []) == 3

    anthropic.script(anthropic.server_error(), when=second_request, times=1)

    result = compare(cli, make_project().config, tmp_path / "o", "--arms", "full,grouped", "--limit", "1")

    assert result.code == 0, result.err
    assert len(arm_requests(anthropic, "full", len(helpdesk_catalog.tools))) == 1
    requests = [r for r in anthropic.model_requests() if len(r.json["messages"]) == 3]
    requests = [*arm_requests(anthropic, "grouped"), *requests]
    assert [len(r.json["messages"]) for r in requests] == [1, 3, 3]  # one router request, the second twice
    answer = read_results(tmp_path / "o" / "grouped.ndjson").results[0]
    assert answer.reached and answer.attempts == 2 and answer.retrieval is not None
    assert answer.retrieval.requests == 2


def test_dry_estimates_each_arm_per_fixture_and_sends_nothing(
    make_project: MakeProject, anthropic: FakeAnthropic, cli: Cli
) -> None:
    result = cli(
        "compare",
        "--config",
        make_project().config,
        "--arms",
        "full,deferred,grouped",
        "--dry",
        "--budget-usd",
        "0.01",
    )

    assert result.code == 0, result.err
    assert anthropic.requests == []
    lines = result.out.splitlines()
    assert lines[1] == "56 fixtures × 1 sample × 3 arms, interleaved in one run"
    per_arm = {line.split()[0]: line for line in lines if line.startswith("  ")}
    assert per_arm["full"].split()[1] == "1" and per_arm["deferred"].split()[1] == "1"
    assert per_arm["grouped"].split()[1] == "2"

    def tokens(arm: str) -> int:
        return int(per_arm[arm].split(" · ")[1].split()[0].replace(",", ""))

    assert tokens("deferred") < tokens("full")  # the deferred catalog is not in the prompt
    assert "budget $0.01: does not fit" in result.out


def test_a_malformed_search_result_reveals_nothing_and_never_crashes() -> None:
    from mcp_evals.providers.anthropic_tool_search import read_searches

    blocks: list[Any] = [
        "not a block",
        {"type": "server_tool_use", "id": "srvtoolu_1", "input": "not an object"},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": "oops"},
        {"type": "tool_search_tool_result", "content": {"tool_references": [{"type": "tool_reference"}, 7]}},
        {
            "type": "tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [{"type": "tool_reference", "tool_name": "x"}],
        },
    ]
    assert read_searches(blocks) == ([""], ["x"])


@pytest.mark.parametrize(
    ("arms", "dry", "fix"),
    [("deferred", False, "--arms full,deferred"), ("full", True, "--arms full,deferred")],
)
def test_one_arm_is_refused_before_anything_is_sent(
    make_project: MakeProject,
    anthropic: FakeAnthropic,
    cli: Cli,
    tmp_path: Path,
    arms: str,
    dry: bool,
    fix: str,
) -> None:
    out = tmp_path / "o"

    result = compare(cli, make_project().config, out, "--arms", arms, *(["--dry"] if dry else []))

    assert result.code == 3, result.err
    assert f"--arms {arms!r}: one arm is nothing to compare" in result.err and fix in result.err
    assert "Nothing to compare: one arm only" not in result.out + result.err
    assert anthropic.requests == [] and not out.exists()


def test_one_arm_in_the_config_is_refused_naming_its_line(
    make_project: MakeProject, anthropic: FakeAnthropic, cli: Cli, tmp_path: Path
) -> None:
    project = make_project(compare={"arms": ["grouped"]})
    lines = project.config.read_text().splitlines()
    line = next(number for number, text in enumerate(lines, start=1) if text.strip().startswith("arms:"))

    result = compare(cli, project.config, tmp_path / "o")

    assert result.code == 3, result.err
    assert f"{project.config}:{line} (compare.arms): one arm is nothing to compare" in result.err
    assert "[full, grouped]" in result.err
    assert anthropic.requests == []
