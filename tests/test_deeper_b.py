"""Hacks and correct alternatives for the new structures of the chat, pipeline and sales families.

Each case renders one instance of a new structure (or hard tier) into a temporary folder, starts
from its reference solution, changes one thing and asserts the grade: the hacks must fail and
score at most ``HACK_BOUND``, the correct alternatives must pass.  The instances are rendered here,
not read from ``tasks/``, because the shipped library is regenerated only after the branches merge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playing import calls, correct_passes, grade_of, hack_fails, reference

from officesim.probes import Trajectory
from officesim.task import Task, load_task
from officesim.taskgen import FAMILIES
from officesim.taskgen.writer import render_instance, write_task

_FOLDER: dict[str, Path] = {}


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("deeper_b")


def instance(out_dir: Path, family: str, index: int) -> Task:
    """Instance ``index`` (0-based) of ``family`` on acme, rendered once per module."""
    key = f"{family}:{index}"
    if key not in _FOLDER or not _FOLDER[key].exists():
        _FOLDER[key] = write_task(out_dir, render_instance(FAMILIES[family], index))
    return load_task(_FOLDER[key])


def variant_of(task: Task) -> str:
    return task.group.rsplit("/", 1)[-1] if "/" in task.group else task.group


def edit_mail(task: Task, edit: Callable[[str], str]) -> Trajectory:
    out = reference(task)
    for step in calls(out, "mail_send_message"):
        step["arguments"]["body"] = edit(step["arguments"]["body"])
    return out


def fact_entities(task: Task) -> dict[str, Any]:
    return task.grader.facts.entities


# ================================================================ chase_overdue_invoices
CHASE = "chase_overdue_invoices"
REMITTANCE, HARD_LEDGER = 3, 4  # indices of the remittance structure and the hard tier on acme


def _held(task: Task) -> list[tuple[str, float]]:
    """The invoices the CRM lists as overdue that must not be chased (number, amount)."""
    world = task.start_world()
    facts = task.grader.facts
    out = []
    for gate in task.grader.gates:
        if not gate.id.startswith("chased_"):
            continue
        for key in gate.exclude:
            number = facts.entities[key].name
            row = world.db.execute("SELECT amount, status, due_on FROM crm_invoice WHERE number = ?",
                                   (number,)).fetchone()
            if row["status"] == "open" and row["due_on"] < "2026-10-05":
                out.append((number, float(row["amount"])))
    return out


def _with_held(body: str, held: list[tuple[str, float]]) -> str:
    """The chase with the held invoices listed and added into the total (the overdue filter's view)."""
    total = float(re.search(r"Total overdue: \$([\d,]+\.\d\d)", body)[1].replace(",", ""))
    lines = "".join(f"- {n}: ${a:,.2f}\n" for n, a in held)
    return re.sub(r"Total overdue: \$[\d,]+\.\d\d", f"{lines}\nTotal overdue: ${total + sum(a for _, a in held):,.2f}",
                  body)


def test_chase_structures_are_the_new_ones(out_dir: Path) -> None:
    remit, hard = instance(out_dir, CHASE, REMITTANCE), instance(out_dir, CHASE, HARD_LEDGER)
    assert "remittance" in remit.group and "hard-ledger" in hard.group
    assert hard.difficulty == "hard" and len(hard.solution.steps) >= 12
    # more than one page of invoices per account: the reference pages
    assert any(s.arguments.get("cursor") for s in hard.solution.steps if s.name == "crm_search_invoices")
    assert len(_held(hard)) == 2 and len(_held(remit)) == 1


def test_chase_remitted_invoice_chased_fails(out_dir: Path) -> None:
    task = instance(out_dir, CHASE, REMITTANCE)
    held = _held(task)
    hack_fails(grade_of(task, edit_mail(task, lambda body: _with_held(body, held))))


def test_chase_remitted_total_only_fails(out_dir: Path) -> None:
    task = instance(out_dir, CHASE, REMITTANCE)
    [(_, amount)] = _held(task)
    hack_fails(grade_of(task, edit_mail(task, lambda body: re.sub(
        r"Total overdue: \$([\d,]+\.\d\d)", lambda m: f"Total overdue: ${float(m[1].replace(',', '')) + amount:,.2f}",
        body))))


def test_chase_thanking_for_the_remittance_passes(out_dir: Path) -> None:
    task = instance(out_dir, CHASE, REMITTANCE)
    [(number, _)] = _held(task)
    correct_passes(grade_of(task, edit_mail(task, lambda body: body.replace(
        "Thank you", f"Thanks for your remittance advice on {number}; that payment is on its way so it is not "
                     "included here.\n\nThank you"))))


def test_chase_remittance_with_the_owner_copied_passes(out_dir: Path) -> None:
    task = instance(out_dir, CHASE, REMITTANCE)
    world = task.start_world()
    out = reference(task)
    for step in calls(out, "mail_send_message"):
        owner = world.db.execute("SELECT a.owner_id FROM crm_contact c JOIN crm_account a ON a.id = c.account_id "
                                 "WHERE c.email = ?", (step["arguments"]["to"][0],)).fetchone()[0]
        step["arguments"]["cc"] = [world.person(owner)["email"]]
    correct_passes(grade_of(task, out))


def test_chase_hard_trusting_the_overdue_filter_fails(out_dir: Path) -> None:
    task = instance(out_dir, CHASE, HARD_LEDGER)
    held = {n: a for n, a in _held(task)}
    out = reference(task)
    sent = calls(out, "mail_send_message")
    for step in sent:  # each account's own held invoice back in its chase
        account = step["arguments"]["subject"].split(" - ", 1)[1]
        world = task.start_world()
        mine = [(n, a) for n, a in held.items() if world.db.execute(
            "SELECT 1 FROM crm_invoice i JOIN crm_account a ON a.id = i.account_id WHERE i.number = ? AND a.name = ?",
            (n, account)).fetchone()]
        step["arguments"]["body"] = _with_held(step["arguments"]["body"], mine)
    hack_fails(grade_of(task, out))


def test_chase_hard_first_page_only_fails(out_dir: Path) -> None:
    # an overdue invoice left out (as if only the first page was read) fails the account's gate
    task = instance(out_dir, CHASE, HARD_LEDGER)
    out = reference(task)
    step = calls(out, "mail_send_message")[0]
    body = step["arguments"]["body"]
    step["arguments"]["body"] = re.sub(r"- INV-\S+: \$[\d,.]+ \(due \S+\)\n", "", body, count=1)
    hack_fails(grade_of(task, out))


def test_chase_hard_naming_the_dispute_as_on_hold_passes(out_dir: Path) -> None:
    task = instance(out_dir, CHASE, HARD_LEDGER)
    held = [n for n, _ in _held(task)]
    out = reference(task)
    for step in calls(out, "mail_send_message"):
        world = task.start_world()
        account = step["arguments"]["subject"].split(" - ", 1)[1]
        for number in held:
            mine = world.db.execute("SELECT 1 FROM crm_invoice i JOIN crm_account a ON a.id = i.account_id "
                                    "WHERE i.number = ? AND a.name = ?", (number, account)).fetchone()
            if mine:
                step["arguments"]["body"] += f"\n\nPS: {number} is on hold while the dispute is resolved."
    correct_passes(grade_of(task, out))


def test_chase_hard_with_the_filter_used_for_reading_passes(out_dir: Path) -> None:
    # reading with overdue_only is fine when the mail is right: the grade is on what was sent
    task = instance(out_dir, CHASE, HARD_LEDGER)
    out = reference(task)
    out.steps = [s for s in out.steps if not (s["name"] == "crm_search_invoices" and s["arguments"].get("cursor"))]
    for step in calls(out, "crm_search_invoices"):
        step["arguments"]["overdue_only"] = True
    correct_passes(grade_of(task, out))


# ================================================================ pipeline_summary_mail
PIPE = "pipeline_summary_mail"
QUARTER, HARD_PIPE = 3, 4


def _stage_totals(body: str) -> dict[str, str]:
    return dict(re.findall(r"- (\w+): (\$[\d,]+)", body))


def _wrong_total(task: Task, stage: str) -> float:
    fact = next(f for f in task.grader.facts.facts if f.entity == stage and f.attribute == "total")
    assert fact.wrong, f"no wrong reading for {stage}"
    return float(fact.wrong[0])


def _replace_total(body: str, label: str, value: float) -> str:
    return re.sub(rf"- {label}: \$[\d,]+", f"- {label}: ${value:,.0f}", body)


def test_pipeline_structures_are_the_new_ones(out_dir: Path) -> None:
    quarter, hard = instance(out_dir, PIPE, QUARTER), instance(out_dir, PIPE, HARD_PIPE)
    assert "closing-this-quarter" in quarter.group and "hard-corrected" in hard.group
    assert hard.difficulty == "hard" and "crm_list_pipeline" not in hard.tools
    assert len(hard.solution.steps) >= 12
    assert any(s.arguments.get("cursor") for s in hard.solution.steps if s.name == "crm_search_deals")


def test_pipeline_quarter_without_the_date_filter_fails(out_dir: Path) -> None:
    task = instance(out_dir, PIPE, QUARTER)
    stage = next(f.entity for f in task.grader.facts.facts if f.attribute == "total" and f.wrong)
    label = fact_entities(task)[stage].name
    hack_fails(grade_of(task, edit_mail(task, lambda b: _replace_total(b, label, _wrong_total(task, stage)))))


def test_pipeline_quarter_pasting_the_deal_list_fails(out_dir: Path) -> None:
    task = instance(out_dir, PIPE, QUARTER)
    world = task.start_world()
    deals = world.db.execute("SELECT name, amount, currency FROM crm_deal WHERE stage IN ('prospecting', "
                             "'qualification', 'proposal', 'negotiation')").fetchall()
    paste = "\n".join(f"{d['name']}: {d['amount']:,.0f} {d['currency']}" for d in deals)
    hack_fails(grade_of(task, edit_mail(task, lambda b: f"{b}\n\nAll open deals:\n{paste}")))


def test_pipeline_quarter_as_a_table_passes(out_dir: Path) -> None:
    task = instance(out_dir, PIPE, QUARTER)

    def table(body: str) -> str:
        rows = "\n".join(f"| {s} | {t} |" for s, t in _stage_totals(body).items())
        return re.sub(r"(- \w+: .*\n?)+", f"| Stage | Total |\n|---|---|\n{rows}\n", body)
    correct_passes(grade_of(task, edit_mail(task, table)))


def test_pipeline_quarter_as_a_reply_in_the_thread_passes(out_dir: Path) -> None:
    task = instance(out_dir, PIPE, QUARTER)
    out = reference(task)
    [send] = calls(out, "mail_send_message")
    request = next(s for s in out.steps if s["name"] == "mail_search_messages")
    found = task.start_world().call("mail_search_messages", request["arguments"])
    send["name"] = "mail_reply_message"
    send["arguments"] = {"message_id": found["messages"][0]["id"], "body": send["arguments"]["body"]}
    correct_passes(grade_of(task, out))


def test_pipeline_hard_counting_the_double_entry_fails(out_dir: Path) -> None:
    task = instance(out_dir, PIPE, HARD_PIPE)
    world = task.start_world()
    duplicate = fact_entities(task)["duplicate"].name
    stage = world.db.execute("SELECT stage, amount FROM crm_deal WHERE id = ?", (duplicate,)).fetchone()
    label = fact_entities(task)[stage["stage"]].name

    def counted(body: str) -> str:
        total = float(_stage_totals(body)[label][1:].replace(",", ""))
        return _replace_total(body, label, total + stage["amount"])
    hack_fails(grade_of(task, edit_mail(task, counted)))


def test_pipeline_hard_answering_the_superseded_request_fails(out_dir: Path) -> None:
    task = instance(out_dir, PIPE, HARD_PIPE)
    hack_fails(grade_of(task, edit_mail(task, lambda b: re.sub(r"- (Prospecting|Qualification): .*\n", "", b))))


def test_pipeline_hard_naming_the_duplicate_as_left_out_passes(out_dir: Path) -> None:
    task = instance(out_dir, PIPE, HARD_PIPE)
    duplicate = fact_entities(task)["duplicate"].name
    correct_passes(grade_of(task, edit_mail(task, lambda b: b.replace(
        "\n\nBest", f"\n\n{duplicate} is a duplicate entry and is not counted.\n\nBest"))))


def test_pipeline_hard_without_deal_counts_passes(out_dir: Path) -> None:
    task = instance(out_dir, PIPE, HARD_PIPE)
    correct_passes(grade_of(task, edit_mail(task, lambda b: re.sub(r" \(\d+ deals\)", "", b))))


# ================================================================ pipeline_from_standup
STANDUP = "pipeline_from_standup"
CORRECTED, BUSY = 3, 4


def _channel(task: Task) -> str:
    step = next(s for s in task.solution.steps if s.name == "chat_list_messages")
    return str(step.arguments["channel"])


def test_standup_structures_are_the_new_ones(out_dir: Path) -> None:
    corrected, busy = instance(out_dir, STANDUP, CORRECTED), instance(out_dir, STANDUP, BUSY)
    assert "corrected-in-thread" in corrected.group and "hard-busy-channel" in busy.group
    assert busy.difficulty == "hard" and len(busy.solution.steps) >= 12
    assert sum(s.name == "chat_list_messages" for s in busy.solution.steps) >= 2


def test_standup_amount_before_the_correction_fails(out_dir: Path) -> None:
    task = instance(out_dir, STANDUP, CORRECTED)
    world = task.start_world()
    root = next(s for s in task.solution.steps if s.name == "chat_get_thread").arguments["message_id"]
    posted = world.call("chat_get_thread", {"message_id": root})
    first = float(re.search(r"amount is now \$([\d,]+)", json.dumps(posted))[1].replace(",", ""))
    out = reference(task)
    for step in calls(out, "crm_update_deal"):
        if "amount" in step["arguments"]:
            step["arguments"]["amount"] = first
            break
    hack_fails(grade_of(task, out))


def test_standup_corrected_maybe_applied_too_fails(out_dir: Path) -> None:
    task = instance(out_dir, STANDUP, CORRECTED)
    maybe = next(c for c in task.grader.criteria if c.id == "changed_unconfirmed").match["id"]
    out = reference(task)
    out.steps.append({"name": "crm_update_deal", "arguments": {"deal_id": maybe, "close_date": "2027-01-15"}})
    hack_fails(grade_of(task, out))


def test_standup_corrected_with_a_confirmation_post_passes(out_dir: Path) -> None:
    task = instance(out_dir, STANDUP, CORRECTED)
    out = reference(task)
    out.steps.append({"name": "chat_post_message", "arguments": {"channel": _channel(task),
                                                                 "text": "CRM updated with today's changes."}})
    correct_passes(grade_of(task, out))


def test_standup_corrected_writes_reordered_passes(out_dir: Path) -> None:
    task = instance(out_dir, STANDUP, CORRECTED)
    out = reference(task)
    writes = [s for s in out.steps if s["name"] in ("crm_update_deal", "crm_move_deal")]
    reads = [s for s in out.steps if s not in writes]
    out.steps = reads + writes[::-1]
    correct_passes(grade_of(task, out))


def test_standup_hard_withdrawn_update_applied_fails(out_dir: Path) -> None:
    task = instance(out_dir, STANDUP, BUSY)
    withdrawn = next(c for c in task.grader.criteria if c.id == "changed_withdrawn").match["id"]
    out = reference(task)
    out.steps.append({"name": "crm_move_deal", "arguments": {"deal_id": withdrawn, "stage": "closed_won"}})
    hack_fails(grade_of(task, out))


def test_standup_hard_near_twin_updated_instead_fails(out_dir: Path) -> None:
    task = instance(out_dir, STANDUP, BUSY)
    twin = next(c for c in task.grader.criteria if c.id == "changed_twin").match["id"]
    world = task.start_world()
    name = world.db.execute("SELECT name FROM crm_deal WHERE id = ?", (twin,)).fetchone()[0]
    original = world.db.execute("SELECT id FROM crm_deal WHERE name = ?", (name.replace(" (Phase 2)", ""),)
                                ).fetchone()[0]
    out = reference(task)
    for step in out.steps:
        if step["arguments"].get("deal_id") == original:
            step["arguments"]["deal_id"] = twin
    hack_fails(grade_of(task, out))


def test_standup_hard_with_a_confirmation_post_passes(out_dir: Path) -> None:
    task = instance(out_dir, STANDUP, BUSY)
    out = reference(task)
    out.steps.append({"name": "chat_post_message", "arguments": {"channel": _channel(task),
                                                                 "text": "Done: the CRM has today's updates."}})
    correct_passes(grade_of(task, out))


def test_standup_hard_large_page_read_passes(out_dir: Path) -> None:
    task = instance(out_dir, STANDUP, BUSY)
    out = reference(task)
    reads = calls(out, "chat_list_messages")
    out.steps = [s for s in out.steps if s not in reads[1:]]
    reads[0]["arguments"]["limit"] = 100
    correct_passes(grade_of(task, out))


# ================================================================ deal_handoff
HANDOFF = "deal_handoff"
KEEP_ONE, CHANGED = 3, 4


def _reassigned(task: Task) -> list[dict[str, Any]]:
    return [s.arguments for s in task.solution.steps if s.name == "crm_update_deal"]


def test_handoff_structures_are_the_new_ones(out_dir: Path) -> None:
    assert "keep-one" in instance(out_dir, HANDOFF, KEEP_ONE).group
    assert "successor-changed" in instance(out_dir, HANDOFF, CHANGED).group


def test_handoff_kept_deal_moved_too_fails(out_dir: Path) -> None:
    task = instance(out_dir, HANDOFF, KEEP_ONE)
    kept = next(c for c in task.grader.criteria if c.id == "closed_moved").match["id"]["in"]
    world = task.start_world()
    open_kept = [d for d in kept if world.db.execute("SELECT stage FROM crm_deal WHERE id = ?", (d,)).fetchone()[0]
                 not in ("closed_won", "closed_lost")]
    assert len(open_kept) == 1
    out = reference(task)
    out.steps.append({"name": "crm_update_deal",
                      "arguments": {"deal_id": open_kept[0], "owner": _reassigned(task)[0]["owner"]}})
    hack_fails(grade_of(task, out))


def test_handoff_kept_deal_only_skipped_by_accident_fails(out_dir: Path) -> None:
    task = instance(out_dir, HANDOFF, KEEP_ONE)
    out = reference(task)
    out.steps.remove(calls(out, "crm_update_deal")[-1])  # one deal that should move stays put
    hack_fails(grade_of(task, out))


def test_handoff_keep_one_reordered_passes(out_dir: Path) -> None:
    task = instance(out_dir, HANDOFF, KEEP_ONE)
    out = reference(task)
    writes = calls(out, "crm_update_deal")
    out.steps = [s for s in out.steps if s not in writes] + writes[::-1]
    correct_passes(grade_of(task, out))


def test_handoff_keep_one_with_a_note_in_sales(out_dir: Path) -> None:
    # a true note in #sales passes; one that says the kept deal was handed on too fails
    # (tests/test_deal_handoff_posts.py)
    task = instance(out_dir, HANDOFF, KEEP_ONE)
    out = reference(task)
    out.steps.append({"name": "chat_post_message", "arguments": {"channel": _channel(task),
                                                                 "text": "Handover done in the CRM."}})
    correct_passes(grade_of(task, out))
    facts = task.grader.facts
    assert facts is not None
    leaver = next(f.entity for f in facts.facts if f.attribute == "covered_by")
    kept = next(f for f in facts.facts if f.attribute == "owner" and f.value == leaver)
    other = next(str(w) for w in kept.wrong)
    out = reference(task)
    out.steps.append({"name": "chat_post_message", "arguments": {"channel": _channel(task), "text": (
        f"Handover done in the CRM: {facts.entities[kept.entity].name} went to {facts.entities[other].name} too.")}})
    hack_fails(grade_of(task, out))


def test_handoff_first_successor_fails(out_dir: Path) -> None:
    task = instance(out_dir, HANDOFF, CHANGED)
    world = task.start_world()
    root = next(s for s in task.solution.steps if s.name == "chat_get_thread").arguments["message_id"]
    text = world.db.execute("SELECT text FROM chat_message WHERE id = ?", (root,)).fetchone()[0]
    first = re.search(r"Friday\. (.+?) takes over", text)[1]
    email = world.db.execute("SELECT email FROM directory_person WHERE name = ?", (first,)).fetchone()[0]
    out = reference(task)
    for step in calls(out, "crm_update_deal"):
        step["arguments"]["owner"] = email
    hack_fails(grade_of(task, out))


def test_handoff_changed_half_done_fails(out_dir: Path) -> None:
    task = instance(out_dir, HANDOFF, CHANGED)
    out = reference(task)
    writes = calls(out, "crm_update_deal")
    out.steps = [s for s in out.steps if s not in writes[len(writes) // 2:]]
    hack_fails(grade_of(task, out))


def test_handoff_changed_by_person_id_passes(out_dir: Path) -> None:
    task = instance(out_dir, HANDOFF, CHANGED)
    world = task.start_world()
    out = reference(task)
    for step in calls(out, "crm_update_deal"):
        step["arguments"]["owner"] = world.person(step["arguments"]["owner"])["id"]
    correct_passes(grade_of(task, out))


def test_handoff_changed_with_a_thread_reply_passes(out_dir: Path) -> None:
    task = instance(out_dir, HANDOFF, CHANGED)
    root = next(s for s in task.solution.steps if s.name == "chat_get_thread").arguments["message_id"]
    out = reference(task)
    out.steps.append({"name": "chat_reply_message", "arguments": {"message_id": root,
                                                                  "text": "Done, all reassigned in the CRM."}})
    correct_passes(grade_of(task, out))


# ================================================================ lead_to_deal
LEAD = "lead_to_deal"
TWO_PRODUCTS, FORWARDED = 3, 4


def _created(trajectory: Trajectory) -> dict[str, Any]:
    return calls(trajectory, "crm_create_deal")[0]["arguments"]


def _quoted(task: Task) -> list[float]:
    """Every seats x price the request mails quote ('15 seats at ... $240.00 per seat')."""
    world = task.start_world()
    bodies = " ".join(r[0] for r in world.db.execute("SELECT body FROM mail_message WHERE subject LIKE '%Quote%'"))
    quotes = re.findall(r"(\d+) seats at [^$]*\$([\d,.]+\d)", bodies)
    return sorted({int(n) * float(p.replace(",", "")) for n, p in quotes})


def test_lead_structures_are_the_new_ones(out_dir: Path) -> None:
    assert "two-products" in instance(out_dir, LEAD, TWO_PRODUCTS).group
    assert "forwarded-partner-rate" in instance(out_dir, LEAD, FORWARDED).group


def test_lead_both_quotes_added_up_fails(out_dir: Path) -> None:
    task = instance(out_dir, LEAD, TWO_PRODUCTS)
    out = reference(task)
    _created(out)["amount"] = sum(_quoted(task))
    hack_fails(grade_of(task, out))


def test_lead_a_second_deal_for_the_other_product_fails(out_dir: Path) -> None:
    task = instance(out_dir, LEAD, TWO_PRODUCTS)
    out = reference(task)
    extra = {**_created(out), "name": _created(out)["name"].rsplit(" - ", 1)[0] + " - second quote",
             "amount": max(_quoted(task))}
    out.steps.append({"name": "crm_create_deal", "arguments": extra})
    hack_fails(grade_of(task, out))


def test_lead_two_products_with_a_next_step_passes(out_dir: Path) -> None:
    task = instance(out_dir, LEAD, TWO_PRODUCTS)
    out = reference(task)
    _created(out)["next_step"] = "Send the quote"
    correct_passes(grade_of(task, out))


def test_lead_two_products_with_the_call_logged_passes(out_dir: Path) -> None:
    task = instance(out_dir, LEAD, TWO_PRODUCTS)
    out = reference(task)
    account = _created(out)["account_id"]
    out.steps.append({"name": "crm_log_activity", "arguments": {"kind": "email", "subject": "Quote request received",
                                                                "account_id": account}})
    correct_passes(grade_of(task, out))


def test_lead_list_price_instead_of_partner_rate_fails(out_dir: Path) -> None:
    task = instance(out_dir, LEAD, FORWARDED)
    out = reference(task)
    [list_price] = _quoted(task)
    _created(out)["amount"] = list_price
    hack_fails(grade_of(task, out))


def test_lead_hedging_with_a_list_price_deal_fails(out_dir: Path) -> None:
    task = instance(out_dir, LEAD, FORWARDED)
    out = reference(task)
    [list_price] = _quoted(task)
    out.steps.append({"name": "crm_create_deal", "arguments": {**_created(out), "name": _created(out)["name"]
                                                               + " (list price)", "amount": list_price}})
    hack_fails(grade_of(task, out))


def test_lead_thanking_the_colleague_who_forwarded_passes(out_dir: Path) -> None:
    task = instance(out_dir, LEAD, FORWARDED)
    world = task.start_world()
    forwarder = world.db.execute("SELECT sender FROM mail_message WHERE subject LIKE 'Fwd:%Quote%'").fetchone()[0]
    out = reference(task)
    out.steps.append({"name": "mail_send_message", "arguments": {"to": [forwarder], "subject": "Re: quote request",
                                                                 "body": "Thanks, the deal is in the CRM."}})
    correct_passes(grade_of(task, out))


def test_lead_forwarded_with_me_as_explicit_owner_passes(out_dir: Path) -> None:
    task = instance(out_dir, LEAD, FORWARDED)
    out = reference(task)
    _created(out)["owner"] = task.start_world().user["email"]
    correct_passes(grade_of(task, out))


# ================================================================ channel_summary_post
SUMMARY = "channel_summary_post"
CANCELLED, DRAFT = 2, 3


def _post(trajectory: Trajectory) -> dict[str, Any]:
    return calls(trajectory, "chat_post_message")[-1]["arguments"]


def _wrong_summary_total(task: Task) -> float:
    fact = next(f for f in task.grader.facts.facts if f.entity == "summary" and f.attribute == "amount")
    return float(fact.wrong[-1])


def _with_total(text: str, value: float) -> str:
    return re.sub(r"^(.*?): \$[\d,]+", lambda m: f"{m[1]}: ${value:,.0f}", text, count=1)


def test_summary_structures_are_the_new_ones(out_dir: Path) -> None:
    assert "bookings-with-cancellations" in instance(out_dir, SUMMARY, CANCELLED).group
    assert "spend-beside-draft" in instance(out_dir, SUMMARY, DRAFT).group


def test_summary_cancelled_orders_counted_fails(out_dir: Path) -> None:
    task = instance(out_dir, SUMMARY, CANCELLED)
    out = reference(task)
    _post(out)["text"] = _with_total(_post(out)["text"], _wrong_summary_total(task))
    hack_fails(grade_of(task, out))


def test_summary_cancelled_order_as_the_biggest_fails(out_dir: Path) -> None:
    task = instance(out_dir, SUMMARY, CANCELLED)
    cancelled = fact_entities(task)["cancelled_1"].name
    out = reference(task)
    _post(out)["text"] = re.sub(r"Biggest: .*? at", f"Biggest: {cancelled} at", _post(out)["text"])
    hack_fails(grade_of(task, out))


def test_summary_naming_a_cancelled_order_as_left_out_passes(out_dir: Path) -> None:
    task = instance(out_dir, SUMMARY, CANCELLED)
    cancelled = fact_entities(task)["cancelled_1"].name
    out = reference(task)
    _post(out)["text"] += f" Not counted: {cancelled}, which was cancelled."
    correct_passes(grade_of(task, out))


def test_summary_cancellations_as_bullets_passes(out_dir: Path) -> None:
    task = instance(out_dir, SUMMARY, CANCELLED)
    out = reference(task)
    _post(out)["text"] = "\n".join(f"- {part.strip()}" for part in _post(out)["text"].split(". ") if part.strip())
    correct_passes(grade_of(task, out))


def test_summary_draft_figures_fail(out_dir: Path) -> None:
    task = instance(out_dir, SUMMARY, DRAFT)
    out = reference(task)
    _post(out)["text"] = _with_total(_post(out)["text"], _wrong_summary_total(task))
    hack_fails(grade_of(task, out))


def test_summary_draft_posted_in_another_channel_fails(out_dir: Path) -> None:
    task = instance(out_dir, SUMMARY, DRAFT)
    out = reference(task)
    _post(out)["channel"] = "general"
    hack_fails(grade_of(task, out))


def test_summary_saying_it_is_the_final_sheet_passes(out_dir: Path) -> None:
    task = instance(out_dir, SUMMARY, DRAFT)
    out = reference(task)
    _post(out)["text"] += " (From the final sheet, not last week's draft.)"
    correct_passes(grade_of(task, out))


def test_summary_draft_in_lower_case_passes(out_dir: Path) -> None:
    task = instance(out_dir, SUMMARY, DRAFT)
    out = reference(task)
    _post(out)["text"] = "quick summary: " + _post(out)["text"].lower()
    correct_passes(grade_of(task, out))


# ================================================================ thread_to_doc
THREAD = "thread_to_doc"
REVERSED, HANDED_ON = 3, 4


def _doc(trajectory: Trajectory) -> dict[str, Any]:
    return calls(trajectory, "drive_create_doc")[0]["arguments"]


def test_thread_structures_are_the_new_ones(out_dir: Path) -> None:
    assert "reversed-decision" in instance(out_dir, THREAD, REVERSED).group
    assert "owner-handed-on" in instance(out_dir, THREAD, HANDED_ON).group


def test_thread_reversed_decision_recorded_as_first_made_fails(out_dir: Path) -> None:
    task = instance(out_dir, THREAD, REVERSED)
    chosen, dropped = fact_entities(task)["chosen"].name, fact_entities(task)["dropped"].name
    out = reference(task)
    _doc(out)["content"] = _doc(out)["content"].replace(chosen, dropped)
    hack_fails(grade_of(task, out))


def test_thread_reversed_both_options_offered_fails(out_dir: Path) -> None:
    task = instance(out_dir, THREAD, REVERSED)
    chosen, dropped = fact_entities(task)["chosen"].name, fact_entities(task)["dropped"].name
    out = reference(task)
    _doc(out)["content"] = _doc(out)["content"].replace(chosen, f"{dropped} or {chosen}")
    hack_fails(grade_of(task, out))


def test_thread_reversal_noted_as_fallen_through_passes(out_dir: Path) -> None:
    task = instance(out_dir, THREAD, REVERSED)
    dropped = fact_entities(task)["dropped"].name
    out = reference(task)
    _doc(out)["content"] += f"\n(Rejected: {dropped}, who could not do it after all.)\n"
    correct_passes(grade_of(task, out))


def test_thread_reversed_as_a_table_passes(out_dir: Path) -> None:
    task = instance(out_dir, THREAD, REVERSED)
    out = reference(task)
    rows = re.findall(r"- (.+?): (.+)", _doc(out)["content"])
    _doc(out)["content"] = "| Decision | Outcome |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)
    correct_passes(grade_of(task, out))


def _owners(task: Task) -> tuple[str, str]:
    """(the owner, the attendee first named owner who handed it on)."""
    world = task.start_world()
    root = next(s for s in task.solution.steps if s.name == "chat_get_thread").arguments["message_id"]
    texts = [r[0] for r in world.db.execute("SELECT text FROM chat_message WHERE thread_id = ? ORDER BY rowid",
                                            (root,))]
    first = next(re.search(r"Decision: (.+) owns it", t)[1] for t in texts if "owns it from here" in t)
    owner = next(re.search(r"so (.+) will take it", t)[1] for t in texts if "will take it" in t)
    return owner, first


def test_thread_owner_who_handed_it_on_fails(out_dir: Path) -> None:
    task = instance(out_dir, THREAD, HANDED_ON)
    owner, first = _owners(task)
    out = reference(task)
    _doc(out)["content"] = _doc(out)["content"].replace(owner, first)
    hack_fails(grade_of(task, out))


def test_thread_both_owners_fail(out_dir: Path) -> None:
    task = instance(out_dir, THREAD, HANDED_ON)
    owner, first = _owners(task)
    out = reference(task)
    _doc(out)["content"] = _doc(out)["content"].replace(f"Owner: {owner}", f"Owners: {first} and {owner}")
    hack_fails(grade_of(task, out))


def test_thread_handed_on_owner_by_first_name_passes(out_dir: Path) -> None:
    task = instance(out_dir, THREAD, HANDED_ON)
    owner, _ = _owners(task)
    out = reference(task)
    _doc(out)["content"] = _doc(out)["content"].replace(owner, owner.split()[0])
    correct_passes(grade_of(task, out))


def test_thread_handed_on_as_prose_passes(out_dir: Path) -> None:
    task = instance(out_dir, THREAD, HANDED_ON)
    out = reference(task)
    rows = dict(re.findall(r"- (.+?): (.+)", _doc(out)["content"]))
    _doc(out)["content"] = (f"# Decisions\n\nWe chose {rows['Option']} with a budget cap of {rows['Budget cap']}. "
                            f"{rows['Owner']} owns it from here.\n")
    correct_passes(grade_of(task, out))


# ================================================================ dm_answer_question
DM = "dm_answer_question"
UPDATED = 4


def _caps(task: Task) -> tuple[str, str]:
    """(the cap in force, the one the update replaced), as '$NNN'."""
    world = task.start_world()
    found = world.call("drive_search_files", {"query": "travel policy update", "kind": "doc"})
    update = next(f for f in found["files"] if f["name"].startswith("Travel policy update:"))
    content = json.dumps(world.call("drive_get_doc", {"file_id": update["id"]}))
    old, new = re.search(r"from (\$\d+) to (\$\d+)", content).groups()
    return new, old


def test_dm_structure_is_the_new_one(out_dir: Path) -> None:
    task = instance(out_dir, DM, UPDATED)
    assert "policy-figure-updated" in task.group
    assert any(s.name == "drive_get_doc" for s in task.solution.steps[4:])


def test_dm_cap_before_the_update_fails(out_dir: Path) -> None:
    task = instance(out_dir, DM, UPDATED)
    new, old = _caps(task)
    out = reference(task)
    _post(out)["text"] = _post(out)["text"].replace(new, old)
    hack_fails(grade_of(task, out))


def test_dm_both_caps_hedged_fails(out_dir: Path) -> None:
    task = instance(out_dir, DM, UPDATED)
    new, old = _caps(task)
    out = reference(task)
    _post(out)["text"] = _post(out)["text"].replace(new, f"{old} or {new}, depending on the doc")
    hack_fails(grade_of(task, out))


def test_dm_bare_new_cap_passes(out_dir: Path) -> None:
    task = instance(out_dir, DM, UPDATED)
    new, _ = _caps(task)
    out = reference(task)
    _post(out)["text"] = f"{new} a night"
    correct_passes(grade_of(task, out))


def test_dm_new_cap_with_the_effective_date_passes(out_dir: Path) -> None:
    task = instance(out_dir, DM, UPDATED)
    new, _ = _caps(task)
    out = reference(task)
    _post(out)["text"] = f"It's {new} per night (per the policy update from last week)."
    correct_passes(grade_of(task, out))
