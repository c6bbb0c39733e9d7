"""The baseline file: written by `mcp-evals baseline accept`, read by every comparison."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from mcp_evals.baseline.compare import BASELINE_FORMAT, BASELINE_SCHEMA_VERSION, Baseline
from mcp_evals.config.documents import describe_validation_error, load_document
from mcp_evals.errors import InputFileError
from mcp_evals.files import atomic_write


def write_baseline(baseline: Baseline, path: Path) -> None:
    with atomic_write(path) as stream:
        stream.write(baseline.model_dump_json(indent=2) + "\n")


def load_baseline(path: str | Path) -> Baseline:
    baseline_path = Path(path)
    if not baseline_path.exists():
        raise InputFileError(
            f"{baseline_path}: baseline file not found",
            hint=f"accept one with `mcp-evals baseline accept RESULTS --out {baseline_path}`",
        )
    document = load_document(baseline_path)
    data = document.data
    if not isinstance(data, dict) or data.get("format") != BASELINE_FORMAT:
        raise InputFileError(
            f'{baseline_path}: not an mcp-evals baseline (expected "format": "{BASELINE_FORMAT}")',
            hint="write one with `mcp-evals baseline accept RESULTS --out FILE`",
        )
    if data.get("schema_version") != BASELINE_SCHEMA_VERSION:
        raise InputFileError(
            f"{baseline_path}: baseline schema version {data.get('schema_version')!r}; "
            f"this mcp-evals reads version {BASELINE_SCHEMA_VERSION}",
            hint="accept a new baseline with `mcp-evals baseline accept`",
        )
    try:
        return Baseline.model_validate(data)
    except ValidationError as error:
        raise InputFileError(describe_validation_error(error, document)) from None
