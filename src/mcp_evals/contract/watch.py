"""``--watch``: re-run the cases a changed file affects, by polling (no extra dependency).

A case is affected by its own file and by the source files of the stdio server it starts (the files
under that server's working folder, minus dependency and build caches). A new case file runs; the
config file changing re-runs everything.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from mcp_evals.contract.load import ContractSetup, case_files, load_case, target_of
from mcp_evals.contract.model import Case
from mcp_evals.errors import McpEvalsError
from mcp_evals.wording import plural

SOURCE_SUFFIXES = {
    ".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".go", ".rs", ".java", ".kt", ".rb", ".php", ".cs",
}  # fmt: skip
SKIPPED_FOLDERS = {
    "node_modules", ".git", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".mcp-evals", ".tox", "target",
}  # fmt: skip
MAX_FILES_PER_SERVER = 5000
Stamp = tuple[int, int]


def source_files(folder: Path, skip: Path | None = None) -> list[Path]:
    """Source files under a server's working folder (at most ``MAX_FILES_PER_SERVER``), outside ``skip``."""
    found: list[Path] = []
    skipped = skip.resolve() if skip is not None else None
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(
            name
            for name in folders
            if name not in SKIPPED_FOLDERS and (Path(root) / name).resolve() != skipped
        )
        for name in sorted(files):
            if Path(name).suffix.lower() in SOURCE_SUFFIXES:
                found.append(Path(root) / name)
                if len(found) >= MAX_FILES_PER_SERVER:
                    return found
    return found


def watched_files(case: Case, setup: ContractSetup) -> set[Path]:
    """The files whose change re-runs ``case``."""
    files = {case.path.resolve()}
    target = target_of(case, setup)
    server = target.server
    if server is not None and server.command:
        cwd = Path(server.cwd) if server.cwd and Path(server.cwd).is_absolute() else None
        if cwd is None and setup.config is not None:
            cwd = setup.config.resolve(server.cwd) if server.cwd else setup.config.base_dir
        if cwd is not None and cwd.is_dir():
            files.update(path.resolve() for path in source_files(cwd, skip=setup.cases_dir))
    return files


def stamps(paths: Iterable[Path]) -> dict[Path, Stamp]:
    result: dict[Path, Stamp] = {}
    for path in paths:
        try:
            status = path.stat()
        except OSError:
            continue
        result[path] = (status.st_mtime_ns, status.st_size)
    return result


class Watcher:
    """Remembers what every watched file looked like; ``changed()`` says which cases to run again."""

    def __init__(self, setup: ContractSetup, names: list[str] | None = None) -> None:
        self.setup = setup
        self.names = set(names) if names else None
        self.cases: dict[Path, Case] = {}
        self.files: dict[Path, set[Path]] = {}
        self.seen: dict[Path, Stamp] = {}
        self.problems: list[str] = []
        self.config_stamp = self._config_stamp()
        self.refresh()

    def _config_stamp(self) -> Stamp | None:
        config = self.setup.config
        return stamps([config.path]).get(config.path) if config is not None else None

    def refresh(self) -> None:
        """Re-read the case folder; a case file that no longer loads goes to ``problems``."""
        problems: list[str] = []
        current = {path.resolve() for path in case_files(self.setup.cases_dir)}
        for path in list(self.cases):
            if path not in current:
                del self.cases[path]
                self.files.pop(path, None)
        for path in sorted(current):
            try:
                case = load_case(path)
            except McpEvalsError as error:
                problems.append(str(error))
                self.cases.pop(path, None)
                self.files[path] = {path}
                continue
            if self.names is not None and case.name not in self.names:
                continue
            self.cases[path] = case
            self.files[path] = watched_files(case, self.setup)
        self.seen = stamps(set().union(*self.files.values()) if self.files else set())
        self.problems = problems

    def changed(self) -> list[str] | None:
        """The names of the cases to run again (all of them when the config changed), or None."""
        config_stamp = self._config_stamp()
        every = set().union(*self.files.values()) if self.files else set()
        now = stamps(every)
        current = {path.resolve() for path in case_files(self.setup.cases_dir)}
        added = current - set(self.files)
        touched = {path for path in every if now.get(path) != self.seen.get(path)} | added
        if config_stamp != self.config_stamp:
            self.config_stamp = config_stamp
            self.refresh()
            return sorted(case.name for case in self.cases.values())
        if not touched:
            return None
        affected = [path for path, files in self.files.items() if files & touched] + sorted(added)
        self.refresh()
        names = sorted({self.cases[path].name for path in affected if path in self.cases})
        return names


def watch(
    watcher: Watcher,
    run: Callable[[list[str]], None],
    *,
    interval: float = 1.0,
    rounds: int | None = None,
    say: Callable[[str], None] = print,
) -> None:
    """Poll every ``interval`` seconds and run the affected cases; forever, or for ``rounds`` polls."""
    done = 0
    while rounds is None or done < rounds:
        time.sleep(interval)
        done += 1
        try:
            names = watcher.changed()
        except McpEvalsError as error:
            say(f"watch: {error}")
            continue
        for problem in watcher.problems:
            say(f"error: {problem}")
        watcher.problems = []
        if names:
            say(f"watch: re-running {plural(len(names), 'case')}: {', '.join(names)}")
            try:
                run(names)
            except McpEvalsError as error:
                say(f"error: {error}")
