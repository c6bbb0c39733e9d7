"""A test MCP server whose ``tools/list`` returns its tools a few at a time, with a ``nextCursor``.

Built on the low-level ``mcp.server.Server`` API, where the server decides the pages itself.

    python paging_server.py [--tools 23] [--page-size 5] [--awkward-names]

With ``--awkward-names`` the first tools get names the model APIs refuse (dots, slashes, spaces,
unicode, 100 characters), to follow them through the whole pipeline.
"""

from __future__ import annotations

import argparse

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

AWKWARD_NAMES = [
    "tickets.search",
    "files/read",
    "send message",
    "résumé_lookup",
    "検索",
    "very_long_" + "x" * 90,
]


def make_tools(count: int, awkward: bool = False) -> list[types.Tool]:
    names = [f"tool_{index:03d}" for index in range(count)]
    if awkward:
        names[: len(AWKWARD_NAMES)] = AWKWARD_NAMES
    return [
        types.Tool(
            name=names[index],
            description=f"Test tool number {index}.",
            input_schema={
                "type": "object",
                "properties": {"value": {"type": "integer", "description": f"Input {index}."}},
                "required": ["value"],
            },
        )
        for index in range(count)
    ]


def make_server(count: int, page_size: int, awkward: bool = False) -> Server:
    tools = make_tools(count, awkward)

    async def list_tools(ctx: object, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + page_size
        return types.ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )

    return Server("paging-test-server", version="1.0.0", on_list_tools=list_tools)


async def main(count: int, page_size: int, awkward: bool) -> None:
    server = make_server(count, page_size, awkward)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=23)
    parser.add_argument("--page-size", type=int, default=5)
    parser.add_argument("--awkward-names", action="store_true")
    arguments = parser.parse_args()
    anyio.run(main, arguments.tools, arguments.page_size, arguments.awkward_names)
