"""Long sessions: a model works through multi-step tasks with a live server's tools (``mcp-evals session``).

model (task sets) · load and validate (the task set, its server, against the catalog) · transforms
(an arm's changes to results) · faults (which calls fail, deterministically) · server (the boundary
where faults are injected) · loop (one session) · runner (a run, resumable) · record and records_file
(the NDJSON) · metrics (bad calls and the rest, per session) · aggregate and report (from the records
alone) · judge ((d), a cheap model) · dry (``--dry``) · prepare and live (what the command runs).
"""
