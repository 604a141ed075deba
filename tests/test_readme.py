"""The README's Python examples run, and print what the README says they print."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from tests.helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
# A ```python block, and the ```text block after "prints" that follows it, if any.
BLOCKS = re.findall(r"```python\n(.*?)```(?:\s*prints\s*```text\n(.*?)```)?", README, re.S)


def test_the_readme_has_examples() -> None:
    assert len(BLOCKS) >= 3
    assert any(expected for _, expected in BLOCKS)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_an_example_runs_and_prints_what_the_readme_says(
    index: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, expected = BLOCKS[index]
    monkeypatch.chdir(REPO)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"README.md example {index + 1}", "exec"), {"__name__": "readme"})
    if expected:
        assert out.getvalue() == expected
