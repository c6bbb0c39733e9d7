"""``synth --dry``: what synthesis would cost, with nothing sent (pure; a local token estimate).

Step 1's requests are known exactly (they are built from the catalog); step 2's depend on how many
intents step 1 returns, so they are estimated as if every step-1 request returned all it asked for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mcp_evals.answers import Usage
from mcp_evals.providers.pricing import Price, prices_as_of
from mcp_evals.providers.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens
from mcp_evals.synth.model import SynthSettings
from mcp_evals.synth.prompts import PARAPHRASE_SYSTEM, Ask
from mcp_evals.wording import number, plural

ASSUMED_INTENT_TOKENS = 90  # output per intent: a goal, its values and pattern, as JSON
ASSUMED_QUERY_TOKENS = 45  # output per paraphrased query
PARAPHRASE_ITEM_TOKENS = 60  # input per intent in a paraphrase request: the goal and its values


def _kinds(asks: Sequence[Ask]) -> str:
    counts = {
        "tool": sum(1 for ask in asks if ask.source.startswith("tool ")),
        "pair": sum(1 for ask in asks if ask.source.startswith("pair ")),
        "refuse": sum(1 for ask in asks if ask.source == "refuse"),
        "clarify": sum(1 for ask in asks if ask.source == "clarify"),
    }
    return " + ".join(f"{count} {kind}" for kind, count in counts.items() if count)


def estimate_usage(asks: Sequence[Ask], settings: SynthSettings) -> tuple[int, Usage]:
    """(requests, expected usage) of a synthesis: step 1 as built, step 2 as if every intent came."""
    intents = sum(ask.count for ask in asks)
    step1_input = sum(estimate_tokens(ask.system + ask.user) + MESSAGE_OVERHEAD_TOKENS for ask in asks)
    batches = math.ceil(intents / max(1, settings.batch))
    step2_input = batches * (estimate_tokens(PARAPHRASE_SYSTEM) + 2 * MESSAGE_OVERHEAD_TOKENS)
    step2_input += intents * PARAPHRASE_ITEM_TOKENS
    output = intents * (ASSUMED_INTENT_TOKENS + ASSUMED_QUERY_TOKENS)
    return len(asks) + batches, Usage(input_tokens=step1_input + step2_input, output_tokens=output)


def describe_synth(
    label: str,
    model: str,
    asks: Sequence[Ask],
    settings: SynthSettings,
    price: Price | None,
    *,
    max_tokens: int,
    budget_usd: float | None,
) -> list[str]:
    """The lines ``synth --dry`` prints."""
    intents = sum(ask.count for ask in asks)
    requests, usage = estimate_usage(asks, settings)
    batches = requests - len(asks)
    lines = [
        f"mcp-evals synth --dry: nothing billable is sent ({label}, {model})",
        f"step 1 (intents; sees the catalog): {plural(len(asks), 'request')} ({_kinds(asks)}) → up to "
        f"{plural(intents, 'intent')}",
        f"step 2 (held-out paraphrase; sees no tool): about {plural(batches, 'request')} of up to "
        f"{plural(settings.batch, 'intent')}",
        f"input tokens (a local estimate, ±20%): {number(usage.input_tokens)} · output assumed "
        f"{plural(usage.output_tokens, 'token')}",
    ]
    if price is None:
        return [*lines, f"no price known for {model}: add it under run.prices in the config to see a cost"]
    cost = price.cost(usage)
    worst = price.cost(Usage(input_tokens=usage.input_tokens, output_tokens=requests * max_tokens))
    lines += [
        f"estimated cost (prices as of {prices_as_of()}): ${cost:,.4f}",
        f"worst case (every answer uses max_tokens {max_tokens}): ${worst:,.4f}",
    ]
    if budget_usd is not None:
        if worst <= budget_usd:
            lines.append(f"budget ${budget_usd:g}: fits even the worst case")
        elif cost <= budget_usd:
            lines.append(
                f"budget ${budget_usd:g}: fits the estimate; the run stops early (exit 2) only if answers "
                "run long"
            )
        else:
            lines.append(
                f"budget ${budget_usd:g}: below the estimate: the run would stop before it finishes "
                "(exit 2); raise the budget or lower --per-tool"
            )
    return lines
