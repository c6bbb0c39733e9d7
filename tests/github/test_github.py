"""The GitHub layer on its own: inputs, workflow commands, outputs, summary, and the sticky comment
against a fake GitHub REST API served on 127.0.0.1."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from fakes import github_events as events
from fakes.fake_github import BOT, PERSON, FakeGitHub
from mcp_evals.errors import ConfigError
from mcp_evals.github import (
    COMMENT_LIMIT,
    SUMMARY_LIMIT,
    CommentResult,
    Event,
    GitHubApi,
    append_summary,
    comment_marker,
    default_mode,
    format_outputs,
    load_event,
    mask_commands,
    parse_sections,
    post_sticky_comment,
    read_inputs,
    restore_ownership,
    scrubbed_environment,
    shorten_markdown,
    target_pull_request,
)
from support.step_files import parse_outputs

REPO = events.REPOSITORY
MARKER = comment_marker("examples/helpdesk/mcp-evals.yaml")


def api(fake: FakeGitHub, **kwargs: float) -> GitHubApi:
    return GitHubApi(fake.url, fake.token, **kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ inputs


def test_inputs_arrive_with_hyphens_kept() -> None:
    inputs = read_inputs(
        {
            "INPUT_MODE": "eval",
            "INPUT_WORKING-DIRECTORY": "examples/helpdesk",
            "INPUT_BUDGET-USD": "$2.50",
            "INPUT_ANTHROPIC-API-KEY": "sk-ant-secret",
            "INPUT_PR-NUMBER": "12",
            "INPUT_COMMENT": "false",
            "INPUT_FAIL-ON": "remediate, gray_zone",
            "INPUT_SHARD": "2/4",
        }
    )
    assert inputs.mode == "eval"
    assert inputs.working_directory == "examples/helpdesk"
    assert inputs.budget_usd == 2.5
    assert inputs.api_keys() == {"ANTHROPIC_API_KEY": "sk-ant-secret"}
    assert inputs.pr_number == 12
    assert inputs.comment is False
    assert inputs.fail_on == ("remediate", "gray_zone")
    assert inputs.shard == "2/4"
    assert "sk-ant-secret" not in repr(inputs)


def test_the_session_inputs() -> None:
    inputs = read_inputs(
        {
            "INPUT_TASKS": "evals/session/tasks.yaml",
            "INPUT_ARM": "B",
            "INPUT_FAULT": "0, 20%",
            "INPUT_RUNS": "3",
        }
    )
    assert (inputs.tasks, inputs.arm, inputs.fault, inputs.runs) == (
        "evals/session/tasks.yaml",
        "B",
        "0, 20%",
        3,
    )
    empty = read_inputs({})
    assert (empty.tasks, empty.arm, empty.fault, empty.runs) == (None, None, None, None)


def test_defaults_when_inputs_are_empty() -> None:
    inputs = read_inputs({"INPUT_MODE": "", "INPUT_COMMENT": ""})
    assert (inputs.mode, inputs.config, inputs.working_directory, inputs.comment) == (
        None,
        "mcp-evals.yaml",
        ".",
        True,
    )


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("MODE", "lint", "validate | eval | contract | session | audit | all"),
        ("CONCURRENCY", "many", "a whole number ≥ 1"),
        ("LIMIT", "0", "a whole number ≥ 1"),
        ("COMMENT", "maybe", "true or false"),
        ("BUDGET-USD", "-1", "an amount above 0"),
        ("SHARD", "2of4", "I/N"),
        ("WORKING-DIRECTORY", "../elsewhere", "a folder inside the repository"),
        ("PROVIDER", "gemini", "anthropic | openai | lexical | replay"),
        ("ARM", "C", "A | B | both"),
        ("FAULT", "0,lots", "fault levels in percent, comma-separated, e.g. 0,20"),
        ("RUNS", "0", "a whole number ≥ 1"),
    ],
)
def test_a_bad_input_names_the_input_and_what_to_give(name: str, value: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read_inputs({f"INPUT_{name}": value})
    assert f"input `{name.lower()}`" in str(caught.value)
    assert expected in str(caught.value)
    assert caught.value.exit_code == 3


@pytest.mark.parametrize(
    ("event", "mode"),
    [("pull_request", "validate"), ("push", "validate"), ("workflow_dispatch", "eval"), ("schedule", "eval")],
)
def test_the_default_mode_follows_the_event(event: str, mode: str) -> None:
    assert default_mode(event) == mode


def test_masks_cover_every_secret_line() -> None:
    lines = mask_commands(
        {"INPUT_ANTHROPIC-API-KEY": "sk-ant-1", "INPUT_GITHUB-TOKEN": "ghs_x", "OPENAI_API_KEY": "a\nb"}
    )
    assert lines == ["::add-mask::sk-ant-1", "::add-mask::ghs_x", "::add-mask::a", "::add-mask::b"]


def test_a_mask_is_escaped_like_every_workflow_command() -> None:
    """The runner unescapes a command's value: unescaped, `%25` in a key would mask the wrong text."""
    assert mask_commands({"INPUT_OPENAI-API-KEY": "key%25with%percent"}) == [
        "::add-mask::key%2525with%25percent"
    ]


def test_the_build_environment_has_no_key_or_token_whatever_its_name() -> None:
    environ = {
        "PATH": "/usr/bin",
        "HOME": "/github/home",
        "GITHUB_REPOSITORY": "octo/helpdesk",
        "NODE_ENV": "production",
        "INPUT_ANTHROPIC-API-KEY": "sk-ant-abcdef",
        "INPUT_GITHUB-TOKEN": "ghs_tokentoken",
        "INPUT_BUILD": "npm ci",
        "ANTHROPIC_API_KEY": "sk-ant-abcdef",
        "GITHUB_TOKEN": "ghs_tokentoken",
        "ACTIONS_RUNTIME_TOKEN": "runtime",
        "ACTIONS_ID_TOKEN_REQUEST_URL": "https://token",
        "MY_RENAMED_THING": "sk-ant-abcdef",  # a secret under an innocent name: dropped by value
        "NPM_AUTH": "Bearer ghs_tokentoken",
        "PYPI_PASSWORD": "pw",
    }
    assert scrubbed_environment(environ) == {
        "PATH": "/usr/bin",
        "HOME": "/github/home",
        "GITHUB_REPOSITORY": "octo/helpdesk",
        "NODE_ENV": "production",
    }


# ------------------------------------------------------------------------------- workflow commands


def test_outputs_use_a_fresh_random_delimiter_and_round_trip() -> None:
    outputs = {"decision": "gray_zone", "report": "line 1\nline 2\n<<EOF\nEOF", "empty": ""}
    text = format_outputs(outputs)
    delimiters = re.findall(r"<<(ghadelimiter_[0-9a-f]{32})\n", text)
    assert len(set(delimiters)) == 3
    assert parse_outputs(text) == outputs
    assert format_outputs(outputs) != text  # random each time


def test_the_summary_stays_under_one_mebibyte(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    rows = "\n".join(f"| fixture-{i} | {'x' * 200} |" for i in range(10_000))
    append_summary(summary, f"## verdict\n\n| id | text |\n|---|---|\n{rows}\n")
    text = summary.read_text("utf-8")
    assert len(text.encode()) <= SUMMARY_LIMIT
    assert text.startswith("## verdict")
    assert "1 MiB job-summary limit" in text


def test_shortening_closes_code_fences_and_details() -> None:
    text = (
        "# verdict\n<details><summary>more</summary>\n\n```\n"
        + "\n".join(["x" * 50] * 400)
        + "\n```\n</details>\n"
    )
    short = shorten_markdown(text, 2000, note="shortened")
    assert len(short) <= 2000
    assert short.startswith("# verdict")
    assert short.count("```") % 2 == 0
    assert short.count("<details>") == short.count("</details>")
    assert short.rstrip().endswith("shortened")


# ------------------------------------------------------------------------------------------ events


def test_events_read_like_the_runner_writes_them(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text(__import__("json").dumps(events.pull_request(42, "feature")))
    event = load_event(
        {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(path),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_HEAD_REF": "feature",
            "GITHUB_RUN_ID": "77",
        }
    )
    assert (event.pull_request_number, event.branch, event.owner) == (42, "feature", "octo")
    assert event.run_url == "https://github.com/octo/helpdesk/actions/runs/77"


# ------------------------------------------------------------------------------------ sticky comment


def post(fake: FakeGitHub, sections: dict[str, str], number: int = 7, **kwargs: float) -> CommentResult:
    with api(fake, **kwargs) as client:
        return post_sticky_comment(
            client, REPO, number, marker=MARKER, title="### mcp-evals", sections=sections
        )


def test_first_run_creates_the_comment_and_the_second_updates_it(fake_github: FakeGitHub) -> None:
    first = post(fake_github, {"validate": "valid: 56 fixtures"})
    second = post(fake_github, {"validate": "invalid: 2 problems"})
    assert (first.action, second.action) == ("created", "updated")
    assert first.url == second.url
    [body] = fake_github.comment_bodies(7)
    assert body.startswith(MARKER)
    assert "invalid: 2 problems" in body and "valid: 56" not in body
    assert [request.method for request in fake_github.writes()] == ["POST", "PATCH"]


def test_the_comment_is_found_behind_150_earlier_comments(fake_github: FakeGitHub) -> None:
    for i in range(150):
        fake_github.add_comment(7, f"review comment {i}")
    ours = fake_github.add_comment(7, f"{MARKER}\n\nold report", BOT)
    fake_github.add_comment(7, "a later comment")
    outcome = post(fake_github, {"validate": "fresh report"})
    assert outcome.action == "updated"
    assert "fresh report" in ours["body"]
    pages = [
        request.query.get("page", ["1"])[0] for request in fake_github.requests if request.method == "GET"
    ]
    assert pages == ["1", "2"]  # followed Link: rel="next" to page 2, where the comment is
    assert len(fake_github.comments[7]) == 152


def test_a_comment_for_another_config_is_left_alone(fake_github: FakeGitHub) -> None:
    other = fake_github.add_comment(7, comment_marker("servers/other.yaml") + "\n\nother", BOT)
    assert post(fake_github, {"validate": "mine"}).action == "created"
    assert other["body"].endswith("other")


def test_a_forged_marker_from_a_person_loses_to_ours(fake_github: FakeGitHub) -> None:
    forged = fake_github.add_comment(7, f"{MARKER}\nI put your marker here", PERSON)
    ours = fake_github.add_comment(7, f"{MARKER}\nreal", BOT)
    post(fake_github, {"validate": "update"})
    assert "update" in ours["body"] and "update" not in forged["body"]


def test_a_marker_posted_by_someone_without_write_access_is_never_taken_for_ours(
    fake_github: FakeGitHub,
) -> None:
    """Updating it would put the report into a comment its author (say, of a fork PR) can edit later."""
    forged = fake_github.add_comment(7, f"{MARKER}\n✅ all good, merge away", PERSON, "CONTRIBUTOR")
    assert post(fake_github, {"validate": "invalid: 2 problems"}).action == "created"
    assert forged["body"].endswith("merge away")
    assert post(fake_github, {"validate": "valid"}).action == "updated"  # ours, from then on
    assert [request.method for request in fake_github.writes()] == ["POST", "PATCH"]
    assert fake_github.comment_bodies(7)[0].endswith("merge away")


def test_a_comment_written_with_a_maintainer_s_personal_token_is_updated(fake_github: FakeGitHub) -> None:
    ours = fake_github.add_comment(7, f"{MARKER}\nold", PERSON, "OWNER")
    assert post(fake_github, {"validate": "new"}).action == "updated"
    assert "new" in ours["body"]


def test_sections_from_other_modes_survive_an_update(fake_github: FakeGitHub) -> None:
    post(fake_github, {"eval": "top-1 91 %"})
    post(fake_github, {"validate": "valid"})
    [body] = fake_github.comment_bodies(7)
    sections = parse_sections(body)
    assert sections == {"eval": "top-1 91 %", "validate": "valid"}
    assert body.index("valid") < body.index("top-1")  # validate comes first


def test_a_skipped_mode_never_hides_an_earlier_result(fake_github: FakeGitHub) -> None:
    post(fake_github, {"eval": "top-1 91 % (dispatched by a maintainer)"})
    with api(fake_github) as client:  # a fork PR's push: validate ran, the eval was skipped (no key)
        post_sticky_comment(
            client, REPO, 7, marker=MARKER, title="t", sections={"validate": "valid"},
            placeholders={"eval": "skipped: no key"},
        )  # fmt: skip
    [body] = fake_github.comment_bodies(7)
    assert parse_sections(body) == {"validate": "valid", "eval": "top-1 91 % (dispatched by a maintainer)"}


def test_a_placeholder_shows_where_there_is_nothing_else(fake_github: FakeGitHub) -> None:
    with api(fake_github) as client:
        post_sticky_comment(
            client, REPO, 7, marker=MARKER, title="t", sections={"validate": "valid"},
            placeholders={"eval": "skipped: no key"},
        )  # fmt: skip
    assert parse_sections(fake_github.comment_bodies(7)[0])["eval"] == "skipped: no key"


def test_a_build_failure_is_not_kept_once_the_build_works(fake_github: FakeGitHub) -> None:
    post(fake_github, {"build": "the build failed"})
    post(fake_github, {"validate": "valid"})
    assert parse_sections(fake_github.comment_bodies(7)[0]) == {"validate": "valid"}


def test_content_cannot_forge_our_markers(fake_github: FakeGitHub) -> None:
    post(fake_github, {"validate": "<!-- mcp-evals:end validate -->\n<!-- mcp-evals:sticky config=x -->"})
    [body] = fake_github.comment_bodies(7)
    assert body.count("<!-- mcp-evals:") == 3  # the marker, the section start and its end


def test_an_oversize_report_is_shortened_below_the_limit(fake_github: FakeGitHub) -> None:
    rows = "\n".join(f"| fixture-{i} | wrong tool | {'é' * 80} |" for i in range(3000))
    outcome = post(
        fake_github, {"eval": f"## verdict: gray zone\n\n| id | outcome | query |\n|---|---|---|\n{rows}"}
    )
    assert outcome.action == "created"  # the fake answers 422 above 65,536 characters
    [body] = fake_github.comment_bodies(7)
    assert len(body) < COMMENT_LIMIT
    assert "## verdict: gray zone" in body
    assert "65,536-character comment limit" in body


def test_a_read_only_token_degrades_to_a_warning_with_the_fix(fake_github: FakeGitHub) -> None:
    fake_github.read_only = True
    outcome = post(fake_github, {"validate": "valid"})
    assert outcome.action == "failed"
    assert "403 Resource not accessible by integration" in outcome.message
    assert "pull-requests: write" in outcome.message and "fork" in outcome.message


def test_a_missing_pr_degrades_to_a_warning(fake_github: FakeGitHub) -> None:
    outcome = post(fake_github, {"validate": "valid"}, number=0)
    assert outcome.action == "created"  # the fake has no notion of a missing PR; a bad repo 404s:
    with api(fake_github) as client:
        missing = post_sticky_comment(client, "octo", 7, marker=MARKER, title="t", sections={"validate": "v"})
    assert missing.action == "failed" and "404" in missing.message


def test_rate_limits_are_retried(fake_github: FakeGitHub) -> None:
    fake_github.rate_limited = 1
    fake_github.secondary_rate_limited = 2
    outcome = post(fake_github, {"validate": "valid"})
    assert outcome.action == "created"
    statuses = len(fake_github.requests)
    assert statuses == 5  # 3 refused (429, 403 secondary ×2), then the list and the create


def test_retry_after_is_honoured(fake_github: FakeGitHub) -> None:
    fake_github.secondary_rate_limited, fake_github.retry_after = 1, "1"
    assert post(fake_github, {"validate": "valid"}).action == "created"
    refused, retried = fake_github.requests[:2]
    assert retried.at - refused.at >= 0.95


def test_a_primary_rate_limit_waits_for_its_reset(fake_github: FakeGitHub) -> None:
    """403 with x-ratelimit-remaining: 0 is GitHub's primary rate limit: wait until x-ratelimit-reset."""
    fake_github.primary_rate_limited, fake_github.resets_in = 1, 1.0
    assert post(fake_github, {"validate": "valid"}).action == "created"
    refused, retried = fake_github.requests[:2]
    assert retried.at - refused.at >= 0.95  # not the 0.5 s back-off of an ordinary retry
    assert len(fake_github.requests) == 3  # the refused list, the list, the create


def test_a_primary_rate_limit_an_hour_away_is_not_waited_for(fake_github: FakeGitHub) -> None:
    fake_github.primary_rate_limited, fake_github.resets_in = 1, 3600
    outcome = post(fake_github, {"validate": "valid"})
    assert outcome.action == "failed" and len(fake_github.requests) == 1
    assert "403 API rate limit exceeded" in outcome.message
    assert "rate limit was hit (it resets in about 60 min)" in outcome.message
    assert "permissions" not in outcome.message  # not the fix for a read-only token


def test_rate_limits_give_up_after_the_attempts(fake_github: FakeGitHub) -> None:
    fake_github.rate_limited = 10
    outcome = post(fake_github, {"validate": "valid"}, max_attempts=3)
    assert outcome.action == "failed" and "429" in outcome.message
    assert len(fake_github.requests) == 3


def test_a_bad_token_is_a_warning_too(fake_github: FakeGitHub) -> None:
    with GitHubApi(fake_github.url, "wrong") as client:
        outcome = post_sticky_comment(client, REPO, 7, marker=MARKER, title="t", sections={"validate": "v"})
    assert outcome.action == "failed" and "401" in outcome.message and "github-token" in outcome.message


# ----------------------------------------------------------------------------------- the target PR


def event(name: str, payload: dict, ref: str = "") -> Event:  # type: ignore[type-arg]
    return Event(name=name, payload=payload, repository=REPO, ref=ref)


def test_a_pull_request_event_targets_its_pr() -> None:
    assert target_pull_request(event("pull_request", events.pull_request(7)), None, None)[0] == 7


def test_a_dispatch_targets_the_open_pr_of_its_branch(fake_github: FakeGitHub) -> None:
    fake_github.pulls.append({"number": 31, "state": "open", "head": {"label": "octo:rename-tools"}})
    dispatch = event("workflow_dispatch", events.workflow_dispatch("rename-tools"), "refs/heads/rename-tools")
    with api(fake_github) as client:
        assert target_pull_request(dispatch, None, client)[0] == 31
        assert target_pull_request(dispatch, 5, client)[0] == 5  # pr-number wins
        other = event("workflow_dispatch", events.workflow_dispatch("main"), "refs/heads/main")
        number, why = target_pull_request(other, None, client)
    assert number is None and "no open PR" in why
    [lookup] = [r for r in fake_github.requests if r.path.endswith("/pulls")][:1]
    assert lookup.query["head"] == ["octo:rename-tools"] and lookup.query["state"] == ["open"]


def test_a_schedule_without_pr_number_writes_the_summary_only(fake_github: FakeGitHub) -> None:
    with api(fake_github) as client:
        number, why = target_pull_request(event("schedule", events.schedule()), None, client)
    assert number is None and "summary only" in why
    assert fake_github.requests == []


# ------------------------------------------------------------------------------------- ownership


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root, as in the container")
def test_files_written_as_root_go_back_to_the_workspace_owner(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "node_modules" / "pkg").mkdir(parents=True)
    (workspace / "node_modules" / "pkg" / "index.js").write_text("x")
    (workspace / "report.md").write_text("x")
    (workspace / "link").symlink_to("/etc/passwd")
    os.chown(workspace, 1001, 127)
    assert restore_ownership(workspace) == 5
    for path in [*workspace.rglob("*")]:
        info = path.lstat()
        assert (info.st_uid, info.st_gid) == (1001, 127), path
    assert Path("/etc/passwd").stat().st_uid == 0  # the symlink itself changed, not its target
