"""``mcp-evals serve``: the harness as an MCP server, over stdio or Streamable HTTP.

The server side of the MCP SDK lives here, inside the ``servers`` package (``servers.client`` is the
client side). It only wires tools to ``serve.harness`` and turns an ``McpEvalsError`` into a tool
error, so the rest of the code stays free of SDK types.

Over HTTP on loopback no credential is needed; bound to any other address the server refuses to
start unless ``MCP_EVALS_SERVE_TOKEN`` is set, and then every request must carry it, as
``Authorization: Bearer <token>`` or ``X-API-Key: <token>``.
"""

from __future__ import annotations

import errno
import hmac
import inspect
import ipaddress
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from pydantic import Field, ValidationError
from pydantic.json_schema import SkipJsonSchema

from mcp_evals._version import __version__
from mcp_evals.contract.model import Expect, SnapshotOptions, Step
from mcp_evals.contract.regression import GateResult
from mcp_evals.errors import ConfigError, McpEvalsError
from mcp_evals.provider_registry import FALLBACK, Registered
from mcp_evals.serve.harness import (
    CaseListing,
    CatalogLint,
    ComparisonReport,
    Discovered,
    FixtureValidation,
    Harness,
    RunReport,
    SelectionEval,
    Written,
    runs_anew,
)

T = TypeVar("T")
TOKEN_VARIABLE = "MCP_EVALS_SERVE_TOKEN"
LOOPBACK_NAMES = ("localhost",)
INSTRUCTIONS = (
    "mcp-evals: contract tests for MCP servers. list_cases shows the cases; run_suite or run_case runs "
    "them (each run is recorded); regression_report, compare_results, evaluate_deployment_gate and "
    "generate_html_report read the recorded runs; create_test_case and scaffold_fixture write new cases."
)


class SimulationExpect(Expect):
    """A case file's assertions, as ``create_test_case`` shows them: no ``snapshot``, since a
    simulation's outputs are the case's own ``expected_output`` (a snapshot of them proves nothing)."""

    snapshot: SkipJsonSchema[bool | SnapshotOptions | None] = None


class SimulationStep(Step):
    """A case file's step with the assertions a simulation case can use."""

    expect: SimulationExpect = Field(default_factory=SimulationExpect)


def one_line(text: str | None) -> str:
    """A docstring as a tool description: its lines joined, without the source's indentation."""
    return " ".join(inspect.cleandoc(text or "").split())


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def arguments_message(tool: str, error: ValidationError) -> str:
    """Arguments a client sent that do not fit a tool, said as the CLI says bad input: field, what is
    wrong, the value given (pydantic's own text names its models and links its docs)."""
    parts = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"]) or "(arguments)"
        given = "" if problem["type"] == "missing" else f" (got {shorten(repr(problem.get('input')), 60)})"
        parts.append(f"{where}: {problem['msg'][:1].lower()}{problem['msg'][1:]}{given}")
    return f"{tool}: bad arguments: " + "; ".join(parts)


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def build_server(harness: Harness) -> Any:
    """The MCPServer with every harness tool."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.types import ToolAnnotations

    class Server(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as error:
                if isinstance(error.__cause__, ValidationError) and not isinstance(
                    error, UnexpectedToolError
                ):
                    raise ToolError(arguments_message(name, error.__cause__)) from error.__cause__
                raise

    server = Server("mcp-evals", version=__version__, instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    runs = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)

    def tool(annotations: ToolAnnotations) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """``server.tool``, with the docstring as a one-line description (the SDK keeps its indentation)."""

        def register(function: Callable[..., T]) -> Callable[..., T]:
            server.tool(annotations=annotations, description=one_line(function.__doc__))(function)
            return function

        return register

    # A refusal or bad input is a tool error the client reads, never a crash of the server.
    async def guarded(call: Callable[[], Awaitable[T]]) -> T:
        try:
            return await call()
        except McpEvalsError as error:
            raise ToolError(str(error)) from None

    def guard(call: Callable[[], T]) -> T:
        try:
            return call()
        except McpEvalsError as error:
            raise ToolError(str(error)) from None

    @tool(runs)
    async def run_suite() -> RunReport:
        """Run the whole suite: every contract case once (live against its server, or simulated); record
        the run and return the pass/fail summary with its run_id."""
        return await guarded(harness.run_suite)

    @tool(runs)
    async def run_case(name: Annotated[str, Field(description="The case's `name`.")]) -> RunReport:
        """Run one contract case by name and record the run."""
        return await guarded(lambda: harness.run_case(name))

    @tool(read_only)
    async def list_cases() -> CaseListing:
        """List the contract cases: name, description, mode (live or simulation), step count, tools."""
        return guard(harness.list_cases)

    @tool(writes)
    async def create_test_case(
        name: Annotated[str, Field(description="Unique case name; it also names the file.")],
        steps: Annotated[
            list[SimulationStep], Field(min_length=1, description="The steps, as in a case file.")
        ],
        description: Annotated[str | None, Field(description="What the case proves.")] = None,
    ) -> Written:
        """Write a new simulation case (outputs come from each step's expected_output) to the cases folder."""
        dumped = [step.model_dump(mode="json", exclude_unset=True) for step in steps]
        return guard(lambda: harness.create_test_case(name, description, dumped))

    @tool(writes)
    async def scaffold_fixture(
        name: Annotated[str, Field(description="Case name; it also names the file.")],
        tool_names: Annotated[list[str], Field(min_length=1, description="One step per tool, in order.")],
    ) -> Written:
        """Scaffold a case file (a fixture) to fill in: one step per tool, each assertion kind a comment."""
        return await guarded(lambda: harness.scaffold_fixture(name, tool_names))

    @tool(read_only)
    async def regression_report() -> ComparisonReport:
        """The latest recorded run against each case's previous result: regressions and fixes."""
        return guard(harness.regression_report)

    @tool(read_only)
    async def compare_results(
        run_id_a: Annotated[str, Field(description="The earlier run.")],
        run_id_b: Annotated[str, Field(description="The later run.")],
    ) -> ComparisonReport:
        """Compare two recorded runs of one suite, case by case."""
        return guard(lambda: harness.compare_results(run_id_a, run_id_b))

    @tool(writes)
    async def generate_html_report(run_id: Annotated[str, Field(description="A recorded run.")]) -> Written:
        """Write the single-file HTML report of a recorded run to the reports folder."""
        return guard(lambda: harness.generate_html_report(run_id))

    @tool(read_only)
    async def evaluate_deployment_gate(
        min_pass_rate: Annotated[
            float, Field(ge=0, le=1, description="Lowest share of passing cases (0–1).")
        ],
        workflow_name: Annotated[str | None, Field(description="The suite (default: this config's).")] = None,
        lookback_runs: Annotated[
            int, Field(ge=1, description="How many of the latest runs to judge on.")
        ] = 10,
    ) -> GateResult:
        """Deployment gate: do the cases of the latest runs pass at least min_pass_rate of the time?"""
        return guard(lambda: harness.evaluate_deployment_gate(workflow_name, min_pass_rate, lookback_runs))

    @tool(read_only)
    async def discover_fixtures(
        dirs: Annotated[
            list[str] | None,
            Field(description="Folders to search; empty: the cases folder and FIXTURE_LIBRARY_DIRS."),
        ] = None,
    ) -> Discovered:
        """Discover contract case files (fixtures) in folders, with their names and step counts."""
        return guard(lambda: harness.discover_fixtures(dirs))

    @tool(read_only)
    async def validate_fixtures() -> FixtureValidation:
        """Check the tool-selection fixtures against the live catalog (`mcp-evals validate`): free."""
        return await guarded(harness.validate_fixtures)

    @tool(read_only)
    async def lint_catalog() -> CatalogLint:
        """Lint the live tool catalog and the fixtures (`mcp-evals lint`): free, no model."""
        return await guarded(harness.lint_catalog)

    @tool(runs)
    async def run_selection_eval(
        provider: Annotated[
            str,
            Registered(runs_anew),
            Field(description="`lexical` is free; the others need their key and budget_usd."),
        ] = FALLBACK,
        model: Annotated[str | None, Field(description="Model id (default: the provider's).")] = None,
        budget_usd: Annotated[
            float | None, Field(gt=0, description="Most the run may spend; required by paid providers.")
        ] = None,
        limit: Annotated[int | None, Field(ge=1, description="Only the first N fixtures.")] = None,
    ) -> SelectionEval:
        """Run the tool-selection eval (`mcp-evals run`). A paid provider never runs without budget_usd."""
        return await guarded(lambda: harness.run_selection_eval(provider, model, budget_usd, limit))

    return server


class RequireToken:
    """ASGI middleware: every HTTP request needs the token, as a bearer token or an X-API-Key header."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.bearer = f"Bearer {token}".encode()
        self.key = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            given_bearer = headers.get(b"authorization", b"")
            given_key = headers.get(b"x-api-key", b"")
            if not (
                hmac.compare_digest(given_bearer, self.bearer) or hmac.compare_digest(given_key, self.key)
            ):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": b'{"error":"missing or wrong token"}'})
                return
        await self.app(scope, receive, send)


def serve_http(harness: Harness, host: str, port: int, token: str | None) -> None:
    """Streamable HTTP at ``/mcp``; a host beyond loopback needs a token."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"--host {host} is reachable beyond this machine: set {TOKEN_VARIABLE} so every request needs it",
            hint=f"export {TOKEN_VARIABLE}=… (clients send `Authorization: Bearer …` or `X-API-Key: …`), "
            "or serve on 127.0.0.1",
        )
    import uvicorn

    listening = bind(host, port)  # ours, so a busy port is one clear message, not uvicorn's log
    app: Any = build_server(harness).streamable_http_app(host=host)
    if token:
        app = RequireToken(app, token)
    shown = f"[{host}]" if ":" in host else host
    print(
        f"mcp-evals serve: Streamable HTTP at http://{shown}:{port}/mcp (Ctrl-C to stop)",
        file=sys.stderr,
        flush=True,
    )
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    server.run(sockets=[listening])


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or bad input naming the address when it cannot be had (in use, no such
    address, a privileged port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host.strip("[]"), port), family=family, reuse_port=False)
    except OSError as error:
        busy = error.errno == errno.EADDRINUSE
        raise ConfigError(
            f"--http-port {port}: cannot listen on {host}:{port} "
            f"({'another program already uses it' if busy else error.strerror or error})",
            hint="choose another --http-port" if busy else "check --host and --http-port",
        ) from None


def serve_stdio(harness: Harness) -> None:
    build_server(harness).run()
