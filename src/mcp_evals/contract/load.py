"""Finding and reading contract cases, and deciding what each one runs against.

Case files are YAML or JSON, one case per file, read with line numbers so every problem names
``file:line (field)``. Everything that can be checked without a server is checked here, before
anything runs: the shape of each case, unique names, and every ``{{steps.…}}`` reference.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from mcp_evals.config.documents import (
    describe_validation_error,
    dotted,
    load_document_as,
    shown,
)
from mcp_evals.config.isolation import check_state, checked_environment
from mcp_evals.config.model import Config, ContractOptions, JudgeOptions, ServerConfig
from mcp_evals.config.variables import value_error
from mcp_evals.contract.chaining import ChainingError, find_references
from mcp_evals.contract.model import Case, CaseServer, Mode
from mcp_evals.errors import ConfigError, InputFileError, McpEvalsError, where
from mcp_evals.wording import docs_url

CASE_SUFFIXES = (".yaml", ".yml", ".json")
DEFAULT_CASES = "evals/contract"


@dataclass
class ContractSetup:
    """Where cases, history and reports live, and the run defaults: from the config, or without one.

    ``cases_folder`` is a folder given on the command line (``--fixtures``), instead of
    ``contract.cases``; ``compat`` is set when the cases run with mcp-eval-runner's semantics
    (``contract/compat.py``).
    """

    config: Config | None
    base_dir: Path
    options: ContractOptions
    cases_folder: Path | None = None
    compat: str | None = None

    @classmethod
    def of(
        cls, config: Config | None, *, cwd: Path | None = None, cases: Path | None = None
    ) -> ContractSetup:
        if config is None:
            return cls(None, (cwd or Path.cwd()).resolve(), ContractOptions(), cases)
        return cls(config, config.base_dir, config.contract, cases)

    def resolve(self, relative: str | Path) -> Path:
        path = Path(relative).expanduser()
        return path if path.is_absolute() else self.base_dir / path

    @property
    def cases_dir(self) -> Path:
        if self.cases_folder is not None:
            return self.cases_folder
        return self.resolve(self.options.cases)

    @property
    def history_path(self) -> Path:
        return self.resolve(self.options.history)

    @property
    def reports_dir(self) -> Path:
        return self.resolve(self.options.reports)

    @property
    def suite(self) -> str:
        return self.options.suite or self.base_dir.name or "contract"

    @property
    def judge(self) -> JudgeOptions:
        return self.options.judge

    def default_server(self) -> ServerConfig | None:
        """The config server a case without `server:` uses; None without a config (simulation)."""
        if self.config is None:
            return None
        wanted = self.options.server
        if wanted is not None:
            return self.server_named(wanted)
        if len(self.config.servers) == 1:
            return self.config.servers[0]
        return None

    def server_named(self, name: str) -> ServerConfig | None:
        if self.config is None:
            return None
        return next((server for server in self.config.servers if server.name == name), None)


@dataclass
class Target:
    """What one case runs against: a live server, or nothing (simulation, maybe with a saved catalog)."""

    mode: Mode
    server: ServerConfig | None

    @property
    def label(self) -> str | None:
        if self.server is None:
            return None
        if self.server.command:
            return " ".join([self.server.command, *self.server.args])
        if self.server.url:
            from mcp_evals.servers.client import redact_url

            return redact_url(self.server.url)
        return f"snapshot {self.server.snapshot}"


def target_of(case: Case, setup: ContractSetup) -> Target:
    """Live against the case's server block, a named or the default config server; else simulation.

    A config server that is a saved ``snapshot:`` cannot run tools: such cases run in simulation
    mode, with the snapshot's catalog for the checks that need one.
    """
    if case.simulate:
        return Target("simulation", None)
    if isinstance(case.server, CaseServer):
        return Target("live", case_server(case, case.server, setup))
    server = setup.server_named(case.server) if isinstance(case.server, str) else setup.default_server()
    if server is None:
        return Target("simulation", None)
    return Target("simulation" if server.snapshot else "live", server)


def case_server(case: Case, server: CaseServer, setup: ContractSetup) -> ServerConfig:
    """A case's own server block as a server: in the case's folder, with PATH, HOME and locale only.

    With mcp-eval-runner's semantics it starts in the current folder with the whole environment,
    as that tool starts it.
    """
    if setup.compat is None:
        return server.to_server_config(server_name(case.name), case.path.parent)
    return server.to_server_config(server_name(case.name), setup.base_dir).with_whole_environment()


def server_name(case_name: str) -> str:
    """A server name (``[A-Za-z0-9][A-Za-z0-9_.-]*``) for the server block of a case."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", case_name).strip("-._")[:64]
    return slug if slug and slug[0].isalnum() else f"case-{slug}"[:64].rstrip("-._") or "case"


def case_files(directory: Path) -> list[Path]:
    """The case files directly in ``directory`` (YAML or JSON), sorted by name."""
    if not directory.is_dir():
        raise InputFileError(
            f"{shown(directory)}: {'not a folder' if directory.exists() else 'cases folder not found'}",
            hint=f"create it and add case files (see {docs_url('contract.md')}), "
            "or set `contract.cases` in the config",
        )
    return sorted(
        path for path in directory.iterdir() if path.is_file() and path.suffix.lower() in CASE_SUFFIXES
    )


def load_case(path: Path) -> Case:
    """Read and check one case file; problems are InputFileErrors naming file, line and field."""
    return _checked_case(path)


def parse_case(text: str, path: Path) -> Case:
    """Check ``text`` as the case file ``path`` would be (same checks, same messages), writing nothing."""
    return _checked_case(path, text)


def _checked_case(path: Path, text: str | None = None) -> Case:
    display = shown(path)
    document = load_document_as(path, display, text=text)
    if not isinstance(document.data, dict):
        raise InputFileError(
            f"{display}: a case file holds one case: a mapping with `name` and `steps`",
            hint=f"see {docs_url('contract.md')}, or `mcp-evals schema contract` for every key",
        )
    try:
        case = Case.model_validate(document.data)
    except ValidationError as error:
        raise InputFileError(describe_validation_error(error, document, schema="contract")) from None
    case.located(path.resolve(), display, document.lines)
    check_references(case)
    check_state(case, case.state)
    return case


def check_references(case: Case) -> None:
    """Every ``{{steps.…}}`` must parse and name a step that comes before the one using it."""
    earlier: set[str] = set()
    for index, step in enumerate(case.steps):
        try:
            references = list(find_references(step.input))
        except ChainingError as error:
            location: tuple[str | int, ...] = ("steps", index, "input")
            raise InputFileError(
                f"{where(case.shown_path, case.line_of(location), dotted(location))}: {error}"
            ) from None
        for path, reference in references:
            if reference.step in earlier:
                continue
            location = ("steps", index, "input", *path)
            later = any(other.id == reference.step for other in case.steps[index:])
            reason = (
                f"step {reference.step!r} comes later; a step can only use the steps before it"
                if later
                else f"no step {reference.step!r} in this case"
            )
            raise InputFileError(
                f"{where(case.shown_path, case.line_of(location), dotted(location))}: "
                f"{reference.describe()}: {reason}",
                hint=f"steps before this one: {', '.join(sorted(earlier)) or 'none'}",
            )
        earlier.add(step.id)


@dataclass
class ReadCases:
    """Every case of a folder that loaded, and every problem found reading them (none stops the rest)."""

    cases: list[Case]
    problems: list[McpEvalsError]
    # Cases whose own server cannot start as written (a variable unset): loaded, but not startable.
    unstartable: set[str]
    # What a peer's files said on the way in (mcp-assert: what maps with a change, what does not).
    notes: list[str] = field(default_factory=list)


def read_cases(setup: ContractSetup) -> ReadCases:
    """Every case in the cases folder, checked: each file's shape and references, unique names, the
    servers they name and the variables their server blocks use. A problem never hides the next one."""
    cases: list[Case] = []
    problems: list[McpEvalsError] = []
    seen: dict[str, Case] = {}
    notes: list[str] = []
    files = case_files(setup.cases_dir)
    if setup.compat == "mcp-assert":
        from mcp_evals.contract.mcpassert import assertion_files

        files = assertion_files(setup.cases_dir)
    for path in files:
        try:
            loaded = load_case(path) if setup.compat != "mcp-assert" else assertion_case(path, notes)
        except InputFileError as error:
            problems.append(error)
            continue
        if loaded is None:
            continue
        case = loaded
        if case.name in seen:
            first = seen[case.name]
            problems.append(
                InputFileError(
                    f"{where(case.shown_path, case.line_of(('name',)), 'name')}: the case name "
                    f"{case.name!r} is also used by {where(first.shown_path, first.line_of(('name',)))}",
                    hint="case names must be unique: history and reports know a case by its name",
                )
            )
            continue
        seen[case.name] = case
        cases.append(case)
    unstartable: set[str] = set()
    for case in cases:
        found = server_problems(case, setup)
        if found:
            unstartable.add(case.name)
        problems += found
    return ReadCases(cases, problems, unstartable, notes)


def assertion_case(path: Path, notes: list[str]) -> Case | None:
    """An mcp-assert assertion file as a case (``contract/mcpassert.py``), or None when it is not run
    (what it says goes to ``notes``); a file that is not valid YAML, or whose case does not hold, is an
    InputFileError naming it."""
    import os

    from mcp_evals.contract.mcpassert import convert, is_assertion

    display = shown(path)
    document = load_document_as(path, display)
    if not is_assertion(document.data):
        raise InputFileError(f"{display}: not an mcp-assert assertion (no `assert:` block)")
    name = str(document.data.get("name") or path.name)
    converted = convert(document.data, display, name, fixture=None, environ=os.environ)
    notes += [f"changed: {text}" for text in converted.changed]
    notes += [f"not mapped: {text}" for text in converted.refused]
    if converted.case is None:
        notes.append(f"not run: {display}: {converted.skipped}")
        return None
    try:
        case = Case.model_validate(converted.case)
    except ValidationError as error:
        raise InputFileError(
            f"{display}: {describe_validation_error(error, document, schema='contract')}"
        ) from None
    case.located(path.resolve(), display, document.lines)
    check_references(case)
    return case


def select(cases: list[Case], names: list[str] | None, setup: ContractSetup) -> list[Case]:
    """The cases named (all when none is); an unknown name is an error that lists the cases."""
    if not names:
        return cases
    known = {case.name for case in cases}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ConfigError(
            f"no case named {unknown[0]!r} in {shown(setup.cases_dir)}",
            hint=f"the cases are: {', '.join(sorted(known)) or 'none'}",
        )
    wanted = set(names)
    return [case for case in cases if case.name in wanted]


def load_cases(setup: ContractSetup, names: list[str] | None = None) -> list[Case]:
    """Every case in the cases folder (or only those named), checked; the first problem is raised."""
    read = read_cases(setup)
    if read.problems:
        raise read.problems[0]
    return select(read.cases, names, setup)


def check_servers(cases: list[Case], setup: ContractSetup) -> None:
    """Raise the first problem of the servers ``cases`` name (see ``server_problems``)."""
    for case in cases:
        for problem in server_problems(case, setup):
            raise problem


def server_problems(case: Case, setup: ContractSetup) -> list[McpEvalsError]:
    """What keeps a case from reaching its server: a config server it names that does not exist, a
    config with several (or no) servers and no default, a variable its server block uses unset.

    A simulation case runs no server and needs none.
    """
    config = setup.config
    if isinstance(case.server, CaseServer):
        return variable_problems(case, case.server)
    if isinstance(case.server, str):
        if config is None or setup.server_named(case.server) is None:
            names = ", ".join(server.name for server in config.servers) if config else "none (no config)"
            return [
                InputFileError(
                    f"{where(case.shown_path, case.line_of(('server',)), 'server')}: no config server "
                    f"named {case.server!r} (the config's servers: {names or 'none'})"
                )
            ]
        return []
    if config is None or setup.default_server() is not None:
        return []
    if setup.options.server is not None:
        return [
            ConfigError(
                f"{where(config.shown_path, config.line_of(('contract', 'server')), 'contract.server')}: "
                f"no server named {setup.options.server!r}"
            )
        ]
    if case.simulate:
        return []
    if not config.servers:
        return [
            InputFileError(
                f"{case.shown_path}: the config lists no server; give this case a `server:` block",
                hint="or add a server to the config, or `simulate: true` to run it in simulation mode",
            )
        ]
    return [
        InputFileError(
            f"{case.shown_path}: the config has {len(config.servers)} servers; say which one this case "
            "uses with `server: <name>`",
            hint="or set `contract.server` in the config for every case that names none",
        )
    ]


def variable_problems(case: Case, server: CaseServer) -> list[McpEvalsError]:
    """The `${VAR}` in a case's server block that cannot be expanded (unset without a default, …)."""
    problems: list[McpEvalsError] = []
    for parts, value, kind in server.to_server_config("case", Path(".")).variable_fields():
        location = ("server", *parts)
        error = value_error(
            value,
            where(case.shown_path, case.line_of(location), dotted(location)),
            header=kind == "header",
            literal=kind != "arg",
            file="the case file",
            environ=checked_environment(),
        )
        if error is not None:
            problems.append(error)
    return problems


def library_dirs(environ: dict[str, str] | None = None) -> list[Path]:
    """The folders in ``FIXTURE_LIBRARY_DIRS`` (colon-separated, like PATH)."""
    value = (os.environ if environ is None else environ).get("FIXTURE_LIBRARY_DIRS", "")
    return [Path(part).expanduser() for part in value.split(os.pathsep) if part.strip()]
