"""The confusion prediction measured against a labelled set of real catalogs.

A calibration set is a folder: ``catalogs/<name>.json`` (snapshots of real servers) and
``labels.yaml``, which labels some of their tool pairs ``confused`` (a real model was observed taking
one for the other), ``same`` (the server says one is an alias of the other) or ``distinct`` (opposite
actions on one object, or a read and a write of one object: certain without a model). Unlabelled
pairs are unknown and count neither way.

Figures, over every catalog of the set:

- *precision@k*: of the labelled pairs among each catalog's top ``k`` predicted pairs, the share
  labelled confused or same;
- *recall*: of the confused and same pairs, the share the lint predicts at all (C001);
- *recall@k*: the share among each catalog's top ``k``;
- *distinct@k*: labelled-distinct pairs among the top ``k`` (a prediction that is certainly wrong).

``tests/lint/calibration`` is the set; ``bench/calibration.py`` prints these figures and a test keeps
them from regressing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from mcp_evals.catalog.snapshot import load_catalog
from mcp_evals.config.documents import describe_validation_error, load_document
from mcp_evals.errors import InputFileError, where
from mcp_evals.lint.engine import lint
from mcp_evals.strict import StrictModel

Label = Literal["confused", "same", "distinct"]
POSITIVE: frozenset[str] = frozenset({"confused", "same"})
LABELS_FILE = "labels.yaml"
CATALOGS_FOLDER = "catalogs"


class LabelledPair(StrictModel):
    tools: tuple[str, str]
    label: Label
    source: str = Field(description="A key of `sources`: where the label comes from.")
    why: str = ""


class CalibrationLabels(StrictModel):
    sources: dict[str, str] = Field(description="Source key → its URL or what it is.")
    catalogs: dict[str, list[LabelledPair]] = Field(description="Catalog (catalogs/<name>.json) → pairs.")


class RankedPair(StrictModel):
    tools: tuple[str, str]
    score: float
    label: Label | None = None


class CatalogResult(StrictModel):
    name: str
    tools: int
    predicted: int = Field(description="Pairs the lint predicts (C001) on this catalog.")
    top: list[RankedPair]
    missed: list[tuple[str, str]] = Field(description="Confused or same pairs the lint does not predict.")


class CalibrationResult(StrictModel):
    k: int
    catalogs: list[CatalogResult]
    positives: int = Field(description="Pairs labelled confused or same.")
    found: int = Field(description="Of those, predicted at all.")
    found_at_k: int
    labelled_at_k: int = Field(description="Labelled pairs among the top k of every catalog.")
    hits_at_k: int = Field(description="Confused or same pairs among the top k of every catalog.")
    distinct_at_k: int

    @property
    def precision_at_k(self) -> float | None:
        return self.hits_at_k / self.labelled_at_k if self.labelled_at_k else None

    @property
    def recall(self) -> float | None:
        return self.found / self.positives if self.positives else None

    @property
    def recall_at_k(self) -> float | None:
        return self.found_at_k / self.positives if self.positives else None


def _key(tools: tuple[str, str]) -> tuple[str, str]:
    first, second = tools
    return (first, second) if first <= second else (second, first)


def load_labels(folder: Path) -> CalibrationLabels:
    """Read ``labels.yaml``; a broken file is an InputFileError naming its line."""
    path = folder / LABELS_FILE
    document = load_document(path)
    try:
        labels = CalibrationLabels.model_validate(document.data)
    except ValidationError as error:
        raise InputFileError(describe_validation_error(error, document)) from None
    for name, pairs in labels.catalogs.items():
        for index, pair in enumerate(pairs):
            if pair.source not in labels.sources:
                line = document.line_of(("catalogs", name, index, "source"))
                raise InputFileError(f"{where(path, line)}: unknown source {pair.source!r}")
    return labels


def measure(folder: Path, *, k: int = 3) -> CalibrationResult:
    """Lint every catalog of the set and compare its predicted pairs with the labels."""
    labels = load_labels(folder)
    results: list[CatalogResult] = []
    positives = found = found_at_k = labelled_at_k = hits_at_k = distinct_at_k = 0
    for name, pairs in sorted(labels.catalogs.items()):
        path = folder / CATALOGS_FOLDER / f"{name}.json"
        catalog = load_catalog(path)
        for pair in pairs:
            unknown = [tool for tool in pair.tools if tool not in catalog.by_name]
            if unknown:
                raise InputFileError(f"{folder / LABELS_FILE}: {name}: no tool {unknown[0]!r} in {path}")
        by_pair = {_key(pair.tools): pair.label for pair in pairs}
        report = lint(catalog)
        predicted = [_key(pair.tools) for pair in report.predicted_pairs]
        top = [
            RankedPair(tools=pair.tools, score=pair.score, label=by_pair.get(_key(pair.tools)))
            for pair in report.predicted_pairs[:k]
        ]
        wanted = [key for key, label in by_pair.items() if label in POSITIVE]
        positives += len(wanted)
        found += sum(1 for key in wanted if key in predicted)
        found_at_k += sum(1 for key in wanted if key in predicted[:k])
        labelled_at_k += sum(1 for pair in top if pair.label is not None)
        hits_at_k += sum(1 for pair in top if pair.label in POSITIVE)
        distinct_at_k += sum(1 for pair in top if pair.label == "distinct")
        results.append(
            CatalogResult(
                name=name,
                tools=len(catalog.tools),
                predicted=len(predicted),
                top=top,
                missed=[key for key in wanted if key not in predicted],
            )
        )
    return CalibrationResult(
        k=k,
        catalogs=results,
        positives=positives,
        found=found,
        found_at_k=found_at_k,
        labelled_at_k=labelled_at_k,
        hits_at_k=hits_at_k,
        distinct_at_k=distinct_at_k,
    )
