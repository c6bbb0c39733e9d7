"""The import rules of docs/architecture.md, read from the source with ``ast``.

A back-arrow (scoring reaching the MCP layer), a cycle broken by a function-local import, or a
second importer of the MCP SDK fails here, not in a review months later.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "mcp_evals"

# Pure stages: data in, data out. They may not reach what talks to a process, a network or a disk.
PURE = (
    "mcp_evals.score",
    "mcp_evals.report",
    "mcp_evals.record",
    "mcp_evals.baseline.compare",
    "mcp_evals.catalog.model",
    "mcp_evals.catalog.names",
    "mcp_evals.catalog.diff",
    "mcp_evals.catalog.classify",
    "mcp_evals.catalog.lock",
    "mcp_evals.fixtures.model",
    "mcp_evals.fixtures.validate",
    "mcp_evals.synth.model",
    "mcp_evals.synth.prompts",
    "mcp_evals.synth.parse",
    "mcp_evals.compare.paired",
    # a session's data, metrics and report: computed from the records alone
    "mcp_evals.session.model",
    "mcp_evals.session.transforms",
    "mcp_evals.session.faults",
    "mcp_evals.session.record",
    "mcp_evals.session.metrics",
    "mcp_evals.session.aggregate",
    "mcp_evals.session.report",
)
# What does I/O or talks to a model, a server or GitHub.
EDGES = (
    "mcp_evals.servers",
    "mcp_evals.providers",
    "mcp_evals.run",
    "mcp_evals.output",
    "mcp_evals.github",
    "mcp_evals.action",
    "mcp_evals.cli",
    "mcp_evals.catalog.extract",
    "mcp_evals.catalog.snapshot",
    "mcp_evals.baseline.file",
    "mcp_evals.session.server",
    "mcp_evals.session.loop",
    "mcp_evals.session.runner",
    "mcp_evals.session.live",
    "mcp_evals.session.prepare",
    "mcp_evals.session.dry",
    "mcp_evals.session.judge",
    "mcp_evals.session.records_file",
)
IO_LIBRARIES = ("httpx", "anyio", "mcp", "subprocess", "socket", "sqlite3", "tenacity")
# Outer layers, and who may import them.
OUTER = {
    "mcp_evals.cli": ("mcp_evals.cli", "mcp_evals.__main__"),
    "mcp_evals.action": ("mcp_evals.action", "mcp_evals.cli"),
    "mcp_evals.github": ("mcp_evals.github", "mcp_evals.action", "mcp_evals.cli"),
}
# The only package that imports the MCP SDK: servers/ (sessions and transports, and `serve`).
MCP_PACKAGE = "mcp_evals.servers"


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports(path: Path) -> Iterator[tuple[str, int]]:
    """Every module ``path`` imports at run time (function-local imports included), with its line."""
    tree = ast.parse(path.read_text("utf-8"))
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    current = module_name(path)
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = current.split(".") if is_package(path) else current.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            submodules = [
                f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in MODULES
            ]
            # `from mcp_evals.servers import client` imports the module `client`, nothing else
            yield from ((submodule, node.lineno) for submodule in submodules)
            if len(submodules) < len(node.names):
                yield target, node.lineno


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for target, _ in imports(path):
            if target in MODULES and target != name:
                edges[name].add(target)
    return edges


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def test_no_import_cycles() -> None:
    edges = graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target, [*stack, target])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


@pytest.mark.parametrize("name", [name for name in MODULES if within(name, PURE)])
def test_pure_stages_reach_no_io(name: str) -> None:
    wrong = [
        f"line {line}: {target}"
        for target, line in imports(MODULES[name])
        if within(target, EDGES) or target.split(".")[0] in IO_LIBRARIES
    ]
    assert wrong == [], f"{name} is pure but imports: {wrong}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_outer_layers_are_imported_only_from_outside(name: str) -> None:
    wrong = [
        f"line {line}: {target}"
        for target, line in imports(MODULES[name])
        for layer, allowed in OUTER.items()
        if within(target, (layer,)) and not within(name, allowed)
    ]
    assert wrong == [], f"{name} reaches an outer layer: {wrong}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_the_servers_package_imports_the_mcp_sdk_and_nothing_imports_the_package_root(name: str) -> None:
    targets = [(target, line) for target, line in imports(MODULES[name])]
    if not within(name, (MCP_PACKAGE,)):
        assert [line for target, line in targets if target.split(".")[0] in ("mcp", "mcp_types")] == []
    if name not in ("mcp_evals", "mcp_evals.__main__"):
        assert [line for target, line in targets if target == "mcp_evals"] == []


def test_the_rules_see_what_they_check() -> None:
    """The checks above would pass vacuously on a parser that found nothing: make sure it finds things."""
    runner_imports = {target for target, _ in imports(MODULES["mcp_evals.run.runner"])}
    assert "mcp_evals.run.budget" in runner_imports
    extract = {target for target, _ in imports(MODULES["mcp_evals.catalog.extract"])}
    assert "mcp_evals.servers.client" in extract  # a function-local import is seen
    assert len(MODULES) > 60 and sum(map(len, graph().values())) > 150
