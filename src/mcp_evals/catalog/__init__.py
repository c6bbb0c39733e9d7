"""The tool catalog: the model (``model``, pure data), snapshots, live extraction and diffs.

Importing the package gives only the data model; ``extract`` (which talks MCP) is imported by name
where it is needed, so scoring and reports never reach the MCP layer.
"""

from mcp_evals.catalog.model import Catalog, ServerInfo, Tool

__all__ = ["Catalog", "ServerInfo", "Tool"]
