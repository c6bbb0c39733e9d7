"""``mcp-evals schema``: the JSON Schema of the config, fixture and case files, for editor completion."""

from __future__ import annotations

import json
from typing import Any, Literal

import click

from mcp_evals.config.model import Config
from mcp_evals.fixtures.model import FixtureFile
from mcp_evals.wording import docs_url

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
Which = Literal["config", "fixtures", "contract", "session"]


def schema_document(which: Which) -> dict[str, Any]:
    """The JSON Schema of ``mcp-evals.yaml`` (``config``), a fixture file or a contract case file."""
    if which == "config":
        body = Config.model_json_schema()
        title = "mcp-evals config (mcp-evals.yaml)"
    elif which == "session":
        from mcp_evals.session.model import TaskSet

        body = TaskSet.model_json_schema()
        title = "mcp-evals session task set"
    elif which == "contract":
        from mcp_evals.contract.model import Case

        body = Case.model_json_schema()
        title = "mcp-evals contract case"
    else:
        body = FixtureFile.model_json_schema()
        title = "mcp-evals fixture file"
    body.pop("title", None)
    return {"$schema": SCHEMA_DIALECT, "title": title, **body}


def schema_text(which: Which) -> str:
    return json.dumps(schema_document(which), indent=2, ensure_ascii=False) + "\n"


@click.command(epilog=f"\b\nDocs: {docs_url('fixtures.md#editor-completion')}")
@click.argument("which", type=click.Choice(["config", "fixtures", "contract", "session"]), default="config")
def schema(which: Which) -> int:
    """Print the JSON Schema of the config file, a fixture file, a contract case file or a task set.

    \b
    Point your editor at it with a first line such as
      # yaml-language-server: $schema=./schemas/fixtures.schema.json
    """
    click.echo(schema_text(which), nl=False)
    return 0
