"""``mcp-evals ARGS…`` in the test's own process, isolated as its own process would be.

A subprocess costs a fresh interpreter and its imports (``mcp`` alone is about a second) for every
call; in this process the second call is nearly free. What a process would not share with the test
is set up and put back around the call: the environment (replaced whole, when given), the working
folder, stdin (empty), stdout and stderr (captured apart, not a terminal), the SIGINT/SIGTERM
handlers, and the module state a fresh process starts without (the input-file registry of
``files.py``, the umask read once, the patterns that already timed out).

Not isolated, so such tests keep a real subprocess (``run_cli_process``): what the command's own
children write straight to the inherited file descriptors (``action build``), signals sent to the
command, ``python -m mcp_evals`` itself, plugins found through a changed ``sys.path``, and a test
whose thread already runs an event loop (Playwright's sync API in the browser tests: the CLI starts
its own, so ``run_in_process`` refuses).
"""

from __future__ import annotations

import asyncio
import io
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_evals import files, patterns
from mcp_evals.cli import main


@dataclass
class Ran:
    """What a user would see: the exit status and both streams, as bytes decoded by the caller."""

    code: int
    out: bytes
    err: bytes

    def text(self) -> tuple[str, str]:
        """stdout and stderr as text, exactly as written (no newline translation)."""
        return self.out.decode("utf-8", "surrogateescape"), self.err.decode("utf-8", "surrogateescape")


def _fresh_module_state() -> None:
    """What a new process starts without (``files.py``'s registry is also emptied by the CLI itself)."""
    files.forget_inputs()
    files._new_file_mode.cache_clear()
    patterns._TIMED_OUT.clear()


@contextmanager
def _environment(environ: Mapping[str, str] | None) -> Iterator[None]:
    if environ is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def _working_folder(cwd: str | Path | None) -> Iterator[None]:
    if cwd is None:
        yield
        return
    saved = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved)


@contextmanager
def _signal_handlers() -> Iterator[None]:
    """The CLI routes SIGTERM to the SIGINT handling (``cli/stop.py``): the test's handlers come back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


@contextmanager
def _streams(out: io.BytesIO, err: io.BytesIO) -> Iterator[None]:
    """stdout and stderr as a pipe would take them (UTF-8, the interpreter's error handlers), stdin at
    its end; ``sys.__stdout__`` too, so the terminal size is the fallback's, as in a subprocess."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    out_errors = getattr(sys.__stdout__, "errors", None) or "strict"
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors=out_errors, write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
    saved = (sys.stdin, sys.stdout, sys.stderr, sys.__stdout__)
    sys.stdin, sys.stdout, sys.stderr, sys.__stdout__ = io.StringIO(""), stdout, stderr, stdout
    try:
        yield
    finally:
        stdout.flush()
        stderr.flush()
        sys.stdin, sys.stdout, sys.stderr, sys.__stdout__ = saved
        stdout.detach()
        stderr.detach()


def run_in_process(
    args: Sequence[str | Path],
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    uncaught: bool = False,
) -> Ran:
    """Run the real entry point (``mcp_evals.cli.main``) with ``args``.

    ``environ`` replaces the environment for the call (None: the test's own, as it is); with
    ``uncaught`` an exception escaping ``main`` becomes what the interpreter would make of it (its
    traceback on stderr, exit status 1) instead of failing the test where it was raised.
    """
    if _event_loop_running():
        raise RuntimeError("an event loop runs in this thread (Playwright's sync API?): use run_cli_process")
    out, err = io.BytesIO(), io.BytesIO()
    code = 0
    with ExitStack() as stack:
        stack.enter_context(_environment(environ))
        stack.enter_context(_working_folder(cwd))
        stack.enter_context(_signal_handlers())
        stack.enter_context(_streams(out, err))
        _fresh_module_state()
        try:
            main([str(arg) for arg in args])
        except SystemExit as exit_:
            code = _exit_status(exit_.code)
        except BaseException:
            if not uncaught:
                raise
            traceback.print_exc()
            code = 1
        finally:
            _fresh_module_state()
    return Ran(code, out.getvalue(), err.getvalue())


def _event_loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _exit_status(code: Any) -> int:
    """What ``sys.exit(code)`` makes the process's status: None is 0, a message goes to stderr as 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1
