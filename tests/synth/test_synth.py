"""``mcp-evals synth`` against the fake model APIs, scripted with what real models answer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import Cli
from fakes import fake_anthropic, fake_openai
from fakes.fake_anthropic import FakeAnthropic
from fakes.fake_openai import FakeOpenAI
from mcp_evals.fixtures.load import load_fixture_file

from .scripted import INTENTS, TOOL_NAMES, TOOLS, SynthModel, write_project


@pytest.fixture
def model() -> SynthModel:
    return SynthModel()


@pytest.fixture
def anthropic(clean_env: pytest.MonkeyPatch, model: SynthModel) -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic(chooser=lambda query, tools, choice: fake_anthropic.Text(model.answer(query)))
    fake.start()
    clean_env.setenv("ANTHROPIC_API_KEY", fake.key)
    clean_env.setenv("ANTHROPIC_BASE_URL", fake.base_url)
    try:
        yield fake
    finally:
        fake.stop()


def synth(cli: Cli, config: Path, out: Path, *extra: str) -> Any:
    return cli("synth", "--config", config, "--out", out, "--budget-usd", "5", *extra)


def paraphrase_bodies(fake: FakeAnthropic | FakeOpenAI) -> list[str]:
    bodies = [request.body.decode() for request in fake.model_requests()]
    return [body for body in bodies if "Persona:" in body]


def test_synth_writes_held_out_concrete_fixtures_with_a_split(
    tmp_path: Path, anthropic: FakeAnthropic, model: SynthModel, cli: Cli
) -> None:
    config, out = write_project(tmp_path), tmp_path / "synth.yaml"

    result = synth(cli, config, out, "--persona", "a support agent at a small SaaS company")

    assert result.code == 0, result.err
    fixtures = load_fixture_file(out)
    assert {fixture.origin for fixture in fixtures} == {"synthesized"}
    assert {fixture.split for fixture in fixtures} == {"dev", "test"}
    selects = [fixture for fixture in fixtures if fixture.kind == "select"]
    assert {name for fixture in selects for name in fixture.expected_tools} == set(TOOL_NAMES)
    assert sum(fixture.kind == "refuse" for fixture in fixtures) == 2
    assert sum(fixture.kind == "clarify" for fixture in fixtures) == 2
    # every required value the intent gave is stated in the query and expected in the call
    refund = next(f for f in selects if "INV-3305" in f.query)
    assert refund.expected_tools == ["issue_refund"] and refund.expected_args["invoice_id"] == "INV-3305"
    assert refund.notes == "synthesized from the intent: Give back the money of the duplicate charge INV-3305"
    # each tool has a fixture held out in the test split (the split is stratified per tool)
    for name in TOOL_NAMES:
        assert any(f.split == "test" for f in selects if f.expected_tools == [name]), name
    assert f"written to {out}" in result.out
    # the file is valid for `mcp-evals validate`, and says how it was made
    text = out.read_text()
    assert text.startswith("# Written by `mcp-evals synth` (anthropic/claude-opus-4-8)")


def test_the_held_out_step_never_sees_a_tool_name_description_or_schema(
    tmp_path: Path, anthropic: FakeAnthropic, model: SynthModel, cli: Cli
) -> None:
    model.leaky_goal = True  # step 1 writes a goal that names get_invoice
    config, out = write_project(tmp_path), tmp_path / "synth.yaml"

    result = synth(cli, config, out)

    assert result.code == 0, result.err
    bodies = paraphrase_bodies(anthropic)
    assert bodies
    for body in bodies:
        data = json.loads(body)
        assert "tools" not in data and "tool_choice" not in data
        for tool in TOOLS:
            assert tool["name"] not in body
            assert tool["description"] not in body
            for parameter in tool["inputSchema"]["properties"]:
                assert f'"{parameter}"' not in body
    # the leaky goal was dropped before the paraphrase, and the command says so
    assert "Call get_invoice for INV-0001" in result.err and "before the paraphrase" in result.err
    # while step 1 did see the catalog
    intents = [r.body.decode() for r in anthropic.model_requests() if "Persona:" not in r.body.decode()]
    assert any("Tool get_invoice" in body and "INV-1042" in body for body in intents)


def test_the_leak_filter_drops_a_query_that_names_a_tool(
    tmp_path: Path, anthropic: FakeAnthropic, model: SynthModel, cli: Cli
) -> None:
    leaky = INTENTS["list_invoices"][0]["goal"]
    model.leaky_query = leaky
    model.drop_value = INTENTS["issue_refund"][0]["goal"]
    config, out = write_project(tmp_path), tmp_path / "synth.yaml"

    result = synth(cli, config, out)

    assert result.code == 0, result.err
    fixtures = load_fixture_file(out)
    assert not any("list_invoices" in fixture.query for fixture in fixtures)
    assert "F001" in result.err and "list_invoices" in result.err
    # the paraphrase that lost its invoice id is flagged (F002) and kept out of the test split
    flagged = [fixture for fixture in fixtures if (fixture.notes or "").startswith("flagged")]
    assert len(flagged) == 1 and flagged[0].split == "dev" and "F002" in (flagged[0].notes or "")
    assert "1 flagged (F002)" in result.out


def test_a_second_run_never_rewrites_the_frozen_test_split(
    tmp_path: Path, anthropic: FakeAnthropic, model: SynthModel, cli: Cli
) -> None:
    config, out = write_project(tmp_path), tmp_path / "synth.yaml"
    assert synth(cli, config, out).code == 0
    first_text = out.read_text()
    first = load_fixture_file(out)
    test_split = [(f.id, f.hash) for f in first if f.split == "test"]
    assert test_split

    model.prefix = "Quick one: "  # the second run's model words things differently
    result = synth(cli, config, out)

    assert result.code == 0, result.err
    assert out.read_text().startswith(first_text)  # every earlier line, byte for byte
    second = load_fixture_file(out)
    assert [(f.id, f.hash) for f in second if f.split == "test"] == test_split
    added = second[len(first) :]
    assert added and {f.split for f in added} == {"dev"}
    assert "the test split is frozen" in result.out


def test_an_out_file_the_fixtures_glob_matches_is_appended_to_not_refused(
    tmp_path: Path, anthropic: FakeAnthropic, model: SynthModel, cli: Cli
) -> None:
    """As the docs say, an existing --out is appended to, also when `fixtures:` reads it (it was
    refused as "the fixture file … would replace it", even with --dry)."""
    config = write_project(tmp_path, fixtures="fixtures/*.yaml")
    out = tmp_path / "fixtures" / "synth.yaml"
    assert synth(cli, config, out).code == 0
    first_text = out.read_text()
    assert synth(cli, config, out, "--dry").code == 0
    model.prefix = "Quick one: "
    result = synth(cli, config, out)
    assert result.code == 0, result.err
    assert out.read_text().startswith(first_text) and len(out.read_text()) > len(first_text)
    refused = synth(cli, config, config)
    assert refused.code == 3 and "is also the config file" in refused.err


def test_a_malformed_answer_is_retried_then_a_dropout_never_a_crash(
    tmp_path: Path, anthropic: FakeAnthropic, model: SynthModel, cli: Cli
) -> None:
    config, out = write_project(tmp_path, max_attempts=2), tmp_path / "synth.yaml"
    model.malformed = 3  # the first request fails twice (a dropout), the next one once (then recovers)

    result = synth(cli, config, out, "--concurrency", "1")

    assert result.code == 2, result.err
    assert "incomplete" in result.err and "invalid_response 1" in result.err
    assert "Traceback" not in result.err
    assert load_fixture_file(out)  # what came is written


def test_a_paid_model_without_a_budget_cap_sends_nothing(
    tmp_path: Path, anthropic: FakeAnthropic, cli: Cli
) -> None:
    config, out = write_project(tmp_path), tmp_path / "synth.yaml"

    result = cli("synth", "--config", config, "--out", out)

    assert result.code == 3
    assert "no budget cap is set" in result.err and "--budget-usd" in result.err
    assert anthropic.requests == [] and not out.exists()


def test_dry_estimates_the_cost_and_sends_nothing(tmp_path: Path, anthropic: FakeAnthropic, cli: Cli) -> None:
    config, out = write_project(tmp_path), tmp_path / "synth.yaml"

    result = cli("synth", "--config", config, "--out", out, "--dry", "--budget-usd", "0.01")

    assert result.code == 0, result.err
    assert anthropic.requests == [] and not out.exists()
    lines = result.out.splitlines()
    assert (
        lines[0]
        == "mcp-evals synth --dry: nothing billable is sent (Anthropic Messages API, claude-opus-4-8)"
    )
    assert lines[1].startswith(
        "step 1 (intents; sees the catalog): 8 requests (5 tool + 1 pair + 1 refuse + "
    )
    assert "budget $0.01: below the estimate" in result.out


def test_synth_through_an_openai_compatible_api(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, model: SynthModel, cli: Cli
) -> None:
    fake = FakeOpenAI(chooser=lambda query, tools, choice: fake_openai.Text(model.answer(query)))
    with fake:
        assert fake.key is not None
        clean_env.setenv("OPENAI_API_KEY", fake.key)
        clean_env.setenv("OPENAI_BASE_URL", fake.base_url + "/v1")
        config, out = write_project(tmp_path), tmp_path / "synth.yaml"
        result = synth(cli, config, out, "--model", "gpt-5.4", "--language", "Portuguese")
        bodies = paraphrase_bodies(fake)

    assert result.code == 0, result.err
    assert load_fixture_file(out)
    assert bodies and all("Language: Portuguese" in body for body in bodies)
    for body in bodies:
        assert "tools" not in json.loads(body)
        assert not any(name in body for name in TOOL_NAMES)


def test_the_fixtures_validate_against_the_catalog(
    tmp_path: Path, anthropic: FakeAnthropic, cli: Cli
) -> None:
    config = write_project(tmp_path, fixtures="synth.yaml")
    assert synth(cli, config, tmp_path / "synth.yaml").code == 0

    result = cli("validate", "--config", config)

    assert result.code == 0, result.out + result.err
    document = yaml.safe_load((tmp_path / "synth.yaml").read_text())
    assert all(entry["origin"] == "synthesized" for entry in document["fixtures"])


@pytest.mark.parametrize("dry", [False, True])
def test_nothing_to_ask_for_is_bad_input_not_a_crash(
    tmp_path: Path, anthropic: FakeAnthropic, cli: Cli, dry: bool
) -> None:
    config, out = write_project(tmp_path), tmp_path / "synth.yaml"
    zero = ("--per-tool", "0", "--refuse", "0", "--clarify", "0", *(["--dry"] if dry else []))

    result = cli("synth", "--config", config, "--out", out, "--budget-usd", "1", *zero)

    assert result.code == 3, result.err
    assert "Traceback" not in result.err and "max()" not in result.err
    assert "--per-tool 0, --refuse 0 and --clarify 0: nothing to ask the model" in result.err
    assert "nothing was written" in result.err and "hint: " in result.err
    assert anthropic.requests == [] and not out.exists() and result.out == ""


@pytest.mark.parametrize("dry", [False, True])
def test_a_config_that_excludes_every_tool_is_bad_input_naming_the_line(
    tmp_path: Path, anthropic: FakeAnthropic, cli: Cli, dry: bool
) -> None:
    config, out = write_project(tmp_path, exclude_tools=["*"]), tmp_path / "synth.yaml"
    line = next(
        number
        for number, text in enumerate(config.read_text().splitlines(), start=1)
        if text.startswith("exclude_tools:")
    )

    result = cli("synth", "--config", config, "--out", out, "--budget-usd", "1", *(["--dry"] if dry else []))

    assert result.code == 3, result.err
    assert "Traceback" not in result.err
    assert f"{config}:{line} (exclude_tools): every tool of the catalog (5) is excluded" in result.err
    assert anthropic.requests == [] and not out.exists() and result.out == ""


def test_no_usable_answer_writes_nothing_and_is_incomplete(
    tmp_path: Path, anthropic: FakeAnthropic, model: SynthModel, cli: Cli
) -> None:
    config, out = write_project(tmp_path, max_attempts=1), tmp_path / "synth.yaml"
    model.malformed = 1000  # every step-1 answer is prose, never the JSON asked for

    result = synth(cli, config, out)

    assert result.code == 2, result.err
    assert anthropic.model_requests()  # the model was asked; no answer was usable
    assert not out.exists()  # no `fixtures: []` under a header that says queries were paraphrased
    assert f"no fixture to write, so nothing was written to {out}" in result.err
    assert "no request got a usable answer" in result.err and "invalid_response 8" in result.err
    assert "fixtures written" not in result.out and "Traceback" not in result.err


def test_a_run_whose_every_candidate_is_dropped_leaves_the_file_untouched(
    tmp_path: Path, anthropic: FakeAnthropic, model: SynthModel, cli: Cli
) -> None:
    config, out = write_project(tmp_path), tmp_path / "synth.yaml"
    assert synth(cli, config, out).code == 0
    before = out.stat()

    result = synth(cli, config, out)  # the same model again: every query is already in the file

    assert result.code == 0, result.err  # complete: every answer came and was judged
    assert "a fixture already asks this" in result.err
    assert f"no fixture to write, so nothing was written to {out}" in result.err
    assert "every candidate was dropped" in result.err
    after = out.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not even rewritten
