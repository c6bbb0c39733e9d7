"""Words, names and similarity: the text analysis the lint rules and the confusion prediction share.

Everything here is deterministic and dependency-free; the words themselves (splitting, stopwords,
stemming) are ``mcp_evals.text``'s, the lexical baseline's too. Descriptions become bags of stemmed
content words weighted by TF-IDF (a word every tool uses says little about any one of them); names become
their parts, with synonymous verbs mapped to one word (``get``/``fetch``/``read`` → ``get``) so that
``fetch_user`` and ``get_user`` read as the same name, as they do to a model.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcp_evals.text import name_parts, stem
from mcp_evals.verbs import SYNONYM

# How much a character says, in Latin-script characters: a Han character is about a word (English
# averages ~5 letters and a space per word, a Chinese sentence ~1.5 characters per word), a kana or
# Hangul syllable about two letters. Length thresholds (D002, N005, D008) count in these units, so a
# full sentence passes in any script.
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")
_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u1100-\u11ff\u3130-\u318f\uac00-\ud7af\uff66-\uff9f]")
HAN_WEIGHT = 3
KANA_HANGUL_WEIGHT = 2


def text_length(text: str) -> int:
    """The length of ``text`` in Latin-script characters: a Han character counts 3, a kana or Hangul
    syllable 2, anything else 1."""
    han = len(_HAN.findall(text))
    syllables = len(_KANA_HANGUL.findall(text))
    return len(text) + (HAN_WEIGHT - 1) * han + (KANA_HANGUL_WEIGHT - 1) * syllables


def canonical_parts(name: str) -> tuple[str, ...]:
    """Name parts with synonymous verbs merged, ``get all`` read as ``list``, other words stemmed."""
    parts = name_parts(name)
    merged: list[str] = []
    index = 0
    while index < len(parts):
        part = parts[index]
        if part in ("get", "fetch", "read") and index + 1 < len(parts) and parts[index + 1] == "all":
            merged.append("list")
            index += 2
            continue
        merged.append(SYNONYM.get(part) or stem(part))
        index += 1
    return tuple(merged)


def bigrams(text: str) -> frozenset[str]:
    padded = f" {text} "
    return frozenset(padded[index : index + 2] for index in range(len(padded) - 1))


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


Vector = dict[str, float]


@dataclass(frozen=True)
class TfIdf:
    """Unit-length TF-IDF vectors of a fixed set of documents (smoothed idf, sublinear tf)."""

    vectors: tuple[Vector, ...]
    idf: Mapping[str, float]

    @classmethod
    def fit(cls, documents: Sequence[Sequence[str]]) -> TfIdf:
        count = len(documents)
        frequency: Counter[str] = Counter()
        for document in documents:
            frequency.update(set(document))
        idf = {term: math.log((1 + count) / (1 + df)) + 1 for term, df in frequency.items()}
        vectors = []
        for document in documents:
            weights = {term: (1 + math.log(tf)) * idf[term] for term, tf in Counter(document).items()}
            norm = math.sqrt(sum(weight * weight for weight in weights.values())) or 1.0
            vectors.append({term: weight / norm for term, weight in weights.items()})
        return cls(vectors=tuple(vectors), idf=idf)


def cosine(a: Vector, b: Vector) -> float:
    """Cosine of two unit vectors."""
    if len(a) > len(b):
        a, b = b, a
    return sum(weight * b[term] for term, weight in a.items() if term in b)


def shared_terms(a: Vector, b: Vector, limit: int = 6) -> list[str]:
    """The terms two vectors share, those that add most to their cosine first."""
    common = [(a[term] * b[term], term) for term in a.keys() & b.keys()]
    common.sort(key=lambda item: (-item[0], item[1]))
    return [term for _, term in common[:limit]]
