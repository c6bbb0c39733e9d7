"""Task-set files: strict loading with file and line, and offline validation against the catalog."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from conftest import Cli
from mcp_evals.catalog.model import ServerInfo, build_catalog
from mcp_evals.catalog.snapshot import write_snapshot
from mcp_evals.errors import InputFileError
from mcp_evals.session.load import load_task_set
from mcp_evals.session.model import parse_path
from mcp_evals.session.validate import validate_task_set

from .records import TOOLS, catalog

GOOD = """\
name: ops
server: {command: python, args: [server.py]}
system_prompt: You help.
faults:
  seed: 3
  levels:
    - {percent: 0}
    - {percent: 20, kinds: [timeout, is_error], tools: [get_sync_job]}
arms:
  A: {system_prompt_addition: Mind the diagnostics.}
  B: {transforms: [{remove_field: diagnostics}], descriptions: {get_sync_job: Read a job.}}
tasks:
  - id: missing-job
    prompt: Check SYNC-404.
    expected_tools: [get_sync_job]
    script:
      - {tool: get_sync_job, arguments: {job_id: SYNC-404}, expect_error: true}
    answer: {regex: "(?i)not found"}
    trap: repeat_after_error
    max_steps: 4
"""


def write(tmp_path: Path, text: str, name: str = "tasks.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_good_task_set_loads_with_its_defaults(tmp_path: Path) -> None:
    task_set = load_task_set(write(tmp_path, GOOD))
    [task] = task_set.tasks
    assert task.trap is not None and task.trap.kind == "repeat_after_error"
    assert task.script[0].expect_error
    assert task_set.timeouts.step_seconds == 30 and task_set.judge.model is None
    assert task_set.system_prompt_of("A") == "You help.\n\nMind the diagnostics."
    assert task_set.system_prompt_of("B") == "You help."
    level = task_set.faults.level(20)
    assert level is not None and level.kinds == ["timeout", "is_error"]
    # a changed task is a new task: its setup hash changes, so no earlier session stands in for it
    other = task.model_copy(update={"prompt": "Check SYNC-405."})
    assert task_set.setup_hash("A", level, task) != task_set.setup_hash("A", level, other)
    assert task_set.setup_hash("A", level, task) != task_set.setup_hash("B", level, task)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("    max_steps: 4", "    max_step: 4"), "tasks.yaml:20 (tasks[0].max_step): unknown key"),
        (
            ("trap: repeat_after_error", "trap: hallucination"),
            "tasks.yaml:19 (tasks[0].trap.kind): Input should be",
        ),
        (
            ('regex: "(?i)not found"', 'regex: "(unclosed"'),
            "tasks.yaml:18 (tasks[0].answer.regex): the regular expression",
        ),
        (("  B: {transforms", "  C: {transforms"), "tasks.yaml:11 (arms.C): unknown key"),
        (
            ("- {percent: 20, kinds", "- {percent: 0, kinds"),
            "tasks.yaml:6 (faults.levels): each level needs its own percent",
        ),
        (
            ('answer: {regex: "(?i)not found"}', "answer: {json_path: a.b}"),
            "`json_path` and `equals` go together",
        ),
        (("id: missing-job", "id: missing job"), "tasks.yaml:13 (tasks[0].id): a task id is"),
        (
            ('answer: {regex: "(?i)not found"}', "answer: {json_path: a..b, equals: 1}"),
            "tasks.yaml:18 (tasks[0].answer.json_path): cannot read the JSON path 'a..b'",
        ),
    ],
    ids=["typo", "trap kind", "regex", "arm name", "levels", "json_path", "task id", "path"],
)
def test_a_bad_task_set_names_file_line_and_field(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    old, new = change
    assert old in GOOD
    with pytest.raises(InputFileError) as caught:
        load_task_set(write(tmp_path, GOOD.replace(old, new)))
    assert message in str(caught.value)


def test_an_arm_left_out_changes_nothing_and_task_ids_are_unique(tmp_path: Path) -> None:
    text = GOOD.replace("  A: {system_prompt_addition: Mind the diagnostics.}\n", "")
    task_set = load_task_set(write(tmp_path, text))
    assert task_set.arms["A"].transforms == [] and task_set.system_prompt_of("A") == "You help."
    doubled = GOOD + GOOD[GOOD.index("  - id: missing-job") :]
    with pytest.raises(InputFileError, match="task ids must be unique; repeated: missing-job"):
        load_task_set(write(tmp_path, doubled))


def test_json_paths() -> None:
    assert parse_path("status.region") == ("status", "region")
    assert parse_path("$.items[0].id") == ("items", 0, "id")
    assert parse_path('["key with spaces"][2]') == ("key with spaces", 2)
    for bad in ("", "a..b", "a[x]", "a[0]b"):
        with pytest.raises(ValueError):
            parse_path(bad)


def test_validate_finds_every_problem_against_the_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = GOOD.replace("expected_tools: [get_sync_job]", "expected_tools: [retry_sync_job, get_sync_jobs]")
    text = text.replace("{job_id: SYNC-404}, expect_error: true}", "{job_id: 404, verbose: true}}")
    text = text.replace("max_steps: 4", "max_steps: 1")
    text = text.replace("descriptions: {get_sync_job:", "descriptions: {get_sync:")
    text = text.replace("tools: [get_sync_job]}", "tools: [get_sync_job, retry]}")
    problems = [
        str(problem) for problem in validate_task_set(load_task_set(write(tmp_path, text)), catalog())
    ]
    assert problems == [
        "tasks.yaml:8: error [unknown-tool] faults.levels[1].tools[1]: no tool 'retry' in the catalog",
        "tasks.yaml:11: error [unknown-tool] arms.B.descriptions.get_sync: no tool 'get_sync' in the catalog"
        " — did you mean 'get_sync_job'?",
        "tasks.yaml:15: error [unknown-tool] tasks[0].expected_tools[1]: no tool 'get_sync_jobs' in the"
        " catalog — did you mean 'get_sync_job'?",
        "tasks.yaml:17: error [script-arguments] tasks[0].script[0].arguments.job_id: get_sync_job: 404 is"
        " not of type 'string'",
        "tasks.yaml:17: error [script-arguments] tasks[0].script[0].arguments: get_sync_job: Additional"
        " properties are not allowed ('verbose' was unexpected)",
        "tasks.yaml:20: error [max-steps] tasks[0].max_steps: max_steps 1 leaves no turn for the answer"
        " after the script's 1 call; give at least 2",
    ]
    out_of_order = GOOD.replace(
        "expected_tools: [get_sync_job]", "expected_tools: [retry_sync_job, get_sync_job]"
    )
    [warning] = validate_task_set(load_task_set(write(tmp_path, out_of_order)), catalog())
    assert str(warning) == (
        "tasks.yaml:15: warning [expected-order] tasks[0].expected_tools: the script does not call the"
        " expected tools in this order; one of the two is wrong"
    )
    assert validate_task_set(load_task_set(write(tmp_path, GOOD)), catalog()) == []


def test_validate_warns_of_a_removed_field_that_no_output_schema_declares(tmp_path: Path) -> None:
    tools = [dict(tool) for tool in TOOLS]
    tools[0]["outputSchema"] = {
        "type": "object",
        "properties": {"state": {"type": "string"}, "diagnostics": {"$ref": "#/$defs/D"}},
        "$defs": {"D": {"type": "object", "properties": {"retryable": {"type": "boolean"}}}},
    }
    with_schemas = build_catalog([ServerInfo(name="ops", transport="stdio", tools=tools)])
    typo = load_task_set(
        write(tmp_path, GOOD.replace("remove_field: diagnostics", "remove_field: diagnostic"))
    )
    [warning] = validate_task_set(typo, with_schemas)
    form = "tasks.yaml:11: warning [unknown-field] arms.B.transforms[0].remove_field: " + warning.message
    assert str(warning).endswith(form)
    assert (warning.severity, warning.line, warning.field) == (
        "warning",
        11,
        "arms.B.transforms[0].remove_field",
    )
    assert warning.message == (
        "no tool's output schema has a field 'diagnostic' (1 of 3 tools declares one): the transform may "
        "remove nothing, leaving arm B the same as arm A — did you mean 'diagnostics'?"
    )
    nested = GOOD.replace("remove_field: diagnostics", "remove_field: diagnostics.retryable")
    assert validate_task_set(load_task_set(write(tmp_path, nested)), with_schemas) == []
    assert validate_task_set(load_task_set(write(tmp_path, GOOD)), with_schemas) == []
    assert validate_task_set(typo, catalog()) == []  # no tool declares an output schema: --dry checks


def test_session_validate_on_the_command_line(tmp_path: Path, cli: Cli) -> None:
    snapshot = tmp_path / "catalog.json"
    write_snapshot(catalog(), snapshot)
    good = write(tmp_path, GOOD)
    result = cli("session", "validate", "--tasks", good, "--catalog", snapshot)
    assert result.code == 0, result.err
    assert result.out.strip() == "ok: 1 task against 3 tools · 0 errors, 0 warnings"

    bad = write(tmp_path, GOOD.replace("tool: get_sync_job,", "tool: get_sync,"), "bad.yaml")
    result = cli("session", "validate", "--tasks", bad, "--catalog", snapshot)
    assert result.code == 1
    # one form with `mcp-evals validate`'s problems: `file:line: severity [rule] …`
    assert "bad.yaml:17: error [unknown-tool] tasks[0].script[0].tool: no tool 'get_sync' in the catalog" in (
        result.out
    )
    assert result.out.strip().endswith("FAILED: 1 task against 3 tools · 1 error, 0 warnings")

    broken = write(tmp_path, "tasks: [", "broken.yaml")
    result = cli("session", "validate", "--tasks", broken, "--catalog", snapshot)
    assert result.code == 3 and "Traceback" not in result.err
    assert result.err.startswith("error: ") and "broken.yaml" in result.err

    missing = cli("session", "validate", "--tasks", tmp_path / "nope.yaml", "--catalog", snapshot)
    assert missing.code == 3 and "nope.yaml: task set not found" in missing.err
    json.loads(snapshot.read_text())
