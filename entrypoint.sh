#!/usr/bin/env bash
# Entry point of the mcp-evals GitHub Action (the Docker image's ENTRYPOINT).
#
# Deliberately thin. The inputs arrive as INPUT_<NAME> with hyphens kept (INPUT_ANTHROPIC-API-KEY),
# which bash cannot read as variables, so the steps that read them are `mcp-evals action …` (Python,
# src/mcp_evals/action/). The order is the contract:
#   1. prepare  ::add-mask:: for every key and token, before anything else is printed; then the
#               `build` input, in an environment with no API key and no GitHub token
#   2. run      the mcp-evals commands for the mode (only the eval process gets the key), then the job
#               summary, the step outputs and the sticky PR comment; finally the files written into
#               the workspace go back to the workspace owner (a Docker action runs as root)
# The step exits with mcp-evals' exit code: 0 ok · 1 a check, gate or the build failed ·
# 2 PRELIMINARY · 3 bad input · 70 mcp-evals itself crashed (a bug: the summary and outputs still say so).
#
# With arguments the image is a plain mcp-evals CLI: `docker run … IMAGE mcp-evals validate`.
set -uo pipefail

if [ "$#" -gt 0 ]; then
  exec "$@"
fi

build_status=0
mcp-evals action prepare || build_status=$?
exec mcp-evals action run --build-status "$build_status"
