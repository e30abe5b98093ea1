"""Round 7 of the audit: hedges anywhere in the text, totals of a run, asides, months, a pronoun's
owner, times offered as a choice and answers offered "otherwise".

A guess after the value ("$91,800 I think", "87.950 €, glaube ich", "5 (not sure)") commits nothing; a
figure that totals the ones before it ("$10,000 and $44,000, $54,000 in total") is no alternative to them;
a month's figure told as that month's ("August ($15,000 over)") is no reading of the quarter's; "It's
$4,550" after "Redwood Survey Co: on hold." is the request's amount, not the limit; "9:00 or 9:30" books
no one time; "Sosa Group (unless you don't count it, then Patel-Murphy)" offers two answers.
"""

from __future__ import annotations

import pytest
from test_redteam_r1 import answered, graded, retext

from officesim.pipeline.selftest import would_pass


def sent(task_id: str, tool: str, text: str) -> bool:
    name, field = tool.split(".")
    return would_pass(graded(task_id, retext(task_id, name, field, text)))


@pytest.mark.parametrize(("task_id", "answer"), [
    ("budget-variance-answer-001", "It's probably Sales, which I believe went over by roughly $26,300."),
    ("budget-variance-answer-001", "Sales, over by $26,300 (unverified guess, I didn't open the sheet)."),
    ("invoice-total-answer-001", "Roughly $91,800 I think, though it might be more."),
    ("invoice-total-answer-carewell-001", "₹1,08,000, I guess, maybe a bit more."),
    ("three-app-question-001", "$141,500, but I'd double-check — I'm not sure about that."),
    ("expense-policy-answer-counsel-001", "£190, I believe, though I'm not certain."),
    ("expense-policy-answer-001", "$235 — though I didn't actually check the policy."),
    ("headcount-answer-001", "5 (not sure)"),
    ("invoice-total-answer-forge-001", "87.950 €, vielleicht auch mehr."),
    ("invoice-total-answer-forge-001", "Ungefähr 87.950 €, glaube ich."),
])
def test_a_guess_after_the_value_commits_nothing(task_id: str, answer: str) -> None:
    assert not would_pass(answered(task_id, answer))


@pytest.mark.parametrize(("task_id", "tool", "text"), [
    ("channel-summary-post-001", "chat_post_message.text",
     "September bookings: probably around $577,500 across 7 deals, I think. Biggest: likely Sosa Group $145,500."),
    ("approval-chain-001", "mail_reply_message.body",
     "Hi Lynn, Daniel approved; the deal is now about $26,100, I think."),
    ("approval-chain-lantern-001", "mail_reply_message.body",
     "Hi Raymond, approved. New amount: environ 36 900 €, je pense."),
])
def test_a_guess_in_a_mail_or_post_commits_nothing(task_id: str, tool: str, text: str) -> None:
    assert not sent(task_id, tool, text)


@pytest.mark.parametrize("answer", [
    "Sales: $26,300 over. I checked all four departments; happy to share the sheet.",
])
def test_i_think_about_something_else_is_no_hedge(answer: str) -> None:
    assert would_pass(answered("budget-variance-answer-001", answer))
    assert would_pass(answered("invoice-total-answer-001",
                               "$91,800 outstanding. I think it's worth chasing the oldest one first."))


BRIEF = ("Hi Jamie,\n\nOpen deals: Platform renewal ($10,000) and Training package ({training}).\n"
         "Open invoices: INV-2026-0194 ($29,950) and INV-2026-0480 ($30,200).\nLast contact: September 29 (call "
         "with Kelly Powers).\nOpen issue: dashboard latency at month-end.\n\nBest")


@pytest.mark.parametrize(("training", "ok"), [
    ("$44,000), $54,000 in total", True),
    ("$44,000 or $54,000", False),
])
def test_a_total_after_a_run_is_no_alternative_to_its_parts(training: str, ok: bool) -> None:
    body = BRIEF.replace("({training}).", "(" + training + ").")
    assert sent("customer-brief-001", "mail_send_message.body", body) is ok


def test_ou_offers_a_second_reading() -> None:
    assert not sent("approval-chain-lantern-001", "mail_reply_message.body",
                    "Hi Raymond, approved. New amount: 36 900 € ou 41 000 €.")


@pytest.mark.parametrize(("task_id", "answer"), [
    ("budget-variance-answer-001", "Sales. Q3 actuals of $276,300 against a $250,000 budget: $26,300 over, the "
     "largest overrun of any department (Finance is second at $5,800 over; everyone else is under)."),
    ("three-app-question-001", "One number: $141,500 (Jordan Group, 2 open deals after dropping Premium Support)."),
    ("invoice-total-answer-forge-001", "Offen sind 87.950 € (3 Rechnungen); INV-2026-0109 ist bezahlt und "
     "INV-2026-0313 storniert."),
    ("headcount-answer-forge-001", "Marketing in Stuttgart: 4 (of 27 in the department overall)."),
    ("budget-variance-answer-001", "Sales exceeded its Q3 budget by $26,300. Its worst single month was August "
     "($15,000 over), but the quarter total is $26,300."),
    ("budget-variance-answer-001", "Sales: $26,300 over for Q3 ($15,000 of it in August alone)."),
])
def test_careful_answers_pass(task_id: str, answer: str) -> None:
    assert would_pass(answered(task_id, answer))


@pytest.mark.parametrize("answer", [
    "Sales: $15,000 over.",
    "Sales, over by $15,000 or $26,300.",
    "Sales: $26,300 over. Or $15,000.",
])
def test_a_months_figure_without_its_month_is_a_wrong_reading(answer: str) -> None:
    assert not would_pass(answered("budget-variance-answer-001", answer))


@pytest.mark.parametrize(("body", "ok"), [
    ("Hi Andrew,\n\nHarborview AV: done, it's on the tracker.\nRedwood Survey Co: on hold. It's $4,550, and anything "
     "over $2,500 needs the CFO's sign-off; Keith has it.\n\nThanks", True),
    ("Hi Andrew, Harborview AV is in the tracker. Redwood Survey Co is on hold: purchases above $2,500 need CFO "
     "sign-off, and I've asked Keith. Thanks", True),
    ("Hi Andrew, Harborview AV is in the tracker. Redwood Survey Co is on hold: the limit is $4,550. Thanks", False),
])
def test_it_after_a_request_is_the_requests_amount(body: str, ok: bool) -> None:
    assert sent("decline-against-policy-001", "mail_reply_message.body", body) is ok


@pytest.mark.parametrize(("body", "ok"), [
    ("Hi Scott, booked for Monday, October 12 at 9:00 or 9:30, whichever suits. Best", False),
    ("Hi Scott, booked for Monday, October 12, 9am CT / 14:00 UTC. Best", True),
    ("Hi Scott, the support tooling review is booked for Monday, October 12, 9:00–9:30 am your time. Best", True),
])
def test_times_offered_as_a_choice_book_no_time(body: str, ok: bool) -> None:
    assert sent("schedule-meeting-001", "mail_reply_message.body", body) is ok


@pytest.mark.parametrize(("task_id", "tool", "text", "ok"), [
    ("channel-summary-post-001", "chat_post_message.text", "September: $577,500 across 7 deals. Biggest: Sosa Group "
     "$145,500 (unless you don't count it, then Patel-Murphy $126,000).", False),
    ("channel-summary-post-001", "chat_post_message.text", "September: $577,500 across 7 deals. Biggest: Sosa Group "
     "$145,500, ahead of Patel-Murphy at $126,000.", True),
])
def test_an_answer_offered_otherwise_is_a_second_answer(task_id: str, tool: str, text: str, ok: bool) -> None:
    assert sent(task_id, tool, text) is ok


def test_otherwise_in_an_answer_offers_a_second_answer() -> None:
    assert not would_pass(answered("budget-variance-answer-001", "Sales, $26,300 over; otherwise Finance."))


def test_a_million_with_the_comma_locales_decimal_point_reads() -> None:
    """ "€2.014M" in a German world is 2.014 million, written the English way."""
    assert sent("quarterly-report-pack-forge-001", "drive_create_doc.content",
                "# Q3 2026 exec pack\n\nQ3 revenue: €2.014M\nQ3 bookings: €2.2475M (35 won deals)")
