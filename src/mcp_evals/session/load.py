"""Reading a task set, and the server and catalog it runs against.

Problems are ``InputFileError``s naming ``file:line (field)``; the CLI turns them into one message
and exit 3.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.config.documents import describe_validation_error, load_document_as, shown
from mcp_evals.config.isolation import check_state
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.contract.model import CaseServer
from mcp_evals.errors import ConfigError, InputFileError, where
from mcp_evals.session.model import ArmName, TaskSet
from mcp_evals.wording import docs_url


def load_task_set(path: Path) -> TaskSet:
    """Read and check one task-set file (YAML or JSON)."""
    display = shown(path)
    if not path.is_file():
        raise InputFileError(
            f"{display}: {'is a folder, not a file' if path.is_dir() else 'task set not found'}",
            hint=f"give the task-set file with --tasks (see {docs_url('sessions.md')})",
        )
    document = load_document_as(path, display)
    if not isinstance(document.data, dict):
        raise InputFileError(
            f"{display}: a task set is a mapping with `system_prompt` and `tasks`",
            hint=f"see {docs_url('sessions.md')}",
        )
    try:
        task_set = TaskSet.model_validate(document.data)
    except ValidationError as error:
        raise InputFileError(describe_validation_error(error, document)) from None
    task_set.located(path.resolve(), display, document.lines)
    check_state(task_set, task_set.state)
    return task_set


def server_of(task_set: TaskSet, config: Config | None, tasks_path: Path) -> ServerConfig:
    """The server the sessions run against: the task set's own block, a config server it names, or
    the config's only server."""
    wanted = task_set.server
    if isinstance(wanted, CaseServer):
        return wanted.to_server_config("session", tasks_path.resolve().parent)
    located = where(task_set.shown_path, task_set.line_of(("server",)), "server")
    if config is None:
        raise ConfigError(
            f"{located}: no server: the task set names none and there is no config"
            if wanted is None
            else f"{located}: {wanted!r} names a config server, but there is no config",
            hint="give the task set a `server:` block (command/args or url), or pass --config",
        )
    if wanted is None:
        if len(config.servers) != 1:
            raise ConfigError(
                f"{located}: the config has {len(config.servers)} servers; "
                "name one in the task set's `server:`",
                hint=f"e.g. server: {config.servers[0].name}"
                if config.servers
                else "give the task set a `server:` block (command/args or url)",
            )
        server = config.servers[0]
    else:
        found = next((server for server in config.servers if server.name == wanted), None)
        if found is None:
            names = ", ".join(server.name for server in config.servers) or "none"
            raise ConfigError(f"{located}: no server {wanted!r} in {config.shown_path} (it has: {names})")
        server = found
    if server.snapshot:
        raise ConfigError(
            f"{located}: server {server.name!r} is a saved snapshot; sessions call tools and need a live one",
            hint="give the task set a `server:` block, or a config server with `command:` or `url:`",
        )
    return server


def session_config(config: Config | None, server: ServerConfig, tasks_path: Path) -> Config:
    """The config sessions are opened with: the user's, or a stand-in holding only the server."""
    if config is not None:
        return config
    stand_in = Config(servers=[server])
    stand_in._path = tasks_path.resolve().parent / "mcp-evals.yaml"
    return stand_in


def arm_catalog(catalog: Catalog, task_set: TaskSet, arm: ArmName) -> Catalog:
    """The catalog an arm's model sees: the server's, with the arm's rewritten descriptions."""
    rewritten = task_set.arms[arm].descriptions
    if not rewritten:
        return catalog
    tools: list[Tool] = [
        tool.model_copy(update={"description": rewritten[tool.name]}) if tool.name in rewritten else tool
        for tool in catalog.tools
    ]
    return catalog.model_copy(update={"tools": tools})
