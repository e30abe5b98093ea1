"""Hacks and alternative correct answers for the new structures of the finance answer families
(issue 15 item 4): budget_variance_answer's revised sheet, September alone and the hard
per-department sheets; expense_policy_answer's update memo and approved exception in mail.

Each structure, built fresh on acme (the library is regenerated after the branches merge), must
fail the answers its declared traps produce and a hedge, and pass other correct ways of writing
the answer.  The cases read what they need (the department, the right figure, the wrong readings)
from the generated task's own facts, so they follow the task's data.
"""

from __future__ import annotations

import pytest
from playing import answered, built, fails, full_marks, usd

from officesim.grading.facts import Fact
from officesim.task import Task

pytestmark = pytest.mark.slow  # every case generates its instance first

BV, EP = "budget_variance_answer", "expense_policy_answer"


def winner(task: Task) -> tuple[str, Fact]:
    """The department the answer must name and its required fact."""
    criterion = next(c for c in task.grader.criteria if c.id == "answer")
    fact = task.grader.facts.fact(criterion.require[0])
    return task.grader.facts.entities[criterion.name[0]].name, fact


def trapped(task: Task) -> tuple[str, Fact]:
    """Another department with a wrong reading (the superseded sheet's top)."""
    _, top = winner(task)
    fact = next(f for f in task.grader.facts.facts if f.wrong and f.entity != top.entity)
    return task.grader.facts.entities[fact.entity].name, fact


# ------------------------------------------------------------------------------ budget: every structure
@pytest.mark.parametrize("variant", ["revised-sheet", "one-month", "department-sheets"])
def test_budget_structures_pass_written_other_ways(variant: str) -> None:
    task = built(BV, variant)
    name, fact = winner(task)
    assert full_marks(answered(task, task.solution.answer))
    assert full_marks(answered(task, f"{name} is the furthest over: {usd(fact.value)} above budget."))
    assert full_marks(answered(task, f"Most over budget: {name} (over by ${fact.value:,.0f})"))


@pytest.mark.parametrize("variant", ["revised-sheet", "one-month", "department-sheets"])
def test_budget_structures_fail_each_wrong_reading_and_a_hedge(variant: str) -> None:
    """The winner with each figure a trap gives (the superseded sheet, the quarter for September,
    the total row summed in), and the winner beside another department: each fails."""
    task = built(BV, variant)
    name, fact = winner(task)
    assert fact.wrong, "the structure's trap must be a listed wrong reading"
    for reading in fact.wrong:
        assert fails(answered(task, f"{name}, over by {usd(float(reading))}")), reading
    other = next(e.name for k, e in task.grader.facts.entities.items() if k != fact.entity)
    assert fails(answered(task, f"Either {name} or {other}; {name} is over by {usd(fact.value)}."))


def test_budget_revised_sheet_fails_the_superseded_sheets_top() -> None:
    """Falling for the first Q3 sheet: its top department with its first-sheet overrun."""
    task = built(BV, "revised-sheet")
    stale, fact = trapped(task)
    assert fails(answered(task, f"{stale}, over by {usd(float(fact.wrong[0]))}"))
    assert fails(answered(task, f"{stale}, over by {usd(fact.value)}"))


def test_budget_revised_sheet_passes_with_the_budget_and_actual() -> None:
    task = built(BV, "revised-sheet")
    name, fact = winner(task)
    budget = next(r for r in task.grader.facts.figures if any(
        abs(a - r - float(fact.value)) < 0.01 for a in task.grader.facts.figures))
    assert full_marks(answered(task, f"{name}: actual {usd(budget + float(fact.value))} against a budget of "
                                 f"{usd(budget)}, so {usd(fact.value)} over."))


def test_budget_one_month_fails_the_quarters_top() -> None:
    """The quarter's biggest overspend is another department: naming it for September fails,
    with its September figure or with any other."""
    task = built(BV, "one-month")
    _, fact = winner(task)
    facts = task.grader.facts
    quarter_top = max((f for f in facts.facts if f.entity != fact.entity), key=lambda f: float(f.value))
    other = facts.entities[quarter_top.entity].name
    assert fails(answered(task, f"{other}, over by {usd(float(quarter_top.value))} in September"))
    assert fails(answered(task, f"{other}"))


def test_budget_one_month_passes_as_a_sentence_in_thousands() -> None:
    task = built(BV, "one-month")
    name, fact = winner(task)
    assert full_marks(answered(task, f"In September it was {name}, about ${float(fact.value) / 1000:.1f}k over its "
                                 "monthly budget."))


def test_the_hard_budget_tier_reads_every_sheet_and_pages_the_search() -> None:
    task = built(BV, "department-sheets")
    assert task.difficulty == "hard"
    assert len(task.solution.steps) >= 12
    assert sum(s.name == "drive_search_files" for s in task.solution.steps) >= 2  # more than one page
    assert len(task.spec.traps) >= 2
    stale, fact = trapped(task)
    assert fails(answered(task, f"{stale}, over by {usd(float(fact.wrong[0]))}"))
    assert fails(answered(task, f"{stale}"))


# ------------------------------------------------------------------------------ expense policy
def cap(task: Task) -> Fact:
    criterion = next(c for c in task.grader.criteria if c.id == "amount")
    return task.grader.facts.fact(criterion.require[0])


@pytest.mark.parametrize("variant", ["policy-update", "mail-exception"])
def test_policy_overrides_pass_written_other_ways(variant: str) -> None:
    task = built(EP, variant)
    right = float(cap(task).value)
    city = task.grader.facts.entities[cap(task).entity].name
    assert full_marks(answered(task, task.solution.answer))
    assert full_marks(answered(task, f"{right:g}"))
    assert full_marks(answered(task, f"You can claim up to {usd(right)} per night for the {city} hotel."))
    assert full_marks(answered(task, f"${right:,.0f}/night, taxes included"))


@pytest.mark.parametrize("variant", ["policy-update", "mail-exception"])
def test_policy_overrides_fail_the_stale_caps_and_a_hedge(variant: str) -> None:
    """The policy doc's cap (raised by the memo, or overridden by the approval), last year's cap,
    the other trip's approved rate: each fails, and so does the right cap offered beside one."""
    task = built(EP, variant)
    fact = cap(task)
    assert len(fact.wrong) >= 2
    for reading in fact.wrong:
        assert fails(answered(task, usd(float(reading)))), reading
    assert fails(answered(task, f"{usd(float(fact.wrong[0]))} or {usd(float(fact.value))}, not sure which applies"))


def test_mail_exception_needs_the_mail_and_declares_its_traps() -> None:
    task = built(EP, "mail-exception")
    assert any(s.name == "mail_get_thread" for s in task.solution.steps)
    assert len(task.spec.traps) == 2
    # the approval for another city's trip, at its rate: a wrong reading of this cap
    assert fails(answered(task, f"{usd(float(cap(task).wrong[-1]))} a night, as the CFO approved"))


def last_quarter_top(task: Task) -> tuple[str, float]:
    """The department furthest over in the Q2 sheets planted beside the Q3 ones, and its overrun."""
    over: dict[str, float] = {}
    for step in task.spec.setup:
        arguments = getattr(step, "arguments", None) or {}
        if getattr(step, "call", None) != "drive_create_sheet" or not arguments["name"].startswith("Q2 2026"):
            continue
        for row in arguments["rows"]:
            if "total" in str(row[0]).lower():
                continue
            dept = row[0] if len(row) == 3 else arguments["name"].rsplit(" - ", 1)[-1]
            over[dept] = over.get(dept, 0.0) + float(row[-1]) - float(row[-2])
    assert over, "the structure plants last quarter's sheets"
    top = max(over, key=over.__getitem__)
    return top, round(over[top], 2)


@pytest.mark.parametrize("variant", ["revised-sheet", "department-sheets"])
def test_budget_last_quarters_sheets_answer_fails(variant: str) -> None:
    """Reading Q2's sheet for Q3: its top department with its Q2 overrun, or the Q3 top with a Q2
    figure, fails (Q2's figures are not the Q3 sources')."""
    task = built(BV, variant)
    name, fact = winner(task)
    q2_top, q2_over = last_quarter_top(task)
    assert abs(q2_over - float(fact.value)) > 1, "Q2's top overrun happens to be Q3's"
    assert fails(answered(task, f"{q2_top}, over by {usd(q2_over)}"))
    assert fails(answered(task, f"{name}, over by {usd(q2_over)}"))
