"""`--watch`: a changed case file, server source file or new case re-runs only the cases it affects."""

from __future__ import annotations

import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

from conftest import cli_environment
from servers.contract_server import __file__ as CONTRACT_SERVER_FILE

from .conftest import Project


class Output:
    """The lines a running process writes, read in a thread so the test can wait for one."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        assert process.stdout is not None
        stream = process.stdout
        threading.Thread(target=lambda: [self.lines.put(line) for line in stream], daemon=True).start()

    def wait_for(self, text: str, timeout: float = 60) -> list[str]:
        """The lines up to the first one containing ``text``."""
        deadline = time.monotonic() + timeout
        taken: list[str] = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            taken.append(line)
            self.seen.append(line)
            if text in line:
                return taken
        raise AssertionError(f"no line with {text!r} within {timeout} s; saw:\n{''.join(self.seen)}")


def test_watch_reruns_what_changed(project: Project) -> None:
    source = project.root / "srv"
    source.mkdir()
    shutil.copy(CONTRACT_SERVER_FILE, source / "server.py")
    project.case(
        "simulated",
        [{"id": "s", "tool": "t", "expected_output": "fine", "expect": {"output_contains": "fine"}}],
    )
    project.case(
        "live",
        [{"id": "w", "tool": "weather", "input": {"city": "Baku"}, "expect": {"output_contains": "Baku"}}],
        server={"command": sys.executable, "args": ["server.py"], "cwd": "../../srv"},
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_evals", "contract", "--watch", "--interval", "0.2", "--no-history"],
        cwd=project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=cli_environment(),
    )
    output = Output(process)
    try:
        first = output.wait_for("watch: watching")
        assert any("2 passed, 0 failed of 2 cases" in line for line in first)

        case_file = project.cases_dir / "simulated.yaml"
        data = yaml.safe_load(case_file.read_text())
        data["steps"][0]["expected_output"] = "broken"
        case_file.write_text(yaml.safe_dump(data))
        rerun = output.wait_for("of 1 case")
        assert "watch: re-running 1 case: simulated\n" in rerun
        assert "0 passed, 1 failed of 1 case" in rerun[-1]

        with (source / "server.py").open("a") as stream:
            stream.write("\n# touched\n")
        rerun = output.wait_for("of 1 case")
        assert "watch: re-running 1 case: live\n" in rerun
        assert "1 passed, 0 failed of 1 case" in rerun[-1]

        project.case(
            "added", [{"id": "a", "tool": "t", "expected_output": "x", "expect": {"output_equals": "x"}}]
        )
        rerun = output.wait_for("of 1 case")
        assert "watch: re-running 1 case: added\n" in rerun

        (project.cases_dir / "broken.yaml").write_text("name: broken\nsteps: nope\n")
        problem = output.wait_for("broken.yaml")
        assert any(line.startswith("error: evals/contract/broken.yaml:2 (steps)") for line in problem)
        assert process.poll() is None  # a bad file does not end the watch
        process.send_signal(signal.SIGINT)  # Ctrl-C
        assert process.wait(timeout=20) == 130
        output.wait_for("Aborted.")
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=10)


def test_the_cases_a_file_affects(project: Project) -> None:
    from mcp_evals.contract.load import ContractSetup, load_cases
    from mcp_evals.contract.watch import watched_files

    server_dir = project.root / "srv"
    (server_dir / "node_modules" / "dep").mkdir(parents=True)
    (server_dir / "index.js").write_text("// server\n")
    (server_dir / "node_modules" / "dep" / "index.js").write_text("// dependency\n")
    project.case(
        "own",
        [{"id": "a", "tool": "t"}],
        server={"command": "node", "args": ["index.js"], "cwd": "../../srv"},
    )
    project.case("simulated", [{"id": "a", "tool": "t"}])
    cases = {case.name: case for case in load_cases(ContractSetup.of(None, cwd=project.root))}
    setup = ContractSetup.of(None, cwd=project.root)
    assert watched_files(cases["own"], setup) == {
        (project.cases_dir / "own.yaml").resolve(),
        (server_dir / "index.js").resolve(),  # not what node_modules holds
    }
    assert watched_files(cases["simulated"], setup) == {(project.cases_dir / "simulated.yaml").resolve()}
    assert Path(CONTRACT_SERVER_FILE).exists()
