"""Reading the model's JSON answers (pure). Anything unusable is a ``Malformed`` error, which the
caller turns into a retried ``invalid_response``: a malformed answer is a dropout, never a crash."""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_evals.synth.model import PATTERNS, Intent
from mcp_evals.synth.prompts import Ask

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


class Malformed(ValueError):
    """The answer is not the JSON the prompt asked for."""


def json_object(text: str) -> dict[str, Any]:
    """The JSON object in a model's answer: bare, fenced in ```json, or with prose around it."""
    candidates = [match.group(1) for match in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    candidates.append(text)
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise Malformed(f"no JSON object in the answer ({len(text)} characters)")


def _items(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = data.get(key)
    if not isinstance(items, list):
        raise Malformed(f"the answer has no `{key}` list")
    return [item for item in items if isinstance(item, dict)]


def _text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def intents_from(ask: Ask, text: str) -> list[Intent]:
    """The intents in a step-1 answer; entries that do not fit the request are left out."""
    intents = []
    for item in _items(json_object(text), "intents"):
        goal = _text(item.get("goal"))
        if not goal:
            continue
        tool: str | None = None
        if ask.kind != "refuse":
            named = item.get("tool")
            if isinstance(named, str) and named in ask.tools:
                tool = named
            elif len(ask.tools) == 1:
                tool = ask.tools[0]
            else:
                continue  # a pair or clarify intent must say which of its tools it needs
        values = item.get("values")
        values = {str(key): value for key, value in values.items()} if isinstance(values, dict) else {}
        missing = item.get("missing")
        missing = [str(name) for name in missing] if isinstance(missing, list) else []
        if ask.kind == "clarify" and not missing:
            continue
        pattern = item.get("pattern")
        intents.append(
            Intent(
                kind=ask.kind,
                goal=goal,
                tool=tool,
                values={name: value for name, value in values.items() if name not in missing},
                pattern=pattern if pattern in PATTERNS else None,
                missing=missing,
                source=ask.source,
            )
        )
    return intents[: max(ask.count, 1)]


def queries_from(text: str, count: int) -> dict[int, str]:
    """Number → query from a paraphrase answer (numbers outside 1…count are ignored)."""
    queries: dict[int, str] = {}
    for item in _items(json_object(text), "queries"):
        number, query = item.get("n"), _text(item.get("query"))
        if isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= count and query:
            queries.setdefault(number, query)
    if not queries:
        raise Malformed("the answer has no usable query")
    return queries
