"""Output files: whole or nothing, readable as the umask says, never over an input, checked early."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_evals.errors import ConfigError, McpEvalsError
from mcp_evals.files import atomic_write, check_writable, refuse_inputs


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_written_file_is_readable_by_others_under_umask_022(tmp_path: Path, umask: None) -> None:
    target = tmp_path / "out" / "report.md"
    with atomic_write(target) as stream:
        stream.write("hello")
    plain = tmp_path / "plain.txt"
    plain.write_text("same rule as open()")
    assert mode_of(target) == mode_of(plain) == 0o644
    assert [entry.name for entry in target.parent.iterdir()] == ["report.md"]  # no temporary left


def test_a_failed_write_leaves_the_earlier_file(tmp_path: Path) -> None:
    target = tmp_path / "results.ndjson"
    target.write_text("earlier\n")
    with pytest.raises(RuntimeError), atomic_write(target) as stream:
        stream.write("half")
        raise RuntimeError("killed")
    assert target.read_text() == "earlier\n"
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["results.ndjson"]


def test_an_output_that_is_an_input_is_refused_naming_both(tmp_path: Path) -> None:
    results = tmp_path / "results.ndjson"
    results.write_text("{}\n")
    with pytest.raises(ConfigError) as caught:
        refuse_inputs(tmp_path / "." / "results.ndjson", {"the results file": results}, what="--out")
    assert str(results) in str(caught.value) and "the results file" in str(caught.value)
    refuse_inputs(tmp_path / "report.md", {"the results file": results, "nothing": None})


def test_a_symlink_to_an_input_is_the_input(tmp_path: Path) -> None:
    config = tmp_path / "mcp-evals.yaml"
    config.write_text("servers: []\n")
    (tmp_path / "link.yaml").symlink_to(config)
    with pytest.raises(ConfigError):
        refuse_inputs(tmp_path / "link.yaml", {"the config file": config})


def test_check_writable_names_what_is_in_the_way_and_creates_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(McpEvalsError) as caught:
        check_writable(blocker / "run.ndjson")
    assert str(blocker) in str(caught.value)
    with pytest.raises(McpEvalsError):
        check_writable(tmp_path)  # a folder is in the way
    check_writable(tmp_path / "new" / "deeper" / "run.ndjson")
    assert not (tmp_path / "new").exists()
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["results"]


def test_a_file_this_process_read_is_never_replaced_unless_updated_on_purpose(tmp_path: Path) -> None:
    from mcp_evals.files import command_inputs, register_input, updates

    config = tmp_path / "mcp-evals.yaml"
    config.write_text("servers: []\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(config)
    with command_inputs():
        register_input(config)
        for output in (config, link):
            with (
                pytest.raises(ConfigError, match="is also a file this command reads"),
                atomic_write(output) as stream,
            ):
                stream.write("replaced")
            assert config.read_text() == "servers: []\n"
        updates(config)  # e.g. the lock --update-lock rewrites
        with atomic_write(config) as stream:
            stream.write("servers: [] # updated\n")
        assert config.read_text() == "servers: [] # updated\n"
    register_input(config)  # outside a command (library use): nothing is guarded
    with atomic_write(link) as stream:
        stream.write("new")
