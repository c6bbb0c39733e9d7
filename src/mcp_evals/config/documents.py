"""Reading user files (YAML or JSON) safely, remembering where every value came from.

The front every loader calls: ``load_document`` picks the reader by extension, ``load_document_as``
names the file as messages show it. The parts live apart: what a parsed file is (``source``), the
YAML reader (``yaml_source``) and its syntax-error explainer (``syntax``), the JSON reader
(``json_source``), and pydantic's errors as ``file:line (field): message`` lines (``messages``).
"""

from __future__ import annotations

from pathlib import Path

from mcp_evals.config.json_source import parse_json
from mcp_evals.config.messages import describe_validation_error, dotted, unknown_key_message
from mcp_evals.config.source import MAX_DEPTH, MAX_FILE_BYTES, Document, Location, read_text
from mcp_evals.config.yaml_source import parse_yaml
from mcp_evals.errors import InputFileError

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "Document",
    "Location",
    "describe_validation_error",
    "dotted",
    "load_document",
    "load_document_as",
    "parse_json",
    "parse_text",
    "parse_yaml",
    "read_text",
    "shown",
    "unknown_key_message",
]


def parse_text(text: str, path: Path) -> Document:
    """Parse ``text`` as the file ``path``: as JSON when it ends in ``.json``, else as YAML."""
    return parse_json(text, path) if path.suffix.lower() == ".json" else parse_yaml(text, path)


def load_document(path: Path) -> Document:
    """Load a YAML or JSON file (by extension; ``.json`` is read as JSON, anything else as YAML)."""
    return parse_text(read_text(path), path)


def shown(path: Path) -> str:
    """A path as messages show it: relative to the current folder when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def load_document_as(path: Path, display: str, *, text: str | None = None) -> Document:
    """Load ``path`` (or parse ``text`` as that file); the document and its errors name it ``display``."""
    try:
        document = load_document(path) if text is None else parse_text(text, path)
    except InputFileError as error:
        message = error.message
        if message.startswith(str(path)):
            message = display + message[len(str(path)) :]
        raise InputFileError(message, hint=error.hint) from None
    document.path = Path(display)
    return document
