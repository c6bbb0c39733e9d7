"""The promises of README.md and CONTRIBUTING.md that can rot silently: the README's length, its two
set-up commands, its command table and docs index, the links of every page, one place per benchmark's
figures, the suite's timing and the dependencies."""

from __future__ import annotations

import ast
import importlib
import re
import tomllib
from pathlib import Path

import click
import pytest

from mcp_evals.cli import COMMANDS, SUMMARIES
from mcp_evals.wording import DOCS_URL

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text("utf-8")
CONTRIBUTING = (REPO / "CONTRIBUTING.md").read_text("utf-8")
# a measured figure: "2.63 s", "41–52 s", "98 MB", "1.8 ms", "12 min", "1.13×"
FIGURE = re.compile(r"\d[\d,.]*(?:–\d[\d,.]*)? ?(?:s|ms|MB|MiB|GB|min|minutes)\b|\d\.\d+×")


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    anchors = set(re.findall(r'<a id="([^"]+)"', markdown))
    for heading in re.findall(r"^#+ (.+)$", markdown, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


def _text(file: Path) -> str:
    return file.read_text("utf-8") if file.exists() else ""


def _section(markdown: str, heading: str) -> str:
    """The text under ``heading`` (a ``## `` line) up to the next ``## `` heading."""
    return markdown.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_is_a_front_door_of_at_most_130_lines() -> None:
    """Contributor material (timing, prerequisites, performance, dependencies) lives in CONTRIBUTING.md."""
    assert len(README.splitlines()) <= 130
    for contributor_heading in ("## Performance", "## Dependencies", "## Development"):
        assert f"\n{contributor_heading}\n" not in README


def test_the_two_set_up_commands_are_the_ones_ci_runs() -> None:
    """Command 1 as it works today; command 2 is what .ci/run runs, and CONTRIBUTING.md names it."""
    block = README.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert commands == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && cd examples/helpdesk "
        "&& mcp-evals validate && mcp-evals run",
        "bash scripts/test",
    ]
    ci = [line for line in (REPO / ".ci" / "run").read_text("utf-8").splitlines() if line and line[0] != "#"]
    assert ci[-1] == commands[1]
    assert f"```bash\n{commands[1]}\n```" in _section(CONTRIBUTING, "## The test command")
    script = (REPO / "scripts" / "test").read_text("utf-8")
    for step in (
        "bash scripts/bootstrap",
        "ruff check",
        "ruff format --check",
        "mypy",
        "workers=${MCP_EVALS_TEST_WORKERS:-$(($(nproc) + 1))}",
        '-m pytest -n "$workers" --dist loadgroup "$@"',
    ):
        assert step in script  # what CONTRIBUTING.md says it runs, arguments going to pytest


def test_the_docs_index_lists_every_page() -> None:
    index = _section(README, "## Documentation")
    pages = sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))
    assert [page for page in pages if f"]({page})" not in index] == []
    assert "](CONTRIBUTING.md)" in index


def test_every_command_has_a_row_in_the_commands_table() -> None:
    table = README.split("## Commands", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `mcp-evals (\w+)", table, flags=re.MULTILINE))
    assert (set(SUMMARIES) - listed, listed - set(SUMMARIES)) == (set(), set()), "(missing rows, extra rows)"


@pytest.mark.parametrize(
    "document",
    [
        "README.md",
        "CONTRIBUTING.md",
        "bench/README.md",
        *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("**/*.md")),
    ],
)
def test_every_relative_link_resolves(document: str) -> None:
    """README.md, CONTRIBUTING.md and each page under docs/: a relative link names a file that exists,
    and its anchor."""
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


BENCHMARKS = {
    "bench/validate.py": "docs/fixtures.md#performance",
    "bench/lint.py": "docs/lint.md#performance",
    "bench/extract.py": "docs/catalog.md#performance",
    "bench/runner.py": "docs/running.md#performance",
    "bench/contract_startup.py": "docs/contract.md#start-up-side-by-side-with-mcp-assert",
    "tests/action/test_container.py": "docs/action.md#development",
}


def _sections(markdown: str) -> list[str]:
    return re.split(r"\n(?=#+ )", markdown)


@pytest.mark.parametrize("script", sorted(BENCHMARKS))
def test_a_benchmark_has_its_figures_in_one_place(script: str) -> None:
    """CONTRIBUTING.md's Performance table links the one docs section that holds a benchmark's
    figures; every other page that names the benchmark links there and quotes none of its own (two
    measurements of one thing disagreed: 41 s in the README, 41–52 s in docs/running.md)."""
    home = BENCHMARKS[script]
    table = _section(CONTRIBUTING, "## Performance")
    [row] = [line for line in table.splitlines() if script in line]
    assert f"]({home})" in row and FIGURE.findall(row) == [], row
    page, _, anchor = home.partition("#")
    [section] = [
        section
        for section in _sections(_text(REPO / page))
        if section.startswith("#") and anchor in _anchors(section.split("\n", 1)[0])
    ]
    assert script in section and FIGURE.search(section), f"{home} holds no figures of {script}"
    documents = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("**/*.md"))]
    for document in documents:
        if document == REPO / page:
            continue
        for other in _sections(document.read_text("utf-8")):
            if script in other:
                name = document.relative_to(REPO)
                assert home.split("/", 1)[1] in other, f"{name} names {script} without linking {home}"
                assert FIGURE.findall(other) == [], f"{name} quotes figures beside {script}"


def test_the_suite_timing_is_stated_once_in_contributing() -> None:
    timing = _section(CONTRIBUTING, "## How long the suite takes")
    assert re.search(r"\d+ min", timing) and "tests)" in timing
    assert not re.search(r"\d+ min(?:utes?)?\b", README), "the README quotes the suite's timing"


def test_contributing_names_every_dependency() -> None:
    """Its Dependencies section names each runtime and test dependency pyproject.toml declares."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    declared = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    names = [re.split(r"[<>=!\[ ]", requirement, maxsplit=1)[0] for requirement in declared]
    section = _section(CONTRIBUTING, "## Dependencies").lower()
    assert [name for name in names if name.lower() not in section] == []


SOURCE = REPO / "src" / "mcp_evals"


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of a module, its classes and its functions."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_every_docs_page_named_in_src_exists() -> None:
    """Every ``docs/…`` path in the source (messages, help, comments) and every ``docs_url("…")`` page
    names a file under docs/, and its anchor when it gives one."""
    missing: list[str] = []
    for module in sorted(SOURCE.rglob("*.py")):
        text = module.read_text("utf-8")
        named = re.findall(r"docs/([\w./-]*\w)(#[\w-]+)?", text)
        named += re.findall(r"docs_url\(f?[\"']([\w./-]+)(#[\w-]+)?[\"'{)]", text)
        for page, anchor in named:
            file = REPO / "docs" / page
            if not file.exists() or (anchor and anchor[1:] not in _anchors(_text(file))):
                missing.append(f"{module.relative_to(REPO)}: docs/{page}{anchor}")
    assert missing == []


def test_every_message_names_the_docs_through_one_helper() -> None:
    """A message, a help text or a report that names a docs page gives its address on GitHub through
    ``wording.docs_url``: a user who installed with pipx has no docs/ folder. Docstrings and comments
    speak to the reader of the source and may say docs/…."""
    bare: list[str] = []
    for module in sorted(SOURCE.rglob("*.py")):
        if module == SOURCE / "wording.py":
            continue
        tree = ast.parse(module.read_text("utf-8"))
        docstrings = _docstrings(tree)
        texts = [node for node in ast.walk(tree) if isinstance(node, ast.Constant)]
        for node in texts:
            if isinstance(node.value, str) and id(node) not in docstrings and "docs/" in node.value:
                bare.append(f"{module.relative_to(SOURCE)}:{node.lineno}: {node.value[:80]!r}")
    assert bare == []


def _commands() -> list[tuple[str, click.Command]]:
    """Every command and subcommand of the CLI, by its full name."""
    found: list[tuple[str, click.Command]] = []
    pending: list[tuple[str, click.Command]] = []
    for name, target in COMMANDS.items():
        module, _, attribute = target.partition(":")
        pending.append((name, getattr(importlib.import_module(f"mcp_evals.cli.{module}"), attribute)))
    while pending:
        name, command = pending.pop()
        found.append((name, command))
        if isinstance(command, click.Group):
            pending += [(f"{name} {sub}", command.commands[sub]) for sub in command.commands]
    return sorted(found, key=lambda item: item[0])


def test_every_help_names_the_docs_by_their_address_on_github() -> None:
    """``--help`` is read where the docs folder is not: any docs page it names is a GitHub address."""
    bare: list[str] = []
    for name, command in _commands():
        text = command.get_help(click.Context(command, info_name=f"mcp-evals {name}"))
        if "docs/" in text.replace(DOCS_URL, ""):
            bare.append(name)
    assert bare == []
    lint = dict(_commands())["lint"]
    assert f"Docs: {DOCS_URL}lint.md" in lint.get_help(click.Context(lint, info_name="mcp-evals lint"))


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
