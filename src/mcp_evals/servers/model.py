"""What a tool call returns, as our own data: the rest of the code never sees an SDK type."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

CLIENT_NAME = "mcp-evals"
"""How mcp-evals introduces itself to servers (with its version)."""


class ToolResult(BaseModel):
    """One ``tools/call`` result. A tool's failure is a result with ``is_error``, not an exception."""

    content: list[dict[str, Any]] = Field(
        default_factory=list, description="The content blocks in the MCP wire shape."
    )
    structured_content: Any = Field(None, description="The `structuredContent`, when the tool returned one.")
    is_error: bool = Field(False, description="The tool reported a failure (`isError`).")
    latency_ms: float = Field(0.0, ge=0, description="From sending the request to reading the result.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def text(self) -> str:
        """The text blocks joined by newlines: what most assertions look at."""
        return "\n".join(
            block["text"]
            for block in self.content
            if block.get("type") == "text" and isinstance(block.get("text"), str)
        )


class Exchange(BaseModel):
    """What one conformance request got back: a result, a JSON-RPC error, or nothing in time."""

    method: str
    outcome: Literal["result", "error", "no answer"]
    code: int | None = Field(None, description="The JSON-RPC error code, for an error.")
    message: str = Field("", description="The error's message, or for tools/call the result's text.")
    is_error: bool | None = Field(None, description="tools/call only: the result's `isError`.")


ReadinessStatus = Literal["pass", "fail", "skipped"]


class ReadinessCheck(BaseModel):
    """One check of how ready a server is for the 2026-07-28 protocol (stateless requests, discovery)."""

    id: str
    title: str
    status: ReadinessStatus
    detail: str = ""


class Conformance(BaseModel):
    """How one server answered the conformance requests (``mcp-evals lint --probe``, ``audit``).

    Read-only requests only: the list methods with an invalid cursor, ``tools/call`` of a tool
    name the server does not list (no tool of the server is ever called), an unknown method,
    ``server/discover`` and a request without the handshake on fresh connections.
    """

    server: str
    transport: str
    offered_versions: list[str] = Field(
        default_factory=list, description="The protocol versions mcp-evals offered, in the order it did."
    )
    negotiated_version: str | None = Field(None, description="What the `initialize` handshake settled on.")
    modern_version: str | None = Field(None, description="2026-07-28 when `server/discover` offers it.")
    capabilities: dict[str, Any] | None = Field(None, description="As the handshake declared them.")
    invalid_cursor: dict[str, Exchange] = Field(
        default_factory=dict, description="List method → its answer to a cursor it never issued."
    )
    unknown_tool: Exchange | None = None
    unknown_tool_name: str | None = None
    undeclared: list[str] = Field(
        default_factory=list, description="List methods that answered although no capability offers them."
    )
    failing: dict[str, Exchange] = Field(
        default_factory=dict, description="List methods a declared capability offers, which failed."
    )
    notifications: list[str] = Field(
        default_factory=list, description="The notifications the server sent while probed (methods)."
    )
    readiness: list[ReadinessCheck] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="What could not be checked, and why.")

    @property
    def readiness_passed(self) -> int:
        return sum(1 for check in self.readiness if check.status == "pass")

    @property
    def readiness_assessed(self) -> int:
        return sum(1 for check in self.readiness if check.status != "skipped")
