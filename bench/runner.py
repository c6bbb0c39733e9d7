"""Runner benchmarks against the fake Anthropic API (tests/fakes/fake_anthropic.py).

    .venv/bin/python bench/runner.py            # all four
    .venv/bin/python bench/runner.py --quick    # smaller sizes, for a smoke check

1. throughput: 200 fixtures at concurrency 8 with a fixed 200 ms latency; target ≤ 1.15 × the ideal
   200 × 0.2 s / 8 = 5 s;
2. harness overhead: CPU time of the runner process per fixture (the fake runs in another process);
   target < 5 ms;
3. memory: 10,000 fixtures at concurrency 64 through the real CLI (`mcp-evals run` in a subprocess);
   target < 300 MB peak RSS;
4. prompt caching: billable input tokens (cache writes at 1.25×, reads at 0.1×) for a 60-tool
   catalog at 50 fixtures, cached vs uncached; target ≤ 0.2×.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fakes"))

from fake_anthropic import API_KEY, FakeAnthropic  # noqa: E402

from mcp_evals.answers import GenerateOptions, Usage  # noqa: E402
from mcp_evals.catalog.model import Catalog, ServerInfo, Tool  # noqa: E402
from mcp_evals.catalog.snapshot import write_snapshot  # noqa: E402
from mcp_evals.fixtures.model import Fixture  # noqa: E402
from mcp_evals.providers.anthropic import AnthropicProvider  # noqa: E402
from mcp_evals.providers.base import ProviderSettings, Secret  # noqa: E402
from mcp_evals.providers.pricing import find_price  # noqa: E402
from mcp_evals.record.read import read_results  # noqa: E402
from mcp_evals.run.retry import RetryPolicy  # noqa: E402
from mcp_evals.run.runner import RunSettings, run_fixtures  # noqa: E402

AREAS = ["tickets", "customers", "billing", "knowledge", "team", "reports"]
VERBS = ["search", "get", "list", "create", "update", "delete", "assign", "export", "archive", "merge"]
MODEL = "claude-opus-4-8"


def bench_catalog(tools: int) -> Catalog:
    """A realistic catalog: descriptive names, a few sentences each, 3–5 described parameters."""
    items = []
    for index in range(tools):
        area = AREAS[index % len(AREAS)]
        verb = VERBS[index // len(AREAS) % len(VERBS)]
        name = f"{verb}_{area}_{index}"
        properties: dict[str, Any] = {
            f"{area}_id": {
                "type": "string",
                "description": f"The id of the {area} record, e.g. {area[:3]}_1042.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "How many results at most.",
            },
            "status": {
                "type": "string",
                "enum": ["open", "pending", "closed"],
                "description": "Filter by status.",
            },
        }
        if index % 2:
            properties["query"] = {
                "type": "string",
                "description": "Free-text words to match in titles and bodies.",
            }
        if index % 3 == 0:
            properties["since"] = {
                "type": "string",
                "format": "date",
                "description": "Only records changed after.",
            }
        items.append(
            Tool(
                name=name,
                description=(
                    f"{verb.capitalize()} {area} records in the helpdesk. Use this when the user wants "
                    f"to {verb} one or more {area} by id, status or free text; it returns the matching "
                    "records with their owners, timestamps and links. Do not use it for other areas: "
                    "each area has its own tools."
                ),
                input_schema={"type": "object", "properties": properties, "required": [f"{area}_id"]},
                server="bench",
                wire_name=name,
            )
        )
    wire = [
        {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}
        for tool in items
    ]
    return Catalog(tools=items, servers=[ServerInfo(name="bench", transport="stdio", tools=wire)])


def bench_fixtures(catalog: Catalog, count: int) -> list[Fixture]:
    tools = catalog.tools
    return [
        Fixture(
            id=f"f{index:05d}",
            query=f"Could you {tools[index % len(tools)].name.split('_')[0]} record {index} for me, please?",
            expected_tools=[tools[index % len(tools)].name],
        )
        for index in range(count)
    ]


class FakeProcess:
    """The fake API in its own process, so its CPU and memory do not count against the runner."""

    def __init__(self, latency: float) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(REPO / "tests" / "fakes" / "fake_anthropic.py"), "--latency", str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)


SYSTEM = "Route helpdesk requests to exactly one tool."


def provider(base_url: str, *, connections: int = 16) -> AnthropicProvider:
    settings = ProviderSettings(
        model=MODEL, base_url=base_url, api_key=Secret(API_KEY), max_connections=connections
    )
    return AnthropicProvider(settings)


def options(*, caching: bool = True) -> GenerateOptions:
    return GenerateOptions(cache="prefix" if caching else "off")


def throughput(fixtures: int, concurrency: int, latency: float, workdir: Path) -> dict[str, Any]:
    fake = FakeProcess(latency)
    try:
        catalog = bench_catalog(22)
        planned = bench_fixtures(catalog, fixtures)
        settings = RunSettings(
            concurrency=concurrency, retry=RetryPolicy(max_attempts=2), price=find_price(MODEL)
        )
        cpu = time.process_time()
        started = time.perf_counter()
        outcome = anyio.run(
            lambda: run_fixtures(
                provider(fake.base_url, connections=concurrency + 2),
                catalog,
                planned,
                workdir / "throughput.ndjson",
                settings,
                system_prompt=SYSTEM,
                options=options(),
            )
        )
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
    finally:
        fake.close()
    ideal = fixtures * latency / concurrency
    return {
        "fixtures": fixtures,
        "concurrency": concurrency,
        "reached": outcome.reached,
        "wall_s": round(wall, 3),
        "ideal_s": ideal,
        "ratio": round(wall / ideal, 3) if ideal else None,
        "cpu_ms_per_fixture": round(1000 * cpu / fixtures, 2),
        "wall_overhead_ms_per_fixture": round(1000 * (wall - ideal) * concurrency / fixtures, 2),
    }


def memory(fixtures: int, concurrency: int, latency: float, workdir: Path) -> dict[str, Any]:
    fake = FakeProcess(latency)
    try:
        catalog = bench_catalog(22)
        snapshot = workdir / "catalog.json"
        write_snapshot(catalog, snapshot)
        planned = bench_fixtures(catalog, fixtures)
        (workdir / "fixtures.yaml").write_text(
            yaml.safe_dump({"fixtures": [f.model_dump(mode="json", exclude_defaults=True) for f in planned]})
        )
        config = workdir / "mcp-evals.yaml"
        config.write_text(
            yaml.safe_dump(
                {"servers": [{"name": "bench", "snapshot": str(snapshot)}], "fixtures": "fixtures.yaml"}
            )
        )
        results = workdir / "memory.ndjson"
        env = {**os.environ, "ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        started = time.perf_counter()
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mcp_evals",
                "run",
                "--config",
                str(config),
                "--results",
                str(results),
                "--concurrency",
                str(concurrency),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        stderr = process.stderr.read() if process.stderr else ""
    finally:
        fake.close()
    if not results.exists():
        raise SystemExit(f"mcp-evals run failed (exit {code}):\n{stderr}")
    reached = sum(1 for row in read_results(results).results if row.reached)
    return {
        "fixtures": fixtures,
        "concurrency": concurrency,
        "exit_code": code,
        "reached": reached,
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),  # Linux: KiB
        "stderr_tail": stderr.strip().splitlines()[-1:] if code not in (0, 1) else [],
    }


def caching(tools: int, fixtures: int, workdir: Path) -> dict[str, Any]:
    catalog = bench_catalog(tools)
    planned = bench_fixtures(catalog, fixtures)
    totals: dict[str, Usage] = {}
    with FakeAnthropic() as fake:
        for label, enabled in (("cached", True), ("uncached", False)):
            fake.cache.clear()
            settings = RunSettings(concurrency=8, price=find_price(MODEL))
            path = workdir / f"{label}.ndjson"
            ask = partial(run_fixtures, system_prompt=SYSTEM, options=options(caching=enabled))
            anyio.run(ask, provider(fake.base_url), catalog, planned, path, settings)
            usage = Usage()
            for row in read_results(path).results:
                usage = usage + row.usage
            totals[label] = usage

    def billable(usage: Usage) -> float:
        return usage.input_tokens + 1.25 * usage.cache_write_tokens + 0.1 * usage.cache_read_tokens

    cached, uncached = billable(totals["cached"]), billable(totals["uncached"])
    return {
        "tools": tools,
        "fixtures": fixtures,
        "prompt_tokens_per_request": totals["uncached"].total_input // fixtures,
        "billable_input_cached": int(cached),
        "billable_input_uncached": int(uncached),
        "ratio": round(cached / uncached, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke check, not the targets)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of lines")
    args = parser.parse_args()
    big = 1_000 if args.quick else 10_000
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        report["throughput"] = throughput(200, 8, 0.2, workdir)
        report["overhead"] = throughput(500, 1, 0.0, workdir)
        report["memory"] = memory(big, 64, 0.2, workdir)
        report["caching"] = caching(60, 50, workdir)
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report["bench_process_peak_rss_mb"] = round(peak_self, 1)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    t, o, m, c = report["throughput"], report["overhead"], report["memory"], report["caching"]
    print(
        f"throughput: {t['fixtures']} fixtures, concurrency {t['concurrency']}, 200 ms latency: "
        f"{t['wall_s']} s (ideal {t['ideal_s']:.1f} s, {t['ratio']}×; target ≤ 1.15×)"
    )
    print(
        f"overhead: {t['cpu_ms_per_fixture']} ms CPU per fixture at concurrency 8; "
        f"{o['cpu_ms_per_fixture']} ms CPU and {o['wall_s'] * 1000 / o['fixtures']:.2f} ms wall per fixture "
        "at 0 ms latency, concurrency 1 "
        "(target < 5 ms)"
    )
    print(
        f"memory: {m['fixtures']} fixtures, concurrency {m['concurrency']} through `mcp-evals run`: peak RSS "
        f"{m['peak_rss_mb']} MB (target < 300 MB), {m['wall_s']} s, {m['reached']} reached, "
        f"exit {m['exit_code']}"
    )
    print(
        f"caching: {c['tools']} tools, {c['fixtures']} fixtures, {c['prompt_tokens_per_request']} prompt "
        f"tokens per request: billable input {c['billable_input_cached']:,} cached vs "
        f"{c['billable_input_uncached']:,} uncached = {c['ratio']}× (target ≤ 0.2×)"
    )


if __name__ == "__main__":
    main()
