"""What ``mcp-evals serve`` does for each tool, without the MCP wiring (``serve.app`` adds that).

Every write stays inside the configured folders: case files go to the cases folder, HTML reports
to ``contract.reports``, selection-eval results to ``.mcp-evals/runs``; a name that would reach
outside (``../../x``) is refused before anything is written.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import yaml
from pydantic import BaseModel, Field, ValidationError

from mcp_evals.contract.history import History
from mcp_evals.contract.judging import judge_for
from mcp_evals.contract.load import (
    ContractSetup,
    case_files,
    check_servers,
    library_dirs,
    load_case,
    load_cases,
    parse_case,
    target_of,
)
from mcp_evals.contract.model import Case, ContractRun
from mcp_evals.contract.placeholders import placeholder
from mcp_evals.contract.regression import Comparison, GateResult, compare_runs, evaluate_gate
from mcp_evals.contract.reports import comparison_lines, render_console, render_html
from mcp_evals.contract.runner import run_cases, server_listing
from mcp_evals.errors import McpEvalsError
from mcp_evals.files import atomic_write
from mcp_evals.provider_registry import PROVIDERS, ProviderEntry
from mcp_evals.wording import plural


def runs_anew(entry: ProviderEntry) -> bool:
    """A provider ``run_selection_eval`` can run: one that answers (a replay needs an earlier file)."""
    return not entry.replays


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9 _.-]")


class HarnessError(McpEvalsError):
    """A tool call the harness refuses or cannot complete; the client sees it as a tool error."""


class CaseSummary(BaseModel):
    name: str
    status: str
    mode: str
    failing: list[str] = Field(default_factory=list)


class RunReport(BaseModel):
    run_id: str
    suite: str
    passed: int
    failed: int
    skipped: int
    ok: bool
    cases: list[CaseSummary]
    report: str = Field(description="The console report of the run.")


class ListedCase(BaseModel):
    name: str
    description: str | None
    mode: str
    steps: int
    tools: list[str]
    file: str


class CaseListing(BaseModel):
    cases_dir: str
    cases: list[ListedCase]


class Written(BaseModel):
    path: str
    message: str


class ComparisonReport(BaseModel):
    comparison: Comparison | None
    report: str


class Discovered(BaseModel):
    dirs: list[str]
    cases: list[ListedCase]
    problems: list[str] = Field(default_factory=list)


class FixtureValidation(BaseModel):
    """What `mcp-evals validate --format json` says (``ok`` false on errors or a catalog that differs
    from its lock), with each problem as its log line."""

    ok: bool
    errors: int
    warnings: int
    coverage: dict[str, Any]
    catalog_hash: str
    lock: dict[str, Any] | None = Field(None, description="The catalog against `catalog.lock`, when set.")
    problems: list[str]


class CatalogLint(BaseModel):
    failed: bool = Field(description="A finding at or above `lint.fail_on` that is not ignored.")
    findings: int = Field(description="Findings not accepted through `lint.ignore`.")
    grade: str
    report: str = Field(description="The text report of `mcp-evals lint`.")


class SelectionEval(BaseModel):
    exit_code: int
    results: str | None
    output: str


def safe_file_name(name: str, what: str = "case") -> str:
    """A file name for a user-given name, refusing anything that could leave the folder."""
    if not name or name != name.strip():
        raise HarnessError(f"a {what} name must not be empty or start or end with spaces")
    if "/" in name or "\\" in name or ".." in name or name.startswith(".") or "\x00" in name:
        raise HarnessError(
            f"the {what} name {name!r} could reach outside the cases folder: "
            "no '/', '\\', '..' or leading '.'"
        )
    if _UNSAFE_NAME.search(name):
        raise HarnessError(f"a {what} name may use letters, digits, spaces, '_', '.' and '-' only")
    return re.sub(r"\s+", "-", name.strip()).lower() + ".yaml"


def inside(folder: Path, file_name: str) -> Path:
    """``folder/file_name``, checked to stay inside ``folder`` (after resolving links)."""
    base = folder.resolve()
    path = (base / file_name).resolve()
    if path.parent != base:
        raise HarnessError(f"{file_name!r} would be written outside {base}")
    return path


def _yaml_key(key: str) -> str:
    """A mapping key as YAML reads it back: plain when it is a simple name, else quoted (JSON)."""
    return key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key) else json.dumps(key, ensure_ascii=False)


def _required_inputs(tool: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """(name, placeholder) for each required parameter of a listed tool, in the schema's order."""
    schema = tool.get("inputSchema") if tool is not None else None
    if not isinstance(schema, dict) or not isinstance(schema.get("required"), list):
        return []
    found = schema.get("properties")
    properties: dict[str, Any] = found if isinstance(found, dict) else {}
    return [(key, placeholder(properties.get(key))) for key in schema["required"] if isinstance(key, str)]


class Harness:
    """The state behind the served tools: the contract setup, its history, and the config."""

    def __init__(
        self,
        setup: ContractSetup,
        *,
        db: Path | None = None,
        timeout_ms: int | None = None,
        concurrency: int | None = None,
        config_path: Path | None = None,
        environ: Mapping[str, str] | None = None,
        judge_budget_usd: float | None = None,
    ) -> None:
        self.setup = setup
        self.history = History(db if db is not None else setup.history_path)
        self.timeout_ms = timeout_ms or setup.options.timeout_ms
        self.concurrency = concurrency or setup.options.concurrency
        self.config_path = config_path
        self.environ = dict(os.environ if environ is None else environ)
        # The judge spends only what `mcp-evals serve --judge-budget-usd` allows, never the config's
        # budget: a client of the server is not the person who wrote the config.
        self.judge_options = setup.judge.model_copy(update={"budget_usd": judge_budget_usd})

    # -- running ----------------------------------------------------------------------------------

    async def run(self, names: list[str] | None) -> RunReport:
        cases = load_cases(self.setup, names)
        if not cases:
            raise HarnessError(f"no case files in {self.setup.cases_dir}")
        judge = judge_for(cases, self.judge_options, self.environ)
        run = await run_cases(
            cases,
            self.setup,
            judge,
            timeout_ms=self.timeout_ms,
            concurrency=self.concurrency,
            selection=names,
            environ=self.environ,
        )
        comparison = self.history.regression(run)
        self.history.record(run)
        return self._report(run, comparison)

    def _report(self, run: ContractRun, comparison: Comparison | None) -> RunReport:
        from mcp_evals.contract.regression import failing_lines

        return RunReport(
            run_id=run.run_id,
            suite=run.suite,
            passed=run.passed,
            failed=run.failed,
            skipped=run.skipped,
            ok=run.ok,
            cases=[
                CaseSummary(name=case.name, status=case.status, mode=case.mode, failing=failing_lines(case))
                for case in run.cases
            ],
            report=render_console(run, comparison),
        )

    async def run_suite(self) -> RunReport:
        return await self.run(None)

    async def run_case(self, name: str) -> RunReport:
        return await self.run([name])

    # -- cases ------------------------------------------------------------------------------------

    def _listed(self, case: Case) -> ListedCase:
        return ListedCase(
            name=case.name,
            description=case.description,
            mode=target_of(case, self.setup).mode,
            steps=len(case.steps),
            tools=list(dict.fromkeys(step.tool for step in case.steps)),
            file=case.shown_path,
        )

    def list_cases(self) -> CaseListing:
        return CaseListing(
            cases_dir=str(self.setup.cases_dir),
            cases=[self._listed(case) for case in load_cases(self.setup)],
        )

    def _new_case_path(self, name: str) -> Path:
        """Where a new case named ``name`` goes; refused when it would leave the folder or replace a case."""
        folder = self.setup.cases_dir
        path = inside(folder, safe_file_name(name))
        if path.exists():
            raise HarnessError(f"{path.name} already exists in {folder}: choose another name")
        existing = {case.name for case in self._loadable_cases()}
        if name in existing:
            raise HarnessError(f"a case named {name!r} already exists")
        return path

    def _write_case(self, name: str, text: str) -> Path:
        """Write a new case file, checked first exactly as ``run_case`` will read it: on any problem
        nothing is written (and the file appears whole or not at all)."""
        path = self._new_case_path(name)
        try:
            check_servers([parse_case(text, path)], self.setup)
        except McpEvalsError as error:
            raise HarnessError(
                f"the case is not valid, nothing was written: {error.message}", hint=error.hint
            ) from None
        with atomic_write(path) as stream:
            stream.write(text)
        return path

    def _loadable_cases(self) -> list[Case]:
        if not self.setup.cases_dir.is_dir():
            return []
        found = []
        for path in case_files(self.setup.cases_dir):
            try:
                found.append(load_case(path))
            except McpEvalsError:
                continue
        return found

    def create_test_case(self, name: str, description: str | None, steps: list[dict[str, Any]]) -> Written:
        """Write a simulation case (``simulate: true``: outputs come from ``expected_output``)."""
        document: dict[str, Any] = {"name": name}
        if description:
            document["description"] = description
        document["simulate"] = True
        document["steps"] = steps
        try:
            case = Case.model_validate(document)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise HarnessError(f"the case is not valid: {where}: {first['msg']}") from None
        safe_file_name(name)  # before anything is checked against the folder
        text = "# Written by mcp-evals serve (create_test_case): a simulation case.\n" + yaml.safe_dump(
            case.model_dump(mode="json", exclude_none=True, exclude_defaults=True) | {"simulate": True},
            sort_keys=False,
            allow_unicode=True,
        )
        path = self._write_case(name, text)
        return Written(
            path=str(path), message=f"created simulation case {name!r} with {plural(len(steps), 'step')}"
        )

    async def scaffold_fixture(self, name: str, tool_names: list[str]) -> Written:
        """A case to fill in: one step per tool, every assertion kind as a comment, and a placeholder
        for each required parameter of the tool as the config's server lists it (``contract validate``
        reports each as not written yet)."""
        if not tool_names:
            raise HarnessError("give at least one tool name")
        self._new_case_path(name)  # refused before the server is started
        server = self.setup.default_server()
        listing = await server_listing(server, self.setup) if server is not None else None
        unknown = [tool for tool in tool_names if listing is not None and tool not in listing]
        if listing is not None and unknown:
            known = ", ".join(sorted(listing)[:20]) + (" …" if len(listing) > 20 else "")
            raise HarnessError(f"the server lists no tool {unknown[0]!r}; its tools: {known}")
        lines = [
            '# Scaffolded by mcp-evals serve: fill in the inputs (each "<fill in: …>" is a required',
            "# parameter) and the assertions, then run it. `mcp-evals contract validate` lists what is left.",
            f"name: {json.dumps(name, ensure_ascii=False)}",
            'description: "TODO: what this case proves"',
            "steps:",
        ]
        unwritten = 0
        for index, tool in enumerate(tool_names, start=1):
            required = _required_inputs(listing.get(tool) if listing is not None else None)
            unwritten += len(required)
            lines += [
                f"  - id: step{index}",
                f"    tool: {json.dumps(tool, ensure_ascii=False)}",
                "    # input: the tool's arguments; {{steps.<id>.output}} uses an earlier step",
            ]
            lines += (
                ["    input:"] + [f"      {_yaml_key(key)}: {json.dumps(value)}" for key, value in required]
                if required
                else ["    input: {}  # TODO"]
            )
            lines += [
                "    expect:",
                "      is_error: false",
                '      # output_contains: "…"',
                '      # output_not_contains: "…"',
                '      # output_equals: "…"',
                '      # output_matches: "regex"',
                "      # schema_match: {type: object}",
                "      # structured_matches_output_schema: true",
                f"      # tool_called: {json.dumps(tool, ensure_ascii=False)}",
                "      # latency_under: 1000",
                '      # llm_judge: {prompt_template: "Is {actual} right? {expected}", min_score: 0.7}',
            ]
        path = self._write_case(name, "\n".join(lines) + "\n")
        left = (
            f"; {plural(unwritten, 'required parameter')} to give in place of a placeholder "
            "(`mcp-evals contract validate` lists them)"
            if unwritten
            else ""
        )
        return Written(
            path=str(path),
            message=f"scaffolded {name!r} with {plural(len(tool_names), 'step')}: fill in the TODOs{left}",
        )

    def discover_fixtures(self, dirs: list[str] | None) -> Discovered:
        """Case files in ``dirs``; none given: the cases folder and ``FIXTURE_LIBRARY_DIRS``."""
        folders = (
            [Path(item).expanduser() for item in dirs]
            if dirs
            else [
                self.setup.cases_dir,
                *library_dirs(self.environ),
            ]
        )
        cases: list[ListedCase] = []
        problems: list[str] = []
        for folder in folders:
            if not folder.is_dir():
                problems.append(f"{folder}: not a folder")
                continue
            for path in case_files(folder):
                try:
                    cases.append(self._listed(load_case(path)))
                except McpEvalsError as error:
                    problems.append(str(error))
        return Discovered(dirs=[str(folder) for folder in folders], cases=cases, problems=problems)

    # -- history ----------------------------------------------------------------------------------

    def regression_report(self) -> ComparisonReport:
        latest = self.history.latest(self.setup.suite, limit=1)
        if not latest:
            return ComparisonReport(
                comparison=None, report=f"no recorded run of suite {self.setup.suite!r} yet"
            )
        comparison = self.history.regression(latest[0])
        return ComparisonReport(comparison=comparison, report="\n".join(comparison_lines(comparison)))

    def compare_results(self, run_id_a: str, run_id_b: str) -> ComparisonReport:
        comparison = compare_runs(self.history.get(run_id_a), self.history.get(run_id_b))
        return ComparisonReport(comparison=comparison, report="\n".join(comparison_lines(comparison)))

    def generate_html_report(self, run_id: str) -> Written:
        run = self.history.get(run_id)  # an id that is not a recorded run is refused here
        path = inside(self.setup.reports_dir, re.sub(r"[^A-Za-z0-9_-]", "_", run.run_id) + ".html")
        self.setup.reports_dir.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as stream:
            stream.write(render_html(run))
        return Written(path=str(path), message=f"HTML report of run {run.run_id} written")

    def evaluate_deployment_gate(
        self, workflow_name: str | None, min_pass_rate: float, lookback_runs: int
    ) -> GateResult:
        suite = workflow_name or self.setup.suite
        runs = self.history.latest(suite, limit=lookback_runs)
        return evaluate_gate(suite, runs, min_pass_rate=min_pass_rate, lookback_runs=lookback_runs)

    # -- the tool-selection eval ------------------------------------------------------------------

    async def validate_fixtures(self) -> FixtureValidation:
        """``mcp-evals validate``: the tool-selection fixtures against the live catalog."""
        config = self.setup.config
        if config is None:
            raise HarnessError("validate_fixtures needs a config with `fixtures:` (run serve with --config)")
        from mcp_evals.catalog.snapshot import read_lock
        from mcp_evals.fixtures.load import load_fixtures
        from mcp_evals.fixtures.validate.outcome import validate_config
        from mcp_evals.servers.extract import extract_catalog_async

        fixtures = load_fixtures(config)
        locked = read_lock(config.resolve(config.catalog.lock)) if config.catalog.lock else None
        catalog = await extract_catalog_async(config)
        outcome = validate_config(config, fixtures, catalog, locked, shown_config=config.shown_path)
        document = outcome.document()
        return FixtureValidation(
            ok=document["ok"],
            errors=document["errors"],
            warnings=document["warnings"],
            coverage=document["coverage"],
            catalog_hash=document["catalog_hash"],
            lock=document.get("lock"),
            problems=[str(problem) for problem in outcome.problems],
        )

    async def lint_catalog(self) -> CatalogLint:
        """``mcp-evals lint``: the live catalog (and the fixtures, when the config names some), free."""
        config = self.setup.config
        if config is None:
            raise HarnessError("lint_catalog needs a config (run serve with --config)")
        from mcp_evals.lint.render import render_text
        from mcp_evals.lint.setup import lint_config, prepare_lint
        from mcp_evals.servers.extract import extract_catalog_async

        prepared = prepare_lint(config)  # as the CLI: rule ids checked, fixtures read, before any server
        report, _ = lint_config(prepared, await extract_catalog_async(config))
        return CatalogLint(
            failed=report.failed,
            findings=len(report.active),
            grade=report.grade.letter,
            report=render_text(report),
        )

    async def run_selection_eval(
        self, provider: str, model: str | None, budget_usd: float | None, limit: int | None
    ) -> SelectionEval:
        """``mcp-evals run`` with the CLI's own rules; a paid provider needs an explicit ``budget_usd``."""
        if self.config_path is None or self.setup.config is None:
            raise HarnessError("run_selection_eval needs a config (run serve with --config)")
        try:
            PROVIDERS.check(provider, runs_anew)
        except ValueError as error:
            raise HarnessError(str(error)) from None
        if PROVIDERS[provider].paid and budget_usd is None:
            raise HarnessError(
                f"the {provider} provider spends money: give budget_usd (the most this run may spend); "
                "nothing was sent"
            )
        folder = self.setup.resolve(".mcp-evals/runs")
        folder.mkdir(parents=True, exist_ok=True)
        from mcp_evals.contract.runner import new_run_id

        results = inside(folder, f"{new_run_id()}.ndjson")
        argv = [
            sys.executable, "-m", "mcp_evals", "run", "--config", str(self.config_path),
            "--provider", provider, "--results", str(results),
        ]  # fmt: skip
        if model:
            argv += ["--model", model]
        if budget_usd is not None:
            argv += ["--budget-usd", repr(budget_usd)]
        if limit is not None:
            argv += ["--limit", str(limit)]
        # The budget is the argument or nothing: no EVAL_BUDGET_USD of the server's environment applies.
        environment = {key: value for key, value in self.environ.items() if key != "EVAL_BUDGET_USD"}
        finished = await anyio.run_process(argv, env=environment, check=False)
        output = (finished.stdout + finished.stderr).decode("utf-8", errors="replace")
        return SelectionEval(
            exit_code=finished.returncode,
            results=str(results) if results.exists() else None,
            output=output[-20000:],
        )
