"""Did-you-mean: the known names an unknown one probably stands for (a leaf, on ``text`` and difflib).

Every "did you mean" — a fixture's tool, area or argument, a config key, a contract step, a flag's
value, a task's field — and validation's "probably renamed from" ask ``Suggester``, so they offer
the same guesses by one rule:

- the same name in another case is always offered;
- a name that reads as a slip of the keyboard is offered: character similarity (difflib's ratio) of
  at least ``SIMILAR``;
- a *preferred* name (validation prefers the tools no fixture covers yet: a renamed tool is both an
  unknown name in the fixtures and an uncovered one in the catalog) is offered with less likeness,
  when the two names share a word of three letters or more (split on ``_ - .`` and camelCase,
  stemmed): ``get_ticket`` → ``lookup_ticket_by_id``;
- a guess that shares no such word and is not that similar says nothing and is never offered
  (``search_nodes`` is no ``echo``, ``open_nodes`` no ``get-annotated-message``).

The best guesses are kept: those within ``WINDOW`` of the best, at most three (or ``limit``).
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from mcp_evals.text import name_parts, stem

SIMILAR = 0.6  # difflib's own default cutoff for close matches
PREFERRED_FLOOR = 0.45  # a preferred name sharing a word ranks at least this
NEAR_TYPO = 0.85  # beside a preferred name, only names this similar stay
WINDOW = 0.1
MIN_WORD = 3


def similarity(a: str, b: str) -> float:
    """How alike two texts are, 0–1, character by character (difflib's ratio, no junk heuristic)."""
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def name_words(name: str) -> frozenset[str]:
    """The words of a name that can carry meaning: parts of three letters or more, stemmed."""
    return frozenset(stem(part) for part in name_parts(name) if len(part) >= MIN_WORD)


def shares_a_word(a: str, b: str) -> bool:
    return bool(name_words(a) & name_words(b))


class Suggester:
    """ "Did you mean …" among ``names``, cached per unknown name (a rename repeats it a lot)."""

    def __init__(self, names: Iterable[str], *, limit: int = 3) -> None:
        self.names = sorted(set(names))
        self.limit = limit
        self.by_lower: dict[str, list[str]] = defaultdict(list)
        for name in self.names:
            self.by_lower[name.lower()].append(name)
        self.words = {lowered: name_words(lowered) for lowered in self.by_lower}
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
            return self.by_lower[lowered][: self.limit]
        favoured = {candidate.lower() for candidate in preferred}
        words = name_words(lowered)
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(lowered)
        scored: list[tuple[float, str]] = []
        for candidate in self.by_lower:
            matcher.set_seq1(candidate)
            if candidate in favoured and words & self.words[candidate]:
                score = max(matcher.ratio(), PREFERRED_FLOOR)
            elif matcher.real_quick_ratio() < SIMILAR or matcher.quick_ratio() < SIMILAR:
                continue
            else:
                score = matcher.ratio()
                if score < SIMILAR:
                    continue
            scored.append((score, candidate))
        if not scored:
            return []
        # Where a renamed tool's likely new name exists, other names stay only if they are near-typos.
        if any(candidate in favoured for _, candidate in scored):
            scored = [(score, c) for score, c in scored if c in favoured or score >= NEAR_TYPO]
        best = max(score for score, _ in scored)
        close = sorted(
            (item for item in scored if item[0] >= best - WINDOW), key=lambda item: (-item[0], item[1])
        )
        found = [original for _, match in close for original in self.by_lower[match]]
        return found[: self.limit]


def suggest(name: str, names: Iterable[str], *, limit: int = 3) -> list[str]:
    """The names ``name`` probably stands for (a one-off ``Suggester``)."""
    return Suggester(names, limit=limit)(name)


def quoted_list(names: Sequence[str], conjunction: str = "or", quote: Callable[[str], str] = repr) -> str:
    """``'a'``, ``'a' or 'b'``, ``'a', 'b' or 'c'``."""
    quoted = [quote(name) for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} {conjunction} {quoted[-1]}"


def did_you_mean(suggestions: Sequence[str], *, lead: str = " — ", quote: Callable[[str], str] = repr) -> str:
    """`` — did you mean 'a' or 'b'?``, or nothing when there is no suggestion."""
    return f"{lead}did you mean {quoted_list(suggestions, quote=quote)}?" if suggestions else ""


def edit_distance(a: str, b: str, limit: int | None = None) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. With
    ``limit``, any distance above it is returned as ``limit + 1`` (faster)."""
    if a == b:
        return 0
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    earlier: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], earlier[j - 2] + 1)
        # A row's least value never falls later (a swap reaches back two rows, but never below the
        # row between), so once it is over the limit the distance is too.
        if limit is not None and min(row) > limit:
            return limit + 1
        earlier, previous = previous, row
    found = previous[len(b)]
    return found if limit is None or found <= limit else limit + 1


def is_typo(written: str, meant: str) -> bool:
    """Two names a keystroke or two apart (``read_grpah`` for ``read_graph``): a typo, not a rename."""
    limit = 1 if len(meant) < 6 else 2
    return edit_distance(written.lower(), meant.lower(), limit) <= limit
