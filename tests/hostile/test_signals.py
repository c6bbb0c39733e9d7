"""SIGTERM (what CI time-outs send) is handled as Ctrl-C: the servers a command started are stopped,
what finished is kept, and the exit status says which signal it was (143; 130 for Ctrl-C)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import cli_environment
from mcp_evals.contract.history import History

from .conftest import HostileProject, tool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def alive(pid: int) -> bool:
    """Running, not a zombie (an orphan's zombie waits for an init that may never reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_for(predicate: object, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.05)
    assert predicate(), "timed out"  # type: ignore[operator]


# contract's step and lint --probe's call: each waits on the hanging tool when the signal comes
COMMANDS = {"contract": ["contract", "--timeout", "60000"], "lint --probe": ["lint", "--probe"]}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("sent", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["TERM", "INT"])
def test_a_signal_during_a_hanging_call_stops_the_server(
    hostile: HostileProject, sent: signal.Signals, code: int, command: str
) -> None:
    hostile.serve([tool("lookup", {"q": {"type": "string"}})], calls={"lookup": "hang"})
    hostile.configure([{"id": "a", "query": "look it up", "expected_tools": ["lookup"]}])
    hostile.case("hangs", [{"id": "a", "tool": "lookup", "input": {"q": "x"}}])
    calls = Path(f"{hostile.spec}.calls")
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_evals", *COMMANDS[command], "--config", str(hostile.config)],
        env=cli_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # the default SIGINT disposition, as in a terminal (a background job would ignore it)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        wait_for(lambda: calls.exists() and "lookup" in calls.read_text())
        server = hostile.pids()[-1]  # lint lists the catalog with a server of its own first
        assert alive(server)
        process.send_signal(sent)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == code, err
    assert "Traceback" not in err
    wait_for(lambda: not any(alive(pid) for pid in hostile.pids()), seconds=5)
    history = hostile.root / ".mcp-evals" / "history.db"
    assert not history.exists() or History(history).summaries() == []  # an unfinished run is not recorded
