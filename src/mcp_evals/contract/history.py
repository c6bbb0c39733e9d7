"""Past contract runs in SQLite (the standard library's ``sqlite3``): regressions, comparisons, the gate.

Each run is stored whole (its ``ContractRun`` JSON, so any report can be made again from it) and
spread over rows (runs, cases, steps) for queries. A run is written in one transaction: completely
or not at all. The file is a database, not a document, so it is not written through ``atomic_write``;
SQLite's transactions give the same all-or-nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, ValidationError

from mcp_evals.contract.model import CaseResult, ContractRun
from mcp_evals.contract.regression import Comparison, compare_cases
from mcp_evals.errors import ConfigError, InputFileError
from mcp_evals.files import input_kind, refuse_inputs, register_input

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    suite TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    git_sha TEXT,
    selection TEXT,
    passed INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    skipped INTEGER NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_suite ON runs (suite);
CREATE TABLE IF NOT EXISTS cases (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    mode TEXT NOT NULL,
    status TEXT NOT NULL,
    duration_ms REAL,
    error TEXT,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS steps (
    run_id TEXT NOT NULL,
    case_name TEXT NOT NULL,
    position INTEGER NOT NULL,
    step_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    status TEXT NOT NULL,
    latency_ms REAL,
    error TEXT,
    failed_assertions TEXT,
    PRIMARY KEY (run_id, case_name, position),
    FOREIGN KEY (run_id, case_name) REFERENCES cases (run_id, name) ON DELETE CASCADE
);
"""


def _schema_of(connection: sqlite3.Connection) -> tuple[int, set[str]]:
    """The schema version and the tables, read in one statement: one consistent snapshot (two reads
    could straddle another process's creating commit and see its tables with no version yet)."""
    rows = connection.execute(
        "SELECT (SELECT user_version FROM pragma_user_version), name FROM sqlite_master WHERE type = 'table' "
        "UNION ALL SELECT (SELECT user_version FROM pragma_user_version), NULL"
    ).fetchall()
    return int(rows[0][0]), {row[1] for row in rows if row[1] is not None}


class RunSummary(BaseModel):
    run_id: str
    suite: str
    started_at: str
    git_sha: str | None
    passed: int
    failed: int
    skipped: int


class History:
    """One history file. Reading a file that does not exist finds no runs; it is created on first write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._refuse_other_inputs()

    def _refuse_other_inputs(self) -> None:
        """Never another input of the command (the config, a case file): SQLite would call it "not a
        database", and the advice to delete it would be wrong. No output may replace the history either."""
        if input_kind(self.path) not in (None, "history"):
            refuse_inputs(self.path, what="the history database")

    @contextmanager
    def _connect(self, *, write: bool) -> Iterator[sqlite3.Connection | None]:
        if not write and not self.path.exists():
            yield None
            return
        self._refuse_other_inputs()
        if write:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ConfigError(
                    f"{self.path}: cannot create its folder ({error.strerror or error})"
                ) from None
        try:
            connection = sqlite3.connect(self.path, timeout=30)
        except sqlite3.Error as error:
            raise InputFileError(f"{self.path}: cannot open the history database ({error})") from None
        try:
            connection.execute("PRAGMA foreign_keys = ON")
            self._check_schema(connection, write=write)
            register_input(self.path, kind="history")  # it exists now
            yield connection
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as error:
            if getattr(error, "sqlite_errorname", "") == "SQLITE_READONLY":
                raise self._read_only() from None
            raise InputFileError(
                f"{self.path}: not an mcp-evals history database ({error})",
                hint="point --db (or contract.history) at another file, or delete this one to start over",
            ) from None
        finally:
            connection.close()

    def _read_only(self) -> ConfigError:
        return ConfigError(
            f"{self.path}: the history database cannot be written (the file or its folder is read-only)",
            hint="make it writable, point --db (or contract.history) at another file, or use --no-history",
        )

    def _check_schema(self, connection: sqlite3.Connection, *, write: bool) -> None:
        version, tables = _schema_of(connection)
        if version == 0 and not tables:
            if write:
                self._create(connection)
            return
        if "case_results" in tables and "cases" not in tables:
            raise InputFileError(
                f"{self.path}: an mcp-eval-runner history, not an mcp-evals one",
                hint=f"import its runs with `mcp-evals import mcp-eval-runner-history {self.path}`, and "
                "point --db (or contract.history) at another file",
            )
        if version != SCHEMA_VERSION or "runs" not in tables:
            raise InputFileError(
                f"{self.path}: a history database of another version ({version}); this mcp-evals reads "
                f"version {SCHEMA_VERSION}",
                hint="point --db (or contract.history) at another file, or delete this one to start over",
            )

    @staticmethod
    def _create(connection: sqlite3.Connection) -> None:
        """The tables and the schema version in one write transaction: a process started at the same
        moment waits for it, then finds a complete history (never tables without a version)."""
        previous = connection.isolation_level
        connection.isolation_level = None  # the transaction is ours, not the sqlite3 module's
        connection.execute("BEGIN IMMEDIATE")
        try:
            version, tables = _schema_of(connection)
            if version == 0 and not tables:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        connection.execute(statement)
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        finally:
            connection.isolation_level = previous

    def check(self) -> None:
        """Fail now, not after a run, when the file is not a history this version can read and write:
        a write that changes nothing, rolled back, finds a read-only file before any server starts."""
        with self._connect(write=True) as connection:
            assert connection is not None
            previous = connection.isolation_level
            connection.isolation_level = None
            try:
                connection.execute("BEGIN IMMEDIATE")
                try:
                    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                finally:
                    connection.execute("ROLLBACK")
            finally:
                connection.isolation_level = previous

    def record(self, run: ContractRun) -> None:
        """Store a run, completely or not at all."""
        self.record_all([run])

    def record_all(self, runs: list[ContractRun]) -> None:
        """Store runs in this order (an import's, oldest first), all of them or none."""
        try:
            self._insert(runs)
        except sqlite3.IntegrityError:
            which = f"run {runs[0].run_id} is" if len(runs) == 1 else f"one of these {len(runs)} runs is"
            raise ConfigError(f"{self.path}: {which} already recorded (nothing was recorded)") from None

    def _insert(self, runs: list[ContractRun]) -> None:
        with self._connect(write=True) as connection:
            assert connection is not None
            with connection:  # one transaction
                for run in runs:
                    self._insert_run(connection, run)

    @staticmethod
    def _insert_run(connection: sqlite3.Connection, run: ContractRun) -> None:
        connection.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run.run_id,
                run.suite,
                run.started_at,
                run.finished_at,
                run.git_sha,
                json.dumps(run.selection) if run.selection is not None else None,
                run.passed,
                run.failed,
                run.skipped,
                run.model_dump_json(),
            ),
        )
        for case in run.cases:
            connection.execute(
                "INSERT INTO cases VALUES (?, ?, ?, ?, ?, ?)",
                (run.run_id, case.name, case.mode, case.status, case.duration_ms, case.error),
            )
            for position, step in enumerate(case.steps):
                failed = [item.model_dump() for item in step.failed_assertions]
                connection.execute(
                    "INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        run.run_id,
                        case.name,
                        position,
                        step.id,
                        step.tool,
                        step.status,
                        step.latency_ms,
                        step.error,
                        json.dumps(failed) if failed else None,
                    ),
                )

    def _load(self, record: str, run_id: str) -> ContractRun:
        try:
            return ContractRun.model_validate_json(record)
        except ValidationError:
            raise InputFileError(
                f"{self.path}: run {run_id} is stored in a shape this mcp-evals cannot read"
            ) from None

    def get(self, run_id: str) -> ContractRun:
        """One run by id; an unknown id names the latest runs."""
        with self._connect(write=False) as connection:
            row = (
                connection.execute("SELECT record FROM runs WHERE run_id = ?", (run_id,)).fetchone()
                if connection is not None
                else None
            )
        if row is None:
            latest = [summary.run_id for summary in self.summaries(limit=5)]
            raise ConfigError(
                f"no run {run_id!r} in {self.path}",
                hint=f"the latest runs: {', '.join(latest)}" if latest else "the history holds no runs yet",
            )
        return self._load(row[0], run_id)

    def summaries(self, suite: str | None = None, *, limit: int = 20) -> list[RunSummary]:
        """The latest runs (of one suite, when given), newest first."""
        with self._connect(write=False) as connection:
            if connection is None:
                return []
            query = "SELECT run_id, suite, started_at, git_sha, passed, failed, skipped FROM runs"
            parameters: tuple[object, ...] = ()
            if suite is not None:
                query += " WHERE suite = ?"
                parameters = (suite,)
            rows = connection.execute(query + " ORDER BY rowid DESC LIMIT ?", (*parameters, limit)).fetchall()
        return [
            RunSummary(
                run_id=row[0],
                suite=row[1],
                started_at=row[2],
                git_sha=row[3],
                passed=row[4],
                failed=row[5],
                skipped=row[6],
            )
            for row in rows
        ]

    def latest(self, suite: str, *, limit: int, before: str | None = None) -> list[ContractRun]:
        """The latest ``limit`` runs of ``suite`` (recorded before run ``before`` if given), newest first."""
        return [
            self._load(record, run_id) for run_id, record in self._rows(suite, limit=limit, before=before)
        ]

    def _rows(self, suite: str, *, limit: int, before: str | None = None) -> list[tuple[str, str]]:
        """``latest``'s rows (run id, record) as stored: read now, each record parsed only when used."""
        with self._connect(write=False) as connection:
            if connection is None:
                return []
            query = "SELECT run_id, record FROM runs WHERE suite = ?"
            parameters: tuple[object, ...] = (suite,)
            if before is not None:
                query += " AND rowid < (SELECT rowid FROM runs WHERE run_id = ?)"
                parameters += (before,)
            rows = connection.execute(query + " ORDER BY rowid DESC LIMIT ?", (*parameters, limit)).fetchall()
        return [(str(run_id), str(record)) for run_id, record in rows]

    def previous_cases(self, run: ContractRun, *, depth: int = 50) -> dict[str, tuple[str, CaseResult]]:
        """For each case of ``run``: its latest earlier result (same suite and mode) and that run's id.

        Earlier runs are read newest first and only as far back as needed (usually one run).
        """
        wanted = {case.name: case.mode for case in run.cases}
        found: dict[str, tuple[str, CaseResult]] = {}
        rows = self._rows(run.suite, limit=depth, before=run.run_id if self.has(run.run_id) else None)
        for earlier in (self._load(record, run_id) for run_id, record in rows):
            for case in earlier.cases:
                if case.name in wanted and case.name not in found and case.mode == wanted[case.name]:
                    found[case.name] = (earlier.run_id, case)
            if len(found) == len(wanted):
                break
        return found

    def regression(self, run: ContractRun) -> Comparison:
        """``run`` against each of its cases' latest earlier result (``run`` may be recorded or not)."""
        comparison = compare_cases(run, self.previous_cases(run))
        before = run.run_id if self.has(run.run_id) else None
        comparison.earlier_runs = len(self._rows(run.suite, limit=1, before=before))
        return comparison

    def has(self, run_id: str) -> bool:
        with self._connect(write=False) as connection:
            if connection is None:
                return False
            return connection.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is not None
