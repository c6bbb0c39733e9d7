"""How much does reading a catalog cost on top of the server's own start-up?

For each server this measures, as the median of several runs:

- bare: a minimal client (standard library only, no MCP SDK) spawns the server, sends
  ``initialize`` and ``tools/list`` (every page) as raw JSON-RPC lines, closes stdin and waits for
  the process to exit (2 s, then SIGTERM: the SDKs' shutdown). That is the server's own cost:
  start-up, handshake, listing, exit.
- extract: ``mcp_evals.extract_catalog`` in this (warm) process: the same work through our
  transport (plain JSON-RPC for stdio, ``servers/listing.py``), with the protocol negotiation and
  every check.
- cli: ``mcp-evals catalog`` as a fresh process (interpreter start and imports included).

- inspector: the MCP Inspector CLI (``mcp-inspector --cli SERVER --method tools/list``), the same
  job as ``mcp-evals catalog`` by the tool MCP's own project ships, as a fresh process, side by side in
  the same run (``npm ci`` in bench/inspector installs it; without it the column is left empty).

Targets: extract ≤ bare + well under a second; ``mcp-evals catalog`` cold ≤ 0.8 × the Inspector's.

    .venv/bin/python bench/extract.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NODE_BIN = ROOT / "tests" / "reference-servers" / "node_modules" / ".bin"
INSPECTOR = ROOT / "bench" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"

SERVERS: dict[str, list[str]] = {
    "helpdesk example (Python, mcp 2.x)": [sys.executable, str(ROOT / "examples" / "helpdesk" / "server.py")],
    "paging test server (23 tools, 5 per page)": [
        sys.executable,
        str(ROOT / "tests" / "servers" / "paging_server.py"),
    ],
    "mcp-server-time (PyPI)": [sys.executable, "-m", "mcp_server_time"],
    "server-memory (npm)": [str(NODE_BIN / "mcp-server-memory")],
    "server-everything (npm)": [str(NODE_BIN / "mcp-server-everything"), "stdio"],
}


def environment() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LANGUAGE")
    return {key: value for key, value in os.environ.items() if key in keep or key.startswith("LC_")}


def bare(argv: list[str]) -> tuple[float, int]:
    """Spawn, initialize, list every page, close stdin, wait for exit; seconds and tool count."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment()
    )
    assert process.stdin is not None and process.stdout is not None

    def request(message_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(
            (
                json.dumps({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}) + "\n"
            ).encode()
        )
        process.stdin.flush()
        while True:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"{argv[0]} closed stdout")
            message = json.loads(line)
            if message.get("id") == message_id:
                return dict(message.get("result") or {})

    request(
        1,
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            # What mcp-evals declares by default (`client:`), so both list the same tools.
            "capabilities": {
                "roots": {"listChanged": True},
                "sampling": {},
                "elicitation": {"form": {}, "url": {}},
            },
            "clientInfo": {"name": "bench", "version": "0"},
        },
    )
    process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    process.stdin.flush()
    count, cursor, message_id = 0, None, 2
    while True:
        page = request(message_id, "tools/list", {"cursor": cursor} if cursor else {})
        count += len(page.get("tools", []))
        cursor = page.get("nextCursor")
        message_id += 1
        if not cursor:
            break
    process.stdin.close()
    # The shutdown both SDKs (and mcp-evals) do: 2 s to exit after EOF, then SIGTERM, then SIGKILL.
    try:
        process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    process.stdout.close()
    return time.perf_counter() - started, count


def config_file(directory: Path, name: str, argv: list[str]) -> Path:
    path = directory / f"{abs(hash(name))}.yaml"
    path.write_text(
        json.dumps({"servers": [{"name": "bench", "command": argv[0], "args": argv[1:]}]}), "utf-8"
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs

    from mcp_evals import extract_catalog, load_config

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s), median of {runs} runs\n")
    print(
        "| server | tools | bare start-up + listing | extract_catalog | overhead | `mcp-evals catalog` cold "
        "| Inspector CLI | catalog ÷ Inspector |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for name, argv in SERVERS.items():
            if not Path(argv[0]).exists() and argv[0] != sys.executable:
                print(f"| {name} | skipped: run `npm ci` in tests/reference-servers | | | | | | |")
                continue
            config = load_config(config_file(Path(folder), name, argv))
            extract_catalog(config)  # warm the imports and the OS file cache
            bare_times, extract_times, cli_times, inspector_times = [], [], [], []
            tools = 0
            for _ in range(runs):
                seconds, tools = bare(argv)
                bare_times.append(seconds)
                started = time.perf_counter()
                catalog = extract_catalog(config)
                extract_times.append(time.perf_counter() - started)
                assert len(catalog.tools) == tools, (len(catalog.tools), tools)
                started = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "mcp_evals", "catalog", "--config", str(config.path)],
                    check=True,
                    capture_output=True,
                )
                cli_times.append(time.perf_counter() - started)
                if INSPECTOR.exists():
                    started = time.perf_counter()
                    subprocess.run(
                        [str(INSPECTOR), "--cli", *argv, "--method", "tools/list"],
                        check=True,
                        capture_output=True,
                        env=environment(),
                    )
                    inspector_times.append(time.perf_counter() - started)
            b, e, c = (statistics.median(values) for values in (bare_times, extract_times, cli_times))
            row = f"| {name} | {tools} | {b:.2f} s | {e:.2f} s | {e - b:+.2f} s | {c:.2f} s |"
            if inspector_times:
                i = statistics.median(inspector_times)
                row += f" {i:.2f} s | {c / i:.2f}× |"
            else:
                row += " (npm ci in bench/inspector) | |"
            print(row)


if __name__ == "__main__":
    main()
