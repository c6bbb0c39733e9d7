"""``compare --dry``: what each arm would cost per fixture, with nothing sent (a local estimate).

Each arm's requests — the messages and tools the live run sends — are counted with the local
estimate (``providers.tokens``); what a search or a router reveals is counted at its average size.
Caching is left out, so the figure is an upper estimate for arms whose prefix is stable.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp_evals.answers import ToolSpec, Usage
from mcp_evals.compare.arms import Arm, DeferredArm, GroupedArm
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.pricing import ASSUMED_OUTPUT_TOKENS, Price, prices_as_of
from mcp_evals.providers.tokens import TOOL_USE_PREAMBLE_TOKENS, estimate_tokens, prompt_prefix, request_text
from mcp_evals.wording import noun, plural

# The assistant turn and the tool result a second request carries besides the tools (a few lines).
HISTORY_TOKENS = 60


def _tool_tokens(arm: Arm) -> float:
    specs = arm.catalog.specs
    if not specs:
        return 0.0
    return sum(estimate_tokens(prompt_prefix([spec], "")) for spec in specs) / len(specs)


def _body(arm: Arm, fixture: Fixture, tools: Sequence[ToolSpec]) -> int:
    text = request_text(arm.asker.messages(fixture.query), tools)
    return estimate_tokens(text) + TOOL_USE_PREAMBLE_TOKENS


def request_tokens(arm: Arm, fixture: Fixture) -> list[int]:
    """Input tokens of each request one fixture takes in this arm."""
    if isinstance(arm, GroupedArm):
        first = _body(arm, fixture, arm.router_tools)
        shown = _tool_tokens(arm) * len(arm.catalog.tools) / max(1, len(arm.members))
        return [first, _body(arm, fixture, []) + round(shown) + HISTORY_TOKENS]
    if isinstance(arm, DeferredArm):
        revealed = round(_tool_tokens(arm) * min(arm.search.top_k, len(arm.catalog.tools)))
        if arm.server_side:  # deferred tools are no part of the prompt: only those revealed count
            return [_body(arm, fixture, arm.deferred) + revealed + HISTORY_TOKENS]
        return [_body(arm, fixture, arm.search_tool), _body(arm, fixture, []) + revealed + HISTORY_TOKENS]
    return [_body(arm, fixture, arm.asker.tools)] if arm.provider.uses_network else []


def describe_compare(
    arms: Sequence[Arm],
    fixtures: Sequence[Fixture],
    samples: int,
    price: Price | None,
    budget_usd: float | None,
) -> list[str]:
    """The lines ``compare --dry`` prints."""
    first = arms[0].provider
    lines = [
        "mcp-evals compare --dry: nothing billable is sent "
        f"({first.label or first.name}, {first.settings.model})",
        f"{plural(len(fixtures), 'fixture')} × {plural(samples, 'sample')} × {plural(len(arms), 'arm')}, "
        "interleaved in one run",
    ]
    if not first.uses_network:
        return [*lines, "the lexical baseline: no model, no cost"]
    lines.append(
        f"input tokens by a local estimate (±20%), without caching; output assumed {ASSUMED_OUTPUT_TOKENS} "
        "tokens per request:"
    )
    width = max(len(arm.name) for arm in arms)
    total = 0.0
    for arm in arms:
        per_fixture = [request_tokens(arm, fixture) for fixture in fixtures]
        requests = sum(len(tokens) for tokens in per_fixture) * samples
        usage = Usage(
            input_tokens=sum(sum(tokens) for tokens in per_fixture) * samples,
            output_tokens=requests * ASSUMED_OUTPUT_TOKENS,
        )
        count = max(1, len(fixtures) * samples)
        each = requests / count
        line = (
            f"  {arm.name:<{width}}  {each:.0f} {noun(round(each), 'request')} / fixture · "
            f"{usage.input_tokens / count:,.0f} input tokens / fixture"
        )
        if price is not None:
            cost = price.cost(usage)
            total += cost
            line += f" · ${cost / count:,.4f} / fixture · ${cost:,.4f} in all"
        lines.append(line)
    if price is None:
        return [*lines, f"no price known for {first.settings.model}: add it under run.prices to see a cost"]
    lines.append(f"estimated cost (prices as of {prices_as_of()}): ${total:,.4f}")
    if budget_usd is not None:
        fits = "fits" if total <= budget_usd else "does not fit: the run would stop early (exit 2)"
        lines.append(f"budget ${budget_usd:g}: {fits}")
    return lines
