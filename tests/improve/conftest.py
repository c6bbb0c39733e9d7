"""improve's projects: the helpdesk catalog as it is, and a deliberately vague copy of it, from
snapshots; the wordy model (tests/improve/wordy.py) behind the fake Anthropic API."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import HELPDESK
from fakes.fake_anthropic import FakeAnthropic, anthropic_in_env
from mcp_evals.catalog.model import Catalog
from mcp_evals.fixtures.model import Fixture

from .wordy import Wordy

MODEL = "claude-sonnet-4-6"
# One vague sentence per area: the tools of an area cannot be told apart by their descriptions.
VAGUE = {
    "tickets": "Works with support tickets.",
    "customers": "Works with customer records.",
    "billing": "Works with billing data.",
    "knowledge": "Works with the help center.",
    "team": "Works with the support team.",
}


def vague_snapshot(source: Path, catalog: Catalog, out: Path) -> Path:
    """The helpdesk snapshot with every tool's description replaced by its area's vague sentence."""
    document = json.loads(source.read_text("utf-8"))
    area = catalog.area_by_name
    for server in document["servers"]:
        for tool in server["tools"]:
            tool["description"] = VAGUE[area[tool["name"]]]
    out.write_text(json.dumps(document), "utf-8")
    return out


@dataclass
class ImproveProject:
    root: Path
    config: Path
    out: Path


MakeImproveProject = Callable[..., ImproveProject]


@pytest.fixture
def improve_project(tmp_path: Path, helpdesk_snapshot: Path, helpdesk_catalog: Catalog) -> MakeImproveProject:
    def make(
        *, vague: bool = False, run: dict[str, Any] | None = None, fixtures: str | None = None
    ) -> ImproveProject:
        example = yaml.safe_load((HELPDESK / "mcp-evals.yaml").read_text())
        snapshot = (
            vague_snapshot(helpdesk_snapshot, helpdesk_catalog, tmp_path / "vague.catalog.json")
            if vague
            else helpdesk_snapshot
        )
        document: dict[str, Any] = {
            "servers": [{"name": "helpdesk", "snapshot": str(snapshot)}],
            "areas": example["areas"],
            "fixtures": fixtures or str(HELPDESK / "fixtures" / "*.yaml"),
            "system_prompt": example["system_prompt"],
            "run": {"max_wait": 0.05, "timeout": 5, "model": MODEL, **(run or {})},
        }
        config = tmp_path / "mcp-evals.yaml"
        config.write_text(yaml.safe_dump(document, sort_keys=False))
        return ImproveProject(tmp_path, config, tmp_path / "improved")

    return make


@pytest.fixture
def wordy(helpdesk_catalog: Catalog, helpdesk_fixtures: list[Fixture]) -> Wordy:
    return Wordy({tool.name: tool.description for tool in helpdesk_catalog.tools}, helpdesk_fixtures)


@pytest.fixture
def wordy_api(clean_env: pytest.MonkeyPatch, wordy: Wordy) -> Iterator[FakeAnthropic]:
    with anthropic_in_env(clean_env, chooser=wordy.choose) as server:
        yield server
