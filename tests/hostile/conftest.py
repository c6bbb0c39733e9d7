"""Projects on a hostile stdio server (tests/servers/hostile_server.py) that lists whatever tools a
test gives it, and a loopback HTTP server that records every request it gets (a fetch we must never make)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from support.catalog_helpers import PYTHON, SERVERS

HOSTILE_SERVER = SERVERS / "hostile_server.py"


@dataclass
class Hits:
    """A loopback HTTP server answering every GET with a schema, remembering each path asked for."""

    base_url: str
    paths: list[str] = field(default_factory=list)


@pytest.fixture
def hits() -> Iterator[Hits]:
    recorded: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            recorded.append(self.path)
            body = json.dumps({"type": "integer"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Hits(f"http://127.0.0.1:{server.server_address[1]}", recorded)
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class HostileProject:
    """A folder with an mcp-evals.yaml whose one server, `raw`, lists the tools of spec.json."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "mcp-evals.yaml"

    @property
    def spec(self) -> Path:
        return self.root / "spec.json"

    def server_block(self) -> dict[str, Any]:
        return {"command": PYTHON, "args": [str(HOSTILE_SERVER), str(self.spec)]}

    def serve(self, tools: list[dict[str, Any]], **spec: Any) -> HostileProject:
        # ensure_ascii: a lone surrogate is written as the JSON escape a hostile server would send
        self.spec.write_text(json.dumps({"tools": tools, **spec}, ensure_ascii=True), "utf-8")
        return self

    def configure(self, fixtures: list[dict[str, Any]] | None = None, **sections: Any) -> Path:
        document: dict[str, Any] = {
            "servers": [{"name": "raw", **self.server_block(), "timeout": 10}],
            "fixtures": "fixtures/*.yaml",
            **sections,
        }
        self.config.write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
        (self.root / "fixtures").mkdir(exist_ok=True)
        if fixtures is not None:
            (self.root / "fixtures" / "main.yaml").write_text(
                yaml.safe_dump({"fixtures": fixtures}, sort_keys=False), "utf-8"
            )
        return self.config

    def case(self, name: str, steps: list[dict[str, Any]]) -> Path:
        folder = self.root / "evals" / "contract"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump({"name": name, "steps": steps}, sort_keys=False), "utf-8")
        return path

    def tasks(self, tasks: list[dict[str, Any]], **extra: Any) -> Path:
        document: dict[str, Any] = {
            "name": "hostile",
            "system_prompt": "You help.",
            "server": self.server_block(),
            "timeouts": {"step_seconds": 5, "session_seconds": 30},
            "tasks": tasks,
            **extra,
        }
        path = self.root / "tasks.yaml"
        path.write_text(json.dumps(document, indent=2), "utf-8")
        return path

    def pids(self) -> list[int]:
        path = Path(f"{self.spec}.pids")
        return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.fixture
def hostile(tmp_path: Path) -> HostileProject:
    return HostileProject(tmp_path)


def tool(name: str, properties: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A wire-shape tool with these parameters (all required)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if properties:
        schema["required"] = list(properties)
    return {"name": name, "description": f"Do {name} with the given values.", "inputSchema": schema, **extra}
