"""The provider interface: one call, ``generate(messages, tools, tool_choice, options) -> Answer``.

A provider knows one API's wire format and nothing else: it builds the request (one builder per
provider), sends it, parses the answer and classifies errors. Everything above it — a run's fixtures,
compare's arms, sessions, synth, the contract judge — builds ``Message``s and ``ToolSpec``s
(``mcp_evals.answers``) and calls ``generate``. The runner owns retries (tenacity), concurrency,
budgets, the results file and the decision to stop. Every failure a provider sees becomes one
``ProviderFailure`` with an ``ErrorKind`` and a verdict — *transient* (retry, maybe after
``retry_after`` seconds) or *fatal* (stop dispatching) — so that no infrastructure failure is ever
mistaken for a wrong tool choice:

    ProviderFailure.transient_failure(kind, message) retry (after the backoff)
    ProviderFailure.rate_limited(message, after)     retry after ``after`` seconds (a 429)
    ProviderFailure.fatal(kind, message)             stop dispatching: no later request can succeed
    ProviderFailure.final_for_fixture(kind, …)       no retry, but the run goes on (a replay miss)
    ProviderFailure.forced_tool_choice_rejected(…)   the model refuses forced tool use: fall back once

What a provider is and can do is said by class attributes (``uses_network``, ``lexical``,
``supports_batch``, ``reports_cache_usage``, ``tool_search_requests``), so no caller asks which
provider it is talking to. A provider's own settings (Anthropic's version header and tool search,
the lexical baseline's strictness) are read from ``ProviderSettings.own`` into its own dataclass.

Keys live in a ``Secret`` (masked in ``repr``), are read from the environment only, and are added
to the headers at send time, so nothing that is logged, recorded or raised carries them.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
import os
import ssl
import sys
import time
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar
from urllib.parse import urlsplit

import httpx

from mcp_evals.answers import (
    Answer,
    ErrorKind,
    GenerateOptions,
    Message,
    ProviderName,
    ToolCall,
    ToolChoice,
    ToolChoiceMode,
    ToolSpec,
)
from mcp_evals.errors import ConfigError
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.redact import scrub

CONNECTIONS_PER_CLIENT = 8
SERIALIZED_KEPT = 8  # tools lists and system prompts kept serialized (a run has one; compare's arms a few)
T = TypeVar("T")
NO_OPTIONS = GenerateOptions()


def _skip_absent_sniffio() -> None:
    """httpcore tries ``import sniffio`` (optional, absent here) several times per request; each failed
    import searches all of ``sys.path`` (0.05–0.2 ms), a third of the runner's CPU per request. ``None``
    in ``sys.modules`` makes the same ImportError immediate."""
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


_skip_absent_sniffio()


class Secret:
    """An API key: usable in a header, invisible in logs, reprs and error messages."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], variable: str) -> Secret | None:
        """The key in ``variable`` (surrounding whitespace dropped), or None when it is unset or empty.

        A key an HTTP header cannot carry (a pasted "…", a line break inside) is a config error that
        names the variable, never the value.
        """
        value = environ.get(variable, "").strip()
        if not value:
            return None
        if not all("!" <= character <= "~" for character in value):
            raise ConfigError(
                f"{variable} holds characters an HTTP header cannot carry "
                "(spaces, line breaks or non-ASCII characters such as a pasted '…')",
                hint=f"copy the key again from the provider's console and set {variable} to exactly it",
            )
        return cls(value)

    def reveal(self) -> str:
        return self._value

    def scrub(self, text: str) -> str:
        """``text`` without the key, also where an error message shows it escaped (``b'sk-…\\n'``)."""
        return scrub(text, [self._value])

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


@dataclass(frozen=True)
class ProviderSettings:
    """How to reach a model, the same for every provider; ``own`` holds settings only some
    providers read (``anthropic_version``, ``tool_search``, ``lexical_strictness`` …): each provider
    takes those its own settings class names and leaves the rest."""

    model: str
    base_url: str = ""
    api_key: Secret | None = None
    timeout: float = 60.0
    max_connections: int = 16
    own: Mapping[str, Any] = field(default_factory=dict)


# Attempts at a request whose connection is refused (a wrong base URL, a server not up): one retry.
CONNECT_ATTEMPTS = 2


@dataclass(frozen=True)
class HttpRequest:
    """A prepared request: path below the base URL, headers (no credentials) and the exact body."""

    path: str
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body)


def compact_json(value: Any) -> bytes:
    """The JSON bytes a request carries: compact and stable, so equal values are equal bytes."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def json_body(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (bodies are untrusted)."""
    return value if isinstance(value, dict) else {}


def object_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's input schema as published; APIs need ``type: object``, so it is added if missing."""
    return dict(schema) if "type" in schema else {"type": "object", **schema}


def invalid_response(message: str, request_id: str | None = None) -> ProviderFailure:
    return ProviderFailure.transient_failure("invalid_response", message, request_id=request_id)


def token_count(usage: Mapping[str, Any], key: str, request_id: str | None = None) -> int:
    """``usage[key]`` as a token count: absent is 0; anything but a whole number ≥ 0 is a malformed
    answer (a dropout, retried), never a crash and never a cost of our own making."""
    value = usage.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or value != int(value):
        raise invalid_response(f"usage.{key} is not a token count ({type(value).__name__})", request_id)
    return int(value)


def tool_call(
    offered: Sequence[ToolSpec], name: str, arguments: Any, raw_arguments: str | None = None
) -> ToolCall:
    """A call as the model made it: ``known`` when it named a tool it was offered. The caller that
    owns the catalog maps the name back to the MCP name (``NameMap.resolve``)."""
    return ToolCall(
        name=name,
        provider_name=name,
        known=any(spec.name == name for spec in offered),
        arguments=arguments if isinstance(arguments, dict) else None,
        raw_arguments=raw_arguments,
    )


def system_text(messages: Sequence[Message]) -> str:
    """The system messages' text, in order (APIs with one system prompt take them together)."""
    return "\n\n".join(message.text for message in messages if message.role == "system")


def own_settings(kind: type[T], settings: ProviderSettings) -> T:
    """A provider's own settings: the fields of ``kind`` that ``settings.own`` names."""
    names = {item.name for item in dataclasses.fields(kind)}  # type: ignore[arg-type]
    return kind(**{name: value for name, value in settings.own.items() if name in names})


# -- Message Batches and the like: many requests at once, answered later -----------------------------


@dataclass(frozen=True, eq=False)
class BatchItem:
    """One request of a batch: ``generate``'s arguments, a ``key`` that names it across runs (a
    resumed run finds its batch by it) and a short ``label`` for the API's request id."""

    key: tuple[str | int, ...]
    label: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec]
    tool_choice: ToolChoice | None
    options: GenerateOptions


class BatchHost(Protocol):
    """What a batch run needs from the run it serves: the narrow interface the runner implements.

    The batch layer never touches the run's state: it asks for retries, for room in the budget and
    for results to be recorded, and says what it learnt.
    """

    @property
    def results_path(self) -> Path: ...
    @property
    def catalog_hash(self) -> str: ...
    @property
    def resume(self) -> bool: ...
    @property
    def budget_usd(self) -> float | None: ...
    @property
    def poll_initial(self) -> float: ...
    @property
    def poll_max(self) -> float: ...

    async def with_retries(self, call: Callable[[], Awaitable[T]]) -> T: ...

    def admit(self, item: BatchItem) -> bool:
        """Reserve the item's worst case in the budget at the batch price; False: it does not fit."""
        ...

    def record_answer(self, item: BatchItem, answer: Answer, mode: ToolChoiceMode | None) -> None: ...

    def record_failure(
        self, item: BatchItem, failure: ProviderFailure, mode: ToolChoiceMode | None, *, attempts: int
    ) -> None: ...

    def record_dropout(
        self, item: BatchItem, kind: ErrorKind, message: str, mode: ToolChoiceMode | None
    ) -> None: ...

    def record_not_sent(self, item: BatchItem) -> None: ...

    def on_forced_rejected(self, failure: ProviderFailure) -> None: ...

    def on_fatal(self, failure: ProviderFailure) -> None: ...

    def on_budget_stop(self, message: str) -> None: ...

    def say(self, text: str) -> None: ...

    def status(self, text: str) -> None: ...


# -- the interface --------------------------------------------------------------------------------


class Provider(ABC):
    """One model API behind one call, ``generate``."""

    name: ClassVar[ProviderName]
    label: ClassVar[str] = ""
    default_base_url: ClassVar[str] = ""
    uses_network: ClassVar[bool] = True  # sends requests (that may cost money); False: answers in-process
    lexical: bool = False  # the lexical baseline (and a replay of one): never gates
    supports_batch: ClassVar[bool] = False  # has a batch interface: ``generate_batch``
    # The API's usage says what was cached, and it caches only prefixes above a model's minimum:
    # the run warns when nothing was cached.
    reports_cache_usage: ClassVar[bool] = False
    # Searches deferred tools on the server (Anthropic's tool search): the most requests one
    # ``generate`` with deferred tools can send (a paused turn is sent back). 0: no such search.
    tool_search_requests: ClassVar[int] = 0

    def __init__(self, settings: ProviderSettings) -> None:
        self.settings = settings

    @abstractmethod
    async def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice | None = None,
        options: GenerateOptions = NO_OPTIONS,
    ) -> Answer:
        """The model's answer: one request (one attempt; the caller retries a transient
        ``ProviderFailure``), or for deferred tools the requests tool search needs for one answer.

        ``tool_choice`` None sends none (the API's default, auto). A non-2xx answer, a transport
        failure or an unusable body is a classified ``ProviderFailure``."""

    async def count_tokens(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice | None = None,
        options: GenerateOptions = NO_OPTIONS,
    ) -> int | None:
        """Exact input tokens of that request when the API counts them for free; None otherwise
        (without sending anything)."""
        return None

    @property
    def counts_tokens(self) -> bool:
        """Whether ``count_tokens`` gives exact counts (the API counts for free, and a key is set)."""
        return False

    async def generate_batch(self, items: Sequence[BatchItem], host: BatchHost) -> None:
        """Answer ``items`` through the API's batch interface, recording through ``host``."""
        raise NotImplementedError(f"{self.name} has no batch interface")

    def notes(self, options: GenerateOptions) -> list[str]:
        """What a report must say about how this provider was used (e.g. a setting it could not send)."""
        return []

    async def aclose(self) -> None:
        """Close connections (a provider that holds none has nothing to close)."""
        return None


def _tls_context(base_url: str) -> ssl.SSLContext:
    """The TLS context of a pool's clients. Loading the CA bundle takes 50–200 ms, so it is loaded once
    per process (by httpx's own rule: ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``, else certifi's), and not at
    all for a plain-HTTP base URL (a local server): every request of a pool goes to its base URL, so
    none uses TLS; the context still verifies, so it would refuse any certificate rather than trust it."""
    if urlsplit(base_url).scheme.lower() == "http":
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return _ca_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.lru_cache(maxsize=4)
def _ca_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context()


# What httpx's client sends with every request unless told otherwise (gzip and deflate it always decodes).
_DEFAULT_HEADERS = {
    "accept": "*/*",
    "accept-encoding": "gzip, deflate",
    "connection": "keep-alive",
    "user-agent": f"python-httpx/{httpx.__version__}",
}


def _proxied(base_url: httpx.URL) -> bool:
    """Whether the environment names a proxy for the base URL's scheme (``HTTPS_PROXY``, ``ALL_PROXY``
    …, as httpx reads them): then requests go through a whole httpx client, which applies it and
    ``NO_PROXY``."""
    proxies = urllib.request.getproxies()
    return base_url.scheme in proxies or "all" in proxies


class _ThroughClient(httpx.AsyncBaseTransport):
    """A pool that sends through a whole httpx client (for a proxy named in the environment)."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.client.send(request)

    async def aclose(self) -> None:
        await self.client.aclose()


class HttpProvider(Provider):
    """A provider behind an HTTP API: a few connection pools, one send, one status check."""

    def __init__(self, settings: ProviderSettings) -> None:
        super().__init__(settings)
        self._pools: list[httpx.AsyncBaseTransport] = []
        self._in_flight: list[int] = []
        self._urls: dict[str, httpx.URL] = {}
        self._serialized: dict[tuple[Any, ...], tuple[Any, bytes]] = {}
        self._timeout = httpx.Timeout(settings.timeout, connect=min(10.0, settings.timeout)).as_dict()

    def _remembered(self, key: tuple[Any, ...], make: Callable[[], bytes], owner: Any = None) -> bytes:
        """``make()``, kept under ``key`` (and for ``owner``, compared by identity) among the last few:
        the tools and system prompt a run sends with every request are serialized once, so the cached
        prefix is byte-identical and no request pays for serializing a large catalog again."""
        hit = self._serialized.get(key)
        if hit is not None and hit[0] is owner:
            return hit[1]
        data = make()
        if len(self._serialized) >= SERIALIZED_KEPT:
            self._serialized.pop(next(iter(self._serialized)))
        self._serialized[key] = (owner, data)
        return data

    def _auth_headers(self) -> dict[str, str]:
        return {}

    @abstractmethod
    def _classify(
        self, status: int, headers: Mapping[str, str], body: bytes, tool_choice: ToolChoice | None
    ) -> ProviderFailure:
        """A non-2xx response as a classified failure. ``tool_choice`` is the choice the request was
        built with (None for requests that are no answer's, such as a batch poll): some servers answer
        forced tool use with an error that only means "not supported" when the request forced it."""

    @functools.cached_property
    def base_url(self) -> httpx.URL:
        """The API's base URL, ending in "/" so a request's path is appended to it (as httpx merges)."""
        url = httpx.URL(self.settings.base_url or self.default_base_url)
        return url if url.raw_path.endswith(b"/") else url.copy_with(raw_path=url.raw_path + b"/")

    def _url(self, path: str) -> httpx.URL:
        """A request path below the base URL as a whole URL, parsed once per path."""
        url = self._urls.get(path)
        if url is None:
            base = self.base_url
            url = base.copy_with(raw_path=base.raw_path + httpx.URL(path).raw_path.lstrip(b"/"))
            if len(self._urls) < 64:  # a run's few paths; a batch's polls each have their own
                self._urls[path] = url
        return url

    def _pool(self) -> list[httpx.AsyncBaseTransport]:
        # httpcore's connection pool scans every connection for every queued request, which grows
        # quadratically with concurrency (3x slower at 64 in flight); several small pools do not.
        # A request goes to a pool's transport, not through an httpx client: the client's layer (URL
        # merging, cookies, auth and redirect hooks a provider does not use) was a fifth of a
        # request's CPU. With a proxy in the environment the client stays, to apply it.
        if not self._pools:
            total = max(1, self.settings.max_connections)
            count = -(-total // CONNECTIONS_PER_CLIENT)
            size = -(-total // count)
            limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
            tls = _tls_context(str(self.base_url))
            if _proxied(self.base_url):
                self._pools = [
                    _ThroughClient(httpx.AsyncClient(limits=limits, verify=tls, follow_redirects=False))
                    for _ in range(count)
                ]
            else:
                self._pools = [httpx.AsyncHTTPTransport(verify=tls, limits=limits) for _ in range(count)]
            self._in_flight = [0] * count
        return self._pools

    async def aclose(self) -> None:
        pools, self._pools = self._pools, []
        for pool in pools:
            await pool.aclose()

    def _scrub(self, text: str) -> str:
        key = self.settings.api_key
        return key.scrub(text) if key is not None else text

    async def _send(self, request: HttpRequest, *, method: str = "POST") -> httpx.Response:
        """Send a prepared request; transport problems become transient ProviderFailures."""
        headers = dict(_DEFAULT_HEADERS)
        for name, value in (*request.headers.items(), *self._auth_headers().items()):
            headers[name.lower()] = value
        index = -1
        try:
            pool = self._pool()  # a base URL httpx cannot parse fails here, as a fatal invalid_request
            index = min(range(len(pool)), key=self._in_flight.__getitem__)  # the least busy pool
            self._in_flight[index] += 1
            outgoing = httpx.Request(
                method,
                self._url(request.path),
                content=request.body if method != "GET" else None,
                headers=headers,
                extensions={"timeout": self._timeout},
            )
            response = await pool[index].handle_async_request(outgoing)
            response.request = outgoing
            try:
                await response.aread()
            finally:
                await response.aclose()
            return response
        except httpx.TimeoutException as error:
            message = f"{type(error).__name__}: no answer within {self.settings.timeout:g}s"
            raise ProviderFailure.transient_failure("timeout", message) from None
        except (httpx.LocalProtocolError, httpx.UnsupportedProtocol, httpx.InvalidURL, UnicodeError) as error:
            # The request cannot be sent as built (a header value, the base URL): no retry fixes that.
            text = f"{type(error).__name__}: {self._scrub(str(error))}"
            raise ProviderFailure.fatal("invalid_request", text) from None
        except httpx.RemoteProtocolError as error:
            text = self._scrub(str(error)) or type(error).__name__
            kind: ErrorKind = "invalid_response" if "incomplete" in text.lower() else "connection"
            raise ProviderFailure.transient_failure(kind, text) from None
        except httpx.ConnectError as error:  # nothing listens there, or the name does not resolve
            text = self._scrub(str(error)) or type(error).__name__
            url = self._scrub(self.settings.base_url or self.default_base_url)
            failure = ProviderFailure.transient_failure(
                "connection", f"cannot connect to the API at {url} ({text}): check the base URL"
            )
            failure.max_attempts = CONNECT_ATTEMPTS
            raise failure from None
        except httpx.TransportError as error:
            text = self._scrub(str(error)) or type(error).__name__
            raise ProviderFailure.transient_failure("connection", f"{type(error).__name__}: {text}") from None
        finally:
            if index >= 0:
                self._in_flight[index] -= 1

    async def _answered(
        self, request: HttpRequest, tool_choice: ToolChoice | None, *, method: str = "POST"
    ) -> tuple[httpx.Response, float]:
        """Send a request and return its 2xx response and latency; any other status is a classified
        ProviderFailure (the one place a response's status is judged)."""
        started = time.perf_counter()
        response = await self._send(request, method=method)
        latency_ms = (time.perf_counter() - started) * 1000
        if not 200 <= response.status_code < 300:
            raise self._classify(response.status_code, response.headers, response.content, tool_choice)
        return response, latency_ms


class OfflineProvider(Provider):
    """A provider that answers in-process (the lexical baseline, replay): no HTTP, no key, no cost."""

    uses_network: ClassVar = False
