"""What triggered the workflow: ``GITHUB_EVENT_NAME``, the payload at ``GITHUB_EVENT_PATH`` and the
other ``GITHUB_*`` variables the runner sets."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


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
