"""Debian's Chromium for the browser tests and the screenshots, and the pages it is shown.

Chromium starts once per test module (``start_chromium``) with its DevTools port on loopback, and
the module connects Playwright to it (``connect``) until the module ends: Playwright's sync API keeps an
asyncio loop running on the main thread while it is connected, so a connection held for the whole
session would break every async test that runs after it.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

import cmarkgfm
from cmarkgfm.cmark import Options
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")  # Debian's package, installed by scripts/bootstrap; never downloaded
# The machine's network is closed: without these, Chromium keeps calling Google and hammers refused ports.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
MERMAID_JS = Path(__file__).parent / "browser" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}  # an iPhone 12 to 15 in CSS pixels

# Reported through the console rather than a global, so the page's own globals stay as they were.
_CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", function (event) {
  console.info("securitypolicyviolation: " + event.violatedDirective + " " + event.blockedURI);
});
"""


@contextmanager
def start_chromium(folder: Path, *, timeout: float = 30) -> Iterator[str]:
    """Run Chromium until the block ends; yields its DevTools websocket address."""
    profile = folder / "profile"
    port_file = profile / "DevToolsActivePort"  # "PORT\n/devtools/browser/ID", once it listens
    port_file.unlink(missing_ok=True)  # a reused profile keeps the last run's
    log_path = folder / "chromium.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + timeout
            lines: list[str] = []
            while len(lines) < 2:
                if process.poll() is not None:
                    raise RuntimeError(f"chromium exited with {process.returncode}; see {log_path}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"chromium did not open its DevTools port in {timeout:g} s")
                time.sleep(0.05)
                lines = port_file.read_text().splitlines() if port_file.exists() else []
            yield f"ws://127.0.0.1:{lines[0]}{lines[1]}"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def connect(endpoint: str) -> Iterator[Browser]:
    """Playwright, connected to the running Chromium until the block ends (Chromium keeps running)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(endpoint)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Watch:
    """What a page did that a report page must never do."""

    console_errors: list[str] = field(default_factory=list)
    uncaught: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    @classmethod
    def on(cls, page: Page) -> Watch:
        watch = cls()
        page.on("console", watch._console)
        page.on("pageerror", lambda error: watch.uncaught.append(str(error)))
        page.on("dialog", watch._dialog)
        return watch

    def _console(self, message: ConsoleMessage) -> None:
        if message.text.startswith("securitypolicyviolation: "):
            self.csp_violations.append(message.text)
        elif message.type == "error":
            self.console_errors.append(message.text)

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    @property
    def problems(self) -> list[str]:
        return [*self.console_errors, *self.uncaught, *self.csp_violations, *self.dialogs]


@contextmanager
def open_page(browser: Browser, url: str, *, phone: bool = False) -> Iterator[tuple[Page, Watch]]:
    """A fresh context (light theme, 1x pixels) on ``url``: at desktop size, or as a phone would."""
    context = browser.new_context(
        viewport=PHONE if phone else DESKTOP,
        is_mobile=phone,
        has_touch=phone,
        device_scale_factor=1,
        color_scheme="light",
    )
    try:
        context.add_init_script(_CSP_LISTENER)
        page = context.new_page()
        watch = Watch.on(page)
        page.goto(url, wait_until="load")
        yield page, watch
    finally:
        context.close()


def own_globals(page: Page) -> set[str]:
    """The names a page's scripts (and anything injected) put on ``window``."""
    return set(page.evaluate("Object.getOwnPropertyNames(window)"))


def horizontal_overflow(page: Page) -> int:
    """CSS pixels the page is wider than its viewport (0: nothing to scroll sideways)."""
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


# --- the PR comment, as GitHub shows it --------------------------------------------------------

# A small likeness of GitHub's markdown-body in a timeline comment (light theme), written for these
# pictures and tests; the real stylesheet is not downloaded.
GITHUB_CSS = """
body { margin: 0; background: #fff; color: #1f2328; }
.comment { max-width: 880px; margin: 16px auto; border: 1px solid #d1d9e0; border-radius: 6px; }
.comment-header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; border-radius: 6px 6px 0 0;
  padding: 8px 16px; font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
  color: #59636e; }
.comment-header strong { color: #1f2328; }
.comment-header .label { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 7px; font-size: 12px;
  margin-left: 4px; }
.markdown-body { padding: 16px; font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial,
  sans-serif; overflow-wrap: break-word; }
.markdown-body > :first-child { margin-top: 0 !important; }
.markdown-body > :last-child { margin-bottom: 0 !important; }
.markdown-body h2, .markdown-body h3 { margin: 24px 0 16px; font-weight: 600; line-height: 1.25; }
.markdown-body h2 { font-size: 1.5em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0b3; }
.markdown-body h3 { font-size: 1.25em; }
.markdown-body p, .markdown-body blockquote, .markdown-body ul, .markdown-body table,
.markdown-body pre, .markdown-body details { margin: 0 0 16px; }
.markdown-body ul { padding-left: 2em; }
.markdown-body blockquote { padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto;
  border-spacing: 0; border-collapse: collapse; font-variant: tabular-nums; }
.markdown-body th, .markdown-body td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body th { font-weight: 600; }
.markdown-body tr { background: #fff; border-top: 1px solid #d1d9e0b3; }
.markdown-body tr:nth-child(2n) { background: #f6f8fa; }
.markdown-body code, .markdown-body pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo,
  Consolas, "Liberation Mono", monospace; font-size: 85%; }
.markdown-body code { padding: .2em .4em; background: #818b981f; border-radius: 6px;
  white-space: break-spaces; }
.markdown-body pre { padding: 16px; overflow: auto; line-height: 1.45; background: #f6f8fa;
  border-radius: 6px; }
.markdown-body pre code { padding: 0; background: transparent; font-size: 100%; }
.markdown-body summary { cursor: pointer; }
.markdown-body details > :not(summary) { margin-top: 16px; }
.markdown-body .mermaid-chart { margin: 0 0 16px; padding: 8px; border: 1px solid #d1d9e0;
  border-radius: 6px; }
.markdown-body .mermaid-chart svg { display: block; margin: 0 auto; max-width: 100%; height: auto; }
"""

_COMMENT_PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PR comment</title>
<style>$css</style>
</head>
<body>
<div class="comment">
<div class="comment-header"><strong>github-actions</strong> <span class="label">bot</span> commented</div>
<div class="markdown-body">
$body
</div>
</div>
<script src="$mermaid"></script>
<script>
(async function () {
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "default" });
  var blocks = Array.prototype.slice.call(document.querySelectorAll('pre[lang="mermaid"]'));
  for (var index = 0; index < blocks.length; index += 1) {
    var rendered = await mermaid.render("mermaid-chart-" + index, blocks[index].textContent);
    var chart = document.createElement("div");
    chart.className = "mermaid-chart";
    chart.innerHTML = rendered.svg;
    blocks[index].replaceWith(chart);
  }
  document.body.setAttribute("data-charts", String(blocks.length));
})().catch(function (error) {
  console.error("mermaid: " + error);
  document.body.setAttribute("data-charts", "error");
});
</script>
</body>
</html>
""")


def comment_html(markdown: str) -> str:
    """The Markdown report as GitHub shows a PR comment: cmark-gfm, GitHub-like styles, Mermaid charts.

    Raw HTML is let through (GitHub would sanitize it further), so nothing the report's escaping
    missed is hidden by the renderer.
    """
    body = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return _COMMENT_PAGE.substitute(css=GITHUB_CSS, body=body, mermaid=MERMAID_JS.as_uri())


def wait_for_charts(page: Page) -> int:
    """Wait until the comment page has rendered its Mermaid charts; how many it rendered."""
    page.wait_for_selector("body[data-charts]", state="attached")
    value = page.get_attribute("body", "data-charts")
    assert value is not None and value.isdigit(), f"the Mermaid charts did not render: {value}"
    return int(value)


_MERMAID_PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Mermaid</title></head>
<body>
<div id="chart"></div>
<script src="$mermaid"></script>
<script>mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });</script>
</body>
</html>
""")


def mermaid_html() -> str:
    """A page with Mermaid loaded (from node_modules, by file URL) and nothing else."""
    return _MERMAID_PAGE.substitute(mermaid=MERMAID_JS.as_uri())


def render_mermaid(page: Page, chart: str) -> str:
    """Parse and render ``chart`` on a ``mermaid_html`` page: its SVG, left in ``#chart``.

    A parse error raises (Playwright's ``Error``, with Mermaid's message).
    """
    svg: str = page.evaluate(
        """async (chart) => {
          await mermaid.parse(chart);
          const { svg } = await mermaid.render("chart-svg", chart);
          document.getElementById("chart").innerHTML = svg;
          return svg;
        }""",
        chart,
    )
    return svg
