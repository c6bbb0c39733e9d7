"""The config file: strict, located errors, and `${VAR}` kept out of the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli
from mcp_evals.config.load import load_config
from mcp_evals.config.model import Config, ValidationOptions
from mcp_evals.config.variables import expand_variables, unset_variables
from mcp_evals.errors import ConfigError
from support.validate_helpers import write

HELPDESK = Path(__file__).resolve().parents[2] / "examples" / "helpdesk"


def test_the_example_config_loads() -> None:
    config = load_config(HELPDESK / "mcp-evals.yaml")
    assert [server.name for server in config.servers] == ["helpdesk"]
    assert config.servers[0].kind == "stdio"
    assert config.base_dir == HELPDESK
    assert config.fixture_globs == ["fixtures/*.yaml"]
    assert config.validation.min_fixtures >= 30
    assert config.resolve("fixtures") == HELPDESK / "fixtures"


def test_a_minimal_config_gets_defaults(tmp_path: Path) -> None:
    config = load_config(
        write(tmp_path / "mcp-evals.yaml", "servers:\n  - {name: s, url: 'http://127.0.0.1:1/mcp'}\n")
    )
    assert config.areas == {}
    assert config.exclude_tools == []
    assert config.validation == ValidationOptions()
    assert config.servers[0].kind == "http"
    assert config.servers[0].timeout == 30


def test_config_lines_are_kept_for_messages(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path / "mcp-evals.yaml",
            """
            servers:
              - name: s
                snapshot: snap.json
            validation:
              min_areas: 3
              min_per_pattern: {specific: 2}
            """,
        )
    )
    assert config.line_of(("validation", "min_areas")) == 5
    assert config.line_of(("validation", "min_per_pattern", "specific")) == 6
    assert config.line_of(("nowhere",)) is None


def test_a_missing_config_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found") as error:
        load_config(tmp_path / "mcp-evals.yaml")
    hint = error.value.hint or ""
    # what a pipx install has: the init command, not a file of this repository's examples
    assert "--config" in hint and "mcp-evals init --command CMD" in hint and "examples/" not in hint


def test_an_unknown_key_names_file_line_and_key(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mcp-evals.yaml", "servers:\n  - name: s\n    command: x\nvalidaton:\n  min_areas: 2\n"
    )
    with pytest.raises(ConfigError, match=r"mcp-evals\.yaml:4 \(validaton\): unknown key"):
        load_config(path)


def test_an_unknown_key_deep_inside_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "mcp-evals.yaml", "servers:\n  - name: s\n    command: x\n    agrs: [a]\n")
    with pytest.raises(ConfigError, match=r":4 \(servers\[0\]\.agrs\): unknown key"):
        load_config(path)


@pytest.mark.parametrize(
    ("server", "message"),
    [
        ("{name: s}", "give exactly one of `command`"),
        ("{name: s, command: x, url: 'http://h'}", "got command, url"),
        ("{name: s, url: 'http://h', args: [a]}", "only apply to a `command` server"),
        ("{name: s, command: x, headers: {a: b}}", "only apply to a `url` server"),
        ("{name: 'bad name', command: x}", "should match pattern"),
        ("{name: s, command: x, timeout: 0}", "greater than 0"),
    ],
)
def test_a_server_needs_exactly_one_source(tmp_path: Path, server: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path / "c.yaml", f"servers:\n  - {server}\n"))


def test_server_names_are_unique(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", "servers:\n  - {name: a, command: x}\n  - {name: a, command: y}\n")
    with pytest.raises(ConfigError, match="repeated: a"):
        load_config(path)


def test_servers_are_required(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\(servers\): required"):
        load_config(write(tmp_path / "c.yaml", "fixtures: f.yaml\n"))
    # An empty list is for contract cases that each name their own server (tests/contract/test_compat.py).
    assert load_config(write(tmp_path / "e.yaml", "servers: []\n")).servers == []
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_config(write(tmp_path / "d.yaml", "- just a list\n"))


def test_validation_options_are_checked(tmp_path: Path) -> None:
    base = "servers:\n  - {name: s, command: x}\nvalidation:\n"
    with pytest.raises(ConfigError, match="`max_fixtures` must not be below `min_fixtures`"):
        load_config(write(tmp_path / "a.yaml", base + "  min_fixtures: 10\n  max_fixtures: 5\n"))
    with pytest.raises(
        ConfigError, match=r"min_per_pattern\.specific\): Input should be greater than or equal to 0"
    ):
        load_config(write(tmp_path / "b.yaml", base + "  min_per_pattern: {specific: -1}\n"))


def test_variables_expand_from_the_environment() -> None:
    environ = {"TOKEN": "s3cret"}
    assert expand_variables("Bearer ${TOKEN}", what="h", environ=environ) == "Bearer s3cret"
    assert expand_variables("$$HOME and $HOME", what="h", environ=environ) == "$HOME and $HOME"
    with pytest.raises(ConfigError, match="environment variable MISSING is not set"):
        expand_variables("${MISSING}", what="servers.s.env.X", environ=environ)
    assert unset_variables("${A}${B}${TOKEN}", environ) == ["A", "B"]


def test_check_variables_names_the_line_before_any_server_starts(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path / "mcp-evals.yaml",
            """
            servers:
              - name: api
                url: https://example.invalid/mcp
                headers:
                  Authorization: Bearer ${API_TOKEN}
            """,
        )
    )
    with pytest.raises(
        ConfigError,
        match=r"mcp-evals\.yaml:5 \(servers\[0\]\.headers\.Authorization\): "
        r"environment variable API_TOKEN is not set",
    ) as error:
        config.check_variables(environ={})
    assert "export API_TOKEN" in (error.value.hint or "")
    config.check_variables(environ={"API_TOKEN": "x"})
    # the value is expanded only when connecting: the config keeps the placeholder
    assert config.servers[0].headers["Authorization"] == "Bearer ${API_TOKEN}"


def test_a_config_can_be_built_in_code() -> None:
    config = Config.model_validate({"servers": [{"name": "s", "command": "x"}], "fixtures": "f/*.yaml"})
    assert config.fixture_globs == ["f/*.yaml"]
    assert config.line_of(("fixtures",)) is None


def test_the_old_absolute_lexical_threshold_is_refused_with_its_replacement(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mcp-evals.yaml",
        "servers:\n  - {name: s, snapshot: s.json}\nrun:\n  lexical_threshold: 3.0\n",
    )
    with pytest.raises(
        ConfigError, match=r"mcp-evals\.yaml:3 \(run\): `lexical_threshold` .* `lexical_strictness`"
    ):
        load_config(path)
    config = load_config(write(tmp_path / "ok.yaml", "servers:\n  - {name: s, snapshot: s.json}\n"))
    assert config.run.lexical_strictness == 0.25


@pytest.mark.parametrize(
    ("token", "said"),
    [
        ("s3cr3t-tok\n", "holds a line break"),
        ("s3cr3t-tök", "holds non-ASCII characters"),
        ("", "is set but empty"),
        ("s3cr3t\x07tok", "holds a control character"),
    ],
)
def test_an_unusable_header_variable_is_bad_input_naming_the_line_and_variable_never_the_value(
    tmp_path: Path, cli: Cli, clean_env: pytest.MonkeyPatch, token: str, said: str
) -> None:
    config = tmp_path / "mcp-evals.yaml"
    config.write_text(
        "servers:\n"
        "  - name: remote\n"
        "    url: http://127.0.0.1:9/mcp\n"
        "    headers:\n"
        '      Authorization: "Bearer ${TOKEN}"\n'
    )
    clean_env.setenv("TOKEN", token)
    result = cli("catalog", "--config", config)
    assert result.code == 3
    assert (
        f"mcp-evals.yaml:5 (servers[0].headers.Authorization): environment variable TOKEN {said}"
        in result.err
    )
    assert "s3cr3t" not in result.err and "Traceback" not in result.err


def test_an_env_variable_with_a_line_break_is_bad_input_too(
    tmp_path: Path, cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "mcp-evals.yaml"
    config.write_text("servers:\n  - name: local\n    command: python\n    env:\n      API_TOKEN: ${TOKEN}\n")
    clean_env.setenv("TOKEN", "abc\r\n")
    result = cli("catalog", "--config", config)
    assert (
        result.code == 3
        and "(servers[0].env.API_TOKEN): environment variable TOKEN holds a line break" in result.err
    )
    assert "abc" not in result.err


def test_a_default_is_used_when_the_variable_is_unset_or_empty() -> None:
    assert expand_variables("${MEMORY:-/tmp/m.json}", what="a", environ={}) == "/tmp/m.json"
    assert expand_variables("${MEMORY:-/tmp/m.json}", what="a", environ={"MEMORY": ""}) == "/tmp/m.json"
    assert expand_variables("${MEMORY:-/tmp/m.json}", what="a", environ={"MEMORY": "/x"}) == "/x"
    assert expand_variables("${EMPTY_DEFAULT:-}", what="a", environ={}) == ""
    assert expand_variables("$${NOT:-expanded}", what="a", environ={}) == "${NOT:-expanded}"
    assert unset_variables("${A:-a}${B}", {}) == ["B"]
    with pytest.raises(ConfigError, match=r"^servers\.s\.args\[0\]: environment variable B is not set"):
        expand_variables("${A:-a}${B}", what="servers.s.args[0]", environ={})


def test_check_variables_covers_args_and_accepts_defaults(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path / "mcp-evals.yaml",
            """
            servers:
              - name: memory
                command: node
                args: ["${MEMORY_SERVER:-server.js}", "--data", "${DATA_DIR}"]
            """,
        )
    )
    with pytest.raises(
        ConfigError,
        match=r"mcp-evals\.yaml:4 \(servers\[0\]\.args\[2\]\): environment variable DATA_DIR is not set",
    ) as error:
        config.check_variables(environ={})
    assert error.value.hint == "export DATA_DIR=… before running, or remove ${DATA_DIR} from the config"
    config.check_variables(environ={"DATA_DIR": "/data"})
    assert config.servers[0].args[0] == "${MEMORY_SERVER:-server.js}"  # expanded only when starting
