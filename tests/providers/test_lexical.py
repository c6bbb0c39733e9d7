"""The lexical baseline on real catalogs of every size: it must call tools on a one- and a two-tool
catalog, still refuse what no tool fits, and not lose ground on the 22-tool helpdesk example.

Before the catalog-relative rule (an absolute BM25 threshold of 3.0), top-1 was 0 % on
mcp-server-time, 0 % on mcp-server-fetch, 31 % on server-memory (these fixtures) and 44.9 % on the
helpdesk example.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import anyio
import pytest

from conftest import EXAMPLES, Cli, Project
from mcp_evals.answers import Message
from mcp_evals.catalog.model import Catalog
from mcp_evals.providers.base import ProviderSettings
from mcp_evals.providers.lexical import LexicalProvider, idf, required_words, tool_words, unit_score
from mcp_evals.record.read import read_results
from mcp_evals.score import Scorecard, score_results
from mcp_evals.text import stem
from support.catalog_helpers import PYTHON, node_server, write_config
from support.records import catalog, tool

FIXTURES = Path(__file__).parent / "lexical"


def reference_server(name: str) -> dict[str, object]:
    if name == "memory":
        return {"name": name, "command": str(node_server("mcp-server-memory"))}
    module = {"time": "mcp_server_time", "fetch": "mcp_server_fetch"}[name]
    return {"name": name, "command": PYTHON, "args": ["-m", module]}


def lexical_run(cli: Cli, tmp_path: Path, name: str) -> Scorecard:
    config = write_config(tmp_path, [reference_server(name)], fixtures=str(FIXTURES / f"{name}.yaml")).path
    results = tmp_path / "results.ndjson"
    outcome = cli("run", "--config", config, "--provider", "lexical", "--results", results)
    assert outcome.code == 0, outcome.err
    return score_results(read_results(results))


@pytest.mark.parametrize(("name", "tools"), [("time", 2), ("fetch", 1), ("memory", 9)])
def test_the_lexical_baseline_calls_tools_on_small_catalogs_and_still_refuses(
    cli: Cli, tmp_path: Path, clean_env: pytest.MonkeyPatch, name: str, tools: int
) -> None:
    scorecard = lexical_run(cli, tmp_path, name)
    assert scorecard.run.tool_count == tools
    top1 = scorecard.metrics.top1
    assert top1.value is not None and top1.value >= 0.5, (name, top1)
    # Queries that share no word with the catalog are refused, whatever its size.
    assert scorecard.metrics.refusal.value == 1.0


def test_the_helpdesk_example_does_no_worse_than_the_absolute_threshold_did(
    project: Project, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    outcome = cli("run", "--config", project.config, "--results", project.results)
    assert outcome.code == 0, outcome.err
    scorecard = score_results(read_results(project.results))
    assert scorecard.run.lexical and scorecard.run.tool_count == 22
    assert scorecard.metrics.top1.hits >= 22 and scorecard.metrics.top1.total == 49  # 44.9 %
    assert scorecard.metrics.refusal.hits >= 2  # as before: weak matches on 22 tools are refused


def test_the_evidence_asked_for_grows_with_the_catalog() -> None:
    assert required_words(1) == 0.0  # one tool: any shared word
    assert required_words(2) == 0.25
    assert required_words(22) == pytest.approx(0.25 * math.log2(22))  # 1.11: the old 3.0 on 22 tools
    assert required_words(22) * unit_score(22) == pytest.approx(3.0, abs=0.05)
    assert unit_score(2) == idf(2, 1) == pytest.approx(math.log(2))
    assert required_words(8, strictness=1.0) == 3.0


def ask(provider: LexicalProvider, tools: Catalog, query: str) -> list[str]:
    answer = anyio.run(provider.generate, [Message.user(query)], tools.specs)
    return [call.name for call in tools.names.resolve(answer).calls]


def test_one_shared_word_calls_the_only_tool_and_none_refuses() -> None:
    only: Catalog = catalog(tool("fetch", "web", "Fetches a URL from the internet."))
    provider = LexicalProvider(ProviderSettings(model="bm25"))
    assert ask(provider, only, "grab that URL for me") == ["fetch"]
    assert ask(provider, only, "book a table for two") == []


def test_strictness_is_the_knob() -> None:
    two: Catalog = catalog(tool("get_current_time", "time", "Get current time"), tool("convert_time", "time"))
    lenient = LexicalProvider(ProviderSettings(model="bm25"))
    strict = LexicalProvider(ProviderSettings(model="bm25", own={"lexical_strictness": 20.0}))
    assert ask(lenient, two, "current time please") == ["get_current_time"]
    assert ask(strict, two, "current time please") == []
    # why it called nothing: the evidence against the bar, with the best matches; no list of zeros
    weak = anyio.run(strict.generate, [Message.user("current time please")], two.specs).text
    assert weak.startswith("lexical baseline: the best match has ") and "(best get_current_time " in weak
    none = anyio.run(strict.generate, [Message.user("book a table")], two.specs).text
    assert none == "lexical baseline: no word of the query is in the catalog, so no tool is called"


def test_words_come_from_nested_parameters_and_plurals_meet_singulars() -> None:
    item = {
        "type": "object",
        "properties": {"relationType": {"type": "string", "description": "The kind of link"}},
    }
    schema = {"type": "object", "properties": {"relations": {"type": "array", "items": item}}}
    nested = tool("create_relations", "graph", schema=schema)
    assert {stem(word) for word in ("relations", "type", "kind", "link")} <= set(tool_words(nested))
    forms = [("nodes", "node"), ("indexes", "index"), ("matches", "match"), ("classes", "class")]
    forms += [("tickets", "ticket"), ("created", "create"), ("creating", "create"), ("entries", "entry")]
    assert [stem(plural) for plural, _ in forms] == [stem(singular) for _, singular in forms]
    assert len({stem(word) for word in ("node", "note", "name", "class", "ticket")}) == 5


@pytest.mark.parametrize(("example", "hits", "total"), [("helpdesk", 22, 49), ("notes-ts", 4, 12)])
def test_the_examples_readmes_give_the_lexical_baselines_numbers(
    cli: Cli, tmp_path: Path, clean_env: pytest.MonkeyPatch, example: str, hits: int, total: int
) -> None:
    folder = EXAMPLES / example
    clean_env.setenv(
        "PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    )  # `python` has mcp
    if example == "notes-ts" and not (folder / "dist" / "index.js").exists():
        pytest.fail("examples/notes-ts is not built: scripts/bootstrap runs `npm ci && npm run build` there")
    results = tmp_path / "results.ndjson"
    outcome = cli("run", "--config", folder / "mcp-evals.yaml", "--provider", "lexical", "--results", results)
    assert outcome.code == 0, outcome.err
    top1 = score_results(read_results(results)).metrics.top1
    assert (top1.hits, top1.total) == (hits, total)
    readme = (folder / "README.md").read_text("utf-8")
    assert f"the lexical baseline, top-1 {100 * hits / total:.1f} % ({hits}/{total}), not gated" in readme


def test_every_report_of_a_lexical_run_gives_its_reason_and_no_top_k(
    cli: Cli, tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    """The lexical baseline makes one call per answer, so no report shows a top-k (it would repeat
    top-1); why it called nothing is in every report that lists failing fixtures, the terminal too."""
    import json
    import xml.etree.ElementTree as ET

    from mcp_evals.report import render_html, render_json, render_junit, render_markdown, render_terminal

    scorecard = lexical_run(cli, tmp_path, "memory")
    assert scorecard.metrics.top_k is None and scorecard.metrics.k == 3
    missed = next(f for f in scorecard.failing if f.representative and not f.representative.calls)
    reason = missed.representative.text if missed.representative else ""
    assert reason.startswith("lexical baseline: ") and "so no tool is called" in reason

    terminal = render_terminal(scorecard, width=200)
    lines = terminal.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith(f"  {missed.id} "))
    assert "→ (no call)" in lines[row]
    column = lines[row].index(missed.expected_tools[0])  # under "expected → chosen"
    below = [line for line in lines[row + 1 : row + 4] if line[:column].isspace() and line[column:].strip()]
    assert below and below[0][column:].startswith("refusal: lexical baseline: ")
    assert " ".join(line.strip() for line in below).split() == f"refusal: {reason}".split()  # all of it
    markdown = render_markdown(scorecard)
    html = render_html(scorecard)
    assert "(no call) refusal: lexical baseline: " in markdown and "lexical baseline: " in html
    for text in (terminal, markdown, html):
        assert "top-1" in text.lower() and "top-3" not in text.lower()
    assert json.loads(render_json(scorecard))["scorecard"]["metrics"]["top_k"] is None
    properties = {p.get("name") for p in ET.fromstring(render_junit(scorecard)).iter("property")}
    assert "top1" in properties and not any(
        "top_k" in str(name) or "top3" in str(name) for name in properties
    )
