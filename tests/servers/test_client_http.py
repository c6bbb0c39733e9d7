"""Reading a catalog over HTTP: Streamable HTTP behind a bearer token, legacy SSE, and clear failures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import one_worker
from mcp_evals import ServerError, extract_catalog
from mcp_evals.errors import ConfigError
from support.catalog_helpers import (
    HELPDESK_SERVER,
    PYTHON,
    SERVERS,
    free_port,
    independent_listing,
    serve_http,
    write_config,
)

# the module-scoped servers: started once, on one worker
pytestmark = one_worker(__name__)

TOKEN = "helpdesk-test-token-3f9a"


@pytest.fixture(scope="module")
def helpdesk_url() -> Iterator[str]:
    """The bundled example server on loopback, Streamable HTTP at /mcp, bearer token required."""
    port = free_port()
    argv = [PYTHON, HELPDESK_SERVER, "--http", "--host", "127.0.0.1", "--port", str(port)]
    with serve_http(argv, port, env={"HELPDESK_TOKEN": TOKEN}) as base:
        yield f"{base}/mcp"


@pytest.fixture(scope="module")
def sse_only_base() -> Iterator[str]:
    """A server that speaks only the legacy SSE transport (GET /sse; a POST to /mcp is a 404)."""
    port = free_port()
    with serve_http([PYTHON, SERVERS / "toy_server.py", "--sse", str(port)], port) as base:
        yield base


def test_streamable_http_with_the_right_token(
    tmp_path: Path, helpdesk_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HELPDESK_TEST_TOKEN", TOKEN)
    server = {
        "name": "helpdesk",
        "url": helpdesk_url,
        "headers": {"Authorization": "Bearer ${HELPDESK_TEST_TOKEN}"},
    }
    catalog = extract_catalog(write_config(tmp_path, [server]))
    info = catalog.servers[0]
    assert info.transport == "streamable-http"
    assert info.protocol_version
    assert info.server_name
    # The same tools the example publishes over stdio, read by the SDK's own client.
    reference = independent_listing(PYTHON, [str(HELPDESK_SERVER)])
    assert sorted(catalog.tool_names) == sorted(tool["name"] for tool in reference["tools"])
    assert len(catalog.tools) >= 12


@pytest.mark.parametrize(
    "headers",
    [{"Authorization": "Bearer wrong-token"}, {}],
    ids=["wrong token", "no token"],
)
def test_streamable_http_with_a_wrong_or_missing_token_is_a_clear_error(
    tmp_path: Path, helpdesk_url: str, headers: dict[str, str]
) -> None:
    config = write_config(tmp_path, [{"name": "helpdesk", "url": helpdesk_url, "headers": headers}])
    with pytest.raises(ServerError) as caught:
        extract_catalog(config)
    message = str(caught.value)
    assert message.startswith(f"server 'helpdesk': HTTP 401 Unauthorized from {helpdesk_url}")
    assert "refused our credentials" in message
    assert caught.value.hint is not None and caught.value.hint.startswith("check `headers:`")
    assert "ExceptionGroup" not in message and "wrong-token" not in message


def test_an_unset_token_variable_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_EVALS_TEST_NO_TOKEN", raising=False)
    server = {
        "name": "remote",
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"Authorization": "Bearer ${MCP_EVALS_TEST_NO_TOKEN}"},
    }
    unset = r"mcp-evals.yaml:\d+ \(servers\[0\]\.headers\.Authorization\): environment variable"
    with pytest.raises(ConfigError, match=unset):
        extract_catalog(write_config(tmp_path, [server]))


def test_an_unset_variable_in_the_url_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCP_EVALS_TEST_NO_HOST", raising=False)
    server = {"name": "remote", "url": "http://${MCP_EVALS_TEST_NO_HOST}/mcp"}
    unset = r"mcp-evals.yaml:\d+ \(servers\[0\]\.url\): environment variable MCP_EVALS_TEST_NO_HOST is not"
    with pytest.raises(ConfigError, match=unset):
        extract_catalog(write_config(tmp_path, [server]))


def test_a_refused_connection_is_a_clear_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"  # nothing listens there
    refused = r"cannot connect to .*\n  hint: is the server running\? Check `url:`"
    with pytest.raises(ServerError, match=refused):
        extract_catalog(write_config(tmp_path, [{"name": "remote", "url": url, "timeout": 5}]))


def test_an_sse_only_server_is_read_through_the_fallback(tmp_path: Path, sse_only_base: str) -> None:
    catalog = extract_catalog(write_config(tmp_path, [{"name": "toy", "url": f"{sse_only_base}/sse"}]))
    assert catalog.servers[0].transport == "sse"
    assert sorted(catalog.tool_names) == ["echo", "environment", "files.read"]
    explicit = extract_catalog(
        write_config(tmp_path, [{"name": "toy", "url": f"{sse_only_base}/sse", "transport": "sse"}])
    )
    assert explicit.hash == catalog.hash


def test_streamable_http_only_does_not_fall_back(tmp_path: Path, sse_only_base: str) -> None:
    server = {"name": "toy", "url": f"{sse_only_base}/sse", "transport": "streamable-http"}
    with pytest.raises(ServerError, match=r"HTTP 405 for the Streamable HTTP POST"):
        extract_catalog(write_config(tmp_path, [server]))


def test_a_wrong_path_names_both_attempts(tmp_path: Path, sse_only_base: str) -> None:
    with pytest.raises(ServerError) as caught:
        extract_catalog(write_config(tmp_path, [{"name": "toy", "url": f"{sse_only_base}/nothing"}]))
    message = str(caught.value)
    assert "HTTP 404" in message
    assert "the Streamable HTTP POST before it got HTTP 404" in message
    assert "check the URL path" in message


def test_printed_urls_hide_credentials_and_queries(tmp_path: Path, sse_only_base: str) -> None:
    url = sse_only_base.replace("http://", "http://user:hunter2@") + "/nothing?api_key=s3cret"
    with pytest.raises(ServerError) as caught:
        extract_catalog(write_config(tmp_path, [{"name": "toy", "url": url}]))
    assert "hunter2" not in str(caught.value) and "s3cret" not in str(caught.value)
