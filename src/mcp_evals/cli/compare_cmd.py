"""``mcp-evals compare``: the same fixtures, model and settings against several arms, in one paired run.

Two kinds of comparison:

* catalog A/B (``--catalog-a``/``--catalog-b``, or ``compare.descriptions`` in the config): did a
  description rewrite help? Arms ``A`` and ``B``.
* delivery (``--arms full,deferred,grouped`` or ``compare.arms``): would the remediation the gate
  recommends help this catalog? Arms named after how they deliver it.

Writes one results file per arm, ``comparison.json`` and ``comparison.md`` to ``--out`` (default
``mcp-evals-compare/``); ``--from DIR`` renders a comparison again from those files alone. Exit
codes: 0 complete · 2 PRELIMINARY (some answer never reached the model) · 3 bad input, or a paid
model without a budget cap.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio
import click

from mcp_evals.catalog.model import Catalog
from mcp_evals.cli.options import ProviderChoice, config_inputs, config_option, read_config
from mcp_evals.cli.paid import PaidModel, choose_paid_model
from mcp_evals.compare.arms import Arm, DeferredArm, FullArm, GroupedArm, ToolSearch
from mcp_evals.compare.estimate import describe_compare
from mcp_evals.compare.paired import ArmInfo, ArmRecord, Comparison, compare_arms
from mcp_evals.compare.runner import ArmsRunner, interleave
from mcp_evals.config.model import Config
from mcp_evals.errors import EXIT_OK, EXIT_PRELIMINARY, ConfigError, InputFileError, where
from mcp_evals.files import atomic_write, check_writable, refuse_inputs
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.fixtures.model import Fixture
from mcp_evals.fixtures.validate import has_errors, validate_fixtures
from mcp_evals.provider_registry import PROVIDERS, ProviderEntry
from mcp_evals.record.read import read_results
from mcp_evals.report.comparison import render_comparison
from mcp_evals.run.asker import Asker
from mcp_evals.run.plan import EXPECT_NOTHING_CACHED, make_header, plan_fixtures, run_notes
from mcp_evals.run.progress import Progress
from mcp_evals.run.results_file import ResultsWriter
from mcp_evals.run.retry import RetryPolicy
from mcp_evals.run.runner import RunSettings, summarize_dropouts
from mcp_evals.suggest import Suggester, did_you_mean
from mcp_evals.wording import alternatives, plural

DEFAULT_OUT = "mcp-evals-compare"
ARM_KINDS = ("full", "deferred", "grouped")
COMPARISON_JSON = "comparison.json"
COMPARISON_MD = "comparison.md"


# -- catalogs ---------------------------------------------------------------------------------------


def _catalog(config: Config, snapshot: Path | None) -> Catalog:
    if snapshot is not None:
        from mcp_evals.catalog.snapshot import load_catalog

        return load_catalog(snapshot, areas=config.areas or None)
    from mcp_evals.servers.extract import extract_catalog

    config.check_variables()
    return extract_catalog(config)


def with_descriptions(catalog: Catalog, config: Config) -> Catalog:
    """Catalog B: catalog A with the descriptions ``compare.descriptions`` gives (unknown tools refused)."""
    overrides = config.compare.descriptions
    suggest = Suggester(catalog.tool_names)
    for name in overrides:
        if name not in catalog.by_name:
            line = config.line_of(("compare", "descriptions", name))
            raise ConfigError(
                f"{where(config.shown_path, line, f'compare.descriptions.{name}')}: no tool {name!r} in the "
                f"catalog{did_you_mean(suggest(name))}",
                hint="`mcp-evals catalog` lists the tools",
            )
    tools = [
        tool.model_copy(update={"description": overrides[tool.name]}) if tool.name in overrides else tool
        for tool in catalog.tools
    ]
    return Catalog(tools=tools, servers=catalog.servers)


def _refuse_invalid(fixtures: list[Fixture], catalog: Catalog, config: Config, arm: str) -> None:
    problems = validate_fixtures(
        fixtures, catalog, config.validation, exclude_tools=config.exclude_tools, areas=config.areas
    )
    if has_errors(problems):
        errors = [str(problem) for problem in problems if problem.severity == "error"]
        shown = "\n".join(f"  {line}" for line in errors[:20])
        raise InputFileError(
            f"the fixtures do not validate against the catalog of arm {arm!r} "
            f"({plural(len(errors), 'error')}); not comparing:\n{shown}",
            hint="a comparison asks the same fixtures of every arm: each catalog must have their tools",
        )


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


def _unused_sections(config: Config, *, catalog_b: bool, arms: bool) -> list[str]:
    """The compare sections of the config that a flag's choice of comparison leaves unused."""
    notes = []
    if catalog_b and config.compare.arms:
        notes.append(f"{_section(config, 'arms')} is not used: --catalog-b compares two catalogs")
    if catalog_b and config.compare.descriptions:
        notes.append(f"{_section(config, 'descriptions')} is not used: catalog B is the --catalog-b snapshot")
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
    provider = paid.provider_class(replace(paid.settings, own=own))
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
    if not paid.choice.entry.conversation and set(ordered) - {"full"}:
        raise ConfigError(
            f"the deferred and grouped arms need a model, not {paid.choice.entry.in_words}",
            hint=f"set {alternatives(PROVIDERS.key_variables(lambda entry: entry.conversation))} "
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


# -- the command ------------------------------------------------------------------------------------


def answers_anew(entry: ProviderEntry) -> bool:
    """A provider that answers new questions (a replay only re-scores an earlier run)."""
    return not entry.replays


@click.command()
@config_option
@click.option(
    "--catalog-a",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Arm A's catalog snapshot (default: the config's catalog).",
)
@click.option(
    "--catalog-b",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Arm B's catalog snapshot (default: catalog A with `compare.descriptions`).",
)
@click.option("--arms", "arms_option", metavar="LIST", help="Deliveries to compare: full,deferred,grouped.")
@click.option("--provider", type=ProviderChoice(answers_anew), help="As in run.")
@click.option("--model", help="Model id (env EVAL_MODEL; default as in run).")
@click.option("--base-url", help="API base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL).")
@click.option(
    "--budget-usd",
    type=click.FloatRange(0, min_open=True),
    help="Stop before the next request could cross this many dollars (env EVAL_BUDGET_USD). Required "
    "with a paid model.",
)
@click.option("--concurrency", type=click.IntRange(1, 256), help="Requests in flight (default 4).")
@click.option("--samples", type=click.IntRange(1, 100), help="Answers per fixture and arm (default 1).")
@click.option("--limit", type=click.IntRange(1), help="Only the first N fixtures.")
@click.option("--split", type=click.Choice(["dev", "test"]), help="Only the fixtures of this split.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help=f"Folder for the arms' results and the comparison (default {DEFAULT_OUT}).",
)
@click.option("--dry", is_flag=True, help="Send nothing: estimate each arm's cost per fixture.")
@click.option(
    "--from",
    "from_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Render the comparison again from a folder an earlier compare wrote (calls nothing).",
)
def compare(
    config_path: Path,
    catalog_a: Path | None,
    catalog_b: Path | None,
    arms_option: str | None,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    budget_usd: float | None,
    concurrency: int | None,
    samples: int | None,
    limit: int | None,
    split: str | None,
    out: Path | None,
    dry: bool,
    from_dir: Path | None,
) -> int:
    """Run the same fixtures against two catalogs, or one catalog delivered several ways, paired.

    \b
    Catalog A/B: --catalog-b SNAPSHOT (or compare.descriptions in the config) against the config's
    catalog (or --catalog-a). Deliveries: --arms full,deferred,grouped (or compare.arms): the whole
    catalog, the catalog behind tool search, or one router tool per area. One run, fixtures
    interleaved across arms, same model and settings; the paired exact test per pair of arms and
    per-area deltas. A paid model needs a budget cap. Exit 0 · 2 PRELIMINARY · 3 bad input.
    """
    if from_dir is not None:
        return _render_again(from_dir)
    config = read_config(config_path)
    if catalog_b is not None and arms_option is not None:
        raise ConfigError("give --catalog-b (catalog A/B) or --arms (deliveries), not both")
    if catalog_b is None and arms_option is None:
        _refuse_both_kinds(config)
    kinds = [] if catalog_b is not None else _arm_kinds(arms_option, config)
    ab = catalog_b is not None or (not kinds and bool(config.compare.descriptions))
    for note in _unused_sections(config, catalog_b=catalog_b is not None, arms=arms_option is not None):
        click.echo(f"note: {note}", err=True)
    if not ab and not kinds:
        raise ConfigError(
            "nothing to compare",
            hint="give --catalog-b SNAPSHOT or `compare.descriptions` (catalog A/B), or --arms "
            "full,deferred,grouped (or `compare.arms`)",
        )
    paid = choose_paid_model(
        "compare", config, provider=provider, model=model, base_url=base_url, budget_usd=budget_usd, dry=dry
    )
    if paid.choice.entry.replays:
        raise ConfigError(
            f"compare asks a model (or the lexical baseline); {paid.choice.name} cannot answer new arms"
        )
    if paid.choice.name == "lexical":
        paid.settings = replace(paid.settings, model="bm25")

    first = _catalog(config, catalog_a)
    second = None
    label_a = f"catalog A: {catalog_a}" if catalog_a else "catalog A: the catalog of the config"
    label_b = ""
    if ab:
        second = _catalog(config, catalog_b) if catalog_b is not None else with_descriptions(first, config)
        count = len(config.compare.descriptions)
        label_b = (
            f"catalog B: {catalog_b}"
            if catalog_b
            else f"catalog B: catalog A with {plural(count, 'new description')}"
        )
    arms = build_arms(
        config, paid, catalog_a=first, catalog_b=second, kinds=kinds, label_a=label_a, label_b=label_b
    )

    fixtures = load_fixtures(config, warn=lambda text: click.echo(f"warning: {text}", err=True))
    if split is not None:
        fixtures = [fixture for fixture in fixtures if fixture.split == split]
        if not fixtures:
            raise ConfigError(f"--split {split}: no fixture has `split: {split}`")
    for arm in arms:
        _refuse_invalid(fixtures, arm.catalog, config, arm.name)
    planned = plan_fixtures(fixtures, limit=limit)
    sample_count = samples or config.run.samples
    if dry:
        for line in describe_compare(arms, planned, sample_count, paid.price, paid.budget_usd):
            click.echo(line)
        return EXIT_OK
    snapshots = {"the snapshot of catalog A": catalog_a, "the snapshot of catalog B": catalog_b}
    destination = out or Path(DEFAULT_OUT)
    return _run(
        config, snapshots, paid, arms, planned, fixtures, sample_count, limit, concurrency, destination
    )


def _run(
    config: Config,
    snapshots: dict[str, Path | None],
    paid: PaidModel,
    arms: list[Arm],
    planned: list[Fixture],
    fixtures: list[Fixture],
    samples: int,
    limit: int | None,
    concurrency: int | None,
    out: Path,
) -> int:
    paths = {arm.name: out / f"{arm.name}.ndjson" for arm in arms}
    outputs = [*paths.values(), out / COMPARISON_JSON, out / COMPARISON_MD]
    inputs = {**config_inputs(config), **snapshots}
    for path in outputs:
        refuse_inputs(path, inputs, what="the output")
        check_writable(path)
    writers = {}
    for arm in arms:
        notes = [*arm.notes(), *run_notes(arm.asker, paid.price)]
        if (
            arm.kind != "full"
        ):  # the caching estimate is about the whole catalog, which this arm does not send
            notes = [note for note in notes if EXPECT_NOTHING_CACHED not in note]
        header = make_header(
            asker=arm.asker,
            planned=planned,
            all_fixtures=fixtures,
            samples=samples,
            shard=None,
            limit=limit,
            exclude_tools=config.exclude_tools,
            scoring=config.scoring,
            gate=config.gate,
            notes=notes,
        )
        writers[arm.name] = ResultsWriter(paths[arm.name], header)
    jobs = interleave([arm.name for arm in arms], planned, samples)
    workers = concurrency or config.run.concurrency or 4
    runner = ArmsRunner(
        arms,
        RunSettings(
            concurrency=workers,
            retry=RetryPolicy(max_attempts=config.run.max_attempts, max_wait=config.run.max_wait),
            budget_usd=paid.budget_usd,
            price=paid.price,
            request_deadline=config.run.timeout * 3,
        ),
        writers,
        progress=Progress(len(jobs), label="mcp-evals compare"),
        total=len(jobs),
    )
    click.echo(
        f"mcp-evals compare: {plural(len(planned), 'fixture')} × {plural(samples, 'sample')} × "
        f"{plural(len(arms), 'arm')} "
        f"({', '.join(arm.name for arm in arms)}) = {len(jobs)} jobs · "
        f"{paid.choice.name}/{paid.settings.model} · concurrency {workers}",
        err=True,
    )
    summary = anyio.run(runner.run, jobs)
    parts = [f"{summary.reached}/{summary.planned} reached", f"dropouts: {summarize_dropouts(summary)}"]
    if paid.price is not None:
        parts.append(f"cost ${summary.spent_usd:.4f}")
    click.echo(f"mcp-evals compare: {' · '.join(parts)} → {out}", err=True)
    if summary.fatal is not None:
        click.echo(f"mcp-evals compare: stopped by a fatal error: {summary.fatal.message}", err=True)
    records = [
        ArmRecord(
            ArmInfo(name=arm.name, kind=arm.kind, label=arm.label, results=paths[arm.name].name),
            read_results(paths[arm.name]),
        )
        for arm in arms
    ]
    return _finish(compare_arms(records, alpha=config.compare.alpha), out)


def _finish(comparison: Comparison, out: Path) -> int:
    markdown = render_comparison(comparison)
    with atomic_write(out / COMPARISON_JSON) as stream:
        stream.write(comparison.model_dump_json(indent=2) + "\n")
    with atomic_write(out / COMPARISON_MD) as stream:
        stream.write(markdown)
    click.echo(markdown, nl=False)
    click.echo(f"comparison: {out / COMPARISON_MD} · {out / COMPARISON_JSON}", err=True)
    return EXIT_PRELIMINARY if comparison.preliminary else EXIT_OK


def _render_again(folder: Path) -> int:
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
    comparison = compare_arms(records, alpha=earlier.alpha)
    click.echo(render_comparison(comparison), nl=False)
    return EXIT_PRELIMINARY if comparison.preliminary else EXIT_OK
