"""How fast is `mcp-evals validate` on a big project?

Generates, in a temporary folder, a 300-tool catalog snapshot (12 areas, realistic schemas with
enums, `$ref`s and required parameters), a config reading it through a `snapshot:` server, and
10,000 fixtures in YAML (select, refuse and clarify; literal and matcher `expected_args`; patterns),
then runs `mcp-evals validate` as a fresh process several times. Reports wall time (median and best)
and peak RSS of the child (``resource.getrusage(RUSAGE_CHILDREN)``), interpreter start and imports
included, plus its CPU time (what the wall time would be on an otherwise idle machine). The
fixture set is valid, so every rule runs over every fixture.

Target: ≤ 3 s wall and ≤ 250 MB peak RSS on a 2-core machine.

    .venv/bin/python bench/validate.py [--tools 300] [--fixtures 10000] [--runs 5] [--json] [--check]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from mcp_evals.catalog.model import ServerInfo, build_catalog
from mcp_evals.catalog.snapshot import write_snapshot

TARGET_SECONDS = 3.0
TARGET_MB = 250.0
AREAS = [
    "tickets", "customers", "billing", "knowledge", "team", "reports",
    "projects", "files", "calendar", "messages", "admin", "integrations",
]  # fmt: skip
VERBS = ["get", "list", "search", "create", "update", "delete", "archive", "export", "assign", "merge"]
NOUNS = ["item", "record", "entry", "note", "label", "rule", "view", "batch", "event", "link"]
WORDS = [
    "please", "could", "you", "show", "me", "find", "the", "latest", "open", "closed", "about", "our",
    "account", "from", "last", "week", "for", "team", "customer", "invoice", "ticket", "project", "file",
    "meeting", "message", "report", "admin", "export", "with", "urgent", "priority",
]  # fmt: skip


def tool_names(count: int) -> list[str]:
    names = [f"{verb}_{area}_{noun}" for verb in VERBS for noun in NOUNS for area in AREAS]
    return names[:count]


def wire_tool(name: str, rng: random.Random) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "id": {"type": "string", "description": "The identifier, e.g. ABC-123."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
        "status": {"$ref": "#/$defs/Status"},
        "query": {"type": "string", "description": "Free text."},
        "include_archived": {"type": "boolean", "default": False},
        "tags": {"type": "array", "items": {"type": "string"}},
        "amount": {"anyOf": [{"type": "number"}, {"type": "null"}]},
    }
    chosen = dict(rng.sample(sorted(properties.items()), k=rng.randint(3, len(properties))))
    chosen.setdefault("query", properties["query"])
    chosen.setdefault("status", properties["status"])
    chosen.setdefault("limit", properties["limit"])
    return {
        "name": name,
        "description": f"{name.replace('_', ' ').capitalize()}. Use it when the user asks to "
        f"{name.split('_')[0]} one or more {name.split('_', 1)[1].replace('_', ' ')}s.",
        "inputSchema": {
            "type": "object",
            "properties": chosen,
            "required": ["query"],
            "$defs": {"Status": {"type": "string", "enum": ["open", "pending", "closed"]}},
        },
    }


def fixture(number: int, tools: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
    query = f"{words} #{number}"
    if number % 53 == 0:
        return {"id": f"fx-{number:05d}", "query": query, "kind": "refuse", "notes": "nothing fits"}
    if number % 47 == 1:
        return {"id": f"fx-{number:05d}", "query": query, "kind": "clarify"}
    tool = tools[(number // 3) % len(tools)]  # each tool in turn, once per pattern
    properties = tool["inputSchema"]["properties"]
    expected_args: dict[str, Any] = {"query": {"contains": rng.choice(WORDS)}}
    if "status" in properties:
        expected_args["status"] = rng.choice(["open", "closed", {"one_of": ["open", "pending"]}])
    if "limit" in properties:
        expected_args["limit"] = rng.randint(1, 100)
    if "id" in properties and number % 3 == 0:
        expected_args["id"] = {"regex": r"^[A-Z]+-\d+$"}
    if "amount" in properties and number % 4 == 0:
        expected_args["amount"] = round(rng.uniform(1, 500), 2)
    return {
        "id": f"fx-{number:05d}",
        "query": query,
        "expected_tool": tool["name"],
        "pattern": ("specific", "category", "boundary")[number % 3],
        "expected_args": expected_args,
    }


def generate(folder: Path, tool_count: int, fixture_count: int, files: int = 20) -> None:
    rng = random.Random(20260101)
    tools = [wire_tool(name, rng) for name in tool_names(tool_count)]
    catalog = build_catalog([ServerInfo(name="big", transport="stdio", tools=tools)])
    write_snapshot(catalog, folder / "big.catalog.json")
    fixtures = [fixture(number, tools, rng) for number in range(fixture_count)]
    (folder / "fixtures").mkdir()
    per_file = -(-fixture_count // files)
    for index in range(files):
        chunk = fixtures[index * per_file : (index + 1) * per_file]
        text = yaml.safe_dump({"fixtures": chunk}, sort_keys=False, allow_unicode=True, width=200)
        (folder / "fixtures" / f"part-{index:02d}.yaml").write_text(text, "utf-8")
    config = {
        "servers": [{"name": "big", "snapshot": "big.catalog.json"}],
        "areas": {area: [f"*_{area}_*"] for area in AREAS},
        "fixtures": "fixtures/*.yaml",
        "validation": {
            "min_fixtures": fixture_count,
            "min_areas": len(AREAS),
            "min_per_tool": 5,
            "require_all_tools": True,
            "min_per_pattern": {"specific": 1, "category": 1, "boundary": 1},
        },
    }
    (folder / "mcp-evals.yaml").write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")


def run_once(folder: Path) -> tuple[float, float, float, subprocess.CompletedProcess[str]]:
    """One fresh `mcp-evals validate`: wall seconds, CPU seconds, peak RSS in MB, the result."""
    command = [str(Path(sys.executable).parent / "mcp-evals"), "validate"]
    if not Path(command[0]).exists():
        command = [sys.executable, "-m", "mcp_evals", "validate"]
    # A fork per run: RUSAGE_CHILDREN's ru_maxrss is the largest child so far, so measure each
    # run from a fresh intermediate process that reports its own children's peak.
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: run the command, report wall time and its child's peak RSS, exit
        os.close(reader)
        started = time.perf_counter()
        result = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = usage.ru_utime + usage.ru_stime
        payload = f"{elapsed} {cpu}\n{usage.ru_maxrss}\n{result.returncode}\n{result.stdout}\0{result.stderr}"
        os.write(writer, payload.encode())
        os._exit(0)
    os.close(writer)
    chunks = []
    while chunk := os.read(reader, 65536):
        chunks.append(chunk)
    os.close(reader)
    os.waitpid(pid, 0)
    times_text, peak_text, code_text, rest = b"".join(chunks).decode().split("\n", 3)
    stdout, stderr = rest.split("\0", 1)
    result = subprocess.CompletedProcess(command, int(code_text), stdout, stderr)
    elapsed, cpu = (float(part) for part in times_text.split())
    return elapsed, cpu, int(peak_text) / 1024, result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tools", type=int, default=300)
    parser.add_argument("--fixtures", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mcp-evals-bench-") as temporary:
        folder = Path(temporary)
        started = time.perf_counter()
        generate(folder, arguments.tools, arguments.fixtures)
        size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
        print(
            f"generated {arguments.tools} tools and {arguments.fixtures:,} fixtures "
            f"({size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f} s"
        )
        times, cpus, peaks = [], [], []
        for _ in range(arguments.runs):
            elapsed, cpu, peak_mb, result = run_once(folder)
            if result.returncode != 0:
                print(result.stdout[-2000:], result.stderr[-2000:], sep="\n")
                print(f"mcp-evals validate exited {result.returncode}; the generated set should be valid")
                return 1
            times.append(elapsed)
            cpus.append(cpu)
            peaks.append(peak_mb)
        print(result.stdout.strip().splitlines()[-1])
    wall, best, peak = statistics.median(times), min(times), max(peaks)
    print(
        f"mcp-evals validate: wall {wall:.2f} s median, {best:.2f} s best of {arguments.runs} "
        f"(target ≤ {TARGET_SECONDS:g} s); CPU {statistics.median(cpus):.2f} s median; "
        f"peak RSS {peak:.0f} MB (target ≤ {TARGET_MB:g} MB); {os.cpu_count()} CPUs, "
        f"Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}"
    )
    missed = wall > TARGET_SECONDS or peak > TARGET_MB
    if missed:
        print("TARGET MISSED")
    return 1 if missed and arguments.check else 0


if __name__ == "__main__":
    sys.exit(main())
