"""``mcp-evals serve``: the harness itself as an MCP server.

``harness`` does the work of each tool with no MCP types; ``server`` (the second module allowed to
import the MCP SDK, for the server side) registers the tools and serves stdio or Streamable HTTP.
"""
