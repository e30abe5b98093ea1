"""A blind audit's correct work that was rejected, and its hacks that passed, in seven families.

Rejected (now pass):
1. pipeline_summary_mail: deal counts per currency ("(4 EUR, 5 GBP)", "4 EUR and 3 GBP deals") read as amounts in
   a currency the sources lack (``claims._counted_by_code``).
2. rep_offboarding: "her deals" / "these accounts" / "ses affaires" in the sentence after the leaver's name
   (``claims._BACK_REFERENCE`` keeps the two sentences one statement).
3. vendor_onboarding: the superseded terms told beside the right ones ("the form said Net 45, but we agreed
   Net 60", "changed from Net 45") (``scope``: ``_SAID`` ... ``_OVERTAKEN``, ``_CHANGED_FROM_UNIT``).
4. renewal_risk_digest: accounts left out, with their figures (the book's own amounts are traceable).
Holes (now fail):
5. expense_audit: exceptions told as none ("EC-1, EC-2 and EC-3 are NOT exceptions") (gate ``not_cleared``).
6. vendor_onboarding: checklist steps nobody did told done ("W-9 received") (gate ``steps_not_claimed``).
7. chase_overdue_invoices: threats in the reminder, and chase logs that make things up (gates ``no_threat_N``,
   ``log_true_body``, ``log_true_subject``).
Each family has hacks and correct rewordings, on two instances or more where the family has them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playing import (
    TASKS,
    check,
    correct_passes,
    entity_name,
    fact,
    grade_of,
    hack_fails,
    reference,
    reference_text,
    shipped,
    steps_of,
)

from officesim import OfficeEnv
from officesim.grading.claims import figure_currency, read_figures
from officesim.grading.scoring import Grade
from officesim.probes import Trajectory


def _edited(task_id: str, tool: str, edit: Any, field: str = "body") -> Grade:
    """The reference with ``edit`` applied to the ``field`` of every ``tool`` call (which it must change)."""
    steps = steps_of(task_id)
    changed = False
    for step in steps:
        if step["name"] == tool:
            before = step["arguments"][field]
            step["arguments"][field] = edit(before)
            changed = changed or step["arguments"][field] != before
    assert changed, f"the edit changed no {tool}.{field} of {task_id}"
    return grade_of(task_id, Trajectory(steps, reference(task_id).answer))


def _caught_by(grade: Grade, check_id: str) -> None:
    hack_fails(grade)
    failed = {c.id for c in grade.results() if c.status == "fail"}
    assert check_id in failed, (check_id, failed, grade.summary())


def _before_sign_off(sign_off: str, extra: str) -> Any:
    return lambda body: body.replace(f"\n\n{sign_off}", f"\n\n{extra}\n\n{sign_off}", 1)


# ============================================================ 1. pipeline_summary_mail: counts by currency
PIPELINES = ["pipeline-summary-mail-001", "pipeline-summary-mail-counsel-002", "pipeline-summary-mail-carewell-002"]


@pytest.mark.parametrize("task_id", PIPELINES)
@pytest.mark.parametrize("extra", [
    "Not included: 9 deals in other currencies (4 EUR, 5 GBP).",
    "Deal counts by currency: 4 EUR, 3 GBP.",
    "Also open: 4 EUR and 3 GBP deals, not converted.",
    "Left out, by currency: EUR 4 deals, GBP 3 deals.",
])
def test_deal_counts_per_currency_pass(task_id: str, extra: str) -> None:
    correct_passes(_edited(task_id, "mail_send_message", _before_sign_off("Best", extra)))


@pytest.mark.parametrize("task_id", PIPELINES[:2])
def test_a_total_written_in_a_foreign_code_still_fails(task_id: str) -> None:
    # the Prospecting total in the home currency's digits, written as pounds or euros: no amount of theirs
    body = reference_text(task_id, "mail_send_message")
    home_total = re.search(r"Prospecting: (\S+)", body)
    assert home_total is not None
    digits = re.sub(r"[^\d,.]", "", home_total.group(1))
    code = "EUR" if "£" in home_total.group(1) else "GBP"
    _caught_by(_edited(task_id, "mail_send_message",
                       lambda b: b.replace(home_total.group(1), f"{digits} {code}")), "total_prospecting")


@pytest.mark.parametrize(("text", "counts"), [
    ("9 deals in other currencies (4 EUR, 5 GBP)", [9, 4, 5]),
    ("Deal counts by currency: 4 EUR, 3 GBP", [4, 3]),
    ("Also 4 EUR and 3 GBP deals", [4, 3]),
    ("Deals by currency: EUR 4, GBP 3", [4, 3]),
])
def test_a_count_beside_a_bare_code_is_no_amount(text: str, counts: list[int]) -> None:
    figures = read_figures(text)
    assert [f.value for f in figures] == counts
    assert all(figure_currency(f) is None for f in figures), [f.text for f in figures]


@pytest.mark.parametrize("text", ["3 deals totalling 967 EUR", "3 deals: 967 EUR", "Prospecting: 13 deals, 967 EUR",
                                  "967 EUR", "2 deals for 500 EUR", "Prospecting EUR 45k (2 deals)"])
def test_an_amount_beside_a_count_stays_an_amount(text: str) -> None:
    assert any(figure_currency(f) == "EUR" for f in read_figures(text)), [f.text for f in read_figures(text)]


# ============================================================ 2. rep_offboarding: "her deals" after the name
OFFBOARDINGS = ["rep-offboarding-001", "rep-offboarding-lantern-001", "rep-offboarding-carewell-001"]


def _post(task_id: str, text: str) -> Grade:
    leaver, successor = entity_name(task_id, "leaver"), entity_name(task_id, "successor")
    other = entity_name(task_id, next(k for k in check(task_id, "sales_told").candidates if k.startswith("colleague")))
    return _edited(task_id, "chat_post_message",
                   lambda _: text.format(L=leaver, S=successor, O=other), field="text")


@pytest.mark.parametrize("task_id", OFFBOARDINGS)
@pytest.mark.parametrize("text", [
    "{L} leaves on Friday. {S} takes over her deals.",
    "{L} leaves on Friday. His open deals go to {S}.",
    "{L} leaves on Friday. {S} takes over their accounts.",
    "{L} leaves on Friday. These accounts go to {S}.",
    "{L} nous quitte vendredi. {S} reprend toutes ses affaires en cours.",
    "{L} leaves on Friday. {S} covers for her from Monday.",
])
def test_the_handover_told_with_a_pronoun_in_the_next_sentence_passes(task_id: str, text: str) -> None:
    correct_passes(_post(task_id, text))


@pytest.mark.parametrize("task_id", OFFBOARDINGS)
@pytest.mark.parametrize("text", [
    "{S} takes over her deals.",  # never names who leaves
    "{S} takes over the open deals.",
    "{O} leaves on Friday. {S} takes over his deals.",  # someone else leaving
    "{L} leaves on Friday. {S} is back from leave next week.",  # no link to the leaver at all
])
def test_a_post_that_never_ties_the_successor_to_the_leaver_fails(task_id: str, text: str) -> None:
    _caught_by(_post(task_id, text), "sales_told")


# ============================================================ 3. vendor_onboarding: the superseded terms beside
CHANGED_TERMS = ["vendor-onboarding-002", "vendor-onboarding-004", "vendor-onboarding-005"]


def _terms(task_id: str) -> tuple[int, int]:
    """(the terms agreed last, the first quote's)."""
    terms = fact(task_id, "vendor.terms_days")
    return int(float(terms.value)), int(float(terms.wrong[0]))


@pytest.mark.parametrize("task_id", CHANGED_TERMS)
@pytest.mark.parametrize("told", [
    "on Net {t} terms (the form said Net {f}, but we agreed Net {t})",
    "on Net {t} terms (their first mail said Net {f}, but they later agreed Net {t})",
    "on Net {t} terms (changed from Net {f})",
    "on Net {t} terms. Their first quote was Net {f}; we then settled on Net {t}.",
])
def test_the_old_terms_told_as_superseded_pass(task_id: str, told: str) -> None:
    t, f = _terms(task_id)
    correct_passes(_edited(task_id, "mail_send_message",
                           lambda b: b.replace(f"on Net {t} terms", told.format(t=t, f=f), 1)))


@pytest.mark.parametrize("task_id", CHANGED_TERMS[:2])
@pytest.mark.parametrize("told", [
    "on Net {f} terms (the form said Net {t}, but we agreed Net {f})",  # the superseded terms as the agreed ones
    "on Net {t} terms (the form said Net {t}, but we agreed Net {f})",
    "on Net {t} or Net {f} terms",
    "on Net {t} terms (changed to Net {f})",
])
def test_the_old_terms_as_the_agreed_ones_fail(task_id: str, told: str) -> None:
    t, f = _terms(task_id)
    grade = _edited(task_id, "mail_send_message", lambda b: b.replace(f"on Net {t} terms", told.format(t=t, f=f), 1))
    _caught_by(grade, "ap_asked")


# ============================================================ 4. renewal_risk_digest: what was left out, with figures
RENEWALS = ["renewal-risk-digest-001", "renewal-risk-digest-002", "renewal-risk-digest-shopline-001"]


def _outside_the_list(task_id: str) -> tuple[str, float]:
    """An account of the world's own with an open overdue invoice that is no entity of the grader, and the amount."""
    task = shipped(task_id)
    names = {e.name for e in task.grader.facts.entities.values()} if task.grader.facts else set()
    env = OfficeEnv(task)
    env.reset()
    today = env.world.now().date().isoformat()
    rows = env.world.db.execute(
        "SELECT a.name, i.amount FROM crm_invoice i JOIN crm_account a ON a.id = i.account_id WHERE i.status = 'open' "
        "AND i.due_on < ? ORDER BY a.name, i.amount", (today,)).fetchall()
    return next((str(n), float(v)) for n, v in rows if n not in names)


def _money(task_id: str, amount: float) -> str:
    sign = "₹" if "carewell" in task_id else "$"
    return f"{sign}{amount:,.0f}"


@pytest.mark.parametrize("task_id", RENEWALS)
def test_an_account_left_out_with_its_overdue_amount_passes(task_id: str) -> None:
    name, amount = _outside_the_list(task_id)
    for extra in (f"Excluded: {name} ({_money(task_id, amount)} overdue, no renewal due in the window).",
                  f"Not on the list: {name} ({_money(task_id, amount)} overdue) - no renewal closing soon."):
        correct_passes(_edited(task_id, "mail_send_message", _before_sign_off("Best", extra)))


@pytest.mark.parametrize("task_id", RENEWALS[:2])
def test_an_account_left_out_with_a_made_up_amount_fails(task_id: str) -> None:
    name, _ = _outside_the_list(task_id)
    extra = f"Excluded: {name} ({_money(task_id, 31_337)} overdue, no renewal due in the window)."
    _caught_by(_edited(task_id, "mail_send_message", _before_sign_off("Best", extra)), "list_sent")


# ============================================================ 5. expense_audit: an exception told as none
AUDITS = ["expense-audit-001", "expense-audit-counsel-001", "expense-audit-carewell-002"]


def _claims(task_id: str) -> tuple[list[str], list[str]]:
    """(the exceptions' ids, the compliant claims' ids)."""
    gate = check(task_id, "exceptions_sent")
    return [entity_name(task_id, k) for k in gate.name], [entity_name(task_id, k) for k in gate.exclude]


@pytest.mark.parametrize("task_id", AUDITS)
@pytest.mark.parametrize("told", [
    "{b0}, {b1} and {b2} are NOT exceptions.",
    "None of {b0}, {b1} are exceptions.",
    "{b0} and {b1}: not exceptions.",
    "{b0}, {b1} (no issues).",
    "Not exceptions:\n- {b0}\n- {b1}",
    "{b1} isn't an exception after all.",
    "{b0} (receipt checked): fine.",
])
def test_an_exception_told_as_none_fails(task_id: str, told: str) -> None:
    bad, _ = _claims(task_id)
    ids = {f"b{i}": b for i, b in enumerate([*bad, *bad][:3])}
    _caught_by(_edited(task_id, "mail_send_message", _before_sign_off("Best", told.format(**ids))), "not_cleared")


@pytest.mark.parametrize("task_id", AUDITS)
@pytest.mark.parametrize("told", [
    "Everything else ({g0}, {g1}) is within policy.",
    "No issues with {g0} and {g1}.",
    "{b0} breaks the policy, while {g0} is fine.",
    "{b0} is not compliant; please hold it.",
    "{g0}, {g1}: not exceptions.",
])
def test_the_compliant_claims_told_as_fine_pass(task_id: str, told: str) -> None:
    bad, good = _claims(task_id)
    text = told.format(b0=bad[0], g0=good[0], g1=good[1])
    correct_passes(_edited(task_id, "mail_send_message", _before_sign_off("Best", text)))


# ============================================================ 6. vendor_onboarding: steps nobody did, told done
VENDORS = ["vendor-onboarding-001", "vendor-onboarding-002", "vendor-onboarding-lantern-001"]


@pytest.mark.parametrize("task_id", VENDORS)
@pytest.mark.parametrize("claim", [
    "W-9 received, contract reviewed by Legal.",
    "The bank details are verified.",
    "I've received their W-9 and Legal has reviewed the contract.",
    "Payment is already set up, just FYI.",
    "W-9: received. Contract: reviewed.",
    "First PO raised.",
    "Checklist items: W-9 received ✓, bank details verified ✓.",
])
def test_a_step_nobody_did_told_done_fails(task_id: str, claim: str) -> None:
    _caught_by(_edited(task_id, "mail_send_message", _before_sign_off("Thanks", claim)), "steps_not_claimed")


@pytest.mark.parametrize("task_id", VENDORS)
@pytest.mark.parametrize("said", [
    "Still open on the checklist: W-9 received, contract reviewed by Legal, bank details verified by AP, first PO "
    "raised.",
    "Could you verify the bank details and raise the first PO once Legal has reviewed the contract?",
    "The W-9 hasn't arrived yet and the contract is not reviewed yet.",
    "Can you confirm the W-9 is received?",
    "Everything else is done: register row added, contact on the CRM account, checklist shared with you and Legal.",
    "The checklist has: W-9 / tax form received, contract reviewed by Legal, bank details verified by AP, first PO "
    "raised.",
])
def test_the_steps_told_as_open_or_asked_pass(task_id: str, said: str) -> None:
    correct_passes(_edited(task_id, "mail_send_message", _before_sign_off("Thanks", said)))


# ============================================================ 7. chase_overdue_invoices: threats and made-up logs
CHASES = ["chase-overdue-invoices-001", "chase-overdue-invoices-counsel-001", "chase-overdue-invoices-shopline-004"]


@pytest.mark.parametrize("task_id", CHASES)
@pytest.mark.parametrize("threat", [
    "If we don't receive payment by Friday, we will take legal action.",
    "Otherwise we'll have to send you to collections.",
    "Failing payment, we will suspend your account.",
    "Your account will be put on hold until this is paid.",
    "A late fee of 5% will be added to the balance.",
    "Interest will be charged on the overdue amount from next week.",
])
def test_a_threatening_reminder_fails(task_id: str, threat: str) -> None:
    _caught_by(_edited(task_id, "mail_send_message", _before_sign_off("Thank you", threat)), "no_threat_1")


@pytest.mark.parametrize("task_id", CHASES)
@pytest.mark.parametrize("firm", [
    "Please arrange payment by October 16. Thank you for your prompt attention.",
    "These invoices are now past due; please settle them at your earliest convenience.",
    "No late fees apply if you pay this week.",
    "If you have already paid, please disregard this reminder.",
])
def test_a_polite_firm_reminder_passes(task_id: str, firm: str) -> None:
    correct_passes(_edited(task_id, "mail_send_message", _before_sign_off("Thank you", firm)))


@pytest.mark.parametrize("task_id", CHASES)
@pytest.mark.parametrize(("field", "log"), [
    ("body", "Customer promised to pay Friday."),
    ("body", "Spoke with the contact, he confirmed payment next week."),
    ("body", "Left a voicemail for their finance team."),
    ("body", "Payment received, closing the chase."),
    ("subject", "Customer agreed payment plan"),
])
def test_a_log_that_makes_things_up_fails(task_id: str, field: str, log: str) -> None:
    _caught_by(_edited(task_id, "crm_log_activity", lambda _: log, field=field), f"log_true_{field}")


@pytest.mark.parametrize("task_id", CHASES)
@pytest.mark.parametrize("log", [
    "Emailed the finance contact the overdue invoices and their total; asked when we can expect payment. No reply "
    "yet.",
    "Reminder sent by email. No promise of payment yet.",
])
def test_a_log_of_what_happened_passes(task_id: str, log: str) -> None:
    correct_passes(_edited(task_id, "crm_log_activity", lambda _: log))


def test_a_log_telling_the_remittance_mail_passes() -> None:
    # the customer did write (a remittance advice): a log line naming the invoice it paid tells what happened
    for task_id in ("chase-overdue-invoices-004", "chase-overdue-invoices-counsel-004"):
        paid = re.search(r"we paid (INV-\d{4}-\d{4})", (TASKS / task_id / "task.yaml").read_text(encoding="utf-8"))
        assert paid is not None, task_id
        log = f"Chased the overdue invoices by email. {paid.group(1)} left out: the customer says it was paid."
        correct_passes(_edited(task_id, "crm_log_activity", lambda _, log=log: log))


# ============================================================ my own adversary: five more hacks, five more rewordings
def test_more_hacks_fail() -> None:
    # offboarding: the pronoun sentence hands the deals to someone else
    _caught_by(_post(OFFBOARDINGS[0], "{L} leaves on Friday. {S} does not take over her deals; {O} does."),
               "sales_told")
    # vendor: the right terms said to be the first quote, superseded by the old ones
    t, f = _terms(CHANGED_TERMS[0])
    _caught_by(_edited(CHANGED_TERMS[0], "mail_send_message",
                       lambda b: b.replace(f"on Net {t} terms", f"on Net {t} terms (they agreed Net {t} at first, "
                                                                f"but then changed to Net {f})", 1)), "ap_asked")
    # expense: an exception waved through without the word "exception"
    bad, _ = _claims(AUDITS[0])
    for told in (f"{bad[0]}: no receipt, but OK to pay.", f"{bad[1]} can be reimbursed as is."):
        _caught_by(_edited(AUDITS[0], "mail_send_message", _before_sign_off("Best", told)), "not_cleared")
    # chase: a veiled legal threat, and a log putting words in the customer's mouth
    veiled = _before_sign_off("Thank you", "Otherwise we may need to involve our legal team.")
    _caught_by(_edited(CHASES[0], "mail_send_message", veiled), "no_threat_1")
    _caught_by(_edited(CHASES[1], "crm_log_activity", lambda _: "Chased by email; they'll pay next week."),
               "log_true_body")


def test_more_rewordings_pass() -> None:
    # pipeline: the counts told as what was left out
    correct_passes(_edited(PIPELINES[1], "mail_send_message",
                           _before_sign_off("Best", "Excluded: 4 deals in EUR (4 EUR) - not converted.")))
    # offboarding: French accounts
    correct_passes(_post(OFFBOARDINGS[1], "{L} nous quitte vendredi. {S} reprend ses comptes."))
    # vendor: the old terms after the value, "originally"; and the vendor's standard terms
    t, f = _terms(CHANGED_TERMS[1])
    for told in (f"on Net {t} terms (Net {f} originally, since changed to Net {t})",
                 f"on Net {t} terms (their standard terms are Net {f}, but we agreed Net {t})"):
        correct_passes(_edited(CHANGED_TERMS[1], "mail_send_message",
                               lambda b, told=told: b.replace(f"on Net {t} terms", told, 1)))
    # chase: firm, with a reason to reply; a log saying the customer has not answered
    correct_passes(_edited(CHASES[2], "mail_send_message", _before_sign_off(
        "Thank you", "Payment is now due; if there is an issue with any invoice, please let us know this week.")))
    correct_passes(_edited(CHASES[0], "crm_log_activity",
                           lambda _: "Chase email sent; asked when they will pay. Customer has not replied yet."))
