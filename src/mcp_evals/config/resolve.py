"""Flag → environment variable → config → default: the one order every command reads a setting in.

``--budget-usd`` beats ``EVAL_BUDGET_USD``, which beats ``run.budget_usd``, which beats the default;
the same for ``EVAL_MODEL``, ``EVAL_CONCURRENCY`` and ``EVAL_LIMIT``. A flag's value is checked by
click, a config's by pydantic; an environment variable's is checked here, with one message for every
command (docs/running.md, *Settings*): a set variable that is not a positive number is bad input.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TypeVar, overload

from mcp_evals.errors import ConfigError

Number = TypeVar("Number", int, float)

# The variables every command reads (docs/running.md, *Settings*).
MODEL_VARIABLE = "EVAL_MODEL"
BUDGET_VARIABLE = "EVAL_BUDGET_USD"
CONCURRENCY_VARIABLE = "EVAL_CONCURRENCY"
LIMIT_VARIABLE = "EVAL_LIMIT"


def env_text(environ: Mapping[str, str], name: str | None) -> str | None:
    """The variable's value, stripped; None when unset or blank (an empty secret is no value)."""
    if name is None:
        return None
    return environ.get(name, "").strip() or None


@overload
def env_number(
    environ: Mapping[str, str], name: str | None, kind: type[int], *, at_most: float = ...
) -> int | None: ...
@overload
def env_number(
    environ: Mapping[str, str], name: str | None, kind: type[float], *, at_most: float = ...
) -> float | None: ...
def env_number(
    environ: Mapping[str, str],
    name: str | None,
    kind: type[int] | type[float],
    *,
    at_most: float = math.inf,
) -> int | float | None:
    """A positive number from the environment, or None when unset; anything else is bad input."""
    value = env_text(environ, name)
    if value is None or name is None:
        return None
    expected = "a whole number" if kind is int else "a number, e.g. 2.50"
    try:
        number = kind(value)
    except ValueError:
        raise ConfigError(f"{name}={value!r}: expected {expected}") from None
    if not (0 < number <= at_most and math.isfinite(number)):
        limit = f" and at most {at_most:g}" if math.isfinite(at_most) else ""
        raise ConfigError(f"{name}={value!r}: must be more than 0{limit}")
    return number


def number_setting(
    flag: Number | None,
    environ: Mapping[str, str],
    variable: str | None,
    configured: Number | None,
    kind: type[Number],
    *,
    at_most: float = math.inf,
) -> Number | None:
    """``flag``, else the environment ``variable``, else ``configured``; None when none is set."""
    if flag is not None:
        return flag
    from_environment = env_number(environ, variable, kind, at_most=at_most)
    if from_environment is not None:
        return kind(from_environment)
    return configured


def text_setting(
    flag: str | None, environ: Mapping[str, str], variable: str | None, configured: str | None
) -> str | None:
    """``flag``, else the environment ``variable``, else ``configured`` (blank counts as unset)."""
    return (flag or "").strip() or env_text(environ, variable) or (configured or "").strip() or None
