"""Reading results files: the run's kind of record file (``record.ndjson``; the format: ``record``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from mcp_evals.errors import InputFileError, where
from mcp_evals.record.model import FixtureResult, RunHeader
from mcp_evals.record.ndjson import Contents, RecordFile, line_of

RESULTS_FILE = RecordFile(RunHeader, FixtureResult, noun="results record", made_by="`mcp-evals run`")


@dataclass
class Results:
    """A run's header and its results, one per (fixture, sample): the last reached answer wins."""

    header: RunHeader
    results: list[FixtureResult] = field(default_factory=list)

    @property
    def by_key(self) -> dict[tuple[str, int], FixtureResult]:
        return {(result.fixture_id, result.sample): result for result in self.results}


def latest(results: Iterable[FixtureResult]) -> list[FixtureResult]:
    """Keep one result per (fixture, sample): a reached one beats a dropout, a later one an earlier."""
    chosen: dict[tuple[str, int], FixtureResult] = {}
    for result in results:
        key = (result.fixture_id, result.sample)
        previous = chosen.get(key)
        if previous is None or result.reached or not previous.reached:
            chosen[key] = result
    return list(chosen.values())


def read_results(path: str | Path) -> Results:
    """Read a results file; a torn last line (a killed run) is ignored, any other damage is an error."""
    return results_of(RESULTS_FILE.read(Path(path)))


def results_of(contents: Contents[RunHeader, FixtureResult]) -> Results:
    """A results file's run: its first header (any later one must be of the same catalog and model)
    and its latest results."""
    first, *later = contents.headers
    for number, header in zip(contents.header_lines[1:], later, strict=True):
        if header.catalog_hash != first.catalog_hash or header.model != first.model:
            raise InputFileError(
                f"{where(contents.path, number)}: a second run header with another catalog or model"
            )
    return Results(header=first, results=latest(contents.records))


def write_line(stream: IO[str], record: RunHeader | FixtureResult) -> None:
    """Write one record to a results file open as text, and flush it (a results file by hand: tests)."""
    stream.write(line_of(record))
    stream.flush()
