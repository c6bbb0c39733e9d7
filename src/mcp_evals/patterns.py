"""Regular expressions written by users (and servers), run with a time limit.

Python's ``re`` backtracks: ``^(a+)+$`` against thirty-odd ``a`` and a ``!`` runs for hours, and a
match cannot be interrupted — not by a timeout, not by Ctrl-C — in the thread that runs it. So a
pattern from a contract case (``output_matches``), a task set (``answer: {regex}``,
``transient_errors``), a fixture's ``{regex: …}`` matcher or a tool schema's ``pattern`` is matched in
a small worker process, started on first use and kept for the next match; a match that takes longer
than its limit ends the worker (the next match starts another) and is ``PatternTimeout``: a clear
failure of that step, never a hang. No new dependency: a bare Python interpreter (``sys.executable``)
is the worker; it does nothing but match.

Patterns that cannot backtrack much (one repetition of a plain character class, as in ``SYNC-\\d+``
or ``(?i)does not exist``: most of them) are matched here, in the caller, without the round trip.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import queue
import re
import subprocess
import sys
import threading
from functools import lru_cache

# The parser behind `re` (public as sre_parse until 3.11, which deprecates that name).
from re import _constants, _parser  # type: ignore[attr-defined]
from typing import IO, Any

# How long a pattern from a fixture or a schema may take on one value: a scoring step has no timeout
# of its own (docs/fixtures.md). Contract steps and sessions use their own step timeouts. Read at each
# call (not bound as a default argument), so the tests can shorten it.
DEFAULT_SECONDS = 2.0


class PatternTimeout(ValueError):
    """A regular expression that took longer than its limit on one text (it backtracks catastrophically)."""

    def __init__(self, pattern: str, seconds: float) -> None:
        shown = pattern if len(pattern) <= 80 else pattern[:79] + "…"
        super().__init__(
            f"the regular expression /{shown}/ took longer than {seconds:g} s and was stopped: it backtracks "
            "catastrophically (a repetition inside a repetition, like (a+)+); rewrite it without one"
        )
        self.pattern = pattern
        self.seconds = seconds


def search(pattern: str, text: str, *, seconds: float | None = None, flags: int = 0) -> bool:
    """Whether ``pattern`` is found in ``text`` (``re.search``), within ``seconds`` (``DEFAULT_SECONDS``).

    ``re.error`` when the pattern does not compile; ``PatternTimeout`` when the match takes too long.
    """
    if _is_simple(pattern, flags):
        return re.search(pattern, text, flags) is not None
    return bool(_in_worker([pattern, text, flags], seconds))


def sub(pattern: str, replacement: str, text: str, *, seconds: float | None = None, flags: int = 0) -> str:
    """``text`` with every match of ``pattern`` replaced by ``replacement`` (taken literally), within
    ``seconds`` (``DEFAULT_SECONDS``); the same errors as ``search``."""
    if _is_simple(pattern, flags):
        return re.sub(pattern, lambda _: replacement, text, flags=flags)
    return str(_in_worker([pattern, text, flags, replacement], seconds))


def _in_worker(request: list[Any], seconds: float | None) -> Any:
    """``request`` (pattern, text, flags[, replacement]) answered by the worker within ``seconds``
    (``DEFAULT_SECONDS``, read now); a pattern stopped on a text before fails at once."""
    pattern, text, flags = request[:3]
    limit = DEFAULT_SECONDS if seconds is None else seconds
    key = (pattern, flags, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    if _TIMED_OUT.get(key, 0.0) >= limit:  # a report made again meets the same texts: fail at once
        raise PatternTimeout(pattern, limit)
    try:
        return _WORKER.ask(request, limit)
    except PatternTimeout:
        _TIMED_OUT[key] = limit
        raise


# (pattern, flags, text digest) -> the longest limit it was stopped at, in this process
_TIMED_OUT: dict[tuple[str, int, str], float] = {}


def check(pattern: str, flags: int = 0) -> None:
    """``re.error`` when ``pattern`` does not compile, also when it nests groups thousands deep: ``re``'s
    parser then overflows Python's stack (a RecursionError, a traceback where a message is due)."""
    try:
        re.compile(pattern, flags)
    except RecursionError:
        raise re.error("the pattern nests groups too deeply", pattern) from None


def is_simple(pattern: str, flags: int = 0) -> bool:
    """Whether ``pattern`` surely matches in linear time, so it may run in the caller's thread (as
    ``search`` runs it). ``re.error`` when the pattern does not compile."""
    return _is_simple(pattern, flags)


@lru_cache(maxsize=512)
def _is_simple(pattern: str, flags: int) -> bool:
    """At most one repetition, of something that neither repeats nor branches, and no backreference:
    such a pattern matches in linear time, so it runs here. Anything else goes to the worker (even
    ``.*x.*y``, cubic on a long output, or ``(a|aa)*``, exponential).

    ``re.error`` (raised here) when the pattern does not compile.
    """
    repeats: list[list[Any]] = []
    try:
        parsed = list(_parser.parse(pattern, flags))
    except RecursionError:  # groups nested thousands deep: `re` itself cannot compile it either
        raise re.error("the pattern nests groups too deeply", pattern) from None
    if not _walk(parsed, repeats):
        return False
    return len(repeats) <= 1 and all(_walk(body, None) and not _branches(body) for body in repeats)


def _walk(items: list[Any], repeats: list[list[Any]] | None) -> bool:
    """Collect the bodies of repetitions (``repeats``; None: a repetition here is not allowed);
    False at a backreference, or a repetition where none is allowed."""
    for op, value in items:
        if op in _REPEATS:
            _low, high, body = value
            if high == 1:
                if not _walk(list(body), repeats):
                    return False
                continue
            if repeats is None:
                return False
            repeats.append(list(body))
        elif op in (_constants.GROUPREF, _constants.GROUPREF_EXISTS):
            return False
        elif op == _constants.SUBPATTERN:
            if not _walk(list(value[-1]), repeats):
                return False
        elif op == _constants.BRANCH:
            if not all(_walk(list(branch), repeats) for branch in value[1]):
                return False
        elif op in (_constants.ASSERT, _constants.ASSERT_NOT) and not _walk(list(value[1]), repeats):
            return False
    return True


def _branches(items: list[Any]) -> bool:
    for op, value in items:
        if op == _constants.BRANCH:
            return True
        if op == _constants.SUBPATTERN and _branches(list(value[-1])):
            return True
    return False


_REPEATS = {
    _constants.MAX_REPEAT,
    _constants.MIN_REPEAT,
    *([_constants.POSSESSIVE_REPEAT] if hasattr(_constants, "POSSESSIVE_REPEAT") else []),
}


# The worker: a bare interpreter (-I -S: no site, no environment) that matches what it is sent, one
# JSON line each way, until its input closes. Not multiprocessing: its spawn re-imports the caller's
# main module, which may be any script that uses mcp-evals as a library.
_WORKER_SOURCE = """
import json, re, sys
for line in sys.stdin:
    request = json.loads(line)
    pattern, text, flags = request[:3]
    try:
        if len(request) > 3:  # a replacement: every match replaced by it (taken literally)
            answer = ["replaced", re.sub(pattern, lambda _: request[3], text, flags=flags)]
        else:
            answer = ["found", re.search(pattern, text, flags) is not None]
    except re.error as error:
        answer = ["error", [str(error), error.pos]]
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


class _Worker:
    """One worker process at a time, started on first use; a match over its limit ends it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.process: subprocess.Popen[str] | None = None
        self.answers: queue.Queue[str] = queue.Queue()

    def _start(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WORKER_SOURCE],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
            )
            answers: queue.Queue[str] = queue.Queue()

            def read(stream: IO[str] = process.stdout) -> None:  # type: ignore[assignment]
                for line in stream:
                    answers.put(line)
                answers.put("")  # the worker is gone

            threading.Thread(target=read, daemon=True, name="mcp-evals-patterns").start()
            self.process, self.answers = process, answers
        return self.process

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.kill()
            process.wait(timeout=5)
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()

    def ask(self, request: list[Any], seconds: float) -> Any:
        pattern = request[0]
        with self.lock:
            process = self._start()
            assert process.stdin is not None
            try:
                process.stdin.write(json.dumps(request) + "\n")
                process.stdin.flush()
                line = self.answers.get(timeout=seconds)
            except queue.Empty:
                self.stop()
                raise PatternTimeout(pattern, seconds) from None
            except BaseException:  # Ctrl-C while waiting (the worker may be deep in the match), a dead pipe
                self.stop()
                raise
            if not line:
                self.stop()
                raise PatternTimeout(pattern, seconds)
        kind, value = json.loads(line)
        if kind == "error":
            message, position = value
            raise re.error(message, pattern, position)
        return value


_WORKER = _Worker()
