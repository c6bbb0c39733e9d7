"""``mcp-evals contract``: run tool-call contract cases; validate them; regressions, comparisons, the gate.

Exit codes: 0 every case passed (skipped cases are reported, not failures) · 1 a case failed, a
regression, a failed gate or invalid cases · 3 bad input.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import click

from mcp_evals.cli.options import config_option, read_config
from mcp_evals.contract.compat import COMPAT_CHOICES, CompatChoice
from mcp_evals.contract.load import ContractSetup
from mcp_evals.contract.model import ContractRun
from mcp_evals.contract.regression import Comparison
from mcp_evals.contract.reports import FORMATS, Format
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, ConfigError, McpEvalsError
from mcp_evals.wording import docs_url, plural

_COMPARE_FORMATS = ("console", "json", "md")


def load_setup(ctx: click.Context, config_path: Path) -> ContractSetup:
    """The config when there is one; without it (the default file missing), cases run on their own."""
    source = ctx.get_parameter_source("config_path")
    if source == click.core.ParameterSource.DEFAULT and not config_path.exists():
        return ContractSetup.of(None)
    return ContractSetup.of(read_config(config_path))


def cases_setup(
    ctx: click.Context, config_path: Path, fixtures: Path | None, compat: CompatChoice
) -> ContractSetup:
    """The setup to run or check cases with: the config (or none), the cases folder (``--fixtures``,
    else the config's, else ``./evals/contract`` or mcp-eval-runner's ``./evals``), and its semantics:
    ours, or mcp-eval-runner's when asked for or detected (``contract/compat.py``)."""
    from mcp_evals.contract.compat import folder_setup

    return folder_setup(load_setup(ctx, config_path), fixtures, compat)


def history_of(setup: ContractSetup, db: Path | None) -> Any:
    from mcp_evals.contract.history import History

    return History(db if db is not None else setup.history_path)


def emit(text: str, out: Path | None) -> None:
    if out is None:
        click.echo(text, nl=False)
        sys.stdout.flush()
        return
    from mcp_evals.files import atomic_write

    with atomic_write(out, what="--out") as stream:
        stream.write(text)
    click.echo(f"report written to {out}", err=True)


def check_outputs(**outputs: Path | None) -> None:
    """Bad input (exit 3) now, before a server starts: an output over a file the command read, an
    output that could not be written, or two outputs on one path."""
    from mcp_evals.files import check_writable, refuse_inputs, same_file

    given = [(f"--{name}", path) for name, path in outputs.items() if path is not None]
    for what, path in given:
        refuse_inputs(path, what=what)
        check_writable(path)
    for index, (what, path) in enumerate(given):
        for other, there in given[index + 1 :]:
            if same_file(path, there):
                raise ConfigError(f"{what} and {other} name one file, {path}", hint="give each its own path")


def run_and_report(
    setup: ContractSetup,
    names: list[str] | None,
    *,
    timeout_ms: int,
    concurrency: int,
    report_format: Format,
    out: Path | None,
    db: Path | None,
    record: bool,
    continue_on_failure: bool | None,
    judge_budget: float | None,
    trials: int | None = None,
    update_snapshots: bool = False,
    junit: Path | None = None,
    keep_sandbox: bool = False,
) -> ContractRun:
    """Load, run, compare with history, record, report: one run of the cases."""
    from mcp_evals.contract.judging import judge_for
    from mcp_evals.contract.load import load_cases
    from mcp_evals.contract.reports import render
    from mcp_evals.contract.runner import run_cases

    if setup.config is not None:
        setup.config.check_variables()
    cases = load_cases(setup, names)
    if not cases:
        raise ConfigError(
            f"no case files in {setup.cases_dir}",
            hint=f"add one (see {docs_url('contract.md')}), "
            "or scaffold one with `mcp-evals serve`'s scaffold_fixture",
        )
    judge = judge_for(cases, setup.judge, os.environ, budget_usd=judge_budget)
    history = history_of(setup, db) if record else None
    if history is not None:
        history.check()  # before any server starts
    check_outputs(out=out, junit=junit)  # the config, a case file or the history: before any server starts
    if setup.compat is not None:
        from mcp_evals.contract.compat import notice
        from mcp_evals.contract.load import read_cases

        for line in [*notice(setup), *read_cases(setup).notes]:
            click.echo(line, err=True)
    click.echo(
        f"mcp-evals contract: {plural(len(cases), 'case')} · suite {setup.suite} · "
        f"concurrency {concurrency} · step timeout {timeout_ms} ms"
        + (f" · {trials} trials each" if trials is not None and trials > 1 else ""),
        err=True,
    )

    async def main() -> ContractRun:
        return await run_cases(
            cases,
            setup,
            judge,
            timeout_ms=timeout_ms,
            concurrency=concurrency,
            selection=names,
            continue_on_failure=continue_on_failure,
            trials=trials,
            update_snapshots=update_snapshots,
            keep_sandbox=keep_sandbox,
        )

    run = anyio.run(main)
    comparison: Comparison | None = None
    if history is not None:
        comparison = history.regression(run)
        history.record(run)
    emit(render(run, report_format, comparison), out)
    if junit is not None:
        from mcp_evals.contract.reports import render_junit
        from mcp_evals.files import atomic_write

        with atomic_write(junit, what="--junit") as stream:
            stream.write(render_junit(run))
        click.echo(f"JUnit report written to {junit}", err=True)
    return run


_fixtures_option = click.option(
    "--fixtures",
    "--fixtures-dir",
    "fixtures",
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder of case files (default: contract.cases; without a config ./evals/contract, or "
    "./evals when only that holds cases).",
)
_compat_option = click.option(
    "--compat",
    type=click.Choice(COMPAT_CHOICES),
    default="auto",
    show_default=True,
    help="mcp-eval-runner, mcp-assert: run the folder as that tool does (no config); auto: when no config "
    "is used and every file of a --fixtures folder (or ./evals) is in its format; none: never.",
)


def _db_option(function: Any) -> Any:
    return click.option(
        "--db",
        "--db-path",
        "db",
        type=click.Path(dir_okay=False, path_type=Path),
        help="The history file (SQLite).",
    )(function)


@click.group(invoke_without_command=True)
@config_option
@_fixtures_option
@_compat_option
@click.option("--case", "case_names", multiple=True, metavar="NAME", help="Run only this case (repeatable).")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    help="Cases at the same time (default 1, or contract.concurrency).",
)
@click.option(
    "--timeout",
    "timeout_ms",
    type=click.IntRange(1),
    help="Per-step timeout in milliseconds (default 30000, or contract.timeout_ms).",
)
@click.option("--format", "report_format", type=click.Choice(FORMATS), default="console", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here.")
@_db_option
@click.option("--no-history", is_flag=True, help="Neither read nor record history.")
@click.option(
    "--continue-on-failure/--stop-on-failure",
    default=None,
    help="Run a case's later steps after a failed one (default: stop; see contract.continue_on_failure).",
)
@click.option(
    "--judge-budget-usd",
    type=click.FloatRange(0, min_open=True),
    help="Most the llm_judge may spend in this run (default: contract.judge.budget_usd; none: not asked).",
)
@click.option(
    "--trials",
    type=click.IntRange(1, 100),
    help="Run each case N times, each from a fresh server: it passes only when all N pass (pass^k); "
    "flaky or failing otherwise (default: each case's `trials:`, else 1).",
)
@click.option(
    "--update-snapshots",
    is_flag=True,
    help="Store the outputs of `snapshot:` steps anew instead of comparing.",
)
@click.option(
    "--junit",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a JUnit XML report here (one testcase per case).",
)
@click.option("--keep-sandbox", is_flag=True, help="Keep each case's sandbox folder (the report says where).")
@click.option("--watch", is_flag=True, help="Re-run the cases a changed case or server file affects.")
@click.option("--interval", type=click.FloatRange(0.1), default=1.0, help="Seconds between --watch polls.")
@click.pass_context
def contract(
    ctx: click.Context,
    config_path: Path,
    fixtures: Path | None,
    compat: CompatChoice,
    case_names: tuple[str, ...],
    concurrency: int | None,
    timeout_ms: int | None,
    report_format: Format,
    out: Path | None,
    db: Path | None,
    no_history: bool,
    continue_on_failure: bool | None,
    judge_budget_usd: float | None,
    trials: int | None,
    update_snapshots: bool,
    junit: Path | None,
    keep_sandbox: bool,
    watch: bool,
    interval: float,
) -> int:
    """Run contract cases: call tools on live servers (or simulate) and check every step's result.

    \b
    Cases come from `contract.cases` (default ./evals/contract) or --fixtures; without a config,
    cases run against their own `server:` block, or in simulation mode. A folder of mcp-eval-runner
    cases runs as that tool runs it (see --compat).
    Examples:
      mcp-evals contract
      mcp-evals contract --fixtures evals --db-path evals.db
      mcp-evals contract --case "refund flow" --format html --out contract.html
      mcp-evals contract --trials 5 --junit contract-junit.xml
      mcp-evals contract --update-snapshots
      mcp-evals contract fuzz
      mcp-evals contract validate
      mcp-evals contract regression
      mcp-evals contract gate --min-pass-rate 0.95 --lookback 10
    Exit codes: 0 all passed · 1 a case failed · 3 bad input.
    """
    if ctx.invoked_subcommand is not None:
        return EXIT_OK
    setup = cases_setup(ctx, config_path, fixtures, compat)
    names = list(case_names) or None
    settings: dict[str, Any] = {
        "timeout_ms": timeout_ms or setup.options.timeout_ms,
        "concurrency": concurrency or setup.options.concurrency,
        "report_format": report_format,
        "out": out,
        "db": db,
        "record": not no_history,
        "continue_on_failure": continue_on_failure,
        "judge_budget": judge_budget_usd,
        "trials": trials,
        "update_snapshots": update_snapshots,
        "junit": junit,
        "keep_sandbox": keep_sandbox,
    }
    from mcp_evals.contract.watch import Watcher
    from mcp_evals.contract.watch import watch as watch_loop

    # Taken before the first run, so an edit made while it runs is seen afterwards.
    watcher = Watcher(setup, names) if watch else None
    run = run_and_report(setup, names, **settings)
    if watcher is None:
        return EXIT_OK if run.ok else EXIT_CHECK_FAILED

    def say(text: str) -> None:
        click.echo(text, err=True)
        sys.stderr.flush()

    def again(selected: list[str]) -> None:
        run_and_report(setup, selected, **settings)

    say(f"watch: watching {setup.cases_dir} and the servers' source files (Ctrl-C to stop)")
    watch_loop(watcher, again, interval=interval, say=say)
    return EXIT_OK  # pragma: no cover - the loop ends with Ctrl-C


@contract.command("validate")
@config_option
@_fixtures_option
@_compat_option
@click.option("--case", "case_names", multiple=True, metavar="NAME", help="Only this case (repeatable).")
@click.option(
    "--catalog",
    "catalog_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Check against this snapshot instead of reading the servers (cases without their own server).",
)
@click.pass_context
def validate(
    ctx: click.Context,
    config_path: Path,
    fixtures: Path | None,
    compat: CompatChoice,
    case_names: tuple[str, ...],
    catalog_path: Path | None,
) -> int:
    """Check case files without calling a tool: shape, references, tools, inputs against their schemas.

    Reads each server's tool list (or --catalog); simulation cases without a catalog get only the
    offline checks. Every problem is reported, a case file that does not load or a server that does
    not start included. Exit codes: 0 valid · 1 problems · 3 a case file cannot be read.
    """
    from mcp_evals.contract.load import read_cases, select
    from mcp_evals.contract.validate import validate_case

    setup = cases_setup(ctx, config_path, fixtures, compat)
    read = read_cases(setup)
    cases = select(read.cases, list(case_names) or None, setup)
    unreadable = [_located(error) for error in read.problems]
    startable = [case for case in cases if case.name not in read.unstartable]
    listings, unstarted = _listings(setup, startable, catalog_path)
    problems: list[str] = []
    checked = simulated = 0
    for case in startable:
        if case.name not in listings:
            continue  # its server did not start: reported once, with the server
        listing = listings[case.name]
        if listing is None:
            simulated += 1
        else:
            checked += 1
        problems += [_one_line(str(problem)) for problem in validate_case(case, listing)]
    everything = list(dict.fromkeys([*unreadable, *unstarted, *problems]))
    for problem in everything:
        click.echo(problem)
    not_started = len(cases) - checked - simulated
    summary = (
        f"{plural(len(cases), 'case')}: {checked} checked against a catalog"
        + (f", {simulated} with no catalog (simulation: shape and references only)" if simulated else "")
        + (f", {not_started} whose server cannot be started" if not_started else "")
        + f"; {plural(len(everything), 'problem')}"
    )
    click.echo(("FAILED: " if everything else "ok: ") + summary)
    if unreadable:
        return EXIT_BAD_INPUT
    return EXIT_CHECK_FAILED if everything else EXIT_OK


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


def _located(error: McpEvalsError) -> str:
    """A problem found reading the cases: its message on one line, its hint (if any) indented below."""
    line = _one_line(error.message)
    return f"{line}\n  hint: {_one_line(error.hint)}" if error.hint else line


def _listings(
    setup: ContractSetup, cases: list[Any], catalog_path: Path | None
) -> tuple[dict[str, Any], list[str]]:
    """Each case's tools by name (from --catalog, a snapshot server, or the live server, read once),
    and one problem per server that could not be started or read, naming the cases that use it."""
    from mcp_evals.contract.load import target_of
    from mcp_evals.contract.runner import server_listing

    by_case: dict[str, Any] = {}
    live: dict[str, Any] = {}
    failed: dict[str, tuple[McpEvalsError, list[Any]]] = {}
    saved = None
    if catalog_path is not None:
        from mcp_evals.catalog.snapshot import read_snapshot

        snapshot = read_snapshot(catalog_path)
        saved = {str(tool.get("name")): tool for info in snapshot.servers for tool in info.tools}
    for case in cases:
        target = target_of(case, setup)
        own_server = not isinstance(case.server, str) and case.server is not None
        if saved is not None and not own_server:
            by_case[case.name] = saved
        elif target.server is None:
            by_case[case.name] = None
        else:
            key = target.server.model_dump_json()
            if key in failed:
                failed[key][1].append(case)
                continue
            if key not in live:
                try:
                    live[key] = anyio.run(server_listing, target.server, setup)
                except McpEvalsError as error:
                    failed[key] = (error, [case])
                    continue
            by_case[case.name] = live[key]
    problems = []
    for failure, users in failed.values():
        first = users[0]
        names = ", ".join(repr(case.name) for case in users)
        place = first.shown_path if len(users) == 1 else f"{first.shown_path} and {len(users) - 1} more"
        lines = str(failure).splitlines()
        problems.append(
            "\n".join(
                [f"{place} (server): the server could not be started or read (cases {names}): {lines[0]}"]
                + [f"  {line}" for line in lines[1:]]
            )
        )
    return by_case, problems


def _run_for(history: Any, setup: ContractSetup, run_id: str | None) -> ContractRun | None:
    if run_id is not None:
        run: ContractRun = history.get(run_id)
        return run
    latest = history.latest(setup.suite, limit=1)
    return latest[0] if latest else None


@contract.command("regression")
@config_option
@_db_option
@click.option("--run", "run_id", help="The run to judge (default: the latest of the suite).")
@click.option("--format", "report_format", type=click.Choice(_COMPARE_FORMATS), default="console")
@click.pass_context
def regression(
    ctx: click.Context, config_path: Path, db: Path | None, run_id: str | None, report_format: str
) -> int:
    """The latest run against the results before it: regressions and fixes, case by case.

    Exit codes: 0 no regression (or no history yet) · 1 a case that passed before fails now.
    """

    setup = load_setup(ctx, config_path)
    history = history_of(setup, db)
    run = _run_for(history, setup, run_id)
    if run is None:
        click.echo(f"no recorded run of suite {setup.suite!r} in {history.path}: no history yet")
        return EXIT_OK
    comparison = history.regression(run)
    _print_comparison(comparison, report_format)
    return EXIT_CHECK_FAILED if comparison.regressions else EXIT_OK


@contract.command("compare")
@config_option
@click.argument("run_a")
@click.argument("run_b")
@_db_option
@click.option("--format", "report_format", type=click.Choice(_COMPARE_FORMATS), default="console")
@click.pass_context
def compare(
    ctx: click.Context, config_path: Path, run_a: str, run_b: str, db: Path | None, report_format: str
) -> int:
    """RUN_B against RUN_A (two runs of one suite). Exit 1 when a case passing in A fails in B."""
    from mcp_evals.contract.regression import compare_runs

    history = history_of(load_setup(ctx, config_path), db)
    comparison = compare_runs(history.get(run_a), history.get(run_b))
    _print_comparison(comparison, report_format)
    return EXIT_CHECK_FAILED if comparison.regressions else EXIT_OK


def _print_comparison(comparison: Comparison, report_format: str) -> None:
    from mcp_evals.contract.reports import comparison_lines, markdown_comparison

    if report_format == "json":
        click.echo(comparison.model_dump_json(indent=2))
    elif report_format == "md":
        click.echo("\n".join(markdown_comparison(comparison)))
    else:
        click.echo("\n".join(comparison_lines(comparison)))


@contract.command("gate")
@config_option
@_db_option
@click.option(
    "--min-pass-rate",
    type=click.FloatRange(0, 1),
    required=True,
    help="Lowest share of passing cases, 0–1 (0.95 = 95 %).",
)
@click.option("--lookback", type=click.IntRange(1), default=10, show_default=True, help="Runs to judge on.")
@click.option("--suite", help="The suite (default: contract.suite, else the config's folder name).")
@click.pass_context
def gate(
    ctx: click.Context,
    config_path: Path,
    db: Path | None,
    min_pass_rate: float,
    lookback: int,
    suite: str | None,
) -> int:
    """Deployment gate: fail when the pass rate over the last runs is below the minimum.

    Exit codes: 0 passed · 1 below the minimum, or no recorded run to judge.
    """
    from mcp_evals.contract.regression import evaluate_gate

    setup = load_setup(ctx, config_path)
    history = history_of(setup, db)
    name = suite or setup.suite
    result = evaluate_gate(
        name, history.latest(name, limit=lookback), min_pass_rate=min_pass_rate, lookback_runs=lookback
    )
    click.echo(result.message)
    return EXIT_OK if result.ok else EXIT_CHECK_FAILED


@contract.command("history")
@config_option
@_db_option
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True)
@click.option("--all-suites", is_flag=True, help="Every suite in the file, not only this config's.")
@click.pass_context
def history(ctx: click.Context, config_path: Path, db: Path | None, limit: int, all_suites: bool) -> int:
    """The latest recorded runs, newest first: ids to give `compare` and `--run`."""
    from mcp_evals.report.escape import plain

    setup = load_setup(ctx, config_path)
    store = history_of(setup, db)
    runs = store.summaries(None if all_suites else setup.suite, limit=limit)
    if not runs:
        click.echo(f"no recorded runs in {store.path}")
        return EXIT_OK
    for run in runs:
        sha = f" {run.git_sha[:10]}" if run.git_sha else ""
        click.echo(
            f"{run.run_id}  {run.started_at}  {plain(run.suite, 40)}  "
            f"{run.passed} passed, {run.failed} failed, {run.skipped} skipped{sha}"
        )
    return EXIT_OK


@contract.command("fuzz")
@config_option
@click.option(
    "--server", "server_names", multiple=True, metavar="NAME", help="Only this config server (repeatable)."
)
@click.option("--tool", "tools", multiple=True, metavar="NAME", help="Only this tool (repeatable).")
@click.option(
    "--include-writes",
    is_flag=True,
    help="Also call tools that may write (not read-only or idempotent) unless annotated destructive.",
)
@click.option("--include-destructive", is_flag=True, help="Call every tool, those annotated destructive too.")
@click.option(
    "--timeout",
    "timeout_ms",
    type=click.IntRange(1),
    default=10_000,
    show_default=True,
    help="Milliseconds a call may take before it counts as hung.",
)
@click.option("--format", "report_format", type=click.Choice(("console", "json")), default="console")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here.")
@click.pass_context
def fuzz(
    ctx: click.Context,
    config_path: Path,
    server_names: tuple[str, ...],
    tools: tuple[str, ...],
    include_writes: bool,
    include_destructive: bool,
    timeout_ms: int,
    report_format: str,
    out: Path | None,
) -> int:
    """Call each tool with arguments its input schema refuses; expect -32602 or isError, never a crash.

    \b
    Each required argument left out, each argument of the wrong type or null, a value outside its
    enum, an undeclared argument where none is allowed, and for a read-only tool a 1 MiB string.
    By default only tools annotated read-only, and idempotent ones not annotated destructive (with
    refused arguments only); a tool annotated destructive only with --include-destructive.
    Examples:
      mcp-evals contract fuzz
      mcp-evals contract fuzz --server memory --tool search_nodes --format json
    Exit codes: 0 no finding · 1 a finding (accepted, another error code, a crash, no answer) · 3 bad input.
    """
    from mcp_evals.contract.fuzz import Fuzz, Reach, render_console, render_json

    setup = load_setup(ctx, config_path)
    if setup.config is None:
        raise ConfigError(
            f"{config_path}: not found; fuzz calls the servers of a config",
            hint="give --config, or run where mcp-evals.yaml is",
        )
    config = setup.config
    config.check_variables()
    check_outputs(out=out)
    live = [server for server in config.servers if not server.snapshot]
    unknown = [name for name in server_names if name not in {server.name for server in config.servers}]
    if unknown:
        raise ConfigError(
            f"no server named {unknown[0]!r} in {config.shown_path}",
            hint=f"its servers: {', '.join(server.name for server in config.servers) or 'none'}",
        )
    chosen = [server for server in live if not server_names or server.name in server_names]
    if not chosen:
        raise ConfigError(f"{config.shown_path}: no live server to fuzz (a `snapshot:` server runs no tool)")
    reach: Reach = "destructive" if include_destructive else "writes" if include_writes else "read-only"

    async def main() -> list[Any]:
        return [
            await Fuzz(server, config, reach=reach, timeout=timeout_ms / 1000, only=list(tools)).run()
            for server in chosen
        ]

    reports = anyio.run(main)
    emit(render_json(reports) if report_format == "json" else render_console(reports), out)
    return EXIT_CHECK_FAILED if any(report.findings for report in reports) else EXIT_OK
