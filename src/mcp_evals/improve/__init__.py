"""``mcp-evals improve``: from "these tools get confused" to a description rewrite proven better on
held-out fixtures.

``split`` separates what the proposer may see (dev) from what judges it (test); ``targets`` picks
the worst confusion pairs of the dev answers and the lint's predictions; ``prompts`` asks a model
for a rewrite (dev requests only) and ``rewrite`` is the rule-based proposer of the lexical
baseline; ``check`` lints each proposal; ``evidence`` reads the paired proof on the test split
(``compare.execute.run_arms``) pair by pair; ``render`` is improve.md; ``source`` finds the
descriptions in the server's source (and ``--apply``); ``estimate`` is ``--dry``; ``loop`` runs it
all under one budget.
"""
