"""One decision of which provider a run uses: the CLI and the Action agree on every setting.

The matrix is the one that once drifted: which keys are present × which vendor's model is asked for
× which provider the config names. The CLI is run for real (``run --dry``, which names the provider
it chose and sends nothing); the Action's choice is what ``action run`` would pass to ``run``.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from mcp_evals.action.context import Step
from mcp_evals.action.eval_mode import eval_provider
from mcp_evals.action.improve_mode import improve_provider, improve_spending
from mcp_evals.catalog.model import ServerInfo, build_catalog
from mcp_evals.catalog.snapshot import write_snapshot
from mcp_evals.cli import cli
from mcp_evals.github.event import Event
from mcp_evals.github.inputs import key_input, read_inputs
from mcp_evals.provider_registry import BUILTIN, PROVIDERS, ProviderEntry
from mcp_evals.providers.pricing import provider_of
from mcp_evals.providers.registry import choose_provider

REPO_ROOT = Path(__file__).resolve().parents[2]
LABELS = {
    "Anthropic Messages API": "anthropic",
    "OpenAI-compatible Chat Completions": "openai",
    "lexical baseline (BM25, not a model)": "lexical",
}
KEYS = {
    "none": {},
    "anthropic": {"ANTHROPIC_API_KEY": "sk-ant-test"},
    "openai": {"OPENAI_API_KEY": "sk-test"},
    "both": {"ANTHROPIC_API_KEY": "sk-ant-test", "OPENAI_API_KEY": "sk-test"},
}
MODELS = [None, "claude-sonnet-5-5", "gpt-5.4"]
CONFIGURED = [None, "anthropic", "openai"]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("registry")
    server = ServerInfo(
        name="notes",
        transport="stdio",
        tools=[{"name": "search_notes", "description": "Find notes.", "inputSchema": {"type": "object"}}],
    )
    write_snapshot(build_catalog([server]), root / "catalog.json")
    fixtures = [{"id": "find", "query": "find my dentist note", "expected_tool": "search_notes"}]
    (root / "fixtures.yaml").write_text(yaml.safe_dump(fixtures), "utf-8")
    return root


def write_config(root: Path, configured: str | None, model: str | None) -> Path:
    run = {key: value for key, value in (("provider", configured), ("model", model)) if value}
    config = {"servers": [{"name": "notes", "snapshot": "catalog.json"}], "fixtures": "fixtures.yaml"}
    if run:
        config["run"] = run
    name = f"mcp-evals-{configured}-{model}.yaml"
    (root / name).write_text(yaml.safe_dump(config), "utf-8")
    return root / name


def cli_choice(config: Path, keys: dict[str, str]) -> str:
    environ = {variable: "" for variable in PROVIDERS.key_variables()} | keys
    result = CliRunner().invoke(cli, ["run", "--config", str(config), "--dry"], env=environ)
    assert result.exit_code == 0, result.output
    match = re.search(r"nothing billable is sent \((.+)\)\n", result.output)
    assert match, result.output
    return LABELS[match.group(1)]


def action_step(config: Path, keys: dict[str, str], **inputs: str) -> Step:
    environ = {"INPUT_CONFIG": config.name, "GITHUB_EVENT_NAME": "workflow_dispatch"}
    environ |= {f"INPUT_{variable.split('_')[0]}-API-KEY": value for variable, value in keys.items()}
    environ |= {f"INPUT_{name.upper()}": value for name, value in inputs.items()}
    return Step(
        read_inputs(environ),
        Event(name="workflow_dispatch", payload={}, repository="o/r"),
        config.parent,
        config.parent,
        environ,
    )


def action_choice(config: Path, keys: dict[str, str]) -> str | None:
    provider, skipped = eval_provider(action_step(config, keys))
    return None if skipped else provider


@pytest.mark.parametrize(("keys", "model", "configured"), list(itertools.product(KEYS, MODELS, CONFIGURED)))
def test_cli_and_action_choose_the_same_provider(
    workspace: Path, keys: str, model: str | None, configured: str | None
) -> None:
    config = write_config(workspace, configured, model)
    from_cli = cli_choice(config, KEYS[keys])
    from_action = action_choice(config, KEYS[keys])
    if from_action is None:  # the Action skips a paid eval it has no key for, never downgrades
        key_missing = PROVIDERS[from_cli].key_env_var not in KEYS[keys]
        assert (from_cli == "lexical" and keys == "none") or (PROVIDERS[from_cli].paid and key_missing)
    else:
        assert from_action == from_cli
    # --dry needs no key: a model named without its key is estimated on its own provider, never on
    # the lexical baseline or another vendor's API (run/spending.py)
    wanted = provider_of(model) if model else None
    picked = choose_provider(None, configured, KEYS[keys], model).name
    expected = wanted if configured is None and wanted is not None and picked != wanted else picked
    assert from_cli == expected


@pytest.mark.parametrize(("keys", "model", "configured"), list(itertools.product(KEYS, MODELS, CONFIGURED)))
def test_the_action_improves_with_the_provider_it_evals_with(
    workspace: Path, keys: str, model: str | None, configured: str | None
) -> None:
    """Mode improve asks the one spending policy as mode eval does: same provider, same skips."""
    step = action_step(write_config(workspace, configured, model), KEYS[keys])
    assert improve_provider(step) == eval_provider(step) or (
        improve_provider(step)[0] == eval_provider(step)[0]
        and "the paid rewrite was skipped" in str(improve_provider(step)[1])
        and "the paid model eval was skipped" in str(eval_provider(step)[1])
    )


def test_the_action_improves_free_only_when_asked_and_on_a_keyless_endpoint_without_a_cap(
    workspace: Path,
) -> None:
    config = write_config(workspace, None, None)
    spending, skipped = improve_spending(action_step(config, {}))
    assert skipped is not None and "`provider: lexical`" in skipped  # no key: a skip, not a downgrade
    spending, skipped = improve_spending(action_step(config, {}, provider="lexical"))
    assert skipped is None and spending.name == "lexical" and not spending.billable
    local = action_step(config, {}, provider="openai", **{"openai-base-url": "http://127.0.0.1:8080/v1"})
    spending, skipped = improve_spending(local)
    assert skipped is None and spending.name == "openai" and not spending.billable  # no budget-usd needed
    spending, skipped = improve_spending(action_step(config, {}, provider="openai"))
    assert skipped is not None and "`openai-api-key` input is empty" in skipped


def test_with_both_keys_the_model_decides() -> None:
    both = KEYS["both"]
    assert choose_provider(None, None, both, "gpt-5.4").name == "openai"
    assert choose_provider(None, None, both, "claude-sonnet-5-5").name == "anthropic"
    assert choose_provider(None, None, both, None).name == "anthropic"
    assert choose_provider(None, None, {}, "gpt-5.4").name == "lexical"
    assert choose_provider("openai", "anthropic", both, "claude-sonnet-5-5").name == "openai"


def test_registry_lists_each_provider_once_with_its_key_variable() -> None:
    assert list(PROVIDERS) == ["anthropic", "openai", "lexical", "replay"]
    assert PROVIDERS.key_variables() == ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
    for entry in PROVIDERS.entries():
        assert entry.load().name == entry.name
    assert json.dumps(PROVIDERS.names(lambda entry: entry.paid)) == '["anthropic", "openai"]'


@pytest.mark.parametrize("entry", BUILTIN, ids=lambda entry: entry.name)
def test_each_entry_says_what_its_class_can_do(entry: ProviderEntry) -> None:
    """The registry's capabilities are read before any provider is imported: they must be the class's."""
    provider_class = entry.load()
    assert provider_class.name == entry.name
    assert entry.paid == provider_class.uses_network
    # one call, generate: every provider behind an API takes a whole conversation (free text, several
    # requests for one fixture, a session's turns); one that answers in-process answers one query
    assert entry.sessions == entry.conversation == provider_class.uses_network
    assert entry.batch == provider_class.supports_batch
    assert entry.tool_search == (provider_class.tool_search_requests > 0)


def test_the_action_and_the_docs_list_the_built_in_providers() -> None:
    names = [entry.name for entry in BUILTIN]
    inputs = yaml.safe_load((REPO_ROOT / "action.yml").read_text("utf-8"))["inputs"]
    assert inputs["provider"]["description"].startswith(" | ".join(names) + ". ")
    for entry in BUILTIN:
        if entry.paid:
            assert f"secrets.{entry.key_env_var} }}}}" in inputs[key_input(entry)]["description"]
            assert f"{entry.default_model} ({entry.name})" in inputs["model"]["description"]
    action_md = (REPO_ROOT / "docs" / "action.md").read_text("utf-8")
    assert " \\| ".join(f"`{name}`" for name in names) in action_md
    runnable = ", ".join(f"`{entry.name}`" for entry in BUILTIN if not entry.replays)
    assert f"| `run_selection_eval` | `provider` ({runnable})" in (
        REPO_ROOT / "docs" / "contract.md"
    ).read_text("utf-8")
