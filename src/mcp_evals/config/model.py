"""The config file, ``mcp-evals.yaml``: which servers, which fixtures, and how to judge them.

Every section is a pydantic model with ``extra="forbid"`` so a typo is an error, not a silent
default. Sections for later layers (lint, contract, sessions) are added by their own issues.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AliasChoices,
    ConfigDict,
    Field,
    PrivateAttr,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from mcp_evals.config.isolation import (
    HookEntry,
    StateEntry,
    checked_environment,
    setup_field,
    state_field,
    teardown_field,
)
from mcp_evals.config.messages import dotted
from mcp_evals.config.unions import ByShape
from mcp_evals.config.variables import value_error
from mcp_evals.errors import where
from mcp_evals.provider_registry import RegisteredProvider
from mcp_evals.strict import FileModel
from mcp_evals.strict import StrictModel as StrictModel  # the strict base, re-exported for config sections
from mcp_evals.wording import docs_url

DEFAULT_CONFIG_NAME = "mcp-evals.yaml"
VariableKind = Literal["arg", "env", "header"]
DEFAULT_SYSTEM_PROMPT = (
    "You are the tool router of an MCP server. For the user's request, call the single tool that best "
    "fulfils it, with the arguments the request gives. If no tool fits, say so without calling one. "
    "If required information is missing, ask for it without calling a tool."
)


class ServerConfig(StrictModel):
    """One MCP server: spawned over stdio, reached by URL, or read from a saved catalog snapshot."""

    name: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$", description="Short name, used in reports."
    )
    command: str | None = Field(None, description="Executable that starts the server over stdio.")
    args: list[str] = Field(default_factory=list, description="Arguments of `command`.")
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Extra environment for the server; `${VAR}` expands from the caller's environment. "
        "The server gets only PATH, HOME, locale and these.",
    )
    cwd: str | None = Field(None, description="Working directory of the server, relative to the config file.")
    url: str | None = Field(
        None, description="Streamable HTTP endpoint (legacy SSE is tried when that fails)."
    )
    headers: dict[str, str] = Field(default_factory=dict, description="HTTP headers; `${VAR}` expands.")
    transport: Literal["auto", "streamable-http", "sse"] = Field(
        "auto", description="HTTP transport; `auto` tries Streamable HTTP and falls back to SSE."
    )
    snapshot: str | None = Field(None, description="A catalog snapshot written by `mcp-evals catalog --out`.")
    prefix: bool = Field(False, description="Name this server's tools `server__tool` to avoid clashes.")
    timeout: float = Field(30.0, gt=0, description="Seconds to start, handshake and list tools.")

    _whole_environment: bool = PrivateAttr(default=False)

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "oneOf": [{"required": ["command"]}, {"required": ["url"]}, {"required": ["snapshot"]}]
        },
    )

    @model_validator(mode="after")
    def _one_source(self) -> ServerConfig:
        sources = [s for s in ("command", "url", "snapshot") if getattr(self, s)]
        if len(sources) != 1:
            raise ValueError(
                "give exactly one of `command` (stdio), `url` (HTTP) or `snapshot` (saved catalog); "
                f"got {', '.join(sources) or 'none'}"
            )
        if (self.args or self.env or self.cwd) and not self.command:
            raise ValueError("`args`, `env` and `cwd` only apply to a `command` server")
        if self.headers and not self.url:
            raise ValueError("`headers` only apply to a `url` server")
        return self

    @property
    def kind(self) -> Literal["stdio", "http", "snapshot"]:
        return "stdio" if self.command else "http" if self.url else "snapshot"

    def variable_fields(self) -> list[tuple[tuple[str | int, ...], str, VariableKind]]:
        """Every value where `${VAR}` expands when connecting: (its path, the value, its kind)."""
        fields: list[tuple[tuple[str | int, ...], str, VariableKind]] = [
            (("args", index), value, "arg") for index, value in enumerate(self.args)
        ]
        fields += [(("env", key), value, "env") for key, value in self.env.items()]
        fields += [(("headers", key), value, "header") for key, value in self.headers.items()]
        if self.url:
            fields.append((("url",), self.url, "header"))
        return fields

    @property
    def whole_environment(self) -> bool:
        """True when a stdio server gets the caller's whole environment (mcp-eval-runner's cases)."""
        return self._whole_environment

    def with_whole_environment(self) -> ServerConfig:
        """This server, started with the caller's whole environment instead of PATH, HOME and locale.

        Not a config key: only `mcp-evals contract`'s mcp-eval-runner compatibility asks for it.
        """
        copy = self.model_copy()
        copy._whole_environment = True
        return copy


class ValidationOptions(StrictModel):
    """Rules `mcp-evals validate` applies to the fixture set as a whole (see docs/fixtures.md)."""

    min_fixtures: int = Field(0, ge=0, description="Fewest fixtures the set may have.")
    max_fixtures: int | None = Field(None, ge=0, description="Most fixtures the set may have.")
    min_areas: int = Field(0, ge=0, description="Fewest areas the fixtures must cover.")
    min_per_tool: int = Field(
        0, ge=0, description="Fewest fixtures per covered tool (per tool, with `require_all_tools`)."
    )
    require_all_tools: bool = Field(
        False, description="Every tool not in `exclude_tools` needs a fixture (else: a warning)."
    )
    min_per_pattern: dict[str, Annotated[int, Field(ge=0)]] = Field(
        default_factory=dict,
        description="Pattern → fewest fixtures of that pattern each covered tool needs, "
        "e.g. {specific: 2, category: 1, boundary: 1}.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> ValidationOptions:
        if self.max_fixtures is not None and self.max_fixtures < self.min_fixtures:
            raise ValueError("`max_fixtures` must not be below `min_fixtures`")
        return self


class ModelPrice(StrictModel):
    """A model's price in USD per million tokens (see `mcp_evals/data/prices.json`)."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_write: float | None = Field(None, ge=0, description="Default: 1.25 x input.")
    cache_read: float | None = Field(None, ge=0, description="Default: 0.1 x input.")
    min_cache_tokens: int | None = Field(None, ge=0, description="Shortest prefix the provider caches.")


class RunOptions(StrictModel):
    """Defaults for `mcp-evals run`; flags and EVAL_* variables override them."""

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        if isinstance(data, dict) and "lexical_threshold" in data:
            raise ValueError(
                "`lexical_threshold` (an absolute BM25 score, which small catalogs never reached) was "
                "replaced by `lexical_strictness`, in distinctive words per doubling of the catalog "
                f"(default 0.25; see {docs_url('running.md')}): remove `lexical_threshold` or rename it"
            )
        return data

    provider: RegisteredProvider | None = None
    model: str | None = None
    concurrency: int | None = Field(None, ge=1, le=256)
    samples: int = Field(1, ge=1, le=100)
    max_tokens: int = Field(1024, ge=16)
    temperature: float | None = Field(None, ge=0, le=2)
    timeout: float = Field(60.0, gt=0, description="Seconds for one model request.")
    max_attempts: int = Field(6, ge=1, le=20)
    max_wait: float = Field(60.0, gt=0, description="Longest single wait between retries, in seconds.")
    budget_usd: float | None = Field(None, gt=0)
    anthropic_version: str = "2023-06-01"
    base_url: str | None = None
    results: str | None = Field(None, description="NDJSON results file (default: mcp-evals-results.ndjson).")
    prompt_caching: bool = Field(True, description="Mark the catalog and system prompt for prompt caching.")
    lexical_strictness: float = Field(
        0.25,
        ge=0,
        description="The lexical baseline calls its best tool when that tool's BM25 score reaches this "
        f"many distinctive words × log2(number of tools); below, it refuses ({docs_url('running.md')}).",
    )
    prices: dict[str, ModelPrice] = Field(
        default_factory=dict, description="Prices for models the bundled table lacks (or to override it)."
    )


WeightedOutcome = Literal[
    "correct_refusal",
    "correct_clarification",
    "wrong_tool",
    "unknown_tool",
    "unsafe_action",
    "missed_action",
    "abstention_mixup",
]
DEFAULT_OUTCOME_POINTS: dict[str, float] = {"correct_refusal": 100.0, "correct_clarification": 100.0}


class ScoringOptions(StrictModel):
    """How answers are scored (see docs/reports.md)."""

    top_k: int = Field(3, ge=1, description="Top-k accuracy: an expected tool among the first k calls.")
    tool_weight: float = Field(
        60, ge=0, description="Points for the right tool in a fixture's weighted score."
    )
    args_weight: float = Field(
        40, ge=0, description="Points for right arguments (schema-valid, expected_args met)."
    )

    weights: dict[WeightedOutcome, Annotated[float, Field(ge=-100, le=100)]] = Field(
        default_factory=dict,
        description="Points (−100 to 100) an answer with this outcome scores, instead of the default "
        "(100 for a correct refusal or clarification, 0 for the rest), e.g. {unsafe_action: -100}: an "
        "unsafe action can cost more than a wrong tool. A correct call scores by `tool_weight` and "
        "`args_weight`.",
    )

    def points(self, outcome: str) -> float:
        """What an answer with this outcome (other than a correct call) scores, out of 100."""
        for name, points in self.weights.items():
            if name == outcome:
                return points
        return DEFAULT_OUTCOME_POINTS.get(outcome, 0.0)

    @model_validator(mode="after")
    def _some_weight(self) -> ScoringOptions:
        if self.tool_weight + self.args_weight <= 0:
            raise ValueError("`tool_weight` and `args_weight` cannot both be 0")
        return self


class GateOptions(StrictModel):
    """The gate on top-1 accuracy (fractions: 0.85 = 85 %). Advisory unless `fail_on` names decisions."""

    remediate_below: float = Field(0.85, ge=0, le=1, description="Top-1 below this: `remediate`.")
    deprioritize_at: float = Field(
        0.90, ge=0, le=1, description="Top-1 at or above this: `deprioritize_refactor`."
    )
    fail_on: list[Literal["remediate", "gray_zone", "deprioritize_refactor"]] = Field(
        default_factory=list, description="Decisions that fail the job (exit 1); empty = advisory only."
    )
    area_minimums: dict[str, float] = Field(
        default_factory=dict,
        description="Area → minimum accuracy (fraction); an area below it fails the job.",
    )

    @field_validator("area_minimums")
    @classmethod
    def _fractions(cls, minimums: dict[str, float]) -> dict[str, float]:
        wrong = sorted(area for area, value in minimums.items() if not 0 <= value <= 1)
        if wrong:
            raise ValueError(
                f"area minimums are fractions between 0 and 1 (0.8 = 80 %); check {', '.join(wrong)}"
            )
        return minimums

    @model_validator(mode="after")
    def _ordered(self) -> GateOptions:
        if self.remediate_below > self.deprioritize_at:
            raise ValueError("`remediate_below` must not be above `deprioritize_at`")
        return self


class BaselineOptions(StrictModel):
    """Comparing a run with the accepted baseline (`mcp-evals baseline accept`)."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        json_schema_extra=lambda schema: schema["properties"].update(
            max_drop_pp={
                "type": "number",
                "minimum": 0,
                "deprecated": True,
                "description": "Deprecated name of `max_drop_points`.",
            }
        ),
    )

    path: str | None = Field(None, description="The baseline file, e.g. evals/baseline.json.")
    max_drop_points: float = Field(
        5.0,
        ge=0,
        validation_alias=AliasChoices("max_drop_points", "max_drop_pp"),
        description="The score (0–100, on the fixtures both runs share) may fall this many points below "
        "the baseline; more fails the run. `max_drop_pp` is the deprecated name.",
    )
    gate: Literal["drop", "significant"] = Field(
        "drop",
        description="`drop`: a drop beyond `max_drop_points` fails, with the paired test shown beside it "
        "as information. `significant`: it fails only when the paired sign test also gives p < alpha.",
    )
    alpha: float = Field(0.05, gt=0, lt=1, description="The significance level of the paired sign test.")
    fail_on_insufficient_data: bool = Field(
        False,
        description="With `gate: significant`: also fail when the drop is large but the test cannot "
        "tell it from noise.",
    )

    @property
    def max_drop_pp(self) -> float:
        """The deprecated name of ``max_drop_points``."""
        return self.max_drop_points


class CatalogOptions(StrictModel):
    """The catalog as a lockfile: `mcp-evals catalog --update-lock` writes it, `validate` compares."""

    lock: str | None = Field(
        None,
        description="The committed catalog lock, e.g. evals/catalog.lock.json (relative to this file); "
        "`validate` fails when the live catalog differs from it.",
    )


ClientCapability = Literal["roots", "sampling", "elicitation"]
ALL_CLIENT_CAPABILITIES: tuple[ClientCapability, ...] = ("roots", "sampling", "elicitation")


class ClientOptions(StrictModel):
    """What mcp-evals declares as an MCP client: servers may offer different tools to different clients."""

    capabilities: list[ClientCapability] = Field(
        default_factory=lambda: list(ALL_CLIENT_CAPABILITIES),
        description="Client capabilities declared in the handshake, as your agent declares them; "
        f"[] declares none (see {docs_url('catalog.md')}).",
    )
    roots: list[str] = Field(
        default_factory=list,
        description="Folders answered to `roots/list`, relative to the config file.",
    )

    @field_validator("capabilities")
    @classmethod
    def _unique(cls, capabilities: list[ClientCapability]) -> list[ClientCapability]:
        if len(set(capabilities)) != len(capabilities):
            raise ValueError("each capability may be named once")
        return capabilities


class JudgeOptions(StrictModel):
    """The `llm_judge` assertion of contract cases: an OpenAI-compatible endpoint under a budget."""

    model: str = Field("gpt-5.4-mini", description="Model asked when an `llm_judge` names none.")
    base_url: str | None = Field(
        None, description="OpenAI-compatible API base URL (default: OPENAI_BASE_URL, else OpenAI's)."
    )
    budget_usd: float | None = Field(
        None,
        gt=0,
        description="Most the judge may spend in one run; without it `llm_judge` steps are skipped.",
    )
    timeout: float = Field(60.0, gt=0, description="Seconds for one judge request.")


class ContractOptions(StrictModel):
    """`mcp-evals contract`: tool-call contract cases (see docs/contract.md)."""

    cases: str = Field("evals/contract", description="Folder of case files, relative to the config file.")
    history: str = Field(
        ".mcp-evals/history.db", description="SQLite file of past runs, relative to the config file."
    )
    reports: str = Field(".mcp-evals/reports", description="Folder `mcp-evals serve` writes HTML reports to.")
    suite: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="Name runs are recorded under (default: the config file's folder name).",
    )
    server: str | None = Field(
        None, description="The config server cases use when they name none (default: the only one)."
    )
    timeout_ms: int = Field(30000, gt=0, description="Per-step timeout in milliseconds.")
    concurrency: int = Field(1, ge=1, le=64, description="Cases run at the same time.")
    continue_on_failure: bool = Field(
        False, description="Run a case's later steps after one failed (default: stop the case)."
    )
    judge: JudgeOptions = Field(default_factory=JudgeOptions)


LintSeverity = Literal["error", "warning", "info"]
LINT_RULE_ID = r"^[NDSTCFRXP][0-9]{3}$"


def _lint_rule_id(value: str) -> str:
    """A rule id's shape (the lint checks it names a real rule); the message reads as the lint's own."""
    if not re.fullmatch(LINT_RULE_ID, value):
        raise ValueError(
            f"no lint rule {value!r} (an id is N, D, S, T, C, F, R, X or P and three digits; "
            "`mcp-evals lint --rules-md` lists the rules)"
        )
    return value


LintRuleId = Annotated[
    str, AfterValidator(_lint_rule_id), WithJsonSchema({"type": "string", "pattern": LINT_RULE_ID})
]


class LintIgnore(StrictModel):
    """A lint finding accepted on purpose: for which tool(s), which rules, and why."""

    tool: str = Field(min_length=1, description="A tool name or glob (fnmatch), e.g. `debug_*`.")
    rules: list[LintRuleId] = Field(
        default_factory=list, description="Rule ids to ignore for it, e.g. [N003, D002]; empty = all."
    )
    reason: str = Field(
        min_length=1, description="Why it is accepted; shown in reports and as the SARIF suppression."
    )


class LintThresholds(StrictModel):
    """Where each `mcp-evals lint` rule starts to fire (docs/lint.md lists them by rule)."""

    name_distance: int = Field(
        2, ge=0, le=10, description="N002: names within this edit distance are near-duplicates."
    )
    min_description_chars: int = Field(
        30,
        ge=0,
        description="D002: shorter descriptions are too short (a Han character counts 3, kana or Hangul 2).",
    )
    max_description_tokens: int = Field(
        300, ge=1, description="D003: longer descriptions (estimated tokens) cost more than they help."
    )
    description_similarity: float = Field(
        0.6, ge=0, le=1, description="D005: TF-IDF cosine of two descriptions at or above this."
    )
    near_identical: float = Field(
        0.85, ge=0, le=1, description="D005: character similarity at or above this is a copy."
    )
    confusable_pair: float = Field(
        0.4, ge=0, le=1, description="C001/C002: predicted confusion score at or above this."
    )
    vocabulary_overlap: float = Field(
        0.75, ge=0, le=1, description="C001/C002: Jaccard of two descriptions' words above this."
    )
    max_parameters: int = Field(8, ge=0, description="S013: more top-level parameters than this.")
    max_depth: int = Field(3, ge=1, description="S012: schemas nested deeper than this.")
    max_schema_properties: int = Field(
        40, ge=1, description="S015: more properties than this, counted at every depth."
    )
    max_tool_tokens: int = Field(1200, ge=1, description="T002: one tool's definition above this.")
    max_catalog_tokens: int = Field(8000, ge=1, description="T001: the whole catalog above this.")
    boilerplate_tools: int = Field(
        3, ge=2, description="T003: this many descriptions opening with the same 40 characters."
    )
    max_tools: int = Field(
        40, ge=1, description="C003: more tools than this, where selection accuracy degrades."
    )
    refusal_risk_tools: int = Field(
        20, ge=1, description="C004: refusal-collapse risk needs at least this many tools, and …"
    )
    vague_share: float = Field(
        0.3, ge=0, le=1, description="C004: … at least this share of vague descriptions."
    )
    vague_words: int = Field(
        10, ge=0, description="C004: a description with fewer content words than this is vague."
    )
    min_refusal_fixtures: int = Field(
        10, ge=1, description="F006: fewer refuse + clarify fixtures cannot measure refusal."
    )


class LintOptions(StrictModel):
    """`mcp-evals lint`: which rules run, where they fire, what is accepted, and when to fail."""

    fail_on: Literal["error", "warning", "info", "never"] = Field(
        "error", description="Exit 1 when a finding at or above this severity is not ignored."
    )
    rules: dict[LintRuleId, Annotated[bool | LintSeverity, ByShape()]] = Field(
        default_factory=dict,
        description="Rule id → false (off), true (on) or a severity that replaces the rule's own.",
    )
    thresholds: LintThresholds = Field(default_factory=LintThresholds)
    ignore: list[LintIgnore] = Field(
        default_factory=list, description="Findings accepted on purpose, per tool, with a reason."
    )
    model: str | None = Field(
        None, description="The model whose price and cache minimum the token report uses (default run.model)."
    )


class ToolSearchOptions(StrictModel):
    """How `mcp-evals compare`'s deferred arm searches the catalog (see docs/running.md)."""

    variant: Literal["bm25", "regex"] = Field(
        "bm25", description="Anthropic's server-side search tool: bm25 (natural language) or regex."
    )
    top_k: int = Field(
        5, ge=1, le=50, description="Tools a client-side search reveals (OpenAI-compatible providers)."
    )
    beta: str | None = Field(
        None,
        description="An `anthropic-beta` header to send with tool search (e.g. advanced-tool-use-2025-11-20) "
        "for an endpoint that still needs one.",
    )


class CompareOptions(StrictModel):
    """`mcp-evals compare`: catalog B's descriptions, the arms to measure, and the test's alpha."""

    descriptions: dict[str, str] = Field(
        default_factory=dict,
        description="Tool → a new description: catalog B is the catalog with these descriptions.",
    )
    arms: list[Literal["full", "deferred", "grouped"]] = Field(
        default_factory=list,
        description="How the catalog is delivered, one arm each: full, deferred (tool search), grouped "
        "(one router tool per area).",
    )
    tool_search: ToolSearchOptions = Field(default_factory=ToolSearchOptions)
    alpha: float = Field(
        0.05,
        gt=0,
        lt=1,
        description="A difference counts as real when the paired exact test gives p < alpha.",
    )

    @field_validator("arms")
    @classmethod
    def _distinct_arms(cls, arms: list[str]) -> list[str]:
        if len(set(arms)) != len(arms):
            raise ValueError("each arm may be listed once")
        return arms


class ReportPaths(StrictModel):
    markdown: str | None = None
    json_path: str | None = Field(None, alias="json")
    junit: str | None = None
    html: str | None = None

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Config(FileModel):
    """The whole ``mcp-evals.yaml``."""

    servers: list[ServerConfig] = Field(
        description="The MCP servers whose tools make the catalog (one or more). `[]` only for "
        "contract cases that each name their own server: every command that reads a catalog needs one."
    )
    areas: dict[str, list[str]] = Field(
        default_factory=dict, description="Area name → tool names or glob patterns (fnmatch)."
    )
    fixtures: Annotated[str | list[str], ByShape()] = Field(
        default_factory=list, description="Glob(s) of fixture files, relative to this file's folder."
    )
    exclude_tools: list[str] = Field(
        default_factory=list, description="Tools (names or globs) deliberately left out of the eval."
    )
    system_prompt: str = Field(
        DEFAULT_SYSTEM_PROMPT, description="The system prompt sent with every fixture in model runs."
    )
    validation: ValidationOptions = Field(default_factory=ValidationOptions)
    catalog: CatalogOptions = Field(default_factory=CatalogOptions)
    run: RunOptions = Field(default_factory=RunOptions)
    scoring: ScoringOptions = Field(default_factory=ScoringOptions)
    gate: GateOptions = Field(default_factory=GateOptions)
    baseline: BaselineOptions = Field(default_factory=BaselineOptions)
    reports: ReportPaths = Field(default_factory=ReportPaths)
    client: ClientOptions = Field(default_factory=ClientOptions)
    contract: ContractOptions = Field(default_factory=ContractOptions)
    lint: LintOptions = Field(default_factory=LintOptions)
    compare: CompareOptions = Field(default_factory=CompareOptions)
    state: list[StateEntry] | None = state_field()
    setup: list[HookEntry] | None = setup_field()
    teardown: list[HookEntry] | None = teardown_field()

    _path: Path = PrivateAttr(default=Path(DEFAULT_CONFIG_NAME))
    _shown: str = PrivateAttr(default=DEFAULT_CONFIG_NAME)

    @field_validator("servers")
    @classmethod
    def _unique_server_names(cls, servers: list[ServerConfig]) -> list[ServerConfig]:
        names = [server.name for server in servers]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"server names must be unique; repeated: {', '.join(duplicates)}")
        return servers

    @property
    def base_dir(self) -> Path:
        return self._path.parent

    @property
    def fixture_globs(self) -> list[str]:
        return [self.fixtures] if isinstance(self.fixtures, str) else list(self.fixtures)

    def check_variables(self, environ: dict[str, str] | None = None) -> None:
        """Fail early, naming file and line, when a server's `${VAR}` is unset, empty or unusable.

        Called before contacting servers; the values themselves are expanded only when connecting,
        so a token never sits in the config object. ``${MCP_EVALS_SANDBOX}`` is always set: each run
        gets its own (``servers.sandbox``).
        """
        environ = checked_environment(environ)
        for index, server in enumerate(self.servers):
            for parts, value, kind in server.variable_fields():
                location = ("servers", index, *parts)
                place = where(self.shown_path, self.line_of(location), dotted(location))
                error = value_error(
                    value, place, header=kind == "header", literal=kind != "arg", environ=environ
                )
                if error is not None:
                    raise error

    def resolve(self, relative: str) -> Path:
        """A path from the config file, relative to the config file's folder."""
        path = Path(relative).expanduser()
        return path if path.is_absolute() else self.base_dir / path
