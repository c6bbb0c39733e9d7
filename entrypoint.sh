#!/usr/bin/env bash
# Entry point of the mcp-evals GitHub Action (the Docker image's ENTRYPOINT).
#
# Deliberately thin: the inputs arrive as INPUT_<NAME> with hyphens kept (INPUT_ANTHROPIC-API-KEY),
# which bash cannot read as variables, so every step that reads them is `mcp-evals action …` (Python,
# src/mcp_evals/cli/action_cmd.py). The order is the contract:
#   1. mask      ::add-mask:: for every key and token, before anything else is printed
#   2. build     the `build` input, in an environment with no API key and no GitHub token
#   3. run       the mcp-evals commands for the mode (only the eval gets the key), then the job
#                summary, the step outputs and the sticky PR comment
#   4. hand-back files written into the workspace go back to the workspace owner (we run as root)
# The step exits with mcp-evals' exit code: 0 ok · 1 a check or gate failed · 2 PRELIMINARY · 3 bad input.
#
# With arguments the image is a plain mcp-evals CLI: `docker run … IMAGE mcp-evals validate`.
set -uo pipefail

if [ "$#" -gt 0 ]; then
  exec "$@"
fi

mcp_evals=mcp-evals

"$mcp_evals" action mask || exit 3

build_status=0
"$mcp_evals" action build || build_status=$?

status=0
"$mcp_evals" action run --build-status "$build_status" || status=$?

"$mcp_evals" action hand-back || true
exit "$status"
