"""Where the rewritten descriptions live in the server's source, and ``--apply`` (best effort).

Python servers (FastMCP and the MCP SDK: a tool's docstring, ``description="…"``, a parameter's
``Field(description="…")``) and TypeScript or JavaScript servers (``description: "…"`` literals,
``.describe("…")``, strings joined with ``+``) are searched for string literals whose text is a
published description the proposals rewrite (whitespace aside: a docstring is published flattened).
Each is listed as ``file:line``.

``--apply`` replaces the old text with the new only inside a literal that holds the old text exactly
as published (no reflowed docstring, no literal split over a ``+``, nothing that needs escaping): a
file where the exact old text was not found is never written. Everything else is listed for a person
to edit.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_evals.config.model import Config
from mcp_evals.files import atomic_write, updates
from mcp_evals.improve.model import SourcePlace

PYTHON = (".py",)
SCRIPT = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")
SKIPPED_FOLDERS = frozenset(
    {
        "node_modules",
        ".venv",
        "venv",
        ".git",
        "__pycache__",
        "dist",
        "build",
        ".tox",
        "site-packages",
        ".mypy_cache",
    }
)
MAX_FILES = 2000
MAX_FILE_BYTES = 1_000_000
Key = tuple[str, str | None]  # (tool, parameter or None for the tool's own description)


@dataclass(frozen=True)
class StringLiteral:
    """A string literal (or literals joined by ``+``) in a source file."""

    value: str
    line: int
    start: int  # offsets of the literal's content (between the quotes) in the file's text
    end: int
    kind: str
    quote: str  # the quote that delimits it ('', when it cannot be edited in place)


def _normal(text: str) -> str:
    return " ".join(text.split())


def source_files(config: Config, extra: Sequence[Path] = ()) -> list[Path]:
    """The source files of the config's stdio servers (their working folders) and of ``extra`` folders."""
    roots = [path.resolve() for path in extra]
    if not extra:
        for server in config.servers:
            if server.command:
                roots.append((config.resolve(server.cwd) if server.cwd else config.base_dir).resolve())
    found: list[Path] = []
    for root in dict.fromkeys(roots):
        if root.is_file():
            found.append(root)
            continue
        for folder, folders, files in os.walk(root):
            folders[:] = sorted(
                name for name in folders if name not in SKIPPED_FOLDERS and not name.startswith(".")
            )
            for name in sorted(files):
                if name.endswith(PYTHON + SCRIPT) and len(found) < MAX_FILES:
                    found.append(Path(folder) / name)
    return list(dict.fromkeys(found))


# -- Python -----------------------------------------------------------------------------------------


def _offsets(text: str) -> list[int]:
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def python_literals(text: str) -> Iterator[StringLiteral]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    starts = _offsets(text)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        parent = parents.get(node)
        holder = parents.get(parent) if isinstance(parent, ast.Expr) else None
        if (
            isinstance(holder, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and holder.body
            and holder.body[0] is parent
        ):
            kind, value = "docstring", inspect.cleandoc(node.value)
        elif isinstance(parent, ast.keyword) and parent.arg == "description":
            kind, value = "`description=` literal", node.value
        else:
            kind, value = "string literal", node.value
        if node.end_lineno is None or node.end_col_offset is None:
            continue
        # col offsets are in UTF-8 bytes; map them to characters of the line
        first = text[starts[node.lineno - 1] : starts[node.lineno]]
        last = text[starts[node.end_lineno - 1] : starts[node.end_lineno]]
        start = starts[node.lineno - 1] + len(
            first.encode("utf-8")[: node.col_offset].decode("utf-8", "replace")
        )
        end = starts[node.end_lineno - 1] + len(
            last.encode("utf-8")[: node.end_col_offset].decode("utf-8", "replace")
        )
        raw = text[start:end]
        match = re.fullmatch(r"([uU]?)('''|\"\"\"|'|\")(.*)\2", raw, flags=re.DOTALL)
        if match is None:  # a prefix (r, f, b), or literals joined implicitly: not edited in place
            yield StringLiteral(value, node.lineno, start, end, kind, "")
            continue
        quote = match.group(2)
        inner = start + len(match.group(1)) + len(quote)
        yield StringLiteral(value, node.lineno, inner, end - len(quote), kind, quote)


# -- TypeScript and JavaScript ----------------------------------------------------------------------

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _unescape(raw: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        if char != "\\" or index + 1 == len(raw):
            out.append(char)
            index += 1
            continue
        following = raw[index + 1]
        if following == "u" and re.match(r"[0-9a-fA-F]{4}", raw[index + 2 : index + 6]):
            out.append(chr(int(raw[index + 2 : index + 6], 16)))
            index += 6
        elif following == "x" and re.match(r"[0-9a-fA-F]{2}", raw[index + 2 : index + 4]):
            out.append(chr(int(raw[index + 2 : index + 4], 16)))
            index += 4
        elif following == "\n":
            index += 2
        else:
            out.append(_ESCAPES.get(following, following))
            index += 2
    return "".join(out)


def _script_tokens(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, quote) of each string literal, comments skipped; a template with ``${`` is left out."""
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if text.startswith("//", index):
            newline = text.find("\n", index)
            index = length if newline == -1 else newline
        elif text.startswith("/*", index):
            close = text.find("*/", index + 2)
            index = length if close == -1 else close + 2
        elif char in "\"'`":
            cursor = index + 1
            dynamic = False
            while cursor < length and text[cursor] != char:
                if text[cursor] == "\\":
                    cursor += 1
                elif char == "`" and text.startswith("${", cursor):
                    dynamic = True
                elif char != "`" and text[cursor] == "\n":
                    break
                cursor += 1
            if not dynamic and cursor < length and text[cursor] == char:
                yield index, cursor + 1, char
            index = cursor + 1
        else:
            index += 1


def script_literals(text: str) -> Iterator[StringLiteral]:
    tokens = list(_script_tokens(text))
    position = 0
    while position < len(tokens):
        group = [tokens[position]]
        while position + len(group) < len(tokens):
            between = text[group[-1][1] : tokens[position + len(group)][0]]
            if between.strip() != "+":
                break
            group.append(tokens[position + len(group)])
        position += len(group)
        value = "".join(_unescape(text[start + 1 : end - 1]) for start, end, _ in group)
        before = text[max(0, group[0][0] - 40) : group[0][0]].rstrip()
        if re.search(r"\bdescription\s*:$", before):
            kind = "`description:` literal"
        elif re.search(r"\.describe\s*\($", before):
            kind = "`.describe()` literal"
        else:
            kind = "string literal"
        start, end, quote = group[0][0], group[-1][1], group[0][2]
        line = text.count("\n", 0, start) + 1
        if len(group) == 1:
            yield StringLiteral(value, line, start + 1, end - 1, kind, quote)
        else:
            yield StringLiteral(value, line, start, end, kind, "")


# -- finding and applying ---------------------------------------------------------------------------


def _literals(path: Path, text: str) -> Iterator[StringLiteral]:
    return python_literals(text) if path.suffix in PYTHON else script_literals(text)


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


@dataclass(frozen=True)
class Found:
    """A published description found in a file."""

    path: Path
    key: Key
    literal: StringLiteral
    exact: bool


def find_descriptions(files: Sequence[Path], old: Mapping[Key, str]) -> list[Found]:
    """Every literal of ``files`` whose text is one of the ``old`` descriptions (whitespace aside)."""
    wanted: dict[str, list[Key]] = defaultdict(list)
    for key, text in old.items():
        if _normal(text):
            wanted[_normal(text)].append(key)
    found: list[Found] = []
    for path in files:
        content = _read(path)
        if content is None:
            continue
        text = content
        for literal in _literals(path, text):
            for key in wanted.get(_normal(literal.value), []):
                exact = bool(literal.quote) and text[literal.start : literal.end] == old[key]
                found.append(Found(path, key, literal, exact))
    return found


def _escaped(text: str, quote: str) -> str | None:
    """``text`` as the content of a literal delimited by ``quote``; None when it cannot go there as is."""
    if "\\" in text or quote[0] in text or (len(quote) == 1 and "\n" in text):
        return None
    return text


def _shown(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def source_places(
    found: Sequence[Found],
    new: Mapping[Key, str],
    old: Mapping[Key, str],
    *,
    apply: bool,
    base: Path,
    published: Mapping[Key, str] | None = None,
) -> list[SourcePlace]:
    """The places to list, and, with ``apply``, the files written (see the module docstring).

    ``published``: every description the catalog publishes; a literal whose text is also the
    description of something not rewritten may serve both (one constant for every ``note_id``), so
    it is left for a person."""
    others: dict[str, list[Key]] = defaultdict(list)
    for key, text in (published or {}).items():
        if key not in new:
            others[_normal(text)].append(key)
    by_span: dict[tuple[Path, int, int], list[Found]] = defaultdict(list)
    for item in found:
        by_span[(item.path, item.literal.start, item.literal.end)].append(item)
    notes: dict[tuple[Path, int, int], str] = {}
    edits: dict[Path, list[tuple[int, int, str, str]]] = defaultdict(list)
    for span, items in by_span.items():
        first = items[0]
        texts = {new[item.key] for item in items if item.key in new}
        shared = others.get(_normal(first.literal.value), [])
        if shared:
            name, parameter = shared[0]
            what = f"{name}.{parameter}" if parameter else name
            notes[span] = f"the same text also describes {what}, which is not rewritten: edit it by hand"
        elif not first.exact:
            notes[span] = (
                "the literal is not the published text as it is (reflowed, joined, escaped): edit it"
            )
        elif len(texts) != 1:
            notes[span] = "one literal serves several descriptions with different rewrites: edit it by hand"
        else:
            written = _escaped(next(iter(texts)), first.literal.quote)
            if written is None:
                notes[span] = "the new text needs escaping in this literal: edit it by hand"
            elif apply:
                edits[span[0]].append((span[1], span[2], old[first.key], written))
            else:
                notes[span] = "--apply replaces it"
    for path, changes in edits.items():
        if not _write(path, changes):
            for start, end, _, _ in changes:
                notes[(path, start, end)] = "the file changed since it was read: not written"
    places = [
        SourcePlace(
            file=_shown(path, base),
            line=item.literal.line,
            tool=item.key[0],
            parameter=item.key[1],
            kind=item.literal.kind,
            exact=item.exact,
            applied=apply and (path, start, end) not in notes,
            note=notes.get((path, start, end), ""),
        )
        for (path, start, end), items in by_span.items()
        for item in items
    ]
    places.sort(key=lambda place: (place.file, place.line, place.tool, place.parameter or ""))
    return places


def _write(path: Path, changes: Sequence[tuple[int, int, str, str]]) -> bool:
    """Replace each span, which must still hold the exact old text, and write the file whole (its mode
    kept); False, writing nothing, when one does not."""
    try:
        text = path.read_text("utf-8")
        mode = path.stat().st_mode & 0o7777
    except (OSError, UnicodeDecodeError):
        return False
    if any(text[start:end] != before for start, end, before, _ in changes):
        return False
    for start, end, _, replacement in sorted(changes, reverse=True):
        text = text[:start] + replacement + text[end:]
    updates(path)  # the server's source is rewritten on purpose (--apply)
    with atomic_write(path, what="the server source") as stream:
        stream.write(text)
    os.chmod(path, mode)
    return True
