"""MCPJam's evals (its evals CLI: a tests file and an environment file) → a config and select fixtures.

Tests file: an array of ``{title, query, runs, model, provider, expectedToolCalls[], judgeRequirement?,
advancedConfig?}``; environment file: ``{"servers": {NAME: {command, args, env} | {url, requestInit}}}``.
MCPJam asks an agent loop to call every expected tool; a fixture here asks one model turn for its
first call. So a test with one expected tool maps with that change of meaning, a test with several
expects the first (the others are noted), and a test that expects none has nothing to score.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from mcp_evals.config.documents import load_document
from mcp_evals.config.model import Config
from mcp_evals.config.source import Document
from mcp_evals.contract.load import server_name
from mcp_evals.errors import InputFileError, where
from mcp_evals.fixtures.model import FixtureFile
from mcp_evals.importers.plan import (
    CONFIG_SCHEMA,
    FIXTURES_SCHEMA,
    Imported,
    Key,
    dump,
    mapping,
    relative,
    slug,
)
from mcp_evals.wording import docs_url

PEER = "MCPJam"
# Providers MCPJam names that reach an OpenAI-compatible API at a known base URL.
OPENAI_COMPATIBLE = {
    "openrouter": "https://openrouter.ai/api/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "ollama": "http://127.0.0.1:11434/v1",
}
KEYS = (
    Key("`title`", "`id` (as a slug) and `notes`", "same"),
    Key("`query`", "`query`", "same"),
    Key(
        "`expectedToolCalls` (one tool)",
        "`expected_tools: [tool]`",
        "changed",
        "MCPJam lets an agent loop call it at any turn; here the model's first call, in one turn, must be it",
    ),
    Key(
        "`expectedToolCalls` (several tools)",
        "`expected_tools: [first]`, the rest in `notes`",
        "changed",
        "a fixture scores one call; a sequence of calls is a session task ([sessions](sessions.md))",
    ),
    Key(
        "`expectedToolCalls: []`",
        "—",
        "refused",
        "nothing to score; write a `kind: refuse` fixture if no tool fits",
    ),
    Key("`runs`", "`run.samples`", "changed", "one setting for the whole run: the largest `runs`"),
    Key(
        "`model`, `provider` (anthropic, openai)",
        "`run.model`, `run.provider`",
        "changed",
        "one model for the run: the most used",
    ),
    Key(
        "`provider` (openrouter, deepseek, ollama)",
        "`run.provider: openai` with `run.base_url`",
        "changed",
        "an OpenAI-compatible endpoint; the key is read from OPENAI_API_KEY",
    ),
    Key("`advancedConfig.system`", "`system_prompt`", "changed", "one prompt for every fixture"),
    Key("`advancedConfig.temperature`", "`run.temperature`", "changed", "one setting for the run"),
    Key(
        "`advancedConfig.toolChoice`, `judgeRequirement`",
        "—",
        "refused",
        "no equivalent in a tool-selection run",
    ),
    Key(
        "`servers.NAME`: `command`, `args`, `env`",
        "`servers[].command`, `args`, `env`",
        "changed",
        "the server gets PATH, HOME, the locale and its `env`, not the whole environment",
    ),
    Key("`servers.NAME`: `url`, `requestInit.headers`", "`servers[].url`, `headers`", "same"),
    Key("`servers.NAME.timeout`", "`servers[].timeout`", "changed", "milliseconds there, seconds here"),
)


def _document(path: Path) -> Document:
    document = load_document(path)
    return document


def _problem(document: Document, location: tuple[str | int, ...], text: str) -> InputFileError:
    field = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location).lstrip(".")
    return InputFileError(f"{where(document.path, document.line_of(location), field or None)}: {text}")


def _servers(env: Document, out: Path, imported: Imported) -> list[dict[str, Any]]:
    servers = env.data.get("servers") if isinstance(env.data, dict) else None
    if not isinstance(servers, dict) or not servers:
        raise _problem(
            env, (), 'an MCPJam environment file is {"servers": {NAME: {command, args, env} | {url}}}'
        )
    taken: set[str] = set()
    written: list[dict[str, Any]] = []
    cwd = relative(Path.cwd(), out)
    for name, server in servers.items():
        if not isinstance(server, dict):
            raise _problem(env, ("servers", name), "a server is {command, args, env} or {url}")
        entry: dict[str, Any] = {"name": slug(server_name(str(name)), taken, fallback="server", limit=64)}
        if isinstance(server.get("command"), str):
            entry["command"] = server["command"]
            args = server.get("args") or []
            if args:
                entry["args"] = [str(arg) for arg in args]
            env_block = server.get("env") or {}
            if env_block:
                entry["env"] = {str(key): str(value) for key, value in env_block.items()}
            if cwd != ".":
                entry["cwd"] = cwd  # MCPJam starts it where its CLI runs: here
            imported.change(
                f"servers.{name}: started with PATH, HOME, the locale and its `env` only (MCPJam passes the "
                "whole environment): add what it needs to `env:` (e.g. `API_KEY: ${API_KEY}`)"
            )
        elif isinstance(server.get("url"), str):
            entry["url"] = server["url"]
            request = server.get("requestInit")
            headers = request.get("headers") if isinstance(request, dict) else None
            if isinstance(headers, dict) and headers:
                entry["headers"] = {str(key): str(value) for key, value in headers.items()}
        else:
            raise _problem(env, ("servers", name), "a server needs `command` (stdio) or `url` (HTTP)")
        timeout = server.get("timeout")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
            entry["timeout"] = timeout / 1000
            imported.change(f"servers.{name}.timeout: {timeout} ms there is {timeout / 1000:g} s here")
        for key in sorted(set(server) - {"command", "args", "env", "url", "requestInit", "timeout"}):
            imported.refuse(f"servers.{name}.{key}: no equivalent (left out)")
        if isinstance(server.get("requestInit"), dict):
            for key in sorted(set(server["requestInit"]) - {"headers"}):
                imported.refuse(f"servers.{name}.requestInit.{key}: no equivalent (left out)")
        written.append(entry)
    return written


def import_mcpjam(tests_path: Path, env_path: Path, out: Path) -> Imported:
    """MCPJam's tests and environment files → ``out/mcp-evals.yaml`` and ``out/fixtures/mcpjam.yaml``."""
    imported = Imported()
    tests = _document(tests_path)
    env = _document(env_path)
    if not isinstance(tests.data, list):
        raise _problem(
            tests,
            (),
            "an MCPJam tests file is an array of {title, query, runs, model, provider, expectedToolCalls}",
        )
    servers = _servers(env, out, imported)
    fixtures: list[dict[str, Any]] = []
    ids: set[str] = set()
    runs: list[int] = []
    models: Counter[tuple[str, str]] = Counter()
    systems: set[str] = set()
    temperatures: set[float] = set()
    for index, test in enumerate(tests.data):
        at = f"test {index + 1}"
        if not isinstance(test, dict) or not isinstance(test.get("query"), str):
            raise _problem(tests, (index,), "a test needs `query` (text) and `expectedToolCalls` (a list)")
        title = str(test.get("title") or at)
        at = f"test {index + 1} ({title!r})"
        expected = test.get("expectedToolCalls")
        if not isinstance(expected, list) or not all(isinstance(tool, str) for tool in expected):
            raise _problem(tests, (index, "expectedToolCalls"), "a list of tool names")
        if isinstance(test.get("runs"), int) and not isinstance(test.get("runs"), bool):
            runs.append(test["runs"])
        if isinstance(test.get("model"), str) and isinstance(test.get("provider"), str):
            models[(test["provider"], test["model"])] += 1
        advanced = mapping(test.get("advancedConfig"))
        if isinstance(advanced.get("system"), str):
            systems.add(advanced["system"])
        if isinstance(advanced.get("temperature"), int | float):
            temperatures.add(float(advanced["temperature"]))
        for key in sorted(set(advanced) - {"system", "temperature"}):
            imported.refuse(f"{at}: advancedConfig.{key} (no equivalent in a tool-selection run)")
        if test.get("judgeRequirement"):
            imported.refuse(
                f"{at}: judgeRequirement (a tool-selection fixture is scored on its call, not judged)"
            )
        if not expected:
            imported.refuse(
                f"{at}: expects no tool call, so there is nothing to score "
                "(write a `kind: refuse` fixture if no tool should be called)"
            )
            continue
        fixture: dict[str, Any] = {
            "id": slug(title, ids, fallback="test"),
            "query": test["query"],
            "expected_tools": [expected[0]],
        }
        notes = f"Imported from MCPJam: {title}"
        if len(expected) > 1:
            notes += f"; MCPJam also expected, later in its agent loop: {', '.join(expected[1:])}"
            imported.change(
                f"{at}: expects {', '.join(expected)}; the fixture expects the first call, "
                f"{expected[0]} (a sequence of calls is a session task: {docs_url('sessions.md')})"
            )
        fixture["notes"] = notes
        fixtures.append(fixture)
    config: dict[str, Any] = {"servers": servers, "fixtures": "fixtures/*.yaml"}
    run: dict[str, Any] = {}
    if models:
        (provider, model), _ = models.most_common(1)[0]
        others = [f"{p}/{m}" for p, m in models if (p, m) != (provider, model)]
        if provider in ("anthropic", "openai"):
            run.update(provider=provider, model=model)
        elif provider in OPENAI_COMPATIBLE:
            run.update(provider="openai", model=model, base_url=OPENAI_COMPATIBLE[provider])
            imported.change(
                f"provider {provider}: run.provider openai with run.base_url {OPENAI_COMPATIBLE[provider]} "
                "(its key is read from OPENAI_API_KEY)"
            )
        else:
            imported.refuse(
                f"provider {provider!r}: not one mcp-evals runs "
                "(anthropic, openai or an OpenAI-compatible URL)"
            )
        if others:
            imported.change(
                f"one model per run: {provider}/{model} (the most used); also used there: {', '.join(others)}"
            )
    if runs and max(runs) > 1:
        run["samples"] = min(max(runs), 100)
        if len(set(runs)) > 1:
            imported.change(f"runs: one run.samples for every fixture, the largest ({run['samples']})")
    if len(temperatures) == 1:
        run["temperature"] = temperatures.pop()
    elif temperatures:
        imported.refuse("advancedConfig.temperature: the tests differ, and a run has one temperature")
    if run:
        config["run"] = run
    if len(systems) == 1:
        config["system_prompt"] = systems.pop()
    elif systems:
        imported.refuse("advancedConfig.system: the tests differ, and a run has one system prompt")
    Config.model_validate(config)  # what is written loads
    FixtureFile.model_validate({"fixtures": fixtures})
    imported.files[out / "mcp-evals.yaml"] = dump(
        config,
        schema=CONFIG_SCHEMA,
        comment=f"Imported by `mcp-evals import mcpjam` from {tests_path} and {env_path}.",
    )
    if fixtures:
        imported.files[out / "fixtures" / "mcpjam.yaml"] = dump(
            {"fixtures": fixtures},
            schema=FIXTURES_SCHEMA,
            comment=f"Imported by `mcp-evals import mcpjam` from {tests_path}: one select fixture per test.",
        )
    imported.summary.append(f"{len(fixtures)} of {len(tests.data)} tests imported as fixtures")
    return imported
