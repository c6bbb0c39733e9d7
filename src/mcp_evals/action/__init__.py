"""The GitHub Action: one module per mode (validate, eval, …), the build, the summary and sticky
comment (``run``), crash reporting; ``context`` holds what they share. The CLI's hidden
``mcp-evals action`` command (``cli/action_cmd.py``) is its only entry point."""
