"""One paired run of several arms, from the planned fixtures to each arm's record.

``mcp-evals compare`` and ``mcp-evals improve`` (its proof, and its run on the dev split) run their
arms here: each arm's results file gets its header (the arm's notes, the run's notes), the jobs are
interleaved (``runner.interleave``) and asked by ``runner.ArmsRunner`` under the run's one policy
and budget, and each arm's record is read back for the comparison (``paired.compare_arms``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio

from mcp_evals.compare.arms import Arm
from mcp_evals.compare.paired import ArmInfo, ArmRecord
from mcp_evals.compare.runner import ArmsRunner, interleave
from mcp_evals.config.model import Config
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.pricing import Price
from mcp_evals.record.read import read_results
from mcp_evals.run.plan import EXPECT_NOTHING_CACHED, make_header, run_notes
from mcp_evals.run.progress import Progress
from mcp_evals.run.results_file import ResultsWriter
from mcp_evals.run.retry import RetryPolicy
from mcp_evals.run.runner import RunSettings, RunSummary, summarize_dropouts
from mcp_evals.wording import plural


@dataclass(frozen=True)
class ArmsSpend:
    """What the arms may spend: the cap (None: uncapped or free) and the price that counts it."""

    budget_usd: float | None
    price: Price | None


def arm_paths(arms: Sequence[Arm], out: Path) -> dict[str, Path]:
    """Each arm's results file in ``out``."""
    return {arm.name: out / f"{arm.name}.ndjson" for arm in arms}


def run_arms(
    config: Config,
    arms: Sequence[Arm],
    planned: Sequence[Fixture],
    fixtures: Sequence[Fixture],
    spend: ArmsSpend,
    out: Path,
    *,
    samples: int,
    limit: int | None = None,
    concurrency: int | None = None,
    command: str = "mcp-evals compare",
    say: Callable[[str], None] = lambda line: None,
    notes: Sequence[str] = (),
) -> tuple[list[ArmRecord], RunSummary]:
    """Ask ``planned`` of every arm, interleaved, into ``out/<arm>.ndjson``; the records and the run.

    The caller checks beforehand that the files may be written (``arm_paths``); ``notes`` go to every
    arm's header.
    """
    paths = arm_paths(arms, out)
    writers = {}
    for arm in arms:
        arm_notes = [*arm.notes(), *run_notes(arm.asker, spend.price), *notes]
        if (
            arm.kind != "full"
        ):  # the caching estimate is about the whole catalog, which this arm does not send
            arm_notes = [note for note in arm_notes if EXPECT_NOTHING_CACHED not in note]
        header = make_header(
            asker=arm.asker,
            planned=planned,
            all_fixtures=fixtures,
            samples=samples,
            shard=None,
            limit=limit,
            exclude_tools=config.exclude_tools,
            scoring=config.scoring,
            gate=config.gate,
            notes=arm_notes,
        )
        writers[arm.name] = ResultsWriter(paths[arm.name], header)
    jobs = interleave([arm.name for arm in arms], planned, samples)
    workers = concurrency or config.run.concurrency or 4
    runner = ArmsRunner(
        arms,
        RunSettings(
            concurrency=workers,
            retry=RetryPolicy(max_attempts=config.run.max_attempts, max_wait=config.run.max_wait),
            budget_usd=spend.budget_usd,
            price=spend.price,
            request_deadline=config.run.timeout * 3,
        ),
        writers,
        progress=Progress(len(jobs), label=command),
        total=len(jobs),
    )
    provider = arms[0].provider
    say(
        f"{command}: {plural(len(planned), 'fixture')} × {plural(samples, 'sample')} × "
        f"{plural(len(arms), 'arm')} "
        f"({', '.join(arm.name for arm in arms)}) = {len(jobs)} jobs · "
        f"{provider.name}/{provider.settings.model} · concurrency {workers}"
    )
    summary = anyio.run(runner.run, jobs)
    parts = [f"{summary.reached}/{summary.planned} reached", f"dropouts: {summarize_dropouts(summary)}"]
    if spend.price is not None:
        parts.append(f"cost ${summary.spent_usd:.4f}")
    say(f"{command}: {' · '.join(parts)} → {out}")
    if summary.fatal is not None:
        say(f"{command}: stopped by a fatal error: {summary.fatal.message}")
    records = [
        ArmRecord(
            ArmInfo(name=arm.name, kind=arm.kind, label=arm.label, results=paths[arm.name].name),
            read_results(paths[arm.name]),
        )
        for arm in arms
    ]
    return records, summary
