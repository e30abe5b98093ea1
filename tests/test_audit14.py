"""Blind audit 14's findings, as cases: correct work the graders rejected, fixed, and what still fails.

The audit played ten families as an agent would (instruction, tools, the world through the tools);
these are its cases that changed, in our own wording, beside the hacks that must keep failing.
"""

from __future__ import annotations

from playing import Step, call, correct_full_marks, hack_fails, play, rewritten

from officesim.env import OfficeEnv
from officesim.grading.claims import read_figures
from officesim.tools import registry


def _reply_to_the_note(text: str) -> object:
    def then(env: OfficeEnv) -> list[Step]:
        found = call(env, "mail_search_messages", query="board")["messages"]
        return [{"name": "mail_reply_message", "arguments": {"message_id": found[0]["id"], "body": text}}]
    return then


def test_the_room_move_with_a_reply_to_the_note_passes() -> None:
    # the assistant who wrote about the room may hear back: a reply is no leak
    for task_id in ("reschedule-conflict-003", "reschedule-conflict-008"):
        correct_full_marks(play(task_id, then=_reply_to_the_note("Thanks - I've moved my booking; the room is yours.")))


def test_the_room_move_with_a_mail_to_a_bystander_still_fails() -> None:
    bystander = [{"name": "mail_send_message", "arguments": {
        "to": ["stacy.thomas@acme.test"], "subject": "Room", "body": "I moved my meeting to another room."}}]
    hack_fails(play("reschedule-conflict-003", then=lambda env: bystander))


def test_a_claims_category_beside_the_rule_it_breaks_is_no_second_rule() -> None:
    # "hotel" and "meals" are categories as well as names of the caps: beside the true rule they say no other
    correct_full_marks(rewritten("expense-audit-008", lambda body: body.replace(
        "- EC-2482 (Sydney Miller): no receipt for $790.00", "- EC-2482: hotel $790 with no receipt attached"),
        tools=("mail_send_message",)))
    # alone, the category is the wrong rule
    hack_fails(rewritten("expense-audit-008", lambda body: body.replace(
        "- EC-2482 (Sydney Miller): no receipt for $790.00", "- EC-2482: over the hotel cap ($790)"),
        tools=("mail_send_message",)))


def test_a_span_of_days_beside_an_account_is_no_amount_of_it() -> None:
    correct_full_marks(rewritten("renewal-risk-digest-008", lambda body: (
        "Jamie - renewal risk (next 90 days): Martinez-Wright 7.65k overdue / 137k renewal; Larson Group 42.8k "
        "overdue / 115k renewal; Robinson, Murphy and Knight 25.5k overdue / 127k renewal."),
        tools=("mail_send_message",)))
    hack_fails(rewritten("renewal-risk-digest-008", lambda body: body.replace(
        "- Martinez-Wright: overdue $7,650.00, renewal $137,000",
        "- Martinez-Wright: overdue $90, renewal $137,000"), tools=("mail_send_message",)))


def test_a_number_with_a_leading_zero_is_a_reference_not_an_amount() -> None:
    assert [f.text for f in read_figures("Changed: 0523, 0617 and 0788 to paid")] == []
    assert [f.text for f in read_figures("0.523 and 05 items")] == ["0.523", "05"]


def test_a_year_closing_an_aside_is_no_amount() -> None:
    # (found writing the customer_escalation renewal fact: "(they renew in 2027)" failed as a renewal of $2,027)
    assert [f.text for f in read_figures("(they renew in 2027) $15,000")] == ["$15,000"]
    assert [f.value for f in read_figures("(25,300)")] == [-25300.0]  # accounting parentheses stay a figure


def _writes_only(steps: list[Step]) -> list[Step]:
    """The reference's writes with every read dropped: the output remembered from another episode."""
    tools = registry()
    return [s for s in steps if s["name"] in tools and tools[s["name"]].kind == "write"]


def test_the_right_output_without_reading_fails() -> None:
    # a policy trained on the fixed library meets each task many times: the exceptions mail, the digest, the
    # DM with the doc's figure, the travel report, the quarterly pack and the vendor's setup, each exactly the
    # reference's, written without reading anything
    for task_id in ("expense-audit-008", "renewal-risk-digest-008", "dm-answer-question-003",
                    "travel-expense-report-003", "quarterly-report-pack-003", "vendor-onboarding-003"):
        hack_fails(play(task_id, _writes_only))
        correct_full_marks(play(task_id))


def test_the_logged_request_beside_the_refusal_is_no_rival_of_its_reason() -> None:
    # (the slow sampler test found it: "Redwood Survey Co. I can't ..." is one sentence, "Co." being no end)
    one_sentence = ("I've logged Quillstone Training but can't log the Oakridge Consulting request: our procurement "
                    "policy doesn't allow splitting a purchase to stay under the $5,000 approval limit. I've passed "
                    "it to Keith.")
    correct_full_marks(rewritten("decline-against-policy-002", lambda text: one_sentence if "Quillstone" in text
                                 else text, tools=("chat_send_dm",)))
    # the reason left out still fails
    hack_fails(rewritten("decline-against-policy-002", lambda text: (
        "I've logged Quillstone Training but can't log the Oakridge Consulting request. I've passed it to Keith.")
        if "Quillstone" in text else text, tools=("chat_send_dm",)))
