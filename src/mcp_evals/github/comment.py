"""The sticky pull-request comment: one per config, found by its hidden marker among all the PR's
comments, updated in place, kept under GitHub's 65,536-character limit; and which PR it goes to."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from mcp_evals.github.api import GitHubApi, GitHubApiError
from mcp_evals.github.event import Event
from mcp_evals.github.step_files import shorten_markdown, utf16_length

COMMENT_LIMIT = 65_536
"""GitHub rejects a comment body longer than this (422)."""
_COMMENT_BUDGET = COMMENT_LIMIT - 512  # room for the marker and header, and for GitHub counting UTF-16

_MARKER_PREFIX = "<!-- mcp-evals:sticky"
_SECTION = re.compile(
    r"<!-- mcp-evals:section (?P<name>[a-z]+) -->\n(?P<body>.*?)\n<!-- mcp-evals:end (?P=name) -->", re.S
)
SECTION_ORDER = ("build", "validate", "eval", "contract", "session")


def comment_marker(config_label: str) -> str:
    """The hidden first line that identifies this config's sticky comment on a PR."""
    return f"{_MARKER_PREFIX} config={urllib.parse.quote(config_label, safe='/._-')} -->"


def neutralise_markers(markdown: str) -> str:
    """Make sure content can never forge or close one of our hidden markers."""
    return markdown.replace("<!-- mcp-evals", "&lt;!-- mcp-evals")


def parse_sections(body: str) -> dict[str, str]:
    return {match["name"]: match["body"] for match in _SECTION.finditer(body)}


def compose_comment(marker: str, title: str, sections: Mapping[str, str]) -> str:
    parts = [marker, title]
    for name in sorted(sections, key=lambda n: SECTION_ORDER.index(n) if n in SECTION_ORDER else 99):
        parts.append(f"<!-- mcp-evals:section {name} -->\n{sections[name]}\n<!-- mcp-evals:end {name} -->")
    return "\n\n".join(parts) + "\n"


def fit_comment(marker: str, title: str, fresh: Mapping[str, str], kept: Mapping[str, str]) -> str:
    """The comment body: this run's sections plus earlier ones still valid, under GitHub's limit.

    Earlier sections go first when space runs out; then this run's sections are shortened evenly.
    """
    body = compose_comment(marker, title, {**kept, **fresh})
    if utf16_length(body) <= _COMMENT_BUDGET:
        return body
    dropped = {name: f"_The earlier `{name}` result was dropped to make room; see its run._" for name in kept}
    body = compose_comment(marker, title, {**dropped, **fresh})
    if utf16_length(body) <= _COMMENT_BUDGET:
        return body
    overhead = utf16_length(compose_comment(marker, title, {**dropped, **dict.fromkeys(fresh, "")}))
    share = max((_COMMENT_BUDGET - overhead) // max(len(fresh), 1), 1000)
    note = (
        "The report was shortened to fit GitHub's 65,536-character comment limit; the job summary and the "
        "file named by the `report-path` output have all of it."
    )
    shortened = {
        name: shorten_markdown(text, share, note=note, measure=utf16_length) for name, text in fresh.items()
    }
    return compose_comment(marker, title, {**dropped, **shortened})


@dataclass(frozen=True)
class CommentResult:
    action: Literal["created", "updated", "skipped", "failed"]
    url: str = ""
    message: str = ""


_WRITE_ACCESS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})


def find_sticky_comment(comments: Iterator[dict[str, Any]], marker: str) -> dict[str, Any] | None:
    """Our comment for this config: its first line is the marker, and a bot (the workflow's token) or
    someone with write access (a personal token) wrote it; a bot's comment wins.

    Anyone can post a comment that starts with the marker. Updating theirs would put the report into
    a comment its author can edit afterwards, so comments by others are never taken for ours.
    """
    found: dict[str, Any] | None = None
    for comment in comments:
        body = comment.get("body")
        if not isinstance(body, str) or not body.startswith(marker):
            continue
        user = comment.get("user")
        if isinstance(user, dict) and user.get("type") == "Bot":
            return comment
        if comment.get("author_association") in _WRITE_ACCESS:
            found = found or comment
    return found


def comment_fix(error: GitHubApiError) -> str:
    """What to do about a comment that could not be written (the step goes on: it is a warning)."""
    if error.retryable and error.status in (403, 429):  # a rate limit, still in force after the retries
        wait = (
            f" (it resets in about {max(round(error.retry_after / 60), 1)} min)" if error.retry_after else ""
        )
        return f"GitHub's API rate limit was hit{wait}; the job summary has the report. Re-run the job later."
    if error.status in (403, 404):
        return (
            "give the job `permissions: {contents: read, pull-requests: write}`. On a pull request from a "
            "fork GitHub hands out a read-only token, so no comment can be written there: the job summary "
            "has the report."
        )
    if error.status == 401:
        return "the `github-token` input is not a valid token; leave it unset to use the workflow's token."
    return "the job summary has the report; re-run the job to retry the comment."


def post_sticky_comment(
    api: GitHubApi,
    repository: str,
    number: int,
    *,
    marker: str,
    title: str,
    sections: Mapping[str, str],
    placeholders: Mapping[str, str] | None = None,
) -> CommentResult:
    """Create or update (PATCH in place) this config's one comment on the PR; never raises for HTTP.

    ``sections`` replace the comment's sections of the same name; the others stay (a validate run
    keeps the eval an earlier dispatch wrote), except ``build``, which only the latest run may show.
    ``placeholders`` (e.g. "eval skipped: no key") appear only where the comment has no such section
    yet, so a fork PR's push never hides the eval a maintainer ran.
    """
    fresh = {name: neutralise_markers(text) for name, text in sections.items()}
    try:
        existing = find_sticky_comment(api.iter_comments(repository, number), marker)
        earlier = parse_sections(str(existing["body"])) if existing is not None else {}
        kept = {name: text for name, text in earlier.items() if name not in fresh and name != "build"}
        for name, text in (placeholders or {}).items():
            if name not in fresh and name not in kept:
                fresh[name] = neutralise_markers(text)
        body = fit_comment(marker, title, fresh, kept)
        if existing is not None:
            result = api.update_comment(repository, int(existing["id"]), body)
            return CommentResult("updated", str(result.get("html_url", "")))
        result = api.create_comment(repository, number, body)
        return CommentResult("created", str(result.get("html_url", "")))
    except GitHubApiError as error:
        return CommentResult(
            "failed",
            message=f"could not comment on #{number}: {error.status} {error.message}. "
            f"Fix: {comment_fix(error)}",
        )
    except httpx.HTTPError as error:
        return CommentResult(
            "failed",
            message=f"could not comment on #{number}: {type(error).__name__} talking to {api.api_url}. "
            "The job summary has the report.",
        )


def target_pull_request(event: Event, pr_number: int | None, api: GitHubApi | None) -> tuple[int | None, str]:
    """Which PR to comment on, and why (or why none).

    The ``pr-number`` input wins; then the PR of a pull_request event; for a dispatch, the open PR of
    the branch. A schedule or push without ``pr-number`` gets the job summary only.
    """
    if pr_number is not None:
        return pr_number, "the pr-number input"
    if event.pull_request_number is not None:
        return event.pull_request_number, f"the {event.name} event"
    if event.name == "workflow_dispatch" and api is not None and event.branch:
        try:
            number = api.open_pull_request(event.repository, event.owner, event.branch)
        except (GitHubApiError, httpx.HTTPError) as error:
            return None, f"could not look up the open PR of branch {event.branch!r} ({error}); summary only"
        if number is not None:
            return number, f"the open PR of branch {event.branch!r}"
        return None, f"no open PR for branch {event.branch!r}; summary only"
    return None, f"a {event.name or 'local'} run without pr-number writes the job summary only"
