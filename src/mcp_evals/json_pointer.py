"""Local JSON Schema references (``"$ref": "#/$defs/Item"``): one walker for every stage that follows them.

Tool schemas are the server's: a reference may point nowhere, at a list item, or leave the document.
Validation, lint, the catalog diff and the session transforms follow the same ones the same way.
"""

from __future__ import annotations

from typing import Any


def follow_local_ref(root: Any, reference: object) -> Any:
    """What a ``#/…`` reference (an RFC 6901 pointer) names in ``root``.

    LookupError when it is not a local pointer (``#`` alone included: callers that recurse would loop)
    or leads nowhere.
    """
    if not isinstance(reference, str) or not reference.startswith("#/"):
        raise LookupError(f"not a local JSON pointer: {reference!r}")
    node = root
    for raw in reference[2:].split("/"):
        step = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            raise LookupError(f"{reference!r} leads nowhere")
    return node
