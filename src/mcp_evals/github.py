"""The GitHub side of the Action: inputs, the event, workflow commands, the job summary, step outputs,
file ownership and the sticky pull-request comment.

Nothing here knows how an eval works. ``cli/action_cmd.py`` drives the ``mcp-evals`` commands and hands
their Markdown to this module, which only talks to GitHub: through the files and variables the runner
provides (``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``, ``GITHUB_EVENT_PATH``) and its REST API at
``$GITHUB_API_URL``.

Inputs reach a Docker action as ``INPUT_<NAME>`` with the name upper-cased and hyphens kept
(``INPUT_ANTHROPIC-API-KEY``), which a shell cannot read as a variable; they are read here.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from . import __version__
from .errors import ConfigError

COMMENT_LIMIT = 65_536
"""GitHub rejects a comment body longer than this (422)."""
SUMMARY_LIMIT = 1024 * 1024
"""GitHub drops a step summary larger than this many bytes."""
_COMMENT_BUDGET = COMMENT_LIMIT - 512  # room for the marker and header, and for GitHub counting UTF-16

MODES = ("validate", "eval", "contract", "session", "all")
Mode = Literal["validate", "eval", "contract", "session", "all"]
PAID_PROVIDERS = ("anthropic", "openai")
PROVIDERS = ("anthropic", "openai", "lexical", "replay")
GATE_DECISIONS = ("remediate", "gray_zone", "deprioritize_refactor")

# events that carry new code to check for free; everything else (dispatch, schedule, …) runs the eval
_VALIDATE_EVENTS = frozenset({"pull_request", "pull_request_target", "push", "merge_group"})

# Variables a build or server never needs and that may hold credentials (names matched case-insensitively).
_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|PRIVATE_KEY|_PAT$", re.IGNORECASE
)
_SECRET_INPUTS = ("anthropic-api-key", "openai-api-key", "github-token")
_KEY_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")


# --------------------------------------------------------------------------------------------- inputs


def input_variable(name: str) -> str:
    """The environment variable the runner sets for an action input (hyphens kept)."""
    return "INPUT_" + name.replace(" ", "_").upper()


def read_input(name: str, environ: Mapping[str, str] | None = None) -> str:
    source = os.environ if environ is None else environ
    return source.get(input_variable(name), "").strip()


@dataclass(frozen=True)
class ActionInputs:
    """The action's inputs, checked. Keys and the token are kept out of ``repr``."""

    mode: Mode | None = None
    config: str = "mcp-evals.yaml"
    working_directory: str = "."
    build: str = ""
    provider: str | None = None
    model: str | None = None
    concurrency: int | None = None
    limit: int | None = None
    budget_usd: float | None = None
    samples: int | None = None
    shard: str | None = None
    results: str | None = None
    openai_base_url: str | None = None
    comment: bool = True
    pr_number: int | None = None
    baseline: str | None = None
    fail_on: tuple[str, ...] = ()
    anthropic_api_key: str = field(default="", repr=False)
    openai_api_key: str = field(default="", repr=False)
    github_token: str = field(default="", repr=False)


def _bad_input(name: str, value: str, expected: str) -> ConfigError:
    return ConfigError(
        f"input `{name}`: expected {expected}, got {value!r}",
        hint=f"fix `{name}:` under `with:` in the workflow step that uses mcp-evals",
    )


def _optional_int(name: str, value: str, minimum: int) -> int | None:
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        raise _bad_input(name, value, f"a whole number ≥ {minimum}") from None
    if number < minimum:
        raise _bad_input(name, value, f"a whole number ≥ {minimum}")
    return number


def _boolean(name: str, value: str, default: bool) -> bool:
    if not value:
        return default
    lowered = value.lower()
    if lowered in ("true", "yes", "1", "on"):
        return True
    if lowered in ("false", "no", "0", "off"):
        return False
    raise _bad_input(name, value, "true or false")


def read_inputs(environ: Mapping[str, str] | None = None) -> ActionInputs:
    """Read and check every input; a bad value is a ``ConfigError`` naming the input (exit 3)."""
    source = os.environ if environ is None else environ

    def get(name: str) -> str:
        return read_input(name, source)

    mode = get("mode").lower()
    if mode and mode not in MODES:
        raise _bad_input("mode", mode, " | ".join(MODES))
    provider = get("provider").lower()
    if provider and provider not in PROVIDERS:
        raise _bad_input("provider", provider, " | ".join(PROVIDERS))
    budget_text = get("budget-usd")
    budget: float | None = None
    if budget_text:
        try:
            budget = float(budget_text.lstrip("$"))
        except ValueError:
            raise _bad_input("budget-usd", budget_text, "an amount in US dollars, e.g. 2.50") from None
        if budget <= 0:
            raise _bad_input("budget-usd", budget_text, "an amount above 0")
    shard = get("shard")
    if shard and not re.fullmatch(r"\d+/\d+", shard):
        raise _bad_input("shard", shard, "I/N, e.g. 1/4")
    fail_on = tuple(part for part in re.split(r"[\s,]+", get("fail-on")) if part)
    for decision in fail_on:
        if decision not in GATE_DECISIONS:
            raise _bad_input("fail-on", decision, " | ".join(GATE_DECISIONS) + " (comma-separated)")
    working_directory = get("working-directory") or "."
    if Path(working_directory).is_absolute() or ".." in Path(working_directory).parts:
        raise _bad_input("working-directory", working_directory, "a folder inside the repository")
    return ActionInputs(
        mode=mode or None,  # type: ignore[arg-type]  # checked against MODES above
        config=get("config") or "mcp-evals.yaml",
        working_directory=working_directory,
        build=get("build"),
        provider=provider or None,
        model=get("model") or None,
        concurrency=_optional_int("concurrency", get("concurrency"), 1),
        limit=_optional_int("limit", get("limit"), 1),
        budget_usd=budget,
        samples=_optional_int("samples", get("samples"), 1),
        shard=shard or None,
        results=get("results") or None,
        openai_base_url=get("openai-base-url") or None,
        comment=_boolean("comment", get("comment"), True),
        pr_number=_optional_int("pr-number", get("pr-number"), 1),
        baseline=get("baseline") or None,
        fail_on=fail_on,
        anthropic_api_key=get("anthropic-api-key") or source.get("ANTHROPIC_API_KEY", ""),
        openai_api_key=get("openai-api-key") or source.get("OPENAI_API_KEY", ""),
        github_token=get("github-token") or source.get("GITHUB_TOKEN", ""),
    )


def default_mode(event_name: str) -> Mode:
    """``validate`` for events that bring new code (pull_request, push), ``eval`` for the rest."""
    return "validate" if event_name in _VALIDATE_EVENTS else "eval"


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Every secret the action was given: the key and token inputs and the key variables."""
    source = os.environ if environ is None else environ
    values = [read_input(name, source) for name in _SECRET_INPUTS]
    values += [source.get(name, "").strip() for name in (*_KEY_VARIABLES, "GITHUB_TOKEN", "GH_TOKEN")]
    return sorted({value for value in values if value}, key=values.index)


def mask_commands(environ: Mapping[str, str] | None = None) -> list[str]:
    """``::add-mask::`` lines for every secret (each line of a multi-line secret on its own)."""
    lines: list[str] = []
    for value in secret_values(environ):
        lines += [f"::add-mask::{line.strip()}" for line in value.splitlines() if line.strip()]
    return lines


def scrubbed_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for the build and every process but the one eval that needs a key.

    Drops the action's inputs (``INPUT_*``, where the key and token inputs arrive), the runner's own
    tokens (``ACTIONS_*``), any variable whose name says it holds a credential (``*TOKEN*``,
    ``*API_KEY*``, ``*SECRET*``, …) and any variable whose value contains a secret the action was given,
    whatever its name. Everything else (PATH, HOME, GITHUB_* context, proxies, the step's own ``env:``)
    is kept so builds behave as in a normal step.
    """
    source = dict(os.environ if environ is None else environ)
    given = [value for value in secret_values(source) if len(value) >= 4]
    return {
        key: value
        for key, value in source.items()
        if not key.startswith(("INPUT_", "ACTIONS_"))
        and not _SECRET_NAME.search(key)
        and not any(secret in value for secret in given)
    }


# ---------------------------------------------------------------------------------------------- event


@dataclass(frozen=True)
class Event:
    """What triggered the workflow, from ``GITHUB_EVENT_NAME``/``GITHUB_EVENT_PATH`` and friends."""

    name: str
    payload: dict[str, Any]
    repository: str
    ref: str = ""
    ref_name: str = ""
    head_ref: str = ""
    sha: str = ""
    server_url: str = "https://github.com"
    api_url: str = "https://api.github.com"
    run_id: str = ""
    workspace: Path = Path(".")

    @property
    def owner(self) -> str:
        return self.repository.split("/", 1)[0]

    @property
    def pull_request_number(self) -> int | None:
        """The PR this event is about (pull_request*, or a comment on a PR), else None."""
        pull_request = self.payload.get("pull_request")
        if isinstance(pull_request, dict) and isinstance(pull_request.get("number"), int):
            return int(pull_request["number"])
        issue = self.payload.get("issue")
        if isinstance(issue, dict) and "pull_request" in issue and isinstance(issue.get("number"), int):
            return int(issue["number"])
        return None

    @property
    def branch(self) -> str:
        """The branch the workflow runs on (the head branch for a pull request)."""
        if self.head_ref:
            return self.head_ref
        if self.ref.startswith("refs/heads/"):
            return self.ref.removeprefix("refs/heads/")
        ref = self.payload.get("ref")
        if isinstance(ref, str) and ref.startswith("refs/heads/"):
            return ref.removeprefix("refs/heads/")
        return self.ref_name

    @property
    def run_url(self) -> str:
        if not (self.repository and self.run_id):
            return ""
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"


def load_event(environ: Mapping[str, str] | None = None) -> Event:
    source = os.environ if environ is None else environ
    payload: dict[str, Any] = {}
    event_path = source.get("GITHUB_EVENT_PATH", "")
    if event_path and Path(event_path).is_file():
        try:
            loaded = json.loads(Path(event_path).read_text("utf-8"))
        except (OSError, ValueError):
            loaded = {}
        payload = loaded if isinstance(loaded, dict) else {}
    repository = source.get("GITHUB_REPOSITORY", "")
    if not repository:
        repo = payload.get("repository")
        if isinstance(repo, dict) and isinstance(repo.get("full_name"), str):
            repository = repo["full_name"]
    return Event(
        name=source.get("GITHUB_EVENT_NAME", ""),
        payload=payload,
        repository=repository,
        ref=source.get("GITHUB_REF", ""),
        ref_name=source.get("GITHUB_REF_NAME", ""),
        head_ref=source.get("GITHUB_HEAD_REF", ""),
        sha=source.get("GITHUB_SHA", ""),
        server_url=source.get("GITHUB_SERVER_URL", "") or "https://github.com",
        api_url=(source.get("GITHUB_API_URL", "") or "https://api.github.com").rstrip("/"),
        run_id=source.get("GITHUB_RUN_ID", ""),
        workspace=Path(source.get("GITHUB_WORKSPACE", "") or "."),
    )


# ------------------------------------------------------------------------------------ summary, outputs


def _utf8_length(text: str) -> int:
    return len(text.encode("utf-8"))


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def shorten_markdown(text: str, limit: int, *, note: str, measure: Callable[[str], int] = len) -> str:
    """Cut Markdown at a line boundary so that it, plus a closing note, fits ``limit``.

    Open code fences and ``<details>`` blocks are closed so the rest of the page still renders.
    """
    if measure(text) <= limit:
        return text
    lines = text.splitlines()

    def finish(head: list[str]) -> str:
        body = "\n".join(head)
        closers: list[str] = []
        if sum(1 for line in head if line.lstrip().startswith("```")) % 2:
            closers.append("```")
        open_details = body.count("<details") - body.count("</details>")
        closers += ["</details>"] * max(open_details, 0)
        tail = "\n".join(closers)
        return f"{body}\n{tail}\n\n> [!NOTE]\n> {note}\n" if tail else f"{body}\n\n> [!NOTE]\n> {note}\n"

    low, high = 0, len(lines)
    while low < high:  # the largest number of whole lines that fits
        middle = (low + high + 1) // 2
        if measure(finish(lines[:middle])) <= limit:
            low = middle
        else:
            high = middle - 1
    if low == 0 and lines:  # even the first line is too long: cut it
        first = lines[0]
        room = max(limit - measure(finish([""])) - 8, 0)
        cut = len(first)
        while cut and measure(first[:cut]) > room:
            cut = cut * 3 // 4
        return finish([first[:cut] + " …"]) if cut else finish([])
    return finish(lines[:low])


def append_summary(path: str | Path | None, markdown: str) -> None:
    """Append to the job summary, keeping the step under GitHub's 1 MiB limit."""
    if not path:
        return
    target = Path(path)
    used = target.stat().st_size if target.exists() else 0
    room = max(SUMMARY_LIMIT - used - 1024, 0)
    text = shorten_markdown(
        markdown,
        room,
        note="The report was shortened to fit GitHub's 1 MiB job-summary limit; the full report is in the "
        "file named by the `report-path` output.",
        measure=_utf8_length,
    )
    with target.open("a", encoding="utf-8") as handle:
        handle.write(text if text.endswith("\n") else text + "\n")


def format_outputs(outputs: Mapping[str, str]) -> str:
    """Outputs in the ``name<<DELIMITER`` form, with a random delimiter that never occurs in a value."""
    chunks = []
    for name, value in outputs.items():
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        while delimiter in value or delimiter in name:  # astronomically unlikely, but never ambiguous
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(chunks)


def write_outputs(path: str | Path | None, outputs: Mapping[str, str]) -> None:
    if not path:
        return
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(format_outputs(outputs))


def restore_ownership(root: Path) -> int:
    """Give files that this (root) container created under ``root`` back to the owner of ``root``.

    Docker actions run as root, so without this the files they write into the workspace belong to root
    on the host and later steps (which run as the runner user, uid 1001 on GitHub's runners) cannot
    change or delete them. Returns how many entries were changed. Does nothing when not running as root
    or when ``root`` itself belongs to root.
    """
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None or geteuid() != 0 or not root.is_dir():
        return 0
    info = root.stat()
    if info.st_uid == 0:
        return 0
    changed = 0
    device = info.st_dev
    for directory, subdirectories, files in os.walk(root):
        here = Path(directory)
        for name in [*subdirectories, *files]:
            path = here / name
            try:
                entry = path.lstat()
            except OSError:
                continue
            if entry.st_dev != device:
                continue
            if entry.st_uid == 0 or entry.st_gid == 0:
                os.lchown(
                    path, info.st_uid if entry.st_uid == 0 else -1, info.st_gid if entry.st_gid == 0 else -1
                )
                changed += 1
        # don't descend into other file systems or through symlinks to directories
        subdirectories[:] = [
            name
            for name in subdirectories
            if not stat.S_ISLNK((here / name).lstat().st_mode) and (here / name).lstat().st_dev == device
        ]
    return changed


# ------------------------------------------------------------------------------------- sticky comment

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
    if _utf16_length(body) <= _COMMENT_BUDGET:
        return body
    dropped = {name: f"_The earlier `{name}` result was dropped to make room; see its run._" for name in kept}
    body = compose_comment(marker, title, {**dropped, **fresh})
    if _utf16_length(body) <= _COMMENT_BUDGET:
        return body
    overhead = _utf16_length(compose_comment(marker, title, {**dropped, **dict.fromkeys(fresh, "")}))
    share = max((_COMMENT_BUDGET - overhead) // max(len(fresh), 1), 1000)
    note = (
        "The report was shortened to fit GitHub's 65,536-character comment limit; the job summary and the "
        "file named by the `report-path` output have all of it."
    )
    shortened = {
        name: shorten_markdown(text, share, note=note, measure=_utf16_length) for name, text in fresh.items()
    }
    return compose_comment(marker, title, {**dropped, **shortened})


class GitHubApiError(Exception):
    """A GitHub REST call failed for good (after retries where retrying made sense)."""

    def __init__(
        self, status: int, message: str, *, retryable: bool = False, retry_after: float | None = None
    ) -> None:
        super().__init__(f"{status} {message}".strip())
        self.status = status
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after


def _classify(response: httpx.Response) -> tuple[bool, float | None]:
    """Whether a failed response is worth retrying, and the wait GitHub asked for (None: back off)."""
    headers = response.headers
    if response.status_code in (403, 429) and "retry-after" in headers:  # secondary rate limit
        try:
            return True, max(float(headers["retry-after"]), 0.0)
        except ValueError:
            return True, 60.0
    if response.status_code in (403, 429) and headers.get("x-ratelimit-remaining") == "0":  # primary limit
        try:
            return True, max(float(headers.get("x-ratelimit-reset", "0")) - time.time(), 0.0) + 1.0
        except ValueError:
            return True, 60.0
    if response.status_code == 429 or (response.status_code == 403 and "rate limit" in response.text.lower()):
        return True, 60.0
    if response.status_code in (500, 502, 503, 504):
        return True, None
    return False, None


class GitHubApi:
    """The few REST calls the Action makes, with rate-limit and server-error retries (tenacity)."""

    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        max_attempts: int = 5,
        max_wait: float = 60.0,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.max_attempts = max_attempts
        self.max_wait = max_wait
        self._client = httpx.Client(
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": f"mcp-evals/{__version__}",
            },
            timeout=timeout,
            transport=transport,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> GitHubApi:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, GitHubApiError) and error.retry_after is not None:
            return min(error.retry_after, self.max_wait)
        return min(0.5 * 2.0 ** (state.attempt_number - 1), self.max_wait)

    def _retryable(self, error: BaseException) -> bool:
        if isinstance(error, httpx.TransportError):
            return True
        if not isinstance(error, GitHubApiError) or not error.retryable:
            return False
        # a primary rate limit that resets in an hour is not worth waiting for in CI
        return error.retry_after is None or error.retry_after <= self.max_wait

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        def once() -> httpx.Response:
            response = self._client.request(method, url if "://" in url else self.api_url + url, **kwargs)
            if response.is_success:
                return response
            try:
                message = str(response.json().get("message", ""))
            except ValueError:
                message = response.text[:200]
            retryable, retry_after = _classify(response)
            raise GitHubApiError(response.status_code, message, retryable=retryable, retry_after=retry_after)

        retrying = Retrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            retry=retry_if_exception(self._retryable),
            reraise=True,
        )
        return retrying(once)

    def iter_comments(self, repository: str, number: int) -> Iterator[dict[str, Any]]:
        """Every comment of an issue or PR, page by page, following ``Link: rel="next"`` to the end."""
        url: str | None = f"/repos/{repository}/issues/{number}/comments?per_page=100"
        while url:
            response = self.request("GET", url)
            page = response.json()
            if not isinstance(page, list):
                raise GitHubApiError(response.status_code, "unexpected answer listing comments")
            yield from (item for item in page if isinstance(item, dict))
            url = response.links.get("next", {}).get("url")

    def create_comment(self, repository: str, number: int, body: str) -> dict[str, Any]:
        result: dict[str, Any] = self.request(
            "POST", f"/repos/{repository}/issues/{number}/comments", json={"body": body}
        ).json()
        return result

    def update_comment(self, repository: str, comment_id: int, body: str) -> dict[str, Any]:
        result: dict[str, Any] = self.request(
            "PATCH", f"/repos/{repository}/issues/comments/{comment_id}", json={"body": body}
        ).json()
        return result

    def open_pull_request(self, repository: str, owner: str, branch: str) -> int | None:
        """The number of the open PR whose head is ``owner:branch``, if there is one."""
        query = urllib.parse.urlencode({"head": f"{owner}:{branch}", "state": "open", "per_page": "10"})
        pulls = self.request("GET", f"/repos/{repository}/pulls?{query}").json()
        if isinstance(pulls, list) and pulls and isinstance(pulls[0], dict):
            number = pulls[0].get("number")
            return number if isinstance(number, int) else None
        return None


@dataclass(frozen=True)
class CommentOutcome:
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
) -> CommentOutcome:
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
            return CommentOutcome("updated", str(result.get("html_url", "")))
        result = api.create_comment(repository, number, body)
        return CommentOutcome("created", str(result.get("html_url", "")))
    except GitHubApiError as error:
        return CommentOutcome(
            "failed",
            message=f"could not comment on #{number}: {error.status} {error.message}. "
            f"Fix: {comment_fix(error)}",
        )
    except httpx.HTTPError as error:
        return CommentOutcome(
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
