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

from collections.abc import Sequence
from typing import ClassVar

from mcp_evals.answers import Answer, GenerateOptions, Message, ToolChoice, ToolSpec
from mcp_evals.provider_registry import ProviderEntry
from mcp_evals.providers.base import NO_OPTIONS, OfflineProvider, tool_call

# What mcp-evals knows about the provider without importing its class (the capabilities it lacks,
# such as sessions or free text, stay False).
ENTRY = ProviderEntry("dummy", "mcp_evals_dummy:DummyProvider", default_model="dummy-1")


class DummyProvider(OfflineProvider):
    """Answers in-process. A provider has one call, ``generate``: the conversation and the tools in,
    an answer out; one with an API builds its request there (see mcp_evals/providers/openai.py)."""

    name: ClassVar = "dummy"
    label: ClassVar = "dummy provider (calls the tool the query names)"

    async def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice | None = None,
        options: GenerateOptions = NO_OPTIONS,
    ) -> Answer:
        query = next((message.text for message in reversed(messages) if message.role == "user"), "").lower()
        named = [spec.name for spec in tools if spec.name.lower() in query]
        if not named:
            return Answer(text="dummy: the query names no tool", stop_reason="end_turn")
        longest = max(named, key=len)  # `search_notes_all` before `search_notes`
        return Answer(calls=[tool_call(tools, longest, {})], stop_reason="tool_use")
