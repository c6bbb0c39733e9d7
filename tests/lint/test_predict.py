"""Prediction against reality: precision, recall and ranks against a run's confusions."""

from __future__ import annotations

from mcp_evals.lint.engine import lint_with_context
from mcp_evals.lint.predict import check_prediction, observed_pairs
from mcp_evals.record.read import Results
from mcp_evals.score import score_results
from support.records import answer, call, header

from .helpers import catalog, fixture, tool

SIMILAR = (
    "Create multiple new entities in the knowledge graph with their names and types.",
    "Create multiple new relations in the knowledge graph between named entities.",
)


def _catalog():  # type: ignore[no-untyped-def]
    return catalog(
        tool("create_entities", SIMILAR[0], params={"items": {"type": "array", "items": {"type": "string"}}}),
        tool(
            "create_relations", SIMILAR[1], params={"items": {"type": "array", "items": {"type": "string"}}}
        ),
        tool(
            "send_email", "Send an email to one recipient with a subject and a body; returns the message id."
        ),
        tool(
            "convert_currency",
            "Convert an amount between two currencies at today's rate; returns the amount.",
        ),
    )


def test_precision_and_recall_count_testable_predictions_and_distinct_confusions() -> None:
    source = _catalog()
    report, context = lint_with_context(source)
    assert [pair.tools for pair in report.predicted_pairs] == [("create_entities", "create_relations")]
    fixtures = [
        fixture("e1", "Add Ada as a person to the graph", ["create_entities"]),
        fixture("e2", "Add Bob as a person to the graph", ["create_entities"]),
        fixture("m1", "Mail Ada the minutes", ["send_email"]),
    ]
    run = header(source, fixtures)
    results = Results(
        header=run,
        results=[
            answer(run, "e1", call("create_relations")),  # the predicted confusion
            answer(run, "e2", call("create_entities")),
            answer(run, "m1", call("convert_currency")),  # a confusion nobody predicted
        ],
    )
    scorecard = score_results(results)
    assert observed_pairs(scorecard, source) == {
        ("create_entities", "create_relations"): 1,
        ("convert_currency", "send_email"): 1,
    }
    check = check_prediction(report.predicted_pairs, scorecard, context, results_file="run.ndjson")
    assert (check.predicted, check.observed, check.hits) == (1, 2, 1)
    assert check.precision == 1.0
    assert check.recall == 0.5
    assert check.catalog_matches
    assert check.pairs_total == 6
    ranks = {pair.tools: (pair.predicted, pair.rank) for pair in check.observed_pairs}
    assert ranks[("create_entities", "create_relations")] == (True, 1)
    predicted, rank = ranks[("convert_currency", "send_email")]
    assert not predicted and rank is not None and rank > 1


def test_a_prediction_no_fixture_can_reveal_is_not_counted_against_precision() -> None:
    source = _catalog()
    report, context = lint_with_context(source)
    fixtures = [fixture("m1", "Mail Ada the minutes", ["send_email"])]
    run = header(source, fixtures)
    scorecard = score_results(Results(header=run, results=[answer(run, "m1", call("send_email"))]))
    check = check_prediction(report.predicted_pairs, scorecard, context, results_file="run.ndjson")
    assert (check.predicted, check.observed, check.precision, check.recall) == (0, 0, None, None)
