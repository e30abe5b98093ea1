"""Hacks and alternative correct solutions for the new structures of the audit and travel families
(expense_audit, renewal_risk_digest, travel_expense_report): each new structure, built fresh on
acme, must fail at least two hacks a policy could try without the work and pass at least two
other correct ways of doing it.

The instances are generated here rather than read from ``tasks/`` (the library is regenerated
after the branches merge); every case starts from the generated reference solution, changes one
thing, and reads what it changes (claim IDs, account names, the declared traps) from the task.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playing import Step, built, fails, full_marks, play, reference_text, steps_of

from officesim.grading.scoring import Grade
from officesim.task import Task
from officesim.taskgen import FAMILIES
from officesim.taskgen.writer import render_verified

pytestmark = pytest.mark.slow  # every case generates its instance first


def sent(task: Task, edit: Callable[[str], str] | None = None, *, steps: list[Step] | None = None) -> Grade:
    """The reference solution (or ``steps``) with ``edit`` applied to the body of the mail it sends."""
    def change(reference: list[Step]) -> list[Step]:
        plan = steps if steps is not None else reference
        for step in plan:
            if edit is not None and step["name"] == "mail_send_message":
                text = edit(step["arguments"]["body"])
                assert text != step["arguments"]["body"], "the edit changed nothing"
                step["arguments"]["body"] = text
        return plan
    return play(task, change)


def body(task: Task) -> str:
    """The body of the mail the reference sends."""
    return reference_text(task, "mail_send_message")


def line_of(task: Task, name: str) -> str:
    """The reference mail's line about ``name``."""
    return next(line for line in body(task).splitlines() if name in line)


def drop_line(name: str) -> Callable[[str], str]:
    return lambda text: "\n".join(line for line in text.splitlines() if name not in line)


def add_line(line: str) -> Callable[[str], str]:
    return lambda text: text.replace("\n\nBest", f"\n{line}\n\nBest", 1)


def trap_subject(task: Task, marker: str) -> str:
    """The claim ID or account a declared trap is about (the trap line holding ``marker``)."""
    line = next(t for t in task.spec.traps if marker in t)
    found = re.match(r"(EC-\d+)", line)
    if found:
        return found.group(1)
    names = [e.name for e in task.grader.facts.entities.values() if e.name in line]
    assert names, line
    return max(names, key=len)


def with_rule(task: Task, rule: str) -> str:
    """The claim whose exception is ``rule`` (duplicate, approval, leaver)."""
    facts = task.grader.facts
    key = next(f.entity for f in facts.facts if f.attribute == "rule" and f.value == f"rule_{rule}")
    return facts.entities[key].name


def tabled(line: str, header: str) -> Callable[[str], str]:
    """The reference's list lines (those ``line`` matches, three groups) as a Markdown table."""
    def edit(text: str) -> str:
        rows = [re.match(line, row) for row in text.splitlines()]
        table = f"| {header} |\n|---|---|---|\n" + "\n".join(
            f"| {m.group(1)} | {m.group(2)} | {m.group(3)} |" for m in rows if m)
        kept = [row for row, m in zip(text.splitlines(), rows, strict=True) if not m]
        return "\n".join(kept).replace("\n\nBest", f"\n{table}\n\nBest", 1)
    return edit


as_table = tabled(r"- (\S+) \(([^)]*)\): (.*)", "Claim | Employee | Issue")


# ------------------------------------------------------------------------------ expense_audit
def test_every_expense_structure_declares_traps_and_passes_its_reference() -> None:
    for variant in FAMILIES["expense_audit"].variants:
        task = built("expense_audit", variant)
        assert task.spec.traps, variant
        assert full_marks(sent(task)), variant


def test_duplicate_claim_missed_or_late_sheet_flagged_wholesale_fails() -> None:
    task = built("expense_audit", "duplicate-claims")
    copy = with_rule(task, "duplicate")
    assert fails(sent(task, drop_line(copy)))  # the late-submissions sheet never read
    late = next(step for step in task.spec.setup if "late submissions" in str(step))
    clean_late = [c for c in re.findall(r"EC-\d+", str(late)) if c != copy]
    assert clean_late, late
    assert fails(sent(task, add_line(f"- {clean_late[0]}: late submission, duplicate claim")))


def test_duplicate_claim_passes_as_a_table_and_in_other_words() -> None:
    task = built("expense_audit", "duplicate-claims")
    copy = with_rule(task, "duplicate")
    original = re.search(r"same expense as (EC-\d+)", line_of(task, copy)).group(1)
    assert full_marks(sent(task, as_table))
    assert full_marks(sent(task, lambda t: t.replace(
        line_of(task, copy), f"- {copy}: already claimed as {original} in the main sheet (claimed twice)")))


def test_own_report_approval_missed_or_blamed_on_another_claim_fails() -> None:
    task = built("expense_audit", "own-report-approval")
    victim = with_rule(task, "approval")
    assert fails(sent(task, drop_line(victim)))
    clean = next(e.name for k, e in task.grader.facts.entities.items()
                 if e.kind == "claim" and e.name not in body(task))
    assert fails(sent(task, lambda t: t.replace(victim, clean)))


def test_own_report_approval_passes_reworded_and_as_a_table() -> None:
    task = built("expense_audit", "own-report-approval")
    victim = with_rule(task, "approval")
    approver = re.search(r"approved by ([^,]+),", line_of(task, victim)).group(1)
    assert full_marks(sent(task, as_table))
    assert full_marks(sent(task, lambda t: t.replace(
        line_of(task, victim), f"- {victim}: the approver, {approver}, reports to the claimant "
                               "(a conflict of interest), so it is not validly approved")))


def test_signed_off_overrun_listed_or_a_real_exception_dropped_fails() -> None:
    task = built("expense_audit", "mail-exception")
    waived = trap_subject(task, "approved it in advance")
    assert fails(sent(task, add_line(f"- {waived}: over the cap, exception")))
    real = next(f.entity for f in task.grader.facts.facts if f.attribute == "over")
    assert fails(sent(task, drop_line(task.grader.facts.entities[real].name)))


def test_signed_off_overrun_named_as_approved_passes_either_way() -> None:
    task = built("expense_audit", "mail-exception")
    waived = trap_subject(task, "approved it in advance")
    assert full_marks(sent(task, add_line(f"{waived} is over its cap, but the CFO approved it in advance, so it is "
                                      "not an exception.")))
    assert full_marks(sent(task, add_line(f"Not listed: {waived} (pre-approved by the CFO).")))


def test_leaver_claim_missed_or_both_of_the_leavers_claims_flagged_fails() -> None:
    task = built("expense_audit", "leaver-claims")
    after = with_rule(task, "leaver")
    before = trap_subject(task, "before the last day")
    assert fails(sent(task, drop_line(after)))
    assert fails(sent(task, add_line(f"- {before}: claimed after leaving")))


def test_leaver_claim_passes_reworded_and_with_the_earlier_claim_cleared() -> None:
    task = built("expense_audit", "leaver-claims")
    after = with_rule(task, "leaver")
    before = trap_subject(task, "before the last day")
    assert full_marks(sent(task, add_line(f"{before} by the same person is dated before their last day and is fine.")))
    assert full_marks(sent(task, lambda t: t.replace(
        line_of(task, after), f"- {after}: dated after their last day (they have left the company)")))


# ------------------------------------------------------------------------------ renewal_risk_digest
renewal_table = tabled(r"- (.+): overdue (\S+), renewal (\S+)$", "Account | Overdue | Renewal")


TRAP_OF = {"churned-account": "churned", "signed-in-mail": "signed per", "one-region": "outside",
           "hard-book": "signed per"}


def figures_of(task: Task, name: str) -> str:
    """A near miss listed as at risk, with its own figures from the task's facts (traceable)."""
    amounts = task.grader.facts.figures
    return f"- {name}: overdue ${amounts[0]:,.2f}, renewal ${amounts[1]:,.0f}"


@pytest.mark.parametrize("variant", list(TRAP_OF))
def test_renewal_trap_account_listed_or_a_qualifier_dropped_fails(variant: str) -> None:
    task = built("renewal_risk_digest", variant)
    trap = trap_subject(task, TRAP_OF[variant])
    assert task.spec.traps and trap not in body(task)
    assert fails(sent(task, add_line(figures_of(task, trap))))
    first = task.grader.facts.entities["account_1"].name
    assert fails(sent(task, drop_line(f"- {first}:")))


@pytest.mark.parametrize("variant", list(TRAP_OF))
def test_renewal_passes_as_a_table_and_with_the_trap_named_as_left_out(variant: str) -> None:
    task = built("renewal_risk_digest", variant)
    trap = trap_subject(task, TRAP_OF[variant])
    assert full_marks(sent(task, renewal_table))
    assert full_marks(sent(task, add_line(f"Left out: {trap} does not qualify.")))


def test_the_hard_book_pages_without_the_invoice_search() -> None:
    task = built("renewal_risk_digest", "hard-book")
    assert task.difficulty == "hard" and len(task.spec.traps) >= 2
    assert "crm_search_invoices" not in task.spec.tools
    searches = [s for s in task.solution.steps if s.name == "crm_search_deals"]
    assert len(searches) >= 2 and "cursor" in searches[-1].arguments  # more than one page of renewals
    assert len(task.solution.steps) >= 12
    # one page of 100 instead of two of 20 is as correct
    steps = [s for s in steps_of(task) if not (s["name"] == "crm_search_deals" and "cursor" in s["arguments"])]
    for step in steps:
        if step["name"] == "crm_search_deals":
            step["arguments"]["limit"] = 100
    assert full_marks(sent(task, steps=steps))


# ------------------------------------------------------------------------------ travel_expense_report
def test_travel_report_has_six_phrasings_and_declares_its_traps() -> None:
    fam = FAMILIES["travel_expense_report"]
    texts = {render_verified(fam, i)[1].instruction for i in range(fam.count)}
    assert len(texts) >= 6
    task = built("travel_expense_report", fam.variants[0])
    assert len(task.spec.traps) >= 2
