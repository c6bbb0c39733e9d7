"""The import rules of docs/architecture.md, read from the source with ``ast``.

A back-arrow (scoring reaching the MCP layer), a cycle broken by a function-local import, or a
second importer of the MCP SDK fails here, not in a review months later.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

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
    "mcp_evals.servers.extract",
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
# The only packages that import the MCP SDK: servers/ (the client side: sessions and transports) and
# serve/ (the server side of `mcp-evals serve`).
MCP_PACKAGES = ("mcp_evals.servers", "mcp_evals.serve")
# Every package's rank, lowest first: a package imports only packages ranked below it (leaf modules at
# the root, such as errors.py or files.py, rank 0 and import only each other). docs/architecture.md
# draws this table.
RANKS = {
    "config": 1,
    "catalog": 2,
    "servers": 3,
    "fixtures": 4,
    "record": 5,
    "providers": 6,
    "run": 7,
    "score": 8,
    "baseline": 9,
    "compare": 10,
    "report": 11,
    "output": 12,
    "lint": 13,
    "contract": 13,
    "session": 14,
    "synth": 14,
    "importers": 14,
    "improve": 15,
    "api": 16,
    "github": 16,
    "action": 17,
    "serve": 18,
    "cli": 19,
}


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


@cache
def imports(path: Path) -> tuple[tuple[str, int], ...]:
    return tuple(_imports(path))


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    """Every module ``path`` imports at run time (function-local imports included), with its line."""
    tree = ast.parse(path.read_text("utf-8"))
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    current = module_name(path)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom) or _type_checking_only(node, parents):
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


def test_pure_stages_reach_no_io() -> None:
    wrong = [
        f"{name} line {line}: {target}"
        for name in MODULES
        if within(name, PURE)
        for target, line in imports(MODULES[name])
        if within(target, EDGES) or target.split(".")[0] in IO_LIBRARIES
    ]
    assert wrong == [], "pure stages that import I/O:\n" + "\n".join(wrong)


def test_outer_layers_are_imported_only_from_outside() -> None:
    wrong = [
        f"{name} line {line}: {target}"
        for name in sorted(MODULES)
        for target, line in imports(MODULES[name])
        for layer, allowed in OUTER.items()
        if within(target, (layer,)) and not within(name, allowed)
    ]
    assert wrong == [], "modules that reach an outer layer:\n" + "\n".join(wrong)


def test_only_the_mcp_packages_import_the_sdk_and_nothing_imports_the_package_root() -> None:
    wrong = []
    for name in sorted(MODULES):
        for target, line in imports(MODULES[name]):
            if target.split(".")[0] in ("mcp", "mcp_types") and not within(name, MCP_PACKAGES):
                wrong.append(f"{name} line {line}: imports the MCP SDK ({target})")
            if target == "mcp_evals" and name not in ("mcp_evals", "mcp_evals.__main__"):
                wrong.append(f"{name} line {line}: imports the package root")
    assert wrong == [], "\n".join(wrong)


def package_of(name: str) -> str:
    """``mcp_evals.run.runner`` → ``run``; a module at the root (``mcp_evals.errors``) is a leaf."""
    parts = name.split(".")
    if len(parts) == 1 or name == "mcp_evals.__main__":
        return "<root>"
    return parts[1] if (SOURCE / parts[1]).is_dir() else "<leaf>"


def test_every_package_has_a_rank() -> None:
    packages = {package_of(name) for name in MODULES} - {"<root>", "<leaf>"}
    assert packages - set(RANKS) == set(), "give these packages a rank in RANKS"
    assert set(RANKS) - packages == set(), "RANKS names packages that do not exist"


def test_packages_import_downward_only() -> None:
    """A package imports only packages of a lower rank (leaf modules rank lowest; equal ranks are
    siblings that may not import each other), so no package cycle can form."""
    wrong = []
    for name in sorted(MODULES):
        source = package_of(name)
        if source == "<root>":
            continue
        for target, line in imports(MODULES[name]):
            if not target.startswith("mcp_evals.") or target not in MODULES:
                continue
            destination = package_of(target)
            if destination in ("<leaf>", source):
                continue
            if source == "<leaf>" or rank(destination) >= rank(source):
                wrong.append(
                    f"{name} line {line}: {target} ({destination}, rank {rank(destination)}) "
                    f"is not below {source} (rank {rank(source)})"
                )
    assert wrong == [], "imports that go up or sideways:\n" + "\n".join(wrong)


def rank(package: str) -> int:
    return 0 if package == "<leaf>" else RANKS[package]


def test_package_ranks_are_what_the_docs_show() -> None:
    """docs/architecture.md's rank table (``| rank | packages |``) lists the same ranks as RANKS."""
    text = (SOURCE.parents[1] / "docs" / "architecture.md").read_text("utf-8")
    documented = {
        package: int(row.group(1))
        for row in re.finditer(r"^\| (\d+) \| (.*) \|$", text, flags=re.M)
        for package in re.findall(r"`(\w+)/`", row.group(2))
    }
    assert documented == RANKS


MAX_LINES = 650
LONG_REASON = "Longer than 650 lines:"


def test_no_module_is_over_650_lines_unless_its_docstring_says_why() -> None:
    """A module over 650 lines is one concern that says in its docstring why it stays whole."""
    long = []
    for name, path in sorted(MODULES.items()):
        text = path.read_text("utf-8")
        lines = text.count("\n") + 1
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if lines > MAX_LINES and LONG_REASON not in docstring:
            long.append(f"{name}: {lines} lines")
    assert long == [], f"split these, or say '{LONG_REASON} …' in the docstring:\n" + "\n".join(long)


def test_the_rules_see_what_they_check() -> None:
    """The checks above would pass vacuously on a parser that found nothing: make sure it finds things."""
    runner_imports = {target for target, _ in imports(MODULES["mcp_evals.run.runner"])}
    assert "mcp_evals.run.budget" in runner_imports
    extract = {target for target, _ in imports(MODULES["mcp_evals.servers.extract"])}
    assert "mcp_evals.servers.client" in extract  # a function-local import is seen
    assert len(MODULES) > 60 and sum(map(len, graph().values())) > 150
