"""One writer refuses inputs: no `--out`/`--output` of any command replaces a file that command read.

Every path option of every command (enumerated from the click group) is classified below; each output
is pointed at each kind of input the command reads — the config, a fixture file, a contract case, a
snapshot, a results or records file, the history database — directly and through a symlink: exit 3,
a message saying it is an input, and the input byte for byte as it was.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
import yaml

from conftest import Cli
from fakes.fake_anthropic import Call, FakeAnthropic, Text
from mcp_evals.cli import cli as group
from mcp_evals.contract.runner import git_sha
from mcp_evals.session.prepare import today
from mcp_evals.session.records_file import newest_records_file, records_path

from .conftest import HostileProject, tool

# Every path option: what it is. A new option fails test_every_path_option_is_classified until it is
# classified here (and, when it is an output, given a scenario below).
OUTPUT, INPUT, NEVER_OVERWRITES = "output", "input", "never overwrites"
PATH_OPTIONS = {
    ("audit", "--config"): INPUT,
    ("audit", "--output"): OUTPUT,
    ("baseline accept", "--out"): OUTPUT,
    ("baseline accept", "--config"): INPUT,
    ("baseline compare", "--baseline"): INPUT,
    ("baseline compare", "--config"): INPUT,
    ("catalog", "--config"): INPUT,
    ("catalog", "--out"): OUTPUT,
    ("compare", "--config"): INPUT,
    ("compare", "--catalog-a"): INPUT,
    ("compare", "--catalog-b"): INPUT,
    ("compare", "--out"): OUTPUT,
    ("compare", "--from"): INPUT,
    ("contract", "--config"): INPUT,
    ("contract", "--fixtures"): INPUT,
    ("contract validate", "--fixtures"): INPUT,
    # the importers write new files only, "never over an existing file" (tests/importers)
    ("import mcp-eval-runner-history", "--config"): INPUT,
    ("import mcp-eval-runner-history", "--db"): OUTPUT,
    ("import mcp-eval-runner-history", "--fixtures"): INPUT,
    ("import mcpgrade", "--out"): NEVER_OVERWRITES,
    ("import mcpgrade", "--snapshot"): INPUT,
    ("import mcpjam", "--out"): NEVER_OVERWRITES,
    ("import promptfoo", "--out"): NEVER_OVERWRITES,
    ("contract", "--out"): OUTPUT,
    ("contract", "--junit"): OUTPUT,
    ("contract fuzz", "--config"): INPUT,
    ("contract fuzz", "--out"): OUTPUT,
    ("import mcp-assert", "--fixture"): INPUT,
    ("import mcp-assert", "--out"): NEVER_OVERWRITES,
    ("contract", "--db"): OUTPUT,
    ("contract compare", "--config"): INPUT,
    ("contract compare", "--db"): OUTPUT,
    ("contract gate", "--config"): INPUT,
    ("contract gate", "--db"): OUTPUT,
    ("contract history", "--config"): INPUT,
    ("contract history", "--db"): OUTPUT,
    ("contract regression", "--config"): INPUT,
    ("contract regression", "--db"): OUTPUT,
    ("contract validate", "--config"): INPUT,
    ("contract validate", "--catalog"): INPUT,
    ("init", "--config"): NEVER_OVERWRITES,
    ("lint", "--config"): INPUT,
    ("lint", "--catalog"): INPUT,
    ("lint", "--output"): OUTPUT,
    ("lint", "--results"): INPUT,
    ("merge", "--out"): OUTPUT,
    ("report", "--out"): OUTPUT,
    ("report", "--baseline"): INPUT,
    ("report", "--config"): INPUT,
    ("run", "--config"): INPUT,
    ("run", "--results"): OUTPUT,
    ("run", "--from"): INPUT,
    ("serve", "--config"): INPUT,
    ("serve", "--db"): OUTPUT,
    ("session", "--config"): INPUT,
    ("session", "--tasks"): INPUT,
    ("session", "--results"): OUTPUT,
    ("session report", "--out"): OUTPUT,
    ("session validate", "--config"): INPUT,
    ("session validate", "--tasks"): INPUT,
    ("session validate", "--catalog"): INPUT,
    ("synth", "--config"): INPUT,
    ("synth", "--catalog"): INPUT,
    ("synth", "--out"): OUTPUT,
    ("validate", "--config"): INPUT,
    ("validate", "--catalog"): INPUT,
}


def path_options() -> Iterator[tuple[str, str]]:
    context = click.Context(group)

    def walk(command: click.Command, path: list[str]) -> Iterator[tuple[str, str]]:
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                if sub is not None and name != "action":  # the Action's paths come from its inputs
                    yield from walk(sub, [*path, name])
        for parameter in command.params:
            if isinstance(parameter, click.Option) and isinstance(parameter.type, click.Path):
                yield " ".join(path), parameter.opts[0]

    yield from walk(group, [])


def test_every_path_option_is_classified() -> None:
    assert sorted(path_options()) == sorted(PATH_OPTIONS)


# -- a project with every kind of input ------------------------------------------------------------


@dataclass
class Project:
    root: Path
    hostile: HostileProject

    @property
    def config(self) -> Path:
        return self.root / "mcp-evals.yaml"

    @property
    def fixtures(self) -> Path:
        return self.root / "fixtures" / "main.yaml"

    @property
    def snapshot(self) -> Path:
        return self.root / "catalog.json"

    @property
    def case(self) -> Path:
        return self.root / "evals" / "contract" / "sim.yaml"

    @property
    def results(self) -> Path:
        return self.root / "results.ndjson"

    @property
    def history(self) -> Path:
        return self.root / ".mcp-evals" / "history.db"


@pytest.fixture
def project(tmp_path: Path, helpdesk_snapshot: Path, cli: Cli) -> Project:
    root = tmp_path / "project"
    (root / "fixtures").mkdir(parents=True)
    shutil.copy(helpdesk_snapshot, root / "catalog.json")
    document = {
        "servers": [{"name": "helpdesk", "snapshot": "catalog.json"}],
        "fixtures": "fixtures/*.yaml",
        "contract": {"history": ".mcp-evals/history.db"},
    }
    (root / "mcp-evals.yaml").write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
    fixtures = [
        {"id": "f1", "query": "Show me ticket 4512", "expected_tools": ["get_ticket"]},
        {"id": "f2", "query": "What's the weather in Lisbon?", "kind": "refuse"},
    ]
    (root / "fixtures" / "main.yaml").write_text(yaml.safe_dump({"fixtures": fixtures}), "utf-8")
    (root / "evals" / "contract").mkdir(parents=True)
    case = {
        "name": "sim",
        "simulate": True,
        "steps": [
            {"id": "a", "tool": "get_ticket", "expected_output": "ok", "expect": {"output_contains": "ok"}}
        ],
    }
    (root / "evals" / "contract" / "sim.yaml").write_text(yaml.safe_dump(case, sort_keys=False), "utf-8")
    made = Project(root, HostileProject(tmp_path))
    ran = cli("run", "--config", made.config, "--provider", "lexical", "--results", made.results)
    assert ran.code == 0, ran.err
    recorded = cli("contract", "--config", made.config)
    assert recorded.code == 0, recorded.err
    assert made.history.exists()
    return made


Argv = Callable[[Path], list[str | Path]]


def scenarios(project: Project) -> dict[tuple[str, str], list[tuple[Argv, Path]]]:
    """For each output option: (the command line given an output path, an input it must not replace)."""
    p = project
    config = ["--config", p.config]
    return {
        ("lint", "--output"): [
            (lambda out: ["lint", *config, "--output", out], target)
            for target in (p.config, p.fixtures, p.snapshot)
        ],
        ("audit", "--output"): [(lambda out: ["audit", *config, "--output", out], p.config)],
        ("catalog", "--out"): [
            (lambda out: ["catalog", *config, "--out", out], target) for target in (p.config, p.fixtures)
        ],
        ("contract", "--out"): [
            (lambda out: ["contract", *config, "--format", "json", "--out", out], target)
            for target in (p.case, p.config, p.history)
        ],
        ("contract", "--junit"): [
            (lambda out: ["contract", *config, "--junit", out], target)
            for target in (p.case, p.config, p.history)
        ],
        ("contract fuzz", "--out"): [(lambda out: ["contract", "fuzz", *config, "--out", out], p.config)],
        ("contract", "--db"): [
            (lambda out: ["contract", *config, "--db", out], target) for target in (p.config, p.case)
        ],
        ("contract compare", "--db"): [
            (lambda out: ["contract", "compare", *config, "a", "b", "--db", out], p.config)
        ],
        ("contract gate", "--db"): [
            (lambda out: ["contract", "gate", *config, "--min-pass-rate", "0.5", "--db", out], p.config)
        ],
        ("contract history", "--db"): [(lambda out: ["contract", "history", *config, "--db", out], p.config)],
        ("contract regression", "--db"): [
            (lambda out: ["contract", "regression", *config, "--db", out], p.config)
        ],
        ("serve", "--db"): [(lambda out: ["serve", *config, "--db", out], p.config)],
        ("import mcp-eval-runner-history", "--db"): [
            (
                lambda out: ["import", "mcp-eval-runner-history", p.root / "evals.db", *config, "--db", out],
                p.config,
            )
        ],
        ("report", "--out"): [
            (lambda out: ["report", p.results, *config, "--out", out], target)
            for target in (p.results, p.config)
        ],
        ("baseline accept", "--out"): [
            (lambda out: ["baseline", "accept", p.results, *config, "--out", out], target)
            for target in (p.results, p.config)
        ],
        ("merge", "--out"): [(lambda out: ["merge", p.results, "--out", out], p.results)],
        ("run", "--results"): [
            (lambda out: ["run", *config, "--provider", "lexical", "--results", out], target)
            for target in (p.config, p.fixtures, p.snapshot)
        ],
        ("synth", "--out"): [
            (lambda out: ["synth", *config, "--provider", "anthropic", "--dry", "--out", out], target)
            for target in (p.config, p.snapshot)
        ],
    }


def refused(result: object, target: Path, before: bytes) -> None:
    code, err = result.code, result.err  # type: ignore[attr-defined]
    assert code == 3, err
    assert "this command reads" in err and "would replace it" in err, err
    assert "Traceback" not in err
    assert target.read_bytes() == before


@pytest.mark.parametrize(
    "option",
    [
        option
        for option, kind in PATH_OPTIONS.items()
        if kind == OUTPUT and option[0] not in ("compare", "session", "session report")
    ],
    ids=lambda option: f"{option[0]} {option[1]}",
)
def test_no_output_replaces_an_input_directly_or_through_a_symlink(
    project: Project, cli: Cli, option: tuple[str, str], clean_env: pytest.MonkeyPatch
) -> None:
    clean_env.setenv("ANTHROPIC_API_KEY", "sk-never-sent")
    cases = scenarios(project)[option]
    for number, (argv, target) in enumerate(cases):
        before = target.read_bytes()
        refused(cli(*argv(target)), target, before)
        link = project.root.parent / f"link-{number}{target.suffix}"
        link.symlink_to(target)
        refused(cli(*argv(link)), target, before)
        assert link.is_symlink()


def test_compare_never_writes_its_folder_over_an_input(project: Project, cli: Cli, tmp_path: Path) -> None:
    """`compare --out DIR` writes DIR/comparison.json: a config of that name in DIR is refused, and
    so through a symlink to DIR."""
    folder = tmp_path / "cmp"
    folder.mkdir()
    document = yaml.safe_load(project.config.read_text())
    document["servers"][0]["snapshot"] = str(project.snapshot)
    document["fixtures"] = str(project.root / "fixtures" / "*.yaml")
    config = folder / "comparison.json"
    config.write_text(json.dumps(document), "utf-8")
    before = config.read_bytes()
    link = tmp_path / "link"
    link.symlink_to(folder, target_is_directory=True)
    for out in (folder, link):
        result = cli(
            "compare",
            "--config",
            config,
            "--provider",
            "lexical",
            "--catalog-b",
            project.snapshot,
            "--out",
            out,
        )
        refused(result, config, before)


def test_session_outputs_never_replace_their_inputs(
    hostile: HostileProject, cli: Cli, anthropic_fake: FakeAnthropic, tmp_path: Path
) -> None:
    """`session --results DIR` appends to DIR/sessions-DATE-SHA.ndjson: a task set of that name is refused;
    `session report RECORDS --out RECORDS` (or a link to it) too."""
    hostile.serve([tool("lookup", {"q": {"type": "string"}})])
    task = {
        "id": "t1",
        "prompt": "Look up q.",
        "expected_tools": ["lookup"],
        "script": [{"tool": "lookup", "arguments": {"q": "x"}}],
        "answer": {"contains": "q"},
        "max_steps": 4,
    }
    tasks = hostile.tasks([task])
    anthropic_fake.sessions["Look up q."] = [Call("lookup", {"q": "x"}), Text("q is x")]
    out = tmp_path / "records"
    args = ["session", "--tasks", tasks, "--arm", "A", "--fault", "0", "--budget-usd", "1", "--results", out]
    assert cli(*args).code == 0
    records = newest_records_file(out)
    before = records.read_bytes()
    refused(cli("session", "report", records, "--out", records), records, before)
    link = tmp_path / "records-link.ndjson"
    link.symlink_to(records)
    refused(cli("session", "report", records, "--out", link), records, before)
    # a task set where this run's records file goes
    folder = tmp_path / "clash"
    folder.mkdir()
    clash = records_path(folder, today(), git_sha(folder) or "unknown")
    clash.write_bytes(tasks.read_bytes())
    before = clash.read_bytes()
    refused(cli(*args[:2], clash, *args[3:-1], folder), clash, before)


def test_init_never_overwrites_the_file_its_config_option_names(project: Project, cli: Cli) -> None:
    before = project.fixtures.read_bytes()
    server = project.hostile.serve([tool("lookup")]).server_block()
    result = cli("init", "--config", project.fixtures, "--command", server["command"], *server["args"])
    assert "init never overwrites a file" in result.err
    assert project.fixtures.read_bytes() == before


def test_contract_refuses_its_report_and_junit_on_one_file(
    project: Project, cli: Cli, tmp_path: Path
) -> None:
    """`--out` and `--junit` naming one file would leave one report: refused before a case runs."""
    out = tmp_path / "report.xml"
    result = cli(
        "contract", "--config", project.config, "--out", out, "--junit", tmp_path / "." / "report.xml"
    )
    assert result.code == 3, result.err
    assert "--out and --junit name one file" in result.err and "Traceback" not in result.err
    assert not out.exists()
