"""What a session command needs before anything runs: the task set, its server and catalog, the plan.

Every problem here is bad input (exit 3) with one message: a task set that does not load, a server
that cannot be listed, a ``--fault`` level the task set does not define, a task set that does not
validate against the live catalog.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from mcp_evals.catalog.model import Catalog, build_catalog
from mcp_evals.config.isolation import IsolationKind
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.errors import ConfigError, InputFileError
from mcp_evals.servers.sandbox import Isolation, isolation_kind
from mcp_evals.session.load import load_task_set, server_of, session_config
from mcp_evals.session.model import ARM_NAMES, ArmName, FaultLevel, Task, TaskSet
from mcp_evals.session.validate import TaskProblem, validate_task_set
from mcp_evals.wording import plural


@dataclass
class Prepared:
    task_set: TaskSet
    tasks_path: Path
    config: Config
    server: ServerConfig
    catalog: Catalog
    isolation: Isolation = field(default_factory=Isolation)

    @property
    def isolation_kind(self) -> IsolationKind:
        return isolation_kind(self.server, self.isolation)


def prepare(
    tasks_path: Path, config: Config | None, task_set: TaskSet | None = None, *, keep_sandbox: bool = False
) -> Prepared:
    """Load the task set (unless it is given, loaded from ``tasks_path``), read its server's live
    catalog, and say how its sessions are kept apart (config, then task set)."""
    import anyio

    from mcp_evals.servers.client import list_server_tools

    if task_set is None:
        task_set = load_task_set(tasks_path)
    server = server_of(task_set, config, tasks_path)
    session_config_ = session_config(config, server, tasks_path)
    info = anyio.run(list_server_tools, server, session_config_)
    catalog = build_catalog([info], source=session_config_.path)
    isolation = Isolation.layered(
        (config, session_config_.base_dir), (task_set, tasks_path.resolve().parent), keep=keep_sandbox
    )
    return Prepared(task_set, tasks_path, session_config_, server, catalog, isolation)


def refuse_invalid(prepared: Prepared) -> list[TaskProblem]:
    """A run on a task set that does not match the catalog would measure noise: refuse it (exit 3)."""
    problems = validate_task_set(prepared.task_set, prepared.catalog)
    errors = [problem for problem in problems if problem.severity == "error"]
    if errors:
        shown = "\n".join(f"  {problem}" for problem in errors[:20])
        more = f"\n  … and {len(errors) - 20} more" if len(errors) > 20 else ""
        raise InputFileError(
            f"the task set does not validate against the live catalog ({plural(len(errors), 'error')}); "
            f"not running:\n{shown}{more}",
            hint="fix it (mcp-evals session validate lists every problem), then run again",
        )
    return problems


def choose_arms(option: str) -> list[ArmName]:
    """``--arm A``, ``B`` or ``both``."""
    return [arm for arm in ARM_NAMES if option in ("both", arm)]


def choose_levels(task_set: TaskSet, option: str | None) -> list[FaultLevel]:
    """The fault levels asked for (``--fault 0,20``), by percent; default every level of the task set."""
    if not option:
        return list(task_set.faults.levels)
    levels = []
    defined = ", ".join(f"{level.percent:g}" for level in task_set.faults.levels)
    for part in (piece.strip().rstrip("%") for piece in option.split(",")):
        if not part:
            continue
        try:
            percent = float(part)
        except ValueError:
            raise ConfigError(
                f"--fault {option!r}: {part!r} is not a percent", hint=f"e.g. --fault {defined}"
            ) from None
        level = task_set.faults.level(percent)
        if level is None:
            raise ConfigError(
                f"--fault {option!r}: the task set defines no {percent:g}% level (it has: {defined})",
                hint="add the level under `faults.levels` in the task set, or pick one of those",
            )
        if level not in levels:
            levels.append(level)
    if not levels:
        raise ConfigError(f"--fault {option!r}: no level given", hint=f"e.g. --fault {defined}")
    return levels


def choose_tasks(task_set: TaskSet, limit: int | None) -> list[Task]:
    return list(task_set.tasks[:limit] if limit else task_set.tasks)


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")
