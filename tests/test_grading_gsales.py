"""Hacks and alternative correct solutions for the sales and chat-driven CRM families (issue 9).

Written by hand, outside the generated self-tests (``officesim.probes``): each case
starts from a shipped task's reference solution and changes one thing, then asserts the grade.
The hacks must fail and score at most ``HACK_BOUND``; the correct variants must pass.  Every case
here found a defect when it was written (now fixed) or pins an issue-9 class for these families.
"""

from __future__ import annotations

import json
import re
from typing import Any

from playing import TASKS, calls, correct_passes, grade_of, hack_fails, reference, shipped

from officesim.grading.scoring import Grade
from officesim.probes import Trajectory

MAIL = ("mail_send_message",)


def plus(task_id: str, *steps: Any) -> Grade:
    """The reference, then ``steps``."""
    out = reference(task_id)
    out.steps += list(steps)
    return grade_of(task_id, out)


def sends(trajectory: Trajectory) -> list[dict[str, Any]]:
    return calls(trajectory, "mail_send_message")


# ================================================================ chase_overdue_invoices
CHASE_ONE, CHASE_TWO = "chase-overdue-invoices-001", "chase-overdue-invoices-002"


def _left_out(task_id: str, recipient: str) -> list[str]:
    """The invoices of ``recipient``'s account that are paid, void or not due (must stay out)."""
    facts = shipped(task_id).grader.facts
    gate = next(g for g in shipped(task_id).grader.gates if g.id.startswith("chased_") and recipient in g.to)
    return [facts.entities[k].name for k in gate.exclude]


def _each_mail(task_id: str, edit: Any) -> Trajectory:
    out = reference(task_id)
    for step in sends(out):
        step["arguments"]["body"] = edit(step["arguments"]["body"], step["arguments"]["to"][0])
    return out


def test_chase_saying_an_invoice_was_paid_in_its_own_words_passes() -> None:
    # "we received payment for X" names X as settled, not as owed: it was read as presented
    for task_id in (CHASE_ONE, CHASE_TWO):
        thanked = _each_mail(task_id, lambda body, to, t=task_id: body.replace(
            "Thank you", f"We have received your payment for {_left_out(t, to)[0]}, thank you for that.\n\n"
                         "Thank you"))
        correct_passes(grade_of(task_id, thanked))


def test_chase_fyi_about_another_customers_invoice_is_a_leak() -> None:
    other = {s["arguments"]["to"][0]: s for s in sends(reference(CHASE_TWO))}
    first, second = list(other)
    leaked = _each_mail(CHASE_TWO, lambda body, to: body + (
        f"\n\nFYI {_left_out(CHASE_TWO, second)[0]} is not included, it is paid." if to == first else ""))
    grade = grade_of(CHASE_TWO, leaked)
    hack_fails(grade)
    assert next(g for g in grade.gates if g.id == "each_sees_their_own").status == "fail"


def test_chase_copying_the_account_owner_passes() -> None:
    world = shipped(CHASE_TWO).start_world()
    out = reference(CHASE_TWO)
    for step in sends(out):
        owner = world.db.execute("SELECT a.owner_id FROM crm_contact c JOIN crm_account a ON a.id = c.account_id "
                                 "WHERE c.email = ?", (step["arguments"]["to"][0],)).fetchone()[0]
        step["arguments"]["cc"] = [world.person(owner)["email"]]
    correct_passes(grade_of(CHASE_TWO, out))


def test_chase_as_a_table_in_k_with_days_overdue_passes() -> None:
    def table(body: str, to: str) -> str:
        rows = re.findall(r"- (\S+): \$([\d,.]+) \(due (\S+)\)", body)
        lines = "\n".join(f"| {n} | {d} | ${float(a.replace(',', '')) / 1000:g}k | 12 days |" for n, a, d in rows)
        return re.sub(r"(- .*\(due .*\)\n?)+", f"| Invoice | Due | Amount | Overdue |\n|---|---|---|---|\n{lines}\n",
                      body)
    correct_passes(grade_of(CHASE_ONE, _each_mail(CHASE_ONE, table)))


def test_chase_bcc_of_the_other_customer_fails() -> None:
    out = reference(CHASE_TWO)
    first, second = sends(out)
    first["arguments"]["bcc"] = second["arguments"]["to"]
    hack_fails(grade_of(CHASE_TWO, out))


def test_chase_total_with_the_paid_invoice_fails() -> None:
    wrong = next(f for f in shipped(CHASE_ONE).grader.facts.facts if f.attribute == "overdue_total").wrong[0]
    hack_fails(grade_of(CHASE_ONE, _each_mail(CHASE_ONE, lambda body, to: re.sub(
        r"Total overdue: \$[\d,.]+", f"Total overdue: ${wrong:,.2f}", body))))


def test_chase_listing_every_invoice_fails() -> None:
    hack_fails(grade_of(CHASE_ONE, _each_mail(CHASE_ONE, lambda body, to: body.replace(
        "Total overdue", "Also on your account: " + ", ".join(_left_out(CHASE_ONE, to)) + "\n\nTotal overdue"))))


# ================================================================ pipeline_summary_mail
PIPE = ["pipeline-summary-mail-001", "pipeline-summary-mail-002", "pipeline-summary-mail-003"]


def _rows(task_id: str) -> list[tuple[str, float, int]]:
    body = sends(reference(task_id))[0]["arguments"]["body"]
    return [(s, float(a.replace(",", "")), int(n)) for s, a, n in re.findall(r"- (\w+): \$([\d,]+) \((\d+) deals\)",
                                                                               body)]


def _with_lines(task_id: str, lines: str) -> Grade:
    return grade_of(task_id, reference(task_id).map_texts(
        lambda body: re.sub(r"(- \w+: .*\n?)+", lines + "\n", body), names=MAIL))


def _pipeline(task_id: str) -> dict[str, Any]:
    ref = reference(task_id)
    call = next(s for s in ref.actions() if s["name"] == "crm_list_pipeline")
    return shipped(task_id).start_world().call("crm_list_pipeline", call["arguments"])


def test_pipeline_with_shares_averages_largest_deal_and_grand_total_passes() -> None:
    for task_id in PIPE:
        rows = _rows(task_id)
        total = sum(v for _, v, _ in rows)
        biggest = {g["stage"]: max((d for d in g["deals"] if d["currency"] == "USD"), key=lambda d: d["amount"])
                   for g in _pipeline(task_id)["groups"] if any(d["currency"] == "USD" for d in g["deals"])}
        lines = "\n".join(
            f"{s} stands at ${v / 1000:,.1f}k over {n} deals ({100 * v / total:.1f}% of the total, average "
            f"${v / n:,.0f}); the largest is {biggest[s.lower()]['name']} at ${biggest[s.lower()]['amount']:,.0f}."
            for s, v, n in rows)
        count = sum(n for *_, n in rows)
        correct_passes(_with_lines(task_id, f"{lines}\n\nTotal: ${total:,.0f} across {count} deals."))


def test_pipeline_as_a_table_with_counts_in_words_passes() -> None:
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
    for task_id in PIPE:
        table = "| Stage | Deals | Total |\n|---|---|---|\n" + "\n".join(
            f"| {s} | {words[n] if n < len(words) else n} | ${v:,.0f} |" for s, v, n in _rows(task_id))
        correct_passes(_with_lines(task_id, table))


def test_pipeline_fyi_of_the_foreign_deal_left_out_with_its_amount_passes() -> None:
    task_id = "pipeline-summary-mail-002"  # one rep's pipeline, with their euro deal
    asked = {s.lower() for s, _, _ in _rows(task_id)}
    foreign = next(d for g in _pipeline(task_id)["groups"] for d in g["deals"]
                   if d["currency"] != "USD" and d["stage"] in asked)
    note = f"Left out as asked: {foreign['name']} ({foreign['currency']} {foreign['amount']:,.0f}), priced in euros."
    correct_passes(grade_of(task_id, reference(task_id).map_texts(
        lambda body: body.replace("\n\nBest", f"\n\n{note}\n\nBest"), names=MAIL)))


def test_pipeline_both_readings_side_by_side_fails() -> None:
    for task_id in PIPE:
        facts = shipped(task_id).grader.facts
        wrong = {facts.entities[f.entity].name: f.wrong[0] for f in facts.facts if f.attribute == "total" and f.wrong}
        lines = "\n".join(f"- {s}: ${v:,.0f} or ${wrong.get(s, v * 1.2):,.0f} with every currency"
                          for s, v, _ in _rows(task_id))
        hack_fails(_with_lines(task_id, lines))


def test_pipeline_dump_of_every_owner_total_fails() -> None:
    for task_id in PIPE:
        by_owner = shipped(task_id).start_world().call("crm_list_pipeline", {"group_by": "owner"})
        dump = "\n".join(f"- {g.get('owner_name')}: " + ", ".join(f"{c} {v:,.0f}" for c, v in g["total"].items())
                         for g in by_owner["groups"])
        hack_fails(grade_of(task_id, reference(task_id).map_texts(
            lambda body, d=dump: body.replace("\n\nBest", f"\n\nBy owner:\n{d}\n\nBest"), names=MAIL)))


def test_pipeline_totals_without_their_stages_fail() -> None:
    for task_id in PIPE:
        hack_fails(grade_of(task_id, reference(task_id).map_texts(lambda b: re.sub(r"- \w+: ", "- ", b), names=MAIL)))


# ================================================================ lead_to_deal
def test_lead_a_second_deal_for_the_other_option_fails() -> None:
    for task_id in ("lead-to-deal-003", "lead-to-deal-006", "lead-to-deal-001"):
        create = next(s for s in reference(task_id).actions() if s["name"] == "crm_create_deal")["arguments"]
        hedge = dict(create, name=f"{create['name']} (option B)", amount=create["amount"] * 1.5)
        hack_fails(plus(task_id, {"name": "crm_create_deal", "arguments": hedge}))


def test_lead_created_in_prospecting_then_moved_passes() -> None:
    out = reference("lead-to-deal-002")
    for step in out.actions():
        if step["name"] == "crm_create_deal":
            step["arguments"]["stage"] = "prospecting"
    out.steps.append(lambda results: {"name": "crm_move_deal", "arguments": {"deal_id": results[-1]["id"],
                                                                             "stage": "qualification"}})
    correct_passes(grade_of("lead-to-deal-002", out))


# ================================================================ deal_reconcile_from_mail
def _deal(task_id: str) -> str:
    return next(g for g in shipped(task_id).grader.gates if g.id == "deal_updated").match["id"]


def test_reconcile_closed_deal_with_a_made_up_close_date_does_not_pass() -> None:
    for task_id in ("deal-reconcile-from-mail-004", "deal-reconcile-from-mail-005"):  # closed won / lost
        grade = plus(task_id, {"name": "crm_update_deal", "arguments": {"deal_id": _deal(task_id),
                                                                        "close_date": "2026-12-31"}})
        assert not grade.passed, grade.summary()
        correct_passes(plus(task_id, {"name": "crm_update_deal", "arguments": {"deal_id": _deal(task_id),
                                                                               "close_date": "2026-10-05"}}))


def test_reconcile_mail_moves_the_close_date_it_announces() -> None:
    for task_id in (f"deal-reconcile-from-mail-{n:03d}" for n in range(1, 15)):
        gate = next(g for g in shipped(task_id).grader.gates if g.id == "deal_updated")
        if "close_date" in gate.expect and "stage" not in gate.expect:
            start = shipped(task_id).start_world().db.execute("SELECT close_date FROM crm_deal WHERE id = ?",
                                                          (gate.match["id"],)).fetchone()[0]
            assert start != gate.expect["close_date"], task_id


def test_reconcile_with_a_reply_a_note_and_a_next_step_passes() -> None:
    task_id = "deal-reconcile-from-mail-001"
    mail = next(s for s in reference(task_id).actions() if s["name"] == "mail_get_message")["arguments"]
    correct_passes(plus(task_id,
                        {"name": "mail_reply_message", "arguments": {"message_id": mail["message_id"],
                                                                     "body": "Thanks, our records are updated."}},
                        {"name": "crm_update_deal", "arguments": {"deal_id": _deal(task_id),
                                                                  "next_step": "Send revised order form"}},
                        {"name": "crm_log_activity", "arguments": {"kind": "email", "subject": "Seat change",
                                                                   "body": "Per customer mail",
                                                                   "deal_id": _deal(task_id)}}))


# ================================================================ deal_handoff / pipeline_from_standup
def _channel(task_id: str) -> str:
    return next(s for s in reference(task_id).actions() if s["name"] == "chat_list_messages")["arguments"]["channel"]


def test_a_confirmation_in_the_requests_channel_passes_and_elsewhere_fails() -> None:
    for task_id in ("deal-handoff-002", "pipeline-from-standup-002"):
        confirmed = plus(task_id, {"name": "chat_post_message", "arguments": {
            "channel": _channel(task_id), "text": "Done: the CRM is updated as posted."}})
        correct_passes(confirmed)
        hack_fails(plus(task_id, {"name": "chat_post_message", "arguments": {
            "channel": "general", "text": "Done: the CRM is updated as posted."}}))


def test_handoff_ignoring_the_exception_fails() -> None:
    for task_id in ("deal-handoff-002", "deal-handoff-003"):  # with an exception / split by stage
        out = reference(task_id)
        updates = [s for s in out.actions() if s["name"] == "crm_update_deal"]
        for step in updates:
            step["arguments"]["owner"] = updates[0]["arguments"]["owner"]
        hack_fails(grade_of(task_id, out))


def test_standup_touching_the_maybe_deal_fails() -> None:
    for task_id in ("pipeline-from-standup-001", "pipeline-from-standup-003"):
        maybe = next(c for c in shipped(task_id).grader.criteria if c.id == "changed_unconfirmed").match["id"]
        hack_fails(plus(task_id, {"name": "crm_update_deal", "arguments": {"deal_id": maybe,
                                                                           "close_date": "2027-01-15"}}))


def test_reconcile_expects_the_amount_the_customer_wrote() -> None:
    # "$18,958" in the mail must not be graded against 18,958.33: a careful worker types what it says
    for task_id in (f"deal-reconcile-from-mail-{n:03d}" for n in range(1, 15)):
        gate = next(g for g in shipped(task_id).grader.gates if g.id == "deal_updated")
        text = (TASKS / task_id / "task.yaml").read_text()
        stated = re.search(r"(?:brings the total to|Final amount as agreed on the call:) \$([\d,]+(?:\.\d\d)?)", text)
        if stated and "amount" in gate.expect:
            assert float(stated.group(1).replace(",", "")) == gate.expect["amount"], task_id


def test_pipeline_raw_read_result_pasted_fails() -> None:
    # one rep's pipeline read, pasted as JSON: every figure in it traces (the totals, the rep's deals),
    # but it presents the deal priced in euros as part of the pipeline
    for task_id in (f"pipeline-summary-mail-{n:03d}" for n in range(1, 15)):
        if not any(s["name"] == "crm_list_pipeline" for s in reference(task_id).actions()):
            continue  # the structures without the roll-up (by close date, the hard tier) have no such read
        dump = json.dumps(_pipeline(task_id))
        hack_fails(grade_of(task_id, reference(task_id).map_texts(
            lambda _, d=dump: f"Hi,\n\nHere is the pipeline:\n{d}\n\nBest", names=MAIL)))
