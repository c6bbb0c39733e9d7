"""The command line's one vocabulary (docs/cli.md): the option names, formats and units every command
uses, and the old spellings that still work for one release with one deprecation line.

- ``--out`` names every file or folder a command writes (``out_option``); ``--output`` is its old
  spelling. ``--results`` is the results a run writes (``run``: a file, ``session``: a folder) or
  that a command reads (``lint``).
- ``--format`` takes its values from ``FORMATS`` (``FormatChoice``); ``console`` is ``text``'s old name.
- A duration is seconds, or a number with a unit (``DurationType``, over ``durations.seconds``).
- ``--debug`` is accepted by every command, before or after its name (``accept_global_options``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from mcp_evals.durations import EXAMPLES, DurationError, Unit, has_unit, seconds, shown

F = TypeVar("F", bound=Callable[..., Any])

# Every report format a command may offer, by one name each.
FORMATS = ("text", "json", "md", "sarif", "junit", "html")
# Old format names → today's.
OLD_FORMATS: dict[str, str] = {"console": "text"}

DEBUG_HELP = "Show tracebacks for errors (accepted before or after the command's name)."
_WARNED = "mcp_evals.deprecations"


def deprecated(ctx: click.Context | None, old: str, new: str) -> None:
    """Say once per command line, on stderr, that ``old`` is now ``new`` (it goes in the next release)."""
    say_once(ctx, old, f"{old} is now {new}; the old spelling goes in the next release")


def say_once(ctx: click.Context | None, key: str, message: str) -> None:
    """One ``deprecated:`` line on stderr per ``key`` and command line, however often it is met."""
    said: set[str] = set() if ctx is None else ctx.find_root().meta.setdefault(_WARNED, set())
    if key in said:
        return
    said.add(key)
    click.echo(f"deprecated: {message}", err=True)


def _spelling(ctx: click.Context) -> str:
    return ctx.command_path.removeprefix(ctx.find_root().info_name or "").strip()


class AliasedOption(click.Option):
    """An option with old spellings that still parse, each saying once that it is deprecated.

    ``aliases`` maps an old spelling to ``None`` (it takes the option's value, as ``--output FILE``
    does for ``--out FILE``) or to the value it stands for (``--json`` for ``--format json``). The old
    spellings are not shown in ``--help``; a value given under the new name wins.
    """

    def __init__(self, *args: Any, aliases: Mapping[str, str | None] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.aliases = dict(aliases or {})

    def _dest(self, alias: str) -> str:
        return f"{self.name}\0{alias}"

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        super().add_to_parser(parser, ctx)
        for alias, value in self.aliases.items():
            if value is None:
                parser.add_option(
                    obj=self, opts=[alias], dest=self._dest(alias), action="store", nargs=self.nargs
                )
            else:
                parser.add_option(
                    obj=self, opts=[alias], dest=self._dest(alias), action="store_const", const=value
                )

    def consume_value(self, ctx: click.Context, opts: Mapping[str, Any]) -> tuple[Any, ParameterSource]:
        value, source = super().consume_value(ctx, opts)
        for alias, stands_for in self.aliases.items():
            given = opts.get(self._dest(alias))
            if given is None:
                continue
            new = self.opts[0] if stands_for is None else f"{self.opts[0]} {stands_for}"
            command = _spelling(ctx)
            deprecated(ctx, f"`{command} {alias}`", f"`{command} {new}`")
            if source is not ParameterSource.COMMANDLINE:
                value, source = given, ParameterSource.COMMANDLINE
        return value, source


def out_option(
    help: str,
    *,
    folder: bool = False,
    name: str = "out",
    old: Sequence[str] = (),
    **kwargs: Any,
) -> Callable[[F], F]:
    """``--out PATH``: where a command writes its file (or, with ``folder``, its folder). ``old``
    lists old spellings (``--output``) that still work for one release."""

    def decorate(function: F) -> F:
        return click.option(
            "--out",
            name,
            cls=AliasedOption,
            aliases=dict.fromkeys(old),
            type=click.Path(file_okay=not folder, dir_okay=folder, path_type=Path),
            help=help,
            **kwargs,
        )(function)

    return decorate


class FormatChoice(click.Choice[str]):
    """``--format``'s values: a subset of ``FORMATS``, in the order given; an old name (``console``)
    is read as today's with one deprecation line."""

    def __init__(self, *formats: str) -> None:
        unknown = [name for name in formats if name not in FORMATS]
        if unknown:
            raise ValueError(f"{unknown} are not in the vocabulary's formats {FORMATS}")
        super().__init__(formats, case_sensitive=True)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value in OLD_FORMATS and OLD_FORMATS[value] in self.choices:
            new = OLD_FORMATS[value]
            command = "" if ctx is None else _spelling(ctx) + " "
            deprecated(ctx, f"`{command}--format {value}`", f"`{command}--format {new}`")
            value = new
        return super().convert(value, param, ctx)


def format_option(*formats: str, help: str, name: str = "report_format", **kwargs: Any) -> Callable[[F], F]:
    """``--format NAME`` over ``FormatChoice(*formats)``; ``aliases`` may map old flags (``--json``)."""

    def decorate(function: F) -> F:
        return click.option(
            "--format", name, cls=AliasedOption, type=FormatChoice(*formats), help=help, **kwargs
        )(function)

    return decorate


class DurationType(click.ParamType[float]):
    """A duration flag: seconds, or a number with a unit (``500ms``, ``30s``, ``2m``), as seconds.

    ``bare="ms"`` keeps an option's old reading of a bare number (milliseconds) for one release, with
    one deprecation line; a number with a unit is always read as written.
    """

    name = "duration"

    def __init__(self, *, bare: Unit = "s", minimum: float = 0.0) -> None:
        self.bare: Unit = bare
        self.minimum = minimum

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "DURATION"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float):
            return value
        try:
            result = seconds(value, bare=self.bare)
        except DurationError as error:
            self.fail(str(error), param, ctx)
        if result < self.minimum:
            self.fail(f"{value!r} is shorter than {shown(self.minimum)}, the least it may be", param, ctx)
        if self.bare != "s" and not has_unit(value):
            option = param.opts[0] if param is not None and param.opts else "the option"
            command = "" if ctx is None else _spelling(ctx) + " "
            say_once(
                ctx,
                f"{command}{option}",
                f"`{command}{option} {value}` is read as {value}{self.bare} for one more release, then as "
                f"seconds: write the unit ({value}{self.bare}, or {EXAMPLES})",
            )
        return result


def duration_option(
    *names: str, help: str, bare: Unit = "s", minimum: float = 0.0, **kwargs: Any
) -> Callable[[F], F]:
    """A duration option (``--timeout 30s``); its help says which forms it takes."""
    units = "seconds, or a number with a unit: 500ms, 30s, 2m"
    if bare != "s":
        units += f" (a bare number is still {bare} for one release)"
    return click.option(
        *names, type=DurationType(bare=bare, minimum=minimum), help=f"{help} In {units}.", **kwargs
    )


def _debug_option() -> click.Option:
    return click.Option(["--debug"], is_flag=True, expose_value=False, help=DEBUG_HELP)


def accept_global_options(command: click.Command) -> click.Command:
    """Give ``command`` (and every subcommand) the global ``--debug``, so it reads the same after the
    command's name as before it (``main`` reads it from the arguments before click parses them)."""
    if not any("--debug" in parameter.opts for parameter in command.params):
        command.params.append(_debug_option())
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            accept_global_options(sub)
    return command
