"""The lint of a config, as ``mcp-evals lint`` runs it and ``mcp-evals serve``'s ``lint_catalog`` too.

One copy of what the config decides: the rule ids it names are checked, its fixtures are read, the
model whose price the token report uses is chosen, and every finding points at a config line
(``Locations``) — before any server starts (``prepare_lint``); then the catalog, however it was
read, is linted (``lint_config``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mcp_evals.catalog.model import Catalog
from mcp_evals.config.documents import shown
from mcp_evals.config.model import Config
from mcp_evals.errors import where
from mcp_evals.fixtures.model import Fixture
from mcp_evals.lint.context import LintContext, ProbeResult, ProbeSkip
from mcp_evals.lint.engine import Locations, check_options, lint_with_context
from mcp_evals.lint.model import LintReport
from mcp_evals.providers.pricing import Price
from mcp_evals.servers.model import Conformance


def lint_model(config: Config) -> str:
    """The model the token report prices: `lint.model`, else `run.model`, else the run's default."""
    from mcp_evals.provider_registry import PROVIDERS

    return config.lint.model or config.run.model or PROVIDERS["anthropic"].default_model or ""


@dataclass(frozen=True)
class LintSetup:
    """What the config gives the lint, read and checked before any server starts."""

    config: Config
    shown: str  # the config file as findings name it
    fixtures: Sequence[Fixture] | None
    locations: Locations
    model: str
    price: Price | None


def prepare_lint(config: Config) -> LintSetup:
    """Check `lint.rules` / `lint.ignore` ids, read the fixtures, and place findings on config lines."""
    from mcp_evals.fixtures.load import load_fixtures
    from mcp_evals.providers.pricing import find_price

    file = shown(config.path)

    def at(key: tuple[str | int, ...]) -> str:
        return where(file, config.line_of(key), ".".join(str(part) for part in key))

    check_options(config.lint, at)
    fixtures = load_fixtures(config) if config.fixture_globs else None
    locations = Locations(
        config_file=file,
        server_lines={
            server.name: line
            for index, server in enumerate(config.servers)
            if (line := config.line_of(("servers", index))) is not None
        },
        servers_line=config.line_of(("servers",)),
        fixtures_line=config.line_of(("fixtures",)),
    )
    model = lint_model(config)
    return LintSetup(config, file, fixtures, locations, model, find_price(model, config.run.prices))


def prepare_ad_hoc_lint(config: Config, file: str | None) -> LintSetup:
    """The lint of a server or snapshot named on the command line, with no config file: default rules,
    no fixtures; findings point at ``file`` (the snapshot) or nowhere."""
    from mcp_evals.providers.pricing import find_price

    model = lint_model(config)
    locations = Locations(config_file=file)
    return LintSetup(
        config, file or config.shown_path, None, locations, model, find_price(model, config.run.prices)
    )


def lint_config(
    setup: LintSetup,
    catalog: Catalog,
    probe: Sequence[ProbeResult] | None = None,
    probe_skipped: Sequence[ProbeSkip] = (),
    conformance: Sequence[Conformance] | None = None,
) -> tuple[LintReport, LintContext]:
    """The lint report of ``catalog`` under the config's `lint:` settings (and its context)."""
    config = setup.config
    return lint_with_context(
        catalog,
        setup.fixtures,
        config.lint,
        exclude_tools=config.exclude_tools,
        system_prompt=config.system_prompt,
        model=setup.model,
        price=setup.price,
        locations=setup.locations,
        probe=probe,
        probe_skipped=probe_skipped,
        conformance=conformance,
    )
