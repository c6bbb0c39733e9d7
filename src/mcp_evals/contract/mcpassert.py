"""mcp-assert's assertion files (``blackwell-systems/mcp-assert``) read as contract cases.

One file holds one assertion: ``name``, ``server`` (``command``/``args``/``env``, or ``transport`` and
``url``), ``setup`` tool calls (whose ``capture`` takes values for later ``{{name}}`` references), and
``assert`` (``tool``, ``args``, ``expect``). Each becomes a case: a step per setup call, then the
asserted call, its ``expect`` mapped to our assertions (``KEYS`` is the table docs/migrating.md
shows). A folder of them runs as it is (``contract --fixtures DIR``: detected, or ``--compat
mcp-assert``), each server started in the current folder with the whole environment as mcp-assert
starts it; ``mcp-evals import mcp-assert DIR`` writes the cases. What has no equivalent here is said,
never dropped silently; a file whose assertion is not a tool call (resources, prompts, trajectories…)
is not run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_evals.contract.model import ASSERTION_KINDS
from mcp_evals.patterns import check as check_pattern

PEER = "mcp-assert"
# The keys that make a file an mcp-assert assertion (ours has `steps` instead).
ASSERTION_BLOCKS = (
    "assert",
    "assert_resources",
    "assert_prompts",
    "assert_completion",
    "assert_sampling",
    "assert_logging",
    "assert_notifications",
    "trajectory",
    "trace",
    "audit_log",
)
_TOP_KEYS = frozenset({"name", "server", "setup", "timeout", "skip", "skip_unless_env", *ASSERTION_BLOCKS})
_SERVER_KEYS = frozenset(
    {"command", "args", "env", "transport", "url", "headers", "docker", "client_capabilities"}
)
_EXPECT_UNMAPPED = {
    "file_contains": "no file assertion here: check the file with a tool step, or in a test of your own",
    "file_not_contains": "no file assertion here",
    "file_not_exists": "no file assertion here",
    "file_unchanged": "no file assertion here",
    "min_progress": "progress notifications are not counted here",
}
_FLAGS = re.compile(r"^\(\?([A-Za-z]+)\)")
_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ARRAY_FIELDS = ("locations", "items", "results", "references", "symbols")
_NOT_EMPTY = r"\A(?!\s*(?:null|\[\]|\{\})\s*\Z)[\s\S]*\S"


@dataclass
class Converted:
    """One assertion file as our case document, and what it had to say about it."""

    case: dict[str, Any] | None
    changed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    skipped: str | None = None  # why it is not run at all


def is_assertion(data: Any) -> bool:
    """True for an mcp-assert assertion file's content (one of its blocks, no `steps`)."""
    return isinstance(data, dict) and "steps" not in data and any(key in data for key in ASSERTION_BLOCKS)


def assertion_files(folder: Path) -> list[Path]:
    """The YAML files of a suite as mcp-assert finds them: the folder's and one level below, sorted."""
    found = []
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if path.is_dir() and not path.name.startswith(("__", ".")):
            found += [child for child in sorted(path.iterdir()) if child.is_file() and _yaml(child)]
        elif path.is_file() and _yaml(path):
            found.append(path)
    return found


def _yaml(path: Path) -> bool:
    return path.suffix in (".yaml", ".yml")


def convert(
    data: dict[str, Any], where: str, name: str, *, fixture: str | None, environ: Mapping[str, str]
) -> Converted:
    """``data`` (one assertion file's content) as a case document."""
    notes = Converted(case=None)
    for key in sorted(set(data) - _TOP_KEYS):
        notes.refused.append(f"{where}: `{key}` (not a key of mcp-assert's format)")
    if data.get("skip") is True:
        notes.skipped = "`skip: true`"
        return notes
    needed = data.get("skip_unless_env")
    if isinstance(needed, str) and needed and not environ.get(needed):
        notes.skipped = f"`skip_unless_env: {needed}` and {needed} is not set"
        return notes
    others = [key for key in ASSERTION_BLOCKS if key in data and key != "assert"]
    if others or not isinstance(data.get("assert"), dict):
        notes.skipped = f"`{(others or ['assert'])[0]}`: a contract case calls tools; this assertion does not"
        notes.refused.append(f"{where}: {notes.skipped}")
        return notes
    if isinstance(data.get("timeout"), str):
        notes.changed.append(f"{where}: `timeout: {data['timeout']}` is the run's --timeout here, per step")
    server = _server(data.get("server"), where, notes, fixture)
    if server is None:
        notes.skipped = "no server to start (`server.command` or `server.url`)"
        return notes
    captures: dict[str, str] = {}
    steps: list[dict[str, Any]] = []
    for index, call in enumerate(data.get("setup") or []):
        at = f"{where} setup[{index}]"
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
            notes.refused.append(f"{at}: a setup call needs a `tool`")
            continue
        step_id = f"setup-{index + 1}"
        steps.append(
            {"id": step_id, "tool": call["tool"], "input": _input(call.get("args"), captures, fixture)}
        )
        for variable, path in (call.get("capture") or {}).items():
            reference = _json_reference(str(path))
            if reference is None:
                notes.refused.append(f"{at}: capture {variable}: {path!r} (a path of .key and [index] parts)")
                continue
            captures[str(variable)] = "{{steps." + step_id + ".json" + reference + "}}"
    block = data["assert"]
    if not isinstance(block.get("tool"), str):
        notes.skipped = "`assert` names no `tool`"
        return notes
    if block.get("capture_progress"):
        notes.refused.append(f"{where}: `capture_progress` (progress notifications are not counted here)")
    expect = _expect(block.get("expect") or {}, f"{where} assert.expect", notes)
    steps.append(
        {
            "id": "assert",
            "tool": block["tool"],
            "input": _input(block.get("args"), captures, fixture),
            "expect": expect,
        }
    )
    unresolved = re.findall(r"\{\{fixture\}\}", repr(steps) + repr(server))
    if unresolved:
        notes.skipped = (
            "it uses {{fixture}}: import it with `mcp-evals import mcp-assert DIR --fixture FOLDER`"
        )
        return notes
    notes.case = {"name": name, "server": server, "steps": steps}
    return notes


def _substitute(value: Any, fixture: str | None, captures: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        if fixture is not None:
            value = value.replace("{{fixture}}", fixture)
        for variable, reference in captures.items():
            value = value.replace("{{" + variable + "}}", reference)
        return value
    if isinstance(value, list):
        return [_substitute(item, fixture, captures) for item in value]
    if isinstance(value, dict):
        return {key: _substitute(item, fixture, captures) for key, item in value.items()}
    return value


def _input(args: Any, captures: Mapping[str, str], fixture: str | None) -> dict[str, Any]:
    value = _substitute(args if isinstance(args, dict) else {}, fixture, captures)
    assert isinstance(value, dict)
    return value


def _env_value(text: str) -> str:
    """mcp-assert's ``$VAR`` / ``${VAR}`` (unset: empty) as ours (``${VAR:-}``); a lone ``$`` kept."""
    marked = re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", "\0\\1\\2\0", text)
    escaped = marked.replace("$", "$$")
    return re.sub(r"\0([A-Za-z_][A-Za-z0-9_]*)\0", r"${\1:-}", escaped)


def _server(block: Any, where: str, notes: Converted, fixture: str | None) -> dict[str, Any] | None:
    if not isinstance(block, dict):
        return None
    for key in sorted(set(block) - _SERVER_KEYS):
        notes.refused.append(f"{where}: server.{key} (not a key of mcp-assert's format)")
    if block.get("docker"):
        notes.refused.append(
            f"{where}: server.docker {block['docker']!r} (the server runs here, not in a container)"
        )
    if block.get("client_capabilities"):
        notes.refused.append(
            f"{where}: server.client_capabilities (roots, sampling, elicitation: the config's `client:`)"
        )
    transport = str(block.get("transport") or "stdio").lower()
    if transport in ("http", "sse"):
        if not isinstance(block.get("url"), str):
            return None
        server: dict[str, Any] = {"url": _env_value(block["url"])}
        server["transport"] = "sse" if transport == "sse" else "streamable-http"
        if isinstance(block.get("headers"), dict) and block["headers"]:
            server["headers"] = {str(key): _env_value(str(value)) for key, value in block["headers"].items()}
        return server
    if not isinstance(block.get("command"), str) or not block["command"]:
        return None
    server = {"command": _substitute(block["command"], fixture, {})}
    if block.get("args"):
        server["args"] = [str(_substitute(str(arg), fixture, {})).replace("$", "$$") for arg in block["args"]]
    if isinstance(block.get("env"), dict) and block["env"]:
        server["env"] = {
            str(key): _env_value(str(_substitute(str(value), fixture, {})))
            for key, value in block["env"].items()
        }
    return server


def _json_reference(path: str) -> str | None:
    """``$.a.b[0]`` as our reference path ``.a.b[0]``; None when it is not that simple."""
    parts = _json_parts(path)
    if parts is None:
        return None
    return "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" if _KEY.fullmatch(part) else f'["{part}"]'
        for part in parts
    )


def _json_parts(path: str) -> list[str | int] | None:
    """mcp-assert's dot path (``$.a.b[0]``, ``field[N]`` segments) as keys and indexes."""
    body = path[2:] if path.startswith("$.") else path[1:] if path.startswith("$") else path
    if not body:
        return []
    parts: list[str | int] = []
    for segment in body.split("."):
        found = re.fullmatch(r"([^\[\]]*)((?:\[\d+\])*)", segment)
        if found is None:
            return None
        if found.group(1):
            parts.append(found.group(1))
        parts += [int(index) for index in re.findall(r"\[(\d+)\]", found.group(2))]
    return parts


def _schema_at(parts: list[str | int], leaf: dict[str, Any]) -> dict[str, Any]:
    schema = leaf
    for part in reversed(parts):
        if isinstance(part, int):
            schema = {"type": "array", "minItems": part + 1, "prefixItems": [{}] * part + [schema]}
        else:
            schema = {"type": "object", "required": [part], "properties": {part: schema}}
    return schema


def _scoped(pattern: str) -> str | None:
    """A Go pattern as a group that can sit among others: leading flags scoped (``(?i)x`` → ``(?i:x)``)."""
    flags = _FLAGS.match(pattern)
    if flags is None:
        return f"(?:{pattern})"
    if set(flags.group(1)) - set("ims"):
        return None
    return f"(?{flags.group(1)}:{pattern[flags.end() :]})"


def _expect(block: dict[str, Any], where: str, notes: Converted) -> dict[str, Any]:
    expect: dict[str, Any] = {}
    patterns: list[str] = []
    schemas: list[dict[str, Any]] = []
    for key in sorted(block):
        value = block[key]
        if key in _EXPECT_UNMAPPED:
            notes.refused.append(f"{where}.{key} ({_EXPECT_UNMAPPED[key]})")
        elif key == "not_error":
            if value is True:
                expect["is_error"] = False
        elif key == "is_error":
            if value is True:
                expect["is_error"] = True
        elif key in ("contains", "not_contains") and value:
            expect["output_contains" if key == "contains" else "output_not_contains"] = [
                str(v) for v in value
            ]
        elif key == "equals" and value is not None:
            patterns.append(r"\A\s*" + re.escape(str(value).strip()) + r"\s*\Z")
        elif key == "contains_any" and value:
            patterns.append("|".join(re.escape(str(v)) for v in value))
        elif key == "in_order" and value:
            patterns.append(r"[\s\S]*?".join(re.escape(str(v)) for v in value))
        elif key == "not_empty":
            if value is True:
                patterns.append(_NOT_EMPTY)
        elif key == "matches_regex" and value:
            for pattern in value:
                try:
                    check_pattern(str(pattern))
                except re.error as error:
                    notes.refused.append(f"{where}.matches_regex {pattern!r} (not a Python pattern: {error})")
                    continue
                patterns.append(str(pattern))
                notes.changed.append(
                    f"{where}.matches_regex {pattern!r} is read as a Python regular expression"
                )
        elif key == "json_path" and isinstance(value, dict):
            for path, wanted in sorted(value.items()):
                parts = _json_parts(str(path))
                if parts is None or not parts:
                    notes.refused.append(f"{where}.json_path {path!r} (a path of .key and [index] parts)")
                    continue
                schemas.append(_schema_at(parts, {"const": wanted}))
            notes.changed.append(f"{where}.json_path: the value and its type must be equal")
        elif key in ("min_results", "max_results") and isinstance(value, int):
            bound = {"minItems" if key == "min_results" else "maxItems": value}
            fields = [{"type": "object", "required": [name], "properties": {name: {"type": "array", **bound}}}
                      for name in _ARRAY_FIELDS]  # fmt: skip
            schemas.append({"anyOf": [{"type": "array", **bound}, *fields]})
        elif key == "net_delta" and isinstance(value, int):
            schemas.append(_schema_at(["net_delta"], {"const": value}))
        elif value not in (None, False, [], {}):
            notes.refused.append(f"{where}.{key} (not an assertion of mcp-assert's format)")
    if patterns:
        scoped = [_scoped(pattern) for pattern in patterns]
        if any(item is None for item in scoped):
            notes.refused.append(f"{where}: a pattern with a flag Python cannot scope (only i, m, s)")
            scoped = [item for item in scoped if item is not None]
        if len(patterns) == 1 and _FLAGS.match(patterns[0]) is None:
            expect["output_matches"] = patterns[0]
        elif scoped:
            expect["output_matches"] = r"\A" + "".join(rf"(?=[\s\S]*?{item})" for item in scoped)
    if schemas:
        expect["schema_match"] = schemas[0] if len(schemas) == 1 else {"allOf": schemas}
    order = list(ASSERTION_KINDS)  # ours, in the order our files write them
    return {key: expect[key] for key in sorted(expect, key=order.index)}
