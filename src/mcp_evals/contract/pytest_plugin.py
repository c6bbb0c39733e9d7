"""A pytest plugin: the contract cases of a folder as test items, with the CLI's semantics.

    pytest --mcp-evals-contract evals/contract

Each case file is collected as one item named after its case; running it runs the case as
``mcp-evals contract`` runs it (the config's server and settings, a tool error failing its step,
trials, snapshots, the judge only within a budget) and a failure shows the failing steps with the
assertion that failed. Runs are not recorded in the history: that is the CLI's.

The plugin is installed with mcp-evals (entry point ``pytest11``) and so loads in every pytest run:
without ``--mcp-evals-contract`` (or the ``mcp_evals_contract`` ini setting) it adds its options and
nothing else, and imports nothing of mcp-evals beyond this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mcp_evals.contract.load import ContractSetup
    from mcp_evals.contract.model import Case, CaseResult

_GROUP = "mcp-evals"
_OPTION = "--mcp-evals-contract"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(_GROUP, "mcp-evals contract cases")
    group.addoption(
        _OPTION,
        action="store",
        default=None,
        metavar="DIR",
        help="Run the contract cases of this folder as test items (one per case).",
    )
    group.addoption(
        "--mcp-evals-config",
        action="store",
        default=None,
        metavar="FILE",
        help="The mcp-evals config (default: mcp-evals.yaml when it exists; else cases run on their own).",
    )
    group.addoption(
        "--mcp-evals-trials",
        action="store",
        type=int,
        default=None,
        metavar="N",
        help="Run each case N times; it passes only when all N pass (default: the case's `trials:`, else 1).",
    )
    group.addoption(
        "--mcp-evals-update-snapshots",
        action="store_true",
        default=False,
        help="Store the outputs of `snapshot:` steps anew instead of comparing.",
    )
    group.addoption(
        "--mcp-evals-timeout",
        action="store",
        type=int,
        default=None,
        metavar="MS",
        help="Per-step timeout in milliseconds (default: contract.timeout_ms, else 30000).",
    )
    group.addoption(
        "--mcp-evals-judge-budget-usd",
        action="store",
        type=float,
        default=None,
        metavar="USD",
        help="Most the llm_judge may spend in this session (default: contract.judge.budget_usd).",
    )
    parser.addini("mcp_evals_contract", "The folder of contract cases to run as test items.")
    parser.addini("mcp_evals_config", "The mcp-evals config for the contract cases.")


def _folder(config: pytest.Config) -> Path | None:
    given = config.getoption(_OPTION) or config.getini("mcp_evals_contract")
    if not given:
        return None
    folder = Path(str(given))
    return folder if folder.is_absolute() else Path(config.invocation_params.dir) / folder


def pytest_configure(config: pytest.Config) -> None:
    folder = _folder(config)
    if folder is None:
        return  # not asked for: nothing else happens
    config.addinivalue_line("markers", "mcp_evals_contract: a contract case of mcp-evals")
    shown = str(folder)
    explicit = [arg for arg in config.args if arg not in (".", str(config.invocation_params.dir))]
    if not explicit:  # only the cases, as `pytest --mcp-evals-contract DIR` asks
        config.args[:] = [shown]
    elif shown not in config.args:
        config.args.append(shown)


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    folder = _folder(parent.config)
    if folder is None:
        return None
    inside = file_path.parent.resolve()
    if inside != folder.resolve() and not (
        _setup(parent.config).compat == "mcp-assert" and inside.parent == folder.resolve()
    ):
        return None
    if file_path.suffix.lower() not in (".yaml", ".yml", ".json"):
        return None
    collected: pytest.Collector = CaseFile.from_parent(parent, path=file_path)
    return collected


def _setup(config: pytest.Config) -> ContractSetup:
    """The setup the CLI would use for this folder (the config, the folder, the compatibility)."""
    found = config.stash.get(_SETUP_KEY, None)
    if found is not None:
        return found
    from mcp_evals.config.load import load_config
    from mcp_evals.contract.compat import folder_setup
    from mcp_evals.contract.load import ContractSetup

    base = Path(config.invocation_params.dir)
    given = config.getoption("--mcp-evals-config") or config.getini("mcp_evals_config")
    path = Path(str(given)) if given else base / "mcp-evals.yaml"
    path = path if path.is_absolute() else base / path
    loaded = load_config(path) if given or path.exists() else None
    setup = folder_setup(ContractSetup.of(loaded, cwd=base), _folder(config), "auto")
    config.stash[_SETUP_KEY] = setup
    return setup


_SETUP_KEY = pytest.StashKey["ContractSetup"]()


class CaseFile(pytest.File):
    """One case file: one item, named after its case."""

    def collect(self) -> list[CaseItem]:
        from mcp_evals.contract.load import assertion_case, load_case, server_problems
        from mcp_evals.errors import McpEvalsError

        setup = _setup(self.config)
        notes: list[str] = []
        try:
            found = load_case(self.path) if setup.compat != "mcp-assert" else assertion_case(self.path, notes)
            for problem in server_problems(found, setup) if found is not None else []:
                raise problem
        except McpEvalsError as error:
            raise self.CollectError(str(error)) from None
        for note in notes:
            self.warn(pytest.PytestWarning(f"mcp-assert: {note}"))
        return [] if found is None else [CaseItem.from_parent(self, name=found.name, case=found)]


class CaseItem(pytest.Item):
    """A contract case, run as ``mcp-evals contract`` runs it."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.result: CaseResult | None = None
        self.add_marker("mcp_evals_contract")

    def runtest(self) -> None:
        import os

        import anyio

        from mcp_evals.contract.judging import judge_for
        from mcp_evals.contract.runner import run_cases

        setup = _setup(self.config)
        options = self.config.getoption
        judge = judge_for(
            [self.case], setup.judge, os.environ, budget_usd=options("--mcp-evals-judge-budget-usd")
        )

        async def main() -> Any:
            return await run_cases(
                [self.case],
                setup,
                judge,
                timeout_ms=options("--mcp-evals-timeout") or setup.options.timeout_ms,
                concurrency=1,
                trials=options("--mcp-evals-trials"),
                update_snapshots=bool(options("--mcp-evals-update-snapshots")),
            )

        [result] = anyio.run(main).cases
        self.result = result
        if result.status == "failed":
            raise CaseFailed(result)
        if result.status == "skipped":
            from mcp_evals.contract.reports import skipped_reasons

            pytest.skip("; ".join(skipped_reasons(result)) or "not judged")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFailed):
            from mcp_evals.contract.reports import failure_text

            return failure_text(excinfo.value.result)
        shown: str = str(super().repr_failure(excinfo))
        return shown

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.case.line_of(("name",))
        return self.path, (line - 1) if line else None, f"contract case {self.case.name!r}"


class CaseFailed(Exception):
    """The case failed: its result says why."""

    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.name)
        self.result = result
