"""How fast is `mcp-evals lint` on a big catalog?

Generates, in a temporary folder, a catalog snapshot, 1,000 fixtures and a config reading the
snapshot through a `snapshot:` server, in one of two shapes:

- ``realistic`` (default): verb × area × noun names, schemas with ids, enums, `$ref`s, arrays;
  descriptions built from a shared vocabulary, so many pairs share words and the pair comparison
  does real work;
- ``near-identical``: what a gateway that mounts one server many times publishes: every tool the
  same but for a number in its name and description (every pair is a near copy).

Then it times `mcp-evals lint` as a fresh process (interpreter start, imports, reading the files and
every output format included; wall and CPU time, and its peak memory) and the lint itself in this
process (``lint()`` on the loaded catalog and fixtures).

Targets: 500 tools in under 2 s; 2,000 tools, either shape, in at most 5 s and 400 MB. `--check`
judges the CPU time (the lint uses one core: on an idle machine that is its wall time; on a shared
machine the wall time measures the neighbours).

    .venv/bin/python bench/lint.py [--tools 500] [--shape realistic] [--fixtures 1000] [--runs 3] [--check]
"""

from __future__ import annotations

import argparse
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

TARGET_SECONDS = 2.0
LARGE_TOOLS = 2000
LARGE_TARGET_SECONDS = 5.0
LARGE_TARGET_MB = 400
AREAS = [
    "tickets", "customers", "billing", "knowledge", "team", "reports",
    "projects", "files", "calendar", "messages", "admin", "integrations",
]  # fmt: skip
VERBS = ["get", "list", "search", "create", "update", "delete", "archive", "export", "assign", "merge"]
NOUNS = ["item", "record", "entry", "note", "label", "rule", "view", "batch", "event", "link"]
# Past the first 1,200 names (VERBS × NOUNS × AREAS), these nouns make more.
MORE_NOUNS = ["job", "task", "form", "page", "team", "queue", "alert", "token", "quota", "slot"]
PHRASES = [
    "for the current workspace", "with its history", "that match the filters", "newest first",
    "including archived ones", "for one customer", "as a CSV file", "with paging", "by id",
    "across every project", "owned by the caller", "in the given time range",
]  # fmt: skip


def wire_tool(name: str, rng: random.Random) -> dict[str, Any]:
    verb, area, noun = name.split("_")
    properties: dict[str, Any] = {
        f"{noun}_id": {"type": "string", "description": f"The {noun} id, e.g. {noun[:3].upper()}-123."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
        "status": {"$ref": "#/$defs/Status"},
        "query": {"type": "string", "description": "Free text."},
        "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags, e.g. ['vip']."},
        "cursor": {"type": "string", "description": "From the previous page."},
    }
    chosen = dict(rng.sample(sorted(properties.items()), k=rng.randint(2, len(properties))))
    description = (
        f"{verb.capitalize()} {area} {noun}s {rng.choice(PHRASES)}, {rng.choice(PHRASES)}. "
        f"Returns the {noun}s; to {rng.choice(VERBS)} them use {rng.choice(VERBS)}_{area}_{noun} instead."
    )
    return {
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": chosen,
            "required": [next(iter(chosen))],
            "$defs": {"Status": {"type": "string", "enum": ["open", "pending", "closed"]}},
        },
    }


def near_identical_tool(number: int) -> dict[str, Any]:
    table = f"t{number:04d}"
    return {
        "name": f"query_table_{table}",
        "description": f"Run a read-only SQL query against warehouse table {table} and return up to 100 "
        "rows as JSON. Use it for questions about that table's rows.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "sql": {"type": "string", "description": f"A SELECT statement on {table}."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
            },
            "required": ["sql"],
        },
    }


def generate(folder: Path, tool_count: int, fixture_count: int, shape: str = "realistic") -> None:
    rng = random.Random(20261201)
    if shape == "near-identical":
        tools = [near_identical_tool(number) for number in range(tool_count)]
        names = [str(tool["name"]) for tool in tools]
    else:
        names = [f"{verb}_{area}_{noun}" for verb in VERBS for noun in NOUNS for area in AREAS]
        names += [f"{verb}_{area}_{noun}" for verb in VERBS for noun in MORE_NOUNS for area in AREAS]
        names = names[:tool_count]
        tools = [wire_tool(name, rng) for name in names]
    write_snapshot(
        build_catalog([ServerInfo(name="big", transport="stdio", tools=tools)]), folder / "big.json"
    )
    fixtures = []
    for number in range(fixture_count):
        if number % 40 == 0:
            fixtures.append(
                {"id": f"fx-{number}", "query": f"Book a table for {number % 7 + 2}", "kind": "refuse"}
            )
            continue
        name = names[number % len(names)]
        fixtures.append(
            {
                "id": f"fx-{number}",
                "query": f"Please {name.split('_')[0]} the {name.split('_')[-1]} R-{number}",
                "expected_tool": name,
            }
        )
    (folder / "fixtures.yaml").write_text(yaml.safe_dump({"fixtures": fixtures}, sort_keys=False), "utf-8")
    config = {
        "servers": [{"name": "big", "snapshot": "big.json"}],
        "fixtures": "fixtures.yaml",
        "lint": {"fail_on": "never"},
    }
    (folder / "mcp-evals.yaml").write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")


def in_process(folder: Path) -> tuple[float, int, int]:
    from mcp_evals.catalog.snapshot import load_catalog
    from mcp_evals.fixtures.load import load_fixtures
    from mcp_evals.lint.engine import lint

    catalog = load_catalog(folder / "big.json")
    fixtures = load_fixtures(folder / "fixtures.yaml")
    started = time.perf_counter()
    report = lint(catalog, fixtures)
    return time.perf_counter() - started, len(report.findings), len(report.predicted_pairs)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--shape", choices=("realistic", "near-identical"), default="realistic")
    parser.add_argument("--fixtures", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="exit 1 when the target is missed")
    arguments = parser.parse_args()
    command = [sys.executable, "-m", "mcp_evals", "lint"]
    with tempfile.TemporaryDirectory(prefix="mcp-evals-bench-") as temporary:
        folder = Path(temporary)
        generate(folder, arguments.tools, arguments.fixtures, arguments.shape)
        walls, cpus = [], []
        for _ in range(arguments.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            result = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
            walls.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            if result.returncode != 0:
                print(result.stdout[-2000:], result.stderr[-2000:], sep="\n")
                return 1
        # The largest child so far: every run lints the same files, so this is one run's peak.
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(result.stdout.strip().splitlines()[-1])
        lints = [in_process(folder) for _ in range(arguments.runs)]
    pairs = arguments.tools * (arguments.tools - 1) // 2
    best = min(seconds for seconds, _, _ in lints)
    print(
        f"lint() of {arguments.tools} {arguments.shape} tools ({pairs:,} pairs) and {arguments.fixtures:,} "
        f"fixtures: {best:.2f} s best of {arguments.runs} ({lints[0][1]:,} findings, {lints[0][2]:,} "
        "predicted pairs)"
    )
    large = arguments.tools >= LARGE_TOOLS
    target_seconds = LARGE_TARGET_SECONDS if large else TARGET_SECONDS
    target = f"target < {target_seconds:g} s" + (f", {LARGE_TARGET_MB} MB" if large else "")
    cpu = statistics.median(cpus)
    print(
        f"mcp-evals lint as a fresh process: {statistics.median(walls):.2f} s wall and {cpu:.2f} s CPU "
        f"(median of {arguments.runs}), {peak_mb:.0f} MB peak ({target})"
    )
    # The lint runs on one core: on an idle machine its wall time is its CPU time; on a shared one the
    # wall time measures the neighbours, so the target is checked on CPU time.
    missed = cpu >= target_seconds or (large and peak_mb > LARGE_TARGET_MB)
    return 1 if arguments.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
