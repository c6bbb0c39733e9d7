"""The few GitHub REST calls the Action makes (``$GITHUB_API_URL``), with retries for rate limits
(429, and 403 with ``retry-after`` or ``x-ratelimit-remaining: 0``) and server errors."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from mcp_evals._version import __version__
from mcp_evals.http_headers import parse_retry_after


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
        after = parse_retry_after(headers)
        return True, after if after is not None else 60.0
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
