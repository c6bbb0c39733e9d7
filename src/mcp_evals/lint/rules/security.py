"""X — security: text in a catalog that steers the model instead of describing a tool (tool poisoning).

A tool's name, description and schema are read by the model as instructions, so they are where an
attack on tool selection hides: hidden characters the user never sees, "ignore previous instructions",
"do not use any other tool", an API key, a link that carries the conversation away, a description
that claims another server's tool's job. Every text a model may be shown is read: tool names, titles,
descriptions and every string in the input and output schemas (descriptions, titles, enum values,
defaults, examples), the server's instructions, and the names, titles and descriptions of its
prompts (and their arguments) and resources.

Code points are reported as ``U+XXXX NAME`` and secrets by their kind and first characters: a finding
never carries the raw character or the whole secret. The patterns are written to stay silent on real
catalogs (the five reference servers and the examples are checked in tests/lint/test_security.py):
a phrase quoted as an example ("detects 'ignore previous instructions'") is a mention, not an order.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.registry import rule
from mcp_evals.wording import plural, shorten

# ------------------------------------------------------------------------------------------------ texts


@dataclass(frozen=True)
class Text:
    """One text of the catalog a model may read, and where it is."""

    text: str
    where: str  # "the description of 'get_user'", "prompt 'plan' argument 'city'"
    server: str
    tool: str | None = None  # the catalog tool it belongs to
    subject: str | None = None  # what it belongs to when not a tool: "prompt 'x'", "server 'y'"
    parameter: str | None = None
    prose: bool = True  # False for names and keys: only their characters are checked


def _schema_texts(schema: Any, pointer: str) -> Iterator[tuple[str, str, bool]]:
    """(JSON pointer, string, is prose) for every string in a schema; keys are checked as names."""
    stack: list[tuple[str, Any]] = [(pointer, schema)]
    seen = 0
    while stack and seen < 20_000:
        where, value = stack.pop()
        seen += 1
        if isinstance(value, str):
            yield where, value, True
        elif isinstance(value, dict):
            for key, child in value.items():
                step = str(key).replace("~", "~0").replace("/", "~1")
                yield f"{where}/{step}", str(key), False
                stack.append((f"{where}/{step}", child))
        elif isinstance(value, list):
            stack.extend((f"{where}/{index}", child) for index, child in enumerate(value))


_PROPERTY = re.compile(r"/properties/([^/]+)")


def _parameter(pointer: str) -> str | None:
    """``/properties/filter/properties/status/description`` → ``filter.status``."""
    if "/properties/" not in pointer:
        return None
    return ".".join(_PROPERTY.findall(pointer)) or None


def catalog_texts(context: LintContext) -> list[Text]:
    """Every text of the catalog a model may be shown, tools first."""
    found: list[Text] = []
    for tool in context.tools:
        name = tool.name
        label = f"{name!r}"
        found.append(Text(tool.wire_name, f"the name of {label}", tool.server, name, prose=False))
        if tool.title:
            found.append(Text(tool.title, f"the title of {label}", tool.server, name))
        if tool.description:
            found.append(Text(tool.description, f"the description of {label}", tool.server, name))
        for key, schema in (("inputSchema", tool.input_schema), ("outputSchema", tool.output_schema)):
            for pointer, text, prose in _schema_texts(schema, ""):
                where = f"{key} {pointer} of {label}"
                parameter = _parameter(pointer) if key == "inputSchema" else None
                found.append(Text(text, where, tool.server, name, parameter=parameter, prose=prose))
        for key, value in (tool.annotations or {}).items():
            if isinstance(value, str):
                found.append(Text(value, f"annotation {key} of {label}", tool.server, name))
    for server in context.catalog.servers:
        if server.instructions:
            subject = f"server {server.name!r}"
            found.append(
                Text(server.instructions, f"the instructions of {subject}", server.name, subject=subject)
            )
    for prompt in context.catalog.prompts:
        subject = f"prompt {prompt.name!r}"
        found.append(Text(prompt.name, f"the name of {subject}", prompt.server, subject=subject, prose=False))
        for value, where in ((prompt.title, "title"), (prompt.description, "description")):
            if value:
                found.append(Text(value, f"the {where} of {subject}", prompt.server, subject=subject))
        for argument in prompt.arguments:
            at = f"{subject} argument {argument.name!r}"
            found.append(
                Text(argument.name, f"the name of {at}", prompt.server, subject=subject, prose=False)
            )
            for value in (argument.title, argument.description):
                if value:
                    found.append(Text(value, f"the description of {at}", prompt.server, subject=subject))
    for resource in context.catalog.resources:
        subject = f"{resource.kind} {resource.uri!r}"
        found.append(
            Text(resource.uri, f"the URI of {subject}", resource.server, subject=subject, prose=False)
        )
        for value, where in (
            (resource.name, "name"),
            (resource.title, "title"),
            (resource.description, "description"),
        ):
            if value:
                found.append(Text(value, f"the {where} of {subject}", resource.server, subject=subject))
    return found


@dataclass(frozen=True)
class Scanned:
    """A text with what several rules look at, computed once per lint."""

    text: Text
    hidden: list[tuple[int, str]]
    flat: str  # what the model effectively reads, whitespace collapsed (prose only)


def scanned(context: LintContext) -> list[Scanned]:
    """Every text of the catalog, scanned once per lint (the rules of this module share it)."""
    store = vars(context)  # the context's own cache, as its cached properties use
    if "_security_scan" not in store:
        found = []
        seen: dict[tuple[str, bool], tuple[list[tuple[int, str]], str]] = {}  # keys and phrases repeat
        for text in catalog_texts(context):
            key = (text.text, text.prose)
            if key not in seen:
                hidden = hidden_characters(text.text)
                seen[key] = hidden, " ".join(_without(text.text, hidden).split()) if text.prose else ""
            hidden, flat = seen[key]
            found.append(Scanned(text, hidden, flat))
        store["_security_scan"] = found
    result: list[Scanned] = store["_security_scan"]
    return result


def hit_at(text: Text, message: str) -> Hit:
    return Hit(
        message,
        tools=(text.tool,) if text.tool else (),
        parameter=text.parameter,
        subject=None if text.tool else text.subject,
        server=text.server,
    )


# ------------------------------------------------------------------------------------------------ X001


_BIDI = frozenset([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
_INVISIBLE = frozenset(
    [0x00AD, 0x034F, 0x115F, 0x1160, 0x180E, 0x200B, *range(0x2060, 0x2065), 0x3164, 0xFEFF, 0xFFA0]
)
_JOINERS = frozenset([0x200C, 0x200D])  # fine between letters of scripts that use them, and in emoji
_KEYCAP_BASES = frozenset("0123456789#*")


def _is_variation_selector(code: int) -> bool:
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _suspicious(text: str, index: int) -> str | None:
    """Why the character at ``index`` is hidden or a control character, or None when it is fine."""
    code = ord(text[index])
    if code < 0x20 and text[index] not in "\t\n\r":
        return "an ANSI escape" if code == 0x1B else "a control character"
    if 0x7F <= code <= 0x9F:
        return "a control character"
    if code in _BIDI:
        return "a bidirectional override"
    if 0xE0000 <= code <= 0xE007F:
        return "a Unicode tag character"
    if code in _INVISIBLE:
        return "an invisible character"
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if code in _JOINERS:
        # Legitimate inside emoji sequences and in scripts that join letters (Arabic, Indic, …).
        if before and after and not before.isascii() and not after.isascii():
            return None
        return "an invisible character"
    if _is_variation_selector(code):
        # Legitimate right after a symbol (emoji presentation), a keycap base or a CJK character.
        if (
            before
            and (not before.isascii() or before in _KEYCAP_BASES)
            and not _is_variation_selector(ord(before))
        ):
            return None
        return "a variation selector with nothing to vary (hidden data)"
    return None


def code_point(character: str) -> str:
    """``U+200B ZERO WIDTH SPACE``: a character named, never printed."""
    code = ord(character)
    name = unicodedata.name(character, "")
    if not name:
        if 0xE0000 <= code <= 0xE007F:
            name = "TAG CHARACTER"
        elif code < 0x20 or 0x7F <= code <= 0x9F:
            name = "CONTROL CHARACTER"
    return f"U+{code:04X}" + (f" {name}" if name else "")


# Every character ``_suspicious`` may report: only these positions are looked at.
_CANDIDATES = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)


def hidden_characters(text: str) -> list[tuple[int, str]]:
    """(index, why) of every hidden or control character of ``text``."""
    return [
        (match.start(), why)
        for match in _CANDIDATES.finditer(text)
        if (why := _suspicious(text, match.start())) is not None
    ]


def _tag_text(text: str) -> str:
    """What Unicode tag characters spell (they mirror ASCII), printable ASCII only."""
    spelled = "".join(chr(ord(char) - 0xE0000) for char in text if 0xE0020 <= ord(char) <= 0xE007E)
    return spelled


def visible(text: str) -> str:
    """``text`` with every hidden or control character replaced by ``⟨U+XXXX⟩`` (safe to print)."""
    hidden = {index for index, _ in hidden_characters(text)}
    if not hidden:
        return text
    return "".join(f"⟨U+{ord(char):04X}⟩" if index in hidden else char for index, char in enumerate(text))


@rule(
    "X001",
    "Hidden or control characters",
    severity="error",
    why="Zero-width characters, bidirectional overrides, Unicode tag characters and ANSI escapes are "
    "invisible (or rewrite what is shown) in a client's tool list and a code review, but the model reads "
    "them: the classic carrier of instructions a user cannot see.",
    fix="Remove them (each is named by its code point), and find out how they got into the server.",
    graded=False,
    security_severity=8.0,
)
def hidden(context: LintContext) -> Iterator[Hit]:
    for scan in scanned(context):
        text, found = scan.text, scan.hidden
        if not found:
            continue
        kinds: dict[str, int] = {}
        for index, why in found:
            shown = (
                "U+E0000–U+E007F TAG CHARACTERS"
                if why == "a Unicode tag character"
                else code_point(text.text[index])
            )
            kinds[shown] = kinds.get(shown, 0) + 1
        listed = ", ".join(
            f"{name} ×{count}" if count > 1 else name for name, count in list(kinds.items())[:5]
        )
        more = f" and {len(kinds) - 5} more kinds" if len(kinds) > 5 else ""
        spelled = _tag_text(text.text)
        reads = f"; the tag characters spell {shorten(spelled, 80)!r}" if spelled.strip() else ""
        first = found[0][0]
        yield hit_at(
            text,
            f"{text.where} holds {plural(len(found), 'hidden or control character')} ({listed}{more}), "
            f"the first at character {first + 1}{reads}",
        )


# ------------------------------------------------------------------------------------------------ prose


_QUOTES = "\"'`“”‘’«»"


def normalized(text: str) -> str:
    """What the model effectively reads: hidden characters dropped, compatibility forms folded."""
    return _without(text, hidden_characters(text))


def _without(text: str, hidden: list[tuple[int, str]]) -> str:
    if hidden:
        hidden_at = {index for index, _ in hidden}
        text = "".join(char for index, char in enumerate(text) if index not in hidden_at)
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def _quoted(text: str, start: int, end: int) -> bool:
    """The match is an example in quotes ("detects 'ignore previous instructions'"), not an order."""
    before = text[:start].rstrip()
    after = text[end:].lstrip()
    return bool(before) and before[-1] in _QUOTES and bool(after) and after[0] in _QUOTES


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence around ``text[start:end]``."""
    left = max(text.rfind(mark, 0, start) for mark in (". ", "\n", "! ", "? ", "; "))
    rights = [position for mark in (". ", "\n", "! ", "? ", "; ") if (position := text.find(mark, end)) >= 0]
    return text[left + 1 if left >= 0 else 0 : min(rights) if rights else len(text)]


_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:\w+\s+){0,2}?"
    r"(?:previous|prior|above|earlier|preceding|former|original|system|your|all\s+(?:previous|prior|other|the))"
    r"\s+(?:\w+\s+)?(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|"
    r"context|messages|constraints|polic(?:y|ies))\b",
    re.IGNORECASE,
)
_ROLE = re.compile(
    r"\byou\s+are\s+now\s+(?:an?\s+|the\s+|in\s+)?(?:new\s+|different\s+|unrestricted\s+|jailbroken\s+)?"
    r"(?:assistant|ai|agent|model|system|dan|developer\s+mode|admin(?:istrator)?|root|god\s+mode)\b"
    r"|\b(?:act|behave|pretend|roleplay)\s+as\s+(?:an?\s+)?(?:unrestricted|jailbroken|system|admin|root)\b"
    r"|\bfrom\s+now\s+on,?\s+you\s+(?:must|will|are|should)\b",
    re.IGNORECASE,
)
_CONCEAL = re.compile(
    r"\b(?:do\s+not|don't|never|must\s+not|should\s+not)\s+(?:tell|inform|mention|reveal|disclose|show|"
    r"notify|alert|let)\s+(?:(?:this|it|that|anything)\s+(?:to\s+)?)?(?:the\s+)?users?\b"
    r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+users?\b"
    r"|\b(?:hide|conceal|keep)\s+(?:this|it|these|that)\s+(?:secret\s+|hidden\s+)?from\s+the\s+users?\b"
    r"|\bthe\s+users?\s+(?:must|should|need)\s+not\s+(?:know|see|be\s+told)\b",
    re.IGNORECASE,
)
_TEMPLATE_TOKENS = re.compile(
    r"<\|(?:im_start|im_end|system|user|assistant|endoftext|start_header_id|end_header_id|eot_id)\|>"
    r"|\[/?INST\]|<</?SYS>>"
    r"|</?(?:system|instructions?|important|secret|hidden)(?:\s[^<>]*)?>",
    re.IGNORECASE,
)
_NEW_ORDERS = re.compile(
    r"\b(?:new|updated|real|actual|hidden|secret|true)\s+(?:system\s+)?instructions?\s*:"
    r"|\bsystem\s+(?:prompt\s+)?override\b",
    re.IGNORECASE,
)
_CREDENTIAL_FILE = re.compile(
    r"(?:~|\$HOME|%USERPROFILE%)?/?\.ssh/(?:id_\w+|authorized_keys|config)\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b"
    r"|\.aws/credentials\b|/etc/(?:passwd|shadow)\b|\bmcp\.json\b|\bclaude_desktop_config\.json\b"
    r"|\.netrc\b|\.git-credentials\b|\.docker/config\.json\b|\.kube/config\b|\.pypirc\b|\.npmrc\b",
    re.IGNORECASE,
)
_READ_VERBS = re.compile(
    r"\b(?:read|cat|open|send|include|pass|upload|attach|provide|copy|forward|add|append|paste|embed|leak)\b",
    re.IGNORECASE,
)
INJECTION_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_OVERRIDE, "tells the model to ignore its instructions"),
    (_ROLE, "tries to give the model a new role"),
    (_CONCEAL, "tells the model to hide something from the user"),
    (_TEMPLATE_TOKENS, "holds chat-template or instruction markup"),
    (_NEW_ORDERS, "announces new instructions"),
)


def injections(text: str, *, flat: str | None = None) -> list[tuple[str, str]]:
    """(what it does, the phrase) for every prompt-injection phrase of ``text`` that is not quoted."""
    flat = " ".join(normalized(text).split()) if flat is None else flat
    found: list[tuple[str, str]] = []
    for pattern, what in INJECTION_PATTERNS:
        for match in pattern.finditer(flat):
            if not _quoted(flat, match.start(), match.end()):
                found.append((what, match.group(0)))
    for match in _CREDENTIAL_FILE.finditer(flat):
        if _READ_VERBS.search(_sentence(flat, match.start(), match.end())) and not _quoted(
            flat, match.start(), match.end()
        ):
            found.append(("asks for a credentials file", match.group(0)))
    return found


@rule(
    "X002",
    "Prompt-injection phrasing",
    severity="error",
    why="A description is read as instructions: 'ignore previous instructions', a new role, 'do not tell "
    "the user', chat-template markup or a request for ~/.ssh/id_rsa turns a tool listing into an attack "
    "on every conversation the server joins.",
    fix="Describe the tool; remove every instruction aimed at the model's behaviour beyond choosing and "
    "calling this tool.",
    graded=False,
    security_severity=9.0,
)
def injection(context: LintContext) -> Iterator[Hit]:
    memo: dict[str, list[tuple[str, str]]] = {}
    for scan in scanned(context):
        text = scan.text
        if not text.prose:
            continue
        if scan.flat not in memo:
            memo[scan.flat] = injections(text.text, flat=scan.flat)
        found = memo[scan.flat]
        if found:
            what, phrase = found[0]
            more = f" (and {plural(len(found) - 1, 'more phrase')})" if len(found) > 1 else ""
            yield hit_at(text, f"{text.where} {what}: {shorten(visible(phrase), 100)!r}{more}")


# ------------------------------------------------------------------------------------------------ other tools


_EXCLUSIVE = re.compile(
    r"\b(?:do\s+not|don't|never|must\s+not|should\s+not|shouldn't|cannot)\s+(?:use|call|invoke|run|trust|"
    r"consider|choose|select|pick)\s+(?:any\s+)?(?:other|another|different|alternative)\s+(?:mcp\s+)?"
    r"(?:tools?|functions?|servers?|plugins?)\b"
    r"|\b(?:only|exclusively)\s+use\s+this\s+(?:tool|server|function)\b"
    r"|\buse\s+(?:only\s+)?this\s+(?:tool|server|function)\s+(?:instead\s+of|rather\s+than|over)\s+"
    r"(?:any|all|every|other)\b"
    r"|\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?:any|all|every)\s+other\s+(?:tools?|servers?)\b"
    r"|\bthis\s+tool\s+(?:replaces|supersedes|overrides|takes\s+precedence\s+over)\s+(?:all|any|every|other)\b"
    r"|\b(?:ignore|avoid|disregard)\s+(?:all\s+|any\s+)?other\s+(?:tools?|servers?)\b",
    re.IGNORECASE,
)
_GLOBAL = re.compile(
    r"\b(?:before|prior\s+to)\s+(?:using|calling|invoking|running|executing)\s+(?:any|every|all|each)\s+"
    r"(?:other\s+)?(?:tools?|functions?)\b"
    r"|\b(?:always|must|first)\s+(?:call|use|invoke|run)\s+this\s+(?:tool|function)\s+(?:first\s+)?"
    r"before\s+(?:any|every|all|each)\b",
    re.IGNORECASE,
)
_DIRECTIVE = re.compile(
    r"\b(?:call|use|invoke|run|execute)\b[^.;\n]{0,60}\b(?:first|before|after|then|prior)\b"
    r"|\b(?:before|after|prior\s+to)\s+(?:using|calling|invoking|running)\b",
    re.IGNORECASE,
)
_SHADOW = re.compile(
    r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|replaces?|supersedes?|overrides?|deprecated|"
    r"obsolete|broken|unsafe|insecure|no\s+longer\s+(?:works?|available|supported)|do\s+not\s+use|"
    r"don't\s+use|never\s+use|avoid|must\s+not\s+be\s+used|side\s+effects?|also\s+present|"
    r"when\s+(?:this\s+tool\s+is\s+)?(?:available|present|loaded)|(?:is|are)\s+(?:called|used|invoked)|"
    r"must\s+(?:send|use|include|add|set|pass|forward|copy|redirect)|all\s+(?:emails?|messages?|calls?|"
    r"requests?|payments?|transfers?))\b",
    re.IGNORECASE,
)
_NAME_PART = re.compile(r"[_\-.]|[a-z][A-Z]")


def _distinctive(name: str) -> bool:
    """A name that cannot be an ordinary word: several parts (snake, kebab, dotted, camel)."""
    return _NAME_PART.search(name) is not None and len(name) >= 5


@dataclass(frozen=True)
class Reference:
    """A text of one server that names a tool (or the name) of another server of the catalog."""

    text: Text
    other: str  # the other tool's catalog name quoted ('send_email'), or "server 'x'"
    server: str  # the other server
    kind: str  # "shadow", "directive" or "mention"
    phrase: str


_TOKEN = re.compile(r"[\w.-]+")
_QUOTED_TOKEN = re.compile(r"[`'\"“‘]([\w.-]+)[`'\"”’]")


def references(context: LintContext) -> list[Reference]:
    """Every place a server's text names another server's tool, or that server, and how.

    Names are looked up token by token (a name of several parts anywhere, an ordinary word only in
    quotes), so the cost grows with the text, not with texts × tools. Computed once per lint.
    """
    store = vars(context)
    if "_security_references" in store:
        cached: list[Reference] = store["_security_references"]
        return cached
    servers = {tool.server for tool in context.tools} | {server.name for server in context.catalog.servers}
    found: list[Reference] = []
    store["_security_references"] = found
    if len(servers) < 2:
        return found
    owners: dict[str, dict[str, str]] = {}  # lowered name -> {server: the tool's catalog name}
    for tool in context.tools:
        for name in {tool.name, tool.wire_name}:
            owners.setdefault(name.lower(), {})[tool.server] = tool.name
    server_patterns = [
        (server, re.compile(rf"(?<![\w-]){re.escape(server)}(?:'s)?\s+(?:mcp\s+)?(?:server|tools?)\b", re.I))
        for server in sorted(servers)
    ]
    for scan in scanned(context):
        text, flat = scan.text, scan.flat
        if not text.prose or not flat:
            continue
        hits: list[tuple[int, int, str, str]] = []  # start, end, other, its server
        candidates = [(match, match.group(0)) for match in _TOKEN.finditer(flat)]
        candidates += [(match, match.group(1)) for match in _QUOTED_TOKEN.finditer(flat)]
        for match, token in candidates:
            token = token.strip(".-")
            by_server = owners.get(token.lower())
            if not by_server or text.server in by_server:
                continue  # not a tool name, or also one of this server's own tools
            if not _distinctive(token) and match.group(0) == token:
                continue  # an ordinary word counts only when quoted
            for server, name in by_server.items():
                hits.append((match.start(), match.end(), f"{name!r}", server))
        for server, pattern in server_patterns:
            if server != text.server and (named := pattern.search(flat)) is not None:
                hits.append((named.start(), named.end(), f"server {server!r}", server))
        seen: set[str] = set()
        for start, end, other, server in hits:
            if other in seen:
                continue
            seen.add(other)
            sentence = _sentence(flat, start, end)
            if _SHADOW.search(sentence):
                kind = "shadow"
            elif _DIRECTIVE.search(sentence):
                kind = "directive"
            else:
                kind = "mention"
            found.append(Reference(text, other, server, kind, sentence.strip()))
    return found


def _directive(flat: str) -> tuple[str, str] | None:
    """(what it does, the phrase) when a text orders the model around every other tool."""
    for pattern, what in (
        (_EXCLUSIVE, "tells the model not to use other tools"),
        (_GLOBAL, "puts itself before every tool"),
    ):
        match = pattern.search(flat)
        if match and not _quoted(flat, match.start(), match.end()):
            return what, match.group(0)
    return None


@rule(
    "X003",
    "Cross-tool directive",
    severity="error",
    why="'Do not use any other tool', 'before calling any tool, call this one', 'always call X first' "
    "where X is another server's tool: a description that orders the model around other tools takes over "
    "tool selection for the whole conversation, which is what tool poisoning does.",
    fix="Say what this tool does and when it fits; leave the choice among tools to the model.",
    graded=False,
    security_severity=7.5,
)
def cross_tool_directive(context: LintContext) -> Iterator[Hit]:
    memo: dict[str, tuple[str, str] | None] = {}
    for scan in scanned(context):
        text, flat = scan.text, scan.flat
        if not text.prose:
            continue
        if flat not in memo:
            memo[flat] = _directive(flat)
        found = memo[flat]
        if found is not None:
            what, phrase = found
            yield hit_at(text, f"{text.where} {what}: {shorten(visible(phrase), 100)!r}")
    for reference in references(context):
        if reference.kind == "directive":
            yield hit_at(
                reference.text,
                f"{reference.text.where} tells the model when to call {reference.other} of server "
                f"{reference.server!r}: {shorten(visible(reference.phrase), 120)!r}",
            )


@rule(
    "X004",
    "Names another server's tool",
    severity="warning",
    why="A description that names a tool of another server couples the two: it is wrong as soon as that "
    "server is absent or renames its tool, and it is how one server's text reaches into another's.",
    fix="Describe this server's own tools; mention another server's only in your documentation.",
    graded=False,
    security_severity=4.0,
)
def other_server_mentioned(context: LintContext) -> Iterator[Hit]:
    for reference in references(context):
        if reference.kind == "mention":
            yield hit_at(
                reference.text,
                f"{reference.text.where} names {reference.other} of server {reference.server!r}",
            )


@rule(
    "X007",
    "Cross-server shadowing",
    severity="error",
    why="A description that claims another server's tool's job ('use this instead of send_email', 'when "
    "this tool is present, send_email must …') changes how the model uses a tool this server does not "
    "own: in a multi-server catalog it silently redirects the other server's calls.",
    fix="Remove every statement about other servers' tools; if two servers do the same job, keep one "
    "(`exclude_tools`).",
    graded=False,
    security_severity=8.5,
)
def shadowing(context: LintContext) -> Iterator[Hit]:
    for reference in references(context):
        if reference.kind == "shadow":
            yield hit_at(
                reference.text,
                f"{reference.text.where} claims the job of {reference.other} of server {reference.server!r}: "
                f"{shorten(visible(reference.phrase), 120)!r}",
            )
