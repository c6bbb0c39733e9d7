"""The files the runner gives a step: the job summary (``GITHUB_STEP_SUMMARY``, at most 1 MiB), the
step outputs (``GITHUB_OUTPUT``), and the workspace, whose files a root container hands back."""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable, Mapping
from pathlib import Path

SUMMARY_LIMIT = 1024 * 1024
"""GitHub drops a step summary larger than this many bytes."""


def utf8_length(text: str) -> int:
    return len(text.encode("utf-8"))


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def shorten_markdown(text: str, limit: int, *, note: str, measure: Callable[[str], int] = len) -> str:
    """Cut Markdown at a line boundary so that it, plus a closing note, fits ``limit``.

    Open code fences and ``<details>`` blocks are closed so the rest of the page still renders.
    """
    if measure(text) <= limit:
        return text
    lines = text.splitlines()

    def finish(head: list[str]) -> str:
        body = "\n".join(head)
        closers: list[str] = []
        if sum(1 for line in head if line.lstrip().startswith("```")) % 2:
            closers.append("```")
        open_details = body.count("<details") - body.count("</details>")
        closers += ["</details>"] * max(open_details, 0)
        tail = "\n".join(closers)
        return f"{body}\n{tail}\n\n> [!NOTE]\n> {note}\n" if tail else f"{body}\n\n> [!NOTE]\n> {note}\n"

    low, high = 0, len(lines)
    while low < high:  # the largest number of whole lines that fits
        middle = (low + high + 1) // 2
        if measure(finish(lines[:middle])) <= limit:
            low = middle
        else:
            high = middle - 1
    if low == 0 and lines:  # even the first line is too long: cut it
        first = lines[0]
        room = max(limit - measure(finish([""])) - 8, 0)
        cut = len(first)
        while cut and measure(first[:cut]) > room:
            cut = cut * 3 // 4
        return finish([first[:cut] + " …"]) if cut else finish([])
    return finish(lines[:low])


def append_summary(path: str | Path | None, markdown: str) -> None:
    """Append to the job summary, keeping the step under GitHub's 1 MiB limit."""
    if not path:
        return
    target = Path(path)
    used = target.stat().st_size if target.exists() else 0
    room = max(SUMMARY_LIMIT - used - 1024, 0)
    text = shorten_markdown(
        markdown,
        room,
        note="The report was shortened to fit GitHub's 1 MiB job-summary limit; the full report is in the "
        "file named by the `report-path` output.",
        measure=utf8_length,
    )
    with target.open("a", encoding="utf-8") as handle:
        handle.write(text if text.endswith("\n") else text + "\n")


def format_outputs(outputs: Mapping[str, str]) -> str:
    """Outputs in the ``name<<DELIMITER`` form, with a random delimiter that never occurs in a value."""
    chunks = []
    for name, value in outputs.items():
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        while delimiter in value or delimiter in name:  # astronomically unlikely, but never ambiguous
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(chunks)


def write_outputs(path: str | Path | None, outputs: Mapping[str, str]) -> None:
    if not path:
        return
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(format_outputs(outputs))


def restore_ownership(root: Path) -> int:
    """Give files that this (root) container created under ``root`` back to the owner of ``root``.

    Docker actions run as root, so without this the files they write into the workspace belong to root
    on the host and later steps (which run as the runner user, uid 1001 on GitHub's runners) cannot
    change or delete them. Returns how many entries were changed. Does nothing when not running as root
    or when ``root`` itself belongs to root.
    """
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None or geteuid() != 0 or not root.is_dir():
        return 0
    info = root.stat()
    if info.st_uid == 0:
        return 0
    changed = 0
    device = info.st_dev
    for directory, subdirectories, files in os.walk(root):
        here = Path(directory)
        for name in [*subdirectories, *files]:
            path = here / name
            try:
                entry = path.lstat()
            except OSError:
                continue
            if entry.st_dev != device:
                continue
            if entry.st_uid == 0 or entry.st_gid == 0:
                os.lchown(
                    path, info.st_uid if entry.st_uid == 0 else -1, info.st_gid if entry.st_gid == 0 else -1
                )
                changed += 1
        # don't descend into other file systems or through symlinks to directories
        subdirectories[:] = [
            name
            for name in subdirectories
            if not stat.S_ISLNK((here / name).lstat().st_mode) and (here / name).lstat().st_dev == device
        ]
    return changed
