"""docs/migrating.md: its tables are the importers' own, its commands parse, and each of its promises
names the test that keeps it."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from mcp_evals.cli import main
from mcp_evals.cli.schema_cmd import schema_document
from mcp_evals.contract.model import ContractRun
from mcp_evals.importers import mcpassert, mcpgrade, mcpjam, promptfoo, runner_format, runner_history
from mcp_evals.importers.tables import TABLES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "migrating.md").read_text("utf-8")
ALL_KEYS = (
    runner_format.KEYS,
    runner_history.KEYS,
    mcpjam.KEYS,
    promptfoo.KEYS,
    mcpgrade.KEYS,
    mcpassert.KEYS,
)

COMPAT, JUDGE = "contract.test_compat:", "contract.test_judge:"
MCPJAM, PROMPTFOO = "importers.test_mcpjam:", "importers.test_promptfoo:"
MCPGRADE, HISTORY = "importers.test_mcpgrade:", "importers.test_runner_history:"
ASSERT, PLUGIN = "importers.test_mcpassert:", "contract.test_pytest_plugin:"
# Each promise of the prose, and the test that keeps it (module:function).
PROMISES = {
    "all of them or none,\nnever over an existing file": MCPJAM
    + "test_a_file_in_the_way_stops_the_whole_import",
    "prints one line per file written (`wrote`)": MCPJAM + "test_an_mcpjam_suite_imports_and_validates",
    "fails its step unless the step expects\n  `is_error: true`": COMPAT
    + "test_its_semantics_cwd_environment_and_going_on_after_a_failed_step",
    "never the rest of your environment": COMPAT + "test_environment_isolation_is_kept_outside_compatibility",
    "Without a key or a budget the judge's step is\n  *skipped*": JUDGE
    + "test_without_a_key_or_a_budget_the_step_is_skipped_never_passed",
    "a folder of them runs as it runs there, with no config": COMPAT
    + "test_a_runner_folder_runs_as_it_is_with_no_config",
    "a case's server starts in the current folder with your whole\nenvironment": COMPAT
    + "test_its_semantics_cwd_environment_and_going_on_after_a_failed_step",
    "the judge reads `LLM_JUDGE_API_KEY` and\n`LLM_JUDGE_BASE_URL`": JUDGE
    + "test_the_judge_reads_mcp_eval_runners_variables_as_a_pair",
    "(or is `./evals`,\nits default": COMPAT + "test_the_default_folder_is_evals_as_there",
    "`--compat none` keeps ours": COMPAT
    + "test_its_semantics_cwd_environment_and_going_on_after_a_failed_step",
    "every case uses only keys of its format": COMPAT
    + "test_a_folder_with_our_own_keys_runs_with_our_semantics",
    "a config with\n`--compat mcp-eval-runner` is refused": COMPAT + "test_compatibility_is_without_a_config",
    "The run says once, on standard error": COMPAT + "test_a_runner_folder_runs_as_it_is_with_no_config",
    "`contract history`, `contract gate` and the regressions of the next run read it": HISTORY
    + "test_an_imported_history_shows_in_contract_history_and_the_gate",
    "A history that already holds runs of that suite is refused": HISTORY
    + "test_an_imported_history_shows_in_contract_history_and_the_gate",
    "each test a select fixture in\n`fixtures/mcpjam.yaml`": MCPJAM
    + "test_an_mcpjam_suite_imports_and_validates",
    "with the others in its\n`notes`": MCPJAM + "test_an_mcpjam_suite_imports_and_validates",
    "every chat provider's `config.mcp` block become the\nconfig's `servers:`": PROMPTFOO
    + "test_a_promptfoo_mcp_suite_imports_validates_and_runs",
    "becomes a contract\ncase in `evals/contract/`": PROMPTFOO
    + "test_a_promptfoo_mcp_suite_imports_validates_and_runs",
    "they are not mapped": PROMPTFOO + "test_a_promptfoo_mcp_suite_imports_validates_and_runs",
    "`disable` turns the matching lint rules off and `tokenBudget` sets the token thresholds": MCPGRADE
    + "test_an_mcpgrade_setup_imports_and_lints_with_its_settings",
    "(`--snapshot FILE`, `--stdio CMD` or `--url URL`)": MCPGRADE
    + "test_a_stdio_server_and_the_choice_of_one",
    "the folder's YAML files and those one level\nbelow) runs as it is": ASSERT
    + "test_a_suite_runs_as_it_is",
    "which files it does not run (`not run:`)": ASSERT + "test_a_suite_runs_as_it_is",
    "one that uses `{{fixture}}`, which needs the import": ASSERT
    + "test_a_fixture_suite_without_fixture_is_said_and_not_run",
    "`mcp-evals import mcp-assert DIR` writes the cases into `evals/contract/`": ASSERT
    + "test_a_suite_imports_as_cases_that_run",
    'mcp-assert passes\n`contains: ["not found"]` on a tool\'s error text': ASSERT
    + "test_a_suite_runs_as_it_is",
    "`json_path` compares a value\nwith its type": ASSERT
    + "test_result_counts_and_json_paths_map_to_a_schema",
    "The pytest plugin runs such a folder too": PLUGIN
    + "test_a_folder_of_mcp_assert_assertions_runs_as_items",
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_each_table_is_the_importers_own(name: str) -> None:
    found = re.search(rf"<!-- keys:{name}:begin[^>]*-->\n(.*?)\n<!-- keys:{name}:end -->", DOC, re.S)
    assert found is not None, f"docs/migrating.md has no table {name}"
    assert found.group(1) == TABLES[name](), f"docs/migrating.md: the {name} table is stale"


@pytest.mark.parametrize(("phrase", "test"), sorted(PROMISES.items()))
def test_each_promise_is_in_the_doc_and_its_test_exists(phrase: str, test: str) -> None:
    assert " ".join(phrase.split()) in " ".join(DOC.split())
    module, function = test.split(":")
    assert callable(getattr(importlib.import_module(module), function))


def _schema_keys() -> set[str]:
    keys: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    keys.update(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for which in ("config", "fixtures", "contract"):
        walk(schema_document(which))
    walk(ContractRun.model_json_schema())  # the record a history holds
    return keys


def test_every_key_of_ours_in_the_tables_exists() -> None:
    """Each `key` in the *ours* column is a key of our config, fixture or case files (or a flag)."""
    # the values a history records, besides keys
    known = _schema_keys() | {"passed", "failed", "unknown", "python3"}
    unknown = []
    for keys in ALL_KEYS:
        for key in keys:
            for code in re.findall(r"`([^`]+)`", key.ours):
                words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code.split(":")[0].split("--")[-1])
                if code.startswith(("mcp-evals", "--", "$", "~", ".", "step-")) or code in (
                    "live",
                    "simulation",
                ):
                    continue
                if code.startswith("[") or code.startswith("servers: ["):
                    words = re.findall(r"[a-z_]+", code)
                if not words or not all(word in known or word.isupper() for word in words):
                    unknown.append(code)
    assert unknown == [], unknown


def test_the_commands_to_try_parse(capsys: pytest.CaptureFixture[str]) -> None:
    commands = re.findall(r"^\$ mcp-evals (.+)$", DOC, re.M)
    assert len(commands) >= 8
    for command in commands:
        with pytest.raises(SystemExit) as exited:
            main([*command.split(), "--help"])
        assert exited.value.code == 0, command
    capsys.readouterr()


def test_each_peer_lists_what_maps_what_changes_and_what_is_refused() -> None:
    for keys in (runner_format.KEYS, mcpjam.KEYS, promptfoo.KEYS, mcpgrade.KEYS, mcpassert.KEYS):
        assert {key.mapped for key in keys} >= {"same", "changed"}
        assert all(key.why for key in keys if key.mapped != "same")
    assert json.dumps([key.mapped for key in promptfoo.KEYS]).count("refused") >= 2
