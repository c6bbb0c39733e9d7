"""R — resources and prompts: what a server offers beside its tools, as `resources/list`,
`resources/templates/list` and `prompts/list` give it.

Users pick prompts (a client shows them as commands) and clients attach resources, so their names,
descriptions and arguments are read by people and models alike; a URI or a MIME type a client cannot
parse makes the entry unusable. These rules run when the catalog recorded them (a live listing, or a
snapshot written since they are recorded) and are not graded: the lint's grade is about tools.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.registry import rule

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_UNSAFE = re.compile(r"[\s\x00-\x1f\x7f<>\"\\^`|]")
_EXPRESSION = re.compile(
    r"\{[+#./;?&=,!@|]?[A-Za-z0-9_%.]+(?::[1-9]\d{0,3}|\*)?(?:,[A-Za-z0-9_%.]+(?::[1-9]\d{0,3}|\*)?)*\}"
)
_TOKEN = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}"
_MIME = re.compile(rf"^{_TOKEN}/{_TOKEN}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[^;\s\"]+|\"[^\"]*\"))*$")


def uri_problem(uri: str, *, template: bool = False) -> str | None:
    """Why a resource URI (or an RFC 6570 URI template) is one a client cannot use, or None."""
    if not uri:
        return "is empty"
    text = uri
    if template:
        if "{" not in uri:
            return "has no {expression}: it is a plain URI, not a template"
        text = _EXPRESSION.sub("x", uri)
        if "{" in text or "}" in text:
            return "holds a brace that opens no valid RFC 6570 expression"
    if not _SCHEME.match(text):
        return "has no scheme (an absolute URI starts with one, e.g. file:// or app://)"
    if _UNSAFE.search(text):
        return "holds a space or a character a URI may not contain unescaped"
    return None


def mime_problem(mime: str) -> str | None:
    """Why a MIME type is malformed (not `type/subtype`, optional parameters), or None."""
    return None if _MIME.match(mime.strip()) else "is not a MIME type (type/subtype, e.g. text/markdown)"


@rule(
    "R001",
    "Prompt without a description",
    severity="warning",
    why="Clients list prompts as commands for users to pick; a prompt with only a name leaves the user "
    "(and a model shown the list) guessing what it does.",
    fix="Describe what the prompt produces and when to use it.",
    graded=False,
)
def prompt_undescribed(context: LintContext) -> Iterator[Hit]:
    for prompt in context.catalog.prompts:
        if prompt.name and not prompt.description.strip():
            subject = f"prompt {prompt.name!r}"
            yield Hit(f"{subject} has no description", subject=subject, server=prompt.server)


@rule(
    "R002",
    "Prompt argument without a description",
    severity="warning",
    why="A client asks the user for each argument by its name alone when it has no description: "
    "'state' of what, in which form?",
    fix="Describe each argument: what it is, its format, an example value.",
    graded=False,
)
def argument_undescribed(context: LintContext) -> Iterator[Hit]:
    for prompt in context.catalog.prompts:
        for argument in prompt.arguments:
            if argument.name and not argument.description.strip():
                required = "required" if argument.required else "optional"
                yield Hit(
                    f"prompt {prompt.name!r}: {required} argument {argument.name!r} has no description",
                    subject=f"prompt {prompt.name!r}",
                    parameter=argument.name,
                    server=prompt.server,
                )


@rule(
    "R003",
    "Resource without a description",
    severity="info",
    why="A client choosing which resource to attach, or a model reading the list, has the name and URI only.",
    fix="Describe what the resource holds.",
    graded=False,
)
def resource_undescribed(context: LintContext) -> Iterator[Hit]:
    for resource in context.catalog.resources:
        if resource.uri and not resource.description.strip():
            subject = f"{resource.kind} {resource.uri!r}"
            yield Hit(f"{subject} has no description", subject=subject, server=resource.server)


@rule(
    "R004",
    "Invalid resource URI",
    severity="error",
    why="A URI without a scheme, with spaces, or a template whose braces are not RFC 6570 expressions "
    "cannot be read back with resources/read (nor filled in by a client).",
    fix="Use an absolute URI (scheme://path), percent-encode what needs it, write {name} expressions.",
    graded=False,
)
def invalid_uri(context: LintContext) -> Iterator[Hit]:
    for resource in context.catalog.resources:
        problem = uri_problem(resource.uri, template=resource.template)
        if problem is not None:
            subject = f"{resource.kind} {resource.name or resource.uri!r}"
            yield Hit(
                f"{subject}: its URI {resource.uri!r} {problem}", subject=subject, server=resource.server
            )


@rule(
    "R005",
    "Invalid MIME type",
    severity="warning",
    why="Clients decide how to show or parse a resource by its MIME type; a malformed one is treated as "
    "unknown binary data.",
    fix="Declare a registered type/subtype (text/markdown, application/json), or leave mimeType out.",
    graded=False,
)
def invalid_mime(context: LintContext) -> Iterator[Hit]:
    for resource in context.catalog.resources:
        if resource.mime_type is None:
            continue
        problem = mime_problem(resource.mime_type)
        if problem is not None:
            subject = f"{resource.kind} {resource.uri!r}"
            yield Hit(
                f"{subject}: MIME type {resource.mime_type!r} {problem}",
                subject=subject,
                server=resource.server,
            )


@rule(
    "R006",
    "Duplicate prompt name or resource URI",
    severity="error",
    why="prompts/get and resources/read address an entry by its name or URI: of two with the same one, a "
    "client can reach only one.",
    fix="Give each prompt a name, and each resource a URI, of its own.",
    graded=False,
)
def duplicates(context: LintContext) -> Iterator[Hit]:
    prompts = Counter((prompt.server, prompt.name) for prompt in context.catalog.prompts if prompt.name)
    for (server, name), count in sorted(prompts.items()):
        if count > 1:
            yield Hit(f"prompt {name!r} is listed {count} times", subject=f"prompt {name!r}", server=server)
    resources = Counter((item.server, item.kind, item.uri) for item in context.catalog.resources if item.uri)
    for (server, kind, uri), count in sorted(resources.items()):
        if count > 1:
            yield Hit(f"{kind} {uri!r} is listed {count} times", subject=f"{kind} {uri!r}", server=server)


@rule(
    "R007",
    "Prompt, argument or resource without a name",
    severity="error",
    why="The name is required by the protocol: it is how a client addresses a prompt or an argument, and "
    "how it labels a resource.",
    fix="Give it a name.",
    graded=False,
)
def unnamed(context: LintContext) -> Iterator[Hit]:
    for prompt in context.catalog.prompts:
        if not prompt.name:
            yield Hit("a prompt has no name", subject="prompt ''", server=prompt.server)
        for index, argument in enumerate(prompt.arguments):
            if not argument.name:
                yield Hit(
                    f"prompt {prompt.name!r}: argument {index + 1} has no name",
                    subject=f"prompt {prompt.name!r}",
                    server=prompt.server,
                )
    for resource in context.catalog.resources:
        if not resource.name:
            subject = f"{resource.kind} {resource.uri!r}"
            yield Hit(f"{subject} has no name", subject=subject, server=resource.server)
