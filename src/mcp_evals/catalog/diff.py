"""What changed between two catalogs: added, removed, probably renamed, re-described, re-shaped tools.

Pure functions over ``Catalog``; ``mcp-evals catalog diff`` prints the result and reports reuse it.
Two catalogs with the same hash have no tool changes, and two with different hashes have at least
one; changes to resources, resource templates and prompts (``extras``, where both sides recorded
them) do not move the hash.
``changes`` lists them one per line, classified breaking / selection-affecting / compatible
(``classify``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from mcp_evals.catalog.classify import (
    ChangeClass,
    ClassifiedChange,
    classify_catalogs,
    classify_extras,
    counts,
    sort_key,
)
from mcp_evals.catalog.model import Catalog, Tool, canonical_json
from mcp_evals.suggest import similarity as text_similarity

# A tool without parameters shares its (empty) schema with every other one; only a description
# this similar makes such a pair a rename rather than a coincidence.
_EMPTY_SCHEMA_RENAME_SIMILARITY = 0.6


class RenamedTool(BaseModel):
    """A removed and an added tool that are probably the same tool under a new name."""

    old: str
    new: str
    description_similarity: float = Field(description="0–1, how alike the two descriptions are.")
    description_changed: bool


class DescriptionChange(BaseModel):
    name: str
    old: str
    new: str


class SchemaChange(BaseModel):
    """How a tool's input schema changed, parameter by parameter where possible."""

    name: str
    added_parameters: list[str] = Field(default_factory=list)
    removed_parameters: list[str] = Field(default_factory=list)
    changed_parameters: list[str] = Field(default_factory=list)
    now_required: list[str] = Field(default_factory=list)
    no_longer_required: list[str] = Field(default_factory=list)
    other: list[str] = Field(default_factory=list, description="Other top-level schema keys that changed.")

    def summary(self) -> str:
        """One line: "added parameter `priority`; now required: `subject`"."""
        parts = [
            f"{label}: {_names(names)}"
            for label, names in (
                ("added " + _parameter(self.added_parameters), self.added_parameters),
                ("removed " + _parameter(self.removed_parameters), self.removed_parameters),
                ("changed " + _parameter(self.changed_parameters), self.changed_parameters),
                ("now required", self.now_required),
                ("no longer required", self.no_longer_required),
                ("changed schema keys", self.other),
            )
            if names
        ]
        return "; ".join(parts) or "changed"


class OtherChange(BaseModel):
    """Changes a model also sees that are neither the description nor the input schema."""

    name: str
    fields: list[str] = Field(description="Which of title, output_schema, annotations changed.")


class CatalogDiff(BaseModel):
    old_hash: str
    new_hash: str
    old_count: int
    new_count: int
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    renamed: list[RenamedTool] = Field(default_factory=list)
    description_changed: list[DescriptionChange] = Field(default_factory=list)
    schema_changed: list[SchemaChange] = Field(default_factory=list)
    other_changed: list[OtherChange] = Field(default_factory=list)
    extras: list[ClassifiedChange] = Field(
        default_factory=list, description="Changes to resources, resource templates and prompts."
    )
    changes: list[ClassifiedChange] = Field(
        default_factory=list, description="Every change, one per line, most severe class first."
    )

    @property
    def counts(self) -> dict[ChangeClass, int]:
        """Classified changes per class: breaking, selection, compatible."""
        return counts(self.changes)

    @property
    def change_count(self) -> int:
        return (
            len(self.added)
            + len(self.removed)
            + len(self.renamed)
            + len(self.description_changed)
            + len(self.schema_changed)
            + len(self.other_changed)
            + len(self.extras)
        )

    @property
    def changed(self) -> bool:
        return self.change_count > 0


def diff_catalogs(old: Catalog, new: Catalog) -> CatalogDiff:
    """Compare two catalogs tool by tool (by catalog name)."""
    old_tools, new_tools = old.by_name, new.by_name
    removed = sorted(set(old_tools) - set(new_tools))
    added = sorted(set(new_tools) - set(old_tools))
    renamed = _renames([old_tools[name] for name in removed], [new_tools[name] for name in added])
    renamed_old = {pair.old for pair in renamed}
    renamed_new = {pair.new for pair in renamed}
    diff = CatalogDiff(
        old_hash=old.hash,
        new_hash=new.hash,
        old_count=len(old.tools),
        new_count=len(new.tools),
        added=[name for name in added if name not in renamed_new],
        removed=[name for name in removed if name not in renamed_old],
        renamed=renamed,
    )
    for name in sorted(set(old_tools) & set(new_tools)):
        before, after = old_tools[name], new_tools[name]
        if before.description != after.description:
            diff.description_changed.append(
                DescriptionChange(name=name, old=before.description, new=after.description)
            )
        if canonical_json(before.input_schema) != canonical_json(after.input_schema):
            diff.schema_changed.append(schema_change(name, before.input_schema, after.input_schema))
        fields = [
            field
            for field in ("title", "output_schema", "annotations")
            if canonical_json(getattr(before, field)) != canonical_json(getattr(after, field))
        ]
        if fields:
            diff.other_changed.append(OtherChange(name=name, fields=fields))
    diff.extras = classify_extras(old, new)
    diff.changes = sorted(
        classify_catalogs(old, new, [(pair.old, pair.new) for pair in diff.renamed], diff.added, diff.removed)
        + diff.extras,
        key=sort_key,
    )
    return diff


def similarity(a: str, b: str) -> float:
    if not a and not b:
        return 1.0
    return text_similarity(a, b)


def _renames(removed: list[Tool], added: list[Tool]) -> list[RenamedTool]:
    """Pair removed and added tools with the same input schema, most similar descriptions first."""
    candidates: list[tuple[float, float, str, str]] = []
    for before in removed:
        schema = _shape(before.input_schema)
        for after in added:
            if _shape(after.input_schema) != schema:
                continue
            described = similarity(before.description, after.description)
            if not before.parameters and described < _EMPTY_SCHEMA_RENAME_SIMILARITY:
                continue
            candidates.append((described, similarity(before.name, after.name), before.name, after.name))
    candidates.sort(key=lambda item: (-item[0], -item[1], item[2], item[3]))
    by_name = {tool.name: tool for tool in [*removed, *added]}
    taken: set[str] = set()
    pairs = []
    for described, _, old_name, new_name in candidates:
        if old_name in taken or new_name in taken:
            continue
        taken.update((old_name, new_name))
        pairs.append(
            RenamedTool(
                old=old_name,
                new=new_name,
                description_similarity=round(described, 3),
                description_changed=by_name[old_name].description != by_name[new_name].description,
            )
        )
    return sorted(pairs, key=lambda pair: pair.old)


def _shape(schema: dict[str, Any]) -> str:
    """The schema without its top-level title.

    Python SDKs title the schema after the function (``get_userArguments``), so renaming the
    function changes that title and nothing else.
    """
    return canonical_json({key: value for key, value in schema.items() if key != "title"})


def schema_change(name: str, before: dict[str, Any], after: dict[str, Any]) -> SchemaChange:
    old_properties = _properties(before)
    new_properties = _properties(after)
    old_required = _required(before)
    new_required = _required(after)
    common = sorted(set(old_properties) & set(new_properties))
    other_keys = sorted(
        key
        for key in (set(before) | set(after)) - {"properties", "required"}
        if canonical_json(before.get(key)) != canonical_json(after.get(key))
    )
    change = SchemaChange(
        name=name,
        added_parameters=sorted(set(new_properties) - set(old_properties)),
        removed_parameters=sorted(set(old_properties) - set(new_properties)),
        changed_parameters=[
            key
            for key in common
            if canonical_json(old_properties[key]) != canonical_json(new_properties[key])
        ],
        now_required=sorted(set(new_required) - set(old_required)),
        no_longer_required=sorted(set(old_required) - set(new_required)),
        other=other_keys,
    )
    if not any(
        (
            change.added_parameters,
            change.removed_parameters,
            change.changed_parameters,
            change.now_required,
            change.no_longer_required,
            change.other,
        )
    ):
        # Same content, different shape (e.g. `required` reordered): still a change on the wire.
        change.other = ["required" if old_required != new_required else "properties"]
    return change


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else {}


def _required(schema: dict[str, Any]) -> list[str]:
    required = schema.get("required")
    return [str(item) for item in required] if isinstance(required, list) else []


def _parameter(names: list[str]) -> str:
    return "parameter" if len(names) == 1 else "parameters"


def _names(names: list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)
