"""mcp-eval-runner's SQLite history (``~/.mcp/evals.db``) → runs in our contract history.

Its schema (``src/db.ts`` there): ``runs(id, suite_name, started_at, ended_at, total_cases, passed,
failed, format)`` with times in milliseconds, and ``case_results(id, run_id, case_name, status
pass|fail|error, duration_ms, error_message, assertions_json, created_at)``, where ``assertions_json``
holds each step's assertion results ``[{type, passed, message}]``. It records no step ids, tools or
mode; they are read from the case files when the folder is given (its default ``./evals``).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp_evals.contract.load import case_files, load_case
from mcp_evals.contract.model import (
    AssertionResult,
    Case,
    CaseResult,
    ContractRun,
    Mode,
    StepResult,
    StepStatus,
)
from mcp_evals.contract.runner import case_status
from mcp_evals.errors import InputFileError, McpEvalsError
from mcp_evals.importers.plan import Key
from mcp_evals.wording import plural

PEER = "mcp-eval-runner"
KEYS = (
    Key(
        "`runs.suite_name`",
        "the suite (`--suite`, default the config's)",
        "changed",
        "its suites are 'default' or a case's name; ours is one suite per project",
    ),
    Key("`runs`: `id`, `started_at`, `ended_at`", "`run_id` (sortable), `started_at`, `finished_at`", "same"),
    Key(
        "`case_results`: `case_name`, `duration_ms`, `error_message`",
        "each case's `name`, `duration_ms`, `error`",
        "same",
    ),
    Key(
        "`case_results.status`: pass / fail / error", "`passed` / `failed` / `failed` with the error", "same"
    ),
    Key("`case_results.assertions_json`", "each step's assertions (kind, status, message)", "same"),
    Key(
        "the mode (not recorded there)",
        "`live` or `simulation`, from the case file",
        "changed",
        "without the case file a case is recorded as live",
    ),
    Key(
        "step ids and tools (not recorded there)",
        "from the case file, else `step-N` and `unknown`",
        "changed",
        "without the case file",
    ),
)


@dataclass
class HistoryImport:
    runs: list[ContractRun]
    notes: list[str]


def _rows(path: Path) -> tuple[list[sqlite3.Row], list[sqlite3.Row]]:
    if not path.is_file():
        raise InputFileError(f"{path}: {'is a folder, not a file' if path.exists() else 'file not found'}")
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise InputFileError(f"{path}: cannot open it ({error})") from None
    try:
        connection.row_factory = sqlite3.Row
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"runs", "case_results"} <= tables:
            raise InputFileError(
                f"{path}: not an mcp-eval-runner history (it has no `runs` and `case_results` tables)",
                hint="mcp-eval-runner keeps it in ~/.mcp/evals.db, or where its --db-path points",
            )
        runs = connection.execute("SELECT * FROM runs ORDER BY started_at, rowid").fetchall()
        cases = connection.execute("SELECT * FROM case_results ORDER BY created_at, rowid").fetchall()
    except sqlite3.DatabaseError as error:
        raise InputFileError(f"{path}: not an mcp-eval-runner history ({error})") from None
    finally:
        connection.close()
    return runs, cases


def _moment(milliseconds: Any) -> datetime | None:
    if isinstance(milliseconds, int | float) and not isinstance(milliseconds, bool):
        return datetime.fromtimestamp(milliseconds / 1000, UTC)
    return None


def _known_cases(folder: Path | None) -> dict[str, Case]:
    """The case files of the folder, by name (those that do not load are left out)."""
    if folder is None or not folder.is_dir():
        return {}
    found: dict[str, Case] = {}
    for path in case_files(folder):
        try:
            case = load_case(path)
        except McpEvalsError:
            continue
        found.setdefault(case.name, case)
    return found


def _steps(row: sqlite3.Row, case: Case | None, status: str) -> list[StepResult]:
    try:
        recorded = json.loads(row["assertions_json"] or "[]")
    except ValueError:
        recorded = []
    steps = []
    for index, assertions in enumerate(recorded if isinstance(recorded, list) else []):
        results = [
            AssertionResult(
                kind=str(item.get("type") or "assertion"),
                status="passed" if item.get("passed") else "failed",
                message=str(item.get("message") or ""),
            )
            for item in (assertions if isinstance(assertions, list) else [])
            if isinstance(item, dict)
        ]
        step = case.steps[index] if case is not None and index < len(case.steps) else None
        state: StepStatus = "failed" if any(result.status == "failed" for result in results) else "passed"
        steps.append(
            StepResult(
                id=step.id if step else f"step-{index + 1}",
                tool=step.tool if step else "unknown",
                status=state,
                assertions=results,
            )
        )
    if status == "error" and steps and steps[-1].status == "passed" and not row["error_message"]:
        # Its runner stops a live case at a call that threw, and records that step with no assertions.
        steps[-1] = steps[-1].model_copy(
            update={"status": "failed", "error": "the call failed (mcp-eval-runner recorded no detail)"}
        )
    if case is not None:
        steps += [
            StepResult(id=step.id, tool=step.tool, status="not_run", error="not run (mcp-eval-runner)")
            for step in case.steps[len(steps) :]
        ]
    return steps


def read_history(path: Path, *, suite: str, folder: Path | None) -> HistoryImport:
    """Every run of mcp-eval-runner's history file as our ``ContractRun``s, oldest first."""
    runs, rows = _rows(path)
    known = _known_cases(folder)
    by_run: dict[str, list[sqlite3.Row]] = {}
    for row in rows:
        by_run.setdefault(str(row["run_id"]), []).append(row)
    imported: list[ContractRun] = []
    unknown: set[str] = set()
    for run in runs:
        started = _moment(run["started_at"]) or datetime.fromtimestamp(0, UTC)
        ended = _moment(run["ended_at"])
        cases: list[CaseResult] = []
        for row in by_run.get(str(run["id"]), []):
            name = str(row["case_name"])
            case = known.get(name)
            if case is None:
                unknown.add(name)
            mode: Mode = "live" if case is None or case.server is not None else "simulation"
            status = str(row["status"])
            steps = _steps(row, case, status)
            error = str(row["error_message"]) if row["error_message"] else None
            result = CaseResult(
                name=name,
                file=case.shown_path if case is not None else "",
                mode=mode,
                status="passed" if status == "pass" else "failed",
                duration_ms=float(row["duration_ms"] or 0),
                error=error,
                steps=steps,
            )
            if result.status == "failed" and error is None and case_status(steps, None) != "failed":
                result.error = f"mcp-eval-runner recorded the case as {status!r}"
            cases.append(result)
        if not cases:
            continue
        whole = str(run["suite_name"]) == "default"
        imported.append(
            ContractRun(
                run_id=f"{started:%Y%m%dT%H%M%SZ}-{str(run['id']).replace('-', '')[:6]}",
                suite=suite,
                started_at=started.isoformat(timespec="seconds"),
                finished_at=ended.isoformat(timespec="seconds") if ended else "",
                selection=None if whole else [case.name for case in cases],
                cases=cases,
            )
        )
    notes = []
    if unknown:
        notes.append(
            f"{plural(len(unknown), 'case')} without a case file in {folder or 'the folder'} "
            f"({', '.join(sorted(unknown)[:5])}{', …' if len(unknown) > 5 else ''}): recorded as live, "
            "with steps named step-N"
        )
    skipped = len(runs) - len(imported)
    if skipped:
        notes.append(f"{plural(skipped, 'run')} without case results left out")
    return HistoryImport(imported, notes)
