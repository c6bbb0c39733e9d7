"""One scrubber takes secrets out of every message: as written, stripped, escaped, as bytes."""

from __future__ import annotations

from mcp_evals.config.model import Config
from mcp_evals.providers.base import Secret
from mcp_evals.redact import scrub
from mcp_evals.servers.http import _HttpOpening


def test_every_form_of_a_secret_is_scrubbed() -> None:
    token = "Bearer s3cr3t-tok\n"
    text = (
        "LocalProtocolError: Illegal header value b'Bearer s3cr3t-tok\\n' "
        "(also 'Bearer s3cr3t-tok\\n' and Bearer s3cr3t-tok)"
    )
    assert "s3cr3t" not in scrub(text, [token])
    assert scrub("nothing to hide", [token, "", "  "]) == "nothing to hide"
    assert "sk-ant-123" not in Secret("sk-ant-123").scrub("bad key sk-ant-123")


def test_an_http_server_error_never_shows_its_headers_or_url_query(
    monkeypatch: object,
) -> None:
    config = Config.model_validate(
        {
            "servers": [
                {
                    "name": "remote",
                    "url": "https://user:pw1234@example.test/mcp?key=q-secret-77",
                    "headers": {"Authorization": "Bearer h-secret-99"},
                }
            ]
        }
    )
    opening = _HttpOpening(config.servers[0], config)
    message = opening.scrub(
        "failed: Illegal header value b'Bearer h-secret-99' for https://user:pw1234@example.test/mcp?key=q-secret-77"
    )
    for secret in ("h-secret-99", "q-secret-77", "pw1234"):
        assert secret not in message
    assert opening.shown == "https://example.test/mcp"
