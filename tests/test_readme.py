"""The README's Python examples run as written (the ones that need no server)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
LOCAL = [b for b in BLOCKS if "httpx" not in b]


def test_the_readme_has_the_examples_we_promise() -> None:
    assert len(LOCAL) >= 2
    assert any("OfficeEnv" in b for b in LOCAL) and any("World.generate" in b for b in LOCAL)


@pytest.mark.parametrize("index", range(len(LOCAL)))
def test_readme_example_runs(index: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setitem(os.environ, "OFFICESIM_JUDGE_MODEL", "")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # Ray's workers import officesim from this checkout too
    exec(compile(LOCAL[index], f"README.md example {index}", "exec"), {})
    assert capsys.readouterr().out or index == 0
