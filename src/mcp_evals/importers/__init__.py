"""`mcp-evals import`: another tool's evals turned into ours, with what could not be mapped said.

One module per peer (``mcpjam.py``, ``promptfoo.py``, ``mcpgrade.py``, ``runner_history.py``), each a
function from the peer's files to an ``Imported`` (``plan.py``): the files to write (a config, fixture
or case files), checked with our own loaders before anything is written, and the report — what maps
one-to-one, what maps with a change of meaning, what is refused. ``plan.write`` writes them all or
none, never over an existing file. The docs' mapping tables (docs/migrating.md) are tested against
each module's ``KEYS``.
"""
