"""Every failure a provider sees, classified for the runner: transient (retry, maybe after a wait)
or fatal (stop dispatching), so no infrastructure failure is ever mistaken for a wrong tool choice."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mcp_evals.answers import ErrorKind
from mcp_evals.http_headers import header, parse_retry_after


class ProviderFailure(Exception):
    """A request that produced no usable answer, classified for the runner."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        transient: bool,
        retry_after: float | None = None,
        status: int | None = None,
        request_id: str | None = None,
        rejects_forced_tool_choice: bool = False,
        stops_run: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.transient = transient
        self.retry_after = retry_after
        self.status = status
        self.request_id = request_id
        self.rejects_forced_tool_choice = rejects_forced_tool_choice
        # Fewer tries than the policy's for this failure: nothing listening at the base URL is rarely
        # fixed by waiting (the run retries it once, not for half a minute).
        self.max_attempts: int | None = None
        # Fatal errors stop the whole run (no later request can succeed); a few failures are final for
        # one fixture only (a replay source without that fixture).
        self.stops_run = (not transient) if stops_run is None else stops_run

    @classmethod
    def transient_failure(
        cls, kind: ErrorKind, message: str, *, status: int | None = None, request_id: str | None = None
    ) -> ProviderFailure:
        """A failure a later attempt may not have (a timeout, a reset connection, a malformed body)."""
        return cls(kind, message, transient=True, status=status, request_id=request_id)

    @classmethod
    def rate_limited(
        cls, message: str, after: float | None = None, *, status: int = 429, request_id: str | None = None
    ) -> ProviderFailure:
        """Too many requests: retry after ``after`` seconds (the server's retry-after), else the backoff."""
        return cls(
            "rate_limited", message, transient=True, retry_after=after, status=status, request_id=request_id
        )

    @classmethod
    def fatal(
        cls, kind: ErrorKind, message: str, *, status: int | None = None, request_id: str | None = None
    ) -> ProviderFailure:
        """No later request can succeed (a bad key, no credit, an unknown model): stop dispatching."""
        return cls(kind, message, transient=False, status=status, request_id=request_id)

    @classmethod
    def final_for_fixture(cls, kind: ErrorKind, message: str) -> ProviderFailure:
        """This fixture gets no answer, but others may (a replay source without it): no retry, no stop."""
        return cls(kind, message, transient=False, stops_run=False)

    @classmethod
    def forced_tool_choice_rejected(
        cls, message: str, *, status: int | None = None, request_id: str | None = None
    ) -> ProviderFailure:
        """The model refuses forced tool use: the runner falls back to ``auto`` plus an instruction."""
        return cls(
            "invalid_request",
            message,
            transient=False,
            status=status,
            request_id=request_id,
            rejects_forced_tool_choice=True,
        )

    def __repr__(self) -> str:
        return f"ProviderFailure({self.kind!r}, {self.message!r}, transient={self.transient})"


def status_verdict(status: int) -> tuple[ErrorKind, bool]:
    """The default (kind, transient) of an HTTP status; providers refine it from the body."""
    if status in (401, 403):
        return "auth", False
    if status == 402:
        return "billing", False
    if status == 404:
        return "not_found", False
    if status == 408:
        return "timeout", True
    if status == 409:
        return "server_error", True  # the official SDKs retry conflicts
    if status == 429:
        return "rate_limited", True
    if status in (503, 529):
        return "overloaded", True
    if status >= 500:
        return "server_error", True
    return "invalid_request", False


def http_failure(
    status: int,
    headers: Mapping[str, str],
    *,
    kind: ErrorKind,
    transient: bool,
    label: str,
    message: str,
    request_id: str | None,
    request_id_header: str,
    rejects_forced_tool_choice: bool = False,
    scrub: Callable[[str], str] | None = None,
) -> ProviderFailure:
    """A classified HTTP error: ``x-should-retry`` has the last word, ``retry-after`` the wait."""
    should_retry = header(headers, "x-should-retry")
    if should_retry in ("true", "false"):
        transient = should_retry == "true"
    text = f"HTTP {status}" + (f" {label}" if label else "") + (f": {message}" if message else "")
    if request_id:
        text += f" ({request_id_header} {request_id})"
    return ProviderFailure(
        kind,
        scrub(text) if scrub is not None else text,
        transient=transient,
        retry_after=parse_retry_after(headers),
        status=status,
        request_id=request_id,
        rejects_forced_tool_choice=rejects_forced_tool_choice,
    )
