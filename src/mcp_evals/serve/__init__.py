"""`mcp-evals serve`: contract tests and evals as MCP tools (the harness), and its server wiring (the app)."""
