"""Progress on stderr: a live bar on a terminal, plain periodic lines in CI logs.

Progress never goes to stdout (which carries the verdict) and never into the results file.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

from mcp_evals.record.model import FixtureResult

DEFAULT_LOG_INTERVAL = 10.0  # seconds between plain lines when stderr is not a terminal
BAR_WIDTH = 24


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class Progress:
    """Counts finished requests and shows them; ``update`` is cheap enough to call per result."""

    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        tty: bool | None = None,
        interval: float | None = None,
        label: str = "run",
    ) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        if interval is None:
            interval = float(os.environ.get("MCP_EVALS_PROGRESS_SECONDS", "0") or 0) or (
                0.1 if self.tty else DEFAULT_LOG_INTERVAL
            )
        self.interval = interval
        self.label = label
        self.done = 0
        self.reached = 0
        self.dropouts = 0
        self.cost = 0.0
        self.started = time.monotonic()
        self._last_shown = self.started
        self._bar_visible = False
        self.status = ""

    def update(self, result: FixtureResult) -> None:
        self.done += 1
        if result.reached:
            self.reached += 1
        else:
            self.dropouts += 1
        self.cost += result.cost_usd or 0.0
        self._maybe_show()

    def set_status(self, status: str) -> None:
        """A short state shown alongside the counts (e.g. a batch's processing status)."""
        self.status = status
        self._maybe_show()

    def _maybe_show(self) -> None:
        now = time.monotonic()
        if now - self._last_shown >= self.interval or (self.tty and self.done == self.total):
            self._last_shown = now
            self._show()

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        remaining = (self.total - self.done) / rate if rate > 0 else None
        percent = 100 * self.done / self.total if self.total else 100.0
        parts = [f"{self.done}/{self.total} ({percent:.0f}%)", f"reached {self.reached}"]
        if self.dropouts:
            parts.append(f"dropouts {self.dropouts}")
        if self.cost:
            parts.append(f"${self.cost:.4f}")
        parts.append(f"{_duration(elapsed)} elapsed")
        if remaining is not None and self.done < self.total:
            parts.append(f"eta {_duration(remaining)}")
        if self.status:
            parts.append(self.status)
        return ", ".join(parts)

    def _show(self) -> None:
        if self.tty:
            filled = int(BAR_WIDTH * self.done / self.total) if self.total else BAR_WIDTH
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.stream.write(f"\r\x1b[K{self.label} [{bar}] {self.line()}")
            self._bar_visible = True
        else:
            self.stream.write(f"{self.label}: {self.line()}\n")
        self.stream.flush()

    def message(self, text: str) -> None:
        """Print a line without garbling the bar."""
        if self._bar_visible:
            self.stream.write("\r\x1b[K")
            self._bar_visible = False
        self.stream.write(text.rstrip("\n") + "\n")
        self.stream.flush()
        if self.tty:
            self._show()

    def close(self) -> None:
        if self.tty:
            self._show()
            self.stream.write("\n")
            self._bar_visible = False
        else:
            state = "done" if self.done >= self.total else "stopped"
            self.stream.write(f"{self.label}: {state}, {self.line()}\n")
        self.stream.flush()
