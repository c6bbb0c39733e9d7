"""What synthesis passes between its steps: intents (catalog-aware) and their paraphrases (held out)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

IntentKind = Literal["select", "refuse", "clarify"]
PATTERNS = ("specific", "category", "boundary")


@dataclass
class Intent:
    """A user goal, as the catalog-aware step wrote it: what they want, and the values they give.

    ``values`` maps each parameter to the concrete value the user states; ``missing`` (clarify
    intents) names the required parameters the user leaves out.
    """

    kind: IntentKind
    goal: str
    tool: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    pattern: str | None = None
    missing: list[str] = field(default_factory=list)
    source: str = ""  # which request wrote it: "tool X", "pair X/Y", "refuse", "clarify"

    @property
    def must_include(self) -> list[str]:
        """The values the paraphrase must keep verbatim (the only part of ``values`` it sees)."""
        shown = []
        for value in self.values.values():
            if isinstance(value, bool) or value is None or isinstance(value, dict | list):
                continue
            text = str(value).strip()
            if text and text not in shown:
                shown.append(text)
        return shown


@dataclass
class Candidate:
    """An intent with the query the held-out step wrote for it."""

    intent: Intent
    query: str


@dataclass
class SynthSettings:
    """What ``mcp-evals synth`` was asked for."""

    per_tool: int = 3
    refuse: int = 5
    clarify: int = 5
    persona: str = "someone who uses this product at work and has never seen its tools"
    language: str = "English"
    test_share: float = 0.3
    pairs: int = 10  # confusable pairs (as the lint ranks them) that get boundary intents
    batch: int = 10  # intents per paraphrase request
