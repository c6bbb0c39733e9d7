"""Contract tests: call an MCP server's tools step by step and check every result.

model (cases as written, results as recorded) · load (find, read and check cases) · chaining
(``{{steps.<id>.…}}``) · assertions (pure checks) · judge (``llm_judge``) · runner (sessions and
steps) · history (SQLite) · regression (comparisons and the gate) · reports · validate · watch.
"""
