"""SIGTERM handled exactly as Ctrl-C: what CI time-outs and ``docker stop`` send.

On SIGTERM the handler SIGINT has at that moment runs: inside ``anyio.run`` that is asyncio's, which
cancels the command's main task, so every server the command started is stopped (its whole process
group) and every file is left as after Ctrl-C — the results and records keep what finished, the
contract history records nothing of an unfinished run. The exit status then says which signal it was:
130 (128 + SIGINT) after Ctrl-C, 143 (128 + SIGTERM) after SIGTERM.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

_terminated = False


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _terminated
    _terminated = True
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:  # SIGINT ignored (a background job): SIGTERM must still stop the command
        raise KeyboardInterrupt


def install() -> None:
    """Route SIGTERM to the SIGINT handling (main thread only: signals are delivered there)."""
    global _terminated
    _terminated = False
    if hasattr(signal, "SIGTERM") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)


def exit_code() -> int:
    """128 + the signal that stopped the command: 143 after SIGTERM, else 130 (Ctrl-C)."""
    return 128 + (signal.SIGTERM if _terminated else signal.SIGINT)


def word() -> str:
    return "Terminated." if _terminated else "Interrupted."
