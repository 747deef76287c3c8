"""The README's Python examples run as written (the front door must not lie)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_readme_has_a_python_example() -> None:
    assert BLOCKS


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_example_runs(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(code, str(README), "exec"), {})
    assert capsys.readouterr().out.strip()  # the example prints what it shows
