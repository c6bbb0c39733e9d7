"""mcpgrade's ``.mcpgraderc.json`` (and the server it grades) → a config with our lint settings.

``disable: [ids]`` turns the matching lint rules off (``lint.rules``), ``tokenBudget`` sets the token
thresholds, and the server mcpgrade was pointed at (``--snapshot FILE``, ``--stdio CMD`` or a URL)
becomes the config's server. The rules cover the same ground under other ids (docs/lint.md says where
they differ); ``RULES`` is the table, and a test checks that each of our ids exists.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from mcp_evals.config.documents import load_document
from mcp_evals.config.model import Config
from mcp_evals.contract.load import server_name
from mcp_evals.errors import ConfigError, InputFileError
from mcp_evals.importers.plan import CONFIG_SCHEMA, Imported, Key, dump, relative
from mcp_evals.wording import docs_url, plural

PEER = "mcpgrade"
# mcpgrade's rule id → (our rule ids, how it maps, why it differs).
RULES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "D001": (("D001",), "same", ""),
    "D002": (("D002",), "same", ""),
    "D004": (("S001", "S002"), "changed", "an error when the parameter is required, a warning when optional"),
    "D005": (("D004",), "changed", "a bare 'placeholder' is not placeholder text"),
    "D006": (("D005",), "changed", "TF-IDF cosine and trigram overlap, not edit distance"),
    "D007": (("D008",), "same", ""),
    "N001": (("N001",), "same", ""),
    "N002": (("N002",), "changed", "synonyms and plurals count as near-duplicates too"),
    "N003": (("N003",), "same", ""),
    "N004": (("N005",), "same", ""),
    "S001": (("S007",), "changed", "any root schema providers reject, a missing one included"),
    "S002": (("S003",), "same", ""),
    "S003": (("S009",), "changed", "info, not a warning"),
    "S004": (("S010",), "same", ""),
    "S005": (("S004",), "same", ""),
    "S006": (("S011",), "changed", "an array's items sit at the array's level"),
    "S007": (("S012",), "same", ""),
    "S008": (("S013",), "same", ""),
    "T001": (("T001",), "changed", "a warning, not an error"),
    "T002": (("T002",), "same", ""),
    "T003": (("T003",), "same", ""),
    "T004": (("C003",), "changed", "a warning past 40 tools (max_tools), not info past 25"),
    "C001": (("C001",), "same", ""),
    "C002": (("C005",), "same", ""),
    "C003": (("C007",), "same", ""),
    "C004": (("C006",), "same", ""),
}
BUDGET = {
    "totalBudget": ("max_catalog_tokens", "T001"),
    "perToolBudget": ("max_tool_tokens", "T002"),
    "maxTools": ("max_tools", "C003"),
}
KEYS = (
    Key("`disable: [rule ids]`", "`lint.rules: {ID: false}` (by the table below)", "same"),
    Key("`tokenBudget.totalBudget`", "`lint.thresholds.max_catalog_tokens` (T001)", "same"),
    Key("`tokenBudget.perToolBudget`", "`lint.thresholds.max_tool_tokens` (T002)", "same"),
    Key(
        "`tokenBudget.maxTools`",
        "`lint.thresholds.max_tools` (C003)",
        "changed",
        "C003 is a warning (their T004 is info)",
    ),
    Key("a snapshot `{serverName, tools}` or a bare array", "`servers: [{snapshot: FILE}]`", "same"),
    Key(
        "`--stdio CMD` / a URL (with `--header`)", "`servers: [{command, args}]` / `[{url, headers}]`", "same"
    ),
    Key(
        "the grade (weights D .3, S .3, N .15, T .15, C .1)",
        "our grade",
        "changed",
        "our weights differ ([lint](lint.md))",
    ),
    Key("other keys of `.mcpgraderc.json`", "—", "refused", "mcpgrade reads no others"),
)


def _server(
    snapshot: Path | None, stdio: str | None, url: str | None, headers: list[str], out: Path
) -> dict[str, Any]:
    chosen = [given for given in (snapshot, stdio, url) if given]
    if len(chosen) != 1:
        raise ConfigError(
            "name the server mcpgrade graded: exactly one of --snapshot FILE, --stdio CMD or --url URL"
        )
    if snapshot is not None:
        document = load_document(snapshot).data
        label = document.get("serverName") if isinstance(document, dict) else None
        return {"name": server_name(str(label or snapshot.stem)), "snapshot": relative(snapshot, out)}
    if stdio is not None:
        command, *args = shlex.split(stdio) or [""]
        if not command:
            raise ConfigError("--stdio: an empty command")
        entry: dict[str, Any] = {
            "name": server_name(Path(args[-1] if args else command).stem),
            "command": command,
        }
        if args:
            entry["args"] = args
        cwd = relative(Path.cwd(), out)
        if cwd != ".":
            entry["cwd"] = cwd
        return entry
    assert url is not None
    entry = {"name": "server", "url": url}
    parsed = {}
    for header in headers:
        key, _, value = header.partition(":")
        if not key.strip() or not value.strip():
            raise ConfigError(f"--header {header!r}: write it as 'Name: value'")
        parsed[key.strip()] = value.strip()
    if parsed:
        entry["headers"] = parsed
    return entry


def import_mcpgrade(
    rc_path: Path,
    out: Path,
    *,
    snapshot: Path | None = None,
    stdio: str | None = None,
    url: str | None = None,
    headers: tuple[str, ...] = (),
) -> Imported:
    """``.mcpgraderc.json`` and the server it grades → ``out/mcp-evals.yaml`` with ``lint:`` settings."""
    imported = Imported()
    rc = load_document(rc_path)
    data = rc.data
    if not isinstance(data, dict):
        raise InputFileError(
            f'{rc_path}: an .mcpgraderc.json is an object: {{"disable": [...], "tokenBudget": {{...}}}}'
        )
    server = _server(snapshot, stdio, url, list(headers), out)
    if headers and "url" not in server:
        raise ConfigError("--header applies to --url only")
    rules: dict[str, bool] = {}
    disable = data.get("disable") or []
    if not isinstance(disable, list):
        raise InputFileError(f"{rc_path}: `disable` is a list of rule ids")
    for rule in disable:
        mapped = RULES.get(str(rule).upper())
        if mapped is None:
            imported.refuse(f"disable {rule!r}: mcpgrade has no such rule")
            continue
        ours, how, why = mapped
        for ours_id in ours:
            rules[ours_id] = False
        if how == "changed":
            imported.change(f"disable {rule}: turns off {', '.join(ours)} ({why})")
    thresholds: dict[str, int] = {}
    budget = data.get("tokenBudget") or {}
    if not isinstance(budget, dict):
        raise InputFileError(f"{rc_path}: `tokenBudget` is an object")
    for key, value in budget.items():
        if key not in BUDGET:
            imported.refuse(f"tokenBudget.{key} (mcpgrade reads totalBudget, perToolBudget and maxTools)")
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 1:
            imported.refuse(f"tokenBudget.{key}: {value!r} is not a positive number")
            continue
        ours_key, rule = BUDGET[key]
        thresholds[ours_key] = int(value)
        if key == "maxTools":
            imported.change(
                f"tokenBudget.maxTools: {rule} fires past {int(value)} tools, as a warning "
                "(mcpgrade's T004 is info)"
            )
    for key in sorted(set(data) - {"disable", "tokenBudget"}):
        imported.refuse(f"{key} (mcpgrade reads disable and tokenBudget only)")
    lint: dict[str, Any] = {}
    if rules:
        lint["rules"] = rules
    if thresholds:
        lint["thresholds"] = thresholds
    config: dict[str, Any] = {"servers": [server]}
    if lint:
        config["lint"] = lint
    Config.model_validate(config)
    imported.files[out / "mcp-evals.yaml"] = dump(
        config,
        schema=CONFIG_SCHEMA,
        comment=f"Imported by `mcp-evals import mcpgrade` from {rc_path}. Lint it: `mcp-evals lint`.",
    )
    imported.summary.append(
        f"{plural(len(rules), 'lint rule')} off, {plural(len(thresholds), 'threshold')} set; the grade is "
        f"ours ({docs_url('lint.md')})"
    )
    return imported
