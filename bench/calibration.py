"""How well does the lint predict the tool pairs real models confuse?

Lints every catalog of the calibration set (tests/lint/calibration: snapshots of real servers and
labelled pairs, sources in its README) and prints each catalog's top predicted pairs with their
labels, then precision@k, recall and recall@k (see ``mcp_evals.lint.calibration``).

    .venv/bin/python bench/calibration.py [--k 3] [--all]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcp_evals.lint.calibration import measure

SET = Path(__file__).resolve().parents[1] / "tests" / "lint" / "calibration"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--k", type=int, default=3, help="how many top pairs of each catalog count")
    parser.add_argument("--folder", type=Path, default=SET, help="the calibration set")
    arguments = parser.parse_args()
    result = measure(arguments.folder, k=arguments.k)
    for catalog in result.catalogs:
        print(f"{catalog.name} ({catalog.tools} tools, {catalog.predicted} predicted pairs)")
        for rank, pair in enumerate(catalog.top, start=1):
            label = pair.label or "unlabelled"
            print(f"  {rank}. {pair.tools[0]} <-> {pair.tools[1]}  {pair.score:.2f}  {label}")
        for first, second in catalog.missed:
            print(f"  not predicted: {first} <-> {second}")
    k = result.k
    print()
    print(
        f"precision@{k}: {percent(result.precision_at_k)} ({result.hits_at_k} of {result.labelled_at_k} "
        f"labelled pairs in the top {k} are confused or same; {result.distinct_at_k} distinct)"
    )
    positives = result.positives
    print(
        f"recall: {percent(result.recall)} ({result.found} of {positives} confused or same pairs predicted)"
    )
    print(f"recall@{k}: {percent(result.recall_at_k)} ({result.found_at_k} of {positives} in a top {k})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
