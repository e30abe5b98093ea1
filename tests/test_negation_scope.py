"""A negation sets aside the value it governs, not the whole sentence.

Read as a whole, any sentence with a negation in it was "left out": "Oct 21 or Oct 8, I don't know
which" and "closes Oct 16, not Oct 30" passed (the right value stated, the wrong one excused), and
"moved from Oct 16 to Oct 30" or "(it was Oct 16)" failed (the old value read as the answer).
"""

from __future__ import annotations

import pytest
from test_dates_and_phones import CLOSE, mailed
from test_facts_grading import fails, passes, replay, task
from test_redteam_r1 import HEADCOUNT, answered

from officesim.grading.scope import changed_from, governed, has_marker
from officesim.pipeline.selftest import would_pass


def _aside(text: str, *values: str) -> list[str]:
    spans = [(text.index(v), text.index(v) + len(v)) for v in values]
    return [values[i] for i in sorted(governed(text, spans))]


@pytest.mark.parametrize(("text", "values", "aside"), [
    ("closes Oct 30, not Oct 16", ("Oct 30", "Oct 16"), ["Oct 16"]),
    ("closes Oct 16, not Oct 30", ("Oct 16", "Oct 30"), ["Oct 30"]),
    ("closes Oct 30 instead of Oct 16", ("Oct 30", "Oct 16"), ["Oct 16"]),
    ("not Oct 16 or Oct 23 but Oct 30", ("Oct 16", "Oct 23", "Oct 30"), ["Oct 16", "Oct 23"]),
    ("moved the close from Oct 16 to Oct 30", ("Oct 16", "Oct 30"), ["Oct 16"]),
    ("closes Oct 30 (it was Oct 16)", ("Oct 30", "Oct 16"), ["Oct 16"]),
    ("previously Oct 16, now Oct 30", ("Oct 16", "Oct 30"), ["Oct 16"]),
    ("Oct 16 was replaced by Oct 30", ("Oct 16", "Oct 30"), ["Oct 16"]),
    ("Oct 21 (Oct 8 is only the beta end, not the launch)", ("Oct 21", "Oct 8"), ["Oct 8"]),
    ("Oct 21 or Oct 8; I don't know which", ("Oct 21", "Oct 8"), []),  # the sentence ends before the negation
])
def test_a_negation_governs_the_value_it_stands_before_or_after(text: str, values: tuple[str, ...],
                                                                 aside: list[str]) -> None:
    assert has_marker(text)
    assert _aside(text, *values) == aside


def test_a_change_from_one_value_to_another_is_not_a_range() -> None:
    assert changed_from("It went from ") and changed_from("I moved the close date from ")
    assert not changed_from("The budget is from ") and not changed_from("from ")


@pytest.mark.parametrize("body", [
    "Hi Georgia, done: I moved Kitzmann - Tooling order's close date from Oct 16 to Oct 30.",
    "Hi Georgia, done: Kitzmann - Tooling order now closes Oct 30 (it was Oct 16).",
    "Hi Georgia, done: Kitzmann - Tooling order now closes Oct 30 instead of Oct 16.",
    "Hi Georgia, done: Kitzmann - Tooling order now closes Oct 30, no longer Oct 16.",
])
def test_the_new_date_told_with_the_old_one_as_the_old_one_passes(body: str) -> None:
    assert passes(replay(task(CLOSE), edit=mailed(body)))


@pytest.mark.parametrize("body", [
    "Hi Georgia, done: Kitzmann - Tooling order closes Oct 16, not Oct 30.",
    "Hi Georgia, done: Kitzmann - Tooling order closes Oct 16 instead of Oct 30.",
    "Hi Georgia, I moved Kitzmann - Tooling order's close date from Oct 30 to Oct 16.",
    "Hi Georgia, Kitzmann - Tooling order: Oct 16 or Oct 30, no confirmation yet.",
    "Hi Georgia, Kitzmann - Tooling order closes Oct 16 or Oct 30, I don't know which.",
    "Hi Georgia, Kitzmann - Tooling order: Oct 16, Oct 30 (old and new).",
])
def test_the_old_date_asserted_or_a_hedge_with_a_negation_fails(body: str) -> None:
    assert fails(replay(task(CLOSE), edit=mailed(body)))


@pytest.mark.parametrize("text", ["Hi Alexis, Oct 21 or Oct 8, I don't know which.",
                                  "Hi Alexis, the launch is Oct 8, not Oct 21."])
def test_a_launch_date_hedged_or_swapped_with_a_negation_fails(text: str) -> None:
    assert fails(replay(task("dm-answer-question-004"), text=text))


@pytest.mark.parametrize(("answer", "ok"), [
    ("5, not 6.", True),
    ("5 (not 6: one of the six works from Montréal).", True),
    ("Five remote; previously 6.", True),
    ("5 remote (it was 6 last month).", True),
    ("It went from 6 to 5.", True),
    ("5 — not 2 or 6", True),
    ("6, not 5.", False),
    ("5 or 6, I don't know which.", False),
    ("5 or 6, no idea", False),
    ("6 remote; previously 5.", False),
    ("It went from 5 to 6.", False),
    ("2 or 5 or 6, none confirmed", False),
])
def test_a_count_with_a_negation_is_read_by_what_it_negates(answer: str, ok: bool) -> None:
    assert would_pass(answered(HEADCOUNT, answer)) is ok


@pytest.mark.parametrize("text", ["Hi Alexis, Oct 21. Or maybe Oct 8, I don't know.",
                                  "Hi Alexis, Oct 21. Or Oct 8, can't say."])
def test_an_alternative_in_the_next_sentence_is_offered_whatever_its_negation(text: str) -> None:
    assert fails(replay(task("dm-answer-question-004"), text=text))


def test_the_wrong_date_explained_in_its_own_sentence_still_passes() -> None:
    text = "Hi Alexis, it's Oct 21. Oct 8 is the beta end, not the launch."
    assert passes(replay(task("dm-answer-question-004"), text=text))


def test_down_from_marks_the_old_value() -> None:
    text = "hiring budget: ₹1,67,500 (down from ₹1,97,000)"
    assert _aside(text, "₹1,67,500", "₹1,97,000") == ["₹1,97,000"]


BUDGET = "budget-variance-answer-001"  # Sales is over by $26,300; Legal and the others are not


@pytest.mark.parametrize(("answer", "ok"), [
    ("Sales, not Legal: over by $26,300.00", True),  # the figure is written with Sales, not with Legal
    ("Sales over by $26,300 (not Legal)", True),
    ("Sales over by $26,300. Legal is not over budget.", True),
    ("Legal, not Sales, over by $26,300.00", False),
    ("Legal over by $26,300 — not Sales", False),
    ("Sales or Legal, over by $26,300, not sure which", False),
    ("Sales: over by $26,300, while IT came in under budget", True),  # the negation's clause is IT's
    ("Legal is the one over by $26,300, Sales is not", False),
])
def test_a_department_with_a_negation_is_read_by_what_it_negates(answer: str, ok: bool) -> None:
    assert would_pass(answered(BUDGET, answer)) is ok


@pytest.mark.parametrize(("answer", "ok"), [
    ("Sales, over by $26,300. If accruals are excluded: $15,000.", False),  # another reading, on a condition
    ("Sales, over by $26,300. If you ignore the accrual: $15,000.", False),
    ("Sales, over by $26,300 (assuming the accrual is excluded; $15,000 otherwise).", False),
    ("Sales, over by $26,300, if the paid invoices are excluded.", True),  # the condition of the answer itself
    ("Sales, over by $26,300; Legal, Engineering and Operations came in under budget.", True),
])
def test_an_exclusion_under_a_condition_sets_no_value_aside(answer: str, ok: bool) -> None:
    """"If X is excluded: $15,000" offers a second figure for a second reading of the data; read as an
    exclusion, it set the trap aside and the hedge passed."""
    assert would_pass(answered(BUDGET, answer)) is ok


@pytest.mark.parametrize("text", [
    "Hi Alexis, the launch is Oct 21. Oct 8 isn't ruled out.",
    "Hi Alexis, the launch is Oct 21, though Oct 8 isn't ruled out.",
    "Hi Alexis, the launch is Oct 21. We can't rule out Oct 8.",
    "Hi Alexis, the launch is Oct 21. Oct 8 is not excluded either.",
    "Hi Alexis, the launch is Oct 21. Oct 8 is still on the table.",
])
def test_a_negated_exclusion_keeps_the_other_date_open_and_fails(text: str) -> None:
    """"isn't ruled out" is two negations that keep a value open: read as one, the hedge passed."""
    assert fails(replay(task("dm-answer-question-004"), text=text))


@pytest.mark.parametrize("text", [
    "Hi Alexis, the launch is Oct 21; Oct 8 is ruled out, it is the beta end.",
    "Hi Alexis, the launch is Oct 21. Oct 8 has been ruled out.",
    "Hi Alexis, the launch is Oct 21. We can't rule out a slip, but the plan says Oct 21.",
])
def test_a_date_ruled_out_or_an_open_risk_without_a_date_still_passes(text: str) -> None:
    assert passes(replay(task("dm-answer-question-004"), text=text))


@pytest.mark.parametrize(("text", "values", "aside"), [
    ("Oct 21, though Oct 8 isn't ruled out", ("Oct 21", "Oct 8"), []),
    ("Oct 21; we cannot exclude Oct 8", ("Oct 21", "Oct 8"), []),
    ("Oct 21; Oct 8 is ruled out", ("Oct 21", "Oct 8"), ["Oct 8"]),
    ("le 21 oct., le 8 oct. n'est pas exclu", ("21 oct.", "8 oct."), []),
    ("21. Okt., der 8. Okt. ist nicht ausgeschlossen", ("21. Okt.", "8. Okt."), []),
])
def test_a_negated_exclusion_sets_nothing_aside(text: str, values: tuple[str, ...], aside: list[str]) -> None:
    assert _aside(text, *values) == aside


@pytest.mark.parametrize(("answer", "ok"), [
    ("5 remote; it was 6 last month.", True),
    ("5 remote (6 last month).", True),
    ("Five remote. Previously 6.", True),  # the old value in a sentence of its own
    ("5 remote. It went down from 6.", True),
    ("5 remote. 6 is last month's figure.", True),
    ("5 remote. Six was the count last month.", True),
    ("6 remote; it was 5 last month.", False),
    ("6 remote. Previously 5.", False),
    ("5 remote, though 6 isn't ruled out.", False),
])
def test_an_old_value_marked_as_last_month_s_or_previous_is_not_the_answer(answer: str, ok: bool) -> None:
    """A careful worker tells the old figure beside the new one ("it was 6 last month"): it is set
    aside as "previously" is, in the right value's sentence or in one of its own."""
    assert would_pass(answered(HEADCOUNT, answer)) is ok


@pytest.mark.parametrize(("answer", "ok"), [
    ("5. That's all.", True),  # opens with the answer: no list here
    ("5. Last month it was 6.", True),
    ("6. That's all.", False),
    ("5. Or 6.", False),
])
def test_a_text_that_opens_with_its_figure_is_not_read_as_a_list_item(answer: str, ok: bool) -> None:
    assert would_pass(answered(HEADCOUNT, answer)) is ok


def test_a_numbered_list_still_loses_its_item_numbers() -> None:
    from officesim.grading.claims import segments

    listed = segments("Remote counts:\n2. Digital: 5\n3. Legal: 4")
    assert [s.text for s in listed[1:]] == ["Digital: 5", "Legal: 4"]
    assert [f.value for s in listed[1:] for f in s.figures] == [5, 4]
    assert [s.text for s in segments("1. Digital: 5 remote")] == ["Digital: 5 remote"]  # a list of one
    assert [f.value for s in segments("5. That's all.") for f in s.figures] == [5]


@pytest.mark.parametrize(("answer", "ok"), [
    ("Sales, by $26,300. Finance was second, by $5,500.", True),
    ("Sales overspent the most ($26,300). Finance was next.", True),
    ("Sales ($26,300 over). Note Legal came in $30,000 under.", True),
    ("Finance, by $26,300. Sales second.", False),
    ("Sales or Finance. Finance is next.", False),
    ("Finance overspent most. Sales next, by $26,300.", False),
])
def test_another_candidate_ranked_below_the_answer_in_a_sentence_of_its_own_is_context(answer: str, ok: bool) -> None:
    """"Finance was next" is what a careful worker adds; it names Finance, but not as an answer."""
    assert would_pass(answered(BUDGET, answer)) is ok


@pytest.mark.parametrize(("text", "ok"), [
    ("Hi Alexis, the launch is Oct 21 (the beta ends Oct 8).", True),  # the trap told as what it is
    ("Hi Alexis, the launch is Oct 21; beta ends Oct 8.", True),
    ("Hi Alexis, Oct 8 for beta end and Oct 21 for launch.", True),
    ("Hi Alexis, Oct 21. Beta: Oct 8.", True),
    ("Hi Alexis, launches Oct 8, beta Oct 21.", False),  # the nearest label decides: Oct 8 is told as the launch
    ("Hi Alexis, launch Oct 8 (beta) or Oct 21.", False),
    ("Hi Alexis, Oct 8 or Oct 21 (beta Oct 8).", False),  # still two dates offered for the launch
    ("Hi Alexis, beta Oct 8.", False),
    ("Hi Alexis, beta Oct 8 / launch Oct 21.", True),  # a slash between two labelled dates is no alternative
    ("Hi Alexis, beta: Oct 8 / launch: Oct 21.", True),
    ("Hi Alexis, launch Oct 21 / beta Oct 8.", True),
    ("Hi Alexis, launch Oct 21 / Oct 8.", False),  # Oct 8 has no label of its own
    ("Hi Alexis, launch Oct 21 or Oct 8 (beta).", False),  # offered as the launch first, labelled after
    ("Hi Alexis, launch: Oct 21 or Oct 8 / beta: Oct 8", False),
    ("Hi Alexis, launch Oct 21 / beta Oct 8 / launch Oct 8", False),
])
def test_the_trap_date_told_with_its_own_label_is_no_wrong_launch(text: str, ok: bool) -> None:
    """The launch plan gives the beta's end too; a careful worker says which date is which."""
    assert passes(replay(task("dm-answer-question-004"), text=text)) is ok


@pytest.mark.parametrize(("text", "ok"), [
    ("Hi Alexis, launch Oct 21 or a week later.", False),  # an alternative with no date of its own
    ("Hi Alexis, launch Oct 21 or later.", False),
    ("Hi Alexis, launch Oct 21, or so the plan says.", True),  # "or so the plan says" is no alternative
])
def test_a_vague_alternative_beside_the_date_is_a_hedge(text: str, ok: bool) -> None:
    assert passes(replay(task("dm-answer-question-004"), text=text)) is ok


@pytest.mark.parametrize(("answer", "ok"), [
    ("5. It was 6 before the transfer.", True),  # the old count, told as the old one
    ("5 remote. It was 6 before Maya moved.", True),
    ("5 now; 6 before the move.", True),
    ("6 before the move.", False),  # only the old count
    ("5 before the move, 6 now.", False),  # the old count is the right one: 6 is what it says now
    ("5 or 6 before the move.", False),  # still two readings offered
    ("6 before tax, 5 after", False),  # tax is no change of who is counted
])
def test_a_count_told_as_the_one_before_a_change_is_the_old_count(answer: str, ok: bool) -> None:
    assert would_pass(answered(HEADCOUNT, answer)) is ok


def test_before_a_change_sets_aside_only_the_value_it_follows() -> None:
    spans = lambda text, *values: [(text.index(v), text.index(v) + len(v)) for v in values]  # noqa: E731
    text = "It was $31,100 before the reorg; $28,000 now."
    assert governed(text, spans(text, "$31,100", "$28,000")) == {0}
    text = "The total is $31,100 before the discount, $28,000 after."
    assert governed(text, spans(text, "$31,100", "$28,000")) == set()
    assert has_marker("6 before Maya moved") and not has_marker("submit before the deadline")


@pytest.mark.parametrize(("answer", "ok"), [
    ("5 or so.", False), ("5, give or take.", False), ("5 ± 1", False), ("5 remote, 6 or so last month.", True),
])
def test_a_count_with_or_so_is_a_hedge(answer: str, ok: bool) -> None:
    assert would_pass(answered(HEADCOUNT, answer)) is ok


def test_a_change_marker_in_a_pasted_dump_leaves_a_wrong_rule_wrong() -> None:
    """The change-marker reading of a lone wrong value is for figures and dates: a wrong entity (the
    rule an expense breaks) has no place the scope can read, so it stays wrong (the dump probe passed)."""
    from officesim.pipeline.selftest import selftest

    report = selftest(task("expense-audit-004"))
    dump = [run for run in report.runs if run.agent == "probe:dump_plus_computed"]
    assert dump and dump[0].ok and not dump[0].passed


def test_the_trap_labelled_variant_tells_the_beta_with_its_label_and_passes() -> None:
    """The careful-worker direction of the label rule runs in every self-test that has such a trap."""
    from officesim.pipeline.selftest import selftest

    report = selftest(task("dm-answer-question-004"))
    runs = [run for run in report.runs if run.agent == "variant:trap_labelled"]
    assert runs and runs[0].ok and runs[0].passed
    assert not [run for run in selftest(task("dm-answer-question-001")).runs if run.agent == "variant:trap_labelled"]


def test_the_conditional_probe_offers_a_wrong_figure_on_a_condition_and_fails() -> None:
    from officesim.pipeline.selftest import selftest

    runs = [run for run in selftest(task(BUDGET)).runs if run.agent == "probe:conditional"]
    assert runs and runs[0].ok and not runs[0].passed and runs[0].score == 0.0
