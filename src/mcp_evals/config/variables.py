"""`${VAR}` and `${VAR:-default}` in the config and case files: found, checked and expanded.

`${VAR}` is the environment variable; `${VAR:-default}` is it, or ``default`` when it is unset or
empty (the shell's rule, which mcp-eval-runner's cases use in `args`); `$$` is a literal `$`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from mcp_evals.errors import ConfigError

_VARIABLE = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class Reference:
    """One ``${VAR}`` or ``${VAR:-default}`` in a value."""

    name: str
    default: str | None


def references(text: str) -> Iterator[Reference]:
    """The variables ``text`` refers to, in order (``$$`` is none)."""
    for match in _VARIABLE.finditer(text):
        if match.group(1):
            yield Reference(match.group(1), match.group(2))


def unset_variables(text: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """The ``${VAR}`` names in ``text`` that the environment does not set and that have no default."""
    source = os.environ if environ is None else environ
    return [ref.name for ref in references(text) if ref.default is None and ref.name not in source]


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
    """(variable, problem) for each variable in ``text`` that is set but empty or unusable.

    A variable with a default that is set but empty is not a problem: the default is used.
    """
    source = os.environ if environ is None else environ
    problems = []
    for ref in references(text):
        if ref.name not in source:
            continue
        value = source[ref.name]
        if not value.strip():
            if ref.default is None:
                problems.append((ref.name, "is set but empty"))
            continue
        problem = value_problem(value, header=header)
        if problem:
            problems.append((ref.name, problem))
    return problems


def unset_hint(name: str, file: str = "the config") -> str:
    """The hint for an unset variable without a default."""
    return f"export {name}=… before running, or remove ${{{name}}} from {file}"


def value_error(
    value: str,
    place: str,
    *,
    header: bool,
    literal: bool = True,
    file: str = "the config",
    environ: Mapping[str, str] | None = None,
) -> ConfigError | None:
    """The first problem of one value that holds variables, as the error to show at ``place``.

    An unset variable without a default, one set but empty or unusable, and (``literal``) a value
    written with a line break or control character; None when the value can be expanded.
    """
    missing = unset_variables(value, environ)
    if missing:
        return ConfigError(
            f"{place}: environment variable {missing[0]} is not set", hint=unset_hint(missing[0], file)
        )
    for name, problem in variable_problems(value, header=header, environ=environ):
        return ConfigError(f"{place}: environment variable {name} {problem}", hint=_fix(name))
    written = value_problem(value, header=header) if literal else None
    if written:
        return ConfigError(f"{place}: the value {written}", hint=f"fix the value in {file}")
    return None


def expand_variables(
    text: str, *, what: str, environ: Mapping[str, str] | None = None, header: bool = False
) -> str:
    """Expand ``${VAR}`` and ``${VAR:-default}`` from the environment (``$$`` is a literal ``$``).

    An unset variable without a default, one set but empty, and one holding a line break or a
    control character (or, in a ``header``, non-ASCII) are errors naming ``what`` and the variable,
    never its value.
    """
    source = os.environ if environ is None else environ

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, default = match.group(1), match.group(2)
        value = source.get(name)
        if default is not None and not (value or "").strip():
            return default
        if value is None:
            raise ConfigError(f"{what}: environment variable {name} is not set", hint=unset_hint(name))
        return value

    for name, problem in variable_problems(text, header=header, environ=source):
        raise ConfigError(f"{what}: environment variable {name} {problem}", hint=_fix(name))
    return _VARIABLE.sub(substitute, text)


def _fix(name: str) -> str:
    return f"set {name} to exactly the value (in CI: the secret, without a trailing newline)"
