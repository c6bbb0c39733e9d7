"""contract/ imports only its layer: config, catalog, servers, fixtures, providers, report.escape, output,
the leaf modules, and the one spending policy and budget of run/ (the judge spends as every paid
command does)."""

from __future__ import annotations

import pytest

from test_architecture import MODULES, imports, package_of, within

ALLOWED = (
    "mcp_evals.contract",
    "mcp_evals.config",
    "mcp_evals.catalog",
    "mcp_evals.servers",
    "mcp_evals.fixtures",
    "mcp_evals.providers",
    "mcp_evals.report.escape",
    "mcp_evals.output",
    "mcp_evals.run.spending",
    "mcp_evals.run.budget",
    "mcp_evals.errors",
    "mcp_evals.strict",
    "mcp_evals.wording",
    "mcp_evals._version",
)


@pytest.mark.parametrize("name", sorted(name for name in MODULES if within(name, ("mcp_evals.contract",))))
def test_contract_modules_stay_in_their_layer(name: str) -> None:
    wrong = [
        f"line {line}: {target}"
        for target, line in imports(MODULES[name])
        if target.startswith("mcp_evals") and not within(target, ALLOWED) and package_of(target) != "<leaf>"
    ]
    assert wrong == [], f"{name} imports outside its layer: {wrong}"
    assert not [
        target for target, _ in imports(MODULES[name]) if target.split(".")[0] in ("mcp", "mcp_types")
    ]


def test_the_rule_sees_the_contract_modules() -> None:
    names = [name for name in MODULES if within(name, ("mcp_evals.contract",))]
    assert {"mcp_evals.contract.runner", "mcp_evals.contract.history"} <= set(names)
    assert "mcp_evals.servers.client" in {
        target for target, _ in imports(MODULES["mcp_evals.contract.runner"])
    }
