"""Grading leaves no reference cycles behind.

The fact reader refers back to its ``GradeContext``; before ``GradeContext.release`` every grading
left its claims, rows and caches as cyclic garbage, which made Python's cyclic collector run about
three times as often in a training loop and promote each grading's leftovers to the old
generation (a full collection over a loaded library took ~0.4 ms per episode).
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.grading.context import GradeContext

TASKS = Path(__file__).resolve().parent.parent / "tasks"
# a facts task (fact reader, claims), a calendar task (remember) and a record task
FOLDERS = ["approval-chain-001", "ooo-coverage-005", "travel-expense-report-003"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_an_episode_and_its_grading_leave_no_cyclic_garbage(folder: str) -> None:
    task = load_task(TASKS / folder)
    env, agent = OfficeEnv(task), OracleAgent(task)
    play(env, agent)  # warm: the task's own caches are made once
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        play(env, agent)
        assert env.grade is not None and env.grade.passed
        assert gc.collect() == 0, "an episode left reference cycles for the cyclic collector"
    finally:
        if was_enabled:
            gc.enable()


def test_release_drops_the_derived_caches_and_keeps_the_inputs() -> None:
    task = load_task(TASKS / "approval-chain-001")
    start = task.start_world()
    ctx = GradeContext(instruction=task.instruction, start=start, final=start, diff=start.diff(start),
                       answer="done", facts=task.grader.facts)
    reader = ctx.fact_reader
    assert reader.ctx is ctx
    ctx.remember(("probe",), lambda: [1])
    ctx.release()
    assert "fact_reader" not in vars(ctx) and ctx.memo == {}
    assert ctx.answer == "done" and ctx.start is start and ctx.facts is task.grader.facts
    assert ctx.fact_reader is not reader  # asked again, it is derived again
