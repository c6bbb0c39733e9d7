"""The ``llm_judge`` assertion: an OpenAI-compatible model scores a step's output from 0 to 1.

The key comes from the environment only (``LLM_JUDGE_API_KEY`` with ``LLM_JUDGE_BASE_URL``, the
names mcp-eval-runner reads, when either is set; else ``OPENAI_API_KEY`` with ``OPENAI_BASE_URL``; in a
``Secret``: a key is never sent to the other pair's endpoint), the request is one ``generate`` call (a
system prompt and the question) through the OpenAI provider. The key, the endpoint and whether it
bills are the one spending policy's (``run.spending``: a keyless endpoint of your own bills nothing),
and every request reserves its worst case in the run's one ``Budget`` (``run.budget``) before it is
sent. Without a key, without a budget, or when the next request could cross it, the assertion is
*skipped* with the reason — never passed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from mcp_evals.answers import GenerateOptions, Message
from mcp_evals.config.model import JudgeOptions, RunOptions
from mcp_evals.config.resolve import number_setting
from mcp_evals.contract.model import AssertionResult, JudgeSpend, LlmJudge
from mcp_evals.provider_registry import PROVIDERS
from mcp_evals.providers.base import ProviderSettings, Secret
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.openai import OpenAIProvider
from mcp_evals.providers.pricing import Price, find_price
from mcp_evals.providers.tokens import estimate_tokens
from mcp_evals.run.budget import Budget
from mcp_evals.run.spending import choose

KIND = "llm_judge"
MAX_TOKENS = 400
_SYSTEM = (
    "You grade the output of a software tool. Read the question, then answer with one JSON object and "
    'nothing else: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}. 1 means fully right.'
)
_JSON_OBJECT = re.compile(r"\{.*\}", re.S)


JUDGE_VARIABLES = ("LLM_JUDGE_API_KEY", "LLM_JUDGE_BASE_URL")


def judge_variables(environ: Mapping[str, str]) -> tuple[str, str]:
    """The (key, base URL) variables the judge reads: mcp-eval-runner's pair when either is set.

    Always a pair, so a key is only ever sent to the endpoint named beside it.
    """
    if any(environ.get(name, "").strip() for name in JUDGE_VARIABLES):
        return JUDGE_VARIABLES
    entry = PROVIDERS["openai"]
    return entry.key_env_var or "OPENAI_API_KEY", entry.base_url_env_var or "OPENAI_BASE_URL"


class Judge:
    """Asks the judge model, one request per ``llm_judge`` assertion, within one budget for the run."""

    def __init__(self, options: JudgeOptions, environ: Mapping[str, str], *, budget_usd: float | None = None):
        self.options = options
        self.key_variable, url_variable = judge_variables(environ)
        # The judge's provider is always named (OpenAI-compatible), its variables the pair above; its
        # endpoint the config's, else the pair's; its cap --judge-budget-usd, else
        # contract.judge.budget_usd (no default).
        Secret.from_environ(environ, self.key_variable)  # a key no header can carry, named by its variable
        entry = PROVIDERS["openai"]
        pair = {
            entry.key_env_var or "": environ.get(self.key_variable, ""),
            entry.base_url_env_var or "": environ.get(url_variable, ""),
        }
        self.spending = choose(
            "contract", pair, RunOptions(), provider="openai", model=options.model, base_url=options.base_url
        )
        limit = number_setting(budget_usd, environ, None, options.budget_usd, float)
        self.budget = Budget(limit, None, MAX_TOKENS)
        self.requests = 0
        self._providers: dict[str, OpenAIProvider] = {}

    @property
    def key(self) -> Secret | None:
        return self.spending.choice.key

    @property
    def base_url(self) -> str | None:
        """The endpoint given (the config's, else the pair's variable); None: OpenAI's own."""
        return self.spending.endpoint

    @property
    def spend(self) -> JudgeSpend:
        """What the run's record keeps: requests sent, their cost, the cap."""
        return JudgeSpend(
            requests=self.requests, cost_usd=self.budget.spent_usd, budget_usd=self.budget.limit_usd
        )

    def unavailable(self) -> str | None:
        """Why no judge request can be made at all, or None."""
        if self.spending.missing_key is not None:
            return f"{self.key_variable} is not set: the judge was not asked"
        if self.budget.limit_usd is None:
            return (
                "no judge budget (contract.judge.budget_usd or --judge-budget-usd): the judge was not asked"
            )
        return None

    def provider(self, model: str) -> OpenAIProvider:
        if model not in self._providers:
            settings = ProviderSettings(
                model=model,
                base_url=self.spending.endpoint or OpenAIProvider.default_base_url,
                api_key=self.spending.choice.key,
                timeout=self.options.timeout,
                max_connections=4,
            )
            self._providers[model] = OpenAIProvider(settings)
        return self._providers[model]

    async def aclose(self) -> None:
        for provider in self._providers.values():
            await provider.aclose()

    async def score(self, judge: LlmJudge, actual: str, expected: str) -> AssertionResult:
        reason = self.unavailable()
        if reason is not None:
            return AssertionResult(kind=KIND, status="skipped", message=reason)
        model = judge.model or self.options.model
        price = find_price(model)
        if price is None and self.spending.billable:
            return AssertionResult(
                kind=KIND,
                status="skipped",
                message=f"no price is known for {model!r}, so no budget can hold it",
            )
        prompt = judge.prompt_template.replace("{actual}", actual).replace("{expected}", expected)
        provider = self.provider(model)
        held = self.budget.reserve_tokens(estimate_tokens(_SYSTEM + prompt), price)
        if held is None:
            return AssertionResult(
                kind=KIND,
                status="skipped",
                message=f"the judge budget (${self.budget.limit_usd:g}) could be crossed by this request: "
                "not asked",
            )
        self.requests += 1
        try:
            answer_text = await self._ask(provider, prompt, price)
        except ProviderFailure as failure:
            return AssertionResult(
                kind=KIND, status="skipped", message=f"the judge request failed: {failure.message}"
            )
        finally:
            self.budget.release(held)
        return verdict(answer_text, judge.min_score)

    async def _ask(self, provider: OpenAIProvider, prompt: str, price: Price | None) -> str:
        messages = [Message.system(_SYSTEM), Message.user(prompt)]
        answer = await provider.generate(messages, options=GenerateOptions(max_tokens=MAX_TOKENS))
        self.budget.spend(answer.usage, price)
        return answer.text


def verdict(answer: str, min_score: float) -> AssertionResult:
    """The judge's JSON answer turned into a result; an answer without a score is skipped, not guessed."""
    found = _JSON_OBJECT.search(answer)
    try:
        data = json.loads(found.group(0)) if found else None
    except ValueError:
        data = None
    score = data.get("score") if isinstance(data, dict) else None
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        return AssertionResult(
            kind=KIND, status="skipped", message="the judge's answer holds no score from 0 to 1"
        )
    why = str(data.get("reason") or "").strip() if isinstance(data, dict) else ""
    detail = f": {why}" if why else ""
    if score >= min_score:
        return AssertionResult(kind=KIND, status="passed", message=f"score {score:g} ≥ {min_score:g}{detail}")
    return AssertionResult(kind=KIND, status="failed", message=f"score {score:g} < {min_score:g}{detail}")
