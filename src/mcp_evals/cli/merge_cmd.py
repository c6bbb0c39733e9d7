"""``mcp-evals merge``: join the shards of one run (``run --shard I/N``) into one results file."""

from __future__ import annotations

from pathlib import Path

import click

from mcp_evals.errors import EXIT_OK
from mcp_evals.files import refuse_inputs
from mcp_evals.record.merge import read_results_files
from mcp_evals.record.read import RESULTS_FILE
from mcp_evals.wording import plural


@click.command()
@click.argument("shards", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The merged results file."
)
def merge(shards: tuple[Path, ...], out: Path) -> int:
    """Join the results files of one run's shards into one.

    \b
    Refuses files from different catalogs, models, fixture sets or settings (exit 3). Where two
    files hold the same fixture and sample, a reached answer wins over a dropout.
    """
    refuse_inputs(out, {f"the shard {path.name}": path for path in shards}, what="--out")
    merged = read_results_files(list(shards))
    RESULTS_FILE.write(out, merged.header, merged.results)  # all or nothing
    header = merged.header
    planned = len(header.fixtures) * max(1, header.sampling.samples)
    reached = sum(1 for result in merged.results if result.reached)
    click.echo(
        f"merged {plural(len(shards), 'file')} → {out}: {plural(len(header.fixtures), 'fixture')}, "
        f"{reached}/{planned} answers reached" + (f" (shards {header.shard})" if header.shard else "")
    )
    return EXIT_OK
