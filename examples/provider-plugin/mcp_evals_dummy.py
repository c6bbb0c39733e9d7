"""A provider for mcp-evals in one file: the ``dummy`` provider, a worked example of a plugin.

It calls the tool whose name the query mentions (``search_notes`` in "search_notes for my dentist
note"), else answers in words and calls nothing. No network, no key, no cost: it shows the shape of
a provider, not a model worth measuring. The package's ``pyproject.toml`` registers it::

    [project.entry-points."mcp_evals.providers"]
    dummy = "mcp_evals_dummy:ENTRY"

and from then on ``--provider dummy``, ``run: {provider: dummy}``, the Action's ``provider: dummy``
and the JSON schema of the config all accept it (tests/providers/test_plugins.py installs this file
and checks each of them).
"""

from __future__ import annotations

from typing import ClassVar

from mcp_evals.answers import ToolChoiceMode
from mcp_evals.provider_registry import ProviderEntry
from mcp_evals.providers.base import Answer, Job, OfflineProvider

# What mcp-evals knows about the provider without importing its class (the capabilities it lacks,
# such as sessions or free text, stay False).
ENTRY = ProviderEntry("dummy", "mcp_evals_dummy:DummyProvider", default_model="dummy-1")


class DummyProvider(OfflineProvider):
    """Answers in-process; a provider with an API implements ``build_request``, ``parse_response``
    and ``classify_error`` instead (see mcp_evals/providers/openai.py)."""

    name: ClassVar = "dummy"
    label: ClassVar = "dummy provider (calls the tool the query names)"

    async def answer(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        query = job.fixture.query.lower()
        named = [tool.name for tool in self.catalog.tools if tool.name.lower() in query]
        if not named:
            return Answer(text="dummy: the query names no tool", stop_reason="end_turn")
        longest = max(named, key=len)  # `search_notes_all` before `search_notes`
        call = self.tool_call(self.catalog.names.provider(longest), {})
        return Answer(calls=[call], stop_reason="tool_use")
