"""Runner benchmarks against the fake Anthropic API (tests/fakes/fake_anthropic.py).

    .venv/bin/python bench/runner.py            # all four
    .venv/bin/python bench/runner.py --quick    # smaller sizes, for a smoke check
    .venv/bin/python bench/runner.py --throughput 16x500 --runs 5   # throughput only, side by side
    .venv/bin/python bench/runner.py --throughput 8x200,16x500,32x1000

1. throughput: 500 fixtures at concurrency 16 with a fixed 200 ms latency; target ≤ 1.05 × the ideal
   500 × 0.2 s / 16 = 6.25 s. Measured side by side, in turns, with a bare client: the same request
   bytes through one plain httpx pool with no runner, scheduled as the runner schedules them (one
   request alone, the cache warm-up, then up to C at a time). The bare client is what the fake, the
   loopback and the machine deliver; runner ÷ bare client is the runner's own cost. The schedule's
   floor, (1 + ⌈(N − 1) / C⌉) × latency, is what no client that warms the cache first can beat: at
   16 × 500 it is 33 rounds, 6.6 s = 1.056 × the ideal (the warm-up's round, and a last round of 3);
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
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import httpx
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fakes"))

from fake_anthropic import API_KEY, FakeAnthropic  # noqa: E402

from mcp_evals.answers import GenerateOptions, ToolChoice, Usage  # noqa: E402
from mcp_evals.catalog.model import Catalog, ServerInfo, Tool  # noqa: E402
from mcp_evals.catalog.snapshot import write_snapshot  # noqa: E402
from mcp_evals.fixtures.model import Fixture  # noqa: E402
from mcp_evals.providers.anthropic import AnthropicProvider  # noqa: E402
from mcp_evals.providers.base import ProviderSettings, Secret  # noqa: E402
from mcp_evals.providers.pricing import find_price  # noqa: E402
from mcp_evals.record.read import read_results  # noqa: E402
from mcp_evals.run.asker import Asker  # noqa: E402
from mcp_evals.run.retry import RetryPolicy  # noqa: E402
from mcp_evals.run.runner import RunSettings, run_eval  # noqa: E402

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

    def cpu_s(self) -> float | None:
        """The fake's CPU time so far (user + system; Linux), to see whether the fake is the bottleneck."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

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
        fake_cpu = fake.cpu_s()
        cpu = time.process_time()
        started = time.perf_counter()
        outcome = anyio.run(
            lambda: run_eval(
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
        fake_cpu = _spent(fake_cpu, fake.cpu_s())
    finally:
        fake.close()
    ideal = fixtures * latency / concurrency
    return {
        "fixtures": fixtures,
        "concurrency": concurrency,
        "reached": outcome.reached,
        "wall_s": round(wall, 3),
        "ideal_s": ideal,
        "floor_s": round(schedule_floor(fixtures, concurrency, latency), 3),
        "ratio": round(wall / ideal, 3) if ideal else None,
        "cpu_ms_per_fixture": round(1000 * cpu / fixtures, 2),
        "fake_cpu_ms_per_request": round(1000 * fake_cpu / fixtures, 2) if fake_cpu is not None else None,
        "wall_overhead_ms_per_fixture": round(1000 * (wall - ideal) * concurrency / fixtures, 2),
    }


def schedule_floor(fixtures: int, concurrency: int, latency: float) -> float:
    """The least wall time of the runner's schedule: the warm-up request alone, then rounds of C."""
    return (1 + math.ceil(max(0, fixtures - 1) / concurrency)) * latency if fixtures else 0.0


def _spent(before: float | None, after: float | None) -> float | None:
    return after - before if before is not None and after is not None else None


def bare_client(fixtures: int, concurrency: int, latency: float) -> dict[str, Any]:
    """The runner's requests (the same bytes) through one plain httpx pool: no runner, no retries, no
    record; one request alone first, then ``concurrency`` workers, as the runner schedules them."""
    fake = FakeProcess(latency)
    try:
        catalog = bench_catalog(22)
        planned = bench_fixtures(catalog, fixtures)
        asker = Asker(provider(fake.base_url), catalog, SYSTEM, options())
        forced = ToolChoice.of("forced")
        bodies = [
            asker.provider._request(asker.messages(fixture.query), asker.tools, forced, asker.options).body
            for fixture in planned
        ]
        headers = {
            "x-api-key": API_KEY,
            "anthropic-version": "2023-06-01",
            "content-type": "application/json",
        }
        latencies: list[float] = []

        async def run() -> None:
            limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
            async with httpx.AsyncClient(base_url=fake.base_url, limits=limits) as client:

                async def send(body: bytes) -> None:
                    sent = time.perf_counter()
                    response = await client.post("/v1/messages", content=body, headers=headers)
                    latencies.append(time.perf_counter() - sent)
                    if response.status_code != 200:
                        raise SystemExit(f"the fake answered {response.status_code}: {response.text[:200]}")

                await send(bodies[0])
                pending = iter(bodies[1:])

                async def worker() -> None:
                    for body in pending:
                        await send(body)

                async with anyio.create_task_group() as group:
                    for _ in range(concurrency):
                        group.start_soon(worker)

        fake_cpu = fake.cpu_s()
        cpu = time.process_time()
        started = time.perf_counter()
        anyio.run(run)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        fake_cpu = _spent(fake_cpu, fake.cpu_s())
    finally:
        fake.close()
    return {
        "wall_s": round(wall, 3),
        "cpu_ms_per_fixture": round(1000 * cpu / fixtures, 2),
        "fake_cpu_ms_per_request": round(1000 * fake_cpu / fixtures, 2) if fake_cpu is not None else None,
        "latency_ms_median": round(1000 * statistics.median(latencies), 1),
    }


def side_by_side(
    sizes: list[tuple[int, int]], latency: float, runs: int, workdir: Path
) -> list[dict[str, Any]]:
    """Each size ``runs`` times, the bare client and the runner in turns (so both see the same machine),
    with medians: on a shared machine a single run says little. Each run is a fresh process that has
    imported the library, as ``mcp-evals run`` has when its run starts: what a run imports on first
    use (the event loop's backend, the HTTP stack) is part of its wall time."""
    rows = []
    for concurrency, fixtures in sizes:
        bare: list[dict[str, Any]] = []
        ours: list[dict[str, Any]] = []
        for _ in range(runs):
            bare.append(measure_in_process("bare", concurrency, fixtures, latency))
            ours.append(measure_in_process("runner", concurrency, fixtures, latency))
        ideal = fixtures * latency / concurrency

        def median(runs: list[dict[str, Any]], key: str) -> float:
            values = [run[key] for run in runs if run[key] is not None]
            return float(statistics.median(values)) if values else float("nan")

        wall, bare_wall = median(ours, "wall_s"), median(bare, "wall_s")
        rows.append(
            {
                "concurrency": concurrency,
                "fixtures": fixtures,
                "runs": runs,
                "ideal_s": ideal,
                "floor_s": round(schedule_floor(fixtures, concurrency, latency), 3),
                "runner_wall_s": round(wall, 3),
                "runner_ratio": round(wall / ideal, 3),
                "runner_ratio_range": [
                    round(min(r["wall_s"] for r in ours) / ideal, 3),
                    round(max(r["wall_s"] for r in ours) / ideal, 3),
                ],
                "bare_wall_s": round(bare_wall, 3),
                "bare_ratio": round(bare_wall / ideal, 3),
                "runner_over_bare": round(
                    statistics.median(o["wall_s"] / b["wall_s"] for o, b in zip(ours, bare, strict=True)), 3
                ),
                "runner_cpu_ms_per_fixture": round(median(ours, "cpu_ms_per_fixture"), 2),
                "bare_cpu_ms_per_fixture": round(median(bare, "cpu_ms_per_fixture"), 2),
                "fake_cpu_ms_per_request": round(median(ours, "fake_cpu_ms_per_request"), 2),
                "fake_latency_ms_median": round(median(bare, "latency_ms_median"), 1),
                "reached": [run["reached"] for run in ours],
                "load_average": [round(value, 1) for value in os.getloadavg()],
            }
        )
    return rows


def measure_in_process(kind: str, concurrency: int, fixtures: int, latency: float) -> dict[str, Any]:
    """One run of the runner or the bare client in a fresh Python process (see ``side_by_side``)."""
    command = [sys.executable, __file__, "--measure", kind, "--throughput", f"{concurrency}x{fixtures}"]
    done = subprocess.run(
        [*command, "--latency", str(latency)], capture_output=True, text=True, check=False, env=os.environ
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def print_side_by_side(rows: list[dict[str, Any]], latency: float) -> None:
    runs = rows[0]["runs"] if rows else 0
    print(
        f"throughput, fake API at {latency * 1000:g} ms, median of {runs} (bare client and runner in turns), "
        "ratios to the ideal N × latency / C:"
    )
    print(
        "      C      N   ideal  schedule floor     bare client  runner (min–max)             runner÷bare"
        "  CPU ms/fixture runner·bare·fake  fake latency  load"
    )
    for row in rows:
        low, high = row["runner_ratio_range"]
        print(
            f"  {row['concurrency']:5d} {row['fixtures']:6d} {row['ideal_s']:6.2f} s"
            f"  {row['floor_s']:5.2f} s {row['floor_s'] / row['ideal_s']:.3f}×"
            f"  {row['bare_wall_s']:5.2f} s {row['bare_ratio']:.3f}×"
            f"  {row['runner_wall_s']:5.2f} s {row['runner_ratio']:.3f}× ({low:.3f}–{high:.3f})"
            f"  {row['runner_over_bare']:.3f}×"
            f"        {row['runner_cpu_ms_per_fixture']:.2f} · {row['bare_cpu_ms_per_fixture']:.2f}"
            f" · {row['fake_cpu_ms_per_request']:.2f}"
            f"          {row['fake_latency_ms_median']:.1f} ms  {row['load_average'][0]}"
        )


def parse_sizes(text: str) -> list[tuple[int, int]]:
    """``16x500,8x200`` → [(16, 500), (8, 200)] (concurrency × fixtures)."""
    sizes = []
    for part in text.split(","):
        concurrency, _, fixtures = part.strip().partition("x")
        if not (concurrency.isdigit() and fixtures.isdigit() and int(concurrency) and int(fixtures)):
            raise argparse.ArgumentTypeError(f"{part!r}: write sizes as CxN, e.g. 16x500")
        sizes.append((int(concurrency), int(fixtures)))
    return sizes


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
                # Named, not picked from the key: a picked paid provider is capped at $1 by default,
                # which would stop the run after a few hundred fixtures.
                "--provider",
                "anthropic",
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
            ask = partial(run_eval, system_prompt=SYSTEM, options=options(caching=enabled))
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
    parser.add_argument(
        "--throughput",
        type=parse_sizes,
        metavar="CxN[,CxN…]",
        help="only the throughput benchmark, at these sizes (concurrency x fixtures), e.g. 16x500",
    )
    parser.add_argument("--runs", type=int, default=3, help="runs of each size, in turns (median; default 3)")
    parser.add_argument("--latency", type=float, default=0.2, help="the fake's latency in seconds (0.2)")
    parser.add_argument("--measure", choices=["runner", "bare"], help=argparse.SUPPRESS)  # one run, JSON
    args = parser.parse_args()
    if args.measure:
        [(concurrency, fixtures)] = args.throughput
        with tempfile.TemporaryDirectory() as folder:
            if args.measure == "runner":
                result = throughput(fixtures, concurrency, args.latency, Path(folder))
            else:
                result = bare_client(fixtures, concurrency, args.latency)
        print(json.dumps(result))
        return
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        if args.throughput:
            rows = side_by_side(args.throughput, args.latency, max(1, args.runs), workdir)
            if args.json:
                print(json.dumps(rows, indent=2))
            else:
                print_side_by_side(rows, args.latency)
            return
        big = 1_000 if args.quick else 10_000
        size = [(8, 200)] if args.quick else [(16, 500)]
        report["throughput"] = side_by_side(size, 0.2, 1 if args.quick else max(1, args.runs), workdir)
        report["overhead"] = throughput(500, 1, 0.0, workdir)
        report["memory"] = memory(big, 64, 0.2, workdir)
        report["caching"] = caching(60, 50, workdir)
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report["bench_process_peak_rss_mb"] = round(peak_self, 1)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    [t], o, m, c = report["throughput"], report["overhead"], report["memory"], report["caching"]
    print_side_by_side(report["throughput"], 0.2)
    print(
        f"overhead: {t['runner_cpu_ms_per_fixture']} ms CPU per fixture at concurrency {t['concurrency']}; "
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
