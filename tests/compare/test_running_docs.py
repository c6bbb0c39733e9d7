"""docs/running.md on `mcp-evals compare` and the spending rule of synth and compare, as a user runs them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from conftest import Cli, MakeProject
from fakes import fake_openai
from fakes.fake_anthropic import FakeAnthropic, anthropic_in_env
from fakes.fake_http import Recorded, Reply, query_is
from fakes.fake_openai import FakeOpenAI
from mcp_evals.catalog.model import Catalog
from mcp_evals.catalog.snapshot import load_catalog, write_snapshot
from mcp_evals.compare.arms import DeferredArm, FullArm, GroupedArm
from mcp_evals.config.model import CompareOptions, LintThresholds, ToolSearchOptions
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.read import read_results
from synth.scripted import SynthModel, write_project

from .oracle import Oracle, context_of

DOCS = Path(__file__).resolve().parents[2] / "docs"
RUNNING = (DOCS / "running.md").read_text("utf-8")


@pytest.fixture
def fake(clean_env: pytest.MonkeyPatch, helpdesk_fixtures: list[Fixture]) -> Iterator[FakeAnthropic]:
    with anthropic_in_env(clean_env, chooser=Oracle(list(helpdesk_fixtures)).anthropic()) as server:
        yield server


def test_the_compare_example_in_running_md_is_a_valid_section(helpdesk_catalog: Catalog) -> None:
    section = RUNNING.split("## `mcp-evals compare`", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)[0]
    options = CompareOptions.model_validate(yaml.safe_load(block)["compare"])
    assert set(options.descriptions) <= set(helpdesk_catalog.tool_names) and options.alpha == 0.05
    assert CompareOptions().alpha == 0.05  # "default 0.05"


def test_an_arm_record_is_a_normal_results_file_and_split_and_dry_work(
    make_project: MakeProject, fake: FakeAnthropic, helpdesk_fixtures: list[Fixture], cli: Cli, tmp_path: Path
) -> None:
    project = make_project(
        own_fixtures=True, compare={"descriptions": {"get_ticket": "Show one ticket by id."}}
    )
    chosen = [f for f in helpdesk_fixtures if f.kind == "select"][:6]
    entries = [
        {
            **f.model_dump(mode="json", exclude_defaults=True, exclude={"source"}),
            "split": "test" if i < 2 else "dev",
        }
        for i, f in enumerate(chosen)
    ]
    project.write_fixtures(entries)

    dry = cli("compare", "--config", project.config, "--split", "test", "--dry", "--budget-usd", "1")
    assert dry.code == 0, dry.err and fake.requests == []
    assert "2 fixtures × 1 sample × 2 arms, interleaved in one run" in dry.out
    assert re.search(r"^  A  1 request / fixture · [\d,]+ input tokens / fixture · \$", dry.out, re.MULTILINE)

    out = tmp_path / "cmp"
    result = cli("compare", "--config", project.config, "--split", "test", "--budget-usd", "1", "--out", out)
    assert result.code == 0, result.err
    assert len(fake.model_requests()) == 4  # 2 test fixtures × 2 arms
    assert sorted(path.name for path in out.iterdir()) == [
        "A.ndjson",
        "B.ndjson",
        "comparison.json",
        "comparison.md",
    ]

    report = cli("report", out / "B.ndjson")
    assert report.code == 0, report.err
    assert "compare arm B (full)" in report.out


def test_fixtures_that_do_not_validate_against_an_arms_catalog_are_refused(
    make_project: MakeProject, fake: FakeAnthropic, helpdesk_snapshot: Path, cli: Cli, tmp_path: Path
) -> None:
    catalog = load_catalog(helpdesk_snapshot)
    servers = [
        server.model_copy(update={"tools": [t for t in server.tools if t["name"] != "merge_tickets"]})
        for server in catalog.servers
    ]
    smaller = tmp_path / "b.json"
    write_snapshot(
        Catalog(tools=[t for t in catalog.tools if t.name != "merge_tickets"], servers=servers), smaller
    )

    result = cli("compare", "--config", make_project().config, "--catalog-b", smaller, "--budget-usd", "1")

    assert result.code == 3 and "catalog of arm 'B'" in result.err and "merge_tickets" in result.err
    assert fake.requests == []


def test_a_provider_asked_for_without_its_key_skips_synth_and_compare_with_exit_0(
    tmp_path: Path, make_project: MakeProject, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    config = write_project(tmp_path)
    result = cli("synth", "--config", config, "--out", tmp_path / "s.yaml", "--provider", "anthropic")
    assert result.code == 0 and result.err.startswith(
        "mcp-evals synth: skipped: the anthropic provider was asked for, but ANTHROPIC_API_KEY is not set."
    )
    assert not (tmp_path / "s.yaml").exists()
    project = make_project(compare={"descriptions": {"get_ticket": "Show one ticket."}})
    result = cli("compare", "--config", project.config, "--provider", "openai", "--budget-usd", "1")
    assert result.code == 0 and "but OPENAI_API_KEY is not set" in result.err.splitlines()[0]
    assert not (project.root / "mcp-evals-compare").exists()


def test_a_keyless_endpoint_of_your_own_needs_no_cap(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    model = SynthModel()
    fake = FakeOpenAI(
        key=None,
        chooser=lambda query, tools, choice: fake_openai.Text(model.answer(query)),
    )
    with fake:
        config = write_project(tmp_path)
        result = cli(
            "synth",
            "--config",
            config,
            "--out",
            tmp_path / "s.yaml",
            "--provider",
            "openai",
            "--base-url",
            fake.base_url + "/v1",
            "--model",
            "llama3.1",
        )
        sent = len(fake.model_requests())
    assert result.code == 0, result.err
    assert sent > 0 and "cost $" not in result.out  # unpriced, unbilled
    assert json.loads(fake.model_requests()[0].body)["model"] == "llama3.1"


def test_the_deferred_arm_reserves_every_request_a_paused_tool_search_can_send() -> None:
    from mcp_evals.compare.arms import ToolSearch
    from mcp_evals.providers.anthropic import AnthropicProvider
    from mcp_evals.providers.anthropic_tool_search import MAX_CONTINUATIONS
    from mcp_evals.providers.base import ProviderSettings
    from mcp_evals.providers.openai import OpenAIProvider
    from mcp_evals.run.asker import Asker

    search = ToolSearch("bm25", 5)
    server = DeferredArm(
        "deferred",
        Asker(AnthropicProvider(ProviderSettings(model="claude-opus-4-8")), Catalog(tools=[])),
        search,
    )
    client = DeferredArm(
        "deferred", Asker(OpenAIProvider(ProviderSettings(model="gpt-5.4")), Catalog(tools=[])), search
    )
    assert server.server_side and server.requests_per_job == 1 + MAX_CONTINUATIONS == 3
    assert not client.server_side and client.requests_per_job == 2
    assert "| 1 (up to 3 when a long turn pauses" in RUNNING and "at most twice" in RUNNING


# -- the remediations section ----------------------------------------------------------------------

REMEDIATIONS = RUNNING.split("### Remediations: `--arms full,deferred,grouped`", 1)[1].split("\n## ", 1)[0]


def test_the_remediation_defaults_in_running_md_are_the_codes() -> None:
    thresholds = LintThresholds()
    assert thresholds.max_tools == 40 and thresholds.max_catalog_tokens == 8000
    assert "C003 warns past\n  40 tools, T001 past 8,000 tokens" in REMEDIATIONS
    search = ToolSearchOptions()
    assert search.variant == "bm25" and search.top_k == 5 and search.beta is None
    assert "`compare.tool_search.top_k` (5)" in REMEDIATIONS
    assert (FullArm.requests_per_job, DeferredArm.requests_per_job, GroupedArm.requests_per_job) == (1, 2, 2)
    assert (
        "one for `full`, two for `grouped` and the client-side `deferred`, three for Anthropic's\n"
        in REMEDIATIONS
    )
    assert "reserves two requests' worst case" not in REMEDIATIONS
    block = re.findall(r"```yaml\n(.*?)```", REMEDIATIONS, re.DOTALL)[0]
    options = CompareOptions.model_validate(yaml.safe_load(block)["compare"])
    assert options.arms == ["full", "deferred", "grouped"]


def test_tool_choice_is_the_full_arms_and_no_beta_header_is_sent_by_default(
    make_project: MakeProject, fake: FakeAnthropic, cli: Cli, tmp_path: Path
) -> None:
    result = cli(
        "compare",
        "--config",
        make_project().config,
        "--arms",
        "full,deferred,grouped",
        "--limit",
        "3",
        "--budget-usd",
        "5",
        "--out",
        tmp_path / "o",
    )
    assert result.code == 0, result.err
    choices = {json.dumps(r.json.get("tool_choice")) for r in fake.model_requests()}
    assert choices == {'{"type": "any"}'}  # three select fixtures: forced in every arm and request
    assert all("anthropic-beta" not in r.headers for r in fake.model_requests())


def test_a_turn_still_paused_after_two_continuations_is_a_truncated_dropout(
    make_project: MakeProject, fake: FakeAnthropic, helpdesk_fixtures: list[Fixture], cli: Cli, tmp_path: Path
) -> None:
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
            },
        ],
        "stop_reason": "pause_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 10},
    }

    def deferred(request: Recorded) -> bool:
        return query_is(first.query)(request) and context_of(request.json.get("tools") or []) == "deferred"

    fake.script(Reply(200, paused, {"request-id": "req_p"}), when=deferred, times=None)

    result = cli(
        "compare",
        "--config",
        make_project().config,
        "--arms",
        "full,deferred",
        "--limit",
        "1",
        "--budget-usd",
        "5",
        "--out",
        tmp_path / "o",
    )

    assert result.code == 2, result.err  # PRELIMINARY: an answer never came
    assert len([r for r in fake.model_requests() if deferred(r)]) == 3
    assert len(fake.model_requests()) == 4  # and the full arm's one
    answer = read_results(tmp_path / "o" / "deferred.ndjson").results[0]
    assert not answer.reached and answer.error_kind == "truncated" and answer.calls == []
    assert answer.usage.input_tokens == 300  # all three paid for


def test_a_client_side_search_that_matches_nothing_ends_with_no_tool_called(
    make_project: MakeProject,
    clean_env: pytest.MonkeyPatch,
    helpdesk_fixtures: list[Fixture],
    cli: Cli,
    tmp_path: Path,
) -> None:
    first = helpdesk_fixtures[0]
    oracle = Oracle(list(helpdesk_fixtures), searches={first.query: "zzzz qqqq"})
    with FakeOpenAI(chooser=oracle.openai()) as fake:
        assert fake.key is not None
        clean_env.setenv("OPENAI_API_KEY", fake.key)
        clean_env.setenv("OPENAI_BASE_URL", fake.base_url + "/v1")
        result = cli(
            "compare",
            "--config",
            make_project().config,
            "--arms",
            "full,deferred",
            "--limit",
            "1",
            "--budget-usd",
            "5",
            "--out",
            tmp_path / "o",
            "--model",
            "gpt-5.4",
        )
        sent = [context_of(r.json.get("tools") or []) for r in fake.model_requests()]
    assert result.code == 0, result.err
    assert sorted(sent) == ["deferred", "full"]  # the search found nothing: no second request
    answer = read_results(tmp_path / "o" / "deferred.ndjson").results[0]
    assert answer.reached and answer.calls == []
    assert answer.retrieval is not None and answer.retrieval.searches == ["zzzz qqqq"]
    assert answer.retrieval.revealed == []
    comparison = json.loads((tmp_path / "o" / "comparison.json").read_text())
    assert comparison["fixtures"][0]["outcomes"]["deferred"] == "missed_action"
    # the model called search_tools: forced tool use was honoured, in no arm is it said otherwise
    assert "did not honour" not in result.err
    for arm in ("full", "deferred"):
        notes = read_results(tmp_path / "o" / f"{arm}.ndjson").header.notes
        assert not any("did not honour" in note for note in notes), arm


def test_each_arm_note_goes_to_its_own_record_with_the_real_reason(
    make_project: MakeProject,
    clean_env: pytest.MonkeyPatch,
    helpdesk_fixtures: list[Fixture],
    cli: Cli,
    tmp_path: Path,
) -> None:
    first, second = helpdesk_fixtures[:2]
    assert first.expected_tools == second.expected_tools == ["list_invoices"]
    searches = {first.query: "zzzz qqqq", second.query: "merge tickets"}  # nothing; tools that do not fit
    oracle = Oracle(list(helpdesk_fixtures), searches=searches)
    with FakeOpenAI(chooser=oracle.openai()) as fake:
        fake.forced_ignoring.add("gpt-5.4")  # takes tool_choice "required" and answers as with "auto"
        assert fake.key is not None
        clean_env.setenv("OPENAI_API_KEY", fake.key)
        clean_env.setenv("OPENAI_BASE_URL", fake.base_url + "/v1")
        out = tmp_path / "o"
        result = cli(
            "compare",
            "--config",
            make_project().config,
            "--arms",
            "full,deferred",
            "--limit",
            "2",
            "--budget-usd",
            "5",
            "--out",
            out,
            "--model",
            "gpt-5.4",
        )
    assert result.code == 0, result.err
    full = read_results(out / "full.ndjson").header.notes
    deferred = read_results(out / "deferred.ndjson").header.notes
    # the full arm's answers all called a tool: no note of either arm's is in its record
    assert not any("forced tool use" in note or "search_tools" in note for note in full)
    # the search that found nothing: the model did call search_tools, so it honoured forced tool use
    found_nothing = [note for note in deferred if "found no tool" in note]
    assert found_nothing == [
        "compare arm deferred: 1 answer ended with no tool called because search_tools found no tool "
        "for the model's search (scored as no call; the model did call search_tools)"
    ]
    # the second request, forced, with tools that do not fit: answered in words, really not honoured
    ignored = [note for note in deferred if "did not honour forced tool use" in note]
    assert ignored == [
        "compare arm deferred: gpt-5.4 did not honour forced tool use: 1 answer to requests that "
        "forced a tool call had none (scored as no call)"
    ]
    assert "note: compare arm deferred: gpt-5.4 did not honour forced tool use" in result.err
    assert "note: gpt-5.4 did not honour" not in result.err


def test_a_server_side_search_then_no_call_is_noted_in_the_deferred_record_only(
    make_project: MakeProject, fake: FakeAnthropic, helpdesk_fixtures: list[Fixture], cli: Cli, tmp_path: Path
) -> None:
    first = helpdesk_fixtures[0]
    searched = {
        "id": "msg_searched",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-8",
        "content": [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "tool_search_tool_bm25",
                "input": {"query": "x"},
            },
            {
                "type": "tool_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": {"type": "tool_search_tool_search_result", "tool_references": []},
            },
            {"type": "text", "text": "I could not find a tool for that."},
        ],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 10},
    }

    def deferred(request: Recorded) -> bool:
        return query_is(first.query)(request) and context_of(request.json.get("tools") or []) == "deferred"

    fake.script(Reply(200, searched, {"request-id": "req_s"}), when=deferred, times=None)
    out = tmp_path / "o"

    result = cli(
        "compare", "--config", make_project().config, "--arms", "full,deferred", "--limit", "1",
        "--budget-usd", "5", "--out", out,
    )  # fmt: skip

    assert result.code == 0, result.err
    assert "did not honour" not in result.err
    assert not any("search" in note for note in read_results(out / "full.ndjson").header.notes)
    assert (
        "compare arm deferred: 1 answer ended with no tool called because the API's tool search found "
        "no tool for the model's search (scored as no call; the model did call the search tool)"
    ) in read_results(out / "deferred.ndjson").header.notes
