"""YAML 1.1's surprises: plain words and numbers a YAML 1.1 reader (PyYAML's, ours) reads as another
type than a person — or YAML 1.2, or JSON — would: ``no`` is false, ``9:30`` is 570 (base 60),
``010`` is 8. Where such a value is then refused, the message shows what the file says and suggests
quotes, instead of showing only the converted value."""

from __future__ import annotations

import re
from typing import Any

_SURPRISES = re.compile(
    r"(?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF)"  # booleans beyond true/false
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"  # sexagesimal: 9:30 -> 570
    r"|[-+]?0[0-7_]+"  # octal: 010 -> 8
    r"|[-+]?0b[01_]+"  # binary
)


def surprising(text: str) -> bool:
    """Whether a plain (unquoted) scalar's text is one YAML 1.1 reads as something else than it looks."""
    return _SURPRISES.fullmatch(text) is not None


_UNSET: Any = object()


def note(source: str | None, value: Any = _UNSET) -> str:
    """What to add to a message about ``value`` when the file wrote it as ``source`` ("" otherwise)."""
    if source is None:
        return ""
    if value is _UNSET:  # the message shows the value already
        return f' (the file says {source}: write "{source}" in quotes for the text)'
    shown = "true" if value is True else "false" if value is False else repr(value)
    return f' (the file says {source}, which YAML reads as {shown}: write "{source}" in quotes for the text)'
