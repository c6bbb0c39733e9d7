"""Reading `mcp-evals.yaml` into a checked ``Config``."""

from __future__ import annotations

from pathlib import Path

from pydantic import (
    ValidationError,
)

from mcp_evals.config.documents import describe_validation_error, load_document
from mcp_evals.config.isolation import check_state
from mcp_evals.config.model import DEFAULT_CONFIG_NAME, Config
from mcp_evals.errors import ConfigError, InputFileError


def load_config(path: str | Path | None = None) -> Config:
    """Read and check a config file (default ``./mcp-evals.yaml``)."""
    config_path = Path(path) if path is not None else Path(DEFAULT_CONFIG_NAME)
    if not config_path.exists():
        raise ConfigError(
            f"{config_path}: config file not found",
            hint=(
                "pass --config PATH, or write one from your server: "
                "mcp-evals init --command CMD [ARGS…] (stdio) or mcp-evals init --url URL (HTTP)"
            ),
        )
    try:
        document = load_document(config_path)
    except InputFileError as error:
        raise ConfigError(error.message, hint=error.hint) from None
    if not isinstance(document.data, dict):
        raise ConfigError(f"{config_path}: the config must be a mapping with at least a `servers:` list")
    try:
        config = Config.model_validate(document.data)
    except ValidationError as error:
        raise ConfigError(describe_validation_error(error, document, schema="config", model=Config)) from None
    config.located(config_path.resolve(), str(config_path), document.lines)
    try:
        check_state(config, config.state)
    except InputFileError as error:
        raise ConfigError(error.message, hint=error.hint) from None
    return config
