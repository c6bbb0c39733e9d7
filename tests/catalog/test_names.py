"""Provider-safe names: every MCP tool name maps to ``^[a-zA-Z0-9_-]{1,64}$``, reversibly and stably."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_evals.catalog.names import NameMap, safe_name

PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

# Names like real servers use, plus the awkward ones: dots, slashes, spaces, unicode, long names.
tool_names = st.one_of(
    st.from_regex(r"[a-z][a-z0-9_]{0,30}", fullmatch=True),
    st.from_regex(r"[a-zA-Z0-9_.\-/ :]{1,100}", fullmatch=True),
    st.text(min_size=0, max_size=120),
    st.text(alphabet="abc._-/ é日本", min_size=1, max_size=70),
)
catalogs = st.lists(tool_names, min_size=0, max_size=40, unique=True)


@settings(max_examples=300, deadline=None)
@given(catalogs)
def test_every_name_maps_to_a_provider_safe_name(names: list[str]) -> None:
    mapping = NameMap(names)
    for name in names:
        assert PROVIDER_NAME.fullmatch(mapping.provider(name)), (name, mapping.provider(name))


@settings(max_examples=300, deadline=None)
@given(catalogs)
def test_the_mapping_is_reversible_and_collision_free(names: list[str]) -> None:
    mapping = NameMap(names)
    provider_names = [mapping.provider(name) for name in names]
    assert len(set(provider_names)) == len(names)
    for name in names:
        assert mapping.mcp(mapping.provider(name)) == name


@settings(max_examples=200, deadline=None)
@given(catalogs, st.randoms(use_true_random=False))
def test_the_mapping_is_stable_whatever_the_order(names: list[str], shuffler: random.Random) -> None:
    shuffled = list(names)
    shuffler.shuffle(shuffled)
    assert NameMap(names).to_provider == NameMap(shuffled).to_provider == NameMap(names * 2).to_provider


@settings(max_examples=200, deadline=None)
@given(catalogs)
def test_names_that_already_fit_are_kept(names: list[str]) -> None:
    mapping = NameMap(names)
    for name in names:
        if PROVIDER_NAME.fullmatch(name):
            assert mapping.provider(name) == name


def test_awkward_names_get_readable_safe_names() -> None:
    long_name = "a" * 100
    names = [
        "files.read",
        "github/create_issue",
        "send email",
        "créer_ticket",
        "日本語ツール",
        long_name,
        "ok-name",
    ]
    mapping = NameMap(names)
    assert mapping.provider("files.read") == "files_read"
    assert mapping.provider("github/create_issue") == "github_create_issue"
    assert mapping.provider("send email") == "send_email"
    assert mapping.provider("créer_ticket") == "creer_ticket"
    assert mapping.provider("ok-name") == "ok-name"
    assert mapping.provider(long_name) == "a" * 64
    japanese = mapping.provider("日本語ツール")
    assert re.fullmatch(r"tool_[0-9a-f]{8}", japanese)
    assert mapping.mcp(japanese) == "日本語ツール"


def test_a_name_whose_readable_form_is_taken_gets_a_hash() -> None:
    mapping = NameMap(["files_read", "files.read", "files/read"])
    assert mapping.provider("files_read") == "files_read"
    assert re.fullmatch(r"files_read_[0-9a-f]{8}", mapping.provider("files.read"))
    assert re.fullmatch(r"files_read_[0-9a-f]{8}", mapping.provider("files/read"))
    assert mapping.provider("files.read") != mapping.provider("files/read")


def test_long_names_sharing_their_first_64_characters_stay_apart() -> None:
    prefix = "x" * 70
    mapping = NameMap([prefix + "_one", prefix + "_two"])
    one, two = mapping.provider(prefix + "_one"), mapping.provider(prefix + "_two")
    assert one != two
    assert len(one) == len(two) == 64


def test_the_same_name_maps_the_same_across_catalogs() -> None:
    assert (
        NameMap(["a.b", "c"]).provider("a.b") == NameMap(["a.b", "zzz"]).provider("a.b") == safe_name("a.b")
    )


def test_an_invented_name_maps_back_to_nothing() -> None:
    mapping = NameMap(["search"])
    assert mapping.mcp("delete_everything") is None
    assert "search" in mapping
    assert len(mapping) == 1
