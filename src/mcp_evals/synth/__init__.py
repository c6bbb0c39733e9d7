"""Fixture synthesis that does not lie: ``mcp-evals synth``.

A synthesizer that reads the catalog writes queries in the catalog's own words (which flatters vague
descriptions) and, for tools that need an id from another tool, queries without that id (which makes
capable models look broken). So synthesis runs in two steps that never meet:

1. **intents** (``prompts.intent_request`` and friends): a call that sees one tool (or a confusable
   pair, or the catalog's scope) describes user goals that need it, with a concrete value for every
   required parameter;
2. **held-out paraphrase** (``prompts.paraphrase_request``): a separate call, with no tools (no
   synth request carries any), gets only the goal (checked by F001 to name no tool or parameter
   identifier of two or more parts) and the values, and writes what the persona would say, in the
   configured language.

The lint's fixture rules then judge the result (``assemble``): a query that names a tool or
parameter identifier (F001) is dropped, one for a pipeline tool without its value (F002) is flagged
and kept out of the test split.
Each fixture is written with ``origin: synthesized`` and a ``split`` assigned once; the test split is
frozen (``outfile``): later runs only append to dev.

Modules: ``model`` (intents and candidates), ``prompts``, ``parse`` (the model's JSON),
``assemble`` (candidates → fixtures, the lint, the split), ``outfile`` (the YAML file),
``generate`` (the calls: budget, retries, concurrency), ``estimate`` (``--dry``).
"""
