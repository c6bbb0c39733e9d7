"""A run killed with SIGKILL resumes without redoing or losing a fixture; keys never reach a server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import Cli, Project
from fakes.fake_anthropic import FakeAnthropic
from mcp_evals.record.read import read_results

HERE = Path(__file__).resolve().parent


def finished_lines(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines() if line.endswith("}")) - 1


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_mid_run_then_resume_finishes_without_redoing_or_losing_a_fixture(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.latency = 0.1
    env = {key: value for key, value in os.environ.items()}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_evals",
            "run",
            "--config",
            str(project.config),
            "--results",
            str(project.results),
            "--concurrency",
            "2",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while finished_lines(project.results) < 9 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)  # no cleanup, no flush, mid-request
        assert process.wait(timeout=10) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
    killed = read_results(project.results)
    done = {row.fixture_id for row in killed.results if row.reached}
    assert 9 <= len(done) < 56
    asked_before = len(anthropic_fake.model_requests())

    anthropic_fake.latency = 0.0
    resumed = cli("run", "--config", project.config, "--results", project.results, "--resume")
    assert resumed.code == 0, resumed.err

    ids_by_query = {fixture.query: fixture.id for fixture in killed.header.fixtures}
    asked_after = [ids_by_query[request.query] for request in anthropic_fake.model_requests()[asked_before:]]
    assert not set(asked_after) & done  # nothing finished was asked again
    assert len(asked_after) == len(set(asked_after)) == 56 - len(done)
    final = read_results(project.results)
    assert sorted(row.fixture_id for row in final.results) == sorted(ids_by_query.values())  # once each
    assert all(row.reached for row in final.results)
    raw = [line for line in project.results.read_text().splitlines() if '"type":"result"' in line]
    assert len(raw) == 56  # the file was rewritten: no duplicate lines either


def test_resume_keeps_a_last_answer_that_lacks_its_newline(
    project: Project, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    """The twin of the session records' case: a whole last line without its newline is an answer (a run
    that starts rewrites the file whole, header and kept answers, so nothing is appended to it)."""
    assert cli("run", "--config", project.config, "--results", project.results).code == 0
    project.results.write_bytes(project.results.read_bytes().rstrip(b"\n"))
    asked = len(anthropic_fake.model_requests())
    resumed = cli("run", "--config", project.config, "--results", project.results, "--resume")
    assert resumed.code == 0, resumed.err
    assert len(anthropic_fake.model_requests()) == asked  # all 56 kept, none asked again
    final = read_results(project.results)
    assert len(final.results) == 56 and all(row.reached for row in final.results)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX here")
@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["INT", "TERM"])
def test_ctrl_c_keeps_what_finished_and_says_how_to_resume(
    project: Project, anthropic_fake: FakeAnthropic, sent: signal.Signals, code: int
) -> None:
    """Ctrl-C, and SIGTERM (what CI time-outs send) the same way."""
    anthropic_fake.latency = 0.1
    command = ["run", "--config", project.config, "--results", project.results, "--concurrency", "1"]
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_evals", *map(str, command)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 30
        while finished_lines(project.results) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(sent)
        _, stderr = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == code
    assert "stopped, " in stderr and "mcp-evals run --resume" in stderr and "Traceback" not in stderr
    assert 3 <= sum(row.reached for row in read_results(project.results).results) < 56


def test_api_keys_never_reach_the_server_process(
    tmp_path: Path, anthropic_fake: FakeAnthropic, cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    clean_env.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    clean_env.setenv("OPENAI_API_KEY", "sk-openai-should-not-leak")
    config = tmp_path / "mcp-evals.yaml"
    (tmp_path / "fixtures.yaml").write_text(
        yaml.safe_dump(
            {"fixtures": [{"id": "t1", "query": "Show ticket 7", "expected_tools": ["get_ticket"]}]}
        )
    )
    config.write_text(
        yaml.safe_dump(
            {
                "servers": [
                    {
                        "name": "probe",
                        "command": "python",
                        "args": [str(HERE.parent / "servers" / "env_server.py")],
                    }
                ],
                "fixtures": "fixtures.yaml",
            }
        )
    )
    result = cli("run", "--config", config, "--results", tmp_path / "results.ndjson")
    assert result.code == 0, result.err
    description = read_results(tmp_path / "results.ndjson").header.catalog.tools[0].description
    assert "ANTHROPIC_API_KEY=absent" in description and "OPENAI_API_KEY=absent" in description
    assert "ANTHROPIC_BASE_URL=absent" in description
    request = anthropic_fake.model_requests()[0]
    assert request.headers["x-api-key"] == anthropic_fake.key  # the run itself did use the key
