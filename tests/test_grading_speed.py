"""Grading's per-grading memos give the same answers as working each one out afresh.

Where a grading asks the same question of the same rows or texts many times over (where each figure
of a segment stands; a sheet's rows for each ``sheet_cells`` check on it), the answer is worked out
once per grading and kept on the grading's context or fact reader, never across gradings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.grading import drive_checks
from officesim.grading.context import GradeContext
from officesim.grading.facts import _positions, _swaps, claims
from officesim.grading.normalize import matches

TASKS = Path(__file__).resolve().parent.parent / "tasks"


def _context(folder: str) -> GradeContext:
    """The grading context of the folder's oracle episode."""
    task = load_task(TASKS / folder)
    env = OfficeEnv(task)
    play(env, OracleAgent(task))
    start = task.start_world()
    return GradeContext(instruction=task.instruction, start=start, final=env.world, diff=env.world.diff(start),
                        answer=env.answer, facts=task.grader.facts)


def test_reader_positions_are_positions_worked_out_once_per_grading() -> None:
    ctx = _context("travel-expense-report-003")
    reader = ctx.fact_reader
    text = (f"{ctx.answer}\n6 or 7 deals in 2026: $1,200 + $1,200 = $2,400 (not $1,200.50); 12 of 2026, 6, 6.\n"
            "A CSV row: Knight PLC,5250,154000,5250")
    found = 0
    for segment in reader.segments(text):
        expected = _positions(segment.text, list(segment.figures))
        assert reader.positions(segment.text, segment.figures) == expected
        assert reader.positions(segment.text, segment.figures) == expected  # the kept places, paired again
        # the places pair with the figures asked about, as ``_positions`` pairs them
        assert all(f is g for (f, _), g in zip(reader.positions(segment.text, segment.figures), segment.figures,
                                                strict=True))
        found += sum(at >= 0 for _, at in expected)
    assert found >= 10
    assert reader._placed  # kept for this grading only: released with it
    ctx.release()
    assert not ctx.fact_reader._placed


def test_sheet_checks_on_one_file_read_its_rows_once_per_grading(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = next(p.parent.name for p in sorted(TASKS.glob("month-end-close-*/task.yaml")))
    task = load_task(TASKS / folder)
    checks = [c for c in [*task.grader.gates, *task.grader.criteria] if c.check == "sheet_cells"]
    assert len(checks) >= 2
    ctx = _context(folder)
    fresh = []
    for check in checks:  # each in a grading of its own: nothing kept from another check
        ctx.release()
        fresh.append(check.evaluate(ctx))
    ctx.release()
    reads: list[str] = []
    original = drive_checks._sheet_rows

    def counted(ctx: GradeContext, file_id: str, tab: str | None) -> list[dict[str, Any]]:
        reads.append(file_id)
        return original(ctx, file_id, tab)

    monkeypatch.setattr(drive_checks, "_sheet_rows", counted)
    shared = [check.evaluate(ctx) for check in checks]
    assert [(o.holds, o.reason, o.evidence) for o in shared] == [(o.holds, o.reason, o.evidence) for o in fresh]
    assert all(o.holds for o in shared)
    assert len(reads) == len(set(reads))  # every file read once, whatever number of checks ask about it


def test_a_regex_value_matches_as_re_search_does() -> None:
    assert matches("Net 60 days", {"regex": r"(?i)^\s*(net\s*)?60(\s*days)?\s*$"})
    assert not matches("Net 30", {"regex": r"(?i)^\s*(net\s*)?60(\s*days)?\s*$"})
    assert matches(60, {"regex": r"^60$"}) and not matches(None, {"regex": ".*"})


@pytest.mark.parametrize("folder", ["travel-expense-report-003", "customer-brief-001"])
def test_swaps_read_under_every_subject_are_those_of_a_fresh_reading(folder: str) -> None:
    """A text's swaps under one subject, read after the same text was read under others (its segments'
    owners and swapped figures kept), are those a grading that reads only that subject finds."""
    ctx = _context(folder)
    reader = ctx.fact_reader
    subjects = [None, *reader.spec.entities]
    numeric = [f for f in reader.spec.facts if isinstance(f.value, float)]
    # each entity written with the next one's value: swaps, whichever subject reads the lines without one
    lines = [f"{reader.spec.entities[f.entity].name}: {g.value:,.2f}. And {g.value:,.2f} again."
             for f, g in zip(numeric, numeric[1:] + numeric[:1], strict=True)]
    text = "\n".join([ctx.answer or "", *lines])
    kept = {subject: _swaps(reader, claims(reader, text, subject)) for subject in subjects}
    assert any(kept.values())
    for subject in subjects:
        ctx.release()
        fresh = ctx.fact_reader
        assert _swaps(fresh, claims(fresh, text, subject)) == kept[subject]
