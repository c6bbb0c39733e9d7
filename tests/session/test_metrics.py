"""Each bad-call rule, and the other per-session numbers, on traces written by hand."""

from __future__ import annotations

import re

import pytest

from mcp_evals.session.metrics import bad_call_flags, check_answer, in_order, session_metrics
from mcp_evals.session.model import DEFAULT_TRANSIENT_ERRORS, AnswerCheck, ScriptStep, Task

from .records import call, catalog, error, ok, session

TRANSIENT = re.compile(DEFAULT_TRANSIENT_ERRORS)
NOT_FOUND = "Error executing tool get_sync_job: No sync job 'SYNC-404'. It does not exist."
REVOKED = "SYNC-7 cannot be retried: 401 invalid_grant: the refresh token was revoked."


def flags(*calls: object) -> list[str]:
    found = bad_call_flags(list(calls), catalog(), TRANSIENT)  # type: ignore[arg-type]
    return ["".join(sorted(flag)) for flag in found]


def task(**extra: object) -> Task:
    return Task.model_validate(
        {
            "id": "t",
            "prompt": "p",
            "script": [{"tool": "get_sync_job", "arguments": {"job_id": "SYNC-7"}}],
            **extra,
        }
    )


# -- (a) the same call after a definitive error ---------------------------------------------------------


def test_a_repeating_the_same_call_after_a_definitive_error() -> None:
    assert flags(
        call("get_sync_job", {"job_id": "SYNC-404"}, error(NOT_FOUND)),
        call("get_sync_job", {"job_id": "SYNC-404"}, error(NOT_FOUND)),  # (a)
        call("get_sync_job", {"job_id": "SYNC-7"}, ok()),  # another call: fine
        call("get_sync_job", {"job_id": "SYNC-404"}, error(NOT_FOUND)),  # (a), and (c): 3rd, all failed
    ) == ["", "a", "", "ac"]


def test_a_key_order_of_the_arguments_does_not_make_another_call() -> None:
    first = call("retry_sync_job", {"job_id": "SYNC-7", "force": True}, error(REVOKED))
    again = call("retry_sync_job", {"force": True, "job_id": "SYNC-7"}, error(REVOKED))
    assert flags(first, again) == ["", "a"]


@pytest.mark.parametrize(
    "first",
    [
        call(
            "get_sync_job",
            {"job_id": "SYNC-8"},
            error("upstream error: HTTP 502 Bad Gateway"),
            fault="upstream_502",
        ),
        call(
            "get_sync_job",
            {"job_id": "SYNC-8"},
            error("The tool call timed out"),
            fault="timeout",
            error_kind="timeout",
        ),
        call("get_sync_job", {"job_id": "SYNC-8"}, error("no answer within 10 s"), error_kind="timeout"),
        call("get_sync_job", {"job_id": "SYNC-8"}, error("Service temporarily unavailable, try again")),
        call("get_sync_job", {"job_id": "SYNC-8"}, error("HTTP 503 from the upstream")),
    ],
    ids=["injected 502", "injected timeout", "real timeout", "says temporary", "a 503"],
)
def test_a_retrying_after_a_transient_error_is_fair(first: object) -> None:
    assert flags(first, call("get_sync_job", {"job_id": "SYNC-8"}, ok())) == ["", ""]


@pytest.mark.parametrize(
    ("text", "transient"),
    [
        ("HTTP 503 from the upstream", True),
        ("upstream said 502 Bad Gateway", True),
        ("429 Too Many Requests", True),
        ("The request timed out", True),
        ("Service temporarily unavailable", True),
        ("Rate limited, retry later", True),
        ("No ticket 'T-550'. Ticket ids look like T-1042.", False),
        ("SYNC-7 cannot be retried: 401 invalid_grant", False),
        ("Field required [type=missing]", False),
    ],
)
def test_the_default_transient_errors(text: str, transient: bool) -> None:
    assert bool(TRANSIENT.search(text)) is transient


def test_a_arguments_that_were_no_json_object_are_a_definitive_error() -> None:
    bad = call("get_sync_job", None, error("not a JSON object"), error_kind="invalid_arguments", raw="{job")
    assert flags(bad, bad.model_copy()) == ["b", "ab"]


# -- (b) refused by the schema ---------------------------------------------------------------------


def test_b_arguments_the_schema_rejects_unknown_tools_and_non_objects() -> None:
    assert flags(
        call("get_sync_job", {"job_id": "7"}, error("bad id")),  # pattern
        call("get_sync_job", {}, error("missing")),  # required
        call("get_sync_job", {"job_id": "SYNC-7", "verbose": True}, ok()),  # additionalProperties
        call("get_service_status", {"region": "eu-central"}, ok()),  # enum
        call("delete_everything", {}, error("Unknown tool"), known=False),
        call("get_service_status", {"region": "eu"}, ok()),  # fine
    ) == ["b", "b", "b", "b", "b", ""]


# -- (c) insistence --------------------------------------------------------------------------------------


def test_c_the_third_and_later_calls_on_a_key_that_always_failed() -> None:
    fault = error("upstream error: HTTP 502 Bad Gateway")
    key = {"job_id": "SYNC-8"}
    assert flags(
        call("get_sync_job", key, fault, fault="upstream_502"),
        call("get_sync_job", key, fault, fault="upstream_502"),
        call("get_sync_job", key, fault, fault="upstream_502"),  # (c)
        call("get_sync_job", key, ok()),  # succeeded: not insistence
    ) == ["", "", "c", ""]


def test_c_a_success_on_the_key_ends_the_insistence() -> None:
    fault = error("upstream error: HTTP 502 Bad Gateway")
    key = {"job_id": "SYNC-8"}
    assert flags(
        call("get_sync_job", key, fault, fault="upstream_502"),
        call("get_sync_job", key, ok()),
        call("get_sync_job", key, fault, fault="upstream_502"),
        call("get_sync_job", key, fault, fault="upstream_502"),
    ) == ["", "", "", ""]


def test_a_call_breaking_several_rules_is_one_bad_call() -> None:
    record = session(
        [call("retry_sync_job", {"job_id": "SYNC-7"}, error(REVOKED))],
        [call("retry_sync_job", {"job_id": "SYNC-7"}, error(REVOKED))],
        [call("retry_sync_job", {"job_id": "SYNC-7"}, error(REVOKED))],
        [call("get_sync_job", {"job_id": "7"}, error("bad id"))],
    )
    metrics = session_metrics(record, task(), catalog(), DEFAULT_TRANSIENT_ERRORS)
    assert (metrics.repeated_after_error, metrics.schema_rejected, metrics.insistence) == (2, 1, 1)
    assert metrics.bad_calls == 3  # the 2nd and 3rd retries (the 3rd is (a) and (c)) and the bad id
    assert metrics.calls == 4 and metrics.failed_calls == 4 and metrics.tool_success_rate == 0.0


# -- the other numbers -----------------------------------------------------------------------------------


def test_answer_checks() -> None:
    assert check_answer(AnswerCheck(contains=["Degraded", "eu"]), "The EU region is degraded.")
    assert not check_answer(AnswerCheck(contains=["degraded", "ap"]), "The EU region is degraded.")
    assert check_answer(AnswerCheck(regex=r"SYNC-\d+"), "job SYNC-7 failed")
    assert not check_answer(AnswerCheck(regex=r"(?i)reconnect"), "I retried it.")
    json_check = AnswerCheck(json_path="refund.invoice_id", equals="INV-2025-0208")
    assert check_answer(json_check, 'Done:\n```json\n{"refund": {"invoice_id": "INV-2025-0208"}}\n```')
    assert check_answer(json_check, 'Here you go {"refund": {"invoice_id": "INV-2025-0208"}} thanks')
    assert not check_answer(json_check, '{"refund": {"invoice_id": "INV-2025-0207"}}')
    assert not check_answer(json_check, "no JSON at all")
    assert check_answer(AnswerCheck(json_path="items[1]", equals=2), "[1, 2]") is False  # not an object path
    assert check_answer(AnswerCheck(json_path="$.count", equals=2), '{"count": 2.0}')
    assert not check_answer(AnswerCheck(json_path="ok", equals=1), '{"ok": true}')  # true is not 1


def test_the_json_of_an_answer_is_found_in_ordinary_prose() -> None:
    """The whole answer, else its first fenced JSON block, else the first balanced `{…}` that parses."""
    invoice = AnswerCheck(json_path="invoice_id", equals="INV-1")
    assert check_answer(invoice, 'Done: {"invoice_id": "INV-1"} (refund {RF-1})')
    assert check_answer(invoice, 'Options {a, b}: none fit. Then {"invoice_id": "INV-1"}.')
    assert check_answer(invoice, 'Found {"invoice_id": "INV-1"} and {"invoice_id": "INV-2"}')
    assert check_answer(invoice, 'Inline {"invoice_id": "INV-2"}, but:\n```\n{"invoice_id": "INV-1"}\n```')
    nested = AnswerCheck(json_path="refund.id", equals="RF-1")
    assert check_answer(nested, 'Refunded: {"refund": {"id": "RF-1", "note": "a } in a string"}} — done')
    assert not check_answer(invoice, "Done: {invoice_id: INV-1}")  # not JSON
    assert not check_answer(invoice, 'Unclosed {"invoice_id": "INV-1"')


def test_expected_tools_in_order_as_a_subsequence() -> None:
    assert in_order(["a", "c"], ["a", "b", "c"])
    assert in_order([], ["a"])
    assert not in_order(["c", "a"], ["a", "b", "c"])
    assert not in_order(["a", "a"], ["a", "b"])


def test_path_efficiency_steps_and_correctness() -> None:
    script = [
        ScriptStep(tool="get_sync_job", arguments={"job_id": "SYNC-8"}),
        ScriptStep(tool="retry_sync_job", arguments={"job_id": "SYNC-8"}),
    ]
    the_task = task(
        script=[step.model_dump() for step in script],
        expected_tools=["get_sync_job", "retry_sync_job"],
        answer={"contains": "running"},
    )
    wandering = session(
        [call("get_service_status", {"region": "eu"}, ok())],
        [call("get_sync_job", {"job_id": "SYNC-8"}, ok())],
        [call("get_sync_job", {"job_id": "SYNC-8"}, ok())],  # a repeat: counted as a step taken
        [call("retry_sync_job", {"job_id": "SYNC-8"}, ok())],
        answer="It is running again.",
    )
    metrics = session_metrics(wandering, the_task, catalog(), DEFAULT_TRANSIENT_ERRORS)
    assert metrics.path_efficiency == 0.5  # 2 optimal calls ÷ 4 made
    assert metrics.expected_in_order and metrics.answer_correct is True
    assert metrics.steps == 5 and metrics.bad_calls == 0 and metrics.tool_success_rate == 1.0
    direct = session(
        [
            call("get_sync_job", {"job_id": "SYNC-8"}, ok()),
            call("retry_sync_job", {"job_id": "SYNC-8"}, ok()),
        ],
        answer="failed",
    )
    metrics = session_metrics(direct, the_task, catalog(), DEFAULT_TRANSIENT_ERRORS)
    assert metrics.path_efficiency == 1.0 and metrics.steps == 2 and metrics.answer_correct is False
    none = session(answer="I cannot help")
    metrics = session_metrics(none, the_task, catalog(), DEFAULT_TRANSIENT_ERRORS)
    assert (
        metrics.path_efficiency == 0.0 and metrics.tool_success_rate is None and not metrics.expected_in_order
    )
