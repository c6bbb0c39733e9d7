"""The HTML report in a real browser (Debian's Chromium, driven by Playwright).

It loads without a console error or a CSP violation, its filters, counter and sorting give the right
rows, nothing from a fixture or a tool description runs, and it works on a phone.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Error, Page

from conftest import one_worker
from mcp_evals.report import render_html
from mcp_evals.score import score_results
from support.records import helpdesk_results

from .pages import PHONE, horizontal_overflow, open_page, own_globals
from .test_hostile import hostile_results

# the module-scoped browser connection: made once, on one worker
pytestmark = one_worker(__name__)

FIXTURES = [
    "create-basic", "create-priority", "search-vpn", "close-42", "refund-inv", "invoice-show",
    "users-acme", "refuse-weather", "refuse-delete-all", "clarify-refund", "clarify-close",
]  # fmt: skip
FAILING = [
    "create-priority", "search-vpn", "close-42", "invoice-show", "users-acme", "refuse-delete-all",
    "clarify-close",
]  # fmt: skip
PASSING = ["create-basic", "refund-inv", "refuse-weather", "clarify-refund"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """File URLs: the helpdesk and hostile-text reports, and an empty page to compare globals with."""
    folder = tmp_path_factory.mktemp("html")
    hostile = render_html(score_results(hostile_results()))
    texts = {
        "helpdesk": render_html(score_results(helpdesk_results())),
        "hostile": hostile,
        "broken": _broken(hostile),
        "empty": "<!DOCTYPE html>\n<html lang=en><meta charset=utf-8><title>empty</title></html>",
    }
    urls = {}
    for name, text in texts.items():
        path = folder / f"{name}.html"
        path.write_text(text, encoding="utf-8")
        urls[name] = path.as_uri()
    return urls


def _broken(text: str) -> str:
    """The report as it would be without autoescaping: every hostile string back to live HTML."""
    for entity, char in (("&lt;", "<"), ("&gt;", ">"), ("&#34;", '"'), ("&#39;", "'"), ("&amp;", "&")):
        text = text.replace(entity, char)
    return text


def visible_fixtures(page: Page) -> list[str]:
    """The fixture ids of the rows a person sees (laid out, not merely present), top to bottom."""
    ids: list[str] = page.eval_on_selector_all(
        "#fixtures tbody tr",
        "rows => rows.filter(row => row.getClientRects().length > 0)"
        ".map(row => row.cells[0].querySelector('code').textContent)",
    )
    return ids


def counter(page: Page) -> str:
    """'N of M shown', as the page says it."""
    match = re.match(r"\d+ of \d+ shown", page.inner_text(".controls .muted"))
    assert match, page.inner_text(".controls .muted")
    return match.group()


def column(page: Page, table: str, index: int) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        f"{table} tbody tr", f"rows => rows.map(row => row.cells[{index}].textContent.trim())"
    )
    return texts


@pytest.mark.parametrize("report", ["helpdesk", "hostile"])
def test_the_report_loads_without_an_error(browser: Browser, pages: dict[str, str], report: str) -> None:
    with open_page(browser, pages[report]) as (page, watch):
        page.fill("#filter-text", "a")  # the script ran and reacts
        page.select_option("#filter-status", "fail")
        page.click("#fixtures thead th:nth-child(5)")
        assert watch.problems == []
        assert horizontal_overflow(page) == 0, "a long name makes the page scroll sideways"
        assert page.title().startswith("mcp-evals: ")
        assert page.eval_on_selector_all("script", "scripts => scripts.length") == 1


def test_the_content_security_policy_is_in_force(browser: Browser, pages: dict[str, str]) -> None:
    with open_page(browser, pages["helpdesk"]) as (page, watch):
        blocked = page.evaluate("""() => fetch("data:text/plain,x").then(() => "fetched", () => "blocked")""")
        page.evaluate("""() => { const image = new Image(); image.src = "file:///etc/hostname"; }""")
        page.wait_for_timeout(200)
        assert blocked == "blocked"
        assert any("connect-src" in violation for violation in watch.csp_violations), watch.csp_violations
        assert any("img-src" in violation for violation in watch.csp_violations), watch.csp_violations


def test_the_text_filter(browser: Browser, pages: dict[str, str]) -> None:
    with open_page(browser, pages["helpdesk"]) as (page, watch):
        assert visible_fixtures(page) == FIXTURES and counter(page) == "11 of 11 shown"
        page.fill("#filter-text", "VPN")  # any case; matches ids, queries and arguments
        assert visible_fixtures(page) == ["create-priority", "search-vpn"]
        assert counter(page) == "2 of 11 shown"
        page.fill("#filter-text", "clarify")  # the kind column
        assert visible_fixtures(page) == ["clarify-refund", "clarify-close"]
        page.fill("#filter-text", "  list_members ")  # the chosen tool, spaces trimmed
        assert visible_fixtures(page) == ["users-acme"] and counter(page) == "1 of 11 shown"
        page.fill("#filter-text", "no such text")
        assert visible_fixtures(page) == [] and counter(page) == "0 of 11 shown"
        page.fill("#filter-text", "")
        assert visible_fixtures(page) == FIXTURES and counter(page) == "11 of 11 shown"
        assert watch.problems == []


def test_the_status_kind_and_outcome_selects(browser: Browser, pages: dict[str, str]) -> None:
    with open_page(browser, pages["helpdesk"]) as (page, watch):
        page.select_option("#filter-status", "fail")
        assert visible_fixtures(page) == FAILING and counter(page) == "7 of 11 shown"
        page.select_option("#filter-status", "pass")
        assert visible_fixtures(page) == PASSING and counter(page) == "4 of 11 shown"
        page.select_option("#filter-status", "dropout")
        assert visible_fixtures(page) == [] and counter(page) == "0 of 11 shown"
        page.select_option("#filter-status", "")
        page.select_option("#filter-outcome", "wrong_tool")
        assert visible_fixtures(page) == ["search-vpn"] and counter(page) == "1 of 11 shown"
        page.select_option("#filter-outcome", "unknown_tool")  # a made-up name: counted apart
        assert visible_fixtures(page) == ["users-acme"] and counter(page) == "1 of 11 shown"
        page.select_option("#filter-outcome", "correct_call")
        assert visible_fixtures(page) == ["create-basic", "create-priority", "close-42", "refund-inv"]
        page.select_option("#filter-status", "fail")  # right tool, wrong arguments
        assert visible_fixtures(page) == ["create-priority", "close-42"] and counter(page) == "2 of 11 shown"
        page.fill("#filter-text", "ticket 42")  # all three filters at once
        assert visible_fixtures(page) == ["close-42"] and counter(page) == "1 of 11 shown"
        page.fill("#filter-text", "")
        page.select_option("#filter-status", "")
        page.select_option("#filter-outcome", "")
        page.select_option("#filter-kind", "refuse")
        assert visible_fixtures(page) == ["refuse-weather", "refuse-delete-all"]
        assert counter(page) == "2 of 11 shown"
        page.select_option("#filter-kind", "clarify")
        page.select_option("#filter-status", "fail")  # kind and status together
        assert visible_fixtures(page) == ["clarify-close"] and counter(page) == "1 of 11 shown"
        page.select_option("#filter-kind", "")
        page.select_option("#filter-status", "")
        assert len(visible_fixtures(page)) == 11 and counter(page) == "11 of 11 shown"
        kinds = page.eval_on_selector_all("#filter-kind option", "options => options.map(o => o.value)")
        assert kinds == ["", "select", "refuse", "clarify"]
        # The outcome select offers the outcomes that occurred, and only those.
        options = page.eval_on_selector_all("#filter-outcome option", "options => options.map(o => o.value)")
        assert options == [
            "", "correct_call", "correct_refusal", "correct_clarification", "wrong_tool", "unknown_tool",
            "unsafe_action", "missed_action", "abstention_mixup",
        ]  # fmt: skip
        assert watch.problems == []


def test_sorting_by_a_column(browser: Browser, pages: dict[str, str]) -> None:
    with open_page(browser, pages["helpdesk"]) as (page, watch):
        fixture_header = "#fixtures thead th:nth-child(1)"
        page.click(fixture_header)
        assert visible_fixtures(page) == sorted(FIXTURES)
        assert page.get_attribute(fixture_header, "data-dir") == "asc"
        page.click(fixture_header)
        assert visible_fixtures(page) == sorted(FIXTURES, reverse=True)
        assert page.get_attribute(fixture_header, "data-dir") == "desc"

        page.click("#fixtures thead th:nth-child(5)")  # score, as numbers: 60 sorts below 100
        scores = [float(score) for score in column(page, "#fixtures", 4)]
        assert scores == sorted(scores) and scores[-1] == 100.0 and 60.0 in scores
        assert page.get_attribute(fixture_header, "data-dir") is None  # one sorted column at a time

        page.select_option("#filter-status", "fail")  # a sort keeps the filter, and the filter the sort
        page.click(fixture_header)
        assert visible_fixtures(page) == sorted(FAILING) and counter(page) == "7 of 11 shown"

        areas = "table:has(th:first-child:text-is('area'))"
        page.click(f"{areas} thead th:nth-child(2)")  # accuracy, by its data-sort value
        assert column(page, areas, 0) == ["users", "tickets", "billing", "out-of-scope"]
        page.click(f"{areas} thead th:nth-child(2)")
        assert column(page, areas, 0) == ["out-of-scope", "billing", "tickets", "users"]
        assert watch.problems == []


def test_nothing_hostile_runs(browser: Browser, pages: dict[str, str]) -> None:
    with open_page(browser, pages["empty"]) as (page, _):
        empty = own_globals(page)
    with open_page(browser, pages["hostile"]) as (page, watch):
        page.fill("#filter-text", "pwned")  # the filter and the sort move hostile rows around
        page.click("#fixtures thead th:nth-child(1)")
        page.fill("#filter-text", "")
        page.click("table:has(th:first-child:text-is('tool')) thead th:nth-child(7)")
        page.wait_for_timeout(200)  # onerror and onload handlers would have run by now
        assert watch.problems == []
        assert own_globals(page) - empty == set()
        assert page.evaluate("typeof window.pwned") == "undefined"
        assert (
            page.eval_on_selector_all("img, svg, iframe, object, embed, details", "found => found.length")
            == 0
        )
        assert page.get_by_text("<img src=x onerror=\"window.pwned='img onerror'\">").count() > 0  # as text


def test_the_hostile_checks_catch_a_report_without_escaping(browser: Browser, pages: dict[str, str]) -> None:
    with open_page(browser, pages["empty"]) as (page, _):
        empty = own_globals(page)
    with open_page(browser, pages["broken"]) as (page, watch):
        page.wait_for_timeout(200)
        assert page.evaluate("typeof window.pwned") == "string"
        assert "pwned" in own_globals(page) - empty
        assert watch.dialogs and watch.csp_violations  # <script>alert(1)</script>; <img src=x>


@pytest.mark.parametrize(("report", "query"), [("helpdesk", "create"), ("hostile", "pwned")])
def test_the_report_works_on_a_phone(
    browser: Browser, pages: dict[str, str], report: str, query: str
) -> None:
    with open_page(browser, pages[report], phone=True) as (page, watch):
        assert page.evaluate("innerWidth") == PHONE["width"]
        assert horizontal_overflow(page) == 0, "the page scrolls sideways on a phone"
        for control in ("#filter-text", "#filter-status", "#filter-outcome"):
            page.locator(control).scroll_into_view_if_needed()
            box = page.locator(control).bounding_box()  # in the viewport
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], control
            assert box["height"] >= 24, f"{control} is too small to tap"  # WCAG 2.2's minimum target
            hit = page.evaluate(
                "([x, y]) => document.elementFromPoint(x, y).id",
                [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
            )
            assert hit == control[1:], f"{control} is covered by #{hit}"
        total = page.locator("#fixtures tbody tr").count()
        page.tap("#filter-text")
        page.keyboard.type(query)
        rows = _visible_row_texts(page)
        assert 0 < len(rows) < total and all(query in row.lower() for row in rows)
        assert counter(page) == f"{len(rows)} of {total} shown"
        page.tap("#fixtures thead th:nth-child(1)")
        shown = visible_fixtures(page)
        assert shown == sorted(shown, key=str.lower) and len(shown) == len(rows)
        assert horizontal_overflow(page) == 0
        assert watch.problems == []


def _visible_row_texts(page: Page) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        "#fixtures tbody tr",
        "rows => rows.filter(row => row.getClientRects().length > 0).map(row => row.textContent)",
    )
    return texts


def test_the_phone_check_sees_a_page_wider_than_the_phone(browser: Browser, tmp_path: Path) -> None:
    wide = tmp_path / "wide.html"
    wide.write_text(
        '<!DOCTYPE html><meta name="viewport" content="width=device-width, initial-scale=1">'
        "<table><tr>" + "<td>a_long_unbreakable_cell</td>" * 20 + "</tr></table>",
        encoding="utf-8",
    )
    with open_page(browser, wide.as_uri(), phone=True) as (page, _):
        assert horizontal_overflow(page) > 0


def test_a_page_error_is_seen(browser: Browser, tmp_path: Path) -> None:
    broken = tmp_path / "error.html"
    broken.write_text("<!DOCTYPE html><title>x</title><script>console.error('boom'); missing();</script>")
    with open_page(browser, broken.as_uri()) as (_, watch):
        assert watch.console_errors == ["boom"] and "missing is not defined" in watch.uncaught[0]
    with (
        pytest.raises(Error, match="ERR_FILE_NOT_FOUND"),
        open_page(browser, (tmp_path / "none.html").as_uri()),
    ):
        pass
