"""What one session came to, computed from its record alone (pure).

Bad calls, by the three rules a trace can decide by itself:

(a) **repeated after a definitive error**: the same call (tool and arguments) made again after an
    identical call got a definitive error — an error result from the server itself whose text does
    not say it is temporary (the task set's ``transient_errors``), or arguments that were not a JSON
    object. Injected faults and timeouts are never definitive: trying again is fair.
(b) **refused by the schema**: arguments the tool's input schema rejects (a tool the catalog does
    not have, arguments that are not a JSON object).
(c) **insistence**: the third and later calls on the same key (tool and arguments) when every call
    on that key so far got an error (of any kind).

A call may break more than one rule; ``bad_calls`` counts each call once. (d) — quoting an unstable
value without a caveat — needs a judge and is reported apart (``JudgeRecord``).

Also: answer correctness (``AnswerCheck``), path efficiency (the script's length over the calls
made, repeats and backtracking included, at most 1), whether the expected tools appear in order as
a subsequence of the calls, and the tool success rate (calls without an error ÷ calls).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from mcp_evals import patterns, schema_refs
from mcp_evals.answers import Usage
from mcp_evals.catalog.model import Catalog
from mcp_evals.score.arguments import SchemaValidators
from mcp_evals.session.model import AnswerCheck, Task, parse_path, value_at
from mcp_evals.session.record import CallRecord, SessionRecord
from mcp_evals.strict import StrictModel

_JSON_BLOCK = re.compile(r"```(?:json)?\s*\n(.*?)\n```", re.DOTALL)


class SessionMetrics(StrictModel):
    repeated_after_error: int = 0
    schema_rejected: int = 0
    insistence: int = 0
    bad_calls: int = 0
    calls: int = 0
    failed_calls: int = 0
    steps: int = 0
    answer_correct: bool | None = None
    path_efficiency: float = 0.0
    expected_in_order: bool = False
    tool_success_rate: float | None = None
    usage: Usage = Usage()
    cost_usd: float | None = None
    judge_cost_usd: float | None = None
    unstable_uncaveated: bool | None = None
    # A user's regular expression (the answer's, transient_errors) stopped at its limit: said beside the
    # session's line, never stored.
    pattern_problem: str | None = Field(None, exclude=True)


def call_key(call: CallRecord) -> str:
    """Two calls are "the same call" when tool and arguments are equal (key order aside)."""
    arguments = call.arguments if call.arguments is not None else {"<raw>": call.raw_arguments}
    return call.tool + "\x1f" + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def failed(call: CallRecord) -> bool:
    return call.result.is_error or call.error is not None


Transient = str | re.Pattern[str]


def _says_transient(transient: Transient, text: str, seconds: float) -> bool:
    """The task set's ``transient_errors`` found in ``text``, within ``seconds`` (a slower pattern: no)."""
    pattern, flags = (
        (transient.pattern, transient.flags) if isinstance(transient, re.Pattern) else (transient, 0)
    )
    try:
        return patterns.search(pattern, text, seconds=seconds, flags=flags)
    except patterns.PatternTimeout:
        return False


def definitive_error(
    call: CallRecord, transient: Transient, seconds: float = patterns.DEFAULT_SECONDS
) -> bool:
    """An error trying again cannot fix: the server's own, unless its text says it is temporary."""
    if call.error == "invalid_arguments":
        return True
    if call.fault is not None or call.error is not None or not call.result.is_error:
        return False
    return not _says_transient(transient, call.result.text, seconds)


def schema_rejects(call: CallRecord, catalog: Catalog, validators: SchemaValidators) -> bool:
    if call.arguments is None or not call.known:
        return True
    tool = catalog.get(call.tool)
    if tool is None:
        return True
    validator, _ = validators.validator(tool)
    if validator is None:
        return False  # the tool's own schema is broken: not the model's fault
    try:
        return any(True for _ in schema_refs.iter_errors(validator, call.arguments))
    except Exception:  # e.g. a $ref leaving the schema (never fetched): the schema's fault, not the model's
        return False


def bad_call_flags(
    calls: Sequence[CallRecord],
    catalog: Catalog,
    transient: Transient,
    seconds: float = patterns.DEFAULT_SECONDS,
) -> list[set[str]]:
    """For each call, the rules it breaks: a subset of {"a", "b", "c"}."""
    validators = SchemaValidators()
    flags: list[set[str]] = [set() for _ in calls]
    definitive_keys: set[str] = set()
    history: dict[str, list[bool]] = defaultdict(list)  # key -> failed? of each earlier call
    for index, call in enumerate(calls):
        key = call_key(call)
        if key in definitive_keys:
            flags[index].add("a")
        if schema_rejects(call, catalog, validators):
            flags[index].add("b")
        earlier = history[key]
        if len(earlier) >= 2 and all(earlier) and failed(call):
            flags[index].add("c")
        earlier.append(failed(call))
        if definitive_error(call, transient, seconds):
            definitive_keys.add(key)
    return flags


def answer_json(text: str) -> Any:
    """The JSON in an answer: the whole answer, else its first fenced JSON block, else the first
    balanced ``{…}`` that parses as JSON (prose around it, and braces in the prose, are no matter)."""
    candidates = [text.strip()]
    fenced = _JSON_BLOCK.search(text)
    if fenced is not None:
        candidates.append(fenced.group(1))
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start >= 0:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        return value
    return None


def check_answer(check: AnswerCheck, text: str, seconds: float = patterns.DEFAULT_SECONDS) -> bool:
    """Every check given holds for the final answer (``patterns.PatternTimeout`` when its regular
    expression takes longer than ``seconds``)."""
    if check.contains is not None:
        wanted = [check.contains] if isinstance(check.contains, str) else check.contains
        if not all(part.casefold() in text.casefold() for part in wanted):
            return False
    if check.regex is not None and not patterns.search(check.regex, text, seconds=seconds):
        return False
    if check.json_path is not None:
        found, value = value_at(answer_json(text), parse_path(check.json_path))
        if not found or not same_value(value, check.equals):
            return False
    return True


def same_value(actual: Any, expected: Any) -> bool:
    """JSON equality: 1 equals 1.0, but true is not 1."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(map(same_value, actual, expected))
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(same_value(actual[k], expected[k]) for k in actual)
    return bool(actual == expected)


def in_order(expected: Sequence[str], called: Sequence[str]) -> bool:
    """``expected`` is a subsequence of ``called`` (other calls may come between)."""
    remaining = iter(called)
    return all(any(name == wanted for name in remaining) for wanted in expected)


def session_metrics(
    record: SessionRecord,
    task: Task,
    catalog: Catalog,
    transient: str,
    seconds: float = patterns.DEFAULT_SECONDS,
) -> SessionMetrics:
    """``seconds``: what each of the task set's regular expressions may take on one text (a step's)."""
    calls = record.calls
    flags = bad_call_flags(calls, catalog, transient, seconds)
    answer_correct: bool | None = None
    pattern_problem = None
    if task.answer is not None:
        try:
            answer_correct = check_answer(task.answer, record.final_answer, seconds)
        except patterns.PatternTimeout as error:
            answer_correct, pattern_problem = False, f"the answer is not checked: {error}"
    failures = sum(1 for call in calls if failed(call))
    judge = record.judge
    return SessionMetrics(
        repeated_after_error=sum(1 for flag in flags if "a" in flag),
        schema_rejected=sum(1 for flag in flags if "b" in flag),
        insistence=sum(1 for flag in flags if "c" in flag),
        bad_calls=sum(1 for flag in flags if flag),
        calls=len(calls),
        failed_calls=failures,
        steps=len(record.turns),
        answer_correct=answer_correct,
        pattern_problem=pattern_problem,
        path_efficiency=min(1.0, len(task.script) / len(calls)) if calls else 0.0,
        expected_in_order=in_order(task.expected_tools, [call.tool for call in calls]),
        tool_success_rate=(len(calls) - failures) / len(calls) if calls else None,
        usage=record.usage,
        cost_usd=record.cost_usd,
        judge_cost_usd=judge.cost_usd if judge is not None else None,
        unstable_uncaveated=(
            judge.verdict == "uncaveated" if judge is not None and judge.verdict != "unclear" else None
        ),
    )
