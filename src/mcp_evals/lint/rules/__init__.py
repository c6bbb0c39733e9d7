"""The lint rules, one module per category: naming, descriptions, schema, tokens, consistency, fixtures,
security (``security`` and ``leaks``), resources and prompts, protocol, and the live probe. Each rule
is a function registered with ``@rule`` (see ``lint.registry``)."""

from __future__ import annotations

from mcp_evals.lint.registry import ORDER, RULES, Rule
from mcp_evals.lint.rules import (  # noqa: F401  (importing them registers their rules)
    consistency,
    descriptions,
    fixtures,
    leaks,
    naming,
    probe,
    protocol,
    resources,
    schema,
    security,
    tokens,
)


def all_rules() -> list[Rule]:
    """Every rule, in category order (N, D, S, T, C, F), then by id."""
    return sorted(RULES.values(), key=lambda item: (ORDER.index(item.category), item.id))
