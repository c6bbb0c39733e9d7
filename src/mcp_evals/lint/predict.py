"""Prediction against reality: the pairs the lint expects a model to confuse, against a model run's.

A run reveals a pair only when a ``select`` fixture expects one of its tools; so precision counts
the *testable* predictions (at least one tool of the pair expected by a fixture of the run), and
recall counts every distinct pair of catalog tools the run confused (a wrong first call on a
``select`` fixture, either way round). Each observed pair also gets its rank among all tool pairs by
predicted score: a prediction worth running ranks the real confusions near the top.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence

from mcp_evals.catalog.model import Catalog
from mcp_evals.lint.context import LintContext
from mcp_evals.lint.model import ObservedPair, PairScore, PredictionCheck
from mcp_evals.score.scorecard import Scorecard

Pair = tuple[str, str]


def _key(first: str, second: str) -> Pair:
    return (first, second) if first <= second else (second, first)


def observed_pairs(scorecard: Scorecard, catalog: Catalog) -> Counter[Pair]:
    """Distinct (unordered) pairs of catalog tools a run confused, with how many answers did."""
    pairs: Counter[Pair] = Counter()
    for fixture in scorecard.fixtures:
        if fixture.kind != "select":
            continue
        for sample in fixture.samples:
            chosen = sample.chosen
            if not sample.reached or sample.outcome != "wrong_tool" or chosen is None:
                continue
            if chosen not in catalog.by_name:
                continue  # an invented tool confuses nothing with anything
            for expected in fixture.expected_tools:
                if expected in catalog.by_name and expected != chosen:
                    pairs[_key(expected, chosen)] += 1
    return pairs


def check_prediction(
    predicted: Sequence[PairScore],
    scorecard: Scorecard,
    context: LintContext,
    *,
    results_file: str,
) -> PredictionCheck:
    """Precision and recall of ``predicted`` against the confusions of the run in ``scorecard``."""
    catalog = context.catalog
    observed = observed_pairs(scorecard, catalog)
    tested = {
        name for fixture in scorecard.fixtures if fixture.kind == "select" for name in fixture.expected_tools
    }
    predicted_keys = [_key(*pair.tools) for pair in predicted]
    testable = [key for key in predicted_keys if key[0] in tested or key[1] in tested]
    hits = [key for key in testable if key in observed]
    # Every pair's score, ascending, to rank any pair among all of them (1 = the most confusable).
    ascending = sorted(context.pairs.scores)
    rows = []
    for key, count in sorted(observed.items(), key=lambda item: (-item[1], item[0])):
        score = round(context.score_of(*key), 9)
        rank = len(ascending) - bisect.bisect_right(ascending, score + 1e-9) + 1
        rows.append(ObservedPair(tools=key, count=count, predicted=key in predicted_keys, rank=rank))
    return PredictionCheck(
        results_file=results_file,
        model=scorecard.run.model,
        provider=scorecard.run.provider,
        catalog_matches=scorecard.run.catalog_hash == catalog.hash,
        predicted=len(testable),
        observed=len(observed),
        hits=len(hits),
        precision=len(hits) / len(testable) if testable else None,
        recall=sum(1 for key in observed if key in predicted_keys) / len(observed) if observed else None,
        pairs_total=context.pairs.pair_count,
        observed_pairs=rows,
        missed_predictions=[key for key in testable if key not in observed],
    )
