"""durations.py: the one reading of a duration, for flags and config alike."""

from __future__ import annotations

import pytest

from mcp_evals.durations import DurationError, has_unit, seconds, shown


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("500ms", 0.5),
        ("30s", 30.0),
        ("2m", 120.0),
        ("1h", 3600.0),
        ("1.5s", 1.5),
        (" 45 s ", 45.0),
        ("12", 12.0),
    ],
)
def test_a_duration_is_seconds(value: str, expected: float) -> None:
    assert seconds(value) == expected


def test_a_bare_number_takes_the_places_unit() -> None:
    assert seconds(7) == 7.0
    assert seconds("1500", bare="ms") == seconds(1500, bare="ms") == 1.5
    assert seconds("2s", bare="ms") == 2.0  # a unit is read as written
    assert has_unit("2s") and has_unit("500ms") and not has_unit("2") and not has_unit(2)


@pytest.mark.parametrize(
    "value", ["soon", "", "-1s", "0", "0ms", "1d", "1e3", "nan", True, 0, -2.0, float("inf")]
)
def test_what_is_not_a_duration_says_what_one_looks_like(value: str | float) -> None:
    with pytest.raises(DurationError, match=r"500ms, 30s, 2m"):
        seconds(value)


def test_shown() -> None:
    assert [shown(value) for value in (30.0, 0.5, 120.0, 90.0)] == ["30s", "0.5s", "2m", "90s"]
