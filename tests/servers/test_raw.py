"""The SDK-free stdio session (servers/raw.py) says and hears what an SDK session does.

Every stdio session opens this way first. The reference is the SDK's own stdio opening
(tests/support/sdk_session.py): the same requests with the same parameters, the same answers to the
server's own requests, the same results — plain or not, a tool error, a JSON-RPC error, a malformed
result, no answer in time — and for a server that speaks the modern protocol, the SDK itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.errors import ToolCallError
from mcp_evals.servers.client import open_session
from mcp_evals.servers.raw import RawSession, tool_result
from mcp_evals.servers.session import ServerSession
from support.catalog_helpers import HELPDESK_SERVER, PYTHON, node_server, write_config
from support.sdk_session import sdk_session

CAPTURE = Path(__file__).resolve().parent / "capture_server.py"
HOWS = ["text", "structured", "tool-error", "annotated", "image", "malformed", "no-content", "rpc-error"]
Opener = Callable[[ServerConfig, Config], AbstractAsyncContextManager[ServerSession]]


def capture(folder: Path, log: Path, mode: str) -> Config:
    folder.mkdir(parents=True, exist_ok=True)
    server = {"name": "c", "command": PYTHON, "args": [str(CAPTURE), str(log), mode]}
    return write_config(folder, [server], client={"capabilities": ["roots"], "roots": [str(folder.parent)]})


def messages(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


async def call_each(opener: Opener, config: Config, hows: list[str]) -> tuple[type, list[Any]]:
    seen: list[Any] = []
    async with opener(config.servers[0], config) as session:
        for how in hows:
            try:
                result = await session.call_tool("get_time", {"how": how}, timeout=5)
            except ToolCallError as error:
                seen.append(("error", error.code, error.message.split(": ", 1)[1][:120]))
            else:
                seen.append(result.model_dump(exclude={"latency_ms"}))
        return type(session), seen


def test_tool_calls_send_and_read_what_an_sdk_session_does(tmp_path: Path) -> None:
    ours_log, sdk_log = tmp_path / "ours.jsonl", tmp_path / "sdk.jsonl"
    ours = capture(tmp_path / "a", ours_log, "legacy")
    reference = capture(tmp_path / "b", sdk_log, "legacy")
    kind, mine = anyio.run(call_each, open_session, ours, HOWS)
    _, theirs = anyio.run(call_each, sdk_session, reference, HOWS)
    assert kind is RawSession
    assert mine == theirs
    shown = dict(zip(HOWS, mine, strict=True))
    assert shown["structured"]["structured_content"] == {"hour": 12}
    assert shown["tool-error"]["is_error"] is True
    assert shown["rpc-error"][:2] == ("error", -32602)
    assert shown["malformed"][0] == "error" and "not a valid MCP message" in shown["malformed"][2]
    assert shown["annotated"]["content"][0] == {
        "type": "text",
        "text": "12:00",
        "annotations": {"audience": ["user"]},
    }
    ours_sent, sdk_sent = messages(ours_log), messages(sdk_log)
    assert [(m.get("method"), m.get("params")) for m in ours_sent if "method" in m] == [
        (m.get("method"), m.get("params")) for m in sdk_sent if "method" in m
    ]
    answers = [(m.get("id"), m.get("result"), m.get("error")) for m in ours_sent if "method" not in m]
    assert answers == [(m.get("id"), m.get("result"), m.get("error")) for m in sdk_sent if "method" not in m]
    assert ("srv-call", {}, None) in answers  # the ping sent while a call was open was answered


def test_a_call_given_up_on_is_cancelled_as_the_sdk_cancels_it(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    config = capture(tmp_path, log, "legacy")

    async def main() -> tuple[str, bool]:
        async with open_session(config.servers[0], config) as session:
            with pytest.raises(ToolCallError) as given_up:
                await session.call_tool("get_time", {"how": "silent"}, timeout=0.3)
            after = await session.call_tool("get_time", {"how": "text"}, timeout=5)  # the session lives on
            return given_up.value.message, after.text == "12:00"

    message, alive = anyio.run(main)
    assert "no answer to tools/call 'get_time' within 300 ms" in message and alive
    cancelled = [m for m in messages(log) if m.get("method") == "notifications/cancelled"]
    silent_id = next(
        m["id"] for m in messages(log) if m.get("params", {}).get("arguments") == {"how": "silent"}
    )
    assert [m["params"] for m in cancelled] == [{"requestId": silent_id, "reason": "caller cancelled"}]


def test_a_modern_server_is_handed_to_the_sdk_as_it_is(tmp_path: Path) -> None:
    """One process: the SDK probes again (discovery is stateless) and takes the session from there."""
    log = tmp_path / "log.jsonl"
    config = capture(tmp_path, log, "modern")
    kind, seen = anyio.run(call_each, open_session, config, ["text", "structured"])
    assert kind is ServerSession
    assert [item["text"] for item in seen] == ["12:00", '{"hour": 12}']
    methods = [m.get("method") for m in messages(log) if "method" in m]
    assert methods == ["server/discover", "server/discover", "tools/list", "tools/call", "tools/call"]


def test_a_server_it_does_not_understand_is_started_again_under_the_sdk(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    config = capture(tmp_path, log, "asks-version")
    kind, seen = anyio.run(call_each, open_session, config, ["text"])
    assert kind is ServerSession and seen[0]["text"] == "12:00"


@pytest.mark.parametrize(
    ("server", "calls"),
    [
        (
            "memory",
            [
                (
                    "create_entities",
                    {"entities": [{"name": "Ada", "entityType": "person", "observations": ["x"]}]},
                ),
                ("search_nodes", {"query": "Ada"}),
                ("open_nodes", {"names": 3}),
            ],
        ),
        (
            "everything",
            [
                ("echo", {"message": "hi"}),
                ("get-sum", {"a": 1, "b": 2}),
                ("get-structured-content", {"location": "New York"}),
                ("echo", {}),
            ],
        ),
        ("helpdesk", [("search_tickets", {"query": "charged twice"}), ("get_ticket", {"ticket_id": "T-0"})]),
    ],
)
def test_real_servers_answer_the_same_with_or_without_the_sdk(
    tmp_path: Path, server: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    def config_in(folder: Path) -> Config:
        entry = {
            "memory": {
                "command": str(node_server("mcp-server-memory")),
                "env": {"MEMORY_FILE_PATH": str(folder / "memory.jsonl")},
            },
            "everything": {"command": str(node_server("mcp-server-everything")), "args": ["stdio"]},
            "helpdesk": {"command": PYTHON, "args": [str(HELPDESK_SERVER)]},
        }[server]
        folder.mkdir()
        return write_config(folder, [{"name": server, **entry, "timeout": 60}])

    async def run(opener: Opener, config: Config) -> list[Any]:
        seen: list[Any] = []
        async with opener(config.servers[0], config) as session:
            for name, arguments in calls:
                try:
                    result = await session.call_tool(name, arguments, timeout=30)
                except ToolCallError as error:
                    seen.append(("error", error.code))
                else:
                    seen.append(result.model_dump(exclude={"latency_ms"}))
            seen.append(session.info.model_dump())
        return seen

    mine = anyio.run(run, open_session, config_in(tmp_path / "a"))
    theirs = anyio.run(run, sdk_session, config_in(tmp_path / "b"))
    assert mine == theirs
    assert any(isinstance(item, tuple) or item.get("is_error") for item in mine[:-1])  # an error among them


@pytest.mark.parametrize(
    "sample",
    [
        {"content": [{"type": "text", "text": "a"}], "isError": None},
        {"content": [{"type": "text", "text": "a"}], "structuredContent": None},
        {"content": [], "isError": False, "structuredContent": {"a": [1]}, "_meta": {"k": 1}, "other": 1},
        {"content": [], "_meta": None},
        {"content": [{"type": "audio", "data": "AA", "mimeType": "audio/wav"}]},
        {"content": [{"type": "text", "text": "a", "_meta": {}}]},
        {"content": [{"type": "text", "text": 1}]},
        {"content": [{"type": "image", "data": "AA"}]},
        {"content": [{"type": "resource", "resource": {"uri": "x:/a", "text": "t"}}]},
        {"content": [None]},
        {"content": None},
        {"content": [], "isError": "yes"},
        {"content": [], "structuredContent": [1]},
        [],
    ],
)
def test_tool_results_read_as_the_sdks_model_reads_them(sample: Any) -> None:
    """What the SDK refuses is refused; what it takes reads the same (its dump, None values left out)."""
    from mcp.types import CallToolResult
    from pydantic import ValidationError

    try:
        expected = CallToolResult.model_validate(sample).model_dump(
            mode="json", by_alias=True, exclude_none=True
        )
    except ValidationError:
        with pytest.raises(ValidationError):
            tool_result(sample)
        return
    got = tool_result(sample)
    for key in ("resultType", "_meta"):  # what a session does not read
        expected.pop(key, None)
        got.pop(key, None)
    assert got == expected


def test_a_contract_run_against_a_stdio_server_never_imports_the_sdk(tmp_path: Path) -> None:
    cases = tmp_path / "evals" / "contract"
    cases.mkdir(parents=True)
    server = {
        "command": str(node_server("mcp-server-memory")),
        "env": {"MEMORY_FILE_PATH": str(tmp_path / "m.jsonl")},
    }
    step = {"id": "read", "tool": "read_graph", "expect": {"output_contains": "entities"}}
    (cases / "read.yaml").write_text(json.dumps({"name": "read", "server": server, "steps": [step]}))
    probe = (
        "import sys\nfrom mcp_evals.cli import main\n"
        "try:\n    main(['contract', '--no-history'])\n"
        "except SystemExit as exit_:\n    assert exit_.code == 0, exit_.code\n"
        "slow = ('mcp', 'mcp_types', 'httpx', 'jinja2', 'jsonschema')\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in slow))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
