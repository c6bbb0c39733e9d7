"""JSON Schema validators that never leave the document: every JSON Schema use goes through here.

Tool schemas are the server's, and so are their ``$ref``s. jsonschema's default registry fetches a
``http://…`` reference and opens a ``file:…`` one, which would make any server under test a request
forgery primitive on a CI runner (cloud metadata endpoints) and a file reader. Here the registry
holds the bundled metaschemas and the document itself; any other URI is refused, so a reference
that leaves the document becomes a finding or a clear error (``OutsideReference``), never a fetch.
A schema's ``pattern`` is the server's regular expression: it is matched with a time limit
(``patterns.search``), so a pattern that backtracks forever makes the schema unusable, not the command hang.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jsonschema
import referencing
import referencing.exceptions
from jsonschema_specifications import REGISTRY as SPECIFICATIONS  # type: ignore[import-untyped]

from mcp_evals import patterns


class UnusableSchema(ValueError):
    """A schema that cannot check a value: a reference leaving it, an unknown type, a keyword of the
    wrong shape. The schema's fault, never the value's: callers report it as not checked."""


class OutsideReference(UnusableSchema):
    """A ``$ref`` that points outside the schema's own document (a URL, a file, another document)."""

    def __init__(self, reference: str) -> None:
        super().__init__(
            f"the schema's $ref {reference!r} points outside the schema; mcp-evals follows only local "
            "references (#/…) and fetches nothing"
        )
        self.reference = reference


def _refuse(uri: str) -> referencing.Resource[Any]:
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


# The metaschemas jsonschema ships (no network either) and nothing else: a retrieve that refuses all.
_LOCAL_ONLY: referencing.Registry[Any] = SPECIFICATIONS.combine(referencing.Registry(retrieve=_refuse))  # type: ignore[call-arg]


def _pattern(
    validator: Any, pattern: Any, instance: Any, schema: Any
) -> Iterator[jsonschema.ValidationError]:
    """The ``pattern`` keyword, with the server's regular expression time-bounded (patterns.py)."""
    if validator.is_type(instance, "string") and not patterns.search(pattern, instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


@lru_cache(maxsize=16)
def _bounded(cls: Any) -> Any:
    return jsonschema.validators.extend(cls, {"pattern": _pattern})  # type: ignore[no-untyped-call]


def validator(schema: Any, *, check: bool = False) -> Any:
    """A validator for ``schema`` (its ``$schema``'s draft, else 2020-12) that resolves local refs only.

    ``check``: first check the schema itself against its metaschema (``jsonschema.SchemaError``).
    """
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    if check:
        cls.check_schema(schema)
    return _bounded(cls)(schema, registry=_LOCAL_ONLY)


def check_schema(schema: Any) -> None:
    """``jsonschema.SchemaError`` when ``schema`` is not valid JSON Schema; the metaschema is bundled."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)


def iter_errors(compiled: Any, value: Any) -> Iterator[jsonschema.ValidationError]:
    """``compiled.iter_errors(value)``; a reference that leaves the document is ``OutsideReference``,
    any other failure of the schema itself ``UnusableSchema``."""
    try:
        yield from compiled.iter_errors(value)
    except referencing.exceptions.Unresolvable as error:
        raise OutsideReference(str(getattr(error, "ref", error))) from None
    except UnusableSchema:
        raise
    except Exception as error:  # the server's schema: a keyword of the wrong shape, an unknown type
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise UnusableSchema(f"the schema cannot be used ({first})") from None


def errors(schema: Any, value: Any) -> list[jsonschema.ValidationError]:
    """Every way ``value`` breaks ``schema``, most relevant first (``UnusableSchema`` as above)."""
    return sorted(iter_errors(validator(schema), value), key=jsonschema.exceptions.relevance)


def best_error(compiled: Any, value: Any) -> jsonschema.ValidationError | None:
    """jsonschema's best match among the errors of ``value`` (``UnusableSchema`` as above)."""
    best: jsonschema.ValidationError | None = jsonschema.exceptions.best_match(iter_errors(compiled, value))
    return best


def outside_references(schema: Any) -> list[str]:
    """Every ``$ref`` (and ``$dynamicRef``) in ``schema`` that is not a local ``#…`` pointer, in order."""
    found: list[str] = []
    stack = [schema]
    seen = 0
    while stack and seen < 100_000:
        node = stack.pop()
        seen += 1
        if isinstance(node, dict):
            for key in ("$ref", "$dynamicRef", "$recursiveRef"):
                reference = node.get(key)
                if isinstance(reference, str) and not reference.startswith("#"):
                    found.append(reference)
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return list(dict.fromkeys(found))
