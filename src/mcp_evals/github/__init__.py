"""The GitHub side of the Action: inputs, the event, the job summary and step outputs, file
ownership, and the sticky pull-request comment.

Nothing here knows how an eval works. ``mcp_evals.action`` drives the ``mcp-evals`` commands and hands
their Markdown to this package, which only talks to GitHub: through the files and variables the runner
provides (``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``, ``GITHUB_EVENT_PATH``) and its REST API at
``$GITHUB_API_URL``.

    inputs       INPUT_* → ActionInputs; default mode; masks; the environment without secrets
    event        the event that triggered the workflow
    step_files   job summary (≤ 1 MiB), step outputs (random delimiter), ownership hand-back
    api          the REST calls, with rate-limit retries
    comment      the sticky comment and its target PR
"""

from mcp_evals.github.api import GitHubApi, GitHubApiError
from mcp_evals.github.comment import (
    COMMENT_LIMIT,
    CommentResult,
    comment_fix,
    comment_marker,
    find_sticky_comment,
    fit_comment,
    neutralise_markers,
    parse_sections,
    post_sticky_comment,
    target_pull_request,
)
from mcp_evals.github.event import Event, load_event
from mcp_evals.github.inputs import (
    GATE_DECISIONS,
    MODES,
    ActionInputs,
    Mode,
    default_mode,
    input_variable,
    mask_commands,
    read_input,
    read_inputs,
    scrubbed_environment,
    secret_values,
)
from mcp_evals.github.step_files import (
    SUMMARY_LIMIT,
    append_summary,
    format_outputs,
    restore_ownership,
    shorten_markdown,
    write_outputs,
)

__all__ = [
    "COMMENT_LIMIT",
    "GATE_DECISIONS",
    "MODES",
    "SUMMARY_LIMIT",
    "ActionInputs",
    "CommentResult",
    "Event",
    "GitHubApi",
    "GitHubApiError",
    "Mode",
    "append_summary",
    "comment_fix",
    "comment_marker",
    "default_mode",
    "find_sticky_comment",
    "fit_comment",
    "format_outputs",
    "input_variable",
    "load_event",
    "mask_commands",
    "neutralise_markers",
    "parse_sections",
    "post_sticky_comment",
    "read_input",
    "read_inputs",
    "restore_ownership",
    "scrubbed_environment",
    "secret_values",
    "shorten_markdown",
    "target_pull_request",
    "write_outputs",
]
