"""``mcp-evals compare`` as a library: ``plan_compare(request) -> ComparePlan``, then
``execute_compare(plan) -> CompareOutcome`` (``render_again`` re-makes a comparison from its files).

Two kinds of comparison:

* catalog A/B (``catalog_b``, or ``compare.descriptions`` in the config): did a description rewrite
  help? Arms ``A`` and ``B``.
* delivery (``arms="full,deferred,grouped"`` or ``compare.arms``): would the remediation the gate
  recommends help this catalog? Arms named after how they deliver it.

Every decision is here: the arms, the catalogs, the fixtures and their validation, the spending
(``run.spending``: one model for every arm, a cap required when it bills, a missing key skips), the
outputs checked before anything is sent, the paired comparison. The command adds flags and a
terminal. Bad input raises (exit 3) before the key is looked at; a missing key is returned.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from mcp_evals.api.inputs import PaidModel, config_inputs, decide_for, read_catalog, refuse_invalid
from mcp_evals.catalog.model import Catalog
from mcp_evals.compare.arms import Arm, DeferredArm, FullArm, GroupedArm, ToolSearch
from mcp_evals.compare.estimate import describe_compare
from mcp_evals.compare.execute import ArmsSpend, arm_paths, run_arms
from mcp_evals.compare.overlay import DescriptionOverlay, apply_overlay, overlay_file
from mcp_evals.compare.paired import ArmRecord, Comparison, compare_arms
from mcp_evals.config.model import Config
from mcp_evals.config.resolve import CONCURRENCY_VARIABLE, LIMIT_VARIABLE, number_setting
from mcp_evals.errors import EXIT_OK, EXIT_PRELIMINARY, ConfigError, InputFileError, where
from mcp_evals.files import atomic_write, check_writable, refuse_inputs
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.fixtures.model import Fixture
from mcp_evals.provider_registry import PROVIDERS, ProviderEntry
from mcp_evals.record.read import read_results
from mcp_evals.report.comparison import render_comparison
from mcp_evals.run.asker import Asker, generate_options
from mcp_evals.run.plan import plan_fixtures
from mcp_evals.run.spending import MissingKey
from mcp_evals.wording import alternatives, plural

DEFAULT_OUT = "mcp-evals-compare"
ARM_KINDS = ("full", "deferred", "grouped")
COMPARISON_JSON = "comparison.json"
COMPARISON_MD = "comparison.md"

Say = Callable[[str], None]


def answers_anew(entry: ProviderEntry) -> bool:
    """A provider that answers new questions (a replay only re-scores an earlier run)."""
    return not entry.replays


def converses(entry: ProviderEntry) -> bool:
    """A provider the deferred and grouped arms can use: several requests for one fixture."""
    return entry.conversation


def _quiet(text: str) -> None:
    """The library's default: say nothing (the command passes a printer to stderr)."""


# -- catalogs ---------------------------------------------------------------------------------------


def with_descriptions(catalog: Catalog, config: Config) -> Catalog:
    """Catalog B: catalog A with the descriptions ``compare.descriptions`` gives (unknown tools refused)."""

    def place(key: tuple[str, ...]) -> str:
        return where(config.shown_path, config.line_of(("compare", *key)), "compare." + ".".join(key))

    return apply_overlay(catalog, DescriptionOverlay(descriptions=config.compare.descriptions), place)


# -- the arms ---------------------------------------------------------------------------------------


def _with_reference(kind: str) -> list[str]:
    """The smallest comparison that includes ``kind``: the full catalog and one remediation."""
    return ["full", kind] if kind != "full" else ["full", "deferred"]


def _arm_kinds(option: str | None, config: Config) -> list[str]:
    """The arms asked for; one arm is refused here, before a catalog is read or a request sent."""
    if option is None:
        kinds: list[str] = list(config.compare.arms)
        if len(kinds) == 1:
            place = where(config.shown_path, config.line_of(("compare", "arms")), "compare.arms")
            listed = ", ".join(_with_reference(kinds[0]))
            raise ConfigError(
                f"{place}: one arm is nothing to compare: a comparison pairs each fixture's answers "
                "in two or more arms",
                hint=f"list the full catalog as the reference too: `arms: [{listed}]`",
            )
        return kinds
    kinds = [part.strip() for part in option.split(",") if part.strip()]
    unknown = [kind for kind in kinds if kind not in ARM_KINDS]
    if unknown or not kinds or len(set(kinds)) != len(kinds):
        raise ConfigError(
            f"--arms {option!r}: give distinct arms among {', '.join(ARM_KINDS)}, separated by commas",
            hint="e.g. --arms full,deferred,grouped",
        )
    if len(kinds) == 1:
        raise ConfigError(
            f"--arms {option!r}: one arm is nothing to compare: a comparison pairs each fixture's answers "
            "in two or more arms",
            hint=f"add the full catalog as the reference: --arms {','.join(_with_reference(kinds[0]))}",
        )
    return kinds


def _section(config: Config, key: str) -> str:
    return where(config.shown_path, config.line_of(("compare", key)), f"compare.{key}")


def _refuse_both_kinds(config: Config) -> None:
    """A config that asks for deliveries (arms) and for catalog B (descriptions): the run does one.

    The arms deliver the config's catalog as it is; running them on catalog B too would be a
    second comparison (each delivery, A against B), which compare does not do. Neither is dropped
    in silence: the user says which.
    """
    if config.compare.arms and config.compare.descriptions:
        raise ConfigError(
            f"{_section(config, 'arms')} and {_section(config, 'descriptions')}: a comparison is either "
            "deliveries of one catalog (`arms`) or two catalogs (`descriptions`), not both; the "
            "descriptions would be ignored",
            hint="remove `arms:` to measure the new descriptions, or `descriptions:` to measure the "
            "deliveries (then compare again with the other)",
        )


def _unused_sections(config: Config, *, catalog_b: str | None, arms: bool) -> list[str]:
    """The compare sections of the config that a flag's choice of comparison leaves unused
    (``catalog_b``: the flag that gives catalog B, if one does)."""
    notes = []
    if catalog_b and config.compare.arms:
        notes.append(f"{_section(config, 'arms')} is not used: {catalog_b} compares two catalogs")
    if catalog_b and config.compare.descriptions:
        what = "the --catalog-b snapshot" if catalog_b == "--catalog-b" else "catalog A with --descriptions"
        notes.append(f"{_section(config, 'descriptions')} is not used: catalog B is {what}")
    if arms and config.compare.descriptions:
        notes.append(
            f"{_section(config, 'descriptions')} is not used: --arms delivers the config's catalog as it "
            "is, without the new descriptions"
        )
    return notes


def _asker(paid: PaidModel, catalog: Catalog, config: Config) -> Asker:
    """An arm's model: its own connections, the catalog it delivers, the config's prompt."""
    search = config.compare.tool_search  # the provider's own tool search, if it has one
    own = {**paid.settings.own, "tool_search": search.variant, "tool_search_beta": search.beta}
    provider = paid.spending.provider_class(replace(paid.settings, own=own))
    return Asker(provider, catalog, config.system_prompt, paid.options)


def build_arms(
    config: Config,
    paid: PaidModel,
    *,
    catalog_a: Catalog,
    catalog_b: Catalog | None,
    kinds: list[str],
    label_a: str,
    label_b: str,
) -> list[Arm]:
    if catalog_b is not None:
        return [
            FullArm("A", _asker(paid, catalog_a, config), label_a),
            FullArm("B", _asker(paid, catalog_b, config), label_b),
        ]
    ordered = sorted(kinds, key=ARM_KINDS.index)  # full first: the reference every remediation is paired with
    if not paid.spending.choice.entry.conversation and set(ordered) - {"full"}:
        raise ConfigError(
            f"the deferred and grouped arms need a model, not {paid.spending.choice.entry.in_words}",
            hint=f"set {alternatives(PROVIDERS.key_variables(converses))} "
            "(or name the provider with --provider)",
        )
    search = config.compare.tool_search
    arms: list[Arm] = []
    for kind in ordered:
        asker = _asker(paid, catalog_a, config)
        if kind == "full":
            arms.append(
                FullArm("full", asker, "every tool, whole, in every request (as mcp-evals run sends them)")
            )
        elif kind == "deferred":
            arms.append(DeferredArm("deferred", asker, ToolSearch(search.variant, search.top_k)))
        else:
            if len(catalog_a.areas) < 2:
                raise ConfigError(
                    f"the grouped arm needs at least two areas; the catalog has {len(catalog_a.areas)}",
                    hint="define them under `areas:` in the config (area → tool names or globs)",
                )
            arms.append(GroupedArm("grouped", asker))
    return arms


# -- the plan -------------------------------------------------------------------------------------------


@dataclass
class CompareRequest:
    """What a comparison is asked to do; ``None`` means the ``EVAL_*`` variable, the config, the default."""

    config: Config
    catalog_a: Path | None = None
    catalog_b: Path | None = None
    descriptions: Path | None = None  # an overlay file: catalog B is catalog A with its descriptions
    arms: str | None = None  # "full,deferred,grouped"
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    budget_usd: float | None = None
    concurrency: int | None = None
    samples: int | None = None
    limit: int | None = None
    split: str | None = None
    out: Path | None = None
    dry: bool = False
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    say: Say = _quiet  # notes and warnings, as they come (before a later error)


@dataclass
class ComparePlan:
    """Everything decided before the first request: what ``execute_compare`` runs, ``--dry`` prices."""

    request: CompareRequest
    paid: PaidModel
    arms: list[Arm]
    fixtures: list[Fixture]
    planned: list[Fixture]
    samples: int
    limit: int | None
    concurrency: int
    out: Path

    @property
    def config(self) -> Config:
        return self.request.config


@dataclass
class CompareOutcome:
    """What a comparison came to: 0 complete · 2 PRELIMINARY; its Markdown and where it was written."""

    exit_code: int
    comparison: Comparison
    markdown: str
    out: Path


def plan_compare(request: CompareRequest) -> ComparePlan | MissingKey:
    """Decide everything a comparison needs; bad input raises (exit 3), a missing key is returned."""
    config, environ, say = request.config, request.environ, request.say
    catalog_b, descriptions, arms_option = request.catalog_b, request.descriptions, request.arms
    if catalog_b is not None and descriptions is not None:
        raise ConfigError(
            "give --catalog-b (a snapshot) or --descriptions (an overlay of catalog A), not both"
        )
    b_flag = (
        "--catalog-b" if catalog_b is not None else "--descriptions" if descriptions is not None else None
    )
    if b_flag is not None and arms_option is not None:
        raise ConfigError(f"give {b_flag} (catalog A/B) or --arms (deliveries), not both")
    if b_flag is None and arms_option is None:
        _refuse_both_kinds(config)
    kinds = [] if b_flag is not None else _arm_kinds(arms_option, config)
    ab = b_flag is not None or (not kinds and bool(config.compare.descriptions))
    for note in _unused_sections(config, catalog_b=b_flag, arms=arms_option is not None):
        say(f"note: {note}")
    if not ab and not kinds:
        raise ConfigError(
            "nothing to compare",
            hint="give --catalog-b SNAPSHOT or `compare.descriptions` (catalog A/B), or --arms "
            "full,deferred,grouped (or `compare.arms`)",
        )
    workers = (
        number_setting(
            request.concurrency, environ, CONCURRENCY_VARIABLE, config.run.concurrency, int, at_most=256
        )
        or 4
    )
    limit = number_setting(request.limit, environ, LIMIT_VARIABLE, None, int)
    fixtures = load_fixtures(config, warn=lambda text: say(f"warning: {text}"))
    if request.split is not None:
        fixtures = [fixture for fixture in fixtures if fixture.split == request.split]
        if not fixtures:
            raise ConfigError(f"--split {request.split}: no fixture has `split: {request.split}`")
    spending = decide_for(
        "compare",
        request,
        config.run,
        where=converses if set(kinds) - {"full"} else None,
        needs_model="The deferred and grouped arms need a model" if set(kinds) - {"full"} else None,
        cap="required",
    )
    if spending.choice.entry.replays:
        raise ConfigError(
            f"compare asks a model (or the lexical baseline); {spending.name} cannot answer new arms"
        )
    if spending.missing_key is not None:
        return spending.missing_key
    paid = PaidModel(
        spending,
        spending.settings(config.run, max_connections=max(4, workers + 2)),
        generate_options(config.run),
    )

    first = read_catalog(config, request.catalog_a)
    second = None
    label_a = (
        f"catalog A: {request.catalog_a}" if request.catalog_a else "catalog A: the catalog of the config"
    )
    label_b = ""
    if ab:
        count = len(config.compare.descriptions)
        if catalog_b is not None:
            second, label_b = read_catalog(config, catalog_b), f"catalog B: {catalog_b}"
        elif descriptions is not None:
            second = overlay_file(descriptions, first)
            label_b = f"catalog B: catalog A with the descriptions of {descriptions}"
        else:
            second = with_descriptions(first, config)
            label_b = f"catalog B: catalog A with {plural(count, 'new description')}"
    arms = build_arms(
        config, paid, catalog_a=first, catalog_b=second, kinds=kinds, label_a=label_a, label_b=label_b
    )
    for arm in arms:
        refuse_invalid(
            fixtures,
            arm.catalog,
            config,
            against=f"the catalog of arm {arm.name!r}",
            doing="comparing",
            hint="a comparison asks the same fixtures of every arm: each catalog must have their tools",
        )
    return ComparePlan(
        request=request,
        paid=paid,
        arms=arms,
        fixtures=fixtures,
        planned=plan_fixtures(fixtures, limit=limit),
        samples=request.samples or config.run.samples,
        limit=limit,
        concurrency=workers,
        out=request.out or Path(DEFAULT_OUT),
    )


def estimate_compare(plan: ComparePlan) -> list[str]:
    """``--dry``: each arm's cost per fixture, and whether the budget fits; nothing is sent."""
    spending = plan.paid.spending
    return describe_compare(plan.arms, plan.planned, plan.samples, spending.price, spending.budget_usd)


# -- executing ------------------------------------------------------------------------------------------


def execute_compare(
    plan: ComparePlan, *, say: Say = _quiet, progress_label: str | None = None
) -> CompareOutcome:
    """Check the outputs, run every arm's jobs interleaved, write each arm's results and the comparison."""
    config, paid, arms, out = plan.config, plan.paid, plan.arms, plan.out
    request = plan.request
    snapshots = {
        "the snapshot of catalog A": request.catalog_a,
        "the snapshot of catalog B": request.catalog_b,
        "the descriptions file": request.descriptions,
    }
    outputs = [*arm_paths(arms, out).values(), out / COMPARISON_JSON, out / COMPARISON_MD]
    inputs = {**config_inputs(config), **snapshots}
    for path in outputs:
        refuse_inputs(path, inputs, what="the output")
        check_writable(path)
    records, _ = run_arms(
        config,
        arms,
        plan.planned,
        plan.fixtures,
        ArmsSpend(paid.spending.budget_usd, paid.price),
        out,
        samples=plan.samples,
        limit=plan.limit,
        concurrency=plan.concurrency,
        command=progress_label or "mcp-evals compare",
        say=say,
    )
    return _finish(compare_arms(records, alpha=config.compare.alpha), out)


def _finish(comparison: Comparison, out: Path) -> CompareOutcome:
    markdown = render_comparison(comparison)
    with atomic_write(out / COMPARISON_JSON) as stream:
        stream.write(comparison.model_dump_json(indent=2) + "\n")
    with atomic_write(out / COMPARISON_MD) as stream:
        stream.write(markdown)
    return CompareOutcome(EXIT_PRELIMINARY if comparison.preliminary else EXIT_OK, comparison, markdown, out)


def render_again(folder: Path) -> Comparison:
    """The comparison an earlier compare wrote to ``folder``, computed again from its arms' records."""
    path = folder / COMPARISON_JSON
    if not path.exists():
        raise InputFileError(
            f"{path}: no comparison here", hint="give the --out folder of an earlier compare"
        )
    try:
        earlier = Comparison.model_validate_json(path.read_text("utf-8"))
    except ValueError as error:
        raise InputFileError(f"{path}: not a comparison written by mcp-evals compare ({error})") from None
    records = [ArmRecord(arm.arm, read_results(folder / arm.arm.results)) for arm in earlier.arms]
    return compare_arms(records, alpha=earlier.alpha)
