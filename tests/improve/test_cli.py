"""`mcp-evals improve` as a command: its options, what it prints, and bad input — one clear message,
exit 3, no traceback and nothing written — for improve and for the overlay files compare and
validate read."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import pytest
import yaml

from conftest import Cli
from mcp_evals.cli import cli as group
from mcp_evals.cli.improve_cmd import improve

from .conftest import MakeImproveProject


def test_every_option_says_what_it_does_and_format_names_are_the_other_commands() -> None:
    options = [parameter for parameter in improve.params if isinstance(parameter, click.Option)]
    assert all(option.help for option in options), [o.opts for o in options if not o.help]
    outputs = [o.opts[0] for o in options if isinstance(o.type, click.Path) and not o.type.file_okay]
    assert outputs == ["--out"]  # the one folder it writes; --results is read
    context = click.Context(group)
    names: set[str] = set()
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        for parameter in command.params if command is not None and name != "improve" else []:
            if "--format" in parameter.opts and isinstance(parameter.type, click.Choice):
                names |= set(parameter.type.choices)
    (formats,) = [o.type for o in options if "--format" in o.opts]
    assert isinstance(formats, click.Choice) and set(formats.choices) <= names


def test_format_json_prints_improve_json(
    improve_project: MakeImproveProject, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    project = improve_project(vague=True)

    result = cli(
        "improve",
        "--config",
        project.config,
        "--provider",
        "lexical",
        "--format",
        "json",
        "--out",
        project.out,
    )

    assert result.code == 0, result.err
    assert result.out == (project.out / "improve.json").read_text("utf-8")
    assert json.loads(result.out)["lexical"] is True
    assert (project.out / "improve.md").read_text("utf-8").startswith("## ")


def bad_input(result: object, *messages: str) -> None:
    code, out, err = result.code, result.out, result.err  # type: ignore[attr-defined]
    assert code == 3, out + err
    assert "Traceback" not in out + err
    assert sum(line.startswith("error: ") for line in err.splitlines()) == 1, err
    for message in messages:
        assert message in err, err


@pytest.mark.parametrize(
    ("argv", "messages"),
    [
        (["--results", "missing.ndjson"], ["missing.ndjson: file not found"]),
        (["--results", "{config}"], ["mcp-evals.yaml:1: not a JSON line"]),
        (["--catalog", "missing.json"], ["missing.json"]),
        (["--source", "nowhere"], ["'--source'", "'nowhere' does not exist"]),
        (["--pairs", "0"], ["'--pairs'"]),
        (["--format", "html"], ["'--format'", "'html' is not one of 'md', 'json'"]),
        (["--provider", "replay"], ["'--provider'"]),
    ],
    ids=[
        "missing results",
        "results not a results file",
        "missing snapshot",
        "missing source",
        "pairs",
        "format",
        "replay",
    ],
)
def test_bad_input_is_one_message_and_exit_3_and_nothing_is_written(
    improve_project: MakeImproveProject,
    clean_env: pytest.MonkeyPatch,
    cli: Cli,
    argv: list[str],
    messages: list[str],
) -> None:
    project = improve_project()
    clean_env.chdir(project.root)
    args = [str(project.config) if arg == "{config}" else arg for arg in argv]

    result = cli("improve", "--config", project.config, "--provider", "lexical", *args, "--out", project.out)

    bad_input(result, *messages)
    assert not project.out.exists()


@pytest.mark.parametrize("results", ["missing.ndjson", "{config}"], ids=["missing", "not results"])
@pytest.mark.parametrize("provider", ["lexical", "anthropic"], ids=["lexical", "no key"])
def test_a_bad_results_file_is_reported_before_any_server_starts(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, cli: Cli, results: str, provider: str
) -> None:
    """--results is read first: a missing or unreadable one is bad input (exit 3, the file named, what
    to do) before the catalog is read (the server would leave a mark) or the key is looked at."""
    marker = tmp_path / "server-started"
    config = tmp_path / "mcp-evals.yaml"
    server = {"name": "s", "command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}
    config.write_text(yaml.safe_dump({"servers": [server], "fixtures": "fixtures/*.yaml"}), "utf-8")
    clean_env.chdir(tmp_path)
    given = str(config) if results == "{config}" else results
    out = tmp_path / "improved"

    result = cli("improve", "--config", config, "--provider", provider, "--results", given, "--out", out)

    expected = "missing.ndjson: file not found" if results == "missing.ndjson" else "mcp-evals.yaml:1:"
    bad_input(result, expected, "hint: give the results file of an earlier `mcp-evals run`")
    assert not marker.exists() and not out.exists()


def test_a_typo_in_the_config_is_one_message_with_its_line(
    improve_project: MakeImproveProject, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    project = improve_project(run={"max_wiat": 1})

    result = cli("improve", "--config", project.config, "--provider", "lexical", "--out", project.out)

    bad_input(result, "(run.max_wiat): unknown key `max_wiat`; did you mean `max_wait`?")
    assert not project.out.exists()
    broken = project.root / "broken.yaml"
    broken.write_text(project.config.read_text("utf-8") + "run: [unclosed\n", "utf-8")
    syntax = cli("improve", "--config", broken, "--provider", "lexical", "--out", project.out)
    bad_input(syntax, "broken.yaml:", "YAML syntax error")
    assert not project.out.exists()


def test_an_overlay_naming_an_unknown_tool_is_one_message_for_compare_and_validate(
    improve_project: MakeImproveProject, clean_env: pytest.MonkeyPatch, cli: Cli, tmp_path: Path
) -> None:
    project = improve_project()
    overlay = tmp_path / "descriptions.yaml"
    overlay.write_text("descriptions:\n  get_invoise: Get one invoice in full.\n", "utf-8")
    out = tmp_path / "compared"
    unknown = "descriptions.yaml:2 (descriptions.get_invoise): no tool 'get_invoise' in the catalog"

    compared = cli(
        "compare",
        "--config",
        project.config,
        "--provider",
        "lexical",
        "--descriptions",
        overlay,
        "--out",
        out,
    )
    bad_input(compared, unknown, "did you mean 'get_invoice'?")
    assert not out.exists()
    bad_input(cli("validate", "--config", project.config, "--descriptions", overlay), unknown)
    bad_input(
        cli(
            "compare",
            "--config",
            project.config,
            "--provider",
            "lexical",
            "--descriptions",
            tmp_path / "none.yaml",
        ),
        "none.yaml: file not found",
    )
