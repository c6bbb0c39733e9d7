"""What every command of the library layer reads the same way: the files a config makes inputs (no
output may replace one of them), the catalog (live or a snapshot), the fixtures checked against it,
and the model a paid command asks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from mcp_evals.config.model import Config
from mcp_evals.errors import InputFileError, McpEvalsError
from mcp_evals.wording import plural

if TYPE_CHECKING:
    from mcp_evals.answers import GenerateOptions
    from mcp_evals.catalog.model import Catalog
    from mcp_evals.config.model import RunOptions
    from mcp_evals.fixtures.model import Fixture
    from mcp_evals.providers.base import ProviderSettings
    from mcp_evals.providers.pricing import Price
    from mcp_evals.run.spending import Capable, CapRule, Spending


def config_inputs(config: Config) -> dict[str, Path | None]:
    """The files a command reads through the config (label → path): no output may replace them."""
    from mcp_evals.fixtures.load import fixture_files

    inputs: dict[str, Path | None] = {"the config file": config.path}
    for server in config.servers:
        if server.snapshot:
            inputs[f"the snapshot of server {server.name!r}"] = config.resolve(server.snapshot)
    try:
        files = fixture_files(config) if config.fixture_globs else []
    except McpEvalsError:
        files = []  # no fixture to protect; the command that needs them says what is wrong
    for path in files:
        inputs[f"the fixture file {path.name}"] = path
    if config.baseline.path:
        inputs["the baseline file"] = config.resolve(config.baseline.path)
    return inputs


def read_catalog(config: Config, snapshot: Path | None) -> Catalog:
    """The catalog a command works on: the snapshot given, else the config's servers (live)."""
    if snapshot is not None:
        from mcp_evals.catalog.snapshot import load_catalog

        return load_catalog(snapshot, areas=config.areas or None)
    from mcp_evals.servers.extract import extract_catalog

    config.check_variables()
    return extract_catalog(config)


def refuse_invalid(
    fixtures: Sequence[Fixture],
    catalog: Catalog,
    config: Config,
    *,
    doing: str,
    hint: str,
    against: str = "the catalog",
    verb: str = "do not validate against",
) -> None:
    """Fixtures that do not match the catalog would measure noise: refuse them (exit 3), naming the
    first errors where they are (``doing``: "running", "comparing", …)."""
    from mcp_evals.fixtures.validate import has_errors, locate_in_config, validate_fixtures

    problems = validate_fixtures(
        list(fixtures), catalog, config.validation, exclude_tools=config.exclude_tools, areas=config.areas
    )
    problems = locate_in_config(problems, str(config.path), config.line_of)
    if has_errors(problems):
        errors = [str(problem) for problem in problems if problem.severity == "error"]
        shown = "\n".join(f"  {line}" for line in errors[:20])
        more = f"\n  … and {len(errors) - 20} more" if len(errors) > 20 else ""
        raise InputFileError(
            f"the fixtures {verb} {against} ({plural(len(errors), 'error')}); not {doing}:\n{shown}{more}",
            hint=hint,
        )


@dataclass(frozen=True)
class PaidModel:
    """The model a command asks: the spending decision and the provider settings it implies."""

    spending: Spending
    settings: ProviderSettings
    options: GenerateOptions

    @property
    def price(self) -> Price | None:
        return self.spending.price


class AsksAModel(Protocol):
    """What every paid command's request says about the model (its ``cli.paid_options`` flags)."""

    @property
    def provider(self) -> str | None: ...
    @property
    def model(self) -> str | None: ...
    @property
    def base_url(self) -> str | None: ...
    @property
    def budget_usd(self) -> float | None: ...
    @property
    def dry(self) -> bool: ...
    @property
    def environ(self) -> Mapping[str, str]: ...


def decide_for(
    command: str,
    request: AsksAModel,
    options: RunOptions,
    *,
    where: Capable | None = None,
    needs_model: str | None = None,
    configured_where: Capable | None = None,
    cap: CapRule = "default",
    budget_in_config: bool = True,
    usage: str = "",
) -> Spending:
    """``run.spending.decide`` on what the request asks; the rest are the command's own rules (the
    providers it can use, whether a cap is required, …: ``decide``'s)."""
    from mcp_evals.run.spending import decide

    return decide(
        command,
        request.environ,
        options,
        provider=request.provider,
        model=request.model,
        base_url=request.base_url,
        budget_usd=request.budget_usd,
        dry=request.dry,
        where=where,
        needs_model=needs_model,
        configured_where=configured_where,
        cap=cap,
        budget_in_config=budget_in_config,
        usage=usage,
    )
