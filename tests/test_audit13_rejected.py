"""Correct work blind audit 13 found rejected, now accepted (each with the hack beside it that must still fail)."""

from __future__ import annotations

from playing import answered, correct_passes, grade_of, hack_fails, reference, shipped

from officesim.grading.claims import read_figures


def test_a_year_opening_an_aside_is_no_figure() -> None:
    assert [f.value for f in read_figures("$780 (2026 policy)")] == [780.0]
    assert [f.value for f in read_figures("overrun of (25,300)")] == [-25300.0]  # accounting parentheses stay
    correct_passes(answered(shipped("expense-policy-answer-003"), "$780 (2026 policy)"))
    hack_fails(answered(shipped("expense-policy-answer-003"), "$710 (2025 policy)"))


def _closed_on(close_date: str) -> object:
    task = shipped("deal-reconcile-from-mail-009")  # the order form signed by mail on 2026-10-04; today the 5th
    out = reference(task)
    for step in out.actions():
        if step["name"] == "crm_update_deal":
            step["arguments"]["close_date"] = close_date
    return grade_of(task, out)


def test_a_won_deal_may_close_on_the_day_the_mail_says_it_was_signed() -> None:
    correct_passes(_closed_on("2026-10-04"))
    correct_passes(_closed_on("2026-10-05"))
    grade = _closed_on("2026-10-01")  # a day nothing happened: the point is lost
    assert next(c.status for c in grade.criteria if c.id == "kept_close_date") == "fail"
