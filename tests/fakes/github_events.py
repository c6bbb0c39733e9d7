"""Event payloads shaped like the ones GitHub writes to ``GITHUB_EVENT_PATH`` (trimmed, same structure)."""

from __future__ import annotations

from typing import Any

REPOSITORY = "octo/helpdesk"
OWNER = {"login": "octo", "id": 9919, "type": "Organization"}
_REPO = {
    "id": 123456789,
    "name": "helpdesk",
    "full_name": REPOSITORY,
    "private": False,
    "owner": OWNER,
    "html_url": f"https://github.com/{REPOSITORY}",
    "default_branch": "main",
}
_SENDER = {"login": "octocat", "id": 583231, "type": "User"}


def pull_request(number: int = 7, branch: str = "rename-tools", *, fork: bool = False) -> dict[str, Any]:
    head_repo = {**_REPO, "full_name": "someone/helpdesk", "fork": True} if fork else _REPO
    return {
        "action": "synchronize",
        "number": number,
        "pull_request": {
            "url": f"https://api.github.com/repos/{REPOSITORY}/pulls/{number}",
            "id": 2000000000 + number,
            "number": number,
            "state": "open",
            "title": "Rename ticket tools",
            "user": _SENDER,
            "html_url": f"https://github.com/{REPOSITORY}/pull/{number}",
            "head": {
                "label": f"{'someone' if fork else 'octo'}:{branch}",
                "ref": branch,
                "sha": "4f2a9c1e0b7d3a5f6e8c9d0b1a2f3e4d5c6b7a89",
                "repo": head_repo,
            },
            "base": {
                "label": "octo:main",
                "ref": "main",
                "sha": "0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d",
                "repo": _REPO,
            },
        },
        "repository": _REPO,
        "sender": _SENDER,
    }


def workflow_dispatch(branch: str = "rename-tools", inputs: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "inputs": inputs or {},
        "ref": f"refs/heads/{branch}",
        "repository": _REPO,
        "sender": _SENDER,
        "workflow": ".github/workflows/mcp-evals-eval.yml",
    }


def schedule(cron: str = "17 6 * * 1") -> dict[str, Any]:
    return {"schedule": cron, "workflow": ".github/workflows/mcp-evals-eval.yml"}


def push(branch: str = "main") -> dict[str, Any]:
    return {
        "ref": f"refs/heads/{branch}",
        "before": "0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d",
        "after": "4f2a9c1e0b7d3a5f6e8c9d0b1a2f3e4d5c6b7a89",
        "repository": _REPO,
        "pusher": {"name": "octocat"},
        "sender": _SENDER,
    }
