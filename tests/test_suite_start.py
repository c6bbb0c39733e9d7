"""The suite's own start on a fresh clone (tests/conftest.py): work every xdist worker would otherwise
repeat is done once, before they start."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import rewrite_test_modules


def test_the_test_modules_are_rewritten_once_into_the_caches_pytest_reads(
    pytestconfig: pytest.Config, tmp_path: Path
) -> None:
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc

    for index in range(8):
        (tmp_path / f"test_m{index}.py").write_text(
            f"def test_it():\n    left = [{index}]\n    assert left == [-1]\n"
        )
    (tmp_path / "conftest.py").write_text("")
    (tmp_path / "helper.py").write_text("")  # not a test module: pytest does not rewrite it
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "test_skipped.py").write_text("")

    assert rewrite_test_modules(pytestconfig, tmp_path) == 9
    cached = sorted(path.name for path in (tmp_path / "__pycache__").iterdir())
    assert cached == sorted(f"{name}{PYC_TAIL}" for name in ["conftest", *(f"test_m{i}" for i in range(8))])
    assert not (tmp_path / "node_modules" / "__pycache__").exists()

    code = _read_pyc(tmp_path / "test_m3.py", tmp_path / "__pycache__" / f"test_m3{PYC_TAIL}")
    assert code is not None  # pytest takes it as current
    namespace: dict[str, object] = {"__name__": "test_m3"}
    exec(code, namespace)
    with pytest.raises(AssertionError) as failed:
        namespace["test_it"]()  # type: ignore[operator]
    assert "At index 0 diff: 3 != -1" in str(failed.value)  # the assert was rewritten

    assert rewrite_test_modules(pytestconfig, tmp_path) == 0  # all current: nothing to do
