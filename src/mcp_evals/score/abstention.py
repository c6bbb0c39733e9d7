"""Refusal or clarifying question: what an answer without a tool call was (a documented heuristic)."""

from __future__ import annotations

import re
from typing import Literal

_CLOSING_OFFER = re.compile(
    r"[^.!?\n]*\b(anything else|something else|other questions?|further (help|assistance)|"
    r"else (i|we) can help)\b[^.!?\n]*[?？]",
    re.IGNORECASE,
)
# "Would you like me to … instead?" after a refusal offers something else; it asks for nothing.
_ALTERNATIVE_OFFER = re.compile(
    r"[^.!?\n]*\b(would you like me to|do you want me to|want me to|shall i|should i|i could instead)\b"
    r"[^.!?\n]*[?？]",
    re.IGNORECASE,
)
_DECLINING = re.compile(
    r"\b(can(?:no|['’])?t|unable|not able|won['’]t|will not|do(?:n['’]| no)t have|no tool|not possible|"
    r"not supported|outside (?:of )?(?:my|the|what)|beyond (?:my|what))\b",
    re.IGNORECASE,
)
# An offer that names options or asks which/what is a clarifying question after all.
_CHOICE = re.compile(r"\b(or|which|what)\b", re.IGNORECASE)
_ASKING = re.compile(
    r"\b(could|can|would) you (please )?(provide|tell|specify|share|clarify|confirm|give|send|let me know)\b"
    r"|\bplease (provide|specify|share|tell|confirm|clarify|let me know|send|give)\b"
    r"|\b(which|what) (one|exactly|specific)\b"
    r"|\bi (will |would |'ll |’ll )?need (more|the|to know|some|a few|your)\b"
    r"|\bneed (more )?(information|details)\b"
    r"|\blet me know (which|what|the|your)\b",
    re.IGNORECASE,
)


def classify_abstention(text: str, stop_reason: str | None = None) -> Literal["refusal", "clarification"]:
    """Tell a refusal from a clarifying question when the model called no tool (a heuristic).

    The rule: a provider-flagged refusal is a refusal; otherwise closing offers ("Is there anything
    else I can help with?") are dropped, and so are offers of something else after a refusal ("I
    can't do that. Would you like me to search tickets instead?") unless they name options or ask
    which/what; what remains is a clarification if it asks a question (``?``) or uses asking words
    ("could you provide", "please specify", "which one", "I need the …"); anything else, an empty
    answer included, is a refusal.
    """
    if stop_reason == "refusal":
        return "refusal"
    remainder = _CLOSING_OFFER.sub(" ", text)
    if _DECLINING.search(remainder):
        remainder = _ALTERNATIVE_OFFER.sub(
            lambda offer: offer.group(0) if _CHOICE.search(offer.group(0)) else " ", remainder
        )
    if any(mark in remainder for mark in "?？¿"):
        return "clarification"
    return "clarification" if _ASKING.search(remainder) else "refusal"
