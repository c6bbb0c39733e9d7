"""Description overlays: catalog B as catalog A with new descriptions, from the config
(`compare.descriptions`) or from a file (`compare --descriptions`, `validate --descriptions`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli, MakeProject
from mcp_evals.catalog.model import Catalog
from mcp_evals.compare.overlay import apply_overlay, overlay_file, read_overlay
from mcp_evals.errors import InputFileError


def write(path: Path, text: str) -> Path:
    path.write_text(text, "utf-8")
    return path


def test_an_overlay_rewrites_descriptions_and_parameter_descriptions_only(
    helpdesk_catalog: Catalog, tmp_path: Path
) -> None:
    path = write(
        tmp_path / "d.yaml",
        "descriptions:\n  get_ticket: One ticket in full, by its id.\n"
        "parameters:\n  get_ticket:\n    ticket_id: The ticket's id, such as T-1042.\n",
    )
    catalog = overlay_file(path, helpdesk_catalog)
    tool = catalog.by_name["get_ticket"]
    old = helpdesk_catalog.by_name["get_ticket"]
    assert tool.description == "One ticket in full, by its id."
    assert tool.parameters["ticket_id"]["description"] == "The ticket's id, such as T-1042."
    assert tool.parameters["ticket_id"]["type"] == old.parameters["ticket_id"]["type"]
    assert old.parameters["ticket_id"]["description"] != tool.parameters["ticket_id"]["description"]  # a copy
    assert catalog.tool_names == helpdesk_catalog.tool_names and catalog.hash != helpdesk_catalog.hash


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "descriptions:\n  get_tiket: x y z\n",
            "d.yaml:2 (descriptions.get_tiket): no tool 'get_tiket' in the catalog",
        ),
        (
            "parameters:\n  get_ticket:\n    id: The id.\n",
            "d.yaml:3 (parameters.get_ticket.id): get_ticket has no parameter 'id'",
        ),
        ("descriptions:\n  get_ticket: ' '\n", "d.yaml:2 (descriptions.get_ticket): an empty description"),
        ("descriptions:\n  get_ticket: [1]\n", "d.yaml:2 (descriptions.get_ticket)"),
        ("{}\n", "rewrites no description"),
    ],
)
def test_a_bad_overlay_is_one_message_with_its_file_and_line(
    helpdesk_catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputFileError) as caught:
        overlay_file(write(tmp_path / "d.yaml", text), helpdesk_catalog)
    assert message in str(caught.value)


def test_a_typo_gets_a_did_you_mean(helpdesk_catalog: Catalog, tmp_path: Path) -> None:
    overlay, place = read_overlay(write(tmp_path / "d.yaml", "descriptions:\n  get_tiket: x y z\n"))
    with pytest.raises(Exception, match="did you mean 'get_ticket'"):
        apply_overlay(helpdesk_catalog, overlay, place)


def test_compare_reads_an_overlay_file_as_catalog_b(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, cli: Cli, tmp_path: Path
) -> None:
    project = make_project(compare={"descriptions": {"get_ticket": "From the config."}})
    overlay = write(
        tmp_path / "d.yaml", "descriptions:\n  search_tickets: Find tickets by the words in them.\n"
    )

    result = cli("compare", "--config", project.config, "--descriptions", overlay, "--out", tmp_path / "o")

    assert result.code == 0, result.err
    assert "(compare.descriptions) is not used: catalog B is catalog A with --descriptions" in result.err
    assert "catalog B: catalog A with the descriptions of" in (tmp_path / "o" / "comparison.md").read_text()
    both = cli("compare", "--config", project.config, "--descriptions", overlay, "--arms", "full,deferred")
    assert both.code == 3 and "give --descriptions (catalog A/B) or --arms" in both.err
    snapshot = cli("compare", "--config", project.config, "--descriptions", overlay, "--catalog-b", overlay)
    assert snapshot.code == 3 and "not both" in snapshot.err


def test_validate_checks_the_fixtures_against_the_overlay(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, cli: Cli, tmp_path: Path
) -> None:
    project = make_project()
    good = write(tmp_path / "good.yaml", "descriptions:\n  get_ticket: One ticket in full, by its id.\n")
    bad = write(tmp_path / "bad.yaml", "descriptions:\n  get_tiket: One ticket.\n")

    ok = cli("validate", "--config", project.config, "--descriptions", good)
    assert ok.code == 0, ok.out + ok.err
    assert "checked against the catalog with the descriptions of" in ok.err
    refused = cli("validate", "--config", project.config, "--descriptions", bad)
    assert refused.code == 3 and "no tool 'get_tiket' in the catalog" in refused.err
