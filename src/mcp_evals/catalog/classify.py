"""Each change between two catalogs, one per line, classified by what it does to a client and a model.

- **breaking**: a client written against the old catalog can fail: a tool removed or renamed, a
  required parameter added (or made required), a parameter removed, a type narrowed or changed, an
  enum value removed, a constraint tightened, or a schema change that cannot be classified;
- **selection-affecting**: nothing breaks, but a model may now choose differently: a tool added, its
  description or title changed, the name a model sees changed, a parameter's description changed;
- **compatible**: an optional parameter added, a parameter no longer required, a type widened, an enum
  value added, a constraint loosened, the output schema, annotations or other schema details changed.

A server's resources, resource templates and prompts are compared too, where both catalogs recorded
them (``classify_extras``): one removed, a prompt argument added as required, made required or
removed, or a resource's MIME type changed is breaking; the rest (added, re-described, an optional
argument) is compatible, since a model does not pick among them.

A change belongs to the most severe class that applies: a renamed tool is breaking, although its new
name also moves a model's choice. Local ``$ref``s are followed, so a change inside ``$defs`` shows at
the parameter that uses it. Pure functions over ``Tool``; ``diff.diff_catalogs`` calls them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from mcp_evals.catalog.model import Catalog, Tool, canonical_json, prompt_from_wire
from mcp_evals.json_pointer import follow_local_ref

ChangeClass = Literal["breaking", "selection", "compatible"]
CHANGE_CLASSES: tuple[ChangeClass, ...] = ("breaking", "selection", "compatible")
CLASS_LABELS: dict[ChangeClass, str] = {
    "breaking": "breaking",
    "selection": "selection-affecting",
    "compatible": "compatible",
}

ChangeKind = Literal[
    "tool_removed",
    "tool_renamed",
    "required_parameter_added",
    "parameter_now_required",
    "parameter_removed",
    "type_narrowed",
    "type_changed",
    "enum_value_removed",
    "constraint_tightened",
    "schema_unclassified",
    "tool_added",
    "description_changed",
    "title_changed",
    "model_name_changed",
    "parameter_description_changed",
    "optional_parameter_added",
    "parameter_no_longer_required",
    "type_widened",
    "enum_value_added",
    "constraint_loosened",
    "schema_detail_changed",
    "output_schema_changed",
    "annotations_changed",
    "entry_removed",
    "entry_added",
    "entry_changed",
    "mime_type_changed",
    "required_argument_added",
    "optional_argument_added",
    "argument_removed",
    "argument_now_required",
    "argument_no_longer_required",
]
Subject = Literal["tool", "prompt", "resource", "resource template"]
KIND_CLASS: dict[ChangeKind, ChangeClass] = {
    "tool_removed": "breaking",
    "tool_renamed": "breaking",
    "required_parameter_added": "breaking",
    "parameter_now_required": "breaking",
    "parameter_removed": "breaking",
    "type_narrowed": "breaking",
    "type_changed": "breaking",
    "enum_value_removed": "breaking",
    "constraint_tightened": "breaking",
    "schema_unclassified": "breaking",
    "tool_added": "selection",
    "description_changed": "selection",
    "title_changed": "selection",
    "model_name_changed": "selection",
    "parameter_description_changed": "selection",
    "optional_parameter_added": "compatible",
    "parameter_no_longer_required": "compatible",
    "type_widened": "compatible",
    "enum_value_added": "compatible",
    "constraint_loosened": "compatible",
    "schema_detail_changed": "compatible",
    "output_schema_changed": "compatible",
    "annotations_changed": "compatible",
    "entry_removed": "breaking",
    "entry_added": "compatible",
    "entry_changed": "compatible",
    "mime_type_changed": "breaking",
    "required_argument_added": "breaking",
    "optional_argument_added": "compatible",
    "argument_removed": "breaking",
    "argument_now_required": "breaking",
    "argument_no_longer_required": "compatible",
}

# Bounds: a larger lower bound or a smaller upper bound accepts fewer values.
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
# Any change of these may reject what was accepted: added or changed is tightened, removed loosened.
_RESTRICTIONS = ("pattern", "format", "const", "multipleOf")
# Schema keys that accept nothing less or more whatever their value: a change is a detail.
_DETAILS = frozenset(
    {"default", "examples", "title", "deprecated", "readOnly", "writeOnly", "$comment", "$schema", "$id"}
)
_MAX_REF_DEPTH = 8
_MAX_DEPTH = 32  # a recursive schema that differs at every level stops here
_REORDERED = "(order)"


class ClassifiedChange(BaseModel):
    """One change to the tool surface: which tool (and parameter), what happened, and its class."""

    classification: ChangeClass
    kind: ChangeKind
    subject: Subject = Field("tool", description="What changed: a tool, a prompt, a resource or a template.")
    tool: str = Field(
        description="The tool's name (the new name for a rename); a prompt's name, a resource's URI."
    )
    parameter: str | None = Field(
        None, description="The parameter's path: `filter.status` inside an object, `tags[]` for items."
    )
    before: str | None = Field(None, description="What it was: an old name, type, value or text.")
    after: str | None = Field(None, description="What it is now.")


def change(kind: ChangeKind, tool: str, parameter: str | None = None, **values: Any) -> ClassifiedChange:
    return ClassifiedChange(
        classification=KIND_CLASS[kind], kind=kind, tool=tool, parameter=parameter, **values
    )


_EXTRA_KINDS: dict[str, str] = {
    "entry_removed": "removed",
    "entry_added": "added",
    "required_argument_added": "required argument {parameter} added",
    "optional_argument_added": "optional argument {parameter} added",
    "argument_removed": "argument {parameter} removed",
    "argument_now_required": "argument {parameter} is now required",
    "argument_no_longer_required": "argument {parameter} is no longer required",
}


def describe(item: ClassifiedChange, quote: Callable[[str], str] = lambda text: f"`{text}`") -> str:
    """The change as one line; ``quote`` formats each untrusted name or value (escaping it)."""
    tool = quote(item.tool)
    parameter = quote(item.parameter or "")
    before, after = quote(item.before or ""), quote(item.after or "")
    kind = item.kind
    if item.subject != "tool":
        if kind == "entry_changed":
            return f"{item.subject} {tool}: {item.before} changed"
        if kind == "mime_type_changed":
            return f"{item.subject} {tool}: MIME type changed: {before} → {after}"
        return f"{item.subject} {tool}: " + _EXTRA_KINDS[kind].format(parameter=parameter)
    if kind == "tool_renamed":
        return f"{before} → {tool}: tool renamed"
    if kind in ("tool_removed", "tool_added"):
        return f"{tool}: tool {'removed' if kind == 'tool_removed' else 'added'}"
    if kind in ("description_changed", "title_changed", "output_schema_changed", "annotations_changed"):
        what = kind.removesuffix("_changed").replace("_", " ")
        keys = f" ({before})" if kind == "annotations_changed" and item.before else ""
        return f"{tool}: {what} changed{keys}"
    if kind == "model_name_changed":
        return f"{tool}: the name models see changed: {before} → {after}"
    if kind in ("required_parameter_added", "optional_parameter_added"):
        which = "required" if kind == "required_parameter_added" else "optional"
        return f"{tool}: {which} parameter {parameter} added"
    if kind == "parameter_now_required":
        return f"{tool}: parameter {parameter} is now required"
    if kind == "parameter_no_longer_required":
        return f"{tool}: parameter {parameter} is no longer required"
    if kind == "parameter_removed":
        return f"{tool}: parameter {parameter} removed"
    if kind == "parameter_description_changed":
        return f"{tool}: description of parameter {parameter} changed"
    if kind in ("enum_value_removed", "enum_value_added"):
        if kind == "enum_value_removed":
            return f"{tool}: enum value {before} removed from parameter {parameter}"
        return f"{tool}: enum value {after} added to parameter {parameter}"
    where = f"{tool}: parameter {parameter}" if item.parameter else f"{tool}: input schema"
    if kind in ("type_narrowed", "type_widened", "type_changed"):
        return f"{where}: type {kind.removeprefix('type_')}: {before} → {after}"
    if kind in ("constraint_tightened", "constraint_loosened"):
        return f"{where}: {before} {kind.removeprefix('constraint_')}" + (f" ({after})" if item.after else "")
    if kind == "schema_detail_changed":
        return (
            f"{where}: reordered (same meaning)"
            if item.before == _REORDERED
            else f"{where}: {before} changed"
        )
    return f"{where}: {before} changed in a way mcp-evals does not classify: review it"


def sort_key(item: ClassifiedChange) -> tuple[int, int, str, str, str]:
    return (
        CHANGE_CLASSES.index(item.classification),
        item.subject != "tool",
        item.tool,
        item.parameter or "",
        item.kind,
    )


def classify_catalogs(
    old: Catalog,
    new: Catalog,
    renamed: Sequence[tuple[str, str]],
    added: Iterable[str],
    removed: Iterable[str],
) -> list[ClassifiedChange]:
    """Every change, most severe class first; ``renamed``/``added``/``removed`` come from the diff."""
    changes = [change("tool_removed", name) for name in removed]
    changes += [change("tool_renamed", new_name, before=old_name) for old_name, new_name in renamed]
    changes += [change("tool_added", name) for name in added]
    for name in sorted(set(old.by_name) & set(new.by_name)):
        changes += classify_tool(old.by_name[name], new.by_name[name])
        seen_before, seen_after = old.names.provider(name), new.names.provider(name)
        if seen_before != seen_after:
            changes.append(change("model_name_changed", name, before=seen_before, after=seen_after))
    return sorted(changes, key=sort_key)


def classify_extras(old: Catalog, new: Catalog) -> list[ClassifiedChange]:
    """Changes to the resources, resource templates and prompts both catalogs recorded.

    A list one side did not record (a lock written before they were) is not compared; a server only
    one side has contributes its recorded entries as added or removed.
    """
    old_servers = {server.name: server for server in old.servers}
    new_servers = {server.name: server for server in new.servers}
    several = len(old_servers.keys() | new_servers.keys()) > 1
    found: list[ClassifiedChange] = []
    for name in sorted(old_servers.keys() | new_servers.keys()):
        before, after = old_servers.get(name), new_servers.get(name)
        for field in ("prompts", "resources", "resource_templates"):
            old_list = getattr(before, field) if before is not None else []
            new_list = getattr(after, field) if after is not None else []
            if old_list is None or new_list is None:
                continue
            prefix = f"{name}:" if several else ""
            if field == "prompts":
                found += _prompts(prefix, old_list, new_list)
            else:
                found += _resources(prefix, old_list, new_list, template=field == "resource_templates")
    return sorted(found, key=sort_key)


def _by_key(entries: Sequence[Mapping[str, Any]], key: str) -> dict[str, Mapping[str, Any]]:
    return {str(entry.get(key, "")): entry for entry in entries}


def _prompts(
    prefix: str, old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]
) -> list[ClassifiedChange]:
    before, after = _by_key(old, "name"), _by_key(new, "name")
    found = [_extra("entry_removed", "prompt", prefix + name) for name in sorted(set(before) - set(after))]
    found += [_extra("entry_added", "prompt", prefix + name) for name in sorted(set(after) - set(before))]
    for name in sorted(set(before) & set(after)):
        if canonical_json(before[name]) == canonical_json(after[name]):
            continue
        was, now = prompt_from_wire(before[name], ""), prompt_from_wire(after[name], "")
        shown = prefix + name
        old_arguments = {argument.name: argument for argument in was.arguments}
        new_arguments = {argument.name: argument for argument in now.arguments}
        for argument in sorted(set(new_arguments) - set(old_arguments)):
            kind: ChangeKind = (
                "required_argument_added" if new_arguments[argument].required else "optional_argument_added"
            )
            found.append(_extra(kind, "prompt", shown, argument))
        for argument in sorted(set(old_arguments) - set(new_arguments)):
            found.append(_extra("argument_removed", "prompt", shown, argument))
        for argument in sorted(set(old_arguments) & set(new_arguments)):
            if old_arguments[argument].required != new_arguments[argument].required:
                kind = (
                    "argument_now_required"
                    if new_arguments[argument].required
                    else "argument_no_longer_required"
                )
                found.append(_extra(kind, "prompt", shown, argument))
        described = sorted(
            field
            for field in (set(before[name]) | set(after[name])) - {"arguments"}
            if canonical_json(before[name].get(field)) != canonical_json(after[name].get(field))
        )
        kept = set(old_arguments) & set(new_arguments)
        if any(
            (old_arguments[key].title, old_arguments[key].description)
            != (new_arguments[key].title, new_arguments[key].description)
            for key in kept
        ):
            described.append("argument descriptions")
        if described:
            found.append(_extra("entry_changed", "prompt", shown, before=", ".join(described)))
    return found


def _resources(
    prefix: str, old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]], *, template: bool
) -> list[ClassifiedChange]:
    subject: Subject = "resource template" if template else "resource"
    key = "uriTemplate" if template else "uri"
    before, after = _by_key(old, key), _by_key(new, key)
    found = [_extra("entry_removed", subject, prefix + uri) for uri in sorted(set(before) - set(after))]
    found += [_extra("entry_added", subject, prefix + uri) for uri in sorted(set(after) - set(before))]
    for uri in sorted(set(before) & set(after)):
        was, now = before[uri], after[uri]
        if canonical_json(was) == canonical_json(now):
            continue
        if was.get("mimeType") != now.get("mimeType"):
            found.append(
                _extra(
                    "mime_type_changed",
                    subject,
                    prefix + uri,
                    before=str(was.get("mimeType") or "none"),
                    after=str(now.get("mimeType") or "none"),
                )
            )
        fields = sorted(
            field
            for field in (set(was) | set(now)) - {"mimeType"}
            if canonical_json(was.get(field)) != canonical_json(now.get(field))
        )
        if fields:
            found.append(_extra("entry_changed", subject, prefix + uri, before=", ".join(fields)))
    return found


def _extra(
    kind: ChangeKind, subject: Subject, name: str, parameter: str | None = None, **values: Any
) -> ClassifiedChange:
    return ClassifiedChange(
        classification=KIND_CLASS[kind], kind=kind, subject=subject, tool=name, parameter=parameter, **values
    )


def classify_tool(before: Tool, after: Tool) -> list[ClassifiedChange]:
    """The changes to one tool present in both catalogs under the same name."""
    name = before.name
    found: list[ClassifiedChange] = []
    if before.description != after.description:
        found.append(change("description_changed", name, before=before.description, after=after.description))
    if before.title != after.title:
        found.append(change("title_changed", name, before=before.title or "", after=after.title or ""))
    if canonical_json(before.input_schema) != canonical_json(after.input_schema):
        found += _SchemaComparison(name, before.input_schema, after.input_schema).run()
    if canonical_json(before.output_schema) != canonical_json(after.output_schema):
        found.append(change("output_schema_changed", name))
    if canonical_json(before.annotations) != canonical_json(after.annotations):
        old, new = before.annotations or {}, after.annotations or {}
        keys = sorted(
            key for key in set(old) | set(new) if canonical_json(old.get(key)) != canonical_json(new.get(key))
        )
        found.append(change("annotations_changed", name, before=", ".join(keys)))
    return found


def _short(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class _SchemaComparison:
    """Two input schemas of one tool, compared parameter by parameter, at every depth."""

    def __init__(self, tool: str, before: dict[str, Any], after: dict[str, Any]) -> None:
        self.tool = tool
        self.roots = (before, after)
        self.found: list[ClassifiedChange] = []

    def run(self) -> list[ClassifiedChange]:
        before, after = self.roots
        self._object(None, before, after, 0)
        other = sorted(
            key
            for key in (set(before) | set(after)) - {"properties", "required", "type", "$defs", "definitions"}
            if canonical_json(before.get(key)) != canonical_json(after.get(key))
        )
        if "description" in other:  # of the arguments object as a whole: rare, and no parameter's
            other.remove("description")
            self._add("schema_detail_changed", None, before="description")
        if other:
            self._keys(None, before, after, other, 0)
        if not self.found:  # same meaning, other spelling (e.g. `required` reordered): still a change
            self.found.append(change("schema_detail_changed", self.tool, before=_REORDERED))
        return self.found

    def _add(self, kind: ChangeKind, parameter: str | None, **values: Any) -> None:
        self.found.append(change(kind, self.tool, parameter, **values))

    def _resolve(self, schema: Any, side: int, depth: int = 0) -> Any:
        """A local ``$ref`` replaced by what it points at (other keys beside it kept)."""
        if not isinstance(schema, dict) or "$ref" not in schema or depth >= _MAX_REF_DEPTH:
            return schema
        try:
            target = follow_local_ref(self.roots[side], schema["$ref"])
        except LookupError:
            return schema
        rest = {key: value for key, value in schema.items() if key != "$ref"}
        return self._resolve({**target, **rest} if isinstance(target, dict) else target, side, depth + 1)

    def _object(self, path: str | None, before: dict[str, Any], after: dict[str, Any], depth: int) -> None:
        """Properties and ``required`` of an object schema (the tool's arguments, or a nested object)."""
        old_properties, new_properties = _properties(before), _properties(after)
        old_required, new_required = set(_required(before)), set(_required(after))
        for name in sorted(set(new_properties) - set(old_properties)):
            kind: ChangeKind = (
                "required_parameter_added" if name in new_required else "optional_parameter_added"
            )
            self._add(kind, _join(path, name))
        for name in sorted(set(old_properties) - set(new_properties)):
            self._add("parameter_removed", _join(path, name))
        for name in sorted(set(old_properties) & set(new_properties)):
            if name in new_required and name not in old_required:
                self._add("parameter_now_required", _join(path, name))
            elif name in old_required and name not in new_required:
                self._add("parameter_no_longer_required", _join(path, name))
            self._parameter(_join(path, name), old_properties[name], new_properties[name], depth + 1)

    def _parameter(self, path: str, before: Any, after: Any, depth: int) -> None:
        before, after = self._resolve(before, 0), self._resolve(after, 1)
        if canonical_json(before) == canonical_json(after):
            return
        if not isinstance(before, dict) or not isinstance(after, dict) or depth > _MAX_DEPTH:
            self._add("schema_unclassified", path, before="its schema")
            return
        count = len(self.found)
        if before.get("description") != after.get("description"):
            self._add(
                "parameter_description_changed",
                path,
                before=str(before.get("description") or ""),
                after=str(after.get("description") or ""),
            )
        self._types(path, before, after)
        self._enum(path, before, after)
        if _properties(before) or _properties(after) or "required" in before or "required" in after:
            self._object(path, before, after, depth)
        if canonical_json(before.get("items")) != canonical_json(after.get("items")):
            old_items, new_items = before.get("items"), after.get("items")
            if old_items is None or new_items is None:
                kind: ChangeKind = "constraint_tightened" if old_items is None else "constraint_loosened"
                self._add(kind, path, before="items")
            else:
                self._parameter(f"{path}[]", old_items, new_items, depth + 1)
        other = sorted(
            key
            for key in (set(before) | set(after))
            - {"description", "type", "enum", "properties", "required", "items"}
            if canonical_json(before.get(key)) != canonical_json(after.get(key))
        )
        self._keys(path, before, after, other, depth)
        if len(self.found) == count:  # e.g. a type list reordered: same meaning, other spelling
            self._add("schema_detail_changed", path, before=_REORDERED)

    def _keys(
        self, path: str | None, before: dict[str, Any], after: dict[str, Any], keys: list[str], depth: int
    ) -> None:
        """Changed keys other than types, enums, properties and items."""
        details, unknown = [], []
        for key in keys:
            old, new = before.get(key), after.get(key)
            if key in _DETAILS:
                details.append(key)
            elif key in ("anyOf", "oneOf") and _typed_union(old) and _typed_union(new):
                # One option per type (pydantic's `Literal[...] | None`): the types were compared as
                # types; an option present on both sides is compared as a schema of its own.
                old_options, new_options = _options_by_type(old) or {}, _options_by_type(new) or {}
                for declared in sorted(set(old_options) & set(new_options)):
                    self._parameter(
                        path or "(arguments)", old_options[declared], new_options[declared], depth + 1
                    )
            elif key in _LOWER_BOUNDS or key in _UPPER_BOUNDS:
                self._bound(path, key, old, new)
            elif key in _RESTRICTIONS:
                kind: ChangeKind = "constraint_loosened" if new is None else "constraint_tightened"
                self._add(kind, path, before=key, after=_short(new) if new is not None else None)
            elif key == "additionalProperties":
                opened = new is None or new is True
                closed = old is None or old is True
                if opened and not closed:
                    self._add("constraint_loosened", path, before="additionalProperties")
                elif closed and not opened:
                    self._add("constraint_tightened", path, before="additionalProperties")
                elif isinstance(old, dict) and isinstance(new, dict):
                    self._parameter(_join(path, "*"), old, new, depth + 1)
                else:
                    self._add(
                        "constraint_tightened" if new is False else "constraint_loosened", path, before=key
                    )
            elif key in ("$defs", "definitions"):
                continue  # seen where a `$ref` uses them
            else:
                unknown.append(key)
        if details:
            self._add("schema_detail_changed", path, before=", ".join(details))
        for key in unknown:
            self._add("schema_unclassified", path, before=key)

    def _bound(self, path: str | None, key: str, old: Any, new: Any) -> None:
        numbers = all(isinstance(value, int | float) and not isinstance(value, bool) for value in (old, new))
        if old is None:
            tighter = True
        elif new is None:
            tighter = False
        elif numbers:
            tighter = new > old if key in _LOWER_BOUNDS else new < old
        else:
            self._add("schema_unclassified", path, before=key)
            return
        kind: ChangeKind = "constraint_tightened" if tighter else "constraint_loosened"
        shown = f"{_short(old) if old is not None else 'none'} → {_short(new) if new is not None else 'none'}"
        self._add(kind, path, before=key, after=shown)

    def _types(self, path: str, before: dict[str, Any], after: dict[str, Any]) -> None:
        old, new = _accepted_types(before), _accepted_types(after)
        if old == new:
            return
        shown_old, shown_new = _type_text(old), _type_text(new)
        if old is None or (new is not None and _covers(old, new)):
            self._add("type_narrowed", path, before=shown_old, after=shown_new)
        elif new is None or _covers(new, old):
            self._add("type_widened", path, before=shown_old, after=shown_new)
        else:
            self._add("type_changed", path, before=shown_old, after=shown_new)

    def _enum(self, path: str, before: dict[str, Any], after: dict[str, Any]) -> None:
        old, new = before.get("enum"), after.get("enum")
        if canonical_json(old) == canonical_json(new):
            return
        if not isinstance(new, list):
            self._add("constraint_loosened", path, before="enum")
            return
        if not isinstance(old, list):
            self._add("constraint_tightened", path, before="enum", after=", ".join(_short(v) for v in new))
            return
        old_values = {canonical_json(value): value for value in old}
        new_values = {canonical_json(value): value for value in new}
        for key in sorted(set(old_values) - set(new_values)):
            self._add("enum_value_removed", path, before=_short(old_values[key]))
        for key in sorted(set(new_values) - set(old_values)):
            self._add("enum_value_added", path, after=_short(new_values[key]))


def _accepted_types(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """The JSON types a schema accepts (None: any), from ``type`` or a union of plain-typed options."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset({declared})
    if isinstance(declared, list) and all(isinstance(item, str) for item in declared):
        return frozenset(declared)
    for key in ("anyOf", "oneOf"):
        union = _options_by_type(schema.get(key))
        if union is not None:
            return frozenset(union)
    return None


def _options_by_type(options: Any) -> dict[str, dict[str, Any]] | None:
    """A union whose options each declare one type, no two the same: type → option; else None."""
    if not isinstance(options, list) or not options:
        return None
    by_type: dict[str, dict[str, Any]] = {}
    for option in options:
        if (
            not isinstance(option, dict)
            or not isinstance(option.get("type"), str)
            or option["type"] in by_type
        ):
            return None
        by_type[option["type"]] = option
    return by_type


def _typed_union(options: Any) -> bool:
    return options is None or _options_by_type(options) is not None


def _covers(wide: frozenset[str], narrow: frozenset[str]) -> bool:
    """Every type in ``narrow`` is accepted by ``wide`` (a number accepts an integer)."""
    return all(kind in wide or (kind == "integer" and "number" in wide) for kind in narrow)


def _type_text(types: frozenset[str] | None) -> str:
    return "any" if types is None else " or ".join(sorted(types))


def _properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else {}


def _required(schema: Mapping[str, Any]) -> list[str]:
    required = schema.get("required")
    return [str(item) for item in required] if isinstance(required, list) else []


def _join(path: str | None, name: str) -> str:
    return name if path is None else f"{path}.{name}"


def counts(changes: Iterable[ClassifiedChange]) -> dict[ChangeClass, int]:
    tally = dict.fromkeys(CHANGE_CLASSES, 0)
    for item in changes:
        tally[item.classification] += 1
    return tally
