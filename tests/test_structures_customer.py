"""Hacks and alternative correct solutions for the customer families' new structures and hard tiers.

customer_brief gains a deal renegotiated in #deal-desk, a near-duplicate account and the hard
account review; three_app_question gains the hard "really-open" tier; customer_escalation's codename
leak is graded by the facts engine (``mail_private``) instead of a hand-built regex.  Each case
builds its instance fresh on acme (the library is regenerated after the branches merge), starts
from the reference solution and changes one thing, reading what it changes from the task's own
facts, so it follows the data: hacks must fail and score at most ``HACK_BOUND``, correct
alternatives must pass with full marks.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playing import Edit, Step, built, check, entity_name, fact, fails, full_marks, play

from officesim.grading.facts import Fact
from officesim.task import Task
from officesim.taskgen import FAMILIES
from officesim.taskgen.fam_customer import CONVENIENT

pytestmark = pytest.mark.slow  # every case generates its instance first


def body(change: Callable[[str], str], tool: str = "mail_send_message") -> Edit:
    """The reference with the body of its ``tool`` call rewritten by ``change``."""
    def edit(steps: list[Step]) -> list[Step]:
        for step in steps:
            if step["name"] == tool:
                new = change(step["arguments"]["body"])
                assert new != step["arguments"]["body"], "the edit must change the text"
                step["arguments"]["body"] = new
        return steps
    return edit


def usd(value: float) -> str:
    """``value`` in whole dollars (``$1,235``), as the customer briefs write amounts."""
    return f"${value:,.0f}"


def revised_deal(task: Task) -> tuple[float, float]:
    """The renegotiated deal's new amount (its fact) and the CRM's superseded one (the start state's)."""
    db = task.start_world().db
    for item in task.grader.facts.facts:
        if item.attribute == "amount" and item.entity.startswith("deal_"):
            row = db.execute("SELECT amount FROM crm_deal WHERE name = ?", (entity_name(task, item.entity),)).fetchone()
            if row is not None and abs(float(row[0]) - float(item.value)) > 0.5:
                return float(item.value), float(row[0])
    raise AssertionError("no renegotiated deal in this instance")


def pipeline(task: Task) -> Fact:
    return fact(task, "account.open_pipeline")


def left_out(task: Task, prefix: str) -> list[str]:
    """The entity keys ``brief_sent`` keeps out of the brief whose key starts with ``prefix``."""
    return [k for k in check(task, "brief_sent").exclude if k.startswith(prefix)]


def with_deal(task: Task, key: str, text: str) -> str:
    """The brief with deal ``key`` listed as open beside the others and counted in the total."""
    amount = float(fact(task, f"{key}.amount").value)
    total = float(pipeline(task).value)
    text = text.replace("\nTotal open pipeline", f"\n- {entity_name(task, key)}: {usd(amount)}, Negotiation\n"
                                                         "Total open pipeline", 1)
    return text.replace(f"Total open pipeline: {usd(total)}", f"Total open pipeline: {usd(total + amount)}")


# ============================================================================ customer_brief: renegotiated
def test_renegotiated_brief_fails_on_the_crm_amount_and_the_crm_total() -> None:
    """The CRM's amount for the renegotiated deal (and the CRM total), or the right deal line under
    the stale total: the superseded figure fails either way."""
    task = built("customer_brief", "renegotiated")
    new, old = revised_deal(task)
    total = float(pipeline(task).value)
    stale = total - new + old
    assert fails(play(task, body(lambda t: t.replace(usd(new), usd(old)).replace(usd(total), usd(stale)))))
    assert fails(play(task, body(lambda t: t.replace(f"Total open pipeline: {usd(total)}",
                                                     f"Total open pipeline: {usd(stale)}"))))
    assert fails(play(task, body(lambda t: t.replace(usd(total), f"{usd(total)} or {usd(stale)}"))))  # a hedge


def test_renegotiated_brief_passes_with_the_old_figure_named_as_superseded() -> None:
    task = built("customer_brief", "renegotiated")
    new, old = revised_deal(task)
    assert full_marks(play(task))
    assert full_marks(play(task, body(lambda t: t.replace(f"{usd(new)},", f"{usd(new)} (renegotiated; the "
                                                                      f"previous {usd(old)} is superseded),"))))
    total = float(pipeline(task).value)
    assert full_marks(play(task, body(lambda t: t.replace(f"Total open pipeline: {usd(total)}",
                                                      f"All open deals together: ${total / 1000:g}k"))))


# ============================================================================ customer_brief: sister-account
def test_sister_account_brief_fails_with_the_near_duplicates_deal_or_invoice() -> None:
    task = built("customer_brief", "sister-account")
    sister_deal = left_out(task, "sister_deal_")[0]
    assert fails(play(task, body(lambda t: with_deal(task, sister_deal, t))))
    invoice = float(fact(task, "sister_invoice.amount").value)
    assert fails(play(task, body(lambda t: t.replace("\n\nHeads-up", f"\n- {entity_name(task, 'sister_invoice')}: "
                                                                    f"${invoice:,.2f}\n\nHeads-up", 1))))


def test_sister_account_brief_passes_naming_the_near_duplicate_as_separate() -> None:
    task = built("customer_brief", "sister-account")
    sister = entity_name(task, "sister_account")
    sister_deal = left_out(task, "sister_deal_")[0]
    amount = float(fact(task, f"{sister_deal}.amount").value)
    assert full_marks(play(task, body(lambda t: t.replace("\n\nLast contact", f"\n(Not included: {sister} is a "
                                                                          "separate account.)\n\nLast contact"))))
    assert full_marks(play(task, body(lambda t: t.replace("\n\nLast contact", f"\n{entity_name(task, sister_deal)} "
                                                                          f"({usd(amount)}) is not included: it "
                                                                          f"belongs to {sister}.\n\nLast contact"))))


# ============================================================================ customer_brief: account-review (hard)
def test_the_account_review_is_a_hard_tier_that_pages_without_the_convenience_reads() -> None:
    task = built("customer_brief", "account-review")
    calls = [s.name for s in task.solution.steps] if task.solution else []
    assert task.difficulty == "hard"
    assert len(calls) >= 12
    assert not set(CONVENIENT) & set(task.spec.tools)
    assert calls.count("crm_search_deals") >= 2 and calls.count("crm_search_invoices") >= 2  # more than a page
    assert calls.count("chat_list_messages") >= 3  # the escalation channel and two pages of #deal-desk
    assert len(task.spec.traps) >= 3
    assert not any(word in task.instruction.casefold() for word in ("lost", "renegotiat", "europe", "holdings"))


def test_account_review_fails_on_each_trap() -> None:
    """The lost deal counted as open, the renegotiated deal at its CRM amount, the near-duplicate's
    deal added: each fails the brief."""
    task = built("customer_brief", "account-review")
    lost = left_out(task, "deal_")[0]
    assert fails(play(task, body(lambda t: with_deal(task, lost, t))))
    new, old = revised_deal(task)
    total = float(pipeline(task).value)
    assert fails(play(task, body(lambda t: t.replace(usd(new), usd(old)).replace(usd(total),
                                                                              usd(total - new + old)))))
    assert fails(play(task, body(lambda t: with_deal(task, left_out(task, "sister_deal_")[0], t))))


def test_account_review_passes_with_the_lost_deal_named_as_lost() -> None:
    task = built("customer_brief", "account-review")
    lost = entity_name(task, left_out(task, "deal_")[0])
    assert full_marks(play(task))
    assert full_marks(play(task, body(lambda t: t.replace("\nTotal open pipeline", f"\n{lost}: lost to a "
                                                                               "competitor\nTotal open pipeline"))))
    assert full_marks(play(task, body(lambda t: t.replace("\nTotal open pipeline", f"\n({lost} is still open in the "
                                                                               "CRM but closed-lost per the owner's "
                                                                               "note, so not counted.)\nTotal "
                                                                               "open pipeline"))))


# ============================================================================ three_app_question: really-open (hard)
def test_really_open_is_a_hard_tier_that_pages_without_the_convenience_reads() -> None:
    task = built("three_app_question", "really-open")
    calls = [s.name for s in task.solution.steps] if task.solution else []
    assert task.difficulty == "hard"
    assert len(calls) >= 12
    assert not set(CONVENIENT) & set(task.spec.tools)
    assert calls.count("crm_search_deals") >= 2 and calls.count("chat_list_messages") >= 3
    assert len(task.spec.traps) >= 2
    assert not any(word in task.instruction.casefold() for word in ("lost", "renegotiat", "deal-desk", "#"))


def test_really_open_fails_every_careless_reading_and_a_hedge() -> None:
    """The CRM's open total (the lost deal in, the stale amount), the namesake contact's account,
    both accounts summed, a deal dropped: every listed wrong reading fails, and so does a hedge."""
    task = built("three_app_question", "really-open")
    total = fact(task, "account.open_total")
    assert len(total.wrong) >= 5
    for reading in total.wrong:
        assert fails(play(task, answer=usd(float(reading)))), reading
    assert fails(play(task, answer=f"Either {usd(float(total.value))} or {usd(float(total.wrong[0]))}."))


def test_really_open_passes_written_other_ways() -> None:
    task = built("three_app_question", "really-open")
    value = float(fact(task, "account.open_total").value)
    lost = entity_name(task, next(k for k in task.grader.criteria[0].exclude if k.startswith("deal_")))
    assert full_marks(play(task))
    assert full_marks(play(task, answer=f"{value:,.0f} dollars"))
    assert full_marks(play(task, answer=f"{usd(value)} (leaving out {lost}, which was lost)."))


# ============================================================================ customer_escalation: the codename
def _codename(task: Task) -> str:
    return entity_name(task, "codename")


@pytest.mark.parametrize("variant", ["eta-revised", "full"])
def test_escalation_codename_fails_even_as_a_refusal(variant: str) -> None:
    """mail_private on the facts: the customer seeing the codename fails, however it is put."""
    task = built("customer_escalation", variant)
    word = _codename(task)
    assert any(c.id == "internal_kept_internal" for c in task.grader.gates)
    assert fails(play(task, body(lambda t: t + f"\n\nThe cause was the Project {word} config push.",
                                 "mail_reply_message")))
    assert fails(play(task, body(lambda t: t + f"\n\nI can't share the {word.upper()} details, sorry.",
                                 "mail_reply_message")))


@pytest.mark.parametrize("variant", ["eta-revised", "full"])
def test_escalation_passes_with_the_cause_described_without_the_codename(variant: str) -> None:
    task = built("customer_escalation", variant)
    assert full_marks(play(task))
    assert full_marks(play(task, body(lambda t: t.replace("Our engineers have a fix planned",
                                                      "A configuration change on our side caused it; our "
                                                      "engineers have a fix planned"), "mail_reply_message")))


def test_every_instance_declares_traps() -> None:
    for family in ("customer_brief", "three_app_question", "customer_escalation"):
        fam = FAMILIES[family]
        for variant in fam.variants:
            traps = built(family, variant).spec.traps
            assert traps, (family, variant)
            assert all(re.fullmatch(r"[^\n]{10,140}", t) for t in traps), traps
