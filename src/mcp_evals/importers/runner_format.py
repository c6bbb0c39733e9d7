"""mcp-eval-runner's case files and flags, key by key, as `mcp-evals contract` runs them unchanged.

Nothing is converted: its folders run as they are (``contract/compat.py``). This table is what
docs/migrating.md shows, and what ``tests/importers/test_docs.py`` holds it to.
"""

from __future__ import annotations

from mcp_evals.importers.plan import Key

KEYS = (
    Key("`name`, `description`, `steps[].id`, `tool`, `description`, `input`", "the same keys", "same"),
    Key("no `server:` block", "simulation: each step's output is its `expected_output`", "same"),
    Key(
        "`server: {command, args, env}`",
        "`server:` (started in the current folder, with the whole environment)",
        "same",
        "",
    ),
    Key(
        "`${VAR:-default}` in `args`",
        "expanded from the environment",
        "changed",
        "there the text reaches the server as written; here an unset `${VAR}` without a default is an error",
    ),
    Key("`expected_output` (text)", "`expected_output`", "same"),
    Key("`expect`: `output_contains`, `output_not_contains`, `output_equals`", "the same keys", "same"),
    Key("`output_matches`", "`output_matches`", "changed", "Python's regular expressions, not JavaScript's"),
    Key(
        "`schema_match`",
        "`schema_match`",
        "changed",
        "a full JSON Schema validator, on `structuredContent` when the tool returns it",
    ),
    Key(
        "`tool_called`",
        "`tool_called`",
        "changed",
        "the server must list the tool and the call must reach it; skipped in simulation",
    ),
    Key("`latency_under`", "`latency_under`", "changed", "measured live; skipped in simulation"),
    Key(
        "`llm_judge`",
        "`llm_judge`",
        "changed",
        "asked only within a budget (--judge-budget-usd); without a key or budget skipped, not failed",
    ),
    Key("`LLM_JUDGE_API_KEY`, `LLM_JUDGE_BASE_URL`", "the same variables", "same"),
    Key("`{{steps.ID.output}}`", "the same reference", "same"),
    Key(
        "a tool result with `isError`",
        "a failed step unless it expects `is_error: true`",
        "changed",
        "there the result passes if its text does",
    ),
    Key("a failed assertion", "the case goes on with its next step", "same"),
    Key("`--fixtures` / `--fixtures-dir`", "`--fixtures`", "same"),
    Key(
        "`--timeout` (milliseconds)",
        "`--timeout` with a unit (30000ms, 30s)",
        "changed",
        "a bare number is still milliseconds for one release, with a deprecation line",
    ),
    Key(
        "`--db` / `--db-path` (`~/.mcp/evals.db`)",
        "`--db-path` (default `.mcp-evals/history.db`)",
        "changed",
        "our own history file; `mcp-evals import mcp-eval-runner-history` brings its runs over",
    ),
    Key("`--concurrency`, `--watch`", "`--concurrency`, `--watch`", "same"),
    Key(
        "`--format` console, json, html",
        "`--format` text, json, html (and md)",
        "changed",
        "`console` is still read as `text` for one release, with a deprecation line",
    ),
    Key("`--http-port`, its MCP tools", "`mcp-evals serve --http-port`, the same tools", "same"),
)
