"""The ``picked`` check reads every way a text crowns an option, not only a grammatical superlative.

On budget-variance-answer-003 (which department overspent by the largest percentage?) the answer is
Operations at 27.6%; Executive's 9.1% (the largest overrun in dollars) is the runner-up.  These wrong
picks passed: a negated comparative ("No department overspent more than Executive"), crown words
("the worst offender", "leads the overruns", "tops the list", "#1 for overspending"), and, on
budget-variance-answer-001 (which department overspent the most in absolute terms?), a dollar crown
of Finance "relative to plan" read as a percentage one.  Each is played here both ways: given to the
runner-up it fails, given to the answer it passes.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playing import answered, correct_passes, hack_fails, rewritten, shipped

from officesim.grading.scoring import Grade

PERCENT = "budget-variance-answer-003"  # Operations 27.6% over; Executive 9.1% (the largest in dollars)
DOLLARS = "budget-variance-answer-001"  # Sales $26,300 over (10.5%); Finance $5,800 over (1.7%)


def _gate(grade: Grade, check_id: str = "picked") -> str:
    return next(g.status for g in grade.gates if g.id == check_id)


def _fails(task_id: str, answer: str) -> None:
    grade = answered(shipped(task_id), answer)
    hack_fails(grade)
    assert _gate(grade) == "fail", grade.summary()


def _passes(task_id: str, answer: str) -> None:
    grade = answered(shipped(task_id), answer)
    correct_passes(grade)
    assert _gate(grade) == "pass", grade.summary()


# every wrong crown keeps the answer's own line before it, true and uncrowned (so the answer is named first):
# only the pick is wrong
_KEPT = "Operations was 27.6% over its Q3 budget. "

CROWNS = [
    "No department overspent more than {who} ({fig}).",
    "No other department went further over budget than {who} ({fig}).",
    "Nobody overspent by more than {who} did ({fig}).",
    "Not one department exceeded its budget by more than {who} ({fig}).",
    "{who} was the worst offender at {fig}.",
    "{who} leads the overruns at {fig}.",
    "{who} tops the list ({fig}).",
    "{who} heads the list of overspenders at {fig}.",
    "{who} is #1 for overspending ({fig}).",
    "{who} is number one at {fig}.",
    "{who} takes first place with {fig}.",
    "The standout is {who} at {fig}.",
    "The overruns were led by {who} ({fig}).",
    "Keine Abteilung hat ihr Budget stärker überschritten als {who} ({fig}).",
    "Aucun service n'a plus dépassé son budget que {who} ({fig}).",
    "No department overspent as much as {who} ({fig}).",
    "No department's overrun exceeded {who}'s {fig}.",
    "No one came close to {who}'s overrun of {fig}.",
    "None of the departments overspent more than {who} ({fig}).",
    "{who} is in the lead at {fig}.",
    "{who} is ahead of the other departments at {fig}.",
    "{who} overspent more than every other department ({fig}).",
    "{who} went further over budget than any other department at {fig}.",
    "The answer is {who} ({fig}).",
    "Answer: {who}, {fig}.",
    "{who} ranks first at {fig}.",
    "{who} is the biggest offender ({fig}).",
    "{who} is the top overspender at {fig}.",
    "{who} was the highest at {fig}.",
    "Winner: {who} ({fig}).",
    "{who} is way out in front at {fig}.",
    "Every other department overspent less than {who} ({fig}).",
    "All the other departments were less over budget than {who} ({fig}).",
    "{who}, at {fig}, is the department you're looking for.",
]


@pytest.mark.parametrize("crown", CROWNS)
def test_the_runner_up_crowned_fails(crown: str) -> None:
    _fails(PERCENT, _KEPT + crown.format(who="Executive", fig="9.1%"))


@pytest.mark.parametrize("crown", CROWNS)
def test_the_answer_crowned_passes(crown: str) -> None:
    _passes(PERCENT, "Executive was 9.1% over. " + crown.format(who="Operations", fig="27.6%"))


def test_a_sign_does_not_make_a_pick_of_another_measure() -> None:
    """A clause stating a figure of each measure states one of the question's: a "$" in it is no "in dollars"."""
    _fails(PERCENT, _KEPT + "Executive overspent the most: 9.1% vs $27,500.")
    _passes(PERCENT, _KEPT + "Executive overspent the most in dollars: $27,500 vs 9.1%.")


@pytest.mark.parametrize("answer", [
    "Operations overspent the most (27.6%); Executive was next at 9.1%.",
    "Operations is in the lead at 27.6%; Executive follows at 9.1%.",
    "Operations ranks first at 27.6%. Executive comes second at 9.1%.",
    "Operations: 27.6% over, the most of any department. Executive was 9.1% over, leading to a review.",
    "Operations, 27.6% over. Executive overspent more than the other departments in dollars ($27,500) but is only "
    "9.1% over.",
    "Operations leads at 27.6%, with Executive a distant second at 9.1%.",
    "Operations leads, at 27.6%. Executive: 9.1%.",
    "Operations leads the overruns at 27.6%; Executive is second at 9.1%.",
    "No department overspent more than Operations (27.6%). Executive was 9.1% over.",
    "No department other than Operations overspent more than Executive (9.1%); Operations was 27.6% over.",
    "Operations was 27.6% over. Every other department except Operations overspent less than Executive (9.1%).",
    "Operations, 27.6% over. Executive tops the list in dollars ($27,500) but is only 9.1% over.",
    "Operations, 27.6% over budget. Executive was the worst offender in dollars ($27,500), 9.1% over.",
    "| Department | Over |\n|---|---|\n| Operations | 27.6% |\n| Executive | 9.1% |\n\nOperations tops the list.",
    "Operations hat das Budget am stärksten überschritten: 27.6%. Executive folgt mit 9.1%.",
    "Operations a le plus dépassé son budget : 27.6%. Executive suit avec 9.1%.",
])
def test_careful_answers_pass(answer: str) -> None:
    _passes(PERCENT, answer)


def test_a_dollar_crown_relative_to_plan_is_a_pick_of_the_dollar_question() -> None:
    """The question on 001 is in dollars: "overspend relative to plan" with a dollar figure is that measure."""
    _fails(DOLLARS, "Finance's $5,800 was the biggest overspend relative to plan. Sales, over by $26,300.00.")
    _fails(DOLLARS, "Sales: over by $26,300.00. Finance's overspend was the biggest relative to plan ($5,800).")
    _passes(DOLLARS, "Sales's $26,300 was the biggest overspend relative to plan. Finance was $5,800 over.")


def test_a_crown_in_percent_on_the_dollar_question_crowns_nothing() -> None:
    """The other direction: on 001 a pick said in percent ("relative to its budget", a % figure) is of
    another measure; on 003 (percent) the same words crown for the question."""
    _passes(DOLLARS, "Sales overspent the most: $26,300. Relative to its budget Sales also leads (10.5%); "
            "Finance was $5,800 over.")
    _passes(DOLLARS, "Sales, over by $26,300.00. In relative terms Sales is also the biggest overspender.")
    _fails(PERCENT, _KEPT + "Executive had the biggest overrun relative to its budget (9.1%).")
    _passes(PERCENT, "Operations had the biggest overrun relative to its budget (27.6%). Executive was 9.1% over.")


TRAVEL = "travel-expense-report-003"  # Customer Success changed most (+$1,247.09); Marketing +$171.44
_BIGGEST = "Biggest change: Customer Success, up $1,247.09 on Q2, driven by more trips this quarter."
_TRAVEL_KEPT = "Customer Success: up $1,247.09 on Q2. "


@pytest.mark.parametrize("crown", [
    "No department's spend rose more than {who}'s (up {fig} on Q2).",
    "{who} leads the increases, up {fig} on Q2.",
    "{who}'s change was larger than any other department's (up {fig} on Q2).",
])
def test_travel_report_crowns_without_a_superlative(crown: str) -> None:
    """In the report (not an answer to a "which": crowns need a word of the change), both ways."""
    def edit(line: str) -> Callable[[str], str]:
        return lambda text: text.replace(_BIGGEST, line)
    grade = rewritten(shipped(TRAVEL), edit(_TRAVEL_KEPT + crown.format(who="Marketing", fig="$171.44")),
                      tools=("drive_create_doc",))
    hack_fails(grade)
    assert _gate(grade) == "fail", grade.summary()
    correct_passes(rewritten(shipped(TRAVEL), edit(crown.format(who="Customer Success", fig="$1,247.09")),
                             tools=("drive_create_doc",)))


@pytest.mark.parametrize("line", [
    "Sales ranks first on total spend; the biggest change was Customer Success, up $1,247.09 on Q2.",
    "Customer Success leads the increases, up $1,247.09 on Q2; Sales is the top spender overall.",
    "Customer Success changed the most, up $1,247.09 on Q2. Sales still leads in total spend.",
])
def test_travel_report_crowns_of_another_measure_pass(line: str) -> None:
    correct_passes(rewritten(shipped(TRAVEL), lambda text: text.replace(_BIGGEST, line), tools=("drive_create_doc",)))
