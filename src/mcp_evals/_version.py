"""The version of mcp-evals (a leaf: nothing here imports the package root)."""

__version__ = "0.1.0"
