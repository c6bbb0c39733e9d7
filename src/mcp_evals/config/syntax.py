"""A YAML syntax error in words a person new to YAML can act on.

PyYAML says "did not find expected key" or "mapping values are not allowed here"; most such errors
are a tab or a line indented to the wrong column, so the message names the tab, or shows the line
and the one above with their indentation and says which one looks wrong (PyYAML's words kept).
"""

from __future__ import annotations

_INDENTATION_PROBLEMS = (
    "did not find expected key",
    "did not find expected '-' indicator",
    "mapping values are not allowed",
    "expected <block end>",
    "block sequence entries are not allowed",
)


def explain_syntax_error(text: str, problem: str, line: int | None) -> str:
    """A YAML syntax error in words a person new to YAML can act on (PyYAML's own words kept last)."""
    lines = text.splitlines()
    if line is None or not 1 <= line <= len(lines):
        return f"YAML syntax error: {problem}"
    for number in (line, *range(1, line)):  # the line the parser stopped at, else the first tab above
        leading = _leading(lines[number - 1])
        if "\t" in leading:
            column = leading.index("\t") + 1
            return (
                f"YAML indents with spaces, not tabs (line {number}, column {column}): replace the tab "
                "with spaces"
            )
    if any(known in problem for known in _INDENTATION_PROBLEMS):
        return _explain_indentation(lines, line, problem)
    return f"YAML syntax error: {problem}"


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _explain_indentation(lines: list[str], line: int, problem: str) -> str:
    """Show the line and the one above with their indentation, and say which looks wrong."""
    current = lines[line - 1]
    above_number = next((n for n in range(line - 1, 0, -1) if _content(lines[n - 1])), None)
    indent = len(_leading(current))
    # The columns keys start at above this line: each line's indentation, and after a "- " the item's.
    columns: set[int] = set()
    item_columns: set[int] = set()
    for earlier in lines[: line - 1]:
        if not _content(earlier):
            continue
        start = len(_leading(earlier))
        columns.add(start)
        rest = earlier[start:]
        if rest.startswith("- "):
            item_columns.add(start)
            columns.add(start + 2 + len(rest[2:]) - len(rest[2:].lstrip(" ")))
    shown = [f"YAML syntax error: the indentation does not fit ({problem})"]
    if above_number is not None:
        above = lines[above_number - 1]
        shown.append(f"    {above_number:>4} | {above.rstrip()}    ← {_spaces(len(_leading(above)))}")
    shown.append(f"    {line:>4} | {current.rstrip()}    ← {_spaces(indent)}")
    used = ", ".join(str(column) for column in sorted(columns)) or "0"
    is_item = current.lstrip().startswith("- ")
    if indent in item_columns and not is_item:
        verdict = (
            f"line {line} looks wrong: it starts in the column of the list items above ({_spaces(indent)}) "
            "but is not a list item: indent it to the keys of the item it belongs to, or start a new item "
            "with `- `"
        )
    elif indent not in columns:
        verdict = (
            f"line {line} looks wrong: it is indented {_spaces(indent)}, a column no line above uses "
            f"(they use {used}); "
            + ("items of one list" if is_item else "keys of one mapping")
            + " start in the same column"
        )
    else:
        verdict = (
            f"line {above_number} looks wrong: line {line} starts in a column the lines above use, so the "
            f"line before it probably has too many or too few spaces, or a missing `:` or `- `"
        )
    shown.append(f"  {verdict}")
    return "\n".join(shown)


def _spaces(count: int) -> str:
    return "1 space" if count == 1 else f"{count} spaces"
