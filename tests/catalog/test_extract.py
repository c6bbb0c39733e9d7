"""The catalog model: hash, names, areas, duplicates and prefixes, snapshots that round-trip."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mcp_evals import Catalog, extract_catalog, load_catalog
from mcp_evals.catalog.model import SNAPSHOT_FORMAT, build_catalog
from mcp_evals.catalog.snapshot import write_snapshot
from mcp_evals.errors import ConfigError, InputFileError
from support.catalog_helpers import server, wire_tool, write_config

HELPDESK = server(
    "helpdesk",
    wire_tool("search_tickets", "Search tickets by text.", query="string"),
    wire_tool("get_ticket", "Get one ticket.", ticket_id="string"),
    wire_tool("issue_refund", "Refund an invoice.", invoice_id="string", amount="number"),
)
WIKI = server("wiki", wire_tool("search_articles", "Search the knowledge base.", query="string"))


def test_a_catalog_lists_every_tool_with_its_server_and_area() -> None:
    catalog = build_catalog([HELPDESK, WIKI], {"tickets": ["*_ticket*"], "billing": ["issue_refund"]})
    assert catalog.tool_names == ["search_tickets", "get_ticket", "issue_refund", "search_articles"]
    assert catalog.area_by_name == {
        "search_tickets": "tickets",
        "get_ticket": "tickets",
        "issue_refund": "billing",
        "search_articles": "wiki",  # matched by no pattern: its server's name
    }
    assert catalog.areas == ["billing", "tickets", "wiki"]
    assert catalog.by_name["search_articles"].area_explicit is False
    assert catalog.by_name["get_ticket"].area_explicit is True
    refund = catalog.get("issue_refund")
    assert refund is not None
    assert refund.server == "helpdesk"
    assert refund.parameters == {"invoice_id": {"type": "string"}, "amount": {"type": "number"}}
    assert refund.required == ["invoice_id"]
    assert catalog.get("nope") is None


def test_the_first_matching_area_wins_in_config_order() -> None:
    catalog = build_catalog([HELPDESK], {"search": ["search_*"], "tickets": ["*ticket*"]})
    assert catalog.area_by_name["search_tickets"] == "search"
    assert catalog.area_by_name["get_ticket"] == "tickets"


def test_the_hash_is_stable_across_tool_and_key_order() -> None:
    forward = build_catalog([HELPDESK, WIKI])
    reordered_tools = [
        {key: tool[key] for key in reversed(list(tool))}  # same content, keys in another order
        for tool in reversed(HELPDESK.tools)
    ]
    backward = build_catalog([WIKI, server("helpdesk", *reordered_tools)])
    assert forward.hash == backward.hash
    assert len(forward.hash) == 64


def test_the_hash_is_made_of_what_a_model_sees() -> None:
    base = build_catalog([HELPDESK])
    # Areas, server names and versions do not change what a model sees.
    assert build_catalog([HELPDESK], {"all": ["*"]}).hash == base.hash
    assert build_catalog([HELPDESK.model_copy(update={"server_version": "9"})]).hash == base.hash
    # A description, a schema or a name does.
    changed = [dict(tool) for tool in HELPDESK.tools]
    changed[0] = {**changed[0], "description": "Search tickets by text and tag."}
    assert build_catalog([server("helpdesk", *changed)]).hash != base.hash
    changed = [dict(tool) for tool in HELPDESK.tools]
    changed[1] = wire_tool("get_ticket", "Get one ticket.", ticket_id="integer")
    assert build_catalog([server("helpdesk", *changed)]).hash != base.hash


def test_the_hash_is_pinned_so_it_is_the_same_on_every_machine() -> None:
    catalog = build_catalog([server("s", wire_tool("ping", "Ping.", host="string"))])
    by_hand = [
        {
            "annotations": None,
            "description": "Ping.",
            "input_schema": {
                "properties": {"host": {"type": "string"}},
                "required": ["host"],
                "type": "object",
            },
            "name": "ping",
            "output_schema": None,
            "title": None,
        }
    ]
    canonical = json.dumps(by_hand, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert catalog.hash == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    # Pinned: a change here changes every saved hash (baselines, results), so make it on purpose.
    assert catalog.hash == "70a48f144976acd70a899743c3e2035b6800ecbdc8febbf3a88e5b4b6276b42a"


def test_the_same_tool_on_two_servers_is_an_error_unless_prefixed() -> None:
    twin = server("wiki2", wire_tool("search_articles", "Another search.", query="string"))
    with pytest.raises(
        ConfigError, match="'search_articles' is published by both server 'wiki' and server 'wiki2'"
    ):
        build_catalog([WIKI, twin], source="mcp-evals.yaml")
    catalog = build_catalog([WIKI, twin.model_copy(update={"prefix": True})])
    assert catalog.tool_names == ["search_articles", "wiki2__search_articles"]
    prefixed = catalog.by_name["wiki2__search_articles"]
    assert prefixed.wire_name == "search_articles"
    assert prefixed.area == "wiki2"


def test_a_server_listing_a_tool_twice_is_an_error() -> None:
    with pytest.raises(ConfigError, match="lists the tool 'a' twice"):
        build_catalog([server("s", wire_tool("a"), wire_tool("a"))])


def test_names_map_to_provider_safe_names() -> None:
    catalog = build_catalog([server("s", wire_tool("files.read"), wire_tool("search"))])
    assert catalog.names.provider("files.read") == "files_read"
    assert catalog.names.mcp("files_read") == "files.read"
    assert catalog.names.provider("search") == "search"


def test_a_snapshot_round_trips_to_the_same_catalog_and_hash(tmp_path: Path) -> None:
    twin = server("wiki2", wire_tool("search_articles", "Another search.", query="string"), prefix=True)
    catalog = build_catalog([HELPDESK, WIKI, twin], {"tickets": ["*ticket*"]})
    path = tmp_path / "catalog.json"
    write_snapshot(catalog, path)

    loaded = load_catalog(path)
    assert loaded.hash == catalog.hash
    assert loaded.tools == catalog.tools
    assert loaded.servers == catalog.servers
    assert loaded.area_by_name == catalog.area_by_name

    document = json.loads(path.read_text("utf-8"))
    assert document["format"] == SNAPSHOT_FORMAT
    assert document["hash"] == catalog.hash
    assert document["areas"] == {"tickets": ["search_tickets", "get_ticket"]}
    # The tools/list wire shape, as the server sent it.
    assert document["servers"][0]["tools"][0]["inputSchema"]["properties"] == {"query": {"type": "string"}}
    assert document["servers"][2]["prefix"] is True


def test_areas_given_to_load_catalog_replace_the_saved_ones(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    write_snapshot(build_catalog([HELPDESK], {"tickets": ["*ticket*"]}), path)
    catalog = load_catalog(path, areas={"money": ["issue_refund"]})
    assert catalog.area_by_name == {
        "search_tickets": "helpdesk",
        "get_ticket": "helpdesk",
        "issue_refund": "money",
    }


def test_a_config_server_can_read_its_tools_from_a_snapshot(tmp_path: Path) -> None:
    snapshot = tmp_path / "saved.json"
    write_snapshot(build_catalog([HELPDESK]), snapshot)
    config = write_config(
        tmp_path,
        [{"name": "desk", "snapshot": "saved.json"}, {"name": "wiki", "snapshot": "wiki.json"}],
        areas={"tickets": ["*ticket*"]},
    )
    write_snapshot(build_catalog([WIKI]), tmp_path / "wiki.json")
    catalog = extract_catalog(config)
    assert catalog.hash == build_catalog([HELPDESK, WIKI]).hash
    assert [info.name for info in catalog.servers] == ["desk", "wiki"]
    assert catalog.by_name["issue_refund"].server == "desk"
    assert catalog.area_by_name["get_ticket"] == "tickets"


def test_the_config_decides_the_prefix_of_a_snapshot_server(tmp_path: Path) -> None:
    write_snapshot(build_catalog([WIKI]), tmp_path / "wiki.json")
    config = write_config(tmp_path, [{"name": "kb", "snapshot": "wiki.json", "prefix": True}])
    assert extract_catalog(config).tool_names == ["kb__search_articles"]


def test_a_snapshot_server_must_exist_in_a_multi_server_snapshot(tmp_path: Path) -> None:
    write_snapshot(build_catalog([HELPDESK, WIKI]), tmp_path / "both.json")
    config = write_config(tmp_path, [{"name": "other", "snapshot": "both.json"}])
    with pytest.raises(
        ConfigError, match=r"has no server named 'other' \(it has: helpdesk, wiki\)"
    ) as caught:
        extract_catalog(config)
    assert str(caught.value).startswith(f"{config.path}:3 (servers[0].snapshot): ")


def test_a_config_server_whose_snapshot_is_missing_names_the_config_line(tmp_path: Path) -> None:
    config = write_config(tmp_path, [{"name": "kb", "snapshot": "wiki.json"}])
    with pytest.raises(ConfigError) as caught:
        extract_catalog(config)
    assert str(caught.value).startswith(
        f"{config.path}:3 (servers[0].snapshot): {tmp_path / 'wiki.json'} not found\n  hint: write one with"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "JSON syntax error"),
        ('{"format": "something/else", "servers": []}', "not a catalog snapshot"),
        ("[1, 2]", r"\(\[0\]\): a tool needs a `name`"),  # a bare array of tools, whose items are not
        ('"tools"', "not a catalog snapshot"),
        (
            f'{{"format": "{SNAPSHOT_FORMAT}", "servers": [{{"transport": "stdio"}}]}}',
            r":1 \(servers\[0\]\.name\): required field is missing",
        ),
        (f'{{"format": "{SNAPSHOT_FORMAT}", "servers": []}}', "servers"),
    ],
)
def test_a_bad_snapshot_is_one_clear_input_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, "utf-8")
    with pytest.raises(InputFileError, match=message) as caught:
        load_catalog(path)
    assert str(path) in str(caught.value)


def test_a_missing_snapshot_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="file not found"):
        load_catalog(tmp_path / "nope.json")


def test_a_catalog_survives_the_results_record() -> None:
    """The run header embeds the catalog; reading it back must give the same hash and names."""
    catalog = build_catalog([HELPDESK, WIKI], {"tickets": ["*ticket*"]})
    again = Catalog.model_validate_json(catalog.model_dump_json())
    assert again.hash == catalog.hash
    assert again == catalog
    assert again.area_by_name == catalog.area_by_name


def test_the_summary_keeps_untrusted_text_on_one_harmless_line() -> None:
    from mcp_evals.cli.catalog_cmd import summary

    hostile = server("s", wire_tool("get\x1b[31mred", "Line one\x1b]0;title\x07\nline two\u202e"))
    text = summary(build_catalog([hostile]), width=100)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "Line one?]0;title?" in text


def test_the_summary_keeps_columns_aligned_for_wide_characters() -> None:
    from mcp_evals.cli.catalog_cmd import display_width, summary

    tools = [wire_tool("検索", "Search."), wire_tool("find", "Find."), wire_tool("files.read", "Read.")]
    wide = server("s", *tools)
    lines = summary(build_catalog([wide]), width=100).splitlines()
    rows = [line for line in lines if line.startswith(("検索 ", "find ", "files.read "))]
    assert len(rows) == 3
    # The area column starts at the same terminal column on every row.
    assert len({display_width(row[: row.index("  s  ")]) for row in rows}) == 1
    assert "2 tool names do not fit the model APIs" in "\n".join(lines)


def test_a_copied_catalog_recomputes_its_hash_and_lookups() -> None:
    from mcp_evals.catalog.model import Catalog, Tool

    original = Catalog(tools=[Tool(name="get_ticket", server="helpdesk", wire_name="get_ticket")])
    first_hash = original.hash
    assert original.get("get_ticket") is not None

    changed = original.model_copy(
        update={"tools": [Tool(name="fetch_ticket", server="helpdesk", wire_name="fetch_ticket")]}
    )

    assert changed.hash != first_hash
    assert changed.get("fetch_ticket") is not None and changed.get("get_ticket") is None
    assert changed.names.provider("fetch_ticket") == "fetch_ticket"
