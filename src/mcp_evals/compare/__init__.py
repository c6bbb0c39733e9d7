"""``mcp-evals compare``: the same fixtures, the same model and settings, several arms, one paired run.

An *arm* is a way to put the catalog in front of the model: catalog A against catalog B (a
description rewrite: "did it help?"), or one catalog delivered whole (``full``), behind a search
tool (``deferred``) or behind one router tool per area (``grouped``): the remediations the gate
recommends, measured on this catalog before anyone builds them.

``arms`` asks one fixture through one arm (one or two requests, all of them counted in the cost);
``runner`` runs every arm's jobs interleaved in one run, under the run's own policy (retries, the
one budget, fatal stops), each arm into its own results file; ``paired`` compares the records
(pure); ``estimate`` is ``--dry``.
"""
