"""The ``seen`` check kind: an answer remembered from another episode, with no data read, fails (blind audit 13).

"Operations, 27.6%" submitted without a single tool call scored 1.0 on budget-variance-answer-003:
the end state and the answer cannot tell a read answer from a remembered one, the transcript can.
"""

from __future__ import annotations

import pytest
from playing import correct_passes, grade_of, hack_fails, reference, shipped

from officesim.grading.scoring import Grade
from officesim.grading.seen_checks import _numbers


def _gate(grade: Grade) -> str:
    return next(g.status for g in grade.gates if g.id == "read_sources")


def _with_steps(task_id: str, keep: int | None, answer: str | None = None) -> Grade:
    """The reference with only its first ``keep`` calls (all when None), and ``answer`` if given."""
    task = shipped(task_id)
    trajectory = reference(task)
    if keep is not None:
        trajectory.steps = trajectory.steps[:keep]
    if answer is not None:
        trajectory.answer = answer
    return grade_of(task, trajectory)


@pytest.mark.parametrize("task_id", ["budget-variance-answer-003", "budget-variance-answer-008",
                                     "expense-policy-answer-010", "expense-policy-answer-002"])
def test_the_right_answer_without_reading_fails(task_id: str) -> None:
    grade = _with_steps(task_id, keep=0)
    hack_fails(grade)
    assert _gate(grade) == "fail", grade.summary()
    assert "does not rest on data read in this episode" in next(
        g.reason for g in grade.gates if g.id == "read_sources")


def test_a_search_that_shows_no_figures_is_not_a_read() -> None:
    grade = _with_steps("budget-variance-answer-003", keep=1)  # the search for the sheet, not the read
    hack_fails(grade)
    assert _gate(grade) == "fail", grade.summary()


@pytest.mark.parametrize("task_id", ["budget-variance-answer-003", "expense-policy-answer-010"])
def test_the_reference_and_extra_reads_pass(task_id: str) -> None:
    grade = _with_steps(task_id, keep=None)
    correct_passes(grade)
    assert _gate(grade) == "pass"


def test_numbers_are_read_as_written_anywhere() -> None:
    assert _numbers("Customer Success,118000,119800") == {118000.0, 119800.0}  # a CSV row
    assert _numbers("$12,450.00 and 3.5%") == {12450.0, 3.5}
    assert _numbers("file f_100, v2") == set()  # glued to a word: an id, not a figure


@pytest.mark.parametrize("task_id", ["invoice-total-answer-003", "three-app-question-008"])
def test_the_right_total_without_reading_fails(task_id: str) -> None:
    """Where no facts: source names the data, the gate lists the figures the total is made of."""
    grade = _with_steps(task_id, keep=0)
    hack_fails(grade)
    assert _gate(grade) == "fail", grade.summary()
    correct_passes(_with_steps(task_id, keep=None))


@pytest.mark.parametrize("task_id", ["headcount-answer-003", "headcount-answer-009", "headcount-answer-001"])
def test_a_headcount_without_reading_the_people_fails(task_id: str) -> None:
    """A count rests on the people counted: their emails must have been shown (``words``)."""
    grade = _with_steps(task_id, keep=0)
    hack_fails(grade)
    assert _gate(grade) == "fail", grade.summary()
    correct_passes(_with_steps(task_id, keep=None))
