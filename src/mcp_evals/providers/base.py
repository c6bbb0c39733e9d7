"""The provider interface: build a request, parse a response, classify an error.

A provider knows one API's wire format and nothing else. The runner owns retries (tenacity),
concurrency, budgets, the results file and the decision to stop. Every failure a provider sees
becomes a ``ProviderFailure`` with an ``ErrorKind`` and a verdict — *transient* (retry, maybe after
``retry_after`` seconds) or *fatal* (stop dispatching) — so that no infrastructure failure is ever
mistaken for a wrong tool choice.

    ProviderFailure.transient(kind, message)       retry (after the backoff)
    ProviderFailure.rate_limited(message, after)   retry after ``after`` seconds (a 429)
    ProviderFailure.fatal(kind, message)           stop dispatching: no later request can succeed
    ProviderFailure.final_for_fixture(kind, …)     no retry, but the run goes on (a replay miss)
    ProviderFailure.forced_tool_choice_rejected(…) the model refuses forced tool use: fall back once

Each provider also owns its vocabulary: it turns its API's stop reasons into ``Answer.truncated``
and says through class flags what the API can do (``supports_batch``, ``reports_cache_usage``), so
the runner never asks which provider it is talking to.

Keys live in a ``Secret`` (masked in ``repr``), are read from the environment only, and are added
to the headers at send time, so nothing that is logged, recorded or raised carries them.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal

import httpx

from mcp_evals.answers import ErrorKind, ProviderName, Retrieval, ToolCall, ToolChoiceMode, Usage
from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.errors import ConfigError
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.turns import Turn, TurnResult
from mcp_evals.redact import scrub

CONNECTIONS_PER_CLIENT = 8
ONE_TOOL_INSTRUCTION = "Answer by calling exactly one of the available tools. Do not answer in text."


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
    """Everything a provider needs besides the catalog and the system prompt."""

    model: str
    base_url: str = ""
    api_key: Secret | None = None
    timeout: float = 60.0
    max_tokens: int = 1024
    temperature: float | None = None
    anthropic_version: str = "2023-06-01"
    prompt_caching: bool = True
    max_connections: int = 16
    lexical_strictness: float = 0.25


@dataclass(frozen=True)
class ToolSearch:
    """How a deferred catalog is searched (``mcp-evals compare``'s deferred arm).

    ``variant``: Anthropic's server-side search tool (``bm25`` or ``regex``); ``top_k``: tools a
    client-side search (OpenAI-compatible providers) reveals; ``beta``: an ``anthropic-beta`` header
    to send with it, for an endpoint that still has tool search behind one.
    """

    variant: Literal["bm25", "regex"] = "bm25"
    top_k: int = 5
    beta: str | None = None


@dataclass(frozen=True, eq=False)
class Job:
    """One request to make: a fixture and which of its samples (compared by identity)."""

    fixture: Fixture
    sample: int = 0


@dataclass(frozen=True)
class HttpRequest:
    """A prepared request: path below the base URL, headers (no credentials) and the exact body."""

    path: str
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Answer:
    """What the model said: tool calls in order (MCP names), text, stop reason, usage."""

    calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    request_id: str | None = None
    latency_ms: float = 0.0
    mode: ToolChoiceMode | None = None  # set only when the provider knows better (replay)
    truncated: bool = False  # cut off (max_tokens, the context window) before the model finished
    message: Any = None  # the assistant turn as the API returned it, to continue the conversation
    retrieval: Retrieval | None = (
        None  # how the tools reached the model (compare's deferred and grouped arms)
    )


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


# -- sessions: several turns of tool use (``mcp-evals session``) -------------------------------------


class Provider(ABC):
    """One model API. Subclasses implement the three pure methods; ``answer`` does the HTTP."""

    name: ClassVar[ProviderName]
    default_base_url: ClassVar[str] = ""
    uses_network: ClassVar[bool] = True
    lexical: bool = False  # the lexical baseline (and a replay of one): never gates
    label: ClassVar[str] = ""

    def __init__(self, settings: ProviderSettings, catalog: Catalog, system_prompt: str) -> None:
        self.settings = settings
        self.catalog = catalog
        self.system_prompt = system_prompt
        self._clients: list[httpx.AsyncClient] = []
        self._in_flight: list[int] = []

    # -- the interface ---------------------------------------------------------------------------

    def mode_for(self, fixture: Fixture, *, forced_rejected: bool) -> ToolChoiceMode | None:
        """``select`` fixtures force a tool call; refuse/clarify fixtures must be free not to call one."""
        if fixture.kind != "select":
            return "auto"
        return "auto_instructed" if forced_rejected else "forced"

    @abstractmethod
    def build_request(self, fixture: Fixture, mode: ToolChoiceMode | None) -> HttpRequest:
        """The exact request for one fixture (pure; no credentials)."""

    @abstractmethod
    def parse_response(self, status: int, headers: Mapping[str, str], body: bytes) -> Answer:
        """Turn a 2xx response into an Answer; raise ProviderFailure when the body is unusable."""

    @abstractmethod
    def classify_error(
        self, status: int, headers: Mapping[str, str], body: bytes, *, mode: ToolChoiceMode | None = None
    ) -> ProviderFailure:
        """Turn a non-2xx response into a classified failure.

        ``mode`` is the tool choice the request was built with (None for requests that are no
        fixture's, such as a batch poll): some servers answer forced tool use with an error that only
        means "not supported" when the request forced it.
        """

    def auth_headers(self) -> dict[str, str]:
        return {}

    def notes(self) -> list[str]:
        """What a report must say about how this provider was used (e.g. a setting it could not send)."""
        return []

    @property
    def caching(self) -> bool:
        """Whether requests mark a cacheable prefix (the runner warms the cache with one request first)."""
        return False

    def serialize_prefix(self) -> tuple[bytes, bytes]:
        """(tools, system) as the request carries them: the part that is the same for every fixture."""
        return b"", b""

    @cached_property
    def prefix_parts(self) -> tuple[bytes, bytes]:
        """``serialize_prefix`` once per run, so the cached prefix is byte-identical across fixtures."""
        return self.serialize_prefix()

    def cache_prefix(self) -> bytes:
        tools, system = self.prefix_parts
        return tools + system

    def input_schema(self, tool: Tool) -> dict[str, Any]:
        """The tool's input schema as published; APIs need ``type: object``, so it is added if missing."""
        schema = dict(tool.input_schema)
        return schema if "type" in schema else {"type": "object", **schema}

    # -- sessions: a conversation of tool calls and results (``mcp-evals session``) ----------------
    #
    # ``messages`` are in the API's own shape; a session starts with ``opening_turn`` and grows by
    # ``tool_results_turn`` after each answer. The tools are this provider's catalog, the system
    # prompt its own: a session arm is a provider made with the arm's catalog and prompt.

    supports_turns: ClassVar[bool] = False

    def opening_turn(self, prompt: str) -> list[Any]:
        """The messages that start a session: the user's task."""
        return [{"role": "user", "content": prompt}]

    def build_turn_request(self, messages: Sequence[Any]) -> HttpRequest:
        """The request for the next turn of a conversation, with every catalog tool (pure)."""
        raise NotImplementedError(f"{self.name} holds no session")

    def parse_turn(self, status: int, headers: Mapping[str, str], body: bytes) -> Turn:
        """Turn a 2xx response into a Turn; raise ProviderFailure when the body is unusable."""
        raise NotImplementedError(f"{self.name} holds no session")

    def tool_results_turn(self, turn: Turn, results: Sequence[TurnResult]) -> list[Any]:
        """The messages that follow ``turn``: the turn itself, then one result per call, in order."""
        raise NotImplementedError(f"{self.name} holds no session")

    def scripted_turn(self, calls: Sequence[tuple[str, str, dict[str, Any]]], text: str = "") -> Turn:
        """A turn in this API's shape that nobody asked a model for: ``(id, MCP tool name, arguments)``
        calls, or a final text (``--dry`` plays a task's script with it)."""
        raise NotImplementedError(f"{self.name} holds no session")

    async def send_turn(self, request: HttpRequest) -> Turn:
        """Send one turn's request (one attempt; the caller retries) and parse the answer."""
        response, latency_ms = await self._answered(request, mode=None)
        turn = self.parse_turn(response.status_code, response.headers, response.content)
        turn.latency_ms = latency_ms
        return turn

    # -- HTTP --------------------------------------------------------------------------------------

    @property
    def client(self) -> httpx.AsyncClient:
        """The first HTTP client (for single calls such as batch polls)."""
        return self._pool()[0]

    def _pool(self) -> list[httpx.AsyncClient]:
        # httpcore's connection pool scans every connection for every queued request, which grows
        # quadratically with concurrency (3x slower at 64 in flight); several small pools do not.
        if not self._clients:
            total = max(1, self.settings.max_connections)
            count = -(-total // CONNECTIONS_PER_CLIENT)
            size = -(-total // count)
            limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
            self._clients = [
                httpx.AsyncClient(
                    base_url=self.settings.base_url or self.default_base_url,
                    timeout=httpx.Timeout(self.settings.timeout, connect=min(10.0, self.settings.timeout)),
                    limits=limits,
                    follow_redirects=False,
                )
                for _ in range(count)
            ]
            self._in_flight = [0] * count
        return self._clients

    async def aclose(self) -> None:
        clients, self._clients = self._clients, []
        for client in clients:
            await client.aclose()

    def scrub(self, text: str) -> str:
        key = self.settings.api_key
        return key.scrub(text) if key is not None else text

    async def send(self, request: HttpRequest, *, method: str = "POST") -> httpx.Response:
        """Send a prepared request; transport problems become transient ProviderFailures."""
        headers = {**request.headers, **self.auth_headers()}
        pool = self._pool()
        index = min(range(len(pool)), key=self._in_flight.__getitem__)  # the least busy client
        self._in_flight[index] += 1
        try:
            return await pool[index].request(
                method, request.path, content=request.body if method != "GET" else None, headers=headers
            )
        except httpx.TimeoutException as error:
            message = f"{type(error).__name__}: no answer within {self.settings.timeout:g}s"
            raise ProviderFailure.transient_failure("timeout", message) from None
        except (httpx.LocalProtocolError, httpx.UnsupportedProtocol, httpx.InvalidURL, UnicodeError) as error:
            # The request cannot be sent as built (a header value, the base URL): no retry fixes that.
            text = f"{type(error).__name__}: {self.scrub(str(error))}"
            raise ProviderFailure.fatal("invalid_request", text) from None
        except httpx.RemoteProtocolError as error:
            text = self.scrub(str(error)) or type(error).__name__
            kind: ErrorKind = "invalid_response" if "incomplete" in text.lower() else "connection"
            raise ProviderFailure.transient_failure(kind, text) from None
        except httpx.TransportError as error:
            text = self.scrub(str(error)) or type(error).__name__
            raise ProviderFailure.transient_failure("connection", f"{type(error).__name__}: {text}") from None
        finally:
            self._in_flight[index] -= 1

    async def answer(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        """Ask the model about one fixture (one attempt; the runner retries)."""
        return await self.exchange(self.build_request(job.fixture, mode), mode=mode)

    async def exchange(self, request: HttpRequest, *, mode: ToolChoiceMode | None = None) -> Answer:
        """Send one prepared request and parse its answer (a non-2xx is a classified ProviderFailure).

        ``mode`` is the tool choice the request was built with: a provider may read an error in its
        light (an OpenAI-compatible 500 to a forced request is a forced-tool rejection)."""
        response, latency_ms = await self._answered(request, mode=mode)
        answer = self.parse_response(response.status_code, response.headers, response.content)
        answer.latency_ms = latency_ms
        return answer

    async def _answered(
        self, request: HttpRequest, *, mode: ToolChoiceMode | None
    ) -> tuple[httpx.Response, float]:
        """Send a request and return its 2xx response and latency; any other status is a classified
        ProviderFailure (the one place a response's status is judged)."""
        started = time.perf_counter()
        response = await self.send(request)
        latency_ms = (time.perf_counter() - started) * 1000
        if not 200 <= response.status_code < 300:
            raise self.classify_error(response.status_code, response.headers, response.content, mode=mode)
        return response, latency_ms

    # -- conversations: free text (synth) and several requests for one fixture (compare's arms) ------
    #
    # A provider that can hold a conversation implements these; the callers never see its wire format.
    # ``tools`` are definitions in this API's shape (``catalog_tool``, ``function_tool``); ``history``
    # is what follows the user's query (``tool_result_turn``).

    supports_conversation: ClassVar[bool] = False
    # Searches a deferred catalog on the server (Anthropic's tool search): ``tool_search_answer``.
    supports_tool_search: ClassVar[bool] = False

    @property
    def tool_search_requests(self) -> int:
        """The most requests one ``tool_search_answer`` can send (a paused turn is sent back): what
        the budget reserves for it."""
        return 1

    def text_request(self, system: str, user: str) -> HttpRequest:
        """A request with no tools: a system prompt and one user message (the answer is text)."""
        raise NotImplementedError(f"{self.name} cannot be asked for text")

    def catalog_tool(self, tool: Tool) -> dict[str, Any]:
        """One catalog tool's definition, as ``build_request`` sends it (provider-safe name)."""
        raise NotImplementedError(f"{self.name} holds no conversation")

    def function_tool(self, name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
        """A tool of our own (a search or router tool) in this API's shape."""
        raise NotImplementedError(f"{self.name} holds no conversation")

    def turn_request(
        self,
        fixture: Fixture,
        mode: ToolChoiceMode | None,
        tools: list[dict[str, Any]],
        history: list[Any] | None = None,
        *,
        cache: bool = False,
    ) -> HttpRequest:
        """The fixture's query with these tools (and what followed it); ``cache`` marks the tools."""
        raise NotImplementedError(f"{self.name} holds no conversation")

    def tool_result_turn(self, answer: Answer, text: str) -> list[Any]:
        """The messages that answer the first tool call of ``answer`` with ``text``."""
        raise NotImplementedError(f"{self.name} holds no conversation")

    async def tool_search_answer(self, job: Job, mode: ToolChoiceMode | None, search: ToolSearch) -> Answer:
        """The fixture asked with the whole catalog deferred behind the API's own tool search."""
        raise NotImplementedError(f"{self.name} has no server-side tool search")

    async def count_tokens(self, request: HttpRequest) -> int | None:
        """Exact input tokens of a request when the API offers a free count; None otherwise."""
        return None

    supports_batch: ClassVar[bool] = False  # has a batch interface (``run_batch``)
    # The API's usage says what was cached, and it caches only prefixes above a model's minimum:
    # the run warns when nothing was cached.
    reports_cache_usage: ClassVar[bool] = False

    async def run_batch(self, host: Any, jobs: list[Job]) -> None:
        """Run ``jobs`` through the API's batch interface, recording through ``host`` (a ``BatchHost``)."""
        raise NotImplementedError(f"{self.name} has no batch interface")

    # -- helpers for subclasses ----------------------------------------------------------------

    def tool_call(self, provider_name: str, arguments: Any, raw_arguments: str | None = None) -> ToolCall:
        mcp_name = self.catalog.names.mcp(provider_name)
        return ToolCall(
            name=mcp_name if mcp_name is not None else provider_name,
            provider_name=provider_name,
            known=mcp_name is not None,
            arguments=arguments if isinstance(arguments, dict) else None,
            raw_arguments=raw_arguments,
        )

    def token_count(self, usage: Mapping[str, Any], key: str, request_id: str | None = None) -> int:
        """``usage[key]`` as a token count: absent is 0; anything but a whole number ≥ 0 is a malformed
        answer (a dropout, retried), never a crash and never a cost of our own making."""
        value = usage.get(key)
        if value is None:
            return 0
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or value != int(value):
            raise self.invalid_response(
                f"usage.{key} is not a token count ({type(value).__name__})", request_id
            )
        return int(value)

    def invalid_response(self, message: str, request_id: str | None = None) -> ProviderFailure:
        return ProviderFailure.transient_failure("invalid_response", message, request_id=request_id)


class OfflineProvider(Provider):
    """A provider that answers in-process (the lexical baseline, replay): no HTTP, no key, no cost."""

    uses_network: ClassVar = False

    def build_request(self, fixture: Fixture, mode: ToolChoiceMode | None) -> HttpRequest:
        raise NotImplementedError(f"{self.name} sends no request")

    def parse_response(self, status: int, headers: Mapping[str, str], body: bytes) -> Answer:
        raise NotImplementedError(f"{self.name} receives no response")

    def classify_error(
        self, status: int, headers: Mapping[str, str], body: bytes, *, mode: ToolChoiceMode | None = None
    ) -> ProviderFailure:
        raise NotImplementedError(f"{self.name} sees no HTTP errors")

    def mode_for(self, fixture: Fixture, *, forced_rejected: bool) -> ToolChoiceMode | None:
        return None  # no tool_choice: the provider itself decides whether to call

    @abstractmethod
    async def answer(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        """The answer to one fixture, computed here."""
