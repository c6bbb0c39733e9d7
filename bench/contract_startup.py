"""`mcp-evals contract` against `mcp-assert run` on the same server-memory cases, timed pair by pair.

    pip install mcp-assert                      # in a virtualenv of its own, or give --peer
    .venv/bin/python bench/contract_startup.py  # 3 and 30 cases, 30 with --concurrency 2
    .venv/bin/python bench/contract_startup.py --cases 3 --pairs 15

Each suite is written twice, once per tool, in its own format (ours in evals/contract, theirs as
mcp-assert YAML): create an entity, read the graph back, search for it, in turn; every case starts a
fresh server-memory with a store of its own. The two commands run alternately (ours, theirs, ours…)
so a machine whose speed drifts slows both alike; each pair's wall-time ratio is taken, and the
medians are printed. Both tools start their servers one case after another (ours records its run in
the history, as by default). Python's bytecode is compiled first, as an installed package has it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
MEMORY = REPO / "tests" / "reference-servers" / "node_modules" / ".bin" / "mcp-server-memory"


def write_suites(root: Path, count: int) -> tuple[Path, Path]:
    ours, theirs = root / f"ours-{count}", root / f"theirs-{count}"
    ours.mkdir()
    theirs.mkdir()
    for index in range(count):
        kind = ("create", "read", "search")[index % 3]
        name = f"Entity{index}"
        server = {
            "command": str(MEMORY),
            "env": {"MEMORY_FILE_PATH": str(root / f"memory-{count}-{index}.jsonl")},
        }
        create = {"entities": [{"name": name, "entityType": "person", "observations": ["engineer"]}]}
        if kind == "create":
            steps = [
                {"id": "create", "tool": "create_entities", "input": create, "expect": {"is_error": False}}
            ]
            assertion = {"tool": "create_entities", "args": create, "expect": {"not_error": True}}
            setup = []
        else:
            tool, args = ("read_graph", {}) if kind == "read" else ("search_nodes", {"query": name})
            steps = [
                {"id": "create", "tool": "create_entities", "input": create},
                {"id": kind, "tool": tool, "input": args, "expect": {"output_contains": name}},
            ]
            assertion = {"tool": tool, "args": args, "expect": {"not_error": True, "contains": [name]}}
            setup = [{"tool": "create_entities", "args": create}]
        case = {"name": f"{kind} {index}", "server": server, "steps": steps}
        (ours / f"case-{index:02d}.yaml").write_text(yaml.safe_dump(case, sort_keys=False))
        theirs_case = {
            "name": f"{kind} {index}",
            "server": {**server, "args": []},
            "setup": setup,
            "assert": assertion,
        }
        (theirs / f"case-{index:02d}.yaml").write_text(yaml.safe_dump(theirs_case, sort_keys=False))
    return ours, theirs


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return took


def compare(root: Path, count: int, pairs: int, peer: str, concurrency: int) -> dict[str, float]:
    ours, theirs = write_suites(root, count)
    mine = [
        sys.executable,
        "-m",
        "mcp_evals",
        "contract",
        "--fixtures",
        str(ours),
        "--concurrency",
        str(concurrency),
    ]
    peers = [peer, "run", "--suite", str(theirs)]
    timed(mine, root)  # a warm-up each: disk caches, node's compile cache
    timed(peers, root)
    a, b = [], []
    for _ in range(pairs):
        a.append(timed(mine, root))
        b.append(timed(peers, root))
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    return {"ours": statistics.median(a), "theirs": statistics.median(b), "ratio": statistics.median(ratios)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--peer", default=shutil.which("mcp-assert") or "mcp-assert", help="the mcp-assert command"
    )
    parser.add_argument("--cases", type=int, nargs="*", default=None, help="suite sizes (default: 3 and 30)")
    parser.add_argument(
        "--pairs", type=int, default=9, help="timed pairs per 3-case row (after one warm-up each)"
    )
    parser.add_argument("--pairs-large", type=int, default=3, help="timed pairs per 30-case row")
    arguments = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "src")], check=True)
    rows = [(3, 1), (30, 1), (30, 2)] if arguments.cases is None else [(n, 1) for n in arguments.cases]
    print("| suite | mcp-evals contract | mcp-assert run | ratio (median of pairs) |")
    print("|---|---|---|---|")
    for count, concurrency in rows:
        with tempfile.TemporaryDirectory() as folder:
            pairs = arguments.pairs if count < 10 else arguments.pairs_large
            found = compare(Path(folder), count, pairs, arguments.peer, concurrency)
        label = f"{count} cases" + (f", `--concurrency {concurrency}`" if concurrency > 1 else "")
        print(f"| {label} | {found['ours']:.2f} s | {found['theirs']:.2f} s | **{found['ratio']:.2f}×** |")
        sys.stdout.flush()
    print(f"\n{json.dumps({'load average': os.getloadavg(), 'cpus': os.cpu_count()})}")


if __name__ == "__main__":
    main()
