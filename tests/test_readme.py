"""The README's promises that can rot silently: its command table and its links."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from mcp_evals.cli import SUMMARIES

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text("utf-8")


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    anchors = set(re.findall(r'<a id="([^"]+)"', markdown))
    for heading in re.findall(r"^#+ (.+)$", markdown, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


def _text(file: Path) -> str:
    return file.read_text("utf-8") if file.exists() else ""


def test_every_command_has_a_row_in_the_commands_table() -> None:
    table = README.split("## Commands", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `mcp-evals (\w+)", table, flags=re.MULTILINE))
    assert (set(SUMMARIES) - listed, listed - set(SUMMARIES)) == (set(), set()), "(missing rows, extra rows)"


@pytest.mark.parametrize(
    "document", ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("**/*.md"))]
)
def test_every_relative_link_resolves(document: str) -> None:
    """README.md and each page under docs/: a relative link names a file that exists, and its anchor."""
    source = REPO / document
    broken: list[str] = []
    for target in re.findall(r"\]\(([^)\s]+)\)", source.read_text("utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # an absolute URL: not checked offline
        path, _, anchor = target.partition("#")
        file = (source.parent / path).resolve() if path else source
        missing_anchor = bool(anchor) and file.suffix == ".md" and anchor not in _anchors(_text(file))
        if not file.exists() or missing_anchor:
            broken.append(target)
    assert broken == []


@pytest.mark.parametrize("script", ["bench/validate.py"])
def test_a_benchmark_has_its_figures_in_one_place(script: str) -> None:
    """The README's Performance table holds a benchmark's figures; a page that describes the
    benchmark links there and quotes none of its own (two measurements of one thing disagreed)."""
    table = README.split("## Performance", 1)[1].split("\n## ", 1)[0]
    [row] = [line for line in table.splitlines() if f"`python {script}`" in line]
    assert re.search(r"\d s wall", row), row
    for page in sorted((REPO / "docs").glob("**/*.md")):
        text = page.read_text("utf-8")
        for section in re.split(r"\n(?=#+ )", text):
            if script not in section:
                continue
            name = page.relative_to(REPO)
            assert "README.md#performance" in section, (
                f"{name} describes {script} without linking the figures"
            )
            figures = re.findall(r"\d+(?:\.\d+)? s (?:wall|median|best)|peak RSS \d+|\d+ MB peak", section)
            assert figures == [], f"{name} quotes figures of {script} of its own: {figures}"


def _table_rows() -> list[str]:
    """The first cell of every row of the commands table: ``mcp-evals lint [--format text|json]``."""
    return [
        cell.replace("\\|", "|") for cell in re.findall(r"^\| `(mcp-evals [^`]+)` \|", README, re.MULTILINE)
    ]


def _choices(parameter: click.Parameter) -> set[str]:
    assert isinstance(parameter.type, click.Choice), parameter.name
    return {str(choice) for choice in parameter.type.choices}


def test_the_commands_table_matches_the_cli() -> None:
    """Every subcommand, option and list of values a row shows is the command line's, whole: a list of
    subcommands or values names all of them (`schema config|fixtures|contract|session`)."""
    from mcp_evals.cli import cli as group

    context = click.Context(group)
    rows = _table_rows()
    assert len(rows) >= len(SUMMARIES)
    for row in rows:
        tokens = [token.strip("[]()") for token in row.split()[1:]]
        command: click.Command = group
        for index, token in enumerate(tokens):
            if not token or token in ("|", "…"):
                continue
            names = command.list_commands(context) if isinstance(command, click.Group) else []
            if token in names and isinstance(command, click.Group):
                found = command.get_command(context, token)
                assert found is not None
                command = found
            elif token.startswith("--"):
                options = {opt: p for p in _subtree_params(command, context) for opt in p.opts}
                assert token in options, f"{row}: no option {token}"
                after = tokens[index + 1] if index + 1 < len(tokens) else ""
                if "|" in after and isinstance(options[token].type, click.Choice):
                    assert set(after.split("|")) == _choices(options[token]), row
            elif "|" in token and not tokens[index - 1].startswith("--"):
                values = set(token.rstrip("…").split("|"))
                if isinstance(command, click.Group):
                    assert values == set(names), row
                else:
                    [argument] = [p for p in command.params if isinstance(p, click.Argument)]
                    assert values == _choices(argument), row


def _subtree_params(command: click.Command, context: click.Context) -> list[click.Parameter]:
    params = list(command.params)
    if isinstance(command, click.Group):
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            if sub is not None:
                params += _subtree_params(sub, context)
    return params
