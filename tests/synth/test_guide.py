"""docs/writing-fixtures.md: its numbers computed here, its examples validated, its defaults the code's."""

from __future__ import annotations

import re
from pathlib import Path

import click
import yaml

from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.cli.synth_cmd import synth
from mcp_evals.config.model import CompareOptions, LintThresholds
from mcp_evals.fixtures.model import Fixture
from mcp_evals.fixtures.validate import has_errors, validate_fixtures
from mcp_evals.lint.registry import RULES
from mcp_evals.lint.rules.fixtures import fixtures_to_tell_collapse
from mcp_evals.stats import sign_test, wilson_interval

DOCS = Path(__file__).resolve().parents[2] / "docs"
GUIDE = (DOCS / "writing-fixtures.md").read_text("utf-8")


def table_after(heading: str) -> list[list[str]]:
    """The rows of the first Markdown table after ``heading`` (header and rule left out)."""
    block = GUIDE.split(heading, 1)[1]
    lines = [line for line in block.splitlines() if line.startswith("|")]
    rows = []
    for line in lines[2:]:
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
        if block.split(line, 1)[1].startswith("\n\n"):
            break
    return rows


def shown(hits: int, total: int) -> str:
    low, high = wilson_interval(hits, total)
    return f"{round(low * 100)}–{round(high * 100)} %"


def test_the_interval_table_is_what_wilson_gives() -> None:
    rows = table_after("## How many fixtures")
    assert [row[0] for row in rows] == ["20", "40", "60", "100", "200", "400"]
    for size, at85, at95, at50 in rows:
        n = int(size)
        assert at85 == shown(round(0.85 * n), n)
        assert at95 == shown(round(0.95 * n), n)
        assert at50 == shown(n // 2, n)
    assert "with 40 fixtures a measured 85 % may be anything from 71 % to\n93 %" in GUIDE


def test_the_fixes_needed_table_is_what_the_exact_test_gives() -> None:
    rows = table_after("| breaks | fixes needed for p < 0.05 |")
    assert rows
    for breaks, fixes in rows:
        b, f = int(breaks), int(fixes)
        assert sign_test(b, f) < 0.05 <= sign_test(b, f - 1)
    assert "B fixes 6, breaks 1 (p = 0.12)" in GUIDE and f"{sign_test(1, 6):.2g}" == "0.12"


def test_the_refuse_and_clarify_numbers_are_the_lints() -> None:
    assert LintThresholds().min_refusal_fixtures == 10 and fixtures_to_tell_collapse() == 7
    assert "at least 10 of them together (F006" in GUIDE and "with fewer than 7" in GUIDE
    assert "38 % → 100 %" in RULES["F002"].why and "(38 % → 100 % once\n  fixed)" in GUIDE


def test_the_synth_defaults_are_the_commands() -> None:
    defaults = {param.name: param.default for param in synth.params if isinstance(param, click.Option)}
    assert defaults["pairs"] == 10 and "`--pairs`, default 10" in GUIDE
    assert defaults["per_tool"] == 3 and "(`--per-tool`, default 3)" in GUIDE
    assert defaults["refuse"] == 5 and "(`--refuse`, default 5)" in GUIDE
    assert defaults["clarify"] == 5 and "(`--clarify`, default 5)" in GUIDE
    assert defaults["test_share"] == 0.3 and "`--test-share`, default 0.3" in GUIDE


def test_the_fixture_examples_validate_against_the_helpdesk_catalog(helpdesk_catalog: Catalog) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", GUIDE, re.DOTALL)
    fixtures = [
        Fixture.model_validate(item)
        for block in blocks
        for item in yaml.safe_load(block) or []
        if isinstance(item, dict)
    ]
    assert {fixture.id for fixture in fixtures} == {"refund-double-charge", "invoice-lines"}
    assert not has_errors(validate_fixtures(fixtures, helpdesk_catalog, options=None))


def test_the_compare_example_is_a_valid_config_section(helpdesk_catalog: Catalog) -> None:
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", GUIDE, re.DOTALL) if b.startswith("compare:"))
    options = CompareOptions.model_validate(yaml.safe_load(block)["compare"])
    assert set(options.descriptions) <= set(helpdesk_catalog.tool_names)


def test_the_links_point_at_headings_that_exist() -> None:
    def anchors(text: str) -> set[str]:
        headings = re.findall(r"^#+ (.+)$", text, re.MULTILINE)
        return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}

    for document, anchor in re.findall(r"\]\(([\w-]*\.md)?#([\w-]+)\)", GUIDE):
        text = (DOCS / document).read_text("utf-8") if document else GUIDE
        assert anchor in anchors(text), f"{document}#{anchor}"


def test_what_the_goal_screen_drops_is_what_the_guide_says() -> None:
    from mcp_evals.synth.assemble import screen_intents
    from mcp_evals.synth.model import Intent

    schema = {"type": "object", "properties": {"customerId": {"type": "string"}, "query": {"type": "string"}}}
    catalog = Catalog(
        tools=[
            Tool(name="search_tickets", server="s", wire_name="search_tickets", input_schema=schema),
            Tool(name="echo", server="s", wire_name="echo", description="Say it back."),
        ]
    )
    goals = {
        "Run search_tickets on the login errors": False,  # a tool's identifier: dropped
        "Find the tickets of customerId C-12": False,  # a parameter's identifier: dropped
        "Echo the words 'hello there' back": True,  # a one-word name is an ordinary word: kept
        "Look up the query the customer sent": True,
    }
    intents = [Intent(kind="select", goal=goal, tool="search_tickets") for goal in goals]
    kept, _dropped = screen_intents(intents, catalog)
    assert {intent.goal: intent in kept for intent in intents} == goals
    said = " ".join(GUIDE.split("2. **Held-out paraphrase.**", 1)[1].split("\n\n", 1)[0].split())
    assert "A goal that names a tool or a parameter is dropped before it gets there" not in said
    assert (
        "A goal that names a tool or a parameter by its identifier, a name of two or more parts "
        "(`search_tickets`, `customerId`), is dropped before it gets there (the lint's F001, on the "
        "goal); a one-word name (`echo`, `query`) is an ordinary word and passes, so the paraphrase "
        "may use it too." in said
    )


def test_dry_is_described_as_what_it_prints() -> None:
    help_text = next(p.help for p in synth.params if isinstance(p, click.Option) and p.name == "dry")
    assert help_text is not None and "print the requests" not in help_text
    assert help_text == (
        "Send nothing: print how many requests each step would send, the estimated tokens and cost, "
        "and whether the budget fits."
    )
    assert "--dry` prints the requests" not in GUIDE
    assert (
        "`mcp-evals synth --dry` sends nothing and prints how many requests each step would send, the\n"
        "estimated tokens and cost, and whether the budget fits." in GUIDE
    )
