"""`${VAR}` in the config: found, checked and expanded from the environment."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from mcp_evals.errors import ConfigError

_VARIABLE = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def unset_variables(text: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """The ``${VAR}`` names in ``text`` that the environment does not set."""
    source = os.environ if environ is None else environ
    return [name for name in _VARIABLE.findall(text) if name and name not in source]


def expand_variables(text: str, *, what: str, environ: dict[str, str] | None = None) -> str:
    """Expand ``${VAR}`` from the environment (``$$`` is a literal ``$``); an unset variable is an error."""
    source = os.environ if environ is None else environ

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        if name not in source:
            raise ConfigError(
                f"{what}: environment variable {name} is not set",
                hint=f"export {name}=… before running, or remove ${{{name}}} from the config",
            )
        return source[name]

    return _VARIABLE.sub(substitute, text)
