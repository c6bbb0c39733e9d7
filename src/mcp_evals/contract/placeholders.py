"""Placeholders: the values a scaffolded case leaves for its author to write.

``mcp-evals serve``'s ``scaffold_fixture`` gives each required parameter of a step's tool a string
such as ``"<fill in: string>"`` (or ``"<fill in: one of \"open\", \"closed\">"``), so the file says
what to give; ``contract validate`` reports each one as not written yet, and a run fails the step
without calling the tool, as ``validate`` and ``run`` treat an empty fixture ``query`` written by
``init``.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_evals.contract.chaining import Path, walk

PREFIX = "<fill in"


def placeholder(schema: Any) -> str:
    """The placeholder for a parameter with this JSON Schema: its type or its choices."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    choices = schema.get("enum") if isinstance(schema, dict) else None
    if isinstance(choices, list) and choices:
        shown = ", ".join(json.dumps(choice, ensure_ascii=False) for choice in choices[:6])
        return f"{PREFIX}: one of {shown}{', …' if len(choices) > 6 else ''}>"
    if isinstance(kind, list):
        kind = " or ".join(str(item) for item in kind)
    return f"{PREFIX}: {kind}>" if isinstance(kind, str) else f"{PREFIX}>"


def is_placeholder(text: str) -> bool:
    return text.startswith(PREFIX) and text.endswith(">")


def placeholders(value: Any) -> list[tuple[Path, str]]:
    """Where a step's input still holds a placeholder, and the placeholder."""
    return [(location, text) for location, text in walk(value) if is_placeholder(text)]


def left_to_fill(text: str) -> str:
    """What a report says of one placeholder: ``not written yet: give a value (string)``."""
    wanted = text[len(PREFIX) :].removeprefix(":").removesuffix(">").strip()
    return f"not written yet: give a value{f' ({wanted})' if wanted else ''} in place of the placeholder"


def shown_location(location: Path) -> str:
    """``input.ticket_id``, ``input.items[0].name``: where in a step's input."""
    return "input" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location)
