"""Running the lint: rules over a catalog (and fixtures, and probe answers) → a ``LintReport``.

``lint`` is pure: a catalog, fixtures and options in, a report out. Where each finding points
(``Locations``) is given by the caller, who knows the config file: a finding about a fixture points
at the fixture's line, one about a tool at the config line of the server that publishes it, one about
the fixture set at the config's ``fixtures:`` line, anything else at its ``servers:`` line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from mcp_evals.catalog.model import Catalog, matches
from mcp_evals.config.model import LintIgnore, LintOptions
from mcp_evals.errors import ConfigError
from mcp_evals.fixtures.model import Fixture
from mcp_evals.lint.context import Hit, LintContext, ProbeResult, ProbeSkip
from mcp_evals.lint.grade import grade
from mcp_evals.lint.model import (
    CATEGORY_NAMES,
    SEVERITY_RANK,
    Finding,
    LintReport,
    Severity,
    TokenReport,
    ToolTokens,
)
from mcp_evals.lint.registry import Rule
from mcp_evals.lint.rules import all_rules
from mcp_evals.lint.rules.consistency import confusable
from mcp_evals.providers.pricing import ASSUMED_OUTPUT_TOKENS, Price
from mcp_evals.providers.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_prefix_tokens, estimate_tokens
from mcp_evals.servers.model import Conformance
from mcp_evals.wording import docs_url

DEFAULT_CONFIG_FILE = "mcp-evals.yaml"
TYPICAL_QUERY_TOKENS = 30  # when there are no fixtures to measure queries by
LARGEST_SHOWN = 5


@dataclass(frozen=True)
class Locations:
    """Where findings point: the config file, and the lines of its servers and settings."""

    config_file: str | None = DEFAULT_CONFIG_FILE  # None: a server named on the command line
    server_lines: Mapping[str, int] = field(default_factory=dict)
    servers_line: int | None = None
    fixtures_line: int | None = None


def check_options(options: LintOptions, where: Callable[[tuple[str | int, ...]], str]) -> None:
    """Refuse rule ids no rule has (in `lint.rules` and `lint.ignore`): a typo must not go quiet.

    ``where`` turns a config key path into ``file:line (key)`` for the message.
    """
    known = {item.id for item in all_rules()}
    places: list[tuple[tuple[str | int, ...], str]] = [(("lint", "rules", key), key) for key in options.rules]
    for index, ignore in enumerate(options.ignore):
        places += [
            (("lint", "ignore", index, "rules", position), key) for position, key in enumerate(ignore.rules)
        ]
    for path, key in places:
        if key not in known:
            raise ConfigError(
                f"{where(path)}: no lint rule {key!r}",
                hint=f"`mcp-evals lint --rules-md` lists the rules (also in {docs_url('lint.md')})",
            )


def active_rules(options: LintOptions, *, fixtures: bool, probe: bool) -> list[tuple[Rule, Severity]]:
    """The rules that run, each with its effective severity."""
    chosen = []
    for item in all_rules():
        setting = options.rules.get(item.id, True)
        if setting is False:
            continue
        if (item.needs == "fixtures" and not fixtures) or (item.needs == "probe" and not probe):
            continue
        chosen.append((item, item.severity if isinstance(setting, bool) else setting))
    return chosen


def _suppression(ignores: Sequence[LintIgnore], rule_id: str, tools: Sequence[str]) -> str | None:
    for ignore in ignores:
        if (not ignore.rules or rule_id in ignore.rules) and any(
            matches(name, [ignore.tool]) for name in tools
        ):
            return ignore.reason
    return None


def _locate(hit: Hit, catalog: Catalog, locations: Locations) -> tuple[str | None, int | None]:
    if hit.fixture is not None and hit.fixture.source is not None:
        return hit.fixture.source.file, hit.fixture.source.line
    if hit.server is not None and not hit.tools:
        return locations.config_file, locations.server_lines.get(hit.server, locations.servers_line)
    if hit.fixture_set:
        return locations.config_file, locations.fixtures_line or locations.servers_line
    if hit.tools and hit.tools[0] in catalog.by_name:
        server = catalog.by_name[hit.tools[0]].server
        return locations.config_file, locations.server_lines.get(server, locations.servers_line)
    return locations.config_file, locations.servers_line


def readiness_note(found: Conformance) -> str:
    """One line per server: the protocol version it settled on, and its 2026-07-28 readiness."""
    skipped = [check for check in found.readiness if check.status == "skipped"]
    line = (
        f"server {found.server!r}: protocol {found.negotiated_version or 'unknown'}"
        f" ({found.transport}); ready for 2026-07-28: {found.readiness_passed} of "
        f"{found.readiness_assessed} checks pass"
    )
    if skipped:
        line += f", {len(skipped)} not assessed ({skipped[0].detail})"
    return line + "".join(f"; {note}" for note in found.notes)


def token_report(context: LintContext, model: str | None, price: Price | None) -> TokenReport:
    """The catalog's size in tokens and what one eval request costs at ``model`` (estimates)."""
    catalog_tokens = sum(context.tool_tokens.values())
    prefix = estimate_prefix_tokens(context.catalog.specs, context.system_prompt)
    queries = [estimate_tokens(fixture.query) for fixture in context.fixtures or ()]
    query = round(sum(queries) / len(queries)) if queries else TYPICAL_QUERY_TOKENS
    query += MESSAGE_OVERHEAD_TOKENS
    largest = sorted(context.tool_tokens.items(), key=lambda item: (-item[1], item[0]))[:LARGEST_SHOWN]
    report = TokenReport(
        catalog_tokens=catalog_tokens,
        prefix_tokens=prefix,
        largest=[ToolTokens(tool=name, tokens=tokens) for name, tokens in largest],
        model=model,
    )
    if price is None:
        return report
    output = ASSUMED_OUTPUT_TOKENS * price.output
    cacheable = prefix >= price.min_cache_tokens
    uncached = ((prefix + query) * price.input + output) / 1_000_000
    cached = (prefix * price.cache_read + query * price.input + output) / 1_000_000 if cacheable else None
    return report.model_copy(
        update={
            "price_known": True,
            "cost_per_request": uncached,
            "cost_per_request_cached": cached,
            "min_cache_tokens": price.min_cache_tokens,
            "cacheable": cacheable,
        }
    )


def lint(
    catalog: Catalog,
    fixtures: Sequence[Fixture] | None = None,
    options: LintOptions | None = None,
    *,
    exclude_tools: Sequence[str] = (),
    system_prompt: str = "",
    model: str | None = None,
    price: Price | None = None,
    locations: Locations | None = None,
    probe: Sequence[ProbeResult] | None = None,
    probe_skipped: Sequence[ProbeSkip] = (),
    conformance: Sequence[Conformance] | None = None,
) -> LintReport:
    """Lint a catalog (and its fixtures, when given; and probe and conformance answers, when given)."""
    report, _ = lint_with_context(
        catalog,
        fixtures,
        options,
        exclude_tools=exclude_tools,
        system_prompt=system_prompt,
        model=model,
        price=price,
        locations=locations,
        probe=probe,
        probe_skipped=probe_skipped,
        conformance=conformance,
    )
    return report


def lint_with_context(
    catalog: Catalog,
    fixtures: Sequence[Fixture] | None = None,
    options: LintOptions | None = None,
    *,
    exclude_tools: Sequence[str] = (),
    system_prompt: str = "",
    model: str | None = None,
    price: Price | None = None,
    locations: Locations | None = None,
    probe: Sequence[ProbeResult] | None = None,
    probe_skipped: Sequence[ProbeSkip] = (),
    conformance: Sequence[Conformance] | None = None,
) -> tuple[LintReport, LintContext]:
    """``lint``, also returning the context (for ``check_prediction``, which reuses its analyses)."""
    options = options or LintOptions()
    locations = locations or Locations()
    context = LintContext(
        catalog=catalog,
        thresholds=options.thresholds,
        fixtures=fixtures,
        exclude_tools=exclude_tools,
        system_prompt=system_prompt,
        price=price,
        model=model,
        probe=probe,
        conformance=conformance,
    )
    live = probe is not None or conformance is not None
    rules = active_rules(options, fixtures=fixtures is not None, probe=live)
    findings: list[Finding] = []
    for item, severity in rules:
        for hit in item.check(context):
            file, line = _locate(hit, catalog, locations)
            involved = hit.tools or (tuple(hit.fixture.expected_tools) if hit.fixture else ())
            findings.append(
                Finding(
                    rule=item.id,
                    severity=severity,
                    message=hit.message,
                    tools=hit.tools,
                    fixture_id=hit.fixture.id if hit.fixture else None,
                    parameter=hit.parameter,
                    subject=hit.subject,
                    terms=hit.terms,
                    file=file,
                    line=line,
                    suppressed=_suppression(options.ignore, item.id, involved),
                )
            )
    order = ["X", *(category for category in CATEGORY_NAMES if category != "X")]  # security first
    findings.sort(
        key=lambda f: (-SEVERITY_RANK[f.severity], order.index(f.category), f.rule, f.file or "", f.line or 0)
    )
    graded = {item.id: item.graded for item, _ in rules}
    notes = []
    if fixtures is None:
        notes.append("No fixtures configured: the fixture rules (F) did not run and are not graded.")
    notes += [f"The probe did not call {skip.tool!r}: it {skip.reason}." for skip in probe_skipped]
    notes += [readiness_note(found) for found in conformance or ()]
    report = LintReport(
        catalog_hash=catalog.hash,
        tools=len(catalog.tools),
        servers=[server.name for server in catalog.servers]
        or sorted({tool.server for tool in catalog.tools}),
        fixtures=len(fixtures) if fixtures is not None else None,
        rules_run=[item.id for item, _ in rules],
        findings=findings,
        grade=grade(
            findings,
            tools=len(catalog.tools),
            fixtures=len(fixtures) if fixtures is not None else None,
            graded_rules=graded,
        ),
        predicted_pairs=confusable(context),
        tokens=token_report(context, model, price),
        fail_on=options.fail_on,
        notes=notes,
    )
    return report, context
