"""The lint rules, one module per category: naming, descriptions, schema, tokens, consistency, fixtures,
and the live probe. Each rule is a function registered with ``@rule`` (see ``lint.registry``)."""
