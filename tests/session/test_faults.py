"""Fault injection is a deterministic rule: seed + tool + call number decide, and the same seed gives
the same faults, in any run, in either arm."""

from __future__ import annotations

from collections import Counter

from mcp_evals.session.faults import HTML_ERROR, fault_content, fault_for
from mcp_evals.session.model import FAULT_KINDS, FaultLevel

TWENTY = FaultLevel(percent=20)


def draws(seed: int, level: FaultLevel, tools: list[str], calls: int) -> list[str | None]:
    return [fault_for(seed, level, tool, number) for tool in tools for number in range(1, calls + 1)]


def test_the_same_seed_gives_the_same_faults_and_another_seed_others() -> None:
    tools = ["get_sync_job", "get_service_status", "retry_sync_job"]
    first = draws(13, TWENTY, tools, 200)
    assert first == draws(13, TWENTY, tools, 200)
    assert first != draws(14, TWENTY, tools, 200)


def test_the_rate_is_the_level_and_every_kind_occurs() -> None:
    faults = draws(7, TWENTY, [f"tool_{index}" for index in range(10)], 500)
    rate = sum(fault is not None for fault in faults) / len(faults)
    assert 0.18 < rate < 0.22
    kinds = Counter(fault for fault in faults if fault is not None)
    assert set(kinds) == set(FAULT_KINDS)
    assert min(kinds.values()) > 150  # about a quarter of the 1,000 faults each


def test_zero_and_a_hundred_percent() -> None:
    assert set(draws(1, FaultLevel(percent=0), ["a", "b"], 100)) == {None}
    assert None not in draws(1, FaultLevel(percent=100), ["a", "b"], 100)


def test_only_the_named_tools_and_kinds_fail() -> None:
    level = FaultLevel(percent=50, kinds=["timeout"], tools=["flaky"])
    assert set(draws(3, level, ["steady"], 100)) == {None}
    assert set(draws(3, level, ["flaky"], 100)) == {None, "timeout"}


def test_what_an_injected_error_looks_like() -> None:
    assert fault_content("upstream_502")[0]["text"].startswith("upstream error: HTTP 502 Bad Gateway")
    assert fault_content("html_error") == [{"type": "text", "text": HTML_ERROR}]
    assert HTML_ERROR.startswith("<!DOCTYPE html>")
    assert fault_content("is_error")[0]["text"] == "Internal error while running the tool."
    assert fault_content("timeout") == []
