"""What a tool call returns, as our own data: the rest of the code never sees an SDK type."""

from __future__ import annotations

from typing import Any

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
