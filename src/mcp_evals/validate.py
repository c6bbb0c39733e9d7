"""Offline fixture validation: do the fixtures still match the live catalog?

``validate_fixtures`` is pure — fixtures and a catalog in, a list of ``Problem`` out (empty means
valid) — so it runs in a project's own test suite as well as behind ``mcp-evals validate``. It needs
no network and no model: renaming or removing a tool breaks it on the same pull request, and the
message reads as a rename ("tool 'get_ticket' is not in the catalog — did you mean 'fetch_ticket'?").

Rules (rule id · severity):

    duplicate-id · error              two fixtures share an id
    duplicate-query · error           two queries are equal after ignoring case, spaces, punctuation
    select-without-tools · error      a `select` fixture names no expected tool
    refuse-with-tools · error         a `refuse` (or `clarify-with-tools`: a `clarify`) fixture names tools
    refuse-with-args · error          … or expected_args (likewise `clarify-with-args`)
    duplicate-expected-tool · warning the same tool twice in one fixture
    unknown-tool · error              an expected tool is not in the catalog (with "did you mean")
    excluded-tool-expected · error    an expected tool is in `exclude_tools`
    unknown-argument · error          expected_args names no parameter of the expected tool(s)
    argument-type · error             a literal (or one_of item) fails the parameter's JSON Schema,
                                      or `contains` is used on a parameter that takes no text
    invalid-regex · error             a `regex` matcher does not compile
    unknown-area · error              a fixture's `area` is no known area
    unknown-pattern · warning         a pattern close to, but not in, `min_per_pattern` (a typo?)
    too-few-fixtures / too-many-fixtures · error
    no-fixtures · warning             the set is empty
    min-areas · error                 fewer areas covered than `min_areas`
    min-per-tool · error              a tool with fewer fixtures than `min_per_tool`
    min-per-pattern · error           a covered tool with too few fixtures of a pattern
    uncovered-tool · warning          a tool no fixture expects (error with `require_all_tools`)
    area-not-explicit · warning       `areas` is configured but matches no pattern for this tool
    area-pattern-unmatched · warning  an `areas` entry matches no tool (renamed?)
    exclude-unmatched · warning       an `exclude_tools` entry matches no tool
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field

from .catalog import Catalog, Tool, matches
from .config import ValidationOptions
from .errors import where
from .fixtures import MATCHERS, AnyValue, Contains, Fixture, OneOf, Regex, parse_expectation

Severity = Literal["error", "warning"]
ConfigKey = tuple[str | int, ...]


class Problem(BaseModel):
    """One finding of ``validate_fixtures``: what rule, how bad, where, and what to do."""

    model_config = ConfigDict(frozen=True)

    rule: str = Field(description="Stable rule id, e.g. `unknown-tool`.")
    severity: Severity
    message: str
    file: str | None = Field(None, description="The fixture file (or the config file) to edit.")
    line: int | None = None
    fixture_id: str | None = None
    config_key: ConfigKey | None = Field(
        None, description="The config setting the problem comes from, e.g. ('validation', 'min_areas')."
    )

    @property
    def location(self) -> str:
        return where(self.file, self.line)

    def __str__(self) -> str:
        prefix = f"{self.location}: " if self.location else ""
        return f"{prefix}{self.severity} [{self.rule}] {self.message}"


class Coverage(BaseModel):
    """How much of the catalog the fixture set exercises."""

    fixtures: int
    kinds: dict[str, int]
    tools: int = Field(description="Tools in the catalog, excluded ones not counted.")
    excluded_tools: int
    covered_tools: int
    areas: list[str]
    covered_areas: list[str]


_NOT_WORDS = re.compile(r"[\W_]+")


def normalize_query(query: str) -> str:
    """Case, whitespace and punctuation (and symbols) do not make two queries different."""
    return _NOT_WORDS.sub(" ", unicodedata.normalize("NFKC", query).casefold()).strip()


def fixture_area(fixture: Fixture, area_by_name: Mapping[str, str]) -> str | None:
    """The area a fixture counts in: its own `area`, else its first known expected tool's."""
    if fixture.area:
        return fixture.area
    return next((area_by_name[name] for name in fixture.expected_tools if name in area_by_name), None)


def coverage(fixtures: Sequence[Fixture], catalog: Catalog, *, exclude_tools: Sequence[str] = ()) -> Coverage:
    included = [tool for tool in catalog.tools if not matches(tool.name, exclude_tools)]
    expected = {name for fixture in fixtures for name in fixture.expected_tools}
    area_by_name = catalog.area_by_name
    covered_areas = {fixture_area(fixture, area_by_name) for fixture in fixtures}
    known_areas = catalog.areas
    return Coverage(
        fixtures=len(fixtures),
        kinds=dict(Counter(fixture.kind for fixture in fixtures)),
        tools=len(included),
        excluded_tools=len(catalog.tools) - len(included),
        covered_tools=sum(1 for tool in included if tool.name in expected),
        areas=known_areas,
        covered_areas=sorted(area for area in covered_areas if area in known_areas),
    )


def validate_fixtures(
    fixtures: Sequence[Fixture],
    catalog: Catalog,
    options: ValidationOptions | None = None,
    *,
    exclude_tools: Sequence[str] = (),
    areas: Mapping[str, Sequence[str]] | None = None,
) -> list[Problem]:
    """Check a fixture set against a catalog; an empty list means valid.

    ``options`` is the config's `validation:` section; ``exclude_tools`` and ``areas`` are the
    config's sections of the same names (``areas`` only matters for the warnings about it). Problems
    come errors first, then warnings, each group in file and line order, set-wide problems last.
    Problems that come from a config setting carry ``config_key`` but no file: ``locate_in_config``
    fills that in.
    """
    checker = _Checker(catalog, options or ValidationOptions(), exclude_tools, areas or {})
    checker.check(fixtures)
    return sorted(checker.problems, key=lambda problem: problem.severity != "error")


def locate_in_config(
    problems: Iterable[Problem], file: str, line_of: Callable[[ConfigKey], int | None]
) -> list[Problem]:
    """Point problems that come from a config setting at that setting's file and line."""
    return [
        problem.model_copy(update={"file": file, "line": line_of(problem.config_key)})
        if problem.config_key is not None and problem.file is None
        else problem
        for problem in problems
    ]


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(problem.severity == "error" for problem in problems)


def _quoted_list(names: Sequence[str], conjunction: str = "or") -> str:
    quoted = [repr(name) for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} {conjunction} {quoted[-1]}"


def plural(count: int, word: str) -> str:
    """``1 tool``, ``2 tools``: for counts in messages and summaries."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Suggester:
    """ "Did you mean …": near names, cached per distinct unknown name (a rename repeats it a lot)."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(set(names))
        self.by_lower: dict[str, list[str]] = defaultdict(list)
        for name in self.names:
            self.by_lower[name.lower()].append(name)
        self.cache: dict[tuple[str, tuple[str, ...]], list[str]] = {}

    def __call__(self, name: str, prefer: Iterable[str] = ()) -> list[str]:
        preferred = tuple(sorted(prefer))
        key = (name, preferred)
        if key not in self.cache:
            self.cache[key] = self._suggest(name, preferred)
        return self.cache[key]

    def _suggest(self, name: str, preferred: tuple[str, ...]) -> list[str]:
        lowered = name.lower()
        if lowered in self.by_lower:
            return self.by_lower[lowered][:3]
        # A renamed tool is both an unknown name in the fixtures and a tool no fixture covers yet:
        # such candidates need less resemblance (a shared word is enough) and outrank look-alikes.
        favoured = {candidate.lower() for candidate in preferred}
        words = _words(lowered)
        matcher = difflib.SequenceMatcher()
        matcher.set_seq2(lowered)
        scored: list[tuple[float, str]] = []
        for candidate in self.by_lower:
            matcher.set_seq1(candidate)
            bonus = candidate in favoured
            floor = 0.45 if bonus else 0.6
            if bonus and words & _words(candidate):
                score = max(matcher.ratio(), floor)
            elif matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
                continue
            else:
                score = matcher.ratio()
                if score < floor:
                    continue
            scored.append((score, candidate))
        if not scored:
            return []
        # Where a renamed tool's likely new name exists, other names stay only if they are near-typos.
        if any(candidate in favoured for _, candidate in scored):
            scored = [(score, c) for score, c in scored if c in favoured or score >= 0.85]
        best = max(score for score, _ in scored)
        close = sorted(
            (item for item in scored if item[0] >= best - 0.1), key=lambda item: (-item[0], item[1])
        )
        return [original for _, match in close[:3] for original in self.by_lower[match]][:3]


def _words(name: str) -> set[str]:
    return {word for word in re.split(r"[^a-z0-9]+", name) if len(word) >= 4}


def _did_you_mean(suggestions: Sequence[str]) -> str:
    return f" — did you mean {_quoted_list(suggestions)}?" if suggestions else ""


class _Checker:
    def __init__(
        self,
        catalog: Catalog,
        options: ValidationOptions,
        exclude_tools: Sequence[str],
        areas: Mapping[str, Sequence[str]],
    ) -> None:
        self.catalog = catalog
        self.options = options
        self.exclude_tools = list(exclude_tools)
        self.areas = areas
        self.problems: list[Problem] = []
        self.tools = catalog.by_name
        self.area_by_name = catalog.area_by_name
        self.excluded = {tool.name for tool in catalog.tools if matches(tool.name, self.exclude_tools)}
        self.known_areas = set(catalog.areas) | set(areas)
        self.tool_names = _Suggester(self.tools)
        self.area_names = _Suggester(self.known_areas)
        self.pattern_names = _Suggester(options.min_per_pattern)
        self.uncovered: list[str] = []  # tools no fixture expects: the likely new names of renamed ones
        self.renamed_from: dict[str, list[str]] = defaultdict(list)  # uncovered name -> unknown names
        self.schemas = _SchemaChecks()

    # -- reporting -------------------------------------------------------------------------------

    def fixture_problem(
        self, fixture: Fixture, rule: str, message: str, severity: Severity = "error"
    ) -> None:
        source = fixture.source
        self.problems.append(
            Problem(
                rule=rule,
                severity=severity,
                message=message,
                file=source.file if source else None,
                line=source.line if source else None,
                fixture_id=fixture.id,
            )
        )

    def set_problem(
        self, rule: str, message: str, severity: Severity = "error", config_key: ConfigKey | None = None
    ) -> None:
        self.problems.append(Problem(rule=rule, severity=severity, message=message, config_key=config_key))

    # -- the checks ------------------------------------------------------------------------------

    def check(self, fixtures: Sequence[Fixture]) -> None:
        expected = {name for fixture in fixtures for name in fixture.expected_tools}
        self.uncovered = [name for name in self.tools if name not in expected and name not in self.excluded]
        first_by_id: dict[str, Fixture] = {}
        first_by_query: dict[str, Fixture] = {}
        for fixture in fixtures:
            earlier = first_by_id.setdefault(fixture.id, fixture)
            if earlier is not fixture:
                self.fixture_problem(
                    fixture, "duplicate-id", f"id {fixture.id!r} is already used at {earlier.source or '?'}"
                )
            normalized = normalize_query(fixture.query)
            earlier = first_by_query.setdefault(normalized, fixture)
            if earlier is not fixture:
                self.fixture_problem(
                    fixture,
                    "duplicate-query",
                    f"fixture {fixture.id!r} asks the same as {earlier.id!r} ({earlier.source or '?'}) "
                    "once case, spaces and punctuation are ignored; reword it or remove one",
                )
            self.check_fixture(fixture)
        self.check_set(fixtures)

    def check_fixture(self, fixture: Fixture) -> None:
        self.check_kind(fixture)
        known = self.check_expected_tools(fixture)
        if known and fixture.expected_args:
            self.check_arguments(fixture, known)
        self.check_labels(fixture)

    def check_kind(self, fixture: Fixture) -> None:
        """`select` names tools; `refuse` and `clarify` name neither tools nor arguments."""
        if fixture.kind == "select" and not fixture.expected_tools:
            self.fixture_problem(
                fixture,
                "select-without-tools",
                f"fixture {fixture.id!r} names no expected tool; add `expected_tool: <name>`, "
                "or set `kind: refuse` (no tool fits) or `kind: clarify` (details are missing)",
            )
        if fixture.kind != "select":
            if fixture.expected_tools:
                self.fixture_problem(
                    fixture,
                    f"{fixture.kind}-with-tools",
                    f"fixture {fixture.id!r} is `kind: {fixture.kind}`, so the right answer is no tool "
                    f"call; remove `expected_tools` ({_quoted_list(fixture.expected_tools, 'and')})",
                )
            if fixture.expected_args:
                self.fixture_problem(
                    fixture,
                    f"{fixture.kind}-with-args",
                    f"fixture {fixture.id!r} is `kind: {fixture.kind}`, so it cannot expect arguments; "
                    "remove `expected_args`",
                )

    def check_expected_tools(self, fixture: Fixture) -> list[Tool]:
        """Each expected tool once, in the catalog and not excluded; returns the ones that are."""
        counts = Counter(fixture.expected_tools)
        for name in sorted(name for name, count in counts.items() if count > 1):
            self.fixture_problem(
                fixture,
                "duplicate-expected-tool",
                f"fixture {fixture.id!r} lists tool {name!r} twice",
                "warning",
            )
        known: list[Tool] = []
        for name in counts:
            tool = self.tools.get(name)
            if tool is None:
                suggestions = self.tool_names(name, self.uncovered)
                for suggestion in suggestions:
                    if suggestion in self.uncovered and name not in self.renamed_from[suggestion]:
                        self.renamed_from[suggestion].append(name)
                self.fixture_problem(
                    fixture,
                    "unknown-tool",
                    f"tool {name!r} is not in the catalog"
                    + (
                        _did_you_mean(suggestions)
                        or f" ({plural(len(self.tools), 'tool')}; `mcp-evals catalog` lists them)"
                    ),
                )
            elif name in self.excluded:
                self.fixture_problem(
                    fixture,
                    "excluded-tool-expected",
                    f"tool {name!r} is in `exclude_tools`, so no fixture may expect it; "
                    "remove it from this fixture or from `exclude_tools`",
                )
            else:
                known.append(tool)
        return known

    def check_labels(self, fixture: Fixture) -> None:
        """A fixture's `area` is a known one; its `pattern` is no near-miss of a counted one."""
        if fixture.area is not None and fixture.area not in self.known_areas:
            self.fixture_problem(
                fixture,
                "unknown-area",
                f"area {fixture.area!r} is not a known area"
                + (
                    _did_you_mean(self.area_names(fixture.area))
                    or f" (known: {', '.join(sorted(self.known_areas)) or 'none'})"
                ),
            )
        patterns = self.options.min_per_pattern
        if patterns and fixture.pattern is not None and fixture.pattern not in patterns:
            near = self.pattern_names(fixture.pattern)
            if near:
                self.fixture_problem(
                    fixture,
                    "unknown-pattern",
                    f"pattern {fixture.pattern!r} is not one that `min_per_pattern` counts"
                    + _did_you_mean(near),
                    "warning",
                )

    def check_arguments(self, fixture: Fixture, tools: list[Tool]) -> None:
        for argument, raw in fixture.expected_args.items():
            owners = [tool for tool in tools if argument in tool.parameters]
            if not owners:
                if any(_free_form(tool) for tool in tools):
                    continue
                parameters = sorted({name for tool in tools for name in tool.parameters})
                suggestions = difflib.get_close_matches(argument, parameters, n=2, cutoff=0.6)
                names = " or ".join(tool.name for tool in tools)
                listed = f" (its parameters: {', '.join(parameters)})" if parameters else " (it takes none)"
                self.fixture_problem(
                    fixture,
                    "unknown-argument",
                    f"expected_args.{argument}: {names} has no parameter {argument!r}"
                    + (_did_you_mean(suggestions) or listed),
                )
                continue
            for message in self.schemas.check(argument, parse_expectation(raw), owners):
                rule = "invalid-regex" if message.startswith("regex ") else "argument-type"
                self.fixture_problem(fixture, rule, f"expected_args.{argument}: {message}")

    def check_set(self, fixtures: Sequence[Fixture]) -> None:
        self.check_size(len(fixtures))
        per_tool, per_pattern, covered_areas = self.tally(fixtures)
        self.check_areas_covered(covered_areas)
        self.check_tools_covered(per_tool, per_pattern)
        self.check_config_patterns()

    def check_size(self, count: int) -> None:
        options = self.options
        if count < options.min_fixtures:
            self.set_problem(
                "too-few-fixtures",
                f"{plural(count, 'fixture')}; `validation.min_fixtures` asks for at least "
                f"{options.min_fixtures}",
                config_key=("validation", "min_fixtures"),
            )
        elif count == 0:
            self.set_problem("no-fixtures", "no fixtures: the `fixtures:` files hold none", "warning")
        if options.max_fixtures is not None and count > options.max_fixtures:
            self.set_problem(
                "too-many-fixtures",
                f"{plural(count, 'fixture')}; `validation.max_fixtures` allows at most "
                f"{options.max_fixtures}",
                config_key=("validation", "max_fixtures"),
            )

    def tally(self, fixtures: Sequence[Fixture]) -> tuple[Counter[str], dict[str, Counter[str]], set[str]]:
        """Fixtures per known tool, per tool and pattern, and the known areas they cover."""
        per_tool: Counter[str] = Counter()
        per_pattern: dict[str, Counter[str]] = defaultdict(Counter)
        covered_areas: set[str] = set()
        for fixture in fixtures:
            for name in set(fixture.expected_tools):
                if name in self.tools:
                    per_tool[name] += 1
                    if fixture.pattern is not None:
                        per_pattern[name][fixture.pattern] += 1
            area = fixture_area(fixture, self.area_by_name)
            if area is not None and area in self.known_areas:
                covered_areas.add(area)
        return per_tool, per_pattern, covered_areas

    def check_areas_covered(self, covered_areas: set[str]) -> None:
        options = self.options
        if len(covered_areas) < options.min_areas:
            missing = sorted(set(self.catalog.areas) - covered_areas)
            self.set_problem(
                "min-areas",
                f"the fixtures cover {plural(len(covered_areas), 'area')}"
                f"{' (' + ', '.join(sorted(covered_areas)) + ')' if covered_areas else ''}; "
                f"`validation.min_areas` asks for {options.min_areas}"
                + (f"; not covered: {', '.join(missing)}" if missing else ""),
                config_key=("validation", "min_areas"),
            )

    def check_tools_covered(self, per_tool: Counter[str], per_pattern: dict[str, Counter[str]]) -> None:
        options = self.options
        severity: Severity = "error" if options.require_all_tools else "warning"
        for tool in sorted(self.catalog.tools, key=lambda tool: (tool.area, tool.name)):
            if tool.name in self.excluded:
                continue
            have = per_tool[tool.name]
            if have == 0:
                why = "`validation.require_all_tools` is on" if options.require_all_tools else None
                old_names = self.renamed_from.get(tool.name)
                advice = (
                    f"; probably renamed from {_quoted_list(old_names)}, which fixtures still expect "
                    "(see unknown-tool)"
                    if old_names
                    else "; add one, or list it in `exclude_tools` if users never ask for it"
                )
                self.set_problem(
                    "uncovered-tool",
                    f"tool {tool.name!r} (area {tool.area!r}) has no fixture"
                    + (f" and {why}" if why else "")
                    + advice,
                    severity,
                    config_key=("validation", "require_all_tools") if why else None,
                )
                continue
            if have < options.min_per_tool:
                self.set_problem(
                    "min-per-tool",
                    f"tool {tool.name!r} has {plural(have, 'fixture')}; "
                    f"`validation.min_per_tool` asks for {options.min_per_tool}",
                    config_key=("validation", "min_per_tool"),
                )
            for pattern, wanted in options.min_per_pattern.items():
                got = per_pattern[tool.name][pattern]
                if got < wanted:
                    self.set_problem(
                        "min-per-pattern",
                        f"tool {tool.name!r} has {plural(got, repr(pattern) + ' fixture')}; "
                        f"`validation.min_per_pattern.{pattern}` asks for {wanted}",
                        config_key=("validation", "min_per_pattern", pattern),
                    )

    def check_config_patterns(self) -> None:
        """`areas` and `exclude_tools` entries that match nothing, and tools `areas` does not place."""
        if self.areas:
            for tool in self.catalog.tools:
                if not tool.area_explicit and tool.name not in self.excluded:
                    self.set_problem(
                        "area-not-explicit",
                        f"tool {tool.name!r} matches no pattern in `areas`, so it counts in area "
                        f"{tool.area!r} (its server's name); add it to an area",
                        "warning",
                        config_key=("areas",),
                    )
            unassigned = [tool.name for tool in self.catalog.tools if not tool.area_explicit]
            for area, patterns in self.areas.items():
                for index, pattern in enumerate(patterns):
                    if not any(matches(name, [pattern]) for name in self.tools):
                        self.set_problem(
                            "area-pattern-unmatched",
                            f"areas.{area} lists {pattern!r}, which matches no tool in the catalog"
                            + _did_you_mean(self.tool_names(pattern, unassigned)),
                            "warning",
                            config_key=("areas", area, index),
                        )
        for index, pattern in enumerate(self.exclude_tools):
            if not any(matches(name, [pattern]) for name in self.tools):
                self.set_problem(
                    "exclude-unmatched",
                    f"exclude_tools lists {pattern!r}, which matches no tool in the catalog"
                    + _did_you_mean(self.tool_names(pattern)),
                    "warning",
                    config_key=("exclude_tools", index),
                )


def _free_form(tool: Tool) -> bool:
    """A tool that declares no parameters but accepts any (``additionalProperties`` given)."""
    extra = tool.input_schema.get("additionalProperties")
    return not tool.parameters and (extra is True or isinstance(extra, dict))


class _SchemaChecks:
    """Type checks of expected arguments against parameter schemas, with compiled validators cached."""

    def __init__(self) -> None:
        self.validators: dict[tuple[str, str], Any] = {}
        self.quick: dict[tuple[str, str], Callable[[Any], bool] | None] = {}

    def validator(self, tool: Tool, parameter: str) -> Any:
        key = (tool.name, parameter)
        if key not in self.validators:
            self.validators[key] = self._build(tool, parameter)
        return self.validators[key]

    def surely_valid(self, tool: Tool, parameter: str, value: Any) -> bool:
        """A fast yes for the common simple schemas (type/enum/const); False means "ask jsonschema"."""
        key = (tool.name, parameter)
        if key not in self.quick:
            schema = tool.parameters.get(parameter)
            self.quick[key] = _quick_check(schema, tool.input_schema) if isinstance(schema, dict) else None
        check = self.quick[key]
        return check is not None and check(value)

    @staticmethod
    def _build(tool: Tool, parameter: str) -> Any:
        schema = tool.parameters.get(parameter)
        if not isinstance(schema, dict):
            return None
        # A parameter's schema may $ref the tool's $defs (pydantic emits those): carry them along.
        document = dict(schema)
        for key in ("$defs", "definitions"):
            if key in tool.input_schema and key not in document:
                document[key] = tool.input_schema[key]
        if "$schema" in tool.input_schema and "$schema" not in document:
            document["$schema"] = tool.input_schema["$schema"]
        try:
            cls = jsonschema.validators.validator_for(document, default=jsonschema.Draft202012Validator)
            return cls(document)
        except Exception:  # a server's broken schema is the linter's business, not ours
            return None

    def errors(self, tool: Tool, parameter: str, value: Any) -> str | None:
        if self.surely_valid(tool, parameter, value):
            return None
        validator = self.validator(tool, parameter)
        if validator is None:
            return None
        try:
            error = jsonschema.exceptions.best_match(validator.iter_errors(value))
        except Exception:  # an unresolvable $ref or unknown type: cannot check
            return None
        return None if error is None else error.message

    def check(self, parameter: str, expectation: Any, tools: list[Tool]) -> list[str]:
        if isinstance(expectation, AnyValue):
            return []
        if isinstance(expectation, Regex):
            try:
                re.compile(expectation.regex)
            except re.error as error:
                return [f"regex {expectation.regex!r} does not compile ({error})"]
            return []
        messages: list[str] = []
        for tool in tools:
            schema = tool.parameters.get(parameter)
            if isinstance(expectation, Contains):
                if isinstance(schema, dict) and not _accepts_text(schema, tool.input_schema):
                    messages.append(
                        f"`contains` only applies to text, but {tool.name}'s {parameter!r} takes "
                        f"{_describe_type(schema)}; give the exact value or use `one_of`"
                    )
                continue
            values = expectation.one_of if isinstance(expectation, OneOf) else [expectation]
            for index, value in enumerate(values):
                label = f"one_of[{index}] " if isinstance(expectation, OneOf) else ""
                nested = parse_expectation(value) if label else value
                if isinstance(nested, Contains | Regex | OneOf | AnyValue):
                    messages.extend(f"{label}{message}" for message in self.check(parameter, nested, [tool]))
                    continue
                problem = self.errors(tool, parameter, value)
                if problem is not None:
                    messages.append(
                        f"{label}{_short(value)} does not fit {tool.name}'s {parameter!r}: {problem}"
                        + _did_you_mean_matcher(value)
                    )
        return messages


def _did_you_mean_matcher(value: Any) -> str:
    """A one-key mapping that failed as a literal may be a misspelt matcher (`{contain: …}`)."""
    if not (isinstance(value, dict) and len(value) == 1):
        return ""
    near = difflib.get_close_matches(str(next(iter(value))), list(MATCHERS), n=1, cutoff=0.6)
    return f" — did you mean the matcher `{near[0]}`?" if near else ""


# Keywords that never make a value invalid (jsonschema checks `format` only when asked to).
_ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "format",
    }
)
_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: (
        (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and value.is_integer())
    ),
    "number": lambda value: _is_number(value),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
}


_BOUNDS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": lambda value, bound: value >= bound,
    "maximum": lambda value, bound: value <= bound,
    "exclusiveMinimum": lambda value, bound: value > bound,
    "exclusiveMaximum": lambda value, bound: value < bound,
}
_LENGTHS: dict[str, Callable[[int, int], bool]] = {
    "minLength": lambda length, size: length >= size,
    "maxLength": lambda length, size: length <= size,
}
_QUICK_KEYWORDS = frozenset({"type", "enum", "const", "pattern", *_BOUNDS, *_LENGTHS})


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bounded(holds: Callable[[Any, Any], bool], bound: Any) -> Callable[[Any], bool]:
    return lambda value: not _is_number(value) or holds(value, bound)


def _sized(holds: Callable[[int, int], bool], size: int) -> Callable[[Any], bool]:
    return lambda value: not isinstance(value, str) or holds(len(value), size)


def _same(a: Any, b: Any) -> bool:
    """JSON equality for enum/const: true is not 1."""
    return isinstance(a, bool) == isinstance(b, bool) and not isinstance(a, dict | list) and a == b


def _quick_check(
    schema: dict[str, Any], root: dict[str, Any], depth: int = 0
) -> Callable[[Any], bool] | None:
    """A predicate that is True only for values the schema surely accepts, or None when the schema
    uses anything beyond `type`, `enum`, `const`, `anyOf` and local `$ref`s."""
    keys = set(schema) - _ANNOTATIONS
    if depth > 8:
        return None
    if "$ref" in schema:
        target = _resolve(schema, root)
        return None if keys != {"$ref"} or target is schema else _quick_check(target, root, depth + 1)
    if keys == {"anyOf"} and isinstance(schema["anyOf"], list):
        branches = [
            _quick_check(b, root, depth + 1) if isinstance(b, dict) else None for b in schema["anyOf"]
        ]
        if any(branch is None for branch in branches):
            return None
        known = [branch for branch in branches if branch is not None]
        return lambda value: any(branch(value) for branch in known)
    if not keys <= _QUICK_KEYWORDS:
        return None
    checks: list[Callable[[Any], bool]] = []
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
        if kinds is None or any(item not in _TYPE_CHECKS for item in kinds):
            return None
        type_checks = [_TYPE_CHECKS[item] for item in kinds]
        checks.append(lambda value: any(check(value) for check in type_checks))
    if "enum" in schema:
        options = schema["enum"]
        if not isinstance(options, list):
            return None
        checks.append(lambda value: any(_same(value, option) for option in options))
    if "const" in schema:
        constant = schema["const"]
        checks.append(lambda value: _same(value, constant))
    for keyword, holds in _BOUNDS.items():
        if keyword in schema:
            if not _is_number(schema[keyword]):
                return None
            checks.append(_bounded(holds, schema[keyword]))
    for keyword, holds in _LENGTHS.items():
        if keyword in schema:
            if not _TYPE_CHECKS["integer"](schema[keyword]):
                return None
            checks.append(_sized(holds, schema[keyword]))
    if "pattern" in schema:
        try:
            pattern = re.compile(schema["pattern"])
        except (re.error, TypeError):
            return None
        checks.append(lambda value: not isinstance(value, str) or pattern.search(value) is not None)
    return lambda value: all(check(value) for check in checks)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    reference = schema.get("$ref")
    if not isinstance(reference, str) or not reference.startswith("#/"):
        return schema
    target: Any = root
    for part in reference[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, dict) or part not in target:
            return schema
        target = target[part]
    return target if isinstance(target, dict) else schema


def _accepts_text(schema: dict[str, Any], root: dict[str, Any], depth: int = 0) -> bool:
    """Whether a string can be valid here, judged from `type`, `enum`, `const` and combinators."""
    if depth > 16:
        return True
    schema = _resolve(schema, root)
    kind = schema.get("type")
    if isinstance(kind, str) and kind != "string":
        return False
    if isinstance(kind, list) and "string" not in kind:
        return False
    if "enum" in schema and isinstance(schema["enum"], list):
        return any(isinstance(item, str) for item in schema["enum"])
    if "const" in schema:
        return isinstance(schema["const"], str)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            return any(isinstance(b, dict) and _accepts_text(b, root, depth + 1) for b in branches)
    branches = schema.get("allOf")
    if isinstance(branches, list):
        return all(not isinstance(b, dict) or _accepts_text(b, root, depth + 1) for b in branches)
    return True


def _describe_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return " or ".join(str(item) for item in kind)
    if "enum" in schema:
        return f"one of {_short(schema['enum'])}"
    return "no text"
