"""What a tool does, as far as its name and description say: a verb, its kind, and the objects it acts on.

The confusion score uses it for what word overlap misses (measured on tests/lint/calibration):

- two tools that do opposite things to one object (create/delete, start/stop), or that read and write
  it (get/update, reply/get replies), share most of their words and parameters, yet a model rarely
  takes one for the other: a request says which of the two it wants;
- two tools of one kind on one object, under different verbs (extract vs scrape of a URL, check vs
  retrieve a job's status), or one verb on sibling objects (create entities vs create relations) are
  the pairs models were observed to confuse, often with little word overlap.

The verb is the description's first word when it is one (an imperative or third-person opening:
"Send structured feedback…", "Retrieves…"), else the first verb of the name, else the first verb of
the description's opening words; everything here is a pure function of the tools.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from mcp_evals.catalog.model import Tool
from mcp_evals.lint.model import Relation
from mcp_evals.text import name_parts, stem
from mcp_evals.verbs import KIND, SYNONYM

# A verb's kind is verbs.KIND (read, create, update, delete, start, stop); a tool whose verb is unknown
# but that declares it is not read-only is of kind "write". Writes that undo one another; a read against
# any write is opposed as well.
OPPOSITE_KINDS = frozenset({frozenset({"create", "delete"}), frozenset({"start", "stop"})})
# Name and parameter words that say which value, not which thing: "channel_id" is about a channel.
_HANDLE_WORDS = frozenset(
    re.findall(r"\w+", "id ids uuid guid name names number num key keys ts identifier identifiers ref handle")
)
# Parameters that say how, not on what: a required `query` or `limit` names no object.
_HOW_WORDS = frozenset(
    re.findall(
        r"\w+",
        "query q text input value values data body content options params parameters args arguments limit "
        "offset page cursor format type mode filter filters sort order",
    )
)
FILLER = frozenset(re.findall(r"\w+", "a an the to or and by of for from in on with all at as"))
_OPENING = re.compile(r"[A-Za-z]+")
OPENING_WORDS = 8  # how far into the description a verb is looked for when the name has none


@dataclass(frozen=True)
class Action:
    """A tool's verb (synonyms merged), the kind of that verb, and the objects it acts on (stems)."""

    verb: str | None
    kind: str | None
    objects: frozenset[str]


def verb_of(word: str) -> str | None:
    """``word`` as a known action verb (``Retrieves`` → retrieve, ``finding`` → find), else None."""
    lowered = word.lower()
    candidates = [lowered]
    if lowered.endswith("ies"):
        candidates.append(lowered[:-3] + "y")
    if lowered.endswith("es"):
        candidates.append(lowered[:-2])
    if lowered.endswith("s"):
        candidates.append(lowered[:-1])
    if lowered.endswith("ing"):
        candidates += [lowered[:-3], lowered[:-3] + "e"]
    return next((candidate for candidate in candidates if candidate in KIND), None)


def _opening(description: str) -> list[str]:
    return _OPENING.findall(description)[:OPENING_WORDS]


def _word_df(tools: Sequence[Tool]) -> Counter[str]:
    return Counter(part for tool in tools for part in set(name_parts(tool.wire_name)))


def common_name_parts(tools: Sequence[Tool]) -> frozenset[str]:
    """Name parts most tools share (a server prefix such as ``firecrawl_``): they tell no tool apart."""
    if len(tools) < 4:
        return frozenset()
    counts = _word_df(tools)
    return frozenset(part for part, count in counts.items() if count > len(tools) / 2)


def action_of(tool: Tool, common: frozenset[str] = frozenset()) -> Action:
    """The verb, its kind and the objects of one tool (``common``: name parts to ignore)."""
    parts = [part for part in name_parts(tool.wire_name) if part not in common]
    opening = _opening(tool.description)
    raw = verb_of(opening[0]) if opening else None
    if raw is None:
        raw = next((found for part in parts if (found := verb_of(part)) is not None), None)
    if raw is None:
        raw = next((found for word in opening[1:] if (found := verb_of(word)) is not None), None)
    objects = {
        stem(part)
        for part in parts
        if part not in FILLER and part not in _HANDLE_WORDS and verb_of(part) is None and not part.isdigit()
    }
    for parameter in tool.required:
        objects |= {
            stem(part)
            for part in name_parts(parameter)
            if part not in _HANDLE_WORDS
            and part not in _HOW_WORDS
            and part not in FILLER
            and not part.isdigit()
        }
    if raw is None:
        return Action(verb=None, kind=_declared_kind(tool), objects=frozenset(objects))
    return Action(verb=SYNONYM.get(raw, raw), kind=KIND[raw], objects=frozenset(objects))


def _declared_kind(tool: Tool) -> str | None:
    """Without a known verb, the tool's own ``readOnlyHint`` says whether it reads or writes."""
    hint = (tool.annotations or {}).get("readOnlyHint")
    if hint is True:
        return "read"
    return "write" if hint is False else None


def relation(first: Action, second: Action) -> Relation:
    """How two actions relate: same (verb), kin (same kind), opposed, other (different writes), unknown.

    A kind of ``write`` is a tool that declares it is not read-only, with no verb known: it is opposed
    to a read, and unknown against any other write.
    """
    kinds = {first.kind, second.kind}
    if None in kinds:
        return "unknown"
    if first.verb is not None and first.verb == second.verb:
        return "same"
    if len(kinds) == 1 and "write" not in kinds:
        return "kin"
    if "read" in kinds and len(kinds) == 2:
        return "opposed"
    if "write" in kinds:
        return "unknown"
    return "opposed" if frozenset(kinds) in OPPOSITE_KINDS else "other"


def informativeness(count: int, total: int) -> float:
    """How much sharing a feature that ``count`` of ``total`` tools have says: 1 for a pair, 0 for all."""
    if total < 3 or count >= total:
        return 0.0 if count >= total else 1.0
    return math.log(total / count) / math.log(total / 2) if count > 2 else 1.0
