"""Fault injection: which tool calls fail, and what a failure looks like. Pure, so it is testable alone.

The rule is deterministic: a call fails when ``sha256(seed, tool, call number)`` falls in the
level's first X %, and the same digest picks the kind. The call number counts the session's calls
of that tool from 1, so two arms (and two runs) meet the same faults at the same calls: the A/B
difference is not the luck of the draw. Same seed, same faults.

Faults are injected between the session and the server (``session.server``): a failed call never
reaches the server, which runs unchanged, in any language, over any transport. What the model sees
is what a client sees when a real server's upstream fails:

    upstream_502   an error result: "upstream error: HTTP 502 Bad Gateway …"
    html_error     an error result whose text is an HTML error page (a proxy's 503 page)
    timeout        no answer: the call is held until the step timeout, then reported as timed out
    is_error       an error result: "Internal error while running the tool."
"""

from __future__ import annotations

import hashlib
from typing import Any

from mcp_evals.session.model import FaultKind, FaultLevel

UPSTREAM_502 = (
    "upstream error: HTTP 502 Bad Gateway from the service behind this tool (the request did not complete)."
)
HTML_ERROR = (
    "<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head>\n"
    "<body><h1>Service Unavailable</h1>\n<p>The server is temporarily unable to service your request "
    "due to maintenance downtime or capacity problems. Please try again later.</p>\n"
    "<hr><address>nginx</address></body></html>"
)
IS_ERROR = "Internal error while running the tool."


def _digest(seed: int, tool: str, call_number: int) -> bytes:
    return hashlib.sha256(f"{seed}\x1f{tool}\x1f{call_number}".encode()).digest()


def fault_for(seed: int, level: FaultLevel, tool: str, call_number: int) -> FaultKind | None:
    """The fault of the ``call_number``-th call (from 1) of ``tool`` in a session, or None."""
    if level.percent <= 0 or (level.tools and tool not in level.tools):
        return None
    digest = _digest(seed, tool, call_number)
    draw = int.from_bytes(digest[:8], "big") / 2**64 * 100
    if draw >= level.percent:
        return None
    return level.kinds[int.from_bytes(digest[8:16], "big") % len(level.kinds)]


def fault_content(kind: FaultKind) -> list[dict[str, Any]]:
    """The content of an injected error result (``timeout`` has none: the call gets no answer)."""
    text = {"upstream_502": UPSTREAM_502, "html_error": HTML_ERROR, "is_error": IS_ERROR}.get(kind, "")
    return [{"type": "text", "text": text}] if text else []


def timeout_text(seconds: float) -> str:
    """What the model is told when a call got no answer in time (a real timeout or an injected one)."""
    return f"The tool call timed out: no answer within {seconds:g} s."
