"""How fast is `mcp-evals lint` on a big catalog?

Generates, in a temporary folder, a 500-tool catalog snapshot (verb × area × noun names, schemas
with ids, enums, `$ref`s, arrays; descriptions built from a shared vocabulary, so many pairs share
words and the all-pairs comparison does real work), 1,000 fixtures and a config reading the
snapshot through a `snapshot:` server. Then it times `mcp-evals lint` as a fresh process (interpreter
start, imports, reading the files and every output format included) and the lint itself in this
process (``lint()`` on the loaded catalog and fixtures).

Target: the lint of a 500-tool catalog in under 2 s.

    .venv/bin/python bench/lint.py [--tools 500] [--fixtures 1000] [--runs 3] [--check]
"""

from __future__ import annotations

import argparse
import random
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
AREAS = [
    "tickets", "customers", "billing", "knowledge", "team", "reports",
    "projects", "files", "calendar", "messages", "admin", "integrations",
]  # fmt: skip
VERBS = ["get", "list", "search", "create", "update", "delete", "archive", "export", "assign", "merge"]
NOUNS = ["item", "record", "entry", "note", "label", "rule", "view", "batch", "event", "link"]
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


def generate(folder: Path, tool_count: int, fixture_count: int) -> None:
    rng = random.Random(20261201)
    names = [f"{verb}_{area}_{noun}" for verb in VERBS for noun in NOUNS for area in AREAS][:tool_count]
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
                "query": f"Please {name.split('_')[0]} the {name.split('_')[2]} R-{number}",
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
    parser.add_argument("--fixtures", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="exit 1 when the target is missed")
    arguments = parser.parse_args()
    command = [sys.executable, "-m", "mcp_evals", "lint"]
    with tempfile.TemporaryDirectory(prefix="mcp-evals-bench-") as temporary:
        folder = Path(temporary)
        generate(folder, arguments.tools, arguments.fixtures)
        walls = []
        for _ in range(arguments.runs):
            started = time.perf_counter()
            result = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
            walls.append(time.perf_counter() - started)
            if result.returncode != 0:
                print(result.stdout[-2000:], result.stderr[-2000:], sep="\n")
                return 1
        print(result.stdout.strip().splitlines()[-1])
        lints = [in_process(folder) for _ in range(arguments.runs)]
    pairs = arguments.tools * (arguments.tools - 1) // 2
    best = min(seconds for seconds, _, _ in lints)
    print(
        f"lint() of {arguments.tools} tools ({pairs:,} pairs) and {arguments.fixtures:,} fixtures: "
        f"{best:.2f} s best of {arguments.runs} ({lints[0][1]:,} findings, {lints[0][2]:,} predicted pairs)"
    )
    print(
        f"mcp-evals lint as a fresh process: {statistics.median(walls):.2f} s median, "
        f"{min(walls):.2f} s best of {arguments.runs} (target < {TARGET_SECONDS:g} s)"
    )
    return 1 if arguments.check and statistics.median(walls) >= TARGET_SECONDS else 0


if __name__ == "__main__":
    sys.exit(main())
