"""The MCP servers a config names: started, reached and spoken to (the only package importing the MCP SDK)."""
