"""The command line's one vocabulary (docs/cli.md), enforced over every click command.

`--out` for what a command writes, `--results` for the results a command writes or reads, `--format`
from one set of names, durations in seconds with units, help on every option, `--debug` after the
command too; and each old spelling still works for one release with one deprecation line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import yaml

from conftest import Cli
from hostile.test_outputs_over_inputs import INPUT, OUTPUT, PATH_OPTIONS
from mcp_evals.cli import cli as group
from mcp_evals.cli.paid_options import PAID_HELP
from mcp_evals.cli.vocabulary import FORMATS, OLD_FORMATS, AliasedOption, DurationType, FormatChoice

REPO = Path(__file__).resolve().parents[2]
DOCS = (REPO / "docs" / "cli.md").read_text("utf-8")

# The old spellings (docs/cli.md's table): command → old option → what it is now.
OLD_SPELLINGS = {
    ("audit", "--output"): "--out",
    ("lint", "--output"): "--out",
    ("catalog diff", "--json"): "--format json",
}
# `--results`: the results a command writes (a run's file, a session run's folder) or reads.
RESULTS = {"run": OUTPUT, "session": OUTPUT, "lint": INPUT, "improve": INPUT}
# The other names a written path may have: the history database a command reads and adds to, and a
# JUnit report written beside the one `--out` names (`contract --junit`); `init` writes its `--config`.
OTHER_OUTPUTS = {"--db", "--results", "--junit"}
# Options whose name says they are a duration.
DURATION_NAME = re.compile(r"timeout|interval|wait|seconds|-ms$")


def commands() -> Iterator[tuple[str, click.Command]]:
    context = click.Context(group)

    def walk(command: click.Command, path: list[str]) -> Iterator[tuple[str, click.Command]]:
        yield " ".join(path), command
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                if sub is not None:
                    yield from walk(sub, [*path, name])

    yield from walk(group, [])


def options() -> Iterator[tuple[str, click.Option]]:
    for path, command in commands():
        for parameter in command.params:
            if isinstance(parameter, click.Option):
                yield path, parameter


def test_the_walk_sees_every_command() -> None:
    names = {path for path, _ in commands()}
    assert {"", "lint", "audit", "catalog diff", "contract history", "session report", "action run"} <= names
    assert len(names) >= 24


def test_every_option_has_help() -> None:
    missing = [f"{path} {option.opts[0]}" for path, option in options() if not (option.help or "").strip()]
    assert missing == []


def test_debug_is_accepted_by_every_command() -> None:
    missing = [path for path, command in commands() if not any("--debug" in p.opts for p in command.params)]
    assert missing == []


def test_old_spellings_are_only_aliases_and_all_listed() -> None:
    """No option is named the old way; every alias is one of the table's, and the table is in the docs."""
    aliases: dict[tuple[str, str], str] = {}
    for path, option in options():
        assert not {"--output", "--json"} & {*option.opts, *option.secondary_opts}, (path, option.opts)
        if isinstance(option, AliasedOption):
            for alias, value in option.aliases.items():
                aliases[path, alias] = option.opts[0] if value is None else f"{option.opts[0]} {value}"
    assert aliases == OLD_SPELLINGS
    for (path, old), new in OLD_SPELLINGS.items():
        assert f"`{path} {old}`" in DOCS and f"`{new}`" in DOCS, (path, old)
    for old, new in OLD_FORMATS.items():
        assert f"`--format {old}`" in DOCS and f"`--format {new}`" in DOCS


def test_every_output_is_out_and_results_means_one_thing() -> None:
    for (path, name), kind in PATH_OPTIONS.items():
        if name == "--results":
            assert RESULTS.get(path) == kind, (path, kind)
        elif kind != INPUT and (path, name) != ("init", "--config"):
            assert name == "--out" or name in OTHER_OUTPUTS, (path, name)
    assert {path for path, option in options() if option.opts[0] == "--results"} == set(RESULTS)


# The commands that may call a paid model, and the ones of them that send requests side by side.
PAID_COMMANDS = {"run", "compare", "synth", "improve", "session"}
SIDE_BY_SIDE = PAID_COMMANDS - {"session"}


def test_the_options_of_a_paid_model_are_written_once_and_read_the_same_everywhere() -> None:
    """--provider, --model, --base-url, --budget-usd and --concurrency (of requests to a model) mean one
    thing in every paid command: one help each, one type, from ``cli.paid_options``."""
    seen: dict[str, dict[str, click.Option]] = {}
    for path, option in options():
        name = option.opts[0]
        if name in PAID_HELP and (name != "--concurrency" or path in PAID_COMMANDS):
            seen.setdefault(name, {})[path] = option
    assert set(seen) == set(PAID_HELP)
    for name, by_command in seen.items():
        expected = SIDE_BY_SIDE if name == "--concurrency" else PAID_COMMANDS
        assert set(by_command) == expected, name
        helps = {path: option.help for path, option in by_command.items()}
        assert helps == dict.fromkeys(expected, PAID_HELP[name]), name
        assert len({type(option.type) for option in by_command.values()}) == 1, name
    assert isinstance(seen["--budget-usd"]["run"].type, click.FloatRange)
    # --provider keeps each command's own choices: the providers it can use
    choices = {path: set(option.type.choices) for path, option in seen["--provider"].items()}  # type: ignore[attr-defined]
    assert "replay" in choices["run"] and "replay" not in choices["compare"]
    assert "lexical" in choices["improve"] and "lexical" not in choices["session"]


def test_formats_come_from_one_set() -> None:
    seen: set[str] = set()
    for path, option in options():
        if option.opts[0] != "--format":
            continue
        assert isinstance(option.type, FormatChoice), path
        assert set(option.type.choices) <= set(FORMATS), (path, option.type.choices)
        seen |= set(option.type.choices)
    assert seen == set(FORMATS)


def test_durations_take_units() -> None:
    durations = 0
    for path, option in options():
        if DURATION_NAME.search(option.opts[0]) or re.search(
            r"\b(seconds|milliseconds|ms)\b", option.help or ""
        ):
            assert isinstance(option.type, DurationType), (path, option.opts[0])
        if isinstance(option.type, DurationType):
            durations += 1
            context = click.Context(group)
            assert [option.type.convert(value, option, context) for value in ("500ms", "30s", "2m")] == [
                0.5,
                30.0,
                120.0,
            ]
            with pytest.raises(click.BadParameter, match="500ms, 30s, 2m"):
                option.type.convert("soon", option, context)
    assert (
        durations == 5
    )  # audit --timeout, contract --timeout, --interval and fuzz --timeout, serve --timeout


@pytest.mark.parametrize(
    "argv",
    [["validate", "--debug"], ["--debug", "validate"], ["validate", "--config", "{missing}", "--debug"]],
    ids=["after", "before", "last"],
)
def test_debug_before_or_after_the_command(cli: Cli, tmp_path: Path, argv: list[str]) -> None:
    missing = tmp_path / "missing.yaml"
    args = [part.replace("{missing}", str(missing)) for part in argv]
    if "--config" not in args:
        args += ["--config", str(missing)]
    result = cli(*args)
    assert result.code == 3
    assert "No such option" not in result.err
    assert "Traceback" in result.err and "error:" in result.err


# -- the old spellings: one deprecation line, the same result ----------------------------------------


def deprecations(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("deprecated:")]


@pytest.fixture
def project(tmp_path: Path, helpdesk_snapshot: Path) -> Path:
    """A config over the helpdesk snapshot, two fixtures and a simulated contract case: no server."""
    (tmp_path / "fixtures").mkdir()
    fixtures = [
        {"id": "f1", "query": "Show me ticket 4512", "expected_tools": ["get_ticket"]},
        {"id": "f2", "query": "What's the weather in Lisbon?", "kind": "refuse"},
    ]
    (tmp_path / "fixtures" / "main.yaml").write_text(yaml.safe_dump({"fixtures": fixtures}), "utf-8")
    case = {
        "name": "sim",
        "simulate": True,
        "steps": [{"id": "a", "tool": "get_ticket", "expected_output": "ok"}],
    }
    (tmp_path / "evals" / "contract").mkdir(parents=True)
    (tmp_path / "evals" / "contract" / "sim.yaml").write_text(yaml.safe_dump(case), "utf-8")
    config = tmp_path / "mcp-evals.yaml"
    document = {
        "servers": [{"name": "helpdesk", "snapshot": str(helpdesk_snapshot)}],
        "fixtures": "fixtures/*.yaml",
    }
    config.write_text(yaml.safe_dump(document), "utf-8")
    return config


@pytest.mark.parametrize("command", ["lint", "audit"])
def test_output_is_the_old_out(cli: Cli, project: Path, command: str) -> None:
    new, old = project.parent / "new.txt", project.parent / "old.txt"
    by_new = cli(command, "--config", project, "--format", "json", "--out", new)
    by_old = cli(command, "--config", project, "--format", "json", "--output", old)
    assert by_old.code == by_new.code and by_new.code in (0, 1), by_old.err
    assert json.loads(old.read_text()) == json.loads(new.read_text())
    assert deprecations(by_new.err) == []
    assert deprecations(by_old.err) == [
        f"deprecated: `{command} --output` is now `{command} --out`; the old spelling goes in the next "
        "release"
    ]


def test_catalog_diff_json_is_the_old_format_json(cli: Cli, helpdesk_snapshot: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    document = json.loads(helpdesk_snapshot.read_text())
    other.write_text(json.dumps(document), "utf-8")
    by_new = cli("catalog", "diff", helpdesk_snapshot, other, "--format", "json")
    by_old = cli("catalog", "diff", "--json", helpdesk_snapshot, other)
    assert (by_old.code, by_old.out) == (by_new.code, by_new.out) == (0, by_new.out)
    assert json.loads(by_new.out)["changes"] == []
    assert deprecations(by_new.err) == []
    assert deprecations(by_old.err) == [
        "deprecated: `catalog diff --json` is now `catalog diff --format json`; the old spelling goes in the "
        "next release"
    ]
    assert "--json" not in cli("catalog", "diff", "--help").out


def _timing_free(text: str) -> str:
    """A contract report without what differs from run to run: its id and its timings."""
    return re.sub(r"\d+ ms", "N ms", re.sub(r"\d{8}T\d{6}Z-[0-9a-f]+", "RUN", text))


def test_contract_console_is_the_old_text_and_a_bare_timeout_is_milliseconds(cli: Cli, project: Path) -> None:
    by_new = cli("contract", "--config", project, "--no-history", "--format", "text", "--timeout", "1.5s")
    by_old = cli("contract", "--config", project, "--no-history", "--format", "console", "--timeout", "1500")
    assert by_new.code == by_old.code == 0, by_old.err
    assert _timing_free(by_old.out) == _timing_free(by_new.out) and "sim" in by_new.out
    assert "step timeout 1.5s" in by_new.err and "step timeout 1.5s" in by_old.err
    assert deprecations(by_new.err) == []
    assert deprecations(by_old.err) == [
        "deprecated: `contract --format console` is now `contract --format text`; the old spelling goes in "
        "the next release",
        "deprecated: `contract --timeout 1500` is read as 1500ms for one more release, then as seconds: "
        "write the unit (1500ms, or 500ms, 30s, 2m)",
    ]
    for command in (["regression"], ["compare", "a", "b"]):
        old = cli("contract", *command, "--config", project, "--format", "console")
        assert deprecations(old.err) == [
            f"deprecated: `contract {command[0]} --format console` is now "
            f"`contract {command[0]} --format text`; the old spelling goes in the next release"
        ]


@pytest.mark.parametrize(
    ("given", "seconds", "said"), [("1500", 1.5, True), ("1500ms", 1.5, False), ("2m", 120.0, False)]
)
def test_serve_timeout_in_seconds_with_units(
    capsys: pytest.CaptureFixture[str], given: str, seconds: float, said: bool
) -> None:
    command = group.get_command(click.Context(group), "serve")
    assert command is not None
    with group.make_context("mcp-evals", ["serve"]) as root:
        context = command.make_context("serve", ["--timeout", given, "--timeout", given], parent=root)
    assert context.params["timeout"] == seconds
    lines = deprecations(capsys.readouterr().err)
    assert lines == (
        [
            f"deprecated: `serve --timeout {given}` is read as {given}ms for one more release, then as "
            f"seconds: write the unit ({given}ms, or 500ms, 30s, 2m)"
        ]
        if said
        else []
    )


def test_a_duration_that_is_not_one_is_one_message(cli: Cli, project: Path) -> None:
    result = cli("contract", "--config", project, "--timeout", "soon")
    assert result.code == 3
    assert "'soon' is not a duration: write seconds, or a number with a unit (500ms, 30s, 2m)" in result.err
    assert "Traceback" not in result.err
    project.write_text(project.read_text() + "contract: {timeout: soon}\n", "utf-8")
    bad = cli("contract", "--config", project)
    assert bad.code == 3 and "mcp-evals.yaml" in bad.err and "'soon' is not a duration" in bad.err, bad.err


def test_the_actions_inputs_follow_the_vocabulary() -> None:
    """The Action's inputs carry no old spelling, and it calls lint and audit with `--out`."""
    inputs = yaml.safe_load((REPO / "action.yml").read_text("utf-8"))["inputs"]
    assert not {"output", "json", "timeout-ms"} & set(inputs)
    for mode in ("validate_mode.py", "audit_mode.py"):
        source = (REPO / "src" / "mcp_evals" / "action" / mode).read_text("utf-8")
        assert '"--out"' in source and '"--output"' not in source


def test_config_durations_take_units(tmp_path: Path) -> None:
    """Every duration of the config, a hook and a task set reads `500ms`, `30s`, `2m` (docs/cli.md)."""
    from mcp_evals.config.isolation import Hook
    from mcp_evals.config.load import load_config
    from mcp_evals.session.model import Timeouts

    document = {
        "servers": [{"name": "s", "command": "true", "timeout": "2m"}],
        "fixtures": "fixtures/*.yaml",
        "run": {"timeout": "500ms", "max_wait": "30s"},
        "contract": {"timeout": "1.5s", "judge": {"timeout": "1m"}},
    }
    path = tmp_path / "mcp-evals.yaml"
    path.write_text(yaml.safe_dump(document), "utf-8")
    config = load_config(path)
    assert (config.servers[0].timeout, config.run.timeout, config.run.max_wait) == (120.0, 0.5, 30.0)
    assert (config.contract.timeout, config.contract.judge.timeout) == (1.5, 60.0)
    assert Hook(run="true", timeout="250ms").timeout == 0.25
    timeouts = Timeouts(step_seconds="45s", session_seconds="15m")
    assert (timeouts.step_seconds, timeouts.session_seconds) == (45.0, 900.0)
    assert Timeouts(step_seconds=12).step_seconds == 12.0  # a bare number is seconds
