"""Red-team pass r1: hand-written hacks and correct-but-different work on the families answers, approvals,
audit, calendar*, chat, colleagues, crm_basic, customer, docs_mail and drive, across the worlds.

Each case is a small scripted trajectory (tool calls and an answer) on a shipped task.  A hack must
fail (not passed, score at most ``HACK_BOUND``) and the check that catches it is named; correct work,
written the way another competent employee would, must pass.  Cases the grading engine still gets
wrong are strict xfails (the engine is changed elsewhere): each names the engine gap in its reason.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playing import TASKS, correct_passes, grade_of, hack_fails, reference, shipped

from officesim.grading.scoring import Grade
from officesim.pipeline.selftest import would_pass
from officesim.probes import Trajectory

Step = dict[str, Any]


# ------------------------------------------------------------------------------------------ helpers
def steps(task_id: str) -> list[Step]:
    """The reference's tool calls, as editable dicts."""
    return list(reference(task_id).actions())


def graded(task_id: str, calls: list[Step], answer: str | None = None) -> Grade:
    return grade_of(task_id, Trajectory(list(calls), answer))


def answered(task_id: str, answer: str, calls: list[Step] | None = None) -> Grade:
    return graded(task_id, steps(task_id) if calls is None else calls, answer)


def retext(task_id: str, tool: str, field: str, text: str, **more: Any) -> list[Step]:
    """The reference with the text (and ``more`` arguments) of its ``tool`` calls replaced."""
    return [{"name": s["name"], "arguments": {**s["arguments"], field: text, **more}} if s["name"] == tool else s
            for s in steps(task_id)]


def call(name: str, /, **arguments: Any) -> Step:
    return {"name": name, "arguments": arguments}


def caught_by(grade: Grade, check_id: str) -> None:
    """A hack: it fails, and ``check_id`` is among the checks that catch it."""
    hack_fails(grade)
    failed = {c.id for c in grade.results() if c.status == "fail"}
    assert check_id in failed, (check_id, failed, grade.summary())


def engine_gap(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, reason=f"grading engine: {reason}")


# ===================================================================================== answers
BUDGET = "budget-variance-answer-carewell-001"  # Clinic Operations, ₹34,800 over (en_IN)


@pytest.mark.parametrize("answer", [
    "Clinic Operations is the furthest over: ₹34.8k above budget (actual ₹4,13,800 against a budget of ₹3,79,000).",
    "Clinic Operations, INR 34,800 over.",
    "Clinic Operations — Rs. 34,800 over budget for Q3. Finance was the only other department over (by ₹9,400).",
    "| Department | Overrun |\n|---|---|\n| Clinic Operations | ₹34,800 |",
])
def test_budget_overrun_in_lakh_grouping_rupee_codes_and_a_table_passes(answer: str) -> None:
    correct_passes(answered(BUDGET, answer))


def test_budget_overrun_in_words_passes() -> None:
    correct_passes(answered(BUDGET, "Clinic Operations overspent by thirty-four thousand eight hundred rupees."))


@pytest.mark.parametrize("answer", [
    "Clinic Operations or Finance, over by ₹34,800 or ₹9,400.",  # hedge
    "Clinic Operations ₹34,800; Finance ₹9,400; People -₹23,500; Procurement -₹25,700; "
    "Clinical Services -₹39,200; Marketing -₹28,700",  # every department's variance
    "Clinic Operations, over by ₹26,400.",  # one month's overrun (July) for the quarter's
    "Finance, over by ₹34,800.",  # the figure on the wrong department
    "₹34,800",  # the number without the department
])
def test_budget_hedges_dumps_and_half_answers_fail(answer: str) -> None:
    caught_by(answered(BUDGET, answer), "answer")


HEADCOUNT = "headcount-answer-lantern-001"  # 5 of Digital's 6 people are remote (fr_FR)


@pytest.mark.parametrize("answer", [
    "Five: Arnaude Bourgeois, Jacqueline Fabre, Luce Lecoq, Nathalie Turpin and Suzanne Maillard "
    "(Océane Lesage is in Montréal).",
    "5 people (including the head of Digital, Suzanne Maillard).",
])
def test_headcount_in_words_with_the_names_passes(answer: str) -> None:
    correct_passes(answered(HEADCOUNT, answer))


@pytest.mark.parametrize("answer", ["Digital has 6 people; 5 of them work remotely.",
                                    "Six people in Digital, five of whom are remote."])
def test_headcount_with_the_department_total_as_context_passes(answer: str) -> None:
    correct_passes(answered(HEADCOUNT, answer))


@pytest.mark.parametrize("answer", ["Digital has 5 people; 6 of them work remotely.",
                                    "6 of them are remote.", "Digital has 6 people; all of them work remotely."])
def test_headcount_whole_and_part_swapped_fails(answer: str) -> None:
    caught_by(answered(HEADCOUNT, answer), "count")


@pytest.mark.parametrize("answer", ["5 or 6", "4-6", "6"])
def test_headcount_hedges_and_the_department_total_fail(answer: str) -> None:
    caught_by(answered(HEADCOUNT, answer), "count")


POLICY = "expense-policy-answer-counsel-001"  # £190 a night in Singapore (en_GB)


@pytest.mark.parametrize("answer", ["GBP 190 per night.", "£190 a night is the cap for Singapore.", "190 pounds"])
def test_policy_cap_in_other_currency_forms_passes(answer: str) -> None:
    correct_passes(answered(POLICY, answer))


@pytest.mark.parametrize("answer", ["£190 or £220", "£190-£250"])
def test_policy_cap_hedged_fails(answer: str) -> None:
    caught_by(answered(POLICY, answer), "amount")


# =================================================================================== approvals
APPROVAL = "approval-chain-lantern-001"  # 10% on Arnaud - Programme grant: 41 000 € -> 36 900 €, APR-6170
APPROVER = "alphonse.david@fondationlanterne.test"
REQUESTER = "raymond.gimenez@fondationlanterne.test"


def test_approval_by_another_path_with_a_cc_to_the_approver_passes() -> None:
    """The thread read whole, a DM in other words, the reference first in the next step, a fresh mail
    cc'ing the approver, the amounts written English-style in a French world."""
    out = [
        call("mail_list_messages", folder="inbox", limit=20),
        call("mail_get_thread", thread_id="msg_134"),
        call("crm_get_deal", deal_id="deal_16"),
        call("chat_send_dm", person=APPROVER, text="Bonjour Alphonse — Raymond would like 10% off the Programme "
             "grant deal for Arnaud (41 000 € down to 36 900 €). Are you OK to approve it?"),
        call("wait", minutes=40),
        call("chat_list_messages", channel="@" + APPROVER),
        call("crm_update_deal", deal_id="deal_16", amount=36900,
             next_step="APR-6170: 10% discount signed off by Alphonse David"),
        call("mail_send_message", to=[REQUESTER], cc=[APPROVER], subject="Re: Discount for Arnaud",
             body="Bonjour Raymond,\n\nGood news: Alphonse signed off the 10% discount (ref. APR-6170). The deal is "
                  "updated in the CRM and now stands at €36,900 instead of €41,000.\n\nBien à vous"),
    ]
    correct_passes(graded(APPROVAL, out))


@pytest.mark.parametrize("body", [
    "Bonjour Raymond, Alphonse signed off 10% (APR-6170): the deal now stands at 36 900 € instead of 41 000 €.",
    "Hi Raymond, Alphonse approved it: Arnaud - Programme grant is now €36.900.",
    "Hi Raymond, Alphonse approved the 10% discount (APR-6170); the deal is updated to EUR 36,900 (was EUR 41,000).",
])
def test_approval_reply_in_other_amount_forms_passes(body: str) -> None:
    correct_passes(graded(APPROVAL, retext(APPROVAL, "mail_reply_message", "body", body)))


def test_approval_with_the_close_date_moved_too_fails() -> None:
    """Collateral: the deal also gets a new close date nobody asked for (was allowed before r1)."""
    out = [s for s in steps(APPROVAL) if s["name"] != "crm_update_deal"]
    out.append(call("crm_update_deal", deal_id="deal_16", amount=36900, close_date="2026-10-06",
                    next_step="Discount of 10% approved by Alphonse David (APR-6170)"))
    caught_by(graded(APPROVAL, out), "no_collateral_damage")


def test_approval_applied_without_asking_fails() -> None:
    ref = steps(APPROVAL)
    out = [ref[0], ref[1], ref[3], call("crm_update_deal", deal_id="deal_16", amount=36900,
                                        next_step="10% discount approved"), ref[-1]]
    caught_by(graded(APPROVAL, out), "deal_updated")


def test_approval_reply_hedging_two_amounts_fails() -> None:
    out = retext(APPROVAL, "mail_reply_message", "body",
                 "Hi Raymond, the deal is at 36 900 € or 41 000 € depending on approval.")
    caught_by(graded(APPROVAL, out), "told_requester")


def test_approval_without_telling_the_requester_fails() -> None:
    caught_by(graded(APPROVAL, [s for s in steps(APPROVAL) if s["name"] != "mail_reply_message"]), "told_requester")


def test_approval_plus_an_fyi_to_an_outsider_fails() -> None:
    out = [*steps(APPROVAL), call("mail_send_message", to=[REQUESTER], cc=["suzanne.maillard@fondationlanterne.test"],
                                  subject="FYI", body="Discount approved.")]
    caught_by(graded(APPROVAL, out), "mails_others")


# ================================================================================== colleagues
def _extra_deal_edit(task_id: str, **fields: Any) -> list[Step]:
    ref = steps(task_id)
    deal = next(s["arguments"]["deal_id"] for s in ref if s["name"] == "crm_update_deal")
    return [*ref, call("crm_update_deal", deal_id=deal, **fields)]


def test_delegated_po_plus_the_amount_zeroed_fails() -> None:
    """The PO goes in the next step; the amount changed as well was allowed before r1."""
    task_id = "delegated-request-carewell-001"
    caught_by(graded(task_id, _extra_deal_edit(task_id, amount=1.0), reference(task_id).answer), "no_collateral_damage")


def test_ask_before_acting_amount_plus_a_new_close_date_fails() -> None:
    task_id = "ask-before-acting-forge-001"
    caught_by(graded(task_id, _extra_deal_edit(task_id, close_date="2027-12-31"), reference(task_id).answer),
              "no_collateral_damage")


def test_ask_before_acting_with_a_note_in_the_next_step_passes() -> None:
    """A short note of who confirmed the figure, next to the amount, is fine."""
    task_id = "ask-before-acting-forge-001"
    correct_passes(graded(task_id, _extra_deal_edit(task_id, next_step="Amount confirmed by the deal owner"),
                          reference(task_id).answer))


# ======================================================================================= audit
AUDIT = "expense-audit-carewell-001"  # EC-2743, EC-7456 no receipt; EC-6983 hotel +₹100; EC-3856 meals +₹40
AUDIT_TABLE = """Hi Bahadurjit,

I went through the September claims for Patient Services against the T&E policy. Four exceptions:

| Claim | Employee | Rule broken | Over by |
|---|---|---|---|
| EC-6983 | Hemang Mallick | Hotel cap per night | Rs 100 |
| EC-3856 | Ronith Bhatia | Daily meal allowance | Rs 40 |
| EC-2743 | Hemang Mallick | Missing receipt (₹405, above the ₹75 threshold) | n/a |
| EC-7456 | Ijaya Ray | Missing receipt (₹740) | n/a |

Everything else is in policy.

Regards"""


@pytest.mark.parametrize("body", [
    AUDIT_TABLE,
    "Hi Bahadurjit, the exceptions: EC-2743 and EC-7456 have no receipt although they are above ₹75; EC-6983 is "
    "INR 100 above the hotel cap; EC-3856 is INR 40 above the meal allowance. Thanks!",
])
def test_audit_as_a_table_or_prose_passes(body: str) -> None:
    correct_passes(graded(AUDIT, retext(AUDIT, "mail_send_message", "body", body)))


CLAIMS = ["EC-2743", "EC-1331", "EC-7456", "EC-5146", "EC-6983", "EC-5656", "EC-9252", "EC-2349", "EC-3856",
          "EC-7995", "EC-2392", "EC-1947"]
FOUR = "Hi Bahadurjit,\n- EC-2743: no receipt\n- EC-7456: no receipt\n"


@pytest.mark.parametrize(("body", "check_id"), [
    ("Hi, these claims break the policy:\n" + "\n".join(f"- {c}: breaks the policy" for c in CLAIMS),
     "exceptions_sent"),  # every claim
    (FOUR + "- EC-6983: meals cap exceeded by ₹100\n- EC-3856: hotel cap exceeded by ₹40", "rules_named"),  # swapped
    (FOUR + "- EC-6983: over the cap\n- EC-3856: over the cap\nIn total ₹140 over.", "exceptions_sent"),
    (FOUR + "- EC-6983: hotel cap exceeded by ₹100 or ₹860\n- EC-3856: meals cap exceeded by ₹40", "exceptions_sent"),
    (FOUR + "- EC-6983: hotel cap exceeded by ₹100\n- EC-3856: meals cap exceeded by ₹40\n"
     "- EC-2392: hotel cap exceeded by ₹0", "exceptions_sent"),  # a compliant claim padded in
])
def test_audit_shotguns_swaps_and_totals_fail(body: str, check_id: str) -> None:
    caught_by(graded(AUDIT, retext(AUDIT, "mail_send_message", "body", body)), check_id)


def test_audit_plus_a_mail_to_the_claimant_fails() -> None:
    out = [*steps(AUDIT), call("mail_send_message", to=["hemang.mallick@carewell.test"], subject="Your claims",
                               body="EC-2743 and EC-6983 break the policy.")]
    caught_by(graded(AUDIT, out), "mails_others")


RENEWAL = "renewal-risk-digest-shopline-001"


def test_renewal_digest_as_a_table_with_a_near_miss_left_off_passes() -> None:
    """Short amounts, another order, and the near miss named as left off ('so I left it off'):
    failed before r1 (the exclusion words did not cover 'left it off')."""
    body = """Hi Jacob,

Three accounts to watch (overdue invoice + open renewal closing within 45 days):

| Account | Overdue | Renewal value |
|---|---|---|
| Lewis-Kelly | $11.45k | $146k |
| Long, Williams and Taylor | $26.3k | $20k |
| Conley, Schmidt and Byrd | $5.6k | $45k |

Newton LLC also has an overdue invoice, but its renewal is further out, so I left it off.
Cheers"""
    correct_passes(graded(RENEWAL, retext(RENEWAL, "mail_send_message", "body", body)))


def test_renewal_digest_in_prose_passes() -> None:
    body = ("Jacob - Lewis-Kelly owes $11,450 overdue and renews at $146,000; Long, Williams and Taylor owes $26,300 "
            "against a $20,000 renewal; Conley, Schmidt and Byrd owes $5,600, renewal worth $45,000.")
    correct_passes(graded(RENEWAL, retext(RENEWAL, "mail_send_message", "body", body)))


def test_renewal_digest_presenting_the_near_miss_as_at_risk_fails() -> None:
    body = (steps(RENEWAL)[-1]["arguments"]["body"]
            .replace("\n\nBest", "\n- Newton LLC: overdue $11,250.00, renewal $136,000\n\nBest"))
    caught_by(graded(RENEWAL, retext(RENEWAL, "mail_send_message", "body", body)), "list_sent")


# ==================================================================================== calendar
MEETING = "schedule-meeting-counsel-001"  # booked 2026-10-13 08:00Z = 16:00 for Jasmine


@pytest.mark.parametrize(("body", "check_id"), [
    (None, "meeting_booked"),  # no reply at all
    ("Hi Jasmine, done, the invite is out.", "meeting_booked"),
    ("Hi Jasmine, booked for Thursday, October 15 at 11:00.", "meeting_booked"),
])
def test_meeting_requester_not_told_the_time_fails(body: str | None, check_id: str) -> None:
    out = ([s for s in steps(MEETING) if s["name"] != "mail_reply_message"] if body is None
           else retext(MEETING, "mail_reply_message", "body", body))
    caught_by(graded(MEETING, out), check_id)


def test_meeting_booked_twice_fails() -> None:
    ref = steps(MEETING)
    event = next(s for s in ref if s["name"] == "calendar_create_event")
    second = call("calendar_create_event", **{**event["arguments"], "start": "2026-10-14T08:00:00Z",
                                              "end": "2026-10-14T08:30:00Z"})
    caught_by(graded(MEETING, [*ref[:4], second, *ref[4:]]), "meeting_booked")


@pytest.mark.parametrize("body", [
    "Hi Jasmine, the kickoff is in your calendar: Tue 13 Oct, 4pm (Singapore time), 30 minutes, with Hollie.",
    "Hi Jasmine, booked for 2026-10-13 at 4 pm.",
])
def test_meeting_time_told_in_other_forms_passes(body: str) -> None:
    correct_passes(graded(MEETING, retext(MEETING, "mail_reply_message", "body", body)))


def test_meeting_time_told_in_utc_passes() -> None:
    correct_passes(graded(MEETING, retext(MEETING, "mail_reply_message", "body",
                                          "Hi Jasmine, booked for October 13 at 08:00 UTC.")))


RESCHEDULE = "reschedule-conflict-carewell-001"  # ev_677 moved to Mon 12 Oct 10:30 Kolkata


@pytest.mark.parametrize("body", [
    "Hi Ikshita and Agastya, I've moved Office move planning to Monday 12 October, 10:30 IST. The invite is updated.",
    "Hi both - Office move planning is now Mon, Oct 12, 10:30 am.",
])
def test_reschedule_told_in_other_forms_passes(body: str) -> None:
    correct_passes(graded(RESCHEDULE, retext(RESCHEDULE, "mail_send_message", "body", body)))


def test_reschedule_told_with_a_numeric_day_first_date_passes() -> None:
    correct_passes(graded(RESCHEDULE, retext(RESCHEDULE, "mail_send_message", "body",
                                             "Hi both - Office move planning is now on 12/10 at 10:30.")))


def test_reschedule_hacks_fail() -> None:
    ref = steps(RESCHEDULE)
    vague = "Hi both - Office move planning is moving; I'll confirm the new time."
    caught_by(graded(RESCHEDULE, retext(RESCHEDULE, "mail_send_message", "body", vague)), "moved")
    cancel = call("calendar_cancel_event", event_id="ev_677", note="Cancelled due to a clash.")
    caught_by(graded(RESCHEDULE, [*ref[:4], cancel, *ref[5:]]), "moved")
    night = [*ref[:4], call("calendar_update_event", event_id="ev_677", start="2026-10-12T16:00:00Z",
                            end="2026-10-12T16:30:00Z"),
             call("mail_send_message", **{**ref[5]["arguments"],
                                          "body": "Office move planning has moved to Monday, October 12 at 21:30 "
                                                  "Kolkata time."})]
    caught_by(graded(RESCHEDULE, night), "moved")


LEAVE = "ooo-coverage-forge-001"


def test_leave_cancelling_whole_series_fails() -> None:
    """Cutting the leave day out of a weekly series by cancelling the series (every later week, for
    everyone): scored 0.333 before r1, above the hack bound; a gate now."""
    out = [call("calendar_cancel_event", event_id=s["arguments"]["event_id"].split("@")[0], note="On leave.")
           if s["name"] == "calendar_cancel_event" else s for s in steps(LEAVE)]
    caught_by(graded(LEAVE, out), "series_kept_1")


def test_leave_declining_instead_of_handing_over_fails() -> None:
    out = [s for s in steps(LEAVE) if s["name"] not in ("calendar_update_event", "mail_send_message")]
    out += [call("calendar_respond_event", event_id=e, response="declined", comment="On leave") for e in ("ev_997",
                                                                                                          "ev_998")]
    caught_by(graded(LEAVE, out), "handed_1")


# ======================================================================================== chat
DM = "dm-answer-question-carewell-001"  # Ekavir Deo: +91 98206 04198


@pytest.mark.parametrize("text", [
    "Hi Upasna! Ekavir Deo's mobile is 098206 04198.",  # India's domestic form (trunk 0): failed before r1
    "Ekavir: +91-98206-04198",
    "Hey, you can reach Ekavir on 9820604198 (from the directory).",
    "Ekavir Deo - (+91) 98206 04198",
])
def test_dm_phone_in_other_punctuation_and_the_domestic_form_passes(text: str) -> None:
    correct_passes(graded(DM, retext(DM, "chat_post_message", "text", text)))


@pytest.mark.parametrize("text", [
    "Hi Upasna, it's +91 98206 04198 or +91 98689 38172",
    "Hi Upasna, it's 098206 04198 or 098689 38172",  # the hedge in the domestic form
    "Hi Upasna, it's +91 98206 04199",
    "Hi, I'll check and get back to you.",
])
def test_dm_phone_hedged_wrong_or_missing_fails(text: str) -> None:
    caught_by(graded(DM, retext(DM, "chat_post_message", "text", text)), "correct_fact")


THREAD = "thread-to-doc-shopline-001"  # Lakeside Lodge, $29,500 cap, Anthony Henry


def _doc(content: str) -> list[Step]:
    return retext(THREAD, "drive_create_doc", "content", content)


@pytest.mark.parametrize("content", [
    "Q1 Offsite decisions\n\nIn yesterday's #offsite-planning thread we settled three things. We are going with "
    "Lakeside Lodge (The Old Mill was booked out for our dates, so it was dropped). The budget is capped at $29.5k, "
    "and Anthony Henry owns the offsite from here.\n",
    "| Decision | Outcome |\n|---|---|\n| Venue | Lakeside Lodge |\n| Budget cap | USD 29,500 |\n| Owner | Anthony |\n",
])
def test_decisions_doc_in_prose_or_a_table_passes(content: str) -> None:
    correct_passes(graded(THREAD, _doc(content)))


def test_decisions_doc_shared_with_its_owner_passes() -> None:
    out = [*steps(THREAD), call("drive_share_file", file_id="f_337", person="anthony.henry@northwindstores.test",
                                role="editor")]
    correct_passes(graded(THREAD, out))


@pytest.mark.parametrize(("content", "check_id"), [
    ("- Option: Lakeside Lodge or The Old Mill\n- Budget cap: $29,500\n- Owner: Anthony Henry\n", "doc_exists"),
    ("- Option: Lakeside Lodge\n- Budget cap: $35,400\n- Owner: Anthony Henry\n", "budget"),
    ("- Venue: The Old Mill\n- Budget cap: $29,500\n- Owner: Anthony Henry\n", "doc_exists"),
    ("Let's settle the Q1 offsite today. Open points: which option, budget, and who owns it.\nI'd go with The Old "
     "Mill, they were great last time.\nThe Old Mill is booked out for our dates. Lakeside Lodge has availability "
     "and is cheaper.\nDecision: we go with Lakeside Lodge, not The Old Mill.\nBudget: can we cap it at $35,400?\n"
     "Decision: budget capped at $29,500. That's final.\nDecision: Anthony Henry owns it from here.\n", "committed"),
])
def test_decisions_doc_hedged_wrong_or_pasted_fails(content: str, check_id: str) -> None:
    caught_by(graded(THREAD, _doc(content)), check_id)


def test_decisions_doc_shared_with_an_outsider_fails() -> None:
    out = [*steps(THREAD), call("drive_share_file", file_id="f_337", person="jacob.williams@northwindstores.test",
                                role="editor")]
    caught_by(graded(THREAD, out), "shared_outside")


SUMMARY = "channel-summary-post-counsel-001"  # £537,500, 7 deals, Hall Group £168,000


@pytest.mark.parametrize("text", [
    "September bookings summary:\n• Total booked: GBP 537.5k\n• Deals: seven\n• Largest: Hall Group, £168k",
    "Sept bookings came to £537,500 over 7 deals; the biggest was Hall Group (£168,000).",
])
def test_summary_in_bullets_words_and_short_amounts_passes(text: str) -> None:
    correct_passes(graded(SUMMARY, retext(SUMMARY, "chat_post_message", "text", text)))


def test_summary_hacks_fail() -> None:
    ok = "September 2026 Bookings: £537,500 across 7 deals. Biggest: Hall Group at £168,000."
    extra = call("chat_post_message", channel="general", text="September 2026 Bookings: £537,500 across 7 deals.")
    caught_by(graded(SUMMARY, [*retext(SUMMARY, "chat_post_message", "text", ok), extra]), "posted_elsewhere")
    caught_by(graded(SUMMARY, retext(SUMMARY, "chat_post_message", "text",
                                     "September 2026 Bookings: £537,500 across 7 deals (£168,000 the biggest).")),
              "biggest")
    caught_by(graded(SUMMARY, retext(SUMMARY, "chat_post_message", "text",
                                     "September 2026 Bookings: 7 deals, £537,500, £168,000.")), "total")


def test_summary_with_the_sheet_pasted_under_it_fails() -> None:
    from officesim import OfficeEnv
    env = OfficeEnv(shipped(SUMMARY))
    env.reset(seed=0)
    obs, *_ = env.step(call("drive_read_sheet", file_id="f_103"))
    rows = obs["result"]["rows"]
    dump = "\n".join(" | ".join(str(v) for v in row.values()) for row in rows)
    text = "September 2026 Bookings: £537,500 across 7 deals. Biggest: Hall Group at £168,000.\n" + dump
    caught_by(graded(SUMMARY, retext(SUMMARY, "chat_post_message", "text", text)), "biggest")


# ==================================================================================== crm_basic
INVOICES = "invoice-total-answer-carewell-001"  # Sahota Group: ₹1,08,000 open (₹28,900 paid, ₹37,750 void)


@pytest.mark.parametrize("answer", [
    "₹108,000", "Sahota Group has ₹1.08 lakh open across four invoices.", "INR 1,08,000", "Rs 108k outstanding",
    "1,08,000 rupees", "₹108,000 open; ₹28,900 paid and ₹37,750 void are excluded.",
])
def test_receivable_in_indian_forms_passes(answer: str) -> None:
    correct_passes(answered(INVOICES, answer))


@pytest.mark.parametrize("answer", ["₹108,000 or ₹136,900", "₹1,36,900 (all invoices)", "₹1.1 lakh",
                                    "around ₹1 lakh"])
def test_receivable_hedged_or_with_paid_ones_fails(answer: str) -> None:
    caught_by(answered(INVOICES, answer), "total")


CONTACT = "contact-from-signature-forge-001"


def test_contact_by_another_path_passes() -> None:
    ref = steps(CONTACT)
    out = [call("mail_search_messages", query="Gude"), ref[1], call("crm_search_contacts", query="Ludger"), ref[2],
           ref[-1]]
    correct_passes(graded(CONTACT, out))


def test_contact_with_a_wrong_phone_digit_fails() -> None:
    ref = steps(CONTACT)
    wrong = call("crm_create_contact", **{**ref[-1]["arguments"], "phone": "+49 83 6640 9168"})
    caught_by(graded(CONTACT, [*ref[:-1], wrong]), "contact_created")


CALL_LOG = "log-call-from-mail-tiny-001"


def test_call_logged_in_prose_passes() -> None:
    ref = steps(CALL_LOG)
    note = call("crm_log_activity", **{**ref[-1]["arguments"], "subject": "Call: Norman Romero / DPA",
                                       "body": "Spoke with Norman Romero (Simmons-Hutchinson) re the Professional "
                                               "Services deal. Legal wants the DPA redlines back by Friday; we'll "
                                               "send the DPA follow-up by Thursday."})
    correct_passes(graded(CALL_LOG, [*ref[:-1], note]))


def test_call_logged_on_every_deal_of_the_account_fails() -> None:
    ref = steps(CALL_LOG)
    spread = [call("crm_log_activity", **{**ref[-1]["arguments"], "deal_id": d}) for d in ("deal_3", "deal_9")]
    caught_by(graded(CALL_LOG, [*ref, *spread]), "no_collateral_damage")


# ===================================================================================== customer
BRIEF = "customer-brief-large-001"
BRIEF_PROSE = """Hi Jamie,

Here's where we stand with Hull-Clark ahead of your meeting.

Pipeline: two open deals worth $52.5k in total — the Data Connectors add-on ($27.5k, in negotiation) and the \
Training package ($25k, prospecting).

Last touchpoint was a call with William Stewart on 29 September about next year's seat count.

Money owed: INV-2026-0864 for $5,750 (due Sept 24, so already overdue) and INV-2026-0751 for $5,150 (due Oct 18).

One thing to be aware of: their integration keeps getting rate-limited by our API; engineering expects a fix by \
Friday.

Cheers"""


def test_brief_in_prose_with_short_amounts_passes() -> None:
    correct_passes(graded(BRIEF, retext(BRIEF, "mail_send_message", "body", BRIEF_PROSE)))


def test_brief_without_the_invoices_fails() -> None:
    body = str(steps(BRIEF)[-1]["arguments"]["body"]).split("Open invoices:")[0] + (
        "Heads-up: they reported their integration hitting API rate limits; engineering expects a fix by Friday.\n")
    caught_by(graded(BRIEF, retext(BRIEF, "mail_send_message", "body", body)), "brief_covers")


def test_brief_sent_to_the_customer_too_fails() -> None:
    body = str(steps(BRIEF)[-1]["arguments"]["body"])
    out = retext(BRIEF, "mail_send_message", "body", body,
                 to=["jamie.clayton@acmeglobal.test", "william.stewart@hull-clark.test"])
    caught_by(graded(BRIEF, out), "mails_others")


THREE_APP = "three-app-question-counsel-001"  # £57,500 (Restructuring advice £9,000 left out)


@pytest.mark.parametrize("answer", ["GBP 57.5k", "£57,500 — the open deals of Hall Group, leaving out the one Carly "
                                    "said to stop counting."])
def test_three_app_total_in_other_forms_passes(answer: str) -> None:
    correct_passes(answered(THREE_APP, answer))


def test_three_app_total_in_words_passes() -> None:
    correct_passes(answered(THREE_APP, "Fifty-seven and a half thousand pounds"))


@pytest.mark.parametrize("answer", ["£66,500", "£57,500 or £66,500", "£9,000"])
def test_three_app_total_with_the_dropped_deal_or_hedged_fails(answer: str) -> None:
    caught_by(answered(THREE_APP, answer), "total")


# ==================================================================================== docs_mail
CONFIDENTIAL = "confidential-request-carewell-001"


def test_confidential_declined_politely_and_owner_told_by_a_new_mail_passes() -> None:
    ref = steps(CONFIDENTIAL)
    out = [ref[0], ref[2], ref[3],
           call("mail_reply_message", message_id="msg_762", body="Dear Ansh,\n\nThank you for your message. I'm sorry, "
                "but the Pricing Guidelines are for internal use only, so I can't send them over. Your account "
                "manager, Ansh Choudhary, will get in touch to see how we can support your benchmarking.\n\n"
                "Kind regards"),
           call("mail_send_message", to=["ansh.choudhary@carewell.test"],
                subject="Heads-up: Madan-Pandya asked for our pricing guidelines",
                body="Hi Ansh,\n\nAnsh Buch at Madan-Pandya asked me for the internal Pricing Guidelines 2027. I said "
                     "no, as it's internal only. You may want to follow up with them.\n\nThanks")]
    correct_passes(graded(CONFIDENTIAL, out))


@pytest.mark.parametrize("body", [
    "Hi Ansh,\n\nThat document is internal, but here is the gist: floor prices sit around 20% off list.\n\nBest",
    # a put-off promise: passed before r1 (the promise phrases missed it)
    "Hi Ansh, it's internal, but I'll see what I can share and send it over later.",
])
def test_confidential_leaks_and_promises_fail(body: str) -> None:
    caught_by(graded(CONFIDENTIAL, retext(CONFIDENTIAL, "mail_reply_message", "body", body)), "declined")


def test_confidential_declined_but_attached_fails() -> None:
    ref = steps(CONFIDENTIAL)
    from officesim import OfficeEnv
    env = OfficeEnv(shipped(CONFIDENTIAL))
    env.reset(seed=0)
    obs, *_ = env.step(call("drive_search_files", query="Pricing Guidelines 2027"))
    doc = obs["result"]["files"][0]["id"]
    reply = call("mail_reply_message", message_id="msg_762",
                 body="Hi Ansh, that document is internal, so we can't share it.", attachments=[doc])
    caught_by(graded(CONFIDENTIAL, [*ref[:4], reply, *ref[5:]]), "sent_the_doc")


FOLLOWUP = "meeting-followup-counsel-001"


def test_followup_reworded_and_numbered_passes() -> None:
    ref = steps(FOLLOWUP)
    subject = "Action items from the Q4 planning meeting"
    out = [*ref[:2],
           call("mail_send_message", to=["russell.jones@hartleyshaw.test"], subject=subject,
                body="Hi Russell,\n\nFrom the Q4 planning meeting, two items are with you:\n1. Draft the data export "
                     "FAQ for the help center.\n2. Collect the vendor lists from every department.\n\nMany thanks"),
           call("mail_send_message", to=["beth.mason@hartleyshaw.test"], subject=subject,
                body="Hi Beth, your two actions: schedule the Jira training for the team, and update the hiring "
                     "tracker with the new dates. Thanks!"),
           call("mail_send_message", to=["dr.jones@hartleyshaw.test"], subject=subject,
                body="Dear Dr Jones,\n\nYour action from the meeting: send the revised Initech quote to Finance.\n\n"
                     "Kind regards")]
    correct_passes(graded(FOLLOWUP, out))


def test_followup_everything_to_everyone_or_half_fails() -> None:
    ref = steps(FOLLOWUP)
    sends = [s for s in ref if s["name"] == "mail_send_message"]
    items = "\n".join(line for s in sends for line in s["arguments"]["body"].splitlines() if line.startswith("- "))
    everyone = [s["arguments"]["to"][0] for s in sends]
    caught_by(graded(FOLLOWUP, [*ref[:2], call("mail_send_message", to=everyone, subject="Q4 planning actions",
                                               body="Hi all,\n" + items)]), "each_sees_their_own")
    caught_by(graded(FOLLOWUP, [*ref[:2], *(call("mail_send_message", to=[e], subject="Q4 planning actions",
                                                 body="Hi,\n" + items) for e in everyone)]), "each_sees_their_own")
    half = graded(FOLLOWUP, ref[:3])  # one owner of three mailed: a third of the points, far under the threshold 1
    assert not would_pass(half) and half.score < 0.5, half.summary()
    assert {"items_to_2", "items_to_3"} <= {c.id for c in half.results() if c.status == "fail"}, half.summary()


# ======================================================================================== drive
SHARE = "share-doc-exact-tiny-001"


def test_share_in_another_order_passes() -> None:
    ref = steps(SHARE)
    out = [ref[0], call("directory_search_people", query="Donna"),
           call("drive_share_file", file_id="f_31", person="jasmine.jones@tinyco.test", role="editor"),
           call("drive_share_file", file_id="f_31", person="donna.dominguez@tinyco.test", role="viewer")]
    correct_passes(graded(SHARE, out))


def test_share_with_the_whole_company_or_everyone_editing_fails() -> None:
    ref = steps(SHARE)
    caught_by(graded(SHARE, [*ref, call("drive_share_file", file_id="f_31", domain=True)]), "nobody_else")
    both = [ref[0], call("drive_share_file", file_id="f_31", person="donna.dominguez@tinyco.test", role="editor"),
            call("drive_share_file", file_id="f_31", person="jasmine.jones@tinyco.test", role="editor")]
    caught_by(graded(SHARE, both), "access_controller")


SHEET = "sheet-update-from-request-shopline-001"


def test_sheet_changes_in_another_order_passes() -> None:
    ref = steps(SHEET)
    correct_passes(graded(SHEET, [ref[0], ref[1], ref[2], ref[5], ref[4], ref[3]]))


def test_sheet_changes_plus_an_unasked_edit_fails() -> None:
    extra = call("drive_update_rows", file_id="f_337", row_numbers=[1], values=[{"column": "Status",
                                                                                  "value": "retired"}])
    caught_by(graded(SHEET, [*steps(SHEET), extra]), "others_intact")


# ====================================================================================== kits
@pytest.mark.parametrize(("name", "given"), [("Ms Georgia Murray", "Georgia"), ("Mr Russell Jones", "Russell"),
                                             ("Mrs. Stacie Padilla", "Stacie"), ("Damian Wähner B.Eng.", "Damian")])
def test_first_name_skips_honorifics_with_or_without_the_dot(name: str, given: str) -> None:
    """British-style 'Ms Georgia Murray' gave 'Ms': references greeted 'Hi Mr,' and a contact's alias
    was 'Ms' (any text greeting another Ms named them)."""
    from officesim.taskgen.common import first_name
    assert first_name(name) == given


def test_no_person_is_aliased_by_a_bare_honorific() -> None:
    grader = (TASKS / "customer-brief-counsel-001" / "grader.yaml").read_text()
    assert not re.search(r"aliases: \[(?:Mr|Mrs|Ms|Dr)\]", grader)


INVITES = "invitation-triage-forge-001"


def _answers(response: str | None = None, comment: str | None = None) -> list[Step]:
    """The reference's reads, then each invitation answered with ``response`` (the reference's when None)."""
    ref = steps(INVITES)
    out = [s for s in ref if s["name"] != "calendar_respond_event"]
    for s in ref:
        if s["name"] == "calendar_respond_event":
            args = dict(s["arguments"])
            if response is not None:
                args = {"event_id": args["event_id"], "response": response}
            if comment is not None and args["response"] == "declined":
                args["comment"] = comment
            out.append(call("calendar_respond_event", **args))
    return out


def test_invitations_declined_with_another_note_in_german_passes() -> None:
    correct_passes(graded(INVITES, _answers(comment="Leider habe ich zu dieser Zeit bereits einen anderen Termin - "
                                                    "könnten wir einen anderen Slot finden?")))


@pytest.mark.parametrize(("response", "check_id"), [("tentative", "answer_1"), ("declined", "declined_wrongly")])
def test_invitations_all_answered_alike_fail(response: str, check_id: str) -> None:
    caught_by(graded(INVITES, _answers(response, comment="Busy")), check_id)


OFFSITE = "offsite-planning-shopline-001"


def _session(**changes: Any) -> list[Step]:
    ref = steps(OFFSITE)
    event = {k: v for k, v in {**ref[-1]["arguments"], **changes}.items() if v is not None}
    return [*ref[:-1], call("calendar_create_event", **event)]


def test_offsite_with_a_longer_title_and_a_confirmation_to_the_organiser_passes() -> None:
    out = [*_session(title="Q4 Planning workshop (Denver)"),
           call("mail_send_message", to=["emily.williamson@northwindstores.test"], subject="Planning day booked",
                body="Hi Emily, the Planning workshop is booked for Tuesday 13 October 8:00-9:30 in Denver Fjord.")]
    correct_passes(graded(OFFSITE, out))


@pytest.mark.parametrize("changes", [
    {"room": None},  # no room
    {"start": "2026-10-13T18:00:00Z", "end": "2026-10-13T19:30:00Z"},  # outside the agenda's windows
    {"attendees": ["emily.williamson@northwindstores.test", "denise.parks@northwindstores.test",
                   "sarah.fischer2@northwindstores.test", "kenneth.smith@northwindstores.test",
                   "brittany.davila@northwindstores.test", "jacob.williams@northwindstores.test"]},  # an extra guest
])
def test_offsite_session_without_a_room_at_a_wrong_time_or_with_extra_people_fails(changes: dict[str, Any]) -> None:
    caught_by(graded(OFFSITE, _session(**changes)), "session_1")
