"""Where a description lives in a Python or TypeScript server's source, and ``--apply``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import Cli
from mcp_evals.improve.model import ImproveReport
from mcp_evals.improve.source import find_descriptions, source_places

from .conftest import MakeImproveProject

PYTHON_SERVER = textwrap.dedent(
    '''\
    from mcp.server.fastmcp import FastMCP
    from pydantic import Field

    mcp = FastMCP("tickets")


    @mcp.tool()
    def get_ticket(ticket_id: str = Field(description="The ticket id, e.g. T-1042.")) -> str:
        """Get one ticket in full."""
        return ticket_id


    @mcp.tool(description="List tickets by status.")
    def list_tickets(status: str) -> str:
        return status


    @mcp.tool()
    def search_tickets(query: str) -> str:
        """Search the text of every ticket,
        best match first."""
        return query
    '''
)
TYPESCRIPT_SERVER = textwrap.dedent(
    """\
    // a comment with an apostrophe: don't
    const noteId = z.string().describe("The note id, e.g. n-104.");
    server.registerTool("get_note", {
      description: "Get one note by its id.",
      inputSchema: { note_id: noteId },
    });
    server.registerTool("search_notes", {
      description:
        "Search the text of all notes. " +
        'Best match first.',
    });
    """
)
OLD = {
    ("get_ticket", None): "Get one ticket in full.",
    ("get_ticket", "ticket_id"): "The ticket id, e.g. T-1042.",
    ("list_tickets", None): "List tickets by status.",
    ("search_tickets", None): "Search the text of every ticket, best match first.",
    ("get_note", None): "Get one note by its id.",
    ("get_note", "note_id"): "The note id, e.g. n-104.",
    ("search_notes", None): "Search the text of all notes. Best match first.",
}
NEW = {key: f"NEW {key[0]} {key[1] or ''}".strip() + "." for key in OLD}


@pytest.fixture
def sources(tmp_path: Path) -> list[Path]:
    python = tmp_path / "server.py"
    python.write_text(PYTHON_SERVER, "utf-8")
    script = tmp_path / "src" / "index.ts"
    script.parent.mkdir()
    script.write_text(TYPESCRIPT_SERVER, "utf-8")
    return [python, script]


def test_every_description_is_found_with_its_line_and_whether_it_can_be_applied(
    sources: list[Path], tmp_path: Path
) -> None:
    places = source_places(find_descriptions(sources, OLD), NEW, OLD, apply=False, base=tmp_path)
    found = {
        (place.file, place.line, place.tool, place.parameter): (place.kind, place.exact) for place in places
    }
    assert found == {
        ("server.py", 8, "get_ticket", "ticket_id"): ("`description=` literal", True),
        ("server.py", 9, "get_ticket", None): ("docstring", True),
        ("server.py", 13, "list_tickets", None): ("`description=` literal", True),
        ("server.py", 20, "search_tickets", None): ("docstring", False),  # reflowed over two lines
        ("src/index.ts", 2, "get_note", "note_id"): ("`.describe()` literal", True),
        ("src/index.ts", 4, "get_note", None): ("`description:` literal", True),
        ("src/index.ts", 9, "search_notes", None): ("`description:` literal", False),  # joined with +
    }
    assert all(not place.applied for place in places)
    assert (tmp_path / "server.py").read_text("utf-8") == PYTHON_SERVER  # nothing written without --apply


def test_apply_writes_only_literals_that_hold_the_exact_old_text(sources: list[Path], tmp_path: Path) -> None:
    python, script = sources
    python.chmod(0o755)

    places = source_places(find_descriptions(sources, OLD), NEW, OLD, apply=True, base=tmp_path)

    applied = {(place.tool, place.parameter) for place in places if place.applied}
    assert applied == {
        ("get_ticket", None),
        ("get_ticket", "ticket_id"),
        ("list_tickets", None),
        ("get_note", None),
        ("get_note", "note_id"),
    }
    text = python.read_text("utf-8")
    assert '"""NEW get_ticket."""' in text and 'description="NEW list_tickets."' in text
    assert 'Field(description="NEW get_ticket ticket_id.")' in text
    assert "Search the text of every ticket,\n    best match first." in text  # left for a person
    assert python.stat().st_mode & 0o777 == 0o755
    typescript = script.read_text("utf-8")
    assert 'description: "NEW get_note."' in typescript and '.describe("NEW get_note note_id.")' in typescript
    assert '"Search the text of all notes. " +' in typescript
    not_applied = [place for place in places if not place.applied]
    assert all("edit it" in place.note for place in not_applied)


def test_a_file_that_changed_since_it_was_read_is_not_written(sources: list[Path], tmp_path: Path) -> None:
    python, _ = sources
    found = [item for item in find_descriptions(sources, OLD) if item.path == python]
    python.write_text(PYTHON_SERVER.replace("Get one ticket in full.", "Get a ticket."), "utf-8")
    changed = python.read_text("utf-8")

    places = source_places(found, NEW, OLD, apply=True, base=tmp_path)

    assert python.read_text("utf-8") == changed
    assert not any(place.applied for place in places)


def test_a_literal_that_also_describes_something_not_rewritten_is_left_for_a_person(
    sources: list[Path], tmp_path: Path
) -> None:
    """One constant (`noteId`) describes the note_id of every tool that takes one: rewriting it for
    one tool would rewrite it for all."""
    published = {**OLD, ("append_to_note", "note_id"): "The note id, e.g.  n-104."}
    places = source_places(
        find_descriptions(sources, OLD), NEW, OLD, apply=True, base=tmp_path, published=published
    )
    place = next(place for place in places if place.parameter == "note_id")
    assert not place.applied and "also describes append_to_note.note_id" in place.note
    assert '.describe("The note id, e.g. n-104.")' in sources[1].read_text("utf-8")


def test_new_text_that_would_need_escaping_is_left_for_a_person(sources: list[Path], tmp_path: Path) -> None:
    quoted = {**NEW, ("list_tickets", None): 'List tickets, "open" first.'}
    places = source_places(find_descriptions(sources, OLD), quoted, OLD, apply=True, base=tmp_path)
    place = next(place for place in places if place.tool == "list_tickets")
    assert not place.applied and "escaping" in place.note


def test_improve_lists_and_applies_through_the_command(
    improve_project: MakeImproveProject, clean_env: pytest.MonkeyPatch, cli: Cli, tmp_path: Path
) -> None:
    """The lexical baseline's loop on the helpdesk snapshot, with a source folder that holds two of
    the published descriptions as one-line literals."""
    project = improve_project()
    plain = cli("improve", "--config", project.config, "--provider", "lexical", "--out", tmp_path / "first")
    assert plain.code == 0, plain.err
    first = ImproveReport.model_validate_json((tmp_path / "first" / "improve.json").read_text("utf-8"))
    rewritten = [proposal for proposal in first.accepted][:2]
    assert len(rewritten) == 2
    folder = tmp_path / "server"
    folder.mkdir()
    lines = ["from mcp.server.fastmcp import FastMCP", "mcp = FastMCP('helpdesk')", ""]
    for proposal in rewritten:
        lines += [
            f"@mcp.tool(description={proposal.old_description!r})",
            f"def {proposal.tool}() -> None: ...",
            "",
        ]
    server = folder / "server.py"
    server.write_text("\n".join(lines), "utf-8")
    listed = cli(
        "improve",
        "--config",
        project.config,
        "--provider",
        "lexical",
        "--source",
        folder,
        "--out",
        tmp_path / "o",
    )
    assert listed.code == 0, listed.err
    assert "### In the server's source" in listed.out and "--apply replaces it" in listed.out
    assert server.read_text("utf-8") == "\n".join(lines)  # printed, never applied without --apply

    applied = cli(
        "improve",
        "--config",
        project.config,
        "--provider",
        "lexical",
        "--source",
        folder,
        "--apply",
        "--out",
        tmp_path / "o2",
    )

    assert applied.code == 0, applied.err
    report = ImproveReport.model_validate_json((tmp_path / "o2" / "improve.json").read_text("utf-8"))
    assert report.overall != "worse" and {place.tool for place in report.places if place.applied} == {
        proposal.tool for proposal in rewritten
    }
    text = server.read_text("utf-8")
    for proposal in rewritten:
        assert proposal.description in text and f"description={proposal.old_description!r})" not in text
