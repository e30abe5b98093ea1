"""Every shipped task passes validation and its grader self-tests, exactly as `officesim tasks validate` runs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from officesim.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_every_shipped_task_validates_and_passes_its_selftests(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tasks", "validate", str(ROOT / "tasks")])
    out = capsys.readouterr().out
    assert code == 0, out[-4000:]
    assert "travel_expense_report" in out
    last = [line for line in out.splitlines() if line.strip()][-1]
    assert last.startswith("all ") and "valid" in last
    count = int(last.split()[1])
    assert count >= 300
