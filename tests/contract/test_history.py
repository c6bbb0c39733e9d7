"""History across runs: regressions and fixes, compare, the deployment gate, like compared with like."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from mcp_evals.contract.history import History
from mcp_evals.errors import ConfigError
from support.catalog_helpers import PYTHON
from support.validate_helpers import run_main

from .conftest import Project

HISTORY = Path(".mcp-evals") / "history.db"


def simulated(name: str, passing: bool) -> dict[str, Any]:
    expected = "all good" if passing else "it broke"
    return {
        "id": "check",
        "tool": "status",
        "expected_output": expected,
        "expect": {"output_contains": "good"},
    }


def write_cases(project: Project, passing: dict[str, bool]) -> None:
    for name, ok in passing.items():
        project.case(name, [simulated(name, ok)])


def contract(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    return run_main(capsys, "contract", *args)


def run_ids(out: str) -> list[str]:
    return re.findall(r"run (\d{8}T\d{6}Z-[0-9a-f]{6})", out)


def test_three_runs_regressions_fixes_compare_and_gate(
    project: Project, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    write_cases(project, {"alpha": True, "beta": True, "gamma": False})
    first = contract(capsys)
    assert first.code == 1  # gamma fails
    assert "regressions: no earlier run of this suite to compare with (no history yet)" in first.out
    run_1 = run_ids(first.out)[0]

    write_cases(project, {"alpha": False, "beta": True, "gamma": True})
    second = contract(capsys)
    assert second.code == 1
    assert (
        f"compared with run {run_1}: 1 regression, 1 fix, 0 still failing, 0 new, 1 unchanged" in second.out
    )
    assert f"regression: alpha (passed → failed, vs run {run_1})" in second.out
    assert "check: output_contains — 'good' is not in the output 'it broke'" in second.out
    assert "fixed: gamma (failed → passed" in second.out
    run_2 = run_ids(second.out)[0]

    regression = contract(capsys, "regression")
    assert regression.code == 1
    assert "regression: alpha" in regression.out and "fixed: gamma" in regression.out
    as_json = json.loads(contract(capsys, "regression", "--format", "json").out)
    assert [change["name"] for change in as_json["regressions"]] == ["alpha"]
    assert as_json["compared_with"] == [run_1]

    write_cases(project, {"alpha": True, "beta": True, "gamma": True})
    third = contract(capsys)
    assert third.code == 0
    run_3 = run_ids(third.out)[0]
    assert contract(capsys, "regression").code == 0

    history = contract(capsys, "history")
    assert [line.split()[0] for line in history.out.splitlines()] == [run_3, run_2, run_1]

    earlier_to_later = contract(capsys, "compare", run_1, run_3)
    assert earlier_to_later.code == 0
    assert ": 0 regressions, 1 fix" in earlier_to_later.out
    assert "fixed: gamma" in earlier_to_later.out and "  regression:" not in earlier_to_later.out
    backwards = contract(capsys, "compare", run_3, run_2)
    assert backwards.code == 1
    assert "regression: alpha (passed → failed" in backwards.out
    markdown = contract(capsys, "compare", run_1, run_2, "--format", "md")
    assert "🔻 **alpha** (passed → failed)" in markdown.out

    # 2 + 2 + 3 of 9 cases passed: 77.7 %, judged on the 3 runs there are.
    passing_gate = contract(capsys, "gate", "--min-pass-rate", "0.75", "--lookback", "10")
    assert passing_gate.code == 0
    assert passing_gate.out.strip() == (
        "gate PASSED: 7/9 cases passed (77.7%) over the last 3 runs "
        f"(fewer than the 10 asked for: judged on 3) of suite '{project.root.name}'; the minimum is 75.0%"
    )
    failing_gate = contract(capsys, "gate", "--min-pass-rate", "0.8")
    assert failing_gate.code == 1 and failing_gate.out.startswith("gate FAILED: 7/9 cases passed (77.7%)")
    latest_only = contract(capsys, "gate", "--min-pass-rate", "1", "--lookback", "1")
    assert latest_only.code == 0 and "3/3 cases passed (100.0%) over the last run of suite" in latest_only.out


def test_runs_of_another_suite_and_another_mode_are_not_compared(
    project: Project, capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    database = project.root / "shared.db"
    other = Project(tmp_path_factory.mktemp("other-suite"))
    other.config([{"name": "saved", "snapshot": "none.json"}], contract={"suite": "other"})
    other.case("alpha", [simulated("alpha", False)], simulate=True)
    assert contract(capsys, "--config", str(other.config_path), "--db", str(database)).code == 1

    project.config([{"name": "saved", "snapshot": "none.json"}], contract={"suite": "mine"})
    project.case("alpha", [simulated("alpha", True)], simulate=True)
    mine = contract(capsys, "--config", str(project.config_path), "--db", str(database))
    assert mine.code == 0
    assert "no earlier run of this suite" in mine.out  # the failing run of suite 'other' does not count

    gate = contract(
        capsys, "gate", "--config", str(project.config_path), "--db", str(database), "--min-pass-rate", "1"
    )
    assert gate.code == 0 and "1/1 cases passed" in gate.out
    other_gate = contract(
        capsys,
        "gate",
        "--config",
        str(project.config_path),
        "--db",
        str(database),
        "--min-pass-rate",
        "1",
        "--suite",
        "other",
    )
    assert other_gate.code == 1 and "0/1 cases passed" in other_gate.out

    [mine_id] = run_ids(mine.out)
    [other_id] = [
        line.split()[0]
        for line in contract(
            capsys, "history", "--db", str(database), "--all-suites", "--config", str(project.config_path)
        ).out.splitlines()
        if "other" in line
    ]
    across = contract(
        capsys, "compare", other_id, mine_id, "--db", str(database), "--config", str(project.config_path)
    )
    assert across.code == 3
    assert "only runs of one suite are compared" in across.err

    # The same case run live is new, not a fix of its simulated past.
    project.case(
        "alpha",
        [{"id": "check", "tool": "pid"}],
        server={"command": PYTHON, "args": ["-c", "raise SystemExit(1)"]},
    )
    live = contract(capsys, "--config", str(project.config_path), "--db", str(database))
    assert "1 new" in live.out


def test_no_history_and_a_gate_with_nothing_to_judge(
    project: Project, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    write_cases(project, {"alpha": True})
    assert contract(capsys, "--no-history").code == 0
    assert not (project.root / HISTORY).exists()
    assert contract(capsys, "regression").out.startswith(f"no recorded run of suite '{project.root.name}'")
    empty_gate = contract(capsys, "gate", "--min-pass-rate", "0.5")
    assert empty_gate.code == 1
    assert (
        empty_gate.out.strip()
        == f"gate FAILED: no recorded runs of suite '{project.root.name}': nothing to judge"
    )
    unknown = contract(capsys, "compare", "20260101T000000Z-000000", "nope")
    assert unknown.code == 3 and "no run '20260101T000000Z-000000'" in unknown.err


def test_a_file_that_is_not_a_history_database_is_bad_input(
    project: Project, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    write_cases(project, {"alpha": True})
    (project.root / "junk.db").write_text("this is not SQLite, just text " * 100)
    junk = contract(capsys, "--db", "junk.db")
    assert junk.code == 3
    assert junk.err.startswith("error: junk.db: not an mcp-evals history database")
    assert "Traceback" not in junk.err

    newer = project.root / "newer.db"
    with sqlite3.connect(newer) as connection:
        connection.execute("CREATE TABLE runs (x)")
        connection.execute("PRAGMA user_version = 99")
    connection.close()
    outcome = contract(capsys, "history", "--db", str(newer))
    assert outcome.code == 3 and "a history database of another version (99)" in outcome.err


def test_each_run_is_stored_whole_and_in_rows(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.root)
    project.case(
        "two steps",
        [
            {"id": "a", "tool": "t", "expected_output": "x", "expect": {"output_contains": "x"}},
            {"id": "b", "tool": "t", "expected_output": "y", "expect": {"output_contains": "x"}},
        ],
        continue_on_failure=True,
    )
    run = project.run()
    store = History(project.root / "history.db")
    store.record(run)
    assert store.get(run.run_id) == run
    with sqlite3.connect(store.path) as connection:
        rows = connection.execute(
            "SELECT step_id, status, failed_assertions FROM steps ORDER BY position"
        ).fetchall()
        cases = connection.execute("SELECT name, mode, status FROM cases").fetchall()
    connection.close()
    assert cases == [("two steps", "simulation", "failed")]
    assert [row[:2] for row in rows] == [("a", "passed"), ("b", "failed")]
    assert json.loads(rows[1][2])[0]["kind"] == "output_contains"
    with pytest.raises(ConfigError, match=f"run {run.run_id} is already recorded"):
        store.record(run)  # the same run twice: refused, and nothing half-written
    assert len(store.summaries()) == 1


def test_histories_opened_together_on_a_fresh_folder_are_all_complete(tmp_path: Path) -> None:
    """Ten `mcp-evals contract` started together: the tables and the schema version are created in one
    write transaction and read in one statement, so no opener sees tables of "version 0" (3-4 of 120
    runs did, and were not recorded). Threads with their own connections race as processes do."""
    import threading

    failures: list[str] = []
    for round_number in range(30):
        database = tmp_path / f"round-{round_number}" / "history.db"
        barrier = threading.Barrier(10)

        def open_it(database: Path = database, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                History(database).check()
            except Exception as error:  # what a user would have seen
                failures.append(str(error).splitlines()[0])

        threads = [threading.Thread(target=open_it) for _ in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    assert failures == []


def _immutable(path: Path, on: bool) -> bool:
    """chattr ±i: read-only even for root (tests run as root, where chmod 444 changes nothing)."""
    import subprocess

    done = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True, check=False)
    return done.returncode == 0


def test_a_read_only_history_is_found_before_any_case_runs(
    project: Project, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    marker = project.root / "started.txt"
    server = {
        "command": PYTHON,
        "args": ["-c", f"open({str(marker)!r}, 'w').write('started'); import time; time.sleep(30)"],
    }
    project.case("live", [{"id": "a", "tool": "status"}], server=server)
    database = project.root / "history.db"
    History(database).check()  # an existing, valid history
    if not _immutable(database, True):
        pytest.skip("chattr +i is not supported on this file system")
    try:
        outcome = contract(capsys, "--db", "history.db")
    finally:
        _immutable(database, False)
    assert outcome.code == 3, outcome.err
    assert outcome.err.startswith("error: history.db: the history database cannot be written"), outcome.err
    assert "--no-history" in outcome.err and "delete" not in outcome.err
    assert not marker.exists()  # no server was started
