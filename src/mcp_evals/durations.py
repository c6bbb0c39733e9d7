"""The one reading of a duration, for flags and config alike: seconds, or a number with a unit.

``30``, ``30s``, ``500ms``, ``2m`` and ``1h`` all mean what they say; every duration is seconds in
the program. A bare number is seconds, except where an option took milliseconds before (its
``bare`` unit is then ``ms`` for one release, and says so: see docs/cli.md).
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Literal

from pydantic import BeforeValidator, WithJsonSchema

Unit = Literal["ms", "s", "m", "h"]
UNITS: dict[str, float] = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
EXAMPLES = "500ms, 30s, 2m"

_DURATION = re.compile(r"(?P<number>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>ms|s|m|h)?")


class DurationError(ValueError):
    """A value that is not a duration; the message says what one looks like."""


def has_unit(value: str | float) -> bool:
    """The value names its unit (``30s``), rather than leaving it to the place that reads it (``30``)."""
    match = _DURATION.fullmatch(str(value).strip()) if isinstance(value, str) else None
    return match is not None and match.group("unit") is not None


def seconds(value: str | float, *, bare: Unit = "s") -> float:
    """``value`` in seconds: a number (in ``bare`` units) or a string with a unit (``500ms``, ``2m``).

    A duration is positive and finite; anything else is a ``DurationError`` that shows the forms.
    """
    if isinstance(value, bool):
        raise DurationError(
            f"{value!r} is not a duration: write seconds, or a number with a unit ({EXAMPLES})"
        )
    if isinstance(value, int | float):
        amount, unit = float(value), str(bare)
    else:
        match = _DURATION.fullmatch(value.strip())
        if match is None:
            raise DurationError(
                f"{value!r} is not a duration: write seconds, or a number with a unit ({EXAMPLES})"
            )
        amount, unit = float(match.group("number")), match.group("unit") or bare
    result = amount * UNITS[unit]
    if not math.isfinite(result) or result <= 0:
        raise DurationError(f"{value!r} is not a duration: it must be more than 0 ({EXAMPLES})")
    return result


def shown(value: float) -> str:
    """A duration in seconds as a person reads it: ``30s``, ``0.5s``, ``2m``."""
    if value >= 60 and value % 60 == 0:
        return f"{value / 60:g}m"
    return f"{value:g}s"


def _read(value: object) -> object:
    """A duration written with a unit becomes seconds; a number is left to the field's own checks."""
    return seconds(value) if isinstance(value, str) else value


_PATTERN = r"^\s*(\d+(\.\d*)?|\.\d+)\s*(ms|s|m|h)?\s*$"
# A duration field of a user file: seconds, or a string with a unit ("500ms", "30s", "2m").
Seconds = Annotated[
    float,
    BeforeValidator(_read),
    WithJsonSchema(
        {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "string", "pattern": _PATTERN}]}
    ),
]
