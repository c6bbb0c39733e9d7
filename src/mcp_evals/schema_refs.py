"""JSON Schema validators that never leave the document: every JSON Schema use goes through here.

Tool schemas are the server's, and so are their ``$ref``s. jsonschema's default registry fetches a
``http://…`` reference and opens a ``file:…`` one, which would make any server under test a request
forgery primitive on a CI runner (cloud metadata endpoints) and a file reader. Here the registry
holds the bundled metaschemas and the document itself; any other URI is refused, so a reference
that leaves the document becomes a finding or a clear error (``OutsideReference``), never a fetch.
Every regular expression in a schema is the server's too: ``pattern`` (also under ``propertyNames``)
and the keys of ``patternProperties`` (which ``additionalProperties`` and ``unevaluatedProperties``
consult as well) are matched with a time limit (``patterns.search``), so a pattern that backtracks
forever makes the schema unusable (``UnusableSchema``, naming the pattern), not the command hang.
"""

from __future__ import annotations

import re
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


class SlowPattern(UnusableSchema):
    """A regular expression of the schema that ran past its time limit on the value being checked:
    neither the value's fault nor plainly the schema's, so callers that check a user's value say
    the value was not checked, and why."""

    def __init__(self, timeout: patterns.PatternTimeout) -> None:
        super().__init__(f"the schema cannot be used ({timeout})")
        self.timeout = timeout


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


def _pattern_properties(
    validator: Any, pattern_properties: Any, instance: Any, schema: Any
) -> Iterator[jsonschema.ValidationError]:
    """``patternProperties``: each key is the server's regular expression, searched in each property
    name with the time limit (jsonschema's own keyword runs ``re.search`` in this thread)."""
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            if patterns.search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[jsonschema.ValidationError]:
    """``additionalProperties``, with the names ``patternProperties`` covers found by time-bounded
    searches, one pattern at a time (jsonschema joins them into one with ``|``, unbounded). The
    messages are jsonschema's."""
    if not validator.is_type(instance, "object"):
        return
    declared = schema.get("properties", {})
    named = list(schema.get("patternProperties", {}))
    extras = [
        key
        for key in instance
        if key not in declared and not any(patterns.search(pattern, key) for pattern in named)
    ]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            listed = ", ".join(repr(each) for each in sorted(named))
            yield jsonschema.ValidationError(f"{joined} {verb} not match any of the regexes: {listed}")
        else:
            shown = sorted(extras, key=str)
            was = "was" if len(shown) == 1 else "were"
            unexpected = ", ".join(repr(each) for each in shown)
            yield jsonschema.ValidationError(
                f"Additional properties are not allowed ({unexpected} {was} unexpected)"
            )


def _unevaluated_properties(keyword: Any, risky: frozenset[str]) -> Any:
    """``unevaluatedProperties`` as the draft defines it (jsonschema's keyword), after every pattern of
    ``risky`` (the document's ``patternProperties`` keys that could backtrack) was searched in each
    property name within the time limit: jsonschema then searches them again in this thread (its
    walk over ``$ref``, ``allOf``, ``if`` … is long to copy), and each takes no longer than it did there."""

    def bounded(
        validator: Any, unevaluated: Any, instance: Any, schema: Any
    ) -> Iterator[jsonschema.ValidationError]:
        if validator.is_type(instance, "object"):
            for pattern in risky:
                for key in instance:
                    patterns.search(pattern, key)
        yield from keyword(validator, unevaluated, instance, schema)

    return bounded


@lru_cache(maxsize=64)
def _bounded(cls: Any, risky: frozenset[str] = frozenset()) -> Any:
    """``cls`` with every keyword that runs a server's regular expression time-bounded."""
    keywords: dict[str, Any] = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    }
    if "unevaluatedProperties" in cls.VALIDATORS:
        keywords["unevaluatedProperties"] = _unevaluated_properties(
            cls.VALIDATORS["unevaluatedProperties"], risky
        )
    return jsonschema.validators.extend(cls, keywords)  # type: ignore[no-untyped-call]


def _risky_patterns(schema: Any) -> frozenset[str]:
    """The ``patternProperties`` keys anywhere in ``schema`` that could backtrack (``patterns``' test),
    when it uses ``unevaluatedProperties`` at all; a key that does not compile is jsonschema's error."""
    named: set[str] = set()
    unevaluated = False
    stack = [schema]
    seen: set[int] = set()  # YAML aliases share a node, or make it hold itself: each is walked once
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list):
            if id(node) in seen:
                continue
            seen.add(id(node))
        if isinstance(node, dict):
            unevaluated = unevaluated or "unevaluatedProperties" in node
            keyed = node.get("patternProperties")
            if isinstance(keyed, dict):
                named.update(key for key in keyed if isinstance(key, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(key for key in named if not _simple(key)) if unevaluated else frozenset()


def _simple(pattern: str) -> bool:
    try:
        return patterns.is_simple(pattern)
    except re.error:
        return True  # jsonschema raises it on first use: the schema is unusable, nothing runs long


def validator(schema: Any, *, check: bool = False) -> Any:
    """A validator for ``schema`` (its ``$schema``'s draft, else 2020-12) that resolves local refs only
    and runs every regular expression of the schema with a time limit.

    ``check``: first check the schema itself against its metaschema (``jsonschema.SchemaError``).
    """
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    if check:
        check_schema(schema)
    return _bounded(cls, _risky_patterns(schema))(schema, registry=_LOCAL_ONLY)


def check_schema(schema: Any) -> None:
    """``jsonschema.SchemaError`` when ``schema`` is not valid JSON Schema; the metaschema is bundled.

    A schema that breaks the check itself (a regular expression nested thousands deep overflows the
    parser that checks its ``format: regex``) is a ``SchemaError`` too, never a traceback.
    """
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError:
        raise
    except RecursionError:
        raise jsonschema.SchemaError(
            "it nests too deeply to be checked (a regular expression or sub-schema thousands of levels deep)"
        ) from None


def iter_errors(compiled: Any, value: Any) -> Iterator[jsonschema.ValidationError]:
    """``compiled.iter_errors(value)``; a reference that leaves the document is ``OutsideReference``, a
    regular expression over its time limit ``SlowPattern``, any other failure of the schema itself
    ``UnusableSchema``."""
    try:
        yield from compiled.iter_errors(value)
    except referencing.exceptions.Unresolvable as error:
        raise OutsideReference(str(getattr(error, "ref", error))) from None
    except UnusableSchema:
        raise
    except patterns.PatternTimeout as timeout:
        raise SlowPattern(timeout) from None
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
