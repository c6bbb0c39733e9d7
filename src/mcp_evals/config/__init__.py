"""The config file, ``mcp-evals.yaml``: its models, its loading, and the reader of every user file."""

from mcp_evals.config.load import load_config
from mcp_evals.config.model import (
    DEFAULT_CONFIG_NAME,
    DEFAULT_SYSTEM_PROMPT,
    BaselineOptions,
    ClientOptions,
    Config,
    ContractOptions,
    GateOptions,
    JudgeOptions,
    ModelPrice,
    ReportPaths,
    RunOptions,
    ScoringOptions,
    ServerConfig,
    ValidationOptions,
)

__all__ = [
    "DEFAULT_CONFIG_NAME",
    "DEFAULT_SYSTEM_PROMPT",
    "BaselineOptions",
    "ClientOptions",
    "Config",
    "ContractOptions",
    "GateOptions",
    "JudgeOptions",
    "ModelPrice",
    "ReportPaths",
    "RunOptions",
    "ScoringOptions",
    "ServerConfig",
    "ValidationOptions",
    "load_config",
]
