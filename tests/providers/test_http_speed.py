"""What a run's speed rests on (bench/runner.py): the HTTP pool's fixed costs, and a fake API that
answers concurrently after exactly its latency, so a benchmark does not time its own fake."""

from __future__ import annotations

import dataclasses
import http.cookiejar
import importlib.machinery
import ssl
import time
from typing import Any, ClassVar
from urllib.parse import urlsplit

import anyio
import httpx
import pytest

from fakes.fake_anthropic import API_KEY, FakeAnthropic
from fakes.fake_http import Recorded, Reply
from mcp_evals.answers import FORCED, GenerateOptions, Message, ToolSpec
from mcp_evals.providers import base
from mcp_evals.providers.anthropic import AnthropicProvider
from mcp_evals.providers.base import ProviderSettings, Secret

TOOLS = (ToolSpec(name="get_ticket", description="One ticket.", input_schema={"type": "object"}),)


def provider(base_url: str, connections: int = 16) -> AnthropicProvider:
    settings = ProviderSettings(
        model="claude-opus-4-8", base_url=base_url, api_key=Secret(API_KEY), max_connections=connections
    )
    return AnthropicProvider(settings)


async def ask(client: AnthropicProvider, query: str) -> float:
    started = time.perf_counter()
    await client.generate([Message.user(query)], TOOLS, FORCED, GenerateOptions())
    return time.perf_counter() - started


def test_a_request_does_not_search_the_import_path_for_an_absent_optional_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """httpcore tries ``import sniffio`` several times per request; absent, each try searched every
    ``sys.path`` entry (a third of the runner's CPU per request)."""
    searched: list[str] = []
    find_spec = importlib.machinery.PathFinder.find_spec

    def spying(name: str, *args: Any, **kwargs: Any) -> Any:
        searched.append(name)
        return find_spec(name, *args, **kwargs)

    with FakeAnthropic() as fake:
        client = provider(fake.base_url)

        async def run() -> None:
            await ask(client, "warm up the HTTP stack")
            monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", spying)
            for number in range(3):
                await ask(client, f"get_ticket {number}")
            await client.aclose()

        anyio.run(run)
    assert searched == []


def test_https_pools_load_the_ca_bundle_once_and_a_plain_http_pool_not_at_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads: list[object] = []
    create = httpx.create_ssl_context

    def counting(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        loads.append(args)
        return create(*args, **kwargs)

    monkeypatch.setattr(httpx, "create_ssl_context", counting)
    base._ca_context.cache_clear()
    try:
        for _ in range(2):
            assert len(provider("https://api.anthropic.com", connections=32)._pool()) == 4
        assert len(loads) == 1  # two providers, eight clients: one CA bundle
        provider("http://127.0.0.1:9")._pool()
        assert len(loads) == 1
    finally:
        base._ca_context.cache_clear()
    plain = base._tls_context("HTTP://localhost:11434/v1")
    # Nothing is trusted: a TLS connection with it would refuse every certificate.
    assert plain.verify_mode == ssl.CERT_REQUIRED and plain.check_hostname
    assert plain.get_ca_certs() == []


class SlowToAnswer(FakeAnthropic):
    """A fake whose answers take ``making`` seconds to make (its own CPU, a lock, a slow disk …)."""

    making = 0.25

    def handle(self, request: Recorded) -> Reply:
        time.sleep(self.making)
        return super().handle(request)


def test_the_fake_answers_after_its_latency_however_long_making_the_answer_took() -> None:
    with SlowToAnswer(latency=0.4) as fake:
        client = provider(fake.base_url)

        async def run() -> float:
            try:
                return await ask(client, "get_ticket 1")
            finally:
                await client.aclose()

        took = anyio.run(run)
    assert 0.4 <= took < 0.4 + fake.making  # made while the latency ran, not after it


def test_the_fake_answers_concurrent_requests_concurrently() -> None:
    with FakeAnthropic(latency=0.3) as fake:
        client = provider(fake.base_url)
        took: list[float] = []

        async def one(number: int) -> None:
            took.append(await ask(client, f"get_ticket {number}"))

        async def run() -> float:
            started = time.perf_counter()
            async with anyio.create_task_group() as group:
                for number in range(12):
                    group.start_soon(one, number)
            await client.aclose()
            return time.perf_counter() - started

        wall = anyio.run(run)
    assert len(took) == 12 and min(took) >= 0.3
    assert wall < 2 * 0.3  # one at a time would take 12 × 0.3 s


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def without_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_a_request_goes_to_the_pool_without_the_client_layer_and_sends_what_httpx_sends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The httpx client's layer (URL merging, the cookie jar, hooks) was a fifth of a request's CPU; a
    request skips it and still carries the headers an httpx client would send."""
    without_proxies(monkeypatch)
    jar: list[object] = []
    monkeypatch.setattr(http.cookiejar.CookieJar, "extract_cookies", lambda *args: jar.append(args))
    with FakeAnthropic() as fake:
        client = provider(fake.base_url + "/")

        async def run() -> None:
            await ask(client, "get_ticket 1")
            await client.aclose()
            async with httpx.AsyncClient(base_url=fake.base_url) as plain:
                sent = fake.requests[0]
                await plain.post("/v1/messages", content=sent.body, headers=dict(sent.headers))

        anyio.run(run)
        ours, httpx_client = fake.requests
    assert len(jar) == 1  # the plain client's answer only
    assert ours.path == httpx_client.path == "/v1/messages"
    assert ours.headers == httpx_client.headers


def test_a_proxy_named_in_the_environment_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    class Proxy(FakeAnthropic):
        """The fake API as an HTTP proxy: the request line names the whole target URL."""

        targets: ClassVar[list[str]] = []

        def handle(self, request: Recorded) -> Reply:
            self.targets.append(request.path)
            return super().handle(dataclasses.replace(request, path=urlsplit(request.path).path))

    without_proxies(monkeypatch)
    with Proxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url)
        client = provider("http://192.0.2.1:9")  # TEST-NET-1: reachable only through the proxy

        async def run() -> None:
            await ask(client, "get_ticket 1")
            await client.aclose()

        anyio.run(run)
    assert Proxy.targets == ["http://192.0.2.1:9/v1/messages"]
