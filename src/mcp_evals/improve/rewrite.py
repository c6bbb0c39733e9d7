"""The proposer of ``--provider lexical``: a deterministic, rule-based rewrite (pure; no model, no key).

It answers what the lint and the dev split show, and nothing else:

* **distinguishing terms**: the words users used in the tool's dev requests that neither its own
  description nor its confused neighbour's (nor the neighbour's dev requests) have — ids, numbers
  and e-mail addresses left out — are added as "Use it for requests about …";
* **the boundary** (the lint's D006): the neighbour is named, "for what X does, use X instead";
* **parameters** the lint found without a description (S001, S002) get one from their name.

Its gains are the lexical baseline's: words alone, measured by words alone. They say how much more
distinguishable the catalog became by its wording, not what a model would gain.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.fixtures.model import Fixture
from mcp_evals.improve.model import ToolTarget
from mcp_evals.improve.prompts import Proposed
from mcp_evals.text import name_parts, surface_words

MAX_TERMS = 8
# Values, not words: ids (cus_1002, INV-2025-0207), numbers, amounts, e-mail addresses, URLs.
_VALUE = re.compile(r"\S+@\S+|https?://\S+|[\w.$€£-]*\d[\w.,$€£-]*")
_PARAMETER_RULES = ("S001", "S002")
# Words of a request that say nothing about which tool: people, chatter, the verbs of asking.
_CHATTER = frozenset(
    re.findall(
        r"[a-z]+",
        "he him his she her hers they them their theirs you your we our us got get gets did does do done "
        "say says said tell telling told want wants wanted need needs needed please just also still can "
        "could would should let lets make sure thing things something anything someone anybody nobody "
        "know think look looks yes okay hey thanks",
    )
)
# A capitalised word after the first one of a sentence: a name (Marco, Fernleaf), not a word of the job.
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+\b")
_FIRST_NAME = re.compile(r"^[A-Z][a-z]+(?= (?:was|is|has|had|said|says|wants|needs|asked)\b)")


def _stems(text: str) -> set[str]:
    return {stem for stem, _ in surface_words(text)}


def _tool_stems(tool: Tool) -> set[str]:
    return _stems(" ".join([tool.description, " ".join(name_parts(tool.name)), tool.title or ""]))


def distinguishing_terms(
    tool: Tool, neighbours: Sequence[Tool], dev: Sequence[Fixture], *, limit: int = MAX_TERMS
) -> list[str]:
    """Words of the tool's dev requests that its description and its neighbours' lack, most used first."""
    names = {other.name for other in neighbours}
    known = _tool_stems(tool)
    for other in neighbours:
        known |= _tool_stems(other)
    counts: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for fixture in dev:
        if fixture.kind != "select":
            continue
        words = surface_words(_FIRST_NAME.sub(" ", _NAME.sub(" ", _VALUE.sub(" ", fixture.query))))
        if tool.name in fixture.expected_tools:
            for stem, word in dict(words).items():
                counts[stem] += 1
                surface.setdefault(stem, word)
        elif names & set(fixture.expected_tools):
            known |= {stem for stem, _ in words}  # the neighbour's users' words tell nothing apart
    ranked = sorted(
        (stem for stem in counts if stem not in known and len(stem) > 2 and surface[stem] not in _CHATTER),
        key=lambda stem: (-counts[stem], stem),
    )
    return [surface[stem] for stem in ranked[:limit]]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?" else text + "."


def _parameter_text(name: str) -> str:
    words = " ".join(name_parts(name)) or name
    return f"The {words}."


def rewrite(target: ToolTarget, catalog: Catalog, dev: Sequence[Fixture]) -> Proposed:
    """The rule-based rewrite of one target tool (see the module docstring)."""
    tool = catalog.by_name[target.tool]
    neighbours = [catalog.by_name[name] for name in target.neighbours if name in catalog.by_name]
    parts = [_sentence(tool.description)] if tool.description.strip() else []
    terms = distinguishing_terms(tool, neighbours, dev)
    if terms:
        parts.append(f"Use it for requests about {', '.join(terms)}.")
    mentioned = _stems(tool.description)
    unnamed = [
        other.name for other in neighbours if not _stems(" ".join(name_parts(other.name))) <= mentioned
    ]
    if len(unnamed) == 1:
        parts.append(f"For what {unnamed[0]} does, use {unnamed[0]} instead.")
    elif unnamed:
        parts.append(f"For what {' or '.join(unnamed)} do, use those tools instead.")
    parameters = {
        note.parameter: _parameter_text(note.parameter)
        for note in target.findings
        if note.rule in _PARAMETER_RULES and note.parameter and note.parameter in tool.parameters
    }
    why = []
    if terms:
        why.append(f"adds the words its dev requests use and its neighbour's lack ({', '.join(terms)})")
    if unnamed:
        why.append(f"names {' and '.join(unnamed)} as where it stops")
    if parameters:
        why.append(f"describes {', '.join(parameters)}")
    return Proposed(" ".join(parts), parameters, "; ".join(why) or "nothing to add")
