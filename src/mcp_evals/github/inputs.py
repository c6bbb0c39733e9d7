"""The Action's inputs, the mode an event gets by default, and keeping secrets to the one process
that needs them (masks, and the scrubbed environment of the build and every other process).

Inputs reach a Docker action as ``INPUT_<NAME>`` with the name upper-cased and hyphens kept
(``INPUT_ANTHROPIC-API-KEY``), which a shell cannot read as a variable; they are read here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mcp_evals.errors import ConfigError
from mcp_evals.github.workflow_commands import workflow_command
from mcp_evals.provider_registry import PROVIDERS, ProviderEntry
from mcp_evals.record.shards import parse_shard

MODES = ("validate", "eval", "contract", "session", "audit", "all")
Mode = Literal["validate", "eval", "contract", "session", "audit", "all"]
GATE_DECISIONS = ("remediate", "gray_zone", "deprioritize_refactor")

# events that carry new code to check for free; everything else (dispatch, schedule, …) runs the eval
_VALIDATE_EVENTS = frozenset({"pull_request", "pull_request_target", "push", "merge_group"})

# Variables a build or server never needs and that may hold credentials (names matched case-insensitively).
_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|PRIVATE_KEY|_PAT$", re.IGNORECASE
)


def key_input(entry: ProviderEntry) -> str:
    """The input that carries a paid provider's key (``anthropic-api-key``)."""
    return f"{entry.name}-api-key"


def _secret_inputs() -> list[str]:
    return [*(key_input(entry) for entry in PROVIDERS.entries(lambda entry: entry.paid)), "github-token"]


def input_variable(name: str) -> str:
    """The environment variable the runner sets for an action input (hyphens kept)."""
    return "INPUT_" + name.replace(" ", "_").upper()


def read_input(name: str, environ: Mapping[str, str] | None = None) -> str:
    source = os.environ if environ is None else environ
    return source.get(input_variable(name), "").strip()


@dataclass(frozen=True)
class ActionInputs:
    """The action's inputs, checked. Keys and the token are kept out of ``repr``."""

    mode: Mode | None = None
    config: str = "mcp-evals.yaml"
    working_directory: str = "."
    build: str = ""
    provider: str | None = None
    model: str | None = None
    concurrency: int | None = None
    limit: int | None = None
    budget_usd: float | None = None
    samples: int | None = None
    shard: str | None = None
    results: str | None = None
    openai_base_url: str | None = None
    comment: bool = True
    pr_number: int | None = None
    baseline: str | None = None
    fail_on: tuple[str, ...] = ()
    tasks: str | None = None
    arm: str | None = None
    fault: str | None = None
    runs: int | None = None
    audit_command: str | None = None
    audit_url: str | None = None
    fail_under: int | None = None
    keys: Mapping[str, str] = field(default_factory=dict, repr=False)  # key variable -> key, the ones given
    github_token: str = field(default="", repr=False)

    def api_keys(self) -> dict[str, str]:
        """The keys given, under the variables the providers read (what the eval process gets)."""
        return dict(self.keys)


def _bad_input(name: str, value: str, expected: str) -> ConfigError:
    return ConfigError(
        f"input `{name}`: expected {expected}, got {value!r}",
        hint=f"fix `{name}:` under `with:` in the workflow step that uses mcp-evals",
    )


def _optional_int(name: str, value: str, minimum: int) -> int | None:
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        raise _bad_input(name, value, f"a whole number ≥ {minimum}") from None
    if number < minimum:
        raise _bad_input(name, value, f"a whole number ≥ {minimum}")
    return number


def _boolean(name: str, value: str, default: bool) -> bool:
    if not value:
        return default
    lowered = value.lower()
    if lowered in ("true", "yes", "1", "on"):
        return True
    if lowered in ("false", "no", "0", "off"):
        return False
    raise _bad_input(name, value, "true or false")


def read_inputs(environ: Mapping[str, str] | None = None) -> ActionInputs:
    """Read and check every input; a bad value is a ``ConfigError`` naming the input (exit 3)."""
    source = os.environ if environ is None else environ

    def get(name: str) -> str:
        return read_input(name, source)

    mode = get("mode").lower()
    if mode and mode not in MODES:
        raise _bad_input("mode", mode, " | ".join(MODES))
    provider = get("provider").lower()
    if provider and provider not in PROVIDERS:
        raise _bad_input("provider", provider, " | ".join(PROVIDERS))
    budget_text = get("budget-usd")
    budget: float | None = None
    if budget_text:
        try:
            budget = float(budget_text.lstrip("$"))
        except ValueError:
            raise _bad_input("budget-usd", budget_text, "an amount in US dollars, e.g. 2.50") from None
        if budget <= 0:
            raise _bad_input("budget-usd", budget_text, "an amount above 0")
    shard = get("shard")
    if shard:
        try:
            parse_shard(shard, what="input `shard`")
        except ConfigError:
            raise _bad_input("shard", shard, "I/N with 1 ≤ I ≤ N, e.g. 1/4") from None
    fail_on = tuple(part for part in re.split(r"[\s,]+", get("fail-on")) if part)
    for decision in fail_on:
        if decision not in GATE_DECISIONS:
            raise _bad_input("fail-on", decision, " | ".join(GATE_DECISIONS) + " (comma-separated)")
    arm = get("arm")
    if arm and arm not in ("A", "B", "both"):
        raise _bad_input("arm", arm, "A | B | both")
    fault = get("fault")
    for part in (piece.strip().rstrip("%") for piece in fault.split(",") if piece.strip()):
        try:
            float(part)
        except ValueError:
            raise _bad_input("fault", fault, "fault levels in percent, comma-separated, e.g. 0,20") from None
    fail_under = _optional_int("fail-under", get("fail-under"), 0)
    if fail_under is not None and fail_under > 100:
        raise _bad_input("fail-under", str(fail_under), "a score from 0 to 100")
    if get("audit-command") and get("audit-url"):
        raise _bad_input("audit-url", get("audit-url"), "no URL when `audit-command` is given (one server)")
    working_directory = get("working-directory") or "."
    if Path(working_directory).is_absolute() or ".." in Path(working_directory).parts:
        raise _bad_input("working-directory", working_directory, "a folder inside the repository")
    return ActionInputs(
        mode=mode or None,  # type: ignore[arg-type]  # checked against MODES above
        config=get("config") or "mcp-evals.yaml",
        working_directory=working_directory,
        build=get("build"),
        provider=provider or None,
        model=get("model") or None,
        concurrency=_optional_int("concurrency", get("concurrency"), 1),
        limit=_optional_int("limit", get("limit"), 1),
        budget_usd=budget,
        samples=_optional_int("samples", get("samples"), 1),
        shard=shard or None,
        results=get("results") or None,
        openai_base_url=get("openai-base-url") or None,
        comment=_boolean("comment", get("comment"), True),
        pr_number=_optional_int("pr-number", get("pr-number"), 1),
        baseline=get("baseline") or None,
        fail_on=fail_on,
        tasks=get("tasks") or None,
        arm=arm or None,
        fault=fault or None,
        runs=_optional_int("runs", get("runs"), 1),
        audit_command=get("audit-command") or None,
        audit_url=get("audit-url") or None,
        fail_under=fail_under,
        keys=_keys(get, source),
        github_token=get("github-token") or source.get("GITHUB_TOKEN", ""),
    )


def _keys(get: Callable[[str], str], source: Mapping[str, str]) -> dict[str, str]:
    """Each paid provider's key: its input (``anthropic-api-key``), else its variable in the step's env."""
    keys: dict[str, str] = {}
    for entry in PROVIDERS.entries(lambda entry: entry.paid):
        assert entry.key_env_var is not None  # paid
        value = get(key_input(entry)) or source.get(entry.key_env_var, "")
        if value:
            keys[entry.key_env_var] = value
    return keys


def default_mode(event_name: str) -> Mode:
    """``validate`` for events that bring new code (pull_request, push), ``eval`` for the rest."""
    return "validate" if event_name in _VALIDATE_EVENTS else "eval"


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Every secret the action was given: the key and token inputs and the key variables."""
    source = os.environ if environ is None else environ
    values = [read_input(name, source) for name in _secret_inputs()]
    values += [
        source.get(name, "").strip() for name in (*PROVIDERS.key_variables(), "GITHUB_TOKEN", "GH_TOKEN")
    ]
    return sorted({value for value in values if value}, key=values.index)


def mask_commands(environ: Mapping[str, str] | None = None) -> list[str]:
    """``::add-mask::`` lines for every secret (each line of a multi-line secret on its own)."""
    lines: list[str] = []
    for value in secret_values(environ):
        lines += [workflow_command("add-mask", line.strip()) for line in value.splitlines() if line.strip()]
    return lines


def scrubbed_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for the build and every process but the one eval that needs a key.

    Drops the action's inputs (``INPUT_*``, where the key and token inputs arrive), the runner's own
    tokens (``ACTIONS_*``), any variable whose name says it holds a credential (``*TOKEN*``,
    ``*API_KEY*``, ``*SECRET*``, …) and any variable whose value contains a secret the action was given,
    whatever its name. Everything else (PATH, HOME, GITHUB_* context, proxies, the step's own ``env:``)
    is kept so builds behave as in a normal step.
    """
    source = dict(os.environ if environ is None else environ)
    given = [value for value in secret_values(source) if len(value) >= 4]
    return {
        key: value
        for key, value in source.items()
        if not key.startswith(("INPUT_", "ACTIONS_"))
        and not _SECRET_NAME.search(key)
        and not any(secret in value for secret in given)
    }
