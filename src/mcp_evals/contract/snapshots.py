"""Snapshots: a step's output recorded once, then every run must give the same.

A step with ``expect: {snapshot: true}`` (or the masks to apply) stores its normalised output in
``__snapshots__/<case file>.snap.json`` beside the case file: whether the tool reported an error and
its output — the JSON output (``structuredContent``, else the text parsed as JSON) with its keys in
order, else the text — with what changes from run to run masked: values at JSON paths
(``mask_paths``) and matches of regular expressions (``mask_patterns``) become ``<masked>``.

The first run stores a snapshot (outside CI; in CI, where ``CI`` is set, a missing snapshot fails
the step, as nothing a CI run writes is kept), every later run compares with it and a difference
fails the step with a diff; ``--update-snapshots`` rewrites them. The files are written once, after
the run, each completely or not at all. Within a run a case's later trials compare with its first,
so a flaky output fails even while snapshots are updated.
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_evals.contract.model import AssertionResult, Case, SnapshotOptions, Status, Step
from mcp_evals.contract.paths import PathPart, parse_path

KIND = "snapshot"
FOLDER = "__snapshots__"
SCHEMA_VERSION = "mcp-evals.snapshot/1"
MASK = "<masked>"
_DIFF_LINES = 40


def _mask_at(value: Any, parts: list[PathPart]) -> Any:
    """``value`` with what ``parts`` reaches replaced by the mask (a copy where anything changed)."""
    if not parts:
        return MASK
    kind, name = parts[0]
    rest = parts[1:]
    if kind == "key" and isinstance(value, dict) and name in value:
        return {**value, name: _mask_at(value[name], rest)}
    if kind == "index" and isinstance(value, list) and name < len(value):
        return [*value[:name], _mask_at(value[name], rest), *value[name + 1 :]]
    if kind == "each" and isinstance(value, dict):
        return {key: _mask_at(item, rest) for key, item in value.items()}
    if kind == "each" and isinstance(value, list):
        return [_mask_at(item, rest) for item in value]
    if kind == "any":
        if isinstance(value, dict):
            return {
                key: _mask_at(item, rest) if key == name else _mask_at(item, parts)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [_mask_at(item, parts) for item in value]
    return value


def _mask_strings(value: Any, patterns: list[str]) -> Any:
    """Every match of the patterns masked, each match within its time limit (``patterns.sub``)."""
    if isinstance(value, str):
        from mcp_evals import patterns as timed

        for pattern in patterns:
            value = timed.sub(pattern, MASK, value)
        return value
    if isinstance(value, dict):
        return {key: _mask_strings(item, patterns) for key, item in value.items()}
    if isinstance(value, list):
        return [_mask_strings(item, patterns) for item in value]
    return value


def normalise(text: str, structured: Any, options: SnapshotOptions) -> Any:
    """The output as a snapshot holds it: the JSON output (masked) when there is one, else the text."""
    value: Any
    if structured is not None:
        value = copy.deepcopy(structured)
    else:
        try:
            value = json.loads(text)
        except ValueError:
            value = text
    if not isinstance(value, str):
        for path in options.mask_paths:
            value = _mask_at(value, parse_path(path))
    return _mask_strings(value, options.mask_patterns)


def _shown(value: Any) -> list[str]:
    text = (
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)
    )
    return text.splitlines() or [""]


def diff(stored: Mapping[str, Any], now: Mapping[str, Any]) -> str:
    """A unified diff of two snapshot entries (``is_error`` and the output), at most 40 lines."""
    before = [f"is_error: {stored.get('is_error')}", *_shown(stored.get("output"))]
    after = [f"is_error: {now.get('is_error')}", *_shown(now.get("output"))]
    lines = list(difflib.unified_diff(before, after, "snapshot", "this run", lineterm="", n=2))
    if len(lines) > _DIFF_LINES:
        lines = [*lines[:_DIFF_LINES], f"… {len(lines) - _DIFF_LINES} more lines"]
    return "\n".join(lines)


def options_of(step: Step) -> SnapshotOptions | None:
    """The step's snapshot settings, or None when it takes no snapshot."""
    wanted = step.expect.snapshot
    if wanted is None or wanted is False:
        return None
    return wanted if isinstance(wanted, SnapshotOptions) else SnapshotOptions()


def snapshot_path(case: Case) -> Path:
    return case.path.parent / FOLDER / f"{case.path.name}.snap.json"


@dataclass
class _File:
    """One case's snapshot file: what it held, and what this run saw."""

    path: Path
    stored: dict[str, Any]
    seen: dict[str, Any] = field(default_factory=dict)
    changed: bool = False


class Snapshots:
    """The snapshots of one run: compared (or stored, with ``update``) step by step, written by ``save``."""

    def __init__(self, *, update: bool = False, environ: Mapping[str, str] | None = None) -> None:
        import os

        self.update = update
        source = os.environ if environ is None else environ
        self.ci = source.get("CI", "").strip().lower() not in ("", "0", "false", "no")
        self._files: dict[Path, _File] = {}

    def _file(self, case: Case) -> _File:
        path = snapshot_path(case)
        if path not in self._files:
            self._files[path] = _File(path, _read(path, case))
        return self._files[path]

    def preload(self, cases: list[Case]) -> None:
        """Read the snapshot files of ``cases`` now: one that is not a snapshot file stops the run
        before anything starts."""
        for case in cases:
            if any(True for _ in snapshot_steps(case)):
                self._file(case)

    def check(self, case: Case, step: Step, text: str, structured: Any, is_error: bool) -> AssertionResult:
        """Compare the step's output with its snapshot, or store it; never raises on the output."""
        from mcp_evals.patterns import PatternTimeout

        options = options_of(step) or SnapshotOptions()
        file = self._file(case)
        shown = f"{FOLDER}/{file.path.name} ({step.id})"
        try:
            output = normalise(text, structured, options)
        except PatternTimeout as error:
            return _result("failed", f"{shown}: mask_patterns: {error}")
        entry = {"tool": step.tool, "is_error": is_error, "output": output}
        earlier = file.seen.get(step.id)
        if earlier is not None:  # a later trial of this run: the same as the first
            return self._compare(earlier, entry, shown, "this run's first trial")
        file.seen[step.id] = entry
        stored = file.stored.get(step.id)
        if self.update:
            file.changed = True
            same = stored is not None and _same(stored, entry)
            return _result("passed", f"snapshot {'unchanged' if same else 'updated'}: {shown}")
        if stored is None:
            if self.ci:
                return _result(
                    "failed",
                    f"no snapshot {shown}; in CI none is written: run `mcp-evals contract "
                    "--update-snapshots` where you work and commit the __snapshots__ folder",
                )
            file.changed = True
            return _result("passed", f"snapshot written: {shown}")
        return self._compare(stored, entry, shown, "its snapshot")

    def _compare(
        self, stored: Mapping[str, Any], entry: Mapping[str, Any], shown: str, what: str
    ) -> AssertionResult:
        if _same(stored, entry):
            return _result("passed", f"the output matches {shown}")
        return AssertionResult(
            kind=KIND,
            status="failed",
            message=f"the output differs from {what}, {shown} (`--update-snapshots` accepts it)",
            detail=diff(stored, entry),
        )

    def pending(self) -> list[Path]:
        """The files ``save`` would write."""
        return [file.path for file in self._files.values() if file.changed]

    def save(self) -> list[Path]:
        """Write the snapshot files this run stored or updated; each completely or not at all."""
        from mcp_evals.files import atomic_write

        written = []
        for file in self._files.values():
            if not file.changed:
                continue
            steps = dict(file.stored) if not self.update else {}
            steps.update(file.seen)
            body = {"schema_version": SCHEMA_VERSION, "steps": dict(sorted(steps.items()))}
            file.path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(file.path) as stream:
                stream.write(json.dumps(body, ensure_ascii=False, indent=2, sort_keys=False) + "\n")
            written.append(file.path)
        return written


def _same(stored: Mapping[str, Any], entry: Mapping[str, Any]) -> bool:
    return bool(stored.get("is_error") == entry["is_error"] and stored.get("output") == entry["output"])


def _result(status: Status, message: str) -> AssertionResult:
    return AssertionResult(kind=KIND, status=status, message=message)


def _read(path: Path, case: Case) -> dict[str, Any]:
    """The steps a snapshot file holds; a file that is not one is an error naming it."""
    from mcp_evals.errors import InputFileError

    if not path.exists():
        return {}
    try:
        body = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise InputFileError(
            f"{path}: not a snapshot file ({error})",
            hint=f"delete it and run again to store the snapshots of {case.name!r} anew",
        ) from None
    steps = body.get("steps") if isinstance(body, dict) else None
    if (
        not isinstance(body, dict)
        or body.get("schema_version") != SCHEMA_VERSION
        or not isinstance(steps, dict)
    ):
        raise InputFileError(
            f"{path}: not a snapshot file of this mcp-evals ({SCHEMA_VERSION})",
            hint=f"delete it and run again to store the snapshots of {case.name!r} anew",
        )
    return {str(key): value for key, value in steps.items() if isinstance(value, dict)}


def snapshot_steps(case: Case) -> Iterator[Step]:
    """The steps of ``case`` that take a snapshot."""
    return (step for step in case.steps if options_of(step) is not None)
