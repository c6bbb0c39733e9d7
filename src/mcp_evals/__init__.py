"""mcp-evals: how well does a model pick the right tool from your MCP server's catalog?"""

from .catalog import Catalog, ServerInfo, Tool, extract_catalog, load_catalog
from .config import Config, ServerConfig, ValidationOptions, load_config
from .errors import ConfigError, InputFileError, McpEvalsError, ProviderError, ServerError
from .fixtures import Fixture, load_fixtures
from .validate import Problem, validate_fixtures

__version__ = "0.1.0"

__all__ = [
    "Catalog",
    "Config",
    "ConfigError",
    "Fixture",
    "InputFileError",
    "McpEvalsError",
    "Problem",
    "ProviderError",
    "ServerConfig",
    "ServerError",
    "ServerInfo",
    "Tool",
    "ValidationOptions",
    "__version__",
    "extract_catalog",
    "load_catalog",
    "load_config",
    "load_fixtures",
    "validate_fixtures",
]
