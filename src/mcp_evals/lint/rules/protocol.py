"""P — protocol: how a server answers what every client may send it (``--probe`` and ``audit`` only).

The answers come from ``servers/conformance.py`` (read-only requests; no tool of the server is
called). Each finding says what a client sees because of it. Not graded: the lint's grade is about
what a model sees of the tools.
"""

from __future__ import annotations

from collections.abc import Iterator

from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.registry import rule
from mcp_evals.servers.model import Conformance, Exchange
from mcp_evals.wording import shorten

# The protocol versions of the released specifications, oldest first (the MCP SDK's list).
KNOWN_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
INVALID_PARAMS = -32602


def _said(exchange: Exchange) -> str:
    if exchange.outcome == "error":
        message = f" ({shorten(' '.join(exchange.message.split()), 80)!r})" if exchange.message else ""
        return f"error {exchange.code}{message}"
    if exchange.outcome == "no answer":
        return exchange.message or "no answer"
    return "a result"


def _servers(context: LintContext) -> Iterator[Conformance]:
    yield from context.conformance or ()


@rule(
    "P001",
    "Invalid cursor accepted",
    severity="warning",
    why="A list request with a cursor the server never issued must fail with -32602 (Invalid params). "
    "A server that returns a page instead makes a client that resumes with a stale cursor start over "
    "silently: duplicated or missing entries, or a loop for a client that trusts the cursor.",
    fix="Validate the cursor before listing; answer an unknown one with JSON-RPC error -32602.",
    needs="probe",
    graded=False,
)
def invalid_cursor(context: LintContext) -> Iterator[Hit]:
    for found in _servers(context):
        for method, exchange in found.invalid_cursor.items():
            if exchange.outcome == "error" and exchange.code == INVALID_PARAMS:
                continue
            if exchange.outcome == "result":
                what = "returned a page for a cursor it never issued, instead of error -32602"
            else:
                what = f"answered a cursor it never issued with {_said(exchange)}, not error -32602"
            yield Hit(
                f"server {found.server!r}: {method} {what}: a client resuming with a stale cursor cannot "
                "tell that it must list from the start",
                subject=method,
                server=found.server,
            )


@rule(
    "P002",
    "Unknown tool answered as a tool result",
    severity="warning",
    why="tools/call of a tool the server does not have is a protocol error (the specification's example: "
    "-32602, 'Unknown tool'). Answered as a result with isError, the model is told the tool exists and "
    "failed, and a client cannot tell a stale catalog (re-list) from a tool that ran and failed.",
    fix="Answer a call to an unknown tool name with a JSON-RPC error (-32602), not a tool result.",
    needs="probe",
    graded=False,
)
def unknown_tool(context: LintContext) -> Iterator[Hit]:
    for found in _servers(context):
        exchange = found.unknown_tool
        if exchange is None or exchange.outcome == "error":
            continue
        name = found.unknown_tool_name or "a tool it does not list"
        if exchange.outcome == "no answer":
            what = f"got {_said(exchange)}: a client waits out its timeout"
        elif exchange.is_error:
            text = f" ({shorten(' '.join(exchange.message.split()), 80)!r})" if exchange.message else ""
            what = f"came back as a tool result with isError{text}, not a protocol error"
        else:
            what = "came back as a successful tool result: the model believes the call worked"
        yield Hit(
            f"server {found.server!r}: tools/call of {name!r}, which it does not list, {what}",
            subject="tools/call",
            server=found.server,
        )


@rule(
    "P003",
    "Older or unknown protocol version",
    severity="info",
    why="The server settled on an older protocol version than the client offered (or one no "
    "specification has, or the deprecated HTTP+SSE transport): what later versions added — structured "
    "tool output, elicitation, tasks, icons — is off for every client of this server.",
    fix="Update the server's MCP SDK so the handshake settles on the newest version.",
    needs="probe",
    graded=False,
)
def protocol_version(context: LintContext) -> Iterator[Hit]:
    for found in _servers(context):
        version = found.negotiated_version
        offered = found.offered_versions[-1] if found.offered_versions else None
        if version is not None and version not in KNOWN_VERSIONS:
            yield Hit(
                f"server {found.server!r} settled on protocol version {version!r}, which no released "
                f"specification has ({', '.join(KNOWN_VERSIONS)}): clients may refuse the session",
                subject="initialize",
                server=found.server,
            )
        elif version is not None and offered in KNOWN_VERSIONS and version < offered:
            yield Hit(
                f"server {found.server!r} settled on protocol version {version} although {offered} was "
                f"offered: what the versions after {version} added is off for its clients",
                subject="initialize",
                server=found.server,
            )
        if found.transport == "sse":
            yield Hit(
                f"server {found.server!r} speaks the HTTP+SSE transport, deprecated since 2025-03-26: "
                "clients are dropping it for Streamable HTTP",
                subject="transport",
                server=found.server,
            )


@rule(
    "P004",
    "Capabilities declared and served differ",
    severity="warning",
    why="Clients ask only for what a server declares: a list method served without its capability is "
    "never called by a client that checks (its entries stay invisible), and a declared capability whose "
    "list method fails shows users an error.",
    fix="Declare exactly the capabilities the server serves (tools, resources, prompts).",
    needs="probe",
    graded=False,
)
def capabilities(context: LintContext) -> Iterator[Hit]:
    for found in _servers(context):
        for method, exchange in found.failing.items():
            yield Hit(
                f"server {found.server!r} declares the capability of {method}, which answered "
                f"{_said(exchange)}: clients that trust the declaration get an error",
                subject=method,
                server=found.server,
            )
        for method in found.undeclared:
            if method == "resources/templates/list" and "resources/list" in found.undeclared:
                continue
            yield Hit(
                f"server {found.server!r} answers {method} without declaring its capability: clients that "
                "check capabilities never ask, so what it lists stays invisible to them",
                subject=method,
                server=found.server,
            )


@rule(
    "P005",
    "List change notified without listChanged",
    severity="warning",
    why="A server that sends notifications/…/list_changed must declare listChanged: true for that list; "
    "clients ignore (or refuse) notifications for an undeclared capability, so their catalog goes stale.",
    fix="Declare listChanged: true for the lists whose changes the server notifies.",
    needs="probe",
    graded=False,
)
def list_changed(context: LintContext) -> Iterator[Hit]:
    for found in _servers(context):
        declared = found.capabilities or {}
        for method in sorted(set(found.notifications)):
            kind = method.removeprefix("notifications/").removesuffix("/list_changed")
            capability = declared.get(kind)
            if isinstance(capability, dict) and capability.get("listChanged") is True:
                continue
            yield Hit(
                f"server {found.server!r} sent {method} without declaring {kind}.listChanged: clients "
                "ignore it and keep a stale list",
                subject=method,
                server=found.server,
            )


EFFECTS = {
    "stateless": "a 2026-07-28 client sends every request with its own _meta and no handshake, and gets "
    "an error here",
    "discover": "a 2026-07-28 client asks server/discover first; without it, it falls back to the "
    "initialize handshake (or cannot connect when it speaks only 2026-07-28)",
    "unknown_method": "clients detect optional methods by error -32601",
    "unsupported_version": "a client at a version the server lacks cannot learn which versions it speaks",
    "error_codes": "-32002 is retired in 2026-07-28: its clients read it as an unknown error",
    "deprecated_features": "deprecated capabilities are removed in a later version; 2026-07-28 clients "
    "may already ignore them",
}


@rule(
    "P006",
    "Not ready for protocol 2026-07-28",
    severity="info",
    why="The 2026-07-28 protocol drops the initialize handshake for server/discover and stateless "
    "requests, retires error codes and deprecates capabilities; a server that fails these checks works "
    "with today's clients but not, or not fully, with clients of the new version.",
    fix="Move to an MCP SDK that speaks 2026-07-28 (it keeps the handshake for older clients).",
    needs="probe",
    graded=False,
)
def readiness(context: LintContext) -> Iterator[Hit]:
    for found in _servers(context):
        for check in found.readiness:
            if check.status == "fail":
                effect = f"; {EFFECTS[check.id]}" if check.id in EFFECTS else ""
                yield Hit(
                    f"server {found.server!r}: {check.title}: no ({check.detail}){effect}",
                    subject=f"readiness: {check.id}",
                    server=found.server,
                )
