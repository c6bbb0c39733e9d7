"""A description overlay: catalog A with some tools' descriptions (and parameter descriptions) rewritten.

Catalog B of a description A/B is one: the config's ``compare.descriptions`` (tool → description),
or a file — ``descriptions.improved.yaml``, which ``mcp-evals improve`` writes, and which
``compare --descriptions`` and ``validate --descriptions`` read::

    descriptions:
      search_tickets: "Find tickets by words in their subject or messages."
    parameters:
      search_tickets:
        query: "Words the ticket's subject or messages contain."

Only text changes: a name, a schema's shape or a tool the catalog lacks is never added, so the
tools' behaviour is the same in both catalogs. A tool or parameter the catalog lacks, or an empty
description, is bad input naming where it was written, with a did-you-mean.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.config.documents import describe_validation_error, load_document_as, shown
from mcp_evals.errors import ConfigError, InputFileError, McpEvalsError, where
from mcp_evals.strict import StrictModel
from mcp_evals.suggest import Suggester, did_you_mean

OVERLAY_FILE = "descriptions.improved.yaml"
# Where a key of the overlay was written, as ``file:line (key)``, for messages.
Place = Callable[[tuple[str, ...]], str]


class DescriptionOverlay(StrictModel):
    """New descriptions for some tools of a catalog, and for some of their parameters."""

    descriptions: dict[str, str] = Field(default_factory=dict, description="Tool → its new description.")
    parameters: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="Tool → parameter → the parameter's new description."
    )

    @property
    def tools(self) -> list[str]:
        """The tools it rewrites, in the order written."""
        return list(dict.fromkeys([*self.descriptions, *self.parameters]))

    def __bool__(self) -> bool:
        return bool(self.descriptions or self.parameters)


def read_overlay(path: Path) -> tuple[DescriptionOverlay, Place]:
    """The overlay in ``path`` and where each of its keys was written (bad input: exit 3)."""
    document = load_document_as(path, shown(path))
    if document.data is None:
        document.data = {}
    try:
        overlay = DescriptionOverlay.model_validate(document.data)
    except ValidationError as error:
        raise InputFileError(
            describe_validation_error(error, document, model=DescriptionOverlay),
            hint="an overlay maps `descriptions:` tool → text, and `parameters:` tool → parameter → text",
        ) from None

    def place(key: tuple[str, ...]) -> str:
        return where(document.path, document.line_of(key), ".".join(key))

    return overlay, place


def _with_parameters(tool: Tool, texts: Mapping[str, str]) -> dict[str, Any]:
    schema = copy.deepcopy(tool.input_schema)
    properties = schema.setdefault("properties", {})
    for name, text in texts.items():
        entry = properties.get(name)
        properties[name] = {**(entry if isinstance(entry, dict) else {}), "description": text}
    return schema


def apply_overlay(
    catalog: Catalog,
    overlay: DescriptionOverlay,
    place: Place,
    *,
    error: type[McpEvalsError] = ConfigError,
) -> Catalog:
    """Catalog ``catalog`` with the overlay's texts; a tool or parameter it lacks is bad input."""
    suggest = Suggester(catalog.tool_names)
    for section in ("descriptions", "parameters"):
        for name in getattr(overlay, section):
            if name not in catalog.by_name:
                raise error(
                    f"{place((section, name))}: no tool {name!r} in the catalog{did_you_mean(suggest(name))}",
                    hint="`mcp-evals catalog` lists the tools",
                )
    for name, text in overlay.descriptions.items():
        if not text.strip():
            raise error(
                f"{place(('descriptions', name))}: an empty description",
                hint="give the tool a description, or leave it out of the overlay",
            )
    for name, texts in overlay.parameters.items():
        known = catalog.by_name[name].parameters
        for parameter, text in texts.items():
            if parameter not in known:
                found = did_you_mean(Suggester(known)(parameter))
                raise error(
                    f"{place(('parameters', name, parameter))}: {name} has no parameter {parameter!r}{found}",
                    hint="an overlay rewrites the descriptions of parameters the tool has; it adds none",
                )
            if not text.strip():
                raise error(f"{place(('parameters', name, parameter))}: an empty description")
    tools = []
    for tool in catalog.tools:
        update: dict[str, Any] = {}
        if tool.name in overlay.descriptions:
            update["description"] = overlay.descriptions[tool.name]
        if overlay.parameters.get(tool.name):
            update["input_schema"] = _with_parameters(tool, overlay.parameters[tool.name])
        tools.append(tool.model_copy(update=update) if update else tool)
    return Catalog(tools=tools, servers=catalog.servers)


def overlay_file(path: Path, catalog: Catalog) -> Catalog:
    """``catalog`` with the overlay file ``path`` (``compare`` and ``validate --descriptions``)."""
    overlay, place = read_overlay(path)
    if not overlay:
        raise InputFileError(
            f"{shown(path)}: rewrites no description",
            hint="an overlay maps `descriptions:` tool → text (and `parameters:` tool → parameter → text)",
        )
    return apply_overlay(catalog, overlay, place, error=InputFileError)
