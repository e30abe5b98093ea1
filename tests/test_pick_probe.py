"""The self-test of the ``picked`` check (``officesim/probes/picks.py``): the superlative moved to the runner-up.

``runner_up_crowned`` gives the question's superlative to the runner-up, with its own true figure, and keeps
the answer's line after it without its crown: every figure right, the answer named, only the pick wrong.  It
must fail every shipped grader with a ``picked`` check, and pass one without it (else the probe tests some
other check, and would not catch a grader that lost its ``picked``).  ``pick_reworded`` crowns the answer in
other words ("The largest overrun was Sales's, over by ...") and must pass.
"""

from __future__ import annotations

import copy
import functools

import pytest
from playing import answered, correct_full_marks, correct_passes, grade_of, hack_fails, shipped

from officesim import OfficeEnv
from officesim.agents.scripted import OracleAgent
from officesim.env import play as play_episode
from officesim.grading.pick_checks import PickedCheck
from officesim.pipeline.selftest import would_pass
from officesim.probes import Reference, Trajectory
from officesim.probes.families import kinds_for
from officesim.probes.kinds import PROBES, VARIANTS
from officesim.probes.picks import _rewritten, _unbeaten, pick_of
from officesim.probes.run import context
from officesim.task import Task

TASKS = ["budget-variance-answer-001", "budget-variance-answer-003", "budget-variance-answer-005",
         "budget-variance-answer-carewell-003", "budget-variance-answer-shopline-001", "travel-expense-report-001",
         "travel-expense-report-counsel-001", "travel-expense-report-carewell-002"]


@functools.cache
def _reference(task_id: str) -> Reference:
    task = shipped(task_id)
    env = OfficeEnv(task)
    play_episode(env, OracleAgent(task))
    return Reference.of(task, env.transcript)


def _built(task_id: str, name: str) -> Trajectory:
    kind = PROBES.get(name) or VARIANTS[name]
    trajectory = kind.build(context(_reference(task_id)))
    assert trajectory is not None, f"{name} does not apply to {task_id}"
    return trajectory


def _without_picked(task: Task) -> Task:
    """The task with every ``picked`` check taken out of its grader (the rest as shipped)."""
    out = copy.copy(task)
    grader = task.grader
    out.grader = grader.model_copy(update={
        "gates": [c for c in grader.gates if not isinstance(c, PickedCheck)],
        "criteria": [c for c in grader.criteria if not isinstance(c, PickedCheck)]})
    return out


@pytest.mark.parametrize("task_id", TASKS)
def test_the_runner_up_crowned_fails_on_the_picked_check(task_id: str) -> None:
    grade = grade_of(task_id, _built(task_id, "runner_up_crowned"))
    hack_fails(grade)
    assert {r.id for r in grade.results() if r.status == "fail"} <= {"picked", "picked_mail"}, grade.summary()
    assert any(r.id == "picked" and r.status == "fail" for r in grade.results()), grade.summary()


@pytest.mark.parametrize("task_id", TASKS)
def test_the_probe_catches_a_grader_without_the_check(task_id: str) -> None:
    """Without its ``picked`` checks the grader passes the wrong pick at 1.0: ``tasks validate`` would
    report the probe passing."""
    grade = grade_of(_without_picked(shipped(task_id)), _built(task_id, "runner_up_crowned"))
    assert would_pass(grade) and grade.score == pytest.approx(1.0), grade.summary()


@pytest.mark.parametrize("task_id", TASKS)
def test_the_runner_up_unbeaten_fails_on_the_picked_check_only(task_id: str) -> None:
    """The crown as a negated comparative ("No overrun was larger than Finance's") is a pick too; without
    the ``picked`` checks the grader passes it at 1.0."""
    built = _built(task_id, "runner_up_unbeaten")
    grade = grade_of(task_id, built)
    hack_fails(grade)
    assert {r.id for r in grade.results() if r.status == "fail"} <= {"picked", "picked_mail"}, grade.summary()
    blind = grade_of(_without_picked(shipped(task_id)), built)
    assert would_pass(blind) and blind.score == pytest.approx(1.0), blind.summary()


@pytest.mark.parametrize("task_id", TASKS)
def test_the_answer_unbeaten_passes(task_id: str) -> None:
    """The same words crowning the answer ("No overrun was larger than Sales's, over by ...") pass."""
    built = _rewritten(context(_reference(task_id)), crown_runner=False, crown_of=_unbeaten)
    assert built is not None
    correct_full_marks(grade_of(task_id, built))


@pytest.mark.parametrize("task_id", TASKS)
def test_the_pick_reworded_passes(task_id: str) -> None:
    correct_full_marks(grade_of(task_id, _built(task_id, "pick_reworded")))


def test_the_probe_writes_the_runner_up_with_its_own_figure() -> None:
    budget = _built("budget-variance-answer-001", "runner_up_crowned")
    assert budget.answer == "The largest overrun was Finance's ($5,800). Sales, over by $26,300.00"
    assert _built("budget-variance-answer-001", "pick_reworded").answer == \
        "The largest overrun was Sales's, over by $26,300.00"
    assert _built("budget-variance-answer-003", "runner_up_crowned").answer == \
        "The largest percentage overrun was Executive's (9.1%). Operations, 27.6% over budget"
    doc = next(s["arguments"]["content"] for s in _built("travel-expense-report-001", "runner_up_crowned").actions()
               if s["name"] == "drive_create_doc")
    assert "The biggest change was Customer Success's ($120.33). Sales, up $1,603.23 on Q2" in doc
    assert "Biggest change" not in doc
    assert _built("budget-variance-answer-001", "runner_up_unbeaten").answer == \
        "No overrun was larger than Finance's ($5,800). Sales, over by $26,300.00"


def test_the_kinds_run_everywhere_and_apply_only_where_a_picked_check_is() -> None:
    assert "runner_up_crowned" in kinds_for("budget_variance_answer").probes()
    assert "pick_reworded" in kinds_for("travel_expense_report").variants()
    for task_id in ("inbox-triage-001", "channel-summary-post-001", "month-end-close-001"):
        ctx = context(_reference(task_id))
        assert pick_of(ctx) is None
        assert PROBES["runner_up_crowned"].build(ctx) is None and VARIANTS["pick_reworded"].build(ctx) is None


# ------------------------------------------------------------------ misses the probe's wording search found
@pytest.mark.parametrize("answer", [
    "Sales, over by $26,300.00; the largest overrun, however, was Finance's ($5,800).",
    "Sales, over by $26,300.00. The biggest overrun, in fact, was Finance's ($5,800).",
    "Sales, over by $26,300.00. Finance overspent more than any other department ($5,800).",
    "Sales, over by $26,300.00. Finance ($5,800 over) overspent more than anyone else.",
    "Sales, over by $26,300.00. Finance overspent more than anybody ($5,800).",
])
def test_a_crown_behind_an_interjection_or_said_as_more_than_any_other_fails(answer: str) -> None:
    grade = answered("budget-variance-answer-001", answer)
    hack_fails(grade)
    assert next(g.status for g in grade.gates if g.id == "picked") == "fail", grade.summary()


@pytest.mark.parametrize("answer", [
    "Sales had the largest overrun, $26,300.00; Finance, by contrast, went $5,800 over.",
    "The largest overrun, however, was Sales's: $26,300.00 over.",
    "Sales overspent more than any other department: $26,300.00 over its Q3 budget.",
    "Sales, over by $26,300.00, more than anyone else (Finance was next at $5,800).",
    "Sales overspent by $26,300.00, more than anyone expected; Finance went $5,800 over.",
])
def test_the_same_wordings_crowning_the_answer_pass(answer: str) -> None:
    correct_passes(answered("budget-variance-answer-001", answer))
