"""docs/improve.md's promises: the free loop on the bundled example prints what the page shows, the
proof folder renders again, the overlay shown is one, and the options table is the command's."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import click
import pytest
import yaml

from conftest import HELPDESK, REPO_ROOT, Cli
from mcp_evals.catalog.model import Catalog
from mcp_evals.cli.improve_cmd import improve
from mcp_evals.compare.overlay import DescriptionOverlay, apply_overlay

PAGE = (REPO_ROOT / "docs" / "improve.md").read_text("utf-8")
README = (REPO_ROOT / "README.md").read_text("utf-8")
README_EXAMPLE = re.findall(
    r"```console\n\$ (cd examples/helpdesk && mcp-evals improve [^\n]*)\n(.*?)```", README, re.DOTALL
)
EXAMPLES = re.findall(r"<!-- improve-example:begin -->\n(.*?)<!-- improve-example:end -->", PAGE, re.DOTALL)


def test_the_free_loop_on_the_bundled_example_prints_what_the_page_shows(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    """`cd examples/helpdesk && mcp-evals improve --provider lexical`, no key, its live server: the
    page's two blocks, and the README's lines."""
    folder = tmp_path / "helpdesk"
    folder.mkdir()
    for name in ("server.py", "mcp-evals.yaml"):
        shutil.copy(HELPDESK / name, folder / name)
    shutil.copytree(HELPDESK / "fixtures", folder / "fixtures")
    clean_env.chdir(folder)
    clean_env.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")

    result = cli("improve", "--provider", "lexical")

    assert result.code == 0, result.err
    assert len(EXAMPLES) == 2
    for shown in EXAMPLES:
        assert shown in result.out
    assert result.out == (folder / "mcp-evals-improve" / "improve.md").read_text("utf-8")
    again = cli("compare", "--from", "mcp-evals-improve/proof")
    assert (
        again.code == 0
        and again.out == (folder / "mcp-evals-improve" / "proof" / "comparison.md").read_text()
    )
    assert "server.py:" in result.out and "### In the server's source" in result.out
    # the README quotes lines of the same output
    [(command, shown)] = README_EXAMPLE
    assert command == "cd examples/helpdesk && mcp-evals improve --provider lexical"
    printed = result.out.splitlines()
    assert [line for line in shown.splitlines() if line not in printed] == []


def test_the_overlay_the_page_shows_is_one(helpdesk_catalog: Catalog) -> None:
    block = re.findall(r"```yaml\n(.*?)```", PAGE.split("## What it writes", 1)[1], re.DOTALL)[0]
    overlay = DescriptionOverlay.model_validate(yaml.safe_load(block))
    catalog = apply_overlay(helpdesk_catalog, overlay, lambda key: ".".join(key))
    assert catalog.by_name["get_invoice"].description.startswith("Get one invoice in full")


def test_the_options_table_is_the_commands() -> None:
    table = PAGE.split("## Options and exit codes", 1)[1]
    documented = set(re.findall(r"`(--[a-z-]+)", table))
    options = {
        name
        for parameter in improve.params
        if isinstance(parameter, click.Option)
        for name in parameter.opts
        if name.startswith("--") and name not in ("--config", "--debug")  # --debug: every command (cli.md)
    }
    assert documented == options
