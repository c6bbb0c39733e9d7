"""Dev and test: what the proposer may see, and what proves its rewrite (pure).

A fixture's own ``split`` is kept. Fixtures without one are placed for this run only (the files are
never written): when some fixture is already ``test``, the test split is given and frozen, so they
join dev, as ``mcp-evals synth`` does; otherwise about ``test_share`` of each tool's fixtures (and of
the refuse and clarify ones) go to test, those whose id hashes lowest — the same every time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mcp_evals.errors import ConfigError
from mcp_evals.fixtures.model import Fixture
from mcp_evals.synth.assemble import assign_splits
from mcp_evals.wording import plural

DEFAULT_TEST_SHARE = 0.5


@dataclass(frozen=True)
class Split:
    """The fixtures the proposer may see (dev) and those held out to prove its rewrite (test)."""

    dev: list[Fixture]
    test: list[Fixture]
    notes: list[str] = field(default_factory=list)

    @property
    def test_queries(self) -> list[str]:
        return [fixture.query for fixture in self.test if fixture.query.strip()]


def split_fixtures(fixtures: Sequence[Fixture], test_share: float = DEFAULT_TEST_SHARE) -> Split:
    """Each fixture in dev or test (see the module docstring); no test fixture at all is bad input."""
    unsplit = [fixture for fixture in fixtures if fixture.split is None]
    placed: dict[str, str] = {}
    notes: list[str] = []
    if unsplit:
        frozen = any(fixture.split == "test" for fixture in fixtures)
        assigned = assign_splits(unsplit, test_share, frozen=frozen)
        placed = {fixture.id: fixture.split or "dev" for fixture in assigned}
        tested = sum(1 for split in placed.values() if split == "test")
        if frozen:
            notes.append(
                f"{plural(len(unsplit), 'fixture')} without a `split:` joined dev (the test split is the "
                "fixtures marked `split: test`)"
            )
        else:
            notes.append(
                f"{plural(len(unsplit), 'fixture')} had no `split:`; for this run {tested} of them are "
                f"held out as the test split (about {test_share:.0%} of each tool's, by a hash of the id: "
                "the same every time). Mark fixtures `split: dev` or `split: test` to choose."
            )
    dev: list[Fixture] = []
    test: list[Fixture] = []
    for fixture in fixtures:
        split = fixture.split or placed.get(fixture.id, "dev")
        (test if split == "test" else dev).append(fixture)
    if not test:
        raise ConfigError(
            f"no fixture is in the test split ({plural(len(dev), 'dev fixture')}): improve proves a rewrite "
            "on fixtures its proposer never saw",
            hint="mark some fixtures `split: test`, or leave some without a `split:` (about --test-share "
            "of each tool's are then held out)",
        )
    return Split(dev, test, notes)
