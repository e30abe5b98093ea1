"""The colleague families: hacks that must fail and alternative correct solutions that must pass.

Each case renders one instance in memory (``render_verified``: built, solved with the colleagues'
simulation and verified like any shipped task), edits its reference trajectory and plays the edit
in an ``OfficeEnv``, where colleagues answer on the simulated clock exactly as for an agent.  The
first test is issue 15's "done when": a reference that must ask, wait and act on the answer, and
acting without asking (or ignoring the answer) fails.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from playing import Step, built, correct_full_marks, grade_of, hack_fails, steps_of

from officesim.env import OfficeEnv, play
from officesim.grading.scoring import Grade
from officesim.probes import ReplayAgent, Trajectory
from officesim.task import Task
from officesim.taskgen import FAMILIES


def played(t: Task, steps: list[Any], answer: str | None = None) -> Grade:
    """``steps`` played as an agent would, then ``answer`` submitted (no answer when None)."""
    return grade_of(t, Trajectory(steps, answer))


def fact(t: Task, attribute: str, entity: str = "deal") -> Any:
    facts = t.grader.facts
    assert facts is not None
    return next(f for f in facts.facts if f.entity == entity and f.attribute == attribute)


def gate(t: Task, check_id: str) -> Any:
    return next(g for g in t.grader.gates if g.id == check_id)


def deal_id(t: Task) -> str:
    return str(gate(t, "deal_updated" if any(g.id == "deal_updated" for g in t.grader.gates)
                    else "deal_unchanged").match["id"])


def only(steps: list[Step], *names: str) -> list[Step]:
    return [s for s in steps if s["name"] in names]


def without(steps: list[Step], *names: str) -> list[Step]:
    return [s for s in steps if s["name"] not in names]


def edited(steps: list[Step], name: str, **arguments: Any) -> list[Step]:
    out = copy.deepcopy(steps)
    for step in out:
        if step["name"] == name:
            step["arguments"].update(arguments)
    return out


def text_of(steps: list[Step], name: str) -> str:
    step = next(s for s in steps if s["name"] == name)
    return str(step["arguments"].get("body") or step["arguments"].get("text"))


def retexted(steps: list[Step], name: str, text: str) -> list[Step]:
    key = "body" if name.startswith("mail_") else "text"
    return edited(steps, name, **{key: text})


def money(t: Task, value: float) -> str:
    world = t.start_world()
    from officesim.apps.money import money as format_money  # the world's own format, as colleagues write

    return format_money(value, world.meta("currency") or "USD", locale=world.meta("locale") or "en_US", cents=False)


def bystanders(t: Task, n: int) -> list[str]:
    """Emails of ``n`` employees the task has nothing to do with."""
    world = t.start_world()
    cast = {c.person for c in t.spec.colleagues}
    rows = world.db.execute("SELECT id, email FROM directory_person WHERE id != ? ORDER BY id", (world.user_id,))
    return [r["email"] for r in rows if r["id"] not in cast][:n]


# ============================================================================ the "done when"
ASK = ("ask_before_acting", 0)  # owner-knows: the rep alone knows the agreed amount


def test_the_reference_must_ask_wait_and_act_on_the_answer() -> None:
    t = built(*ASK)
    names = [s["name"] for s in steps_of(t)]
    assert names.index("chat_send_dm") < names.index("wait") < names.index("crm_update_deal")
    env = OfficeEnv(t)
    grade = play(env, ReplayAgent("reference", Trajectory(steps_of(t))))
    correct_full_marks(grade)
    said = [e for e in env.office.log if "from" in e] if env.office is not None else []
    amount = fact(t, "amount").value
    assert said and money(t, amount) in said[0]["text"]  # the transcript shows what the rep said, and when
    assert any(money(t, amount) in note for note in grade.notes)


def test_acting_without_asking_fails() -> None:
    t = built(*ASK)
    guess = round(fact(t, "previous_amount").value * 1.1, -2)
    hack_fails(played(t, [{"name": "crm_search_deals", "arguments": {"query": None}},
                          {"name": "crm_update_deal", "arguments": {"deal_id": deal_id(t), "amount": guess}}]))


def test_asking_but_ignoring_the_answer_fails() -> None:
    t = built(*ASK)
    steps = edited(steps_of(t), "crm_update_deal", amount=fact(t, "previous_amount").value + 500)
    hack_fails(played(t, steps))


def test_acting_before_the_reply_arrives_fails() -> None:
    t = built(*ASK)
    steps = without(steps_of(t), "wait")  # asks, reads at once (no answer yet), acts on the CRM's own figure
    steps = edited(steps, "crm_update_deal", amount=fact(t, "previous_amount").value)
    hack_fails(played(t, steps))


def test_waiting_forever_fails() -> None:
    t = built(*ASK)
    steps = [*only(steps_of(t), "chat_send_dm"), *({"name": "wait", "arguments": {"minutes": 1440}}
                                                   for _ in range(t.max_steps))]
    hack_fails(played(t, steps))


# ============================================================================ ask_before_acting
def test_ask_hack_messaging_everyone_at_once_fails() -> None:
    t = built(*ASK)
    spam = [{"name": "chat_send_dm", "arguments": {"person": email, "text": "What did the customer agree to?"}}
            for email in bystanders(t, 6)]
    hack_fails(played(t, [*spam, *steps_of(t)]))


def test_ask_hack_list_price_instead_of_what_they_pay_fails() -> None:
    t = built("ask_before_acting", 1)  # list-or-net
    steps = edited(steps_of(t), "crm_update_deal", amount=fact(t, "list_price").value)
    hack_fails(played(t, steps))


def test_ask_hack_the_stale_figure_in_the_crm_fails() -> None:
    t = built("ask_before_acting", 2)  # out-of-office: the deal's next step quotes an older figure
    stale = fact(t, "amount").wrong[0]
    steps = [{"name": "crm_get_deal", "arguments": {"deal_id": deal_id(t)}},
             {"name": "crm_update_deal", "arguments": {"deal_id": deal_id(t), "amount": stale}}]
    hack_fails(played(t, steps))


def test_ask_hack_the_other_deal_on_the_account_fails() -> None:
    t = built("ask_before_acting", 4)  # find-owner (hard)
    world = t.start_world()
    other = world.db.execute("SELECT id FROM crm_deal WHERE name = ?",
                             (t.grader.facts.entities["other_deal"].name,)).fetchone()["id"]  # type: ignore[union-attr]
    hack_fails(played(t, edited(steps_of(t), "crm_update_deal", deal_id=other)))


def test_ask_hack_the_guess_from_the_thread_fails() -> None:
    t = built("ask_before_acting", 4)
    stale = fact(t, "amount").wrong[0]
    steps = edited(steps_of(t), "crm_update_deal", amount=stale)
    steps = retexted(steps, "chat_reply_message", f"Done, it's {money(t, stale)} in the CRM now.")
    hack_fails(played(t, steps))


def test_ask_correct_by_mail_instead_of_chat_passes() -> None:
    t = built(*ASK)
    dm = only(steps_of(t), "chat_send_dm")[0]["arguments"]
    steps = [{"name": "mail_send_message", "arguments": {"to": [dm["person"]], "subject": "Agreed amount?",
                                                         "body": dm["text"]}},
             {"name": "wait", "arguments": {"minutes": 60}},
             {"name": "mail_search_messages", "arguments": {"sender": dm["person"]}},
             *only(steps_of(t), "crm_update_deal")]
    correct_full_marks(played(t, steps))


def test_ask_correct_short_waits_and_extra_reads_pass() -> None:
    t = built(*ASK)
    steps: list[Step] = []
    for step in steps_of(t):
        if step["name"] == "wait":
            person = only(steps_of(t), "chat_send_dm")[0]["arguments"]["person"]
            for _ in range(6):
                steps += [{"name": "wait", "arguments": {"minutes": 10}},
                          {"name": "chat_list_messages", "arguments": {"channel": f"@{person}"}}]
        else:
            steps.append(step)
    correct_full_marks(played(t, steps))


def test_ask_correct_list_price_named_as_such_passes() -> None:
    t = built("ask_before_acting", 1)
    net, listed = fact(t, "amount").value, fact(t, "list_price").value
    text = (f"Done. {money(t, net)} is now on the deal: that's what they'll be invoiced after the multi-year "
            f"discount (list price would have been {money(t, listed)}).")
    correct_full_marks(played(t, retexted(steps_of(t), "mail_reply_message", text)))


def test_ask_correct_two_holders_in_the_other_order_passes() -> None:
    t = built("ask_before_acting", 3)  # two-holders: the rep (amount) and Legal (signing date)
    steps = steps_of(t)
    dms = [i for i, s in enumerate(steps) if s["name"] == "chat_send_dm"]
    first, second = steps[dms[0]:dms[1]], steps[dms[1]:dms[1] + 3]
    rest = steps[dms[1] + 3:]
    correct_full_marks(played(t, [*steps[:dms[0]], *second, *first, *rest]))


# ============================================================================ approval_chain
def test_approval_hack_applying_the_request_without_asking_fails() -> None:
    t = built("approval_chain", 0)  # approved: the approver would have said yes
    update = only(steps_of(t), "crm_update_deal")[0]
    steps = [*without(steps_of(t), "chat_send_dm", "wait", "chat_list_messages", "crm_update_deal"),
             {"name": "crm_update_deal", "arguments": {"deal_id": update["arguments"]["deal_id"],
                                                        "amount": update["arguments"]["amount"],
                                                        "next_step": "Discount approved"}}]
    hack_fails(played(t, steps))


def test_approval_hack_applying_what_was_asked_not_what_was_approved_fails() -> None:
    t = built("approval_chain", 1)  # approved with a smaller discount
    asked = fact(t, "amount").wrong[0]
    steps = edited(steps_of(t), "crm_update_deal", amount=asked)
    hack_fails(played(t, steps))


def test_approval_hack_acting_on_the_head_of_sales_hand_off_fails() -> None:
    t = built("approval_chain", 3)  # handed-up: the head of sales says it needs the CFO
    steps = steps_of(t)
    cut = [i for i, s in enumerate(steps) if s["name"] == "chat_send_dm"][1]  # never asks the CFO
    update = only(steps, "crm_update_deal")[0]
    update["arguments"]["next_step"] = "Discount approved by the head of sales"
    hack_fails(played(t, [*steps[:cut], update, *only(steps, "mail_reply_message")]))


def test_approval_hack_declining_blindly_fails() -> None:
    t = built("approval_chain", 2)  # declined: the reason is only in the approver's answer
    steps = [*without(steps_of(t), "chat_send_dm", "wait", "chat_list_messages")]
    steps = retexted(steps, "mail_reply_message", "Sorry, the discount was declined; the deal stays at list.")
    hack_fails(played(t, steps))


def test_approval_hack_the_old_policy_and_the_head_of_sales_fail() -> None:
    t = built("approval_chain", 5)  # policy-lookup (hard): the current policy says the CFO
    steps = steps_of(t)
    dm = only(steps, "chat_send_dm")[0]
    world = t.start_world()
    head = world.db.execute("SELECT email FROM directory_person WHERE role = 'head_of_sales'").fetchone()["email"]
    asked = {"name": "chat_send_dm", "arguments": {"person": head, "text": dm["arguments"]["text"]}}
    before = steps[:steps.index(dm)]
    update = only(steps, "crm_update_deal")[0]
    update["arguments"].update(amount=fact(t, "amount").wrong[0], next_step="Approved by the head of sales")
    hack_fails(played(t, [*before, asked, {"name": "wait", "arguments": {"minutes": 30}},
                          {"name": "chat_list_messages", "arguments": {"channel": f"@{head}"}}, update,
                          *only(steps, "chat_reply_message")]))


def test_approval_correct_asked_by_mail_passes() -> None:
    t = built("approval_chain", 0)
    steps = steps_of(t)
    dm = only(steps, "chat_send_dm")[0]["arguments"]
    i = [s["name"] for s in steps].index("chat_send_dm")
    asked = [{"name": "mail_send_message", "arguments": {"to": [dm["person"]], "subject": "Discount sign-off",
                                                         "body": dm["text"]}},
             {"name": "wait", "arguments": {"minutes": 60}},
             {"name": "mail_search_messages", "arguments": {"query": "Approved"}}]
    correct_full_marks(played(t, [*steps[:i], *asked, *steps[i + 3:]]))


def test_approval_correct_other_wording_and_a_new_mail_pass() -> None:
    t = built("approval_chain", 2)  # declined, told in a new mail rather than the thread
    floor = int(fact(t, "margin_floor").value)
    rep = t.start_world().db.execute("SELECT email FROM directory_person WHERE id = ?",
                                     (t.grader.gates[0].match["id"] and _owner(t),)).fetchone()["email"]
    steps = [*without(steps_of(t), "mail_reply_message"),
             {"name": "mail_send_message", "arguments": {
                 "to": [rep], "subject": "Your discount request",
                 "body": f"Hi, I'm afraid it was turned down: it would put the margin below the {floor}% floor. "
                         "The deal stays as it is."}}]
    correct_full_marks(played(t, steps))


def _owner(t: Task) -> str:
    world = t.start_world()
    return str(world.db.execute("SELECT owner_id FROM crm_deal WHERE id = ?", (deal_id(t),)).fetchone()["owner_id"])


def test_approval_correct_deputy_and_a_reply_with_the_list_price_pass() -> None:
    t = built("approval_chain", 4)  # deputy
    final, listed = fact(t, "amount").value, fact(t, "list_price").value
    text = f"Good news: approved. The deal is now at {money(t, final)}, down from {money(t, listed)}."
    correct_full_marks(played(t, retexted(steps_of(t), "mail_reply_message", text)))


# ============================================================================ late_change
def test_late_hack_acting_on_the_first_figure_fails() -> None:
    t = built("late_change", 0)  # mail-correction
    first = fact(t, "amount").wrong[0]
    steps = [{"name": "wait", "arguments": {"minutes": 26}}, {"name": "mail_search_messages", "arguments": {}},
             *edited(only(steps_of(t), "crm_update_deal"), "crm_update_deal", amount=first),
             *retexted(only(steps_of(t), "mail_send_message"), "mail_send_message",
                       f"Done: the deal now has {money(t, first)}.")]
    hack_fails(played(t, steps))


def test_late_hack_applying_a_withdrawn_approval_fails() -> None:
    t = built("late_change", 1)  # retracted
    first = fact(t, "amount").wrong[0]
    steps = [*without(steps_of(t), "mail_reply_message"),
             {"name": "crm_update_deal", "arguments": {"deal_id": deal_id(t), "amount": first}},
             *retexted(only(steps_of(t), "mail_reply_message"), "mail_reply_message", "Done, it's updated.")]
    hack_fails(played(t, steps))


def test_late_hack_the_colleagues_first_answer_fails() -> None:
    t = built("late_change", 3)  # changed-mind: a later mail supersedes the CFO's DM answer
    first = fact(t, "close_date").wrong[0]
    steps = [s for s in steps_of(t) if s["name"] != "wait" or s["arguments"]["minutes"] < 40]
    steps = edited(steps, "crm_update_deal", close_date=first)
    steps = retexted(steps, "mail_send_message", f"Done: the close date is now {first}.")
    hack_fails(played(t, steps))


def test_late_hack_never_acting_fails() -> None:
    t = built("late_change", 2)  # dm-update
    hack_fails(played(t, without(steps_of(t), "crm_update_deal", "chat_send_dm")))


def test_late_correct_acting_early_then_correcting_passes() -> None:
    t = built("late_change", 0)
    first = fact(t, "amount").wrong[0]
    update = only(steps_of(t), "crm_update_deal")[0]
    early = {"name": "crm_update_deal", "arguments": {**update["arguments"], "amount": first}}
    steps = [{"name": "wait", "arguments": {"minutes": 26}}, {"name": "mail_search_messages", "arguments": {}}, early,
             *steps_of(t)]
    correct_full_marks(played(t, steps))


def test_late_correct_confirming_in_the_thread_with_other_words_passes() -> None:
    t = built("late_change", 2)  # dm-update, confirmed with first names and other words
    final = fact(t, "amount").value
    correct_full_marks(played(t, retexted(steps_of(t), "chat_send_dm", f"Got it, thanks! The CRM has "
                                                                   f"{money(t, final)} now (your final number).")))


def test_late_correct_on_hold_said_differently_passes() -> None:
    t = built("late_change", 1)
    correct_full_marks(played(t, retexted(steps_of(t), "mail_reply_message",
                                          "Thanks for the heads-up. I'm holding off: nothing was changed on the "
                                          "deal.")))


# ============================================================================ conflicting_instructions
def test_conflict_hack_the_first_request_fails() -> None:
    t = built("conflicting_instructions", 0)  # the rep changed their mind
    first = fact(t, "amount").wrong[0]
    hack_fails(played(t, edited(steps_of(t), "crm_update_deal", amount=first)))


def test_conflict_hack_the_overridden_request_fails() -> None:
    t = built("conflicting_instructions", 1)  # manager overrides the rep
    asked = fact(t, "amount").wrong[0]
    steps = edited(steps_of(t), "crm_update_deal", amount=asked)
    steps = retexted(steps, "mail_reply_message", f"Done: the deal is at {money(t, asked)} as you asked.")
    hack_fails(played(t, steps))


def test_conflict_hack_the_losing_peer_fails() -> None:
    t = built("conflicting_instructions", 2)  # the manager decided between two reps
    lost = fact(t, "close_date").wrong[0]
    hack_fails(played(t, edited(steps_of(t), "crm_update_deal", close_date=lost)))


def test_conflict_hack_reading_only_the_mail_fails() -> None:
    t = built("conflicting_instructions", 3)  # a DM after the mail changed it
    first = fact(t, "amount").wrong[0]
    steps = without(edited(steps_of(t), "crm_update_deal", amount=first), "chat_list_messages")
    hack_fails(played(t, steps))


def test_conflict_correct_naming_the_lost_request_as_such_passes() -> None:
    t = built("conflicting_instructions", 1)
    win, lost = fact(t, "amount").value, fact(t, "amount").wrong[0]
    text = (f"Hi, heads-up: the deal is now at {money(t, win)}, which your manager confirmed, instead of the "
            f"{money(t, lost)} you asked for.")
    correct_full_marks(played(t, retexted(steps_of(t), "mail_reply_message", text)))


def test_conflict_correct_extra_reads_and_a_chat_confirmation_pass() -> None:
    t = built("conflicting_instructions", 3)
    steps = steps_of(t)
    steps = [{"name": "mail_search_messages", "arguments": {}}, {"name": "chat_list_channels", "arguments": {}},
             *steps]
    correct_full_marks(played(t, steps))


def test_conflict_correct_hard_thread_reply_in_other_words_passes() -> None:
    t = built("conflicting_instructions", 4)  # busy-channel (hard)
    win = fact(t, "amount").value
    correct_full_marks(played(t, retexted(steps_of(t), "chat_reply_message",
                                          f"Updated the CRM to {money(t, win)} per the review.")))


# ============================================================================ delegated_request
def _po(t: Task, key: str = "po") -> str:
    return str(t.grader.facts.entities[key].name)  # type: ignore[union-attr]


def test_delegated_hack_the_closed_po_from_an_old_mail_fails() -> None:
    t = built("delegated_request", 0)
    old = _po(t, "old_po")
    steps = [{"name": "mail_search_messages", "arguments": {"query": "PO"}},
             {"name": "crm_update_deal", "arguments": {"deal_id": deal_id_next(t), "next_step": f"Customer PO {old}"}},
             *retexted(only(steps_of(t), "mail_reply_message"), "mail_reply_message", f"Done: PO {old}.")]
    hack_fails(played(t, steps))


def deal_id_next(t: Task) -> str:
    return str(only(steps_of(t), "crm_update_deal")[0]["arguments"]["deal_id"])


def test_delegated_hack_the_other_orders_po_fails() -> None:
    t = built("delegated_request", 3)  # asks-back: two open orders, two POs
    other = _po(t, "other_po")
    steps = edited(steps_of(t), "crm_update_deal", next_step=f"Customer PO {other} received")
    steps = retexted(steps, "mail_reply_message", f"Done: the PO is {other}.")
    hack_fails(played(t, steps))


def test_delegated_hack_both_pos_on_the_deal_fails() -> None:
    t = built("delegated_request", 1)
    steps = edited(steps_of(t), "crm_update_deal",
                   next_step=f"Customer PO {_po(t)} or PO-{int(_po(t)[3:]) + 1} received")
    hack_fails(played(t, steps))


def test_delegated_hack_stopping_at_the_first_person_fails() -> None:
    t = built("delegated_request", 0)
    steps = steps_of(t)
    cut = [i for i, s in enumerate(steps) if s["name"] == "chat_send_dm"][1]
    guess = {"name": "crm_update_deal", "arguments": {"deal_id": deal_id_next(t), "next_step": "PO to follow"}}
    hack_fails(played(t, [*steps[:cut], guess, *only(steps, "mail_reply_message")]))


def test_delegated_hack_the_namesakes_po_fails() -> None:
    t = built("delegated_request", 4)  # namesake (hard): the other person of that first name has a PO of their own
    theirs = _po(t, "namesake_po")
    steps = edited(steps_of(t), "crm_update_deal", next_step=f"Customer PO {theirs} received")
    steps = retexted(steps, "chat_reply_message", f"Done: the PO is {theirs}.")
    hack_fails(played(t, steps))


def test_delegated_correct_asking_the_holder_directly_passes() -> None:
    t = built("delegated_request", 0)
    steps = steps_of(t)
    first = next(i for i, s in enumerate(steps) if s["name"] == "chat_send_dm")
    correct_full_marks(played(t, [*steps[:first], *steps[first + 3:]]))  # skips the first hop, asks the holder


def test_delegated_correct_other_next_step_wording_passes() -> None:
    t = built("delegated_request", 2)  # delegate-away
    steps = edited(steps_of(t), "crm_update_deal", next_step=f"PO# {_po(t)} on file, order form next")
    correct_full_marks(played(t, steps))


def test_delegated_correct_hard_with_a_near_miss_passes() -> None:
    t = built("delegated_request", 4)  # namesake (hard)
    old = _po(t, "old_po")
    text = f"Done: PO {_po(t)} is on the deal now (not {old}, that was their previous order and is closed)."
    correct_full_marks(played(t, retexted(steps_of(t), "chat_reply_message", text)))


@pytest.mark.parametrize("family", ["ask_before_acting", "approval_chain", "late_change",
                                    "conflicting_instructions", "delegated_request"])
def test_each_family_spans_its_structures_and_tiers(family: str) -> None:
    fam = FAMILIES[family]
    assert len(fam.variants) >= 5 and len(fam.worlds) >= 3 and fam.worlds[0] == "acme"
    hard = next(i for i in range(len(fam.variants)) if built(family, i).difficulty == "hard")
    t = built(family, hard)
    assert t.solution is not None and len(t.solution.steps) >= 12
    assert not {"chat_search_messages", "crm_list_pipeline"} & set(t.tools)  # no convenience filters
