"""improve's parts, each on its own: the split, the targets, the prompt, the rule-based rewriter, the
lint's check, the evidence, improve.md."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.compare.paired import Comparison
from mcp_evals.config.load import load_config
from mcp_evals.errors import ConfigError
from mcp_evals.fixtures.model import Fixture
from mcp_evals.improve.check import check_proposals
from mcp_evals.improve.evidence import overall, pair_verdicts
from mcp_evals.improve.loop import ImproveSettings, _places
from mcp_evals.improve.model import ImproveReport, LintNote, PairVerdict, Proposal, TargetPair, ToolTarget
from mcp_evals.improve.prompts import examples, held_out, parse_proposal, proposal_prompt
from mcp_evals.improve.render import description_diff, render_improve
from mcp_evals.improve.rewrite import distinguishing_terms, rewrite
from mcp_evals.improve.split import split_fixtures
from mcp_evals.improve.targets import DevAnswer, choose_pairs, tool_targets
from mcp_evals.lint.engine import lint_with_context
from mcp_evals.score.scorecard import FixtureScore, Scorecard
from mcp_evals.synth.parse import Malformed


def select(fixture_id: str, query: str, tool: str, split: str | None = None) -> Fixture:
    return Fixture(id=fixture_id, query=query, expected_tools=[tool], split=split)  # type: ignore[arg-type]


# -- the split --------------------------------------------------------------------------------------


def test_a_fixture_keeps_its_split_and_the_unsplit_are_placed_the_same_every_time(
    helpdesk_fixtures: list[Fixture],
) -> None:
    first = split_fixtures(helpdesk_fixtures, 0.5)
    again = split_fixtures(list(reversed(helpdesk_fixtures)), 0.5)
    assert {f.id for f in first.test} == {f.id for f in again.test}
    assert len(first.dev) + len(first.test) == len(helpdesk_fixtures)
    assert 0.4 < len(first.test) / len(helpdesk_fixtures) < 0.65
    assert "had no `split:`" in first.notes[0]
    marked = [f.model_copy(update={"split": "dev"}) for f in helpdesk_fixtures[:3]]
    frozen = [helpdesk_fixtures[3].model_copy(update={"split": "test"}), *marked, *helpdesk_fixtures[4:]]
    given = split_fixtures(frozen, 0.5)
    # a test split that is given is frozen: everything unmarked joins dev
    assert [f.id for f in given.test] == [helpdesk_fixtures[3].id]
    assert "joined dev" in given.notes[0]
    with pytest.raises(ConfigError, match="no fixture is in the test split"):
        split_fixtures([f.model_copy(update={"split": "dev"}) for f in helpdesk_fixtures])


# -- targets ----------------------------------------------------------------------------------------


def test_observed_pairs_come_first_then_the_lints_and_excluded_tools_are_left_out(
    helpdesk_catalog: Catalog,
) -> None:
    report, context = lint_with_context(helpdesk_catalog)
    predicted = report.predicted_pairs
    assert predicted
    observed = Counter({("get_invoice", "list_invoices"): 1, ("get_customer", "search_customers"): 3})
    pairs = choose_pairs(observed, predicted, context.score_of, limit=4)
    assert [pair.tools for pair in pairs[:2]] == [
        ("get_customer", "search_customers"),
        ("get_invoice", "list_invoices"),
    ]
    assert pairs[0].observed == 3 and pairs[2].observed == 0 and pairs[2].predicted is not None
    assert len(pairs) == 4
    kept = choose_pairs(observed, predicted, context.score_of, limit=10, exclude_tools=["get_*"])
    assert not any(name.startswith("get_") for pair in kept for name in pair.tools)
    targets = tool_targets(pairs[:2], report)
    assert [t.tool for t in targets] == ["get_customer", "search_customers", "get_invoice", "list_invoices"]
    assert targets[0].neighbours == ["search_customers"]
    assert all(note.rule[0] in "DSN" for target in targets for note in target.findings)


# -- the proposer's prompt --------------------------------------------------------------------------


def test_the_prompt_shows_dev_requests_never_a_test_one(helpdesk_catalog: Catalog) -> None:
    dev = [
        select("d1", "Which tickets are waiting on us right now?", "list_tickets", "dev"),
        select("d2", "Anyone else complaining about the calendar sync?", "search_tickets", "dev"),
        select("d3", "Show me the queue of urgent ones", "list_tickets", "dev"),
        select("t0", "A test request that only the proof may see", "list_tickets", "test"),  # mislabelled
        select("d4", "Urgent: tickets for Acme please, then more", "list_tickets", "dev"),  # holds t2
    ]
    test = [
        select("t1", "Show me the queue of urgent ones", "list_tickets", "test"),  # also a dev query
        select("t2", "tickets for Acme", "list_tickets", "test"),
    ]
    target = ToolTarget(
        tool="list_tickets",
        neighbours=["search_tickets"],
        findings=[LintNote(rule="D006", severity="warning", message="says nothing about search_tickets")],
    )
    answers = {"d2": DevAnswer("d2", "list_tickets", right=False)}
    shown = examples(target, dev, answers, [f.query for f in test])
    assert [e.query for e in shown] == [dev[0].query, dev[1].query]
    system, user = proposal_prompt(target, helpdesk_catalog, shown)
    assert "Write the new description of list_tickets." in user
    assert "Tool search_tickets\nDescription:" in user  # the neighbour, whole
    assert "D006 (warning): says nothing about search_tickets" in user
    wrong = "(an assistant called list_tickets)"
    assert f'"Anyone else complaining about the calendar sync?" → search_tickets {wrong}' in user
    assert held_out(system + user, [f.query for f in test]) == []
    assert held_out(user + " show me the QUEUE of  urgent ones", [f.query for f in test]) == [test[0].query]
    assert "A test request" not in user


def test_a_proposal_is_read_from_json_bare_or_fenced_and_a_missing_description_is_malformed() -> None:
    fenced = (
        'Here:\n```json\n{"description": " Find  tickets. ", "parameters": {"query": "Words.", "x": 3}}\n```'
    )
    proposed = parse_proposal(fenced)
    assert proposed.description == "Find tickets." and proposed.parameters == {"query": "Words."}
    with pytest.raises(Malformed):
        parse_proposal('{"why": "no description"}')
    with pytest.raises(Malformed):
        parse_proposal("I would rather not.")


# -- the rule-based rewriter ------------------------------------------------------------------------


def test_the_rewriter_adds_the_words_users_use_that_the_neighbour_lacks_and_names_the_neighbour(
    helpdesk_catalog: Catalog,
) -> None:
    dev = [
        select("a", "Marco was charged twice, send him his money back for INV-2025-0208", "issue_refund"),
        select("b", "Refund the duplicate charge on the card of cus_1002", "issue_refund"),
        select("c", "Put 40 dollars toward Aiko's next bill as goodwill", "apply_account_credit"),
    ]
    tool = helpdesk_catalog.by_name["issue_refund"]
    neighbour = helpdesk_catalog.by_name["apply_account_credit"]
    terms = distinguishing_terms(tool, [neighbour], dev)
    assert "charged" in terms and "duplicate" in terms
    # no values, no names, no chatter, nothing its own description or the neighbour's users say
    assert not {"inv", "2025", "marco", "him", "his", "cus", "refund", "bill", "dollars"} & set(terms)
    target = ToolTarget(
        tool="issue_refund",
        neighbours=["get_invoice"],
        findings=[LintNote(rule="S002", severity="warning", message="no description", parameter="reason")],
    )
    proposed = rewrite(target, helpdesk_catalog, dev)
    assert proposed.description.startswith(tool.description)
    assert "Use it for requests about charged" in proposed.description
    assert proposed.description.endswith("For what get_invoice does, use get_invoice instead.")
    assert proposed.parameters == {"reason": "The reason."}


# -- the lint's check -------------------------------------------------------------------------------


def _proposal(catalog: Catalog, tool: str, text: str, **parameters: str) -> Proposal:
    old = {
        name: str(catalog.by_name[tool].parameters.get(name, {}).get("description", ""))
        for name in parameters
    }
    return Proposal(
        tool=tool,
        old_description=catalog.by_name[tool].description,
        description=text,
        parameters=parameters,
        old_parameters=old,
    )


def test_a_proposal_that_introduces_a_lint_error_is_dropped_with_its_reason(
    helpdesk_catalog: Catalog,
) -> None:
    good = _proposal(
        helpdesk_catalog,
        "get_ticket",
        "Get one ticket in full by its id (T-1042): status, assignee and the whole thread. To find "
        "tickets by topic use search_tickets; to browse a queue use list_tickets.",
    )
    short = _proposal(helpdesk_catalog, "list_tickets", "Tickets.")
    invented = _proposal(helpdesk_catalog, "search_tickets", "Find tickets by their words.", language="Any.")
    same = _proposal(helpdesk_catalog, "get_invoice", helpdesk_catalog.by_name["get_invoice"].description)
    checked = {p.tool: p for p in check_proposals(helpdesk_catalog, [good, short, invented, same])}
    assert checked["get_ticket"].status == "accepted"
    assert checked["list_tickets"].status == "dropped"
    assert "introduces a lint error: D002" in (checked["list_tickets"].reason or "")
    assert checked["search_tickets"].status == "dropped"
    assert "does not have (language)" in (checked["search_tickets"].reason or "")
    assert (
        checked["get_invoice"].status == "dropped" and checked["get_invoice"].reason == "it changes nothing"
    )


# -- the evidence -----------------------------------------------------------------------------------


def _card(right: dict[str, bool]) -> Scorecard:
    fixtures = [
        FixtureScore.model_construct(
            id=fixture_id, outcome="correct_call" if ok else "wrong_tool", reached=1, samples=[]
        )
        for fixture_id, ok in right.items()
    ]
    return Scorecard.model_construct(fixtures=fixtures)


def test_a_pair_is_improved_worse_unchanged_not_proven_or_not_tested_on_its_own_fixtures() -> None:
    test = [select(f"r{i}", f"refund {i}", "issue_refund") for i in range(10)]
    test += [select(f"c{i}", f"credit {i}", "apply_account_credit") for i in range(2)]
    test += [select(f"g{i}", f"invoice {i}", "get_invoice") for i in range(7)]
    before = {f.id: False for f in test[:10]} | {"c0": True, "c1": True} | {f"g{i}": True for i in range(7)}
    after = {f.id: True for f in test[:10]} | {"c0": True, "c1": False} | {f"g{i}": False for i in range(7)}
    after.pop("g6")  # one never answered in B
    pairs = [
        TargetPair(tools=("apply_account_credit", "issue_refund"), observed=2),
        TargetPair(tools=("get_invoice", "list_invoices"), predicted=0.5),
        TargetPair(tools=("get_ticket", "list_tickets"), predicted=0.4),
        TargetPair(tools=("apply_account_credit", "get_subscription"), predicted=0.3),
    ]
    rows = pair_verdicts(pairs, test, _card(before), _card(after), alpha=0.05)
    assert [row.verdict for row in rows] == ["improved", "not proven", "not tested", "no detectable change"]
    refund = rows[0]
    assert (len(refund.fixes), len(refund.breaks), refund.paired) == (10, 1, 12)
    assert refund.p_adjusted == pytest.approx(min(1.0, 3 * refund.p_value))  # the smallest of three tested
    assert rows[1].unanswered == ["g6"] and len(rows[1].breaks) == 6
    worse = pair_verdicts(pairs[1:2], test[12:18], _card(before), _card(after), alpha=0.05)
    assert worse[0].verdict == "worse"


def test_overall_is_nothing_to_prove_without_a_comparison() -> None:
    assert overall(None, 0.05, planned=10)[0] == "nothing to prove"


# -- improve.md -------------------------------------------------------------------------------------


def test_improve_md_escapes_what_servers_and_models_wrote() -> None:
    hostile = "Find tickets. ``` <!-- mcp-evals:x --> @everyone <img src=x>"
    report = ImproveReport(
        provider="anthropic",
        model="claude-sonnet-4-6",
        pairs=[TargetPair(tools=("list_tickets", "search_tickets"), observed=2)],
        proposals=[
            Proposal(
                tool="search_tickets",
                neighbours=["list_tickets"],
                old_description="Search tickets.",
                description=hostile,
                why="<script>alert(1)</script> @here",
            )
        ],
        verdicts=[PairVerdict(tools=("list_tickets", "search_tickets"), verdict="not tested")],
        overall="nothing to prove",
        verdict="Nothing was proven.",
    )
    markdown = render_improve(report)
    assert "<!--" not in markdown  # no hidden marker can be forged
    head, fence, rest = markdown.partition("````diff\n")  # a fence longer than any run of backticks inside
    block, _, tail = rest.partition("\n````\n")
    assert fence and block.startswith("-Search tickets.\n+Find tickets.\n+")
    outside = head + tail
    assert "<script>" not in outside and "<img" not in outside and "@here" not in outside
    assert description_diff("One. Two, e.g. three.", "One. Four.") == " One.\n-Two, e.g. three.\n+Four."
    assert Comparison  # the proof's own model is the one compare writes


def test_apply_leaves_out_a_worse_proof_and_the_tools_of_a_worse_pair(tmp_path: Path) -> None:
    source = tmp_path / "server.py"
    text = (
        "@mcp.tool(description='Get one ticket.')\ndef get_ticket(): ...\n"
        "@mcp.tool(description='List tickets.')\ndef list_tickets(): ...\n"
    )
    source.write_text(text, "utf-8")
    config = tmp_path / "mcp-evals.yaml"
    config.write_text("servers:\n  - name: s\n    command: python\n    args: [server.py]\n", "utf-8")
    proposals = [
        Proposal(tool="get_ticket", old_description="Get one ticket.", description="One ticket, whole."),
        Proposal(tool="list_tickets", old_description="List tickets.", description="Tickets by status."),
    ]
    worse_pair = PairVerdict(tools=("get_ticket", "search_tickets"), verdict="worse")
    report = ImproveReport(
        provider="p", model="m", proposals=proposals, verdicts=[worse_pair], overall="improved"
    )
    settings = ImproveSettings(apply=True)

    catalog = Catalog(
        tools=[
            Tool(
                name=proposal.tool, description=proposal.old_description, server="s", wire_name=proposal.tool
            )
            for proposal in proposals
        ]
    )
    places = _places(load_config(config), catalog, report, settings)

    assert {place.tool: place.applied for place in places} == {"get_ticket": False, "list_tickets": True}
    assert source.read_text("utf-8") == text.replace("'List tickets.'", "'Tickets by status.'")
    worse = report.model_copy(update={"overall": "worse"})
    _places(load_config(config), catalog, worse, settings)
    assert "'Tickets by status.'" in source.read_text(
        "utf-8"
    ) and "'One ticket, whole.'" not in source.read_text("utf-8")
