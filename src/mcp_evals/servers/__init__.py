"""The MCP servers a config names: started, reached and spoken to (the only importer of the MCP SDK)."""
