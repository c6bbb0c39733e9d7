"""A stdio session over plain JSON-RPC: the handshake, the listing and tool calls, without the SDK.

Importing the MCP SDK costs more than most servers take to start (about 1 s of CPU on a 2-core
machine), and a session with a server that speaks the ``initialize`` handshake needs nothing of it:
requests go out, answers come back by id, and the server's own requests (ping, roots/list,
sampling, elicitation) get the answers an SDK session gives (``listing.Lister.answer``). This is the
catalog's path (``listing``) carried on to ``tools/call``.

What stays with the SDK, so nothing is guessed at:

- a server that answers ``server/discover`` at the modern protocol version: its process is handed
  to an SDK session as it is (the SDK probes again; discovery is stateless), because modern tool
  calls may ask for input in rounds or be claimed by extensions;
- a server whose handshake or listing this module does not recognise (``NotHere``): started again
  under the SDK, as the catalog does;
- a tool result that is not plainly valid (a content block other than plain text, image or audio,
  a value of the wrong type): judged by the SDK's own model, imported then, so a malformed result
  fails the same way on both paths and a valid one reads the same.

tests/servers/test_raw.py checks that both paths send the same messages and give the same results.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import anyio

from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.servers.listing import Lister, NotHere, RpcError
from mcp_evals.servers.session import ServerSession, _Progress, _quote
from mcp_evals.servers.stdio import _spawn, _StdioOpening, _StdioServer

# The SDK bounds its courtesy `notifications/cancelled` the same way: a wedged pipe cannot hang us.
_CANCEL_WRITE_TIMEOUT = 1.0
# Content blocks read here as they came; any other block, or any other key, goes to the SDK's model.
_PLAIN_BLOCKS: dict[str, frozenset[str]] = {
    "text": frozenset({"type", "text"}),
    "image": frozenset({"type", "data", "mimeType"}),
    "audio": frozenset({"type", "data", "mimeType"}),
}


@dataclass
class _Waiting:
    """One request sent and not yet answered."""

    done: anyio.Event = field(default_factory=anyio.Event)
    answer: dict[str, Any] | None = None


class RawClient(Lister):
    """The handshake and listing of ``Lister``, then requests matched to answers by id.

    Until ``pump`` runs, requests read the answers themselves (the handshake); once it runs, it is
    the only reader: it hands each answer to the request waiting for it, answers the server's own
    requests, and on end of stream wakes every waiting request with the connection closed.
    """

    def __init__(self, server: ServerConfig, config: Config, send: Any, receive: Any) -> None:
        super().__init__(server, config, send, receive)
        self.waiting: dict[int, _Waiting] = {}
        self.pumping = False
        self.closed: BaseException | None = None

    async def pump(self) -> None:
        self.pumping = True
        try:
            async for incoming in self.receive_stream:
                if "method" in incoming:
                    await self.answer(incoming)
                    continue
                waiting = self.waiting.get(incoming.get("id"))
                if waiting is not None:  # else: an answer to nothing asked (or given up on)
                    waiting.answer = incoming
                    waiting.done.set()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            pass
        finally:
            self.closed = anyio.EndOfStream()
            for waiting in self.waiting.values():
                waiting.done.set()

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.send_request(method, params)
        if not isinstance(result, dict):
            raise NotHere("a result that is not an object")
        return result

    async def send_request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """One request's ``result`` as it came; a JSON-RPC error is an ``RpcError``."""
        if not self.pumping:
            return await Lister.request(self, method, params)
        if self.closed is not None:
            raise self.closed
        self.next_id += 1
        ident = self.next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        waiting = self.waiting[ident] = _Waiting()
        sent = False
        try:
            await self.send_stream.send(message)
            sent = True
            await waiting.done.wait()
        except anyio.get_cancelled_exc_class():
            if sent:  # as the SDK does: tell the server to stop working on it
                await self._cancel(ident)
            raise
        finally:
            self.waiting.pop(ident, None)
        answer = waiting.answer
        if answer is None:
            raise self.closed or anyio.EndOfStream()
        if "error" in answer:
            error = answer["error"] if isinstance(answer["error"], dict) else {}
            raise RpcError(error.get("code"), error.get("message", ""))
        return answer.get("result")

    async def _cancel(self, ident: int) -> None:
        notice = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": ident, "reason": "caller cancelled"},
        }
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(_CANCEL_WRITE_TIMEOUT),
            suppress(anyio.ClosedResourceError, anyio.BrokenResourceError),
        ):
            await self.send_stream.send(notice)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """One ``tools/call``: the result in its wire shape, as an SDK session dumps it."""
        result = await self.send_request("tools/call", {"name": name, "arguments": arguments})
        return tool_result(result)


def tool_result(result: Any) -> dict[str, Any]:
    """A ``CallToolResult`` as the SDK session gives it (``model_dump`` without the ``None`` values).

    Plain results are read as they came; anything else is validated by the SDK's model, which
    raises the same ``ValidationError`` an SDK session would.
    """
    plain = _plain(result)
    if plain is not None:
        return plain
    from mcp.types import CallToolResult

    dumped: dict[str, Any] = CallToolResult.model_validate(result).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    return dumped


def _plain(result: Any) -> dict[str, Any] | None:
    """The parts a session reads, when every one is of a kind the SDK takes unchanged; else None."""
    if not isinstance(result, dict):
        return None
    content = result.get("content")
    if not isinstance(content, list):
        return None
    for block in content:
        if not isinstance(block, dict):
            return None
        keys = _PLAIN_BLOCKS.get(block.get("type"))  # type: ignore[arg-type]
        if keys is None or set(block) != keys:
            return None
        if not all(isinstance(block[key], str) for key in keys):
            return None
    # Present, each must be of its type (a null is the SDK's to judge).
    for key, kind in (("isError", bool), ("structuredContent", dict), ("_meta", dict)):
        if key in result and not isinstance(result[key], kind):
            return None
    plain: dict[str, Any] = {"content": content, "isError": result.get("isError", False)}
    if "structuredContent" in result:
        plain["structuredContent"] = result["structuredContent"]
    return plain


class RawSession(ServerSession):
    """A ``ServerSession`` whose requests go over ``RawClient`` instead of the SDK."""

    _client: RawClient

    async def _call(self, name: str, arguments: dict[str, Any], timeout: float) -> dict[str, Any]:
        return await self._client.call_tool(name, arguments)

    async def _read_tools(self, progress: _Progress) -> None:
        progress.stage = "tools/list"
        try:
            tools = await self._client.list_tools()
        finally:
            progress.stage = self._client.stage
        self.info = self.info.model_copy(update={"tools": tools})

    async def _read_extras(self, progress: _Progress) -> None:
        self.info = self.info.model_copy(update=await self._client.list_extras())
        progress.stage = self._client.stage


class RawStdioOpening(_StdioOpening):
    """Opens a stdio server over plain JSON-RPC; ``restart`` when the SDK must open it instead."""

    def __init__(self, server: ServerConfig, config: Config) -> None:
        super().__init__(server, config)
        self.restart = False

    async def connect(self, list_tools: bool) -> None:
        async with _spawn(self.server, self.config, raw=True) as spawned:
            self.spawned = spawned
            client = RawClient(self.server, self.config, spawned.to_server, spawned.from_server)
            try:
                info = await client.handshake()
            except NotHere:
                self.restart = True
                return
            if client.modern:
                from mcp_evals.servers.session import _client

                transport = _sdk_streams(spawned)
                async with _client(transport, "auto", self.server.timeout, self.config) as sdk:
                    await self.hold(sdk, "stdio", list_tools)
                return
            async with anyio.create_task_group() as group:
                group.start_soon(client.pump)
                await anyio.lowlevel.checkpoint()
                session = RawSession(self, client, info)
                try:
                    if list_tools:
                        await session._read_tools(self.progress)
                        await session._read_extras(self.progress)
                except NotHere:
                    self.restart = True
                    group.cancel_scope.cancel()
                    return
                self.session = session
                self.ready.set()
                await self.closing.wait()
                group.cancel_scope.cancel()


@asynccontextmanager
async def _sdk_streams(spawned: _StdioServer) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's (read, write) streams over a server spoken to in plain JSON-RPC messages.

    A message the SDK cannot read ends the stream, as the stdout reader does with a line that is
    not JSON-RPC, so the failure says what the server wrote.
    """
    from mcp.shared.message import SessionMessage
    from mcp.types import jsonrpc_message_adapter

    to_sdk, sdk_reads = anyio.create_memory_object_stream[Any](0)
    sdk_writes, from_sdk = anyio.create_memory_object_stream[Any](0)

    async def inbound() -> None:
        async with to_sdk:
            try:
                async for message in spawned.from_server:
                    try:
                        parsed = jsonrpc_message_adapter.validate_python(message, by_name=False)
                    except ValueError:
                        spawned.bad_output = _quote(json.dumps(message).encode("utf-8"))
                        return
                    await to_sdk.send(SessionMessage(parsed))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                return

    async def outbound() -> None:
        async with from_sdk:
            try:
                async for outgoing in from_sdk:
                    wire = outgoing.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
                    await spawned.to_server.send(wire)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return

    async with anyio.create_task_group() as group:
        group.start_soon(inbound)
        group.start_soon(outbound)
        try:
            yield sdk_reads, sdk_writes
        finally:
            sdk_writes.close()
            sdk_reads.close()
            group.cancel_scope.cancel()


__all__ = ["RawClient", "RawSession", "RawStdioOpening", "tool_result"]
