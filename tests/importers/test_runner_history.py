"""`mcp-evals import mcp-eval-runner-history`: its SQLite history (the schema of its src/db.ts, our own
runs) lands in our contract history, where `contract history`, the gate and regressions read it."""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import pytest
import yaml

from mcp_evals.contract.history import History
from support.validate_helpers import run_main

# mcp-eval-runner's tables, as its src/db.ts creates them.
RUNNER_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, suite_name TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER,
  total_cases INTEGER NOT NULL DEFAULT 0, passed INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0, format TEXT NOT NULL DEFAULT 'console'
);
CREATE TABLE IF NOT EXISTS case_results (
  id TEXT PRIMARY KEY, run_id TEXT NOT NULL, case_name TEXT NOT NULL, status TEXT NOT NULL,
  duration_ms INTEGER, error_message TEXT, assertions_json TEXT, created_at INTEGER NOT NULL,
  FOREIGN KEY (run_id) REFERENCES runs(id)
);
"""
START = 1_764_000_000_000  # 2025-11-24 16:00 UTC, in milliseconds as it records times


def assertion(kind: str, passed: bool) -> dict[str, object]:
    return {"type": kind, "passed": passed, "message": f"{kind} {'held' if passed else 'did not hold'}"}


def write_runner_history(path: Path) -> None:
    """Three runs of two cases: all pass; the live one fails an assertion; the live one errors."""
    database = sqlite3.connect(path)
    database.executescript(RUNNER_SCHEMA)
    outcomes = [("pass", "pass"), ("pass", "fail"), ("pass", "error")]
    for hour, (simulated, live) in enumerate(outcomes):
        run_id, started = str(uuid.uuid4()), START + hour * 3_600_000
        passed = [simulated, live].count("pass")
        database.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, "default", started, started + 4000, 2, passed, 2 - passed, "console"),
        )
        steps = [[assertion("output_contains", True)], [assertion("output_equals", True)]]
        database.execute(
            "INSERT INTO case_results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                str(uuid.uuid4()),
                run_id,
                "summarize notes",
                simulated,
                8,
                None,
                json.dumps(steps),
                started + 1,
            ),
        )
        live_steps = [[assertion("output_contains", live != "fail")]] + ([[]] if live == "error" else [])
        database.execute(
            "INSERT INTO case_results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (str(uuid.uuid4()), run_id, "graph lookup", live, 950, None, json.dumps(live_steps), started + 2),
        )
    database.commit()
    database.close()


def test_an_imported_history_shows_in_contract_history_and_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "notes-app"
    (project / "evals").mkdir(parents=True)
    monkeypatch.chdir(project)
    (project / "evals" / "summarize.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "summarize notes",
                "steps": [
                    {"id": "search", "tool": "search", "expected_output": "two notes"},
                    {"id": "summary", "tool": "summarize", "expected_output": "short"},
                ],
            }
        )
    )
    source = tmp_path / "evals.db"
    write_runner_history(source)
    outcome = run_main(capsys, "import", "mcp-eval-runner-history", source)
    assert outcome.code == 0, outcome.err
    history = project / ".mcp-evals" / "history.db"
    assert outcome.out.splitlines()[0] == (
        f"imported 3 runs, 6 case results, into {history} as suite 'notes-app'"
    )
    assert "changed: 1 case without a case file in evals (graph lookup): recorded as live" in outcome.out

    listed = run_main(capsys, "contract", "history")
    assert listed.code == 0
    rows = listed.out.splitlines()
    assert len(rows) == 3
    assert rows[0].startswith("20251124T180000Z-") and "notes-app  1 passed, 1 failed, 0 skipped" in rows[0]
    assert rows[2].startswith("20251124T160000Z-") and "2 passed, 0 failed, 0 skipped" in rows[2]

    gate = run_main(capsys, "contract", "gate", "--min-pass-rate", "0.6")
    assert gate.code == 0 and "4/6 cases passed" in gate.out

    runs = History(project / ".mcp-evals" / "history.db").latest("notes-app", limit=3)
    simulated = next(case for case in runs[0].cases if case.name == "summarize notes")
    assert simulated.mode == "simulation" and [step.id for step in simulated.steps] == ["search", "summary"]
    errored = next(case for case in runs[0].cases if case.name == "graph lookup")
    assert errored.mode == "live" and errored.status == "failed"
    assert errored.steps[-1].error == "the call failed (mcp-eval-runner recorded no detail)"

    # A run of the same folder, as mcp-eval-runner ran it, compares with the imported runs.
    ran = run_main(capsys, "contract", "--case", "summarize notes")
    assert ran.code == 0, ran.err
    assert "compared with run 20251124T180000Z-" in ran.out

    again = run_main(capsys, "import", "mcp-eval-runner-history", source)
    assert again.code == 3 and "already holds runs of suite 'notes-app'" in again.err


def test_a_file_that_is_not_its_history_is_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ours = tmp_path / "ours.db"
    History(ours).check()
    outcome = run_main(capsys, "import", "mcp-eval-runner-history", ours)
    assert outcome.code == 3
    assert "not an mcp-eval-runner history (it has no `runs` and `case_results` tables)" in outcome.err
    theirs = tmp_path / "theirs.db"
    write_runner_history(theirs)
    pointed = run_main(capsys, "contract", "history", "--db-path", theirs)
    assert pointed.code == 3
    assert "an mcp-eval-runner history, not an mcp-evals one" in pointed.err
    assert f"mcp-evals import mcp-eval-runner-history {theirs}" in pointed.err
