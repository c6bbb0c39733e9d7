"""promptfoo's MCP setups (a ``promptfooconfig.yaml``) → a config and contract cases.

Two places in promptfoo name an MCP server: the ``mcp`` provider, which calls one tool per test (the
prompt is JSON ``{"tool": …, "args": {…}}``), and an ``mcp:`` block in a chat provider's ``config``,
which hands the server's tools to a model. The first maps to contract cases (one step per test, the
assertions on its output); the second to config servers only: its tests are judged on a model's
answer, which no contract case has.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mcp_evals.config.documents import load_document
from mcp_evals.config.model import Config
from mcp_evals.contract.load import parse_case, server_name
from mcp_evals.errors import InputFileError, McpEvalsError
from mcp_evals.importers.plan import (
    CONFIG_SCHEMA,
    CONTRACT_SCHEMA,
    Imported,
    Key,
    dump,
    mapping,
    relative,
    slug,
)
from mcp_evals.wording import docs_url, plural

PEER = "promptfoo"
_ENV = re.compile(r"\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_ONE_VARIABLE = re.compile(r"^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$")
_JUDGE = "Does this tool output meet the rubric? Rubric: {expected}\n\nOutput:\n{actual}"

KEYS = (
    Key(
        "`providers[].id: mcp`, its `config.server` / `servers[]`",
        "`servers:` (a case's `server:` names one)",
        "same",
    ),
    Key(
        "`server`: `command`, `args`, `env`",
        "`command`, `args`, `env`",
        "changed",
        "the server gets PATH, HOME, the locale and its `env`, not the whole environment",
    ),
    Key("`server`: `url`, `headers`", "`url`, `headers`", "same"),
    Key("`server.path` (`.js`, `.py`)", "`command: node` / `python3` with the path", "same"),
    Key("`server.auth` (bearer, api_key in a header)", "`headers`", "same"),
    Key(
        "`server.auth` (basic, oauth, api_key in the query)",
        "—",
        "refused",
        "no equivalent: write the header",
    ),
    Key("`{{ env.VAR }}`", "`${VAR}`", "same"),
    Key("`config.timeout` (ms)", "`contract.timeout_ms`", "same"),
    Key("`config.defaultArgs`", "merged into each step's `input`", "same"),
    Key('`tests[].vars` (the prompt, `{"tool", "args"}`)', "a case with one step: `tool`, `input`", "same"),
    Key("`tests[].description`", "the case `name`", "same"),
    Key(
        "`assert`: `contains`, `not-contains`, `contains-all`, `not-contains-any`",
        "`output_contains`, `output_not_contains`",
        "same",
    ),
    Key("`assert`: `equals`", "`output_equals`", "same"),
    Key(
        "`assert`: `icontains`, `starts-with`, `contains-any`",
        "`output_matches` (an escaped pattern)",
        "same",
    ),
    Key("`assert`: `regex`", "`output_matches`", "changed", "Python's regular expressions, not JavaScript's"),
    Key(
        "`assert`: `is-json` (with or without a schema)",
        "`schema_match`",
        "changed",
        "the JSON output: `structuredContent` when the tool returns it, else the text parsed",
    ),
    Key("`assert`: `latency`", "`latency_under`", "changed", "under the threshold, not at it"),
    Key(
        "`assert`: `llm-rubric`",
        "`llm_judge`",
        "changed",
        "an OpenAI-compatible judge under a budget; skipped without one, never passed",
    ),
    Key("`defaultTest.assert`", "added to every case", "same"),
    Key(
        "`assert`: `javascript`, `python`, `similar`, `cost` and the others",
        "—",
        "refused",
        "no equivalent in a contract case",
    ),
    Key(
        "a tool result with `isError`",
        "a failed step unless `is_error: true` is expected",
        "changed",
        "promptfoo asserts on the text alone; a tool error is a failure here",
    ),
    Key(
        "a chat provider's `config.mcp`",
        "`servers:` only",
        "refused",
        "their tests judge a model's answer: write select fixtures ([fixtures](fixtures.md))",
    ),
    Key("`transformResponse`, `tools`, `exclude_tools`", "—", "refused", "the output is the tool's own"),
)


def _env(value: Any) -> str:
    """promptfoo's ``{{ env.VAR }}`` as our ``${VAR}``; other text as it is (``$`` doubled)."""
    text = str(value).replace("$", "$$")
    return _ENV.sub(lambda match: "${" + match.group(1) + "}", text)


def _server(
    block: dict[str, Any], where: str, taken: set[str], base: Path, out: Path, imported: Imported
) -> dict[str, Any] | None:
    name = slug(server_name(str(block.get("name") or "server")), taken, fallback="server", limit=64)
    entry: dict[str, Any] = {"name": name}
    if isinstance(block.get("command"), str):
        entry["command"] = block["command"]
        if block.get("args"):
            entry["args"] = [_env(arg) for arg in block["args"]]
    elif isinstance(block.get("path"), str):
        script = block["path"]
        entry["command"] = "python3" if script.endswith(".py") else "node"
        entry["args"] = [relative(base / script, out)]
    elif isinstance(block.get("url"), str):
        entry["url"] = _env(block["url"])
    else:
        imported.refuse(f"{where}: a server needs `command`, `path` or `url`")
        return None
    if "command" in entry:
        cwd = relative(Path.cwd(), out)
        if cwd != ".":
            entry["cwd"] = cwd  # promptfoo starts it where it runs
        if isinstance(block.get("env"), dict) and block["env"]:
            entry["env"] = {str(key): _env(value) for key, value in block["env"].items()}
        imported.change(
            f"{where}: started with PATH, HOME, the locale and its `env` only (promptfoo passes its whole "
            "environment): add what it needs to `env:` (e.g. `API_KEY: ${API_KEY}`)"
        )
    headers = {str(key): _env(value) for key, value in (block.get("headers") or {}).items()}
    auth = block.get("auth")
    if isinstance(auth, dict):
        kind = auth.get("type")
        if kind == "bearer" and auth.get("token"):
            headers["Authorization"] = f"Bearer {_env(auth['token'])}"
        elif kind == "api_key" and auth.get("placement", "header") == "header":
            headers[str(auth.get("keyName") or "X-API-Key")] = _env(
                auth.get("value") or auth.get("api_key") or ""
            )
        elif kind not in (None, "", "none", "no_auth"):
            imported.refuse(f"{where}.auth: type {kind!r} (write the header it sends under `headers:`)")
    if headers:
        if "url" in entry:
            entry["headers"] = headers
        else:
            imported.refuse(f"{where}: headers and auth apply to a `url` server only")
    return entry


def _servers(
    config: dict[str, Any], where: str, taken: set[str], base: Path, out: Path, imported: Imported
) -> list[dict[str, Any]]:
    blocks: list[tuple[str, Any]] = []
    if isinstance(config.get("server"), dict):
        blocks.append((f"{where}.server", config["server"]))
    for index, block in enumerate(config.get("servers") or []):
        blocks.append((f"{where}.servers[{index}]", block))
    found = []
    for place, block in blocks:
        if isinstance(block, dict):
            entry = _server(block, place, taken, base, out, imported)
            if entry is not None:
                found.append(entry)
    return found


def _assertion(item: Any, at: str, expect: dict[str, Any], imported: Imported) -> None:
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        imported.refuse(f"{at}: an assertion without a `type`")
        return
    kind, value = item["type"], item.get("value")
    for extra in sorted(set(item) - {"type", "value", "threshold"}):
        imported.refuse(f"{at}: {kind} `{extra}` (no equivalent; the assertion itself is kept)")

    def texts(key: str, more: Any) -> None:
        items = more if isinstance(more, list) else [more]
        current = expect.get(key)
        joined = ([] if current is None else current if isinstance(current, list) else [current]) + [
            str(v) for v in items
        ]
        expect[key] = joined[0] if len(joined) == 1 else joined

    def pattern(text: str) -> bool:
        if "output_matches" in expect:
            imported.refuse(f"{at}: {kind} (a step takes one regular expression; this one is left out)")
            return False
        expect["output_matches"] = text
        return True

    if kind in ("contains", "contains-all") and value is not None:
        texts("output_contains", value)
    elif kind in ("not-contains", "not-contains-any") and value is not None:
        texts("output_not_contains", value)
    elif kind == "equals" and value is not None:
        expect["output_equals"] = value
    elif kind == "icontains" and isinstance(value, str):
        pattern("(?i)" + re.escape(value))
    elif kind == "starts-with" and isinstance(value, str):
        pattern(r"\A" + re.escape(value))
    elif kind == "contains-any" and isinstance(value, list) and value:
        pattern("|".join(re.escape(str(option)) for option in value))
    elif kind == "regex" and isinstance(value, str):
        if pattern(value):
            imported.change(f"{at}: regex {value!r} is read as a Python regular expression")
    elif kind == "is-json":
        expect["schema_match"] = mapping(value)
    elif kind == "latency" and isinstance(item.get("threshold"), int | float):
        expect["latency_under"] = item["threshold"]
    elif kind == "llm-rubric" and isinstance(value, str):
        expect["llm_judge"] = {"prompt_template": _JUDGE, "expected": value}
        if isinstance(item.get("threshold"), int | float) and 0 <= item["threshold"] <= 1:
            expect["llm_judge"]["min_score"] = item["threshold"]
        imported.change(
            f"{at}: llm-rubric is asked of an OpenAI-compatible judge under a budget (skipped without one)"
        )
    else:
        imported.refuse(f"{at}: assert {kind} (no equivalent in a contract case)")


def _prompt_variables(document: dict[str, Any], imported: Imported) -> list[str]:
    prompts = document.get("prompts", ["{{prompt}}"])
    if isinstance(prompts, str):
        prompts = [prompts]
    found = []
    for index, prompt in enumerate(prompts if isinstance(prompts, list) else []):
        match = _ONE_VARIABLE.match(prompt) if isinstance(prompt, str) else None
        if match is None:
            imported.refuse(
                f"prompts[{index}]: only a prompt that is one variable ('{{{{prompt}}}}') is read"
            )
        else:
            found.append(match.group(1))
    return found


def import_promptfoo(config_path: Path, out: Path) -> Imported:
    """A promptfoo config → ``out/mcp-evals.yaml`` and one case per test in ``out/evals/contract/``."""
    imported = Imported()
    document = load_document(config_path).data
    if not isinstance(document, dict) or not isinstance(document.get("providers"), list):
        raise InputFileError(f"{config_path}: a promptfoo config with a `providers:` list")
    base = config_path.resolve().parent
    taken: set[str] = set()
    servers: list[dict[str, Any]] = []
    direct: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for index, provider in enumerate(document["providers"]):
        if not isinstance(provider, dict):
            imported.refuse(f"providers[{index}]: {provider!r} (no MCP server in it)")
            continue
        options = mapping(provider.get("config"))
        where = f"providers[{index}] ({provider.get('id')})"
        if provider.get("id") == "mcp":
            found = _servers(options, f"{where}.config", taken, base, out, imported)
            servers += found
            if found:
                direct.append((options, found))
            for key in sorted(set(options) & {"transformResponse", "tools", "exclude_tools"}):
                imported.refuse(f"{where}.config.{key} (no equivalent: a case checks the tool's own output)")
        elif isinstance(options.get("mcp"), dict):
            servers += _servers(options["mcp"], f"{where}.config.mcp", taken, base, out, imported)
            imported.refuse(
                f"{where}: its tests judge a model's answer, not a tool's output; its servers are in the "
                f"config, write select fixtures for them ({docs_url('fixtures.md')})"
            )
    if not servers:
        raise InputFileError(
            f"{config_path}: no MCP server in its providers (an `mcp` provider or a `config.mcp` block)"
        )
    config: dict[str, Any] = {"servers": servers, "contract": {"cases": "evals/contract"}}
    cases: list[tuple[str, dict[str, Any]]] = []
    if direct:
        options, found = direct[0]
        if len(direct) > 1 or len(found) > 1:
            imported.change(
                f"each case runs against one server, {found[0]['name']} (promptfoo sends a call to whichever "
                "server lists the tool): give a case another `server:` where needed"
            )
        timeout = options.get("timeout")
        if isinstance(timeout, int) and timeout > 0:
            config["contract"]["timeout_ms"] = timeout
        defaults = mapping(options.get("defaultArgs"))
        cases = _cases(document, found[0]["name"], defaults, imported)
    Config.model_validate(config)
    imported.files[out / "mcp-evals.yaml"] = dump(
        config, schema=CONFIG_SCHEMA, comment=f"Imported by `mcp-evals import promptfoo` from {config_path}."
    )
    names: set[str] = set()
    for name, case in cases:
        path = out / "evals" / "contract" / f"{slug(name, names, fallback='case')}.yaml"
        text = dump(
            case,
            schema=CONTRACT_SCHEMA,
            comment=f"Imported by `mcp-evals import promptfoo` from {config_path}.",
        )
        try:
            parse_case(text, path)
        except McpEvalsError as error:
            imported.refuse(f"case {name!r}: {error.message}")
            continue
        imported.files[path] = text
    written = sum(1 for path in imported.files if path.parent.name == "contract")
    imported.summary.append(
        f"{plural(len(servers), 'server')}; {plural(written, 'case')} from the mcp provider's tests"
    )
    return imported


def _cases(
    document: dict[str, Any], server: str, defaults: dict[str, Any], imported: Imported
) -> list[tuple[str, dict[str, Any]]]:
    variables = _prompt_variables(document, imported)
    tests = document.get("tests") or []
    if not isinstance(tests, list):
        imported.refuse("tests: only tests written in the config are read (not a file:// reference)")
        return []
    default_test = mapping(document.get("defaultTest"))
    common = default_test.get("assert")
    shared: list[Any] = common if isinstance(common, list) else []
    cases = []
    used: set[str] = set()
    for index, test in enumerate(tests):
        at = f"tests[{index}]"
        if not isinstance(test, dict):
            imported.refuse(f"{at}: not a test")
            continue
        values = mapping(test.get("vars"))
        for variable in variables:
            raw = values.get(variable)
            try:
                call = json.loads(raw) if isinstance(raw, str) else raw
            except ValueError:
                call = None
            if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
                imported.refuse(f'{at}: vars.{variable} is not a tool call ({{"tool": …, "args": {{…}}}})')
                continue
            expect: dict[str, Any] = {}
            own = test.get("assert")
            items = [*shared, *(own if isinstance(own, list) else [])]
            for number, item in enumerate(items):
                _assertion(item, f"{at}.assert[{number}]", expect, imported)
            name = str(test.get("description") or f"{call['tool']} {index + 1}")
            if len(variables) > 1:
                name = f"{name} ({variable})"
            if name in used:  # case names are unique: history and reports know a case by it
                name = f"{name} (test {index + 1})"
            used.add(name)
            step: dict[str, Any] = {"id": "call", "tool": call["tool"]}
            arguments = {**defaults, **mapping(call.get("args"))}
            if arguments:
                step["input"] = arguments
            if expect:
                step["expect"] = expect
            cases.append((name, {"name": name, "server": server, "steps": [step]}))
    return cases
