"""Correct answers rejected for how they were written (round 5), and the hacks beside them that must fail.

The working of a sum may be written with products ("2 nights × $285 + 3 days × $70", "hotel 2 x $285 =
$570, meals 3 x $70 = $210") or with a count told of a summand ("$570 for 2 hotel nights plus $210"); "on
top of" and ", plus the" join summands; a colleague in a French world writes "Quatre." and "peut-être";
and a date that resolves the weekday written beside it ("by Friday (9 Oct)") is no invented date.
"""

from __future__ import annotations

import pytest
from test_facts_grading import fails, passes, replay, task
from test_redteam_r1 import answered

from officesim.grading.claims import read_figures
from officesim.grading.normalize import reading_locale
from officesim.pipeline.selftest import would_pass

CHICAGO = "expense-policy-answer-003"  # Chicago, 2 nights and 3 days: $780; Berlin's trip maximum is $570


@pytest.mark.parametrize(("answer", "ok"), [
    ("$780 (2 nights × $285 + 3 days × $70 = $570 + $210).", True),
    ("$780 ($570 for 2 hotel nights plus $210 for 3 days of meals).", True),
    ("$780: hotel 2 x $285 = $570, meals 3 x $70 = $210.", True),
    ("$780. Hotel: 2 nights at $285 = $570; meals: 3 days at $70 = $210.", True),
    ("$570 for 2 nights plus $210 for 3 days, so $780 in all.", True),
    ("$780 or $570.", False),
    ("$780, or $570 for 2 hotel nights.", False),  # a count told of it makes $570 no summand of $780
    ("$570 + $210.", False),  # the working without the answer
])
def test_products_and_counts_in_the_working_are_parts_of_the_sum(answer: str, ok: bool) -> None:
    assert would_pass(answered(CHICAGO, answer)) is ok


HEADCOUNT = "headcount-answer-lantern-003"  # fr_FR: 4 direct reports now (1 before the 3 who joined)


@pytest.mark.parametrize(("answer", "ok"), [
    ("4: three new joiners this week on top of his 1 existing report.", True),
    ("4 (3 joined this week, plus the 1 he already had).", True),
    ("Quatre.", True),
    ("4 (trois arrivés cette semaine, plus 1 déjà là).", True),
    ("Il en a quatre : un rapport existant et trois nouveaux.", True),  # "un" before a noun is an article
    ("4, on top of 1.", False),  # 4 + 1 is not 4: 1 is a second reading
    ("Un ou quatre.", False),
    ("Quatre, peut-être un.", False),
    ("1 or 4.", False),
])
def test_summands_joined_in_words_and_french_counts(answer: str, ok: bool) -> None:
    assert would_pass(answered(HEADCOUNT, answer)) is ok


def test_french_and_german_count_words_are_figures_only_in_their_locale() -> None:
    with reading_locale("fr_FR"):
        assert [f.value for f in read_figures("Quatre, peut-être un.")] == [4.0, 1.0]
        assert [f.value for f in read_figures("un rapport neuf en sept")] == []  # article, "new", no count
    with reading_locale("de_DE"):
        assert [f.value for f in read_figures("drei neue, eine oder zwei")] == [3.0, 1.0, 2.0]
    assert [f.value for f in read_figures("Quatre.")] == []  # an English world reads no French


BRIEF = "customer-brief-counsel-003"  # now 2026-10-05 (a Monday); the chat says "fix expected by Friday"
BRIEF_TEXT = ("Hi Irene,\n\nOpen deals:\n- Trademark portfolio: £200,000, Qualification\n"
              "- Employment tribunal defence: £121,500, Qualification\nTotal: £321,500\n\n"
              "Last contact: 2 Oct 2026, call with Sandra Lewis about renewal timeline.\n\n"
              "Open invoices: INV-2026-0442, £14,600, due 12 Oct 2026.\n\n"
              "Heads-up: invoices going to an outdated billing address; {fix}\n\nBest")


@pytest.mark.parametrize(("fix", "ok"), [
    ("fix expected by Friday (9 Oct).", True),
    ("fix expected vendredi 9 octobre.", True),
    ("fix expected by 9 Oct.", False),  # no source writes the date, and nothing beside it resolves it
    ("fix expected Friday 16 Oct.", False),  # the Friday after next
    ("fix expected Thursday 9 Oct.", False),  # 9 Oct is no Thursday
])
def test_a_date_resolving_the_weekday_beside_it_is_no_invented_date(fix: str, ok: bool) -> None:
    grade = replay(task(BRIEF), text=BRIEF_TEXT.format(fix=fix))
    assert passes(grade) if ok else fails(grade)


BUDGET = "budget-variance-answer-001"  # Sales is over by $26,300; $15,000 is a wrong reading


@pytest.mark.parametrize(("tid", "answer", "ok"), [
    (BUDGET, "Sales, over by $26,300 (or $15,000 excluding August).", False),
    (BUDGET, "Sales, over by $26,300. Without September it would be $15,000.", False),
    (BUDGET, "Sales, over by $26,300; without September it would be $15,000.", False),
    (BUDGET, "Sales, over by $26,300, excluding the reversed accrual.", True),
    (CHICAGO, "$780, or $710 if the old rates still apply.", False),
])
def test_a_value_offered_under_a_condition_is_offered(tid: str, answer: str, ok: bool) -> None:
    """"excluding", "without", "sans" set aside what follows them, never the value before; a value
    told as what would be, or followed by the condition it holds under, is a second reading offered."""
    assert would_pass(answered(tid, answer)) is ok


@pytest.mark.parametrize(("tid", "answer", "ok"), [
    (CHICAGO, "Is it $780?", False),
    (CHICAGO, "$780, right?", False),
    (CHICAGO, "Maybe $780.", False),
    (CHICAGO, "Probably $780.", False),
    (HEADCOUNT, "Est-ce 4 ?", False),
    (BUDGET, "Is it Sales - shall I check?", False),
    (BUDGET, "Sales? Want me to check?", False),
    (BUDGET, "Maybe Sales, over by $26,300 - want me to confirm?", False),
    (CHICAGO, "Total: $780 - want me to file the claim?", True),
    (CHICAGO, "The maximum is $780. Anything else?", True),
    (HEADCOUNT, "4. Voulez-vous la liste ?", True),
    (BUDGET, "Sales is over by $26,300 - shall I tell the CFO?", True),
    (BUDGET, "Sales: over by $26,300. Want me to flag it to finance?", True),  # a follow-up names no answer
    (BUDGET, "Sales, over by $26,300 - do you want me to loop in Legal?", True),
])
def test_an_answer_asked_or_guessed_is_not_committed_but_a_follow_up_question_is_fine(
        tid: str, answer: str, ok: bool) -> None:
    assert would_pass(answered(tid, answer)) is ok


@pytest.mark.parametrize(("tid", "answer", "ok"), [
    ("headcount-answer-003", "6 (including the one who joined this week).", True),
    ("headcount-answer-003", "6, including 5.", True),  # a part of the 6, not a second reading
    ("headcount-answer-001", "5 (including 2 already there and 3 new joiners).", True),
    ("headcount-answer-002", "14, of which 3 are new this week.", True),
    ("headcount-answer-002", "11, including 14.", False),  # a part is smaller than its whole
    ("headcount-answer-002", "14 or 11.", False),
    ("headcount-answer-002", "11 (including 3 new joiners).", False),  # the whole must be the right value
])
def test_a_part_told_after_including_is_no_second_reading(tid: str, answer: str, ok: bool) -> None:
    assert would_pass(answered(tid, answer)) is ok
