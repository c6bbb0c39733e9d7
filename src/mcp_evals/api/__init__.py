"""The library layer the commands call: a run planned, then executed, with every decision in one place.

``mcp-evals run`` is ``plan_run`` then ``execute`` (as ``inspect eval`` is inspect_ai's ``eval()``);
the public ``run_eval`` is the same two calls. The command adds only what a terminal needs: flags,
the order of messages on stderr, the report on stdout.
"""
