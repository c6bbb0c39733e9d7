"""The results file of a run: written line by line as answers arrive, read back to resume."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mcp_evals.answers import ToolChoiceMode
from mcp_evals.errors import InputFileError
from mcp_evals.files import updates
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.model import FixtureResult, RunHeader
from mcp_evals.record.ndjson import RecordWriter
from mcp_evals.record.read import RESULTS_FILE, results_of

DEFAULT_RESULTS = "mcp-evals-results.ndjson"


class ResultsWriter:
    """Writes the header once the run knows its notes, then one flushed line per finished request."""

    def __init__(self, path: Path, header: RunHeader, *, kept: Sequence[FixtureResult] = ()):
        self.path = path
        updates(path)  # the run's own file: a resumed run rewrites what it read (files.py)
        self.header = header
        self.kept = list(kept)
        self._file: RecordWriter[RunHeader, FixtureResult] | None = None

    def start(self, notes: Iterable[str] = ()) -> None:
        if self._file is not None:
            return
        extra = [note for note in notes if note not in self.header.notes]
        self.header = self.header.model_copy(update={"notes": [*self.header.notes, *extra]})
        # A fresh run replaces the file; a resumed one is rewritten (atomically) with the new header and
        # the answers it keeps, then appended to.
        self._file = RESULTS_FILE.create(self.path, self.header, self.kept)

    def write(self, result: FixtureResult) -> None:
        if self._file is None:
            self.start()
        assert self._file is not None
        self._file.write(result)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def amend(
        self,
        *,
        notes: Iterable[str] = (),
        tool_choice: ToolChoiceMode | None = None,
        retract: Iterable[str] = (),
    ) -> None:
        """Put what the run learnt after the header was written into it (rewrites the file atomically).

        Reports are rendered from the record alone, so a late note (forced tool use rejected by a
        batch, nothing cached) must reach the header, not only the terminal; a note the run proved
        wrong (one containing a ``retract`` text) leaves it.
        """
        retracted = list(retract)
        kept = [note for note in self.header.notes if not any(text in note for text in retracted)]
        extra = [note for note in notes if note not in kept]
        update: dict[str, Any] = {"notes": [*kept, *extra]} if extra or kept != self.header.notes else {}
        if tool_choice is not None and tool_choice != self.header.tool_choice:
            update["tool_choice"] = tool_choice
        if not update or self._file is None:
            return
        self.close()
        self.header = self.header.model_copy(update=update)
        RESULTS_FILE.replace_header(self.path, self.header)


def resume_from(
    path: Path,
    *,
    catalog_hash: str,
    provider: str,
    model: str,
    fixtures: Sequence[Fixture],
    samples: int,
    all_fixtures: Sequence[Fixture] | None = None,
) -> tuple[list[FixtureResult], set[tuple[str, str, int]]]:
    """What an earlier (maybe killed) run in ``path`` already answered that this run can keep.

    Returns the answers to keep in the file and the (id, hash, sample) keys of ``fixtures`` that need
    no new request. Only reached answers for the same catalog, model, fixture content and sample
    count; dropouts are retried. Answers for fixtures of ``all_fixtures`` outside this run's plan (a
    smaller ``--limit``, another shard) are kept too, so resuming never throws paid answers away. A
    file made against another catalog or model is refused rather than mixed.
    """
    contents = RESULTS_FILE.earlier(path)
    if contents is None:
        return [], set()
    earlier = results_of(contents)
    header = earlier.header
    if header.catalog_hash != catalog_hash or header.model != model or header.provider != provider:
        what = []
        if header.catalog_hash != catalog_hash:
            what.append(f"catalog {header.catalog_hash[:12]} (now {catalog_hash[:12]})")
        if header.model != model or header.provider != provider:
            what.append(f"model {header.provider}/{header.model} (now {provider}/{model})")
        raise InputFileError(
            f"{path}: cannot resume: the file holds a run with another {' and '.join(what)}",
            hint="write this run to a new file with --results, or drop --resume to start over",
        )
    known = {(fixture.id, fixture.hash) for fixture in [*fixtures, *(all_fixtures or ())]}
    kept = [
        result
        for result in earlier.results
        if result.reached and (result.fixture_id, result.fixture_hash) in known and result.sample < samples
    ]
    planned = {(fixture.id, fixture.hash) for fixture in fixtures}
    done = {
        (result.fixture_id, result.fixture_hash, result.sample)
        for result in kept
        if (result.fixture_id, result.fixture_hash) in planned
    }
    return kept, done
