"""The ``llm_judge`` assertion: an OpenAI-compatible model scores a step's output from 0 to 1.

The key comes from the environment only (``LLM_JUDGE_API_KEY`` with ``LLM_JUDGE_BASE_URL``, the
names mcp-eval-runner reads, when either is set; else ``OPENAI_API_KEY`` with ``OPENAI_BASE_URL``; in a
``Secret``: a key is never sent to the other pair's endpoint), the request is one ``generate`` call (a
system prompt and the question) through the OpenAI provider, and every request must fit the budget
the run was given. Without a key,
without a budget, or when the next request could cross it, the assertion is *skipped* with the
reason — never passed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import anyio

from mcp_evals.answers import GenerateOptions, Message
from mcp_evals.config.model import JudgeOptions
from mcp_evals.contract.model import AssertionResult, JudgeSpend, LlmJudge
from mcp_evals.provider_registry import PROVIDERS
from mcp_evals.providers.base import ProviderSettings, Secret
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.openai import OpenAIProvider
from mcp_evals.providers.pricing import find_price

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
        self.key = Secret.from_environ(environ, self.key_variable)
        self.base_url = options.base_url or environ.get(url_variable, "").strip() or None
        self.spend = JudgeSpend(budget_usd=budget_usd if budget_usd is not None else options.budget_usd)
        self._lock = anyio.Lock()
        self._providers: dict[str, OpenAIProvider] = {}

    @property
    def keyless_endpoint(self) -> bool:
        """A local endpoint (vLLM, Ollama) needs no key, as with `mcp-evals run`."""
        return bool(self.base_url) and "api.openai.com" not in (self.base_url or "")

    def unavailable(self) -> str | None:
        """Why no judge request can be made at all, or None."""
        if self.key is None and not self.keyless_endpoint:
            return f"{self.key_variable} is not set: the judge was not asked"
        if self.spend.budget_usd is None:
            return (
                "no judge budget (contract.judge.budget_usd or --judge-budget-usd): the judge was not asked"
            )
        return None

    def provider(self, model: str) -> OpenAIProvider:
        if model not in self._providers:
            settings = ProviderSettings(
                model=model,
                base_url=self.base_url or OpenAIProvider.default_base_url,
                api_key=self.key,
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
        if price is None and not self.keyless_endpoint:
            return AssertionResult(
                kind=KIND,
                status="skipped",
                message=f"no price is known for {model!r}, so no budget can hold it",
            )
        prompt = judge.prompt_template.replace("{actual}", actual).replace("{expected}", expected)
        provider = self.provider(model)
        worst = 0.0
        if price is not None:
            worst = (
                math.ceil((len(prompt) + len(_SYSTEM)) / 3) * price.input + MAX_TOKENS * price.output
            ) / 1e6
        async with self._lock:
            budget = self.spend.budget_usd or 0.0
            if self.spend.cost_usd + worst > budget:
                return AssertionResult(
                    kind=KIND,
                    status="skipped",
                    message=f"the judge budget (${budget:g}) could be crossed by this request: not asked",
                )
            self.spend.cost_usd += worst  # held until the real cost is known
            self.spend.requests += 1
        cost = worst
        try:
            answer_text, cost = await self._ask(provider, prompt, price)
        except ProviderFailure as failure:
            return AssertionResult(
                kind=KIND, status="skipped", message=f"the judge request failed: {failure.message}"
            )
        finally:
            async with self._lock:
                self.spend.cost_usd += cost - worst
        return verdict(answer_text, judge.min_score)

    async def _ask(self, provider: OpenAIProvider, prompt: str, price: Any) -> tuple[str, float]:
        messages = [Message.system(_SYSTEM), Message.user(prompt)]
        answer = await provider.generate(messages, options=GenerateOptions(max_tokens=MAX_TOKENS))
        cost = price.cost(answer.usage) if price is not None else 0.0
        return answer.text, cost


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
