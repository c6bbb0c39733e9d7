"""Untrusted text (tool names and descriptions, queries, model answers, arguments) renders safely.

The Markdown is rendered with cmarkgfm (GitHub's own fork of cmark, with its GFM extensions) and
raw HTML allowed, so whatever could reach a PR comment shows up in the output and is checked.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.read import Results
from mcp_evals.report import render_html, render_json, render_junit, render_markdown, render_terminal
from mcp_evals.report.escape import ZWJ, md_block, md_code, md_text, xml_text
from mcp_evals.report.markdown import size_in_chars
from mcp_evals.score import Scorecard, score_results
from support.records import answer, call, catalog, header, tool

MARKER = "<!-- mcp-evals:config=mcp-evals.yaml -->"
HOSTILE = [
    "<script>alert(1)</script>",
    MARKER,
    "</details><details open><summary>pwned</summary>",
    "```\n# injected heading\n```",
    "~~~\nfence\n~~~",
    "`code` and ``double`` and ````",
    "a | b | c",
    "@org/team please review, cc @octocat",
    "fixes #1",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1)) ![x](http://evil.example/x.png) http://evil.example www.evil.example",
    "$\\LaTeX$ and $$x$$",
    "\u202eevil\u202c \x00\x1b[31mred\x07",
    "line1\nline2\n\n# heading\n| x | y |\n|---|---|",
    "&lt;script&gt; &#64;org &amp;",
    "--> -- ->",
    "\\| backslash pipe \\",
    "**bold** _em_ ~~strike~~ <b>b</b>",
    # Each would set a global if it ever ran (tests/report/test_html_browser.py looks for it).
    "<img src=x onerror=\"window.pwned='img onerror'\">",
    "<svg onload=\"window.pwned='svg onload'\"></svg>",
    "\"><script>window.pwned='script'</script>",
    "<details open ontoggle=\"window.pwned='details ontoggle'\"><summary>x</summary></details>",
    "<iframe srcdoc=\"<script>parent.pwned='iframe'</script>\"></iframe>",
]
ALLOWED_TAGS = {
    "h2", "h3", "p", "strong", "em", "table", "thead", "tbody", "tr", "th", "td", "code", "pre",
    "details", "summary", "blockquote", "sub", "ul", "li",
}  # fmt: skip


def hostile_results() -> Results:
    big = "</details> <!-- x --> @org/team | `" + "A" * 1_000_000
    tools = [
        tool(name, "area " + name[:20], description=f"{name} {big}" if index == 0 else name)
        for index, name in enumerate(HOSTILE)
    ]
    fixtures = []
    for index, text in enumerate(HOSTILE):
        expected = HOSTILE[(index + 1) % len(HOSTILE)]
        fixtures.append(
            Fixture(id=f"{text[:40]}-{index}", query=text, expected_tool=expected, expected_args={"x": text})
        )
    fixtures.append(Fixture(id="refuse " + HOSTILE[2], query=HOSTILE[3], kind="refuse", area=HOSTILE[0]))
    fixtures.append(Fixture(id="clarify " + HOSTILE[7], query=HOSTILE[1], kind="clarify", area=HOSTILE[7]))
    run = header(catalog(*tools), fixtures, model="model " + HOSTILE[7] + HOSTILE[0], notes=HOSTILE[:4])
    rows = []
    for index, fixture in enumerate(fixtures[: len(HOSTILE)]):
        chosen = HOSTILE[index]  # always a wrong tool, with hostile arguments
        if index % 3 == 0:
            rows.append(
                answer(run, fixture.id, call(chosen, {"x": HOSTILE[-index], HOSTILE[index]: [HOSTILE[1]]}))
            )
        elif index % 3 == 1:
            rows.append(answer(run, fixture.id, call(chosen + " (unknown)", raw=HOSTILE[index], known=False)))
        else:
            rows.append(answer(run, fixture.id, text=" ".join(HOSTILE)))
    rows.append(answer(run, fixtures[-2].id, call(HOSTILE[5], {"a": HOSTILE[3]})))
    rows.append(answer(run, fixtures[-1].id, text=HOSTILE[3] + " no."))
    return Results(run, rows)


@pytest.fixture(scope="module")
def scorecard() -> Scorecard:
    return score_results(hostile_results())


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)

    def handle_endtag(self, tag: str) -> None:
        self.tags.append("/" + tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.tags.append("!--")


def _parse(html_text: str) -> _Tags:
    parser = _Tags()
    parser.feed(html_text)
    parser.close()
    return parser


def _unescaped_pipes(line: str) -> int:
    count, backslashes = 0, 0
    for char in line:
        if char == "|" and backslashes % 2 == 0:
            count += 1
        backslashes = backslashes + 1 if char == "\\" else 0
    return count


def test_markdown_is_safe_on_github(scorecard: Scorecard) -> None:
    text = render_markdown(scorecard)
    assert size_in_chars(text) <= 65_000
    assert text.startswith("## ") and "top-1" in text.splitlines()[0]
    assert "<!--" not in text, "an untrusted string could forge the Action's comment marker"
    assert not re.search(r"(?<![\w`])@(?!\u200d)[A-Za-z0-9]", text), "an @mention survived"
    assert not re.search(r"#(?!\u200d)\d", text.replace("&#x27;", "")), "an issue reference survived"

    rendered = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    parsed = _parse(rendered)
    opened = {tag for tag in parsed.tags if not tag.startswith("/")}
    assert opened <= ALLOWED_TAGS, f"unexpected HTML from untrusted text: {opened - ALLOWED_TAGS}"
    assert parsed.tags.count("details") == parsed.tags.count("/details") == text.count("<details>")
    assert parsed.tags.count("summary") == 2  # failing fixtures, per tool
    assert not [name for name, _ in parsed.attributes if name.startswith("on") or name in {"href", "src"}]
    plain_text = "".join(parsed.text)
    assert "<script>alert(1)</script>" in plain_text  # shown, as text
    assert "@\u200dorg/team" in plain_text


def test_markdown_tables_keep_their_columns(scorecard: Scorecard) -> None:
    text = render_markdown(scorecard)
    lines = text.splitlines()
    index = 0
    tables = 0
    while index < len(lines):
        if lines[index].startswith("|") and index + 1 < len(lines) and lines[index + 1].startswith("| ---"):
            width = _unescaped_pipes(lines[index])
            tables += 1
            while index < len(lines) and lines[index].startswith("|"):
                assert _unescaped_pipes(lines[index]) == width, lines[index][:200]
                index += 1
        else:
            index += 1
    assert tables >= 5


def test_markdown_code_fences_are_balanced(scorecard: Scorecard) -> None:
    text = render_markdown(scorecard)
    fences = [line for line in text.splitlines() if line.startswith("```") or line.startswith("~~~")]
    assert len(fences) % 2 == 0


def test_html_report_is_safe_and_self_contained(scorecard: Scorecard) -> None:
    text = render_html(scorecard)
    assert len(text.encode("utf-8")) < 1_000_000
    parsed = _parse(text)
    assert parsed.tags.count("script") == 1 and "img" not in parsed.tags and "!--" not in parsed.tags
    assert not [name for name, _ in parsed.attributes if name.startswith("on")]
    assert not [value for name, value in parsed.attributes if name in {"src", "href"}]
    # Untrusted text never lands in an attribute (where a quote could open a new one).
    assert not [value for _, value in parsed.attributes if value and re.search(r"alert|evil|@org", value)]
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_junit_is_valid_xml(scorecard: Scorecard) -> None:
    root = ET.fromstring(render_junit(scorecard))
    names = [case.get("name") for case in root.iter("testcase")]
    assert "<script>alert(1)</script>-0" in names


def test_json_round_trips(scorecard: Scorecard) -> None:
    document = json.loads(render_json(scorecard))
    assert document["scorecard"]["fixtures"][0]["query"] == HOSTILE[0]


def test_tool_descriptions_are_truncated(scorecard: Scorecard) -> None:
    assert max(len(t.description) for t in scorecard.tools) <= 500


# --- the escaping functions themselves -------------------------------------------------------


def test_md_text_is_one_inert_line() -> None:
    value = md_text("a\nb | <b>c</b> `d` *e* [f](g) @h #1 http://i", limit=None)
    assert "\n" not in value
    assert value == (
        "a b \\| &lt;b&gt;c&lt;/b&gt; \\`d\\` \\*e\\* \\[f\\](g) @"
        + ZWJ
        + "h \\#"
        + ZWJ
        + "1 http:"
        + ZWJ
        + "//i"
    )


def test_md_text_truncates_with_a_note() -> None:
    assert md_text("x" * 300, limit=10) == "xxxxxxxxxx… (+290 chars)"


def test_md_code_is_safe_in_a_table() -> None:
    assert md_code("a|b") == "<code>a\\|b</code>"
    assert md_code("") == ""


def test_md_block_cannot_be_closed_from_inside() -> None:
    block = md_block("```\n````\n<!-- mcp-evals -->")
    first, *_, last = block.splitlines()
    assert first == "`````text" and last == "`````"
    assert "<!--" not in block


def test_xml_text_drops_characters_xml_cannot_hold() -> None:
    assert xml_text("a\x00b\x1bc\ud800d") == "abcd"


HOSTILE_AREAS = [
    'a "quoted" area',
    "brackets [x], (y)",
    "new\nline\n    bar [1, 2]\n```",
    "%%{init: {'theme': 'dark'}}%%",
    "ações",
    "知识库",
    "long area name that goes on and on, first",
    "long area name that goes on and on, second",
]


def hostile_areas_results() -> Results:
    """One tool and one fixture per hostile area name; only the first fixture is right."""
    tools = [tool(f"t{index}", area) for index, area in enumerate(HOSTILE_AREAS)]
    fixtures = [Fixture(id=f"f{index}", query="q", expected_tool=f"t{index}") for index in range(len(tools))]
    run = header(catalog(*tools), fixtures)
    return Results(run, [answer(run, f.id, call("t0")) for f in fixtures])


def test_the_mermaid_chart_survives_hostile_area_names() -> None:
    areas = HOSTILE_AREAS
    text = render_markdown(score_results(hostile_areas_results()))
    chart = text.split("```mermaid\n", 1)[1].split("\n```\n", 1)[0].splitlines()
    assert [line.split()[0] for line in chart] == ["xychart-beta", "title", "x-axis", "y-axis", "bar"]
    axis = re.fullmatch(r'    x-axis \[("[^"\n`%{}\[\]]*"(?:, "[^"\n`%{}\[\]]*")*)\]', chart[2])
    assert axis, chart[2]
    labels = re.findall(r'"([^"]*)"', axis.group(1))
    assert len(labels) == len(set(labels)) == len(areas)  # one bar each, told apart
    assert {"ações", "知识库"} <= set(labels) and all(len(label) <= 24 for label in labels)
    assert re.fullmatch(r"    bar \[\d+\.\d(, \d+\.\d){7}\]", chart[4]) and chart[4].count("100.0") == 1


def test_the_terminal_report_lets_no_escape_sequence_through(scorecard: Scorecard) -> None:
    plain_text = render_terminal(scorecard)
    assert "\x1b" not in plain_text and "\x07" not in plain_text and "\u202e" not in plain_text
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", plain_text)
    # In colour, the only escape sequences are click's own SGR codes around our labels.
    coloured = render_terminal(scorecard, color=True)
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain_text
    assert ZWJ not in plain_text and "<script>alert(1)</script>" in plain_text  # as written, not as HTML


def test_xml_text_keeps_exactly_what_xml_can_hold() -> None:
    """Every code point a str can hold, lone surrogates included: kept when XML 1.0's Char production
    allows it (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]), dropped
    otherwise — bidi overrides aside, which are dropped everywhere."""

    def allowed(point: int) -> bool:
        return (
            point in (0x9, 0xA, 0xD)
            or 0x20 <= point <= 0xD7FF
            or 0xE000 <= point <= 0xFFFD
            or 0x10000 <= point <= 0x10FFFF
        )

    bidi = {*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C}
    everything = "".join(chr(point) for point in range(0x110000))
    expected = "".join(chr(point) for point in range(0x110000) if allowed(point) and point not in bidi)
    assert xml_text(everything) == expected
