"""Helpers for the contract tests: a project folder with cases, the test servers, one-call runs."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from mcp_evals.config.load import load_config
from mcp_evals.config.model import JudgeOptions
from mcp_evals.contract.judge import Judge
from mcp_evals.contract.load import ContractSetup, load_cases
from mcp_evals.contract.model import CaseResult, ContractRun, StepResult
from mcp_evals.contract.runner import run_cases
from support.catalog_helpers import HELPDESK_SERVER, PYTHON, SERVERS, node_server

CONTRACT_SERVER = SERVERS / "contract_server.py"


def contract_server(**extra: Any) -> dict[str, Any]:
    """A server block (or config server, with a name) for tests/servers/contract_server.py."""
    return {"command": PYTHON, "args": [str(CONTRACT_SERVER)], **extra}


def helpdesk(**extra: Any) -> dict[str, Any]:
    return {"command": PYTHON, "args": [str(HELPDESK_SERVER)], **extra}


def everything(**extra: Any) -> dict[str, Any]:
    return {"command": str(node_server("mcp-server-everything")), "args": ["stdio"], **extra}


def no_keys() -> dict[str, str]:
    return {
        key: value
        for key, value in os.environ.items()
        if key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_JUDGE_API_KEY", "LLM_JUDGE_BASE_URL")
    }


@dataclass
class Project:
    """A folder with (maybe) an mcp-evals.yaml and an evals/contract folder of cases."""

    root: Path

    @property
    def cases_dir(self) -> Path:
        return self.root / "evals" / "contract"

    @property
    def config_path(self) -> Path:
        return self.root / "mcp-evals.yaml"

    def config(self, servers: list[dict[str, Any]], **sections: Any) -> Path:
        self.config_path.write_text(
            yaml.safe_dump({"servers": servers, **sections}, sort_keys=False), "utf-8"
        )
        return self.config_path

    def case(self, name: str, steps: list[dict[str, Any]], *, file: str | None = None, **fields: Any) -> Path:
        self.cases_dir.mkdir(parents=True, exist_ok=True)
        path = self.cases_dir / (file or re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + ".yaml")
        path.write_text(yaml.safe_dump({"name": name, **fields, "steps": steps}, sort_keys=False), "utf-8")
        return path

    def setup(self) -> ContractSetup:
        config = load_config(self.config_path) if self.config_path.exists() else None
        return ContractSetup.of(config, cwd=self.root)

    def run(
        self,
        names: list[str] | None = None,
        *,
        timeout_ms: int = 30_000,
        concurrency: int = 1,
        judge: Judge | None = None,
        continue_on_failure: bool | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> ContractRun:
        setup = self.setup()
        cases = load_cases(setup, names)
        judge = judge or Judge(JudgeOptions(), no_keys())

        async def main() -> ContractRun:
            return await run_cases(
                cases,
                setup,
                judge,
                timeout_ms=timeout_ms,
                concurrency=concurrency,
                selection=names,
                continue_on_failure=continue_on_failure,
                environ=environ,
            )

        return anyio.run(main)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def case_of(run: ContractRun, name: str) -> CaseResult:
    [case] = [case for case in run.cases if case.name == name]
    return case


def step_of(run: ContractRun, case: str, step: str) -> StepResult:
    [found] = [item for item in case_of(run, case).steps if item.id == step]
    return found


def verdicts(step: StepResult) -> dict[str, str]:
    """Assertion kind → status for one step."""
    return {item.kind: item.status for item in step.assertions}
