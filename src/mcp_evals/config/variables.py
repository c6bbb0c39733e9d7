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


def value_problem(value: str, *, header: bool) -> str | None:
    """What is wrong with a value (never the value itself), or None.

    Line breaks and other control characters are never meant (a token pasted with its newline); in
    an HTTP header, non-ASCII cannot be sent at all. The message names the character's kind only,
    because the value is usually a secret.
    """
    if any(character in "\r\n" for character in value):
        return "holds a line break (a value pasted with its newline?)"
    if any(ord(character) < 32 or ord(character) == 127 for character in value if character != "\t"):
        return "holds a control character"
    if header and any(ord(character) > 126 for character in value):
        return "holds non-ASCII characters, which an HTTP header cannot carry (a pasted '…'?)"
    return None


def variable_problems(
    text: str, *, header: bool, environ: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """(variable, problem) for each ``${VAR}`` in ``text`` that is set but empty or unusable."""
    source = os.environ if environ is None else environ
    problems = []
    for name in _VARIABLE.findall(text):
        if not name or name not in source:
            continue
        value = source[name]
        problem = "is set but empty" if not value.strip() else value_problem(value, header=header)
        if problem:
            problems.append((name, problem))
    return problems


def expand_variables(
    text: str, *, what: str, environ: Mapping[str, str] | None = None, header: bool = False
) -> str:
    """Expand ``${VAR}`` from the environment (``$$`` is a literal ``$``).

    An unset variable, one set but empty, and one holding a line break or a control character (or,
    in a ``header``, non-ASCII) are errors naming ``what`` and the variable, never its value.
    """
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

    for name, problem in variable_problems(text, header=header, environ=source):
        raise ConfigError(f"{what}: environment variable {name} {problem}", hint=_fix(name))
    return _VARIABLE.sub(substitute, text)


def _fix(name: str) -> str:
    return f"set {name} to exactly the value (in CI: the secret, without a trailing newline)"
