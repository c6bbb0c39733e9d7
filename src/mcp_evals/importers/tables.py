"""The mapping tables of docs/migrating.md, made from each importer's ``KEYS`` (a test keeps them equal)."""

from __future__ import annotations

from collections.abc import Sequence

from mcp_evals.importers import mcpassert, mcpgrade, mcpjam, promptfoo, runner_format, runner_history
from mcp_evals.importers.plan import Key

_MAPPED = {"same": "one-to-one", "changed": "changed", "refused": "refused"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def keys_markdown(keys: Sequence[Key]) -> str:
    lines = ["| theirs | ours | maps | why |", "|---|---|---|---|"]
    for key in keys:
        lines.append(
            f"| {_cell(key.theirs)} | {_cell(key.ours)} | {_MAPPED[key.mapped]} | {_cell(key.why)} |"
        )
    return "\n".join(lines)


def rules_markdown() -> str:
    lines = ["| mcpgrade | ours | maps | why |", "|---|---|---|---|"]
    for theirs, (ours, how, why) in mcpgrade.RULES.items():
        lines.append(f"| {theirs} | {', '.join(ours)} | {_MAPPED[how]} | {why} |")
    return "\n".join(lines)


TABLES = {
    "mcp-eval-runner": lambda: keys_markdown(runner_format.KEYS),
    "mcp-eval-runner-history": lambda: keys_markdown(runner_history.KEYS),
    "mcpjam": lambda: keys_markdown(mcpjam.KEYS),
    "promptfoo": lambda: keys_markdown(promptfoo.KEYS),
    "mcpgrade": lambda: keys_markdown(mcpgrade.KEYS),
    "mcpgrade-rules": rules_markdown,
    "mcp-assert": lambda: keys_markdown(mcpassert.KEYS),
}
