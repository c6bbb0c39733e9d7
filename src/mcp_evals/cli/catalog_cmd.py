"""``mcp-evals catalog``: read the live tool catalog, print it, save a snapshot; ``catalog diff``."""

from __future__ import annotations

import re
import shutil
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import click

from mcp_evals._version import __version__
from mcp_evals.catalog.classify import CHANGE_CLASSES, CLASS_LABELS, ClassifiedChange, counts, describe
from mcp_evals.catalog.diff import CatalogDiff, RenamedTool, diff_catalogs
from mcp_evals.catalog.model import Catalog
from mcp_evals.catalog.snapshot import load_catalog, read_lock, write_lock, write_snapshot
from mcp_evals.cli.options import config_inputs, config_option, read_config
from mcp_evals.config.model import Config
from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, ConfigError
from mcp_evals.files import refuse_inputs, same_file, updates
from mcp_evals.servers.extract import extract_catalog
from mcp_evals.servers.model import CLIENT_NAME
from mcp_evals.wording import plural

# Server-supplied text goes to a terminal: no escape sequences, no bidi tricks, one line.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_WHITESPACE = re.compile(r"[\t\n\r]+")


def printable(text: str | None, limit: int | None = None) -> str:
    """Untrusted text made safe for one terminal line, cut to ``limit`` characters."""
    line = _CONTROL.sub("?", _WHITESPACE.sub(" ", text or "")).strip()
    if limit is not None and len(line) > limit:
        line = line[: max(limit - 1, 0)] + "…"
    return line


def display_width(text: str) -> int:
    """Terminal columns: East Asian wide characters take two, combining marks none."""
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1
        for char in text
    )


def table(rows: Sequence[Sequence[str]], *, last_free: bool = True) -> list[str]:
    """Left-aligned columns under a dashed rule; the last column is not padded."""
    widths = [max(display_width(row[index]) for row in rows) for index in range(len(rows[0]))]
    if last_free:
        widths[-1] = 0
    lines = [
        "  ".join(
            cell + " " * (width - display_width(cell)) for cell, width in zip(row, widths, strict=True)
        ).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * max(width, len(rows[0][index])) for index, width in enumerate(widths)))
    return lines


def client_header(catalog: Catalog) -> list[str]:
    """Who mcp-evals was to the servers it read live: servers may list tools by client capability."""
    declared = {
        tuple(info.client_capabilities) for info in catalog.servers if info.client_capabilities is not None
    }
    if not declared:
        return []  # every server came from a snapshot
    names = sorted(declared, key=len)[-1]
    what = f"declaring {', '.join(names)}" if names else "declaring no capabilities"
    return [f"client: {CLIENT_NAME} {__version__}, {what}", ""]


def summary(catalog: Catalog, width: int | None = None) -> str:
    """The servers, then every tool (by area) with its parameters and first description line."""
    width = width or shutil.get_terminal_size((120, 24)).columns
    server_rows = [("server", "reports as", "version", "protocol", "transport", "tools")]
    for info in catalog.servers:
        server_rows.append(
            (
                printable(info.name),
                printable(info.server_name or "?", 40),
                printable(info.server_version or "?", 20),
                info.protocol_version or "?",
                info.transport + (", prefix" if info.prefix else ""),
                str(len(info.tools)),
            )
        )
    tools = sorted(catalog.tools, key=lambda t: (t.area, t.name))
    tool_rows = [("tool", "area", "server", "params", "required")]
    for tool in tools:
        tool_rows.append(
            (
                printable(tool.name, 64),
                printable(tool.area, 32),
                printable(tool.server),
                str(len(tool.parameters)),
                str(len(tool.required)),
            )
        )
    # The description gets what is left of the terminal line.
    used = sum(max(display_width(row[index]) for row in tool_rows) + 2 for index in range(5))
    room = max(width - used, 30)
    descriptions = ["description"]
    descriptions += [printable((tool.description.strip().splitlines() or [""])[0], room) for tool in tools]
    lines = [*client_header(catalog), *table(server_rows)]
    if catalog.tools:
        lines += ["", *table([(*row, text) for row, text in zip(tool_rows, descriptions, strict=True)])]
    else:
        lines += ["", "(no tools)"]
    renamed = [(name, catalog.names.provider(name)) for name in catalog.tool_names]
    renamed = [(name, safe) for name, safe in renamed if name != safe]
    if renamed:
        lines += [
            "",
            f"{plural(len(renamed), 'tool name')} {'does' if len(renamed) == 1 else 'do'} not fit the "
            "model APIs (^[a-zA-Z0-9_-]{1,64}$); models see:",
        ]
        # In full: a long name cut short in the table above is told apart here.
        lines += [f"  {printable(name)} -> {safe}" for name, safe in sorted(renamed)]
    needs_tasks = sorted(tool.name for tool in catalog.tools if tool.task_support == "required")
    if needs_tasks:
        lines += [
            "",
            f"{plural(len(needs_tasks), 'tool')} {'requires' if len(needs_tasks) == 1 else 'require'} "
            "task-based execution (execution.taskSupport: required):",
        ]
        lines += [f"  {printable(name)}" for name in needs_tasks]
    lines += [
        "",
        f"{plural(len(catalog.tools), 'tool')} in {plural(len(catalog.areas), 'area')} "
        f"from {plural(len(catalog.servers), 'server')}; catalog hash {catalog.hash[:16]}",
    ]
    return "\n".join(lines)


@click.group(invoke_without_command=True)
@config_option
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the catalog as a snapshot file (JSON), for `snapshot:` servers and `catalog diff`.",
)
@click.option(
    "--update-lock",
    is_flag=True,
    help="Write the catalog lock the config's `catalog.lock` names (commit it; `validate` compares).",
)
@click.pass_context
def catalog(ctx: click.Context, config_path: Path, out: Path | None, update_lock: bool) -> int:
    """Read every configured server's tools (handshake, tools/list to the last page) and print them.

    \b
    Examples:
      mcp-evals catalog
      mcp-evals catalog --out catalog.json
      mcp-evals catalog --update-lock
      mcp-evals catalog diff old.json new.json
    """
    if ctx.invoked_subcommand is not None:
        return EXIT_OK
    config = read_config(config_path)
    # Refreshing a server's own snapshot is allowed; replacing the config or a fixture file is not.
    inputs = {label: path for label, path in config_inputs(config).items() if "snapshot" not in label}
    if out is not None:
        refuse_inputs(out, inputs, what="--out")
        snapshots = [config.resolve(server.snapshot) for server in config.servers if server.snapshot]
        if any(same_file(out, snapshot) for snapshot in snapshots):
            updates(out)
    lock = lock_path(config) if update_lock else None
    previous: Catalog | None = None
    if lock is not None:
        refuse_inputs(lock, inputs, what="the catalog lock")
        updates(lock)  # read below, then rewritten: what --update-lock is for
        previous = read_lock(lock)  # a broken lock is bad input before the servers start
    result = extract_catalog(config)
    if out is not None:  # before the summary, so a path that cannot be written prints nothing else
        write_snapshot(result, out)
    if lock is not None:
        write_lock(result, lock)
    click.echo(summary(result))
    if out is not None:
        click.echo(f"snapshot written to {out}")
    if lock is not None:
        click.echo(lock_written(result, previous, config.catalog.lock or str(lock)))
    return EXIT_OK


def lock_path(config: Config) -> Path:
    """The configured lock file; without `catalog.lock` there is none to update (bad input)."""
    if not config.catalog.lock:
        raise ConfigError(
            f"{config.shown_path}: --update-lock needs a lock file, and `catalog.lock` is not set",
            hint="add `catalog: {lock: evals/catalog.lock.json}` to the config (any path, relative to it)",
        )
    return config.resolve(config.catalog.lock)


def lock_written(catalog: Catalog, previous: Catalog | None, shown: str) -> str:
    """What --update-lock did: created, unchanged, or updated with the classified changes."""
    where = f"{shown} ({plural(len(catalog.tools), 'tool')}, hash {catalog.hash[:12]})"
    if previous is None:
        return f"lock written to {where}: commit it"
    changes = diff_catalogs(previous, catalog)
    if not changes.changed:
        return f"lock unchanged: {where}"
    lines = [f"lock updated: {where}", *change_lines(changes.changes, renamed=changes.renamed)]
    return "\n".join([*lines, "", count_line(changes.changes) + "; commit the lock with the change"])


@catalog.command("diff")
@click.argument("old", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("new", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the differences as JSON.")
def diff(old: Path, new: Path, as_json: bool) -> int:
    """Compare two catalog snapshots: added, removed, probably renamed and changed tools.

    \b
    Exit codes: 0 the catalogs are identical · 1 something changed · 3 a file is missing or
    not a snapshot. Write snapshots with `mcp-evals catalog --out FILE`.
    """
    changes = diff_catalogs(load_catalog(old), load_catalog(new))
    click.echo(changes.model_dump_json(indent=2) if as_json else render_diff(changes, old, new))
    return EXIT_CHECK_FAILED if changes.changed else EXIT_OK


def render_diff(changes: CatalogDiff, old: Path | str = "old", new: Path | str = "new") -> str:
    """The differences as plain text for a terminal or a CI log, one line per change, by class."""
    head = (
        f"{old} ({plural(changes.old_count, 'tool')}, hash {changes.old_hash[:12]}) -> "
        f"{new} ({plural(changes.new_count, 'tool')}, hash {changes.new_hash[:12]})"
    )
    if not changes.changed:
        return f"{head}\nno changes: the catalogs are identical"
    lines = change_lines(changes.changes, renamed=changes.renamed)
    return "\n".join([head, *lines, "", count_line(changes.changes)])


def _quoted(text: str) -> str:
    return f"`{printable(text, 200)}`"


def change_lines(
    changes: Sequence[ClassifiedChange], indent: str = "", renamed: Sequence[RenamedTool] = ()
) -> list[str]:
    """The classified changes grouped breaking, selection-affecting, compatible (a blank line before each)."""
    similarity = {pair.new: pair for pair in renamed}
    lines: list[str] = []
    for classification in CHANGE_CLASSES:
        group = [item for item in changes if item.classification == classification]
        advice = " re-run the model eval" if classification == "selection" and group else ""
        lines += ["", f"{indent}{CLASS_LABELS[classification]} ({len(group)}){':' if group else ''}{advice}"]
        for item in group:
            lines.append(f"{indent}  - {describe(item, _quoted)}")
            if item.kind == "description_changed":
                lines.append(f"{indent}      was: {printable(item.before, 160)}")
                lines.append(f"{indent}      now: {printable(item.after, 160)}")
            elif item.kind == "tool_renamed":
                pair = similarity.get(item.tool)
                lines[-1] += " (probably: same input schema" + (
                    f", description also changed, {pair.description_similarity:.0%} similar)"
                    if pair and pair.description_changed
                    else ", same description)"
                    if pair
                    else ")"
                )
    return lines


def count_line(changes: Sequence[ClassifiedChange]) -> str:
    tally = counts(changes)
    return f"{plural(len(changes), 'change')}: " + ", ".join(
        f"{tally[classification]} {CLASS_LABELS[classification]}" for classification in CHANGE_CLASSES
    )
