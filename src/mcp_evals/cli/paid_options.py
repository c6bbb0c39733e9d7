"""The options of every command that may call a paid model (``run``, ``compare``, ``synth``,
``improve``, ``session``), written once: ``--provider``, ``--model``, ``--base-url``, ``--budget-usd``
and ``--concurrency`` mean the same in each, read in the one order (``config.resolve``) and decided
by the one spending policy (``run.spending``), so each has one help text. A command keeps only what
differs: the providers it can use (``--provider``'s choices) and whether it sends requests side by
side (``--concurrency``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from mcp_evals.cli.options import ProviderChoice
from mcp_evals.provider_registry import ProviderEntry
from mcp_evals.run.budget import DEFAULT_CAP_USD

F = TypeVar("F", bound=Callable[..., Any])

# The one help of each shared option (tests/cli/test_vocabulary.py holds every command to it).
PAID_HELP = {
    "--provider": "Default: the one whose API key is set, else the lexical baseline where the command "
    "takes it; the choices are those this command can use.",
    "--model": "Model id (env EVAL_MODEL; default the provider's own).",
    "--base-url": "API base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL), e.g. a gateway.",
    "--budget-usd": "Stop before the next request could cross this many dollars, over all the command "
    f"sends (env EVAL_BUDGET_USD). A paid model needs one, except in run (its default is "
    f"${DEFAULT_CAP_USD:g} when only a key picked the provider).",
    "--concurrency": "Requests in flight (env EVAL_CONCURRENCY, then run.concurrency; default 4).",
}
MOST_IN_FLIGHT = 256


def paid_options(
    where: Callable[[ProviderEntry], bool] | None = None,
    *,
    concurrency: bool = True,
    most_in_flight: int = MOST_IN_FLIGHT,
) -> Callable[[F], F]:
    """Add the shared options of a paid command. ``where``: the providers it can use (all when None);
    ``concurrency``: whether it takes ``--concurrency`` (at most ``most_in_flight``)."""

    def decorate(function: F) -> F:
        options = [
            click.option("--provider", type=ProviderChoice(where), help=PAID_HELP["--provider"]),
            click.option("--model", help=PAID_HELP["--model"]),
            click.option("--base-url", help=PAID_HELP["--base-url"]),
            click.option(
                "--budget-usd",
                type=click.FloatRange(0, min_open=True),
                help=PAID_HELP["--budget-usd"],
            ),
        ]
        if concurrency:
            options.append(
                click.option(
                    "--concurrency",
                    type=click.IntRange(1, most_in_flight),
                    help=PAID_HELP["--concurrency"],
                )
            )
        for option in reversed(options):  # shown in --help in the order listed
            function = option(function)
        return function

    return decorate
