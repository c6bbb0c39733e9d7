"""mcp-assert's assertion files (``blackwell-systems/mcp-assert``) → contract cases.

A folder of them also runs as it is (``mcp-evals contract --fixtures DIR``, ``contract/mcpassert.py``
reads them); importing writes our own case files, to edit and keep: one per assertion that calls a
tool, its server started from the folder the import ran in (where mcp-assert starts it), with
``{{fixture}}`` replaced by the folder ``--fixture`` names. ``KEYS`` is the table docs/migrating.md
shows, key by key.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp_evals.config.documents import load_document
from mcp_evals.contract.load import parse_case
from mcp_evals.contract.mcpassert import assertion_files, convert, is_assertion
from mcp_evals.errors import InputFileError, McpEvalsError
from mcp_evals.importers.plan import CONTRACT_SCHEMA, Imported, Key, dump, relative, slug
from mcp_evals.wording import plural

PEER = "mcp-assert"

KEYS = (
    Key("`name` (default: the file name)", "`name` (default: the file name)", "same"),
    Key(
        "`server: {command, args, env}`",
        "`server:` (run as it is: started in the current folder, with the whole environment)",
        "same",
    ),
    Key(
        "the server's environment (written cases)",
        "`server.env`, `cwd` (the folder the import ran in)",
        "changed",
        "an imported case's server gets PATH, HOME, the locale and its `env`, not the whole environment",
    ),
    Key(
        "`$VAR`, `${VAR}` in `env` (unset: empty)",
        "`${VAR:-}` in `env`",
        "same",
    ),
    Key(
        "`server: {transport: http, url, headers}`", "`url`, `headers` (`transport: streamable-http`)", "same"
    ),
    Key("`server: {transport: sse, url, headers}`", "`url`, `headers`, `transport: sse`", "same"),
    Key(
        "`server.docker`",
        "—",
        "refused",
        "no container here: run the server in one yourself (`command: docker`)",
    ),
    Key(
        "`server.client_capabilities`",
        "—",
        "refused",
        "roots, sampling and elicitation are the config's `client:` (declined or refused, never mocked)",
    ),
    Key("`setup[]`: `tool`, `args`", "a step each (setup-1, setup-2, …) before the asserted call", "same"),
    Key(
        "a setup call that reports `isError`",
        "a failed step: the case stops",
        "changed",
        "mcp-assert goes on to the asserted call",
    ),
    Key(
        "`setup[].capture: {NAME: $.path}`, `{{NAME}}`",
        "a reference to that step's JSON output (steps.setup-N.json.path)",
        "changed",
        "the value keeps its type where a string is exactly the reference (mcp-assert always sends text)",
    ),
    Key("`assert`: `tool`, `args`", "the last step (id assert): `tool`, `input`", "same"),
    Key(
        "`{{fixture}}`",
        "the folder given to the import with `--fixture`",
        "changed",
        "written into the case as a path; mcp-assert gives each assertion a copy of the folder",
    ),
    Key("`expect.not_error: true`", "`is_error: false`", "same"),
    Key("`expect.is_error: true`", "`is_error: true`", "same"),
    Key(
        "a result with `isError` and no `is_error: true`",
        "a failed step",
        "changed",
        "mcp-assert judges the text alone unless `not_error` is set",
    ),
    Key("`expect.contains`, `not_contains`", "`output_contains`, `output_not_contains`", "same"),
    Key(
        "`expect.equals` (trimmed)",
        "`output_matches` (the text, escaped, spaces around it allowed)",
        "same",
    ),
    Key(
        "`expect.contains_any`, `in_order`, `not_empty`",
        "`output_matches` (an escaped pattern)",
        "same",
    ),
    Key(
        "`expect.matches_regex` (RE2)",
        "`output_matches` (every pattern at once)",
        "changed",
        "Python's regular expressions, not Go's RE2",
    ),
    Key(
        "`expect.json_path: {$.a.b[0]: value}`",
        "`schema_match` (a const at that place)",
        "changed",
        'the value and its type must be equal (mcp-assert compares their text: 1 and "1" are equal '
        "there); on `structuredContent` when the tool returns it",
    ),
    Key(
        "`expect.min_results`, `max_results`",
        "`schema_match` (minItems, maxItems)",
        "changed",
        "of the JSON array, or of an object's locations/items/results/references/symbols array",
    ),
    Key("`expect.net_delta`", "`schema_match` (a const for net_delta)", "same"),
    Key(
        "`expect.file_contains`, `file_not_contains`, `file_not_exists`, `file_unchanged`",
        "—",
        "refused",
        "no file assertion in a contract case",
    ),
    Key(
        "`capture_progress`, `expect.min_progress`", "—", "refused", "progress notifications are not counted"
    ),
    Key(
        "`assert_resources`, `assert_prompts`, `assert_completion`, `assert_sampling`, `assert_logging`, "
        "`assert_notifications`, `trajectory`",
        "—",
        "refused",
        "a contract case calls tools: these files are not run or written",
    ),
    Key(
        "`timeout` (per assertion)",
        "`--timeout` / `contract.timeout_ms` (per step)",
        "changed",
        "one setting for the run, per step",
    ),
    Key("`skip: true`", "—", "refused", "not run, not written"),
    Key("`skip_unless_env: VAR`", "run only when VAR is set (not written)", "changed", "said when skipped"),
)


def import_mcpassert(folder: Path, out: Path, *, fixture: Path | None = None) -> Imported:
    """Every assertion file of ``folder`` (and one level below) → ``out/evals/contract/<name>.yaml``."""
    if not folder.is_dir():
        raise InputFileError(f"{folder}: not a folder of mcp-assert assertions")
    files = assertion_files(folder)
    imported = Imported()
    cases_dir = out / "evals" / "contract"
    names: set[str] = set()
    cwd = relative(Path.cwd(), cases_dir)
    where_fixture = str(fixture.resolve()) if fixture is not None else None
    found = 0
    for path in files:
        document = load_document(path).data
        shown = str(path)
        if not is_assertion(document):
            imported.refuse(f"{shown}: not an mcp-assert assertion (no `assert:` block)")
            continue
        found += 1
        name = str(document.get("name") or path.name)
        converted = convert(document, shown, name, fixture=where_fixture, environ=os.environ)
        for text in converted.changed:
            imported.change(text)
        for text in converted.refused:
            imported.refuse(text)
        if converted.case is None:
            imported.refuse(f"{shown}: not written: {converted.skipped}")
            continue
        case = converted.case
        server = case["server"]
        if "command" in server:
            if cwd != ".":
                server["cwd"] = cwd
            imported.change(
                "each server gets PATH, HOME, the locale and its `env` (mcp-assert passes the whole "
                "environment): add what a server needs to its `env:`"
            )
        target = cases_dir / f"{slug(name, names, fallback='case')}.yaml"
        text = dump(
            case, schema=CONTRACT_SCHEMA, comment=f"Imported by `mcp-evals import mcp-assert` from {path}."
        )
        try:
            parse_case(text, target)
        except McpEvalsError as error:
            imported.refuse(f"{shown}: {error.message}")
            continue
        imported.files[target] = text
    if not found:
        raise InputFileError(f"{folder}: no mcp-assert assertion in it (YAML files with an `assert:` block)")
    imported.summary.append(f"{plural(len(imported.files), 'case')} from {plural(found, 'assertion file')}")
    return imported
