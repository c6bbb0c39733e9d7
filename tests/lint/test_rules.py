"""Every rule fires on a catalog (or fixture set) with its defect, and stays quiet on one without it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from mcp_evals.catalog.model import Catalog
from mcp_evals.fixtures.model import Fixture
from mcp_evals.lint.context import ProbeResult
from mcp_evals.lint.rules import all_rules
from mcp_evals.servers.model import Conformance

from .helpers import DESCRIPTIONS, catalog, distinct, fixture, found, servers, tool
from .test_security import NEW_FIRES, NEW_QUIET

LONG = "Looks up one customer account by its id and returns the profile with plan and contact details. "


@dataclass
class Case:
    catalog: Callable[[], Catalog]
    fixtures: Callable[[], list[Fixture]] | None = None
    probe: list[ProbeResult] | None = None
    thresholds: dict[str, Any] = field(default_factory=dict)
    conformance: list[Conformance] | None = None
    expect: str = ""  # a piece of the message when it fires


def vague_catalog(count: int) -> Catalog:
    return catalog(
        *(tool(f"tool_{chr(97 + i)}{chr(97 + i)}", f"Does thing number {i} now.") for i in range(count))
    )


def covered_fixtures() -> list[Fixture]:
    return [
        fixture("a", "Find tickets about the Android app logging people out", ["search_tickets"]),
        fixture("b", "Give Lena her money back for the March invoice INV-7", ["issue_refund"]),
        fixture("no-1", "Book me a flight to Lisbon", kind="refuse"),
    ]


TICKETS = lambda: catalog(  # noqa: E731
    tool("search_tickets", DESCRIPTIONS[0], params={"query": "string"}, required=["query"]),
    tool(
        "issue_refund",
        DESCRIPTIONS[1],
        params={"invoice_id": {"type": "string", "description": "The invoice id, e.g. INV-7."}},
        required=["invoice_id"],
    ),
)
SIMILAR = (
    "Create multiple new entities in the knowledge graph with their names and types.",
    "Create multiple new relations in the knowledge graph between named entities.",
)

FIRES: dict[str, Case] = {
    "N001": Case(lambda: distinct("search_tickets", "getInvoice", "list_users"), expect="getInvoice"),
    "N002": Case(lambda: distinct("get_user", "get_users"), expect="1 edit apart"),
    "N003": Case(lambda: distinct("execute_task"), expect="generic"),
    "N004": Case(lambda: distinct("files.read"), expect="'files_read'"),
    "N005": Case(
        lambda: catalog(
            tool("ping_host", "Sends an ICMP echo to a machine and returns the round-trip time.")
        ),
        expect="ping_host",
    ),
    "D001": Case(lambda: catalog(tool("search_tickets", "")), expect="no description"),
    "D002": Case(lambda: catalog(tool("get_user", "Gets a user.")), expect="12 characters"),
    "D003": Case(lambda: catalog(tool("get_customer", LONG * 20)), expect="tokens"),
    "D004": Case(
        lambda: catalog(tool("get_customer", "TODO: describe what this returns for the customer.")),
        expect="TODO",
    ),
    "D005": Case(
        lambda: catalog(tool("create_entities", SIMILAR[0]), tool("create_relations", SIMILAR[1])),
        expect="shared terms",
    ),
    "D006": Case(
        lambda: catalog(tool("create_entities", SIMILAR[0]), tool("create_relations", SIMILAR[1])),
        expect="closest neighbour 'create_relations'",
    ),
    "D007": Case(
        lambda: catalog(
            tool("reply_ticket", "Reply on a ticket; find its id with fetch_ticket first. Returns the reply.")
        ),
        expect="'fetch_ticket'",
    ),
    "D008": Case(
        lambda: catalog(tool("toggle_logging", "Turns the simulated logging of the server on or off.")),
        expect="returns",
    ),
    "S001": Case(
        lambda: catalog(
            tool(
                "read_file",
                schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            )
        ),
        expect="'path'",
    ),
    "S002": Case(
        lambda: catalog(
            tool(
                "read_file",
                schema={"type": "object", "properties": {"head": {"type": "number"}}, "required": []},
            )
        ),
        expect="'head'",
    ),
    "S003": Case(
        lambda: catalog(tool("read_file", params={"path": {"description": "The file to read."}})),
        expect="no type",
    ),
    "S004": Case(
        lambda: catalog(
            tool(
                "list_users",
                params={"status": {"type": "string", "description": "One of: active, inactive, banned."}},
            )
        ),
        expect="'status'",
    ),
    "S005": Case(
        lambda: catalog(tool("get_ticket", params={"ticket_id": "string"}, required=["ticket_id"])),
        expect="ticket_id (required)",
    ),
    "S006": Case(
        lambda: catalog(
            tool("tag_ticket", params={"tags": {"type": "array", "description": "Tags to add."}})
        ),
        expect="'tags'",
    ),
    "S007": Case(
        lambda: catalog(
            tool(
                "either_way", schema={"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}}]}
            )
        ),
        expect="anyOf",
    ),
    "S008": Case(
        lambda: catalog(
            tool("get_ticket", params={"status": {"$ref": "#/$defs/Status", "description": "The status."}})
        ),
        expect="'#/$defs/Status'",
    ),
    "S009": Case(
        lambda: catalog(
            tool(
                "list_users",
                schema={
                    "type": "object",
                    "properties": {"limit": {"type": "integer", "description": "At most."}},
                },
            )
        ),
        expect="`required`",
    ),
    "S010": Case(lambda: catalog(tool("do_anything", schema={"type": "object"})), expect="no properties"),
    "S011": Case(
        lambda: catalog(
            tool(
                "deep",
                params={
                    "a": {
                        "type": "object",
                        "description": "A.",
                        "properties": {
                            "b": {
                                "type": "object",
                                "properties": {
                                    "c": {"type": "object", "properties": {"d": {"type": "string"}}}
                                },
                            }
                        },
                    }
                },
            )
        ),
        expect="4 levels",
    ),
    "S012": Case(
        lambda: catalog(tool("create_event", params={f"field_{i}": "string" for i in range(9)})),
        expect="9 parameters",
    ),
    "S013": Case(
        lambda: catalog(
            tool(
                "tag_ticket",
                params={
                    "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags to add."}
                },
            )
        ),
        expect="'tags'",
    ),
    "S014": Case(
        lambda: catalog(tool("create_event", params={f"field_{i}": "string" for i in range(41)})),
        expect="41 properties",
    ),
    "T001": Case(
        lambda: distinct("search_tickets", "issue_refund"),
        thresholds={"max_catalog_tokens": 20},
        expect="more than 20",
    ),
    "T002": Case(
        lambda: distinct("search_tickets"), thresholds={"max_tool_tokens": 20}, expect="more than 20"
    ),
    "T003": Case(
        lambda: catalog(
            *(
                tool(
                    f"tool_{name}",
                    f"This tool is part of the Acme suite of helpers and it {verb} things for you, "
                    "quickly and safely.",
                )
                for name, verb in (("a", "reads"), ("b", "writes"), ("c", "moves"))
            )
        ),
        expect="3 descriptions open",
    ),
    "C001": Case(
        lambda: catalog(tool("create_entities", SIMILAR[0]), tool("create_relations", SIMILAR[1])),
        expect="likely to be confused",
    ),
    "C002": Case(
        lambda: servers(
            one=[
                tool(
                    "search_docs",
                    "Search the documentation pages by keyword and return the best matches.",
                    params={"query": "string"},
                )
            ],
            two=[
                tool(
                    "find_docs",
                    "Search the documentation pages by keyword and return matching pages.",
                    params={"query": "string"},
                )
            ],
        ),
        expect="servers 'one' and 'two'",
    ),
    "C003": Case(
        lambda: distinct("search_tickets", "issue_refund"), thresholds={"max_tools": 1}, expect="2 tools"
    ),
    "C004": Case(lambda: vague_catalog(20), expect="vague descriptions"),
    "C005": Case(
        lambda: catalog(
            tool("search_tickets", "全文検索でチケットを探して結果を返します。"),
            tool("issue_refund", DESCRIPTIONS[1]),
        ),
        expect="CJK",
    ),
    "C006": Case(
        TICKETS,
        probe=[ProbeResult("issue_refund", is_error=False, text="refunded")],
        expect="accepted a call",
    ),
    "C007": Case(
        TICKETS,
        probe=[ProbeResult("issue_refund", is_error=True, text="Internal server error")],
        expect="Internal server error",
    ),
    "F001": Case(
        TICKETS,
        lambda: [
            fixture(
                "leak", "use search_tickets to find the android logout reports", ["search_tickets"], line=7
            )
        ],
        expect="'search_tickets'",
    ),
    "F002": Case(
        TICKETS,
        lambda: [fixture("no-id", "Refund the customer for their last invoice", ["issue_refund"])],
        expect="invoice_id",
    ),
    "F003": Case(
        TICKETS,
        lambda: [fixture("a", "Find tickets about logouts", ["search_tickets"])],
        expect="'issue_refund'",
    ),
    "F004": Case(
        lambda: servers(support=[tool("search_tickets", index=0)], billing=[tool("issue_refund", index=1)]),
        lambda: [fixture("a", "Find tickets about logouts", ["search_tickets"])],
        expect="'billing'",
    ),
    "F005": Case(
        TICKETS,
        lambda: [fixture("a", "Find tickets about logouts", ["search_tickets"])],
        expect="the one fixture is not a refuse fixture",
    ),
    "F006": Case(TICKETS, covered_fixtures, expect="1 refuse/clarify fixture:"),
}

QUIET: dict[str, Case] = {
    "N001": Case(lambda: distinct("search_tickets", "get_invoice", "ping")),
    "N002": Case(lambda: distinct("get_user", "list_invoices", "send_message")),
    "N003": Case(lambda: distinct("run_migration", "get_invoice")),
    "N004": Case(lambda: distinct("files_read", "a" * 64)),
    "N005": Case(
        lambda: catalog(tool("ping_host", "Pings a host and returns the round-trip time in milliseconds."))
    ),
    "D001": Case(lambda: distinct("search_tickets")),
    "D002": Case(lambda: distinct("get_user")),
    "D003": Case(lambda: catalog(tool("get_customer", LONG * 3))),
    "D004": Case(
        lambda: catalog(
            tool(
                "get_customer",
                "Returns the customer with their plan; a placeholder in a template is filled in.",
            )
        )
    ),
    "D005": Case(lambda: distinct("create_entities", "create_relations")),
    "D006": Case(
        lambda: catalog(
            tool("create_entities", SIMILAR[0] + " For links between entities use create_relations."),
            tool(
                "create_relations",
                SIMILAR[1] + " To add the entities themselves use create_entities instead.",
            ),
        )
    ),
    "D007": Case(
        lambda: catalog(
            tool(
                "reply_ticket", "Reply on a ticket; find its id with search_tickets first. Returns the reply."
            ),
            tool("search_tickets", DESCRIPTIONS[0]),
        )
    ),
    "D008": Case(
        lambda: catalog(
            tool("toggle_logging", "Turns the simulated logging on or off.", output_schema={"type": "object"})
        )
    ),
    "S001": Case(lambda: catalog(tool("read_file", params={"path": "string"}, required=["path"]))),
    "S002": Case(
        lambda: catalog(tool("read_file", params={"head": "number", "mode": {"enum": ["text", "binary"]}}))
    ),
    "S003": Case(
        lambda: catalog(
            tool(
                "read_file",
                params={
                    "path": "string",
                    "mode": {"enum": ["a", "b"]},
                    "n": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                },
            )
        )
    ),
    "S004": Case(
        lambda: catalog(
            tool(
                "get_time",
                params={
                    "zone": {"type": "string", "description": "IANA zone, e.g. 'Europe/Paris', 'Asia/Tokyo'."}
                },
            )
        )
    ),
    "S005": Case(
        lambda: catalog(
            tool(
                "search_tickets",
                params={"query": "string", "token_budget": {"type": "string", "enum": ["a"]}},
            )
        )
    ),
    "S006": Case(
        lambda: catalog(
            tool(
                "tag_ticket",
                params={"tags": {"type": "array", "items": {"type": "string"}, "description": "Tags."}},
            )
        )
    ),
    "S007": Case(lambda: distinct("plain_object")),
    "S008": Case(
        lambda: catalog(
            tool(
                "get_ticket",
                schema={
                    "type": "object",
                    "properties": {"status": {"$ref": "#/$defs/Status"}},
                    "$defs": {"Status": {"enum": ["open"]}},
                    "required": [],
                },
            )
        )
    ),
    "S009": Case(lambda: catalog(tool("list_users", params={"limit": "integer"}))),
    "S010": Case(
        lambda: catalog(
            tool("get_time", schema={"type": "object", "properties": {}, "additionalProperties": False})
        )
    ),
    "S011": Case(
        lambda: catalog(
            tool(
                "deep",
                params={
                    "a": {
                        "type": "object",
                        "description": "A.",
                        "properties": {"b": {"type": "object", "properties": {"c": {"type": "string"}}}},
                    }
                },
            )
        )
    ),
    "S012": Case(lambda: catalog(tool("create_event", params={f"field_{i}": "string" for i in range(8)}))),
    "S013": Case(
        lambda: catalog(
            tool(
                "tag_ticket",
                params={
                    "tags": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Tags, e.g. ['vip'].",
                    }
                },
            )
        )
    ),
    "S014": Case(lambda: catalog(tool("create_event", params={f"field_{i}": "string" for i in range(40)}))),
    "T001": Case(lambda: distinct("search_tickets", "issue_refund")),
    "T002": Case(lambda: distinct("search_tickets")),
    "T003": Case(lambda: distinct("tool_a", "tool_b", "tool_c")),
    "C001": Case(lambda: distinct("create_entities", "create_relations")),
    "C002": Case(lambda: servers(one=[tool("search_docs", index=0)], two=[tool("find_users", index=1)])),
    "C003": Case(lambda: distinct("search_tickets", "issue_refund")),
    "C004": Case(lambda: vague_catalog(19)),
    "C005": Case(lambda: distinct("search_tickets", "issue_refund")),
    "C006": Case(
        TICKETS,
        probe=[ProbeResult("issue_refund", is_error=True, text="missing required argument invoice_id")],
    ),
    "C007": Case(
        TICKETS,
        probe=[
            ProbeResult("issue_refund", is_error=True, text="1 validation error: invoice_id Field required")
        ],
    ),
    "F001": Case(
        TICKETS,
        lambda: [fixture("ok", "Has anyone reported the android app logging them out?", ["search_tickets"])],
    ),
    "F002": Case(TICKETS, lambda: [fixture("id", "Refund invoice INV-2025-0207 in full", ["issue_refund"])]),
    "F003": Case(TICKETS, covered_fixtures),
    "F004": Case(
        lambda: servers(support=[tool("search_tickets", index=0)], billing=[tool("issue_refund", index=1)]),
        covered_fixtures,
    ),
    "F005": Case(TICKETS, covered_fixtures),
    "F006": Case(
        TICKETS,
        lambda: [
            *covered_fixtures(),
            *(fixture(f"no-{i}", f"Order {i} pizzas", kind="refuse") for i in range(2, 11)),
        ],
    ),
}


# The security, resources-and-prompts and protocol rules: their cases live in test_security.py.
FIRES |= {
    rule: Case(make, conformance=answers, expect=piece) for rule, (make, answers, piece) in NEW_FIRES.items()
}
QUIET |= {rule: Case(make, conformance=answers) for rule, (make, answers) in NEW_QUIET.items()}


def test_every_rule_has_a_firing_and_a_quiet_case() -> None:
    ids = {rule.id for rule in all_rules()}
    assert set(FIRES) == ids
    assert set(QUIET) == ids


def _findings(rule: str, case: Case) -> list[Any]:
    fixtures = case.fixtures() if case.fixtures else None
    return found(
        rule, case.catalog(), fixtures, probe=case.probe, conformance=case.conformance, **case.thresholds
    )


@pytest.mark.parametrize("rule", sorted(FIRES))
def test_the_rule_fires_on_its_defect(rule: str) -> None:
    findings = _findings(rule, FIRES[rule])
    assert findings, f"{rule} did not fire"
    assert FIRES[rule].expect in findings[0].message


@pytest.mark.parametrize("rule", sorted(QUIET))
def test_the_rule_is_quiet_without_its_defect(rule: str) -> None:
    assert _findings(rule, QUIET[rule]) == []


@pytest.mark.parametrize(
    "query",
    [
        "please call issue_refund for me",
        "Refund by invoice_id please",
        'Run "issue_refund" on `invoice_id`',
        "Refund them: call ISSUE_REFUND",
    ],
)
def test_f002_counts_no_tool_name_or_parameter_key_as_a_value(query: str) -> None:
    findings = found("F002", TICKETS(), [fixture("named", query, ["issue_refund"])])
    assert [finding.message for finding in findings] == [
        "fixture 'named' expects 'issue_refund', which needs invoice_id from another tool, "
        "but the query gives no concrete value for it"
    ]
    given = [fixture("given", query + " for invoice INV-7", ["issue_refund"])]
    assert found("F002", TICKETS(), given) == []


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({}, "it declares no type (providers need 'object')"),
        ({"anyOf": [{"type": "object"}, {"type": "string"}]}, "it declares no type, only anyOf at the root"),
        ({"type": "array"}, "its type is 'array', not 'object'"),
        ({"type": "object", "oneOf": [{"required": ["a"]}]}, "it has oneOf at the root"),
    ],
)
def test_s007_says_what_the_root_declares(schema: dict[str, Any], problem: str) -> None:
    findings = found("S007", catalog(tool("odd_one", schema=schema)))
    assert [finding.message for finding in findings] == [
        f"the input schema of 'odd_one' is rejected by providers: {problem}"
    ]


@pytest.mark.parametrize(
    ("description", "message"),
    [
        ("Gets a user.", "has 12 characters (fewer than 30)"),
        (
            "根据用户编号查询并返回该用户的完整资料和联系方式。",
            None,
        ),  # a full Chinese sentence (24 characters)
        ("ユーザー情報を取得して返します。", None),  # Japanese, kana and kanji (16 characters)
        ("사용자 정보를 찾아서 반환합니다.", None),  # Korean (18 characters)
        ("查询用户。", "has 5 characters, worth 13 in Latin script (fewer than 30)"),
        ("X", "has 1 character (fewer than 30)"),
    ],
)
def test_d002_counts_a_cjk_character_as_more_than_one_latin_one(
    description: str, message: str | None
) -> None:
    findings = found("D002", catalog(tool("get_user", description)))
    assert [finding.message for finding in findings] == (
        [f"the description of 'get_user' {message}"] if message else []
    )


def test_c005_counts_one_description_as_one() -> None:
    findings = found(
        "C005",
        catalog(
            tool("search_tickets", "全文検索でチケットを探して結果を返します。"),
            tool("issue_refund", DESCRIPTIONS[1]),
        ),
    )
    assert findings[0].message.startswith("1 description is in a CJK script only (search_tickets) and 1 in")
