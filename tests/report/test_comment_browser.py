"""The Markdown report in a real browser: the PR comment as GitHub renders it, and its Mermaid chart.

The comment page is cmark-gfm's HTML (GitHub's renderer, raw HTML let through) with GitHub-like styles;
its ```mermaid block is drawn by Mermaid itself, loaded from tests/report/browser/node_modules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Error, Page

from conftest import one_worker
from mcp_evals.report import render_markdown
from mcp_evals.score import score_results
from support.records import helpdesk_results

from .conftest import GOLDEN
from .pages import Watch, comment_html, mermaid_html, open_page, own_globals, render_mermaid, wait_for_charts
from .test_hostile import hostile_areas_results, hostile_results

# the module-scoped browser connection: made once, on one worker
pytestmark = one_worker(__name__)

GOLDEN_REPORTS = sorted(path.name for path in GOLDEN.glob("*.md"))
# Every run report draws the per-area chart; a comparison report (compare's arms) draws none.
CHART_REPORTS = [name for name in GOLDEN_REPORTS if not name.endswith("-comparison.md")]


@pytest.fixture(scope="module")
def markdown() -> dict[str, str]:
    return {
        "helpdesk": render_markdown(score_results(helpdesk_results())),
        "hostile": render_markdown(score_results(hostile_results())),
        "hostile-areas": render_markdown(score_results(hostile_areas_results())),
        "empty": "",
        **{name: (GOLDEN / name).read_text(encoding="utf-8") for name in GOLDEN_REPORTS},
    }


@pytest.fixture(scope="module")
def comments(tmp_path_factory: pytest.TempPathFactory, markdown: dict[str, str]) -> dict[str, str]:
    """File URLs of the comment pages: the helpdesk and hostile-text reports, and an empty comment."""
    folder = tmp_path_factory.mktemp("comment")
    urls = {}
    for name in ("helpdesk", "hostile", "empty"):
        path = folder / f"{name}.html"
        path.write_text(comment_html(markdown[name]), encoding="utf-8")
        urls[name] = path.as_uri()
    return urls


@pytest.mark.parametrize("report", ["helpdesk", "hostile"])
def test_the_comment_loads_without_an_error(browser: Browser, comments: dict[str, str], report: str) -> None:
    with open_page(browser, comments[report]) as (page, watch):
        assert wait_for_charts(page) == 1
        assert page.locator(".mermaid-chart svg").count() == 1
        assert page.inner_text(".markdown-body h2").startswith("🔴 mcp-evals: ")
        assert watch.problems == []


@pytest.mark.parametrize("report", ["helpdesk", "hostile"])
def test_every_details_opens(
    browser: Browser, comments: dict[str, str], markdown: dict[str, str], report: str
) -> None:
    with open_page(browser, comments[report]) as (page, watch):
        wait_for_charts(page)
        details = page.locator(".markdown-body details")
        summaries = [re.sub(r" \(.*", "", text) for text in details.locator("summary").all_inner_texts()]
        assert summaries == ["Failing fixtures", "Per tool: precision and recall"]
        assert details.count() == markdown[report].count("<details>")
        for index in range(details.count()):
            section = details.nth(index)
            table = section.locator("table")
            assert section.get_attribute("open") is None and not table.is_visible()
            section.locator("summary").click()
            assert section.evaluate("element => element.open") and table.is_visible()
            # Every row the summary counts is inside its section (or said to be left out).
            counted = re.search(r"\((\d+)", section.locator("summary").inner_text())
            left_out = re.search(r"… (\d+) more", section.inner_text())
            rows = table.locator("tbody tr").count() + int(left_out.group(1) if left_out else 0)
            assert counted and rows == int(counted.group(1))
        assert watch.problems == []


def test_nothing_hostile_runs_in_the_comment(browser: Browser, comments: dict[str, str]) -> None:
    with open_page(browser, comments["empty"]) as (page, _):
        wait_for_charts(page)
        empty = own_globals(page)  # Mermaid's own among them
    with open_page(browser, comments["hostile"]) as (page, watch):
        wait_for_charts(page)
        for summary in page.locator(".markdown-body summary").all():
            summary.click()
        page.wait_for_timeout(200)  # onerror, onload and ontoggle handlers would have run by now
        assert watch.problems == []
        assert own_globals(page) - empty == set()
        assert page.evaluate("typeof window.pwned") == "undefined"
        body = ".markdown-body"
        assert page.locator(f"{body} :is(img, iframe, script, object, embed, a)").count() == 0
        assert page.locator(f"{body} svg").count() == page.locator(f"{body} .mermaid-chart svg").count()
        assert page.get_by_text("<script>alert(1)</script>").count() > 0  # shown, as text


# --- the Mermaid chart, rendered by Mermaid -------------------------------------------------------


@pytest.fixture(scope="module")
def mermaid(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Page, Watch]]:
    """One page with Mermaid loaded, for every chart of the module (loading it takes a while)."""
    path = tmp_path_factory.mktemp("mermaid") / "mermaid.html"
    path.write_text(mermaid_html(), encoding="utf-8")
    with open_page(browser, path.as_uri()) as opened:
        yield opened


def charts(markdown: str) -> list[str]:
    return re.findall(r"^```mermaid\n(.*?)^```$", markdown, flags=re.MULTILINE | re.DOTALL)


def chart_list(chart: str, key: str) -> str:
    """What the chart's ``    key [...]`` line lists, brackets left out."""
    match = re.search(rf"^    {key} \[(.*)\]$", chart, flags=re.MULTILINE)
    assert match, chart
    return match.group(1)


@pytest.mark.parametrize("report", [*CHART_REPORTS, "hostile", "hostile-areas"])
def test_the_mermaid_chart_renders(
    mermaid: tuple[Page, Watch], markdown: dict[str, str], report: str
) -> None:
    page, watch = mermaid
    problems = len(watch.problems)
    (chart,) = charts(markdown[report])
    labels = re.findall(r'"([^"]*)"', chart_list(chart, "x-axis"))
    values = [float(value) for value in chart_list(chart, "bar").split(", ")]
    svg = render_mermaid(page, chart)
    assert svg.startswith("<svg") and "Accuracy by area (%)" in svg
    heights = page.eval_on_selector_all(
        "#chart svg .bar-plot-0 rect", "bars => bars.map(bar => bar.getBBox().height)"
    )
    assert len(heights) == len(values) == len(labels) > 0
    shown = page.eval_on_selector_all(
        "#chart svg .bottom-axis .label text", "texts => texts.map(t => t.textContent)"
    )
    assert shown == labels
    # Taller bars for higher accuracy (Mermaid gives a bar at 0 % a few pixels).
    assert sorted(range(len(values)), key=lambda i: (values[i], i)) == sorted(
        range(len(heights)), key=lambda i: (round(heights[i], 1), i)
    )
    assert watch.problems[problems:] == []


@pytest.mark.parametrize(
    "breakage",
    [
        ("bar [66.7, ", "bar [66.7,, "),  # a value lost
        ('x-axis ["billing"', 'x-axis ["bill"ing"'),  # a quote inside a label
        ('"users"]', '"users"'),  # an unclosed list
        ("xychart-beta", "xychart-beta\n    x-axis"),  # a line cut short
    ],
    ids=["value", "quote", "list", "line"],
)
def test_a_broken_chart_fails(
    mermaid: tuple[Page, Watch], markdown: dict[str, str], breakage: tuple[str, str]
) -> None:
    page, _ = mermaid
    (chart,) = charts(markdown["helpdesk.md"])
    old, new = breakage
    assert old in chart
    with pytest.raises(Error, match="Parse error"):
        render_mermaid(page, chart.replace(old, new, 1))


def test_the_golden_reports_are_found() -> None:
    assert {"helpdesk.md", "helpdesk-lexical.md", "helpdesk-preliminary.md", "helpdesk-regression.md"} <= set(
        GOLDEN_REPORTS
    )
