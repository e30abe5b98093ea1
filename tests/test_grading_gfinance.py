"""Hand-written hacks and alternative correct solutions for the finance and customer families (issue 9).

Written without looking at the generated probes: for each family, cheap tricks an RL policy could
try (they must fail and score at most ``HACK_BOUND``) and other ways a careful worker could write
the right answer (they must pass).  The ones that found a defect when written are marked so in
their docstring.  Every case starts from the shipped task's reference solution and changes one
thing, and reads what it changes from the task's own facts, so it follows the task's data.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playing import (
    answered,
    check,
    correct_passes,
    entity_name,
    fact,
    hack_fails,
    reference_text,
    rewritten,
    shipped,
    usd,
)

from officesim.grading.facts import Fact

EA, RR, TR = "expense-audit-001", "renewal-risk-digest-001", "travel-expense-report-001"
BV, EP, HC = "budget-variance-answer-001", "expense-policy-answer-001", "headcount-answer-001"
CB, TA = "customer-brief-001", "three-app-question-001"
DOC = ("drive_create_doc",)


def with_line(line: str) -> Any:
    """The reference mail with ``line`` added before the sign-off."""
    return lambda t: t.replace("\n\nBest", f"\n{line}\n\nBest", 1)


# ============================================================================ expense_audit
def _overs() -> list[Fact]:
    return [fact(EA, k) for k in check(EA, "exceptions_sent").require]


def _compliant() -> list[str]:
    return [entity_name(EA, k) for k in check(EA, "exceptions_sent").exclude]


def test_audit_hack_every_claim_listed() -> None:
    """Listing every claim ID, the compliant ones as 'check this one too', is not the exceptions."""
    hack_fails(rewritten(EA, with_line("\n".join(f"- {c}: check this one too" for c in _compliant()))))


def test_audit_hack_a_compliant_claim_written_as_not_compliant() -> None:
    """Found a defect: 'not compliant' carried the usual exclusion marker 'not', so a compliant
    claim presented as an exception passed."""
    hack_fails(rewritten(EA, with_line(f"- {_compliant()[0]}: not compliant, hotel")))


def test_audit_hack_the_one_night_overrun() -> None:
    """The overrun against one night's (or one day's) cap, whatever the claim's length."""
    over = next(f for f in _overs() if f.wrong)
    hack_fails(rewritten(EA, lambda t: t.replace(usd(float(over.value)), usd(float(over.wrong[0])))))


def test_audit_hack_the_rule_hedged() -> None:
    """Found a defect: 'hotel or meals cap exceeded' named both cap rules and passed."""
    hack_fails(rewritten(EA, lambda t: re.sub(r"(hotel|meals) cap exceeded", "hotel or meals cap exceeded",
                                              t)))


def test_audit_ok_a_table() -> None:
    grader = shipped(EA).grader
    rows = []
    for key in check(EA, "exceptions_sent").name:
        rule = grader.facts.entities[str(fact(EA, f"{key}.rule").value)].name
        over = next((f for f in _overs() if f.entity == key), None)
        rows.append(f"| {entity_name(EA, key)} | {rule} | {'-' if over is None else f'${over.value:,.0f}'} |")
    body = "Hi,\n\n| Claim | Rule broken | Over by |\n|---|---|---|\n" + "\n".join(rows) + "\n\nThanks"
    correct_passes(rewritten(EA, lambda _: body))


def test_audit_ok_grouped_under_the_rule_they_break() -> None:
    """Found a defect: the exceptions grouped under headings naming the rule ("Missing receipts:")
    were read as naming no rule (0.0)."""
    grader = shipped(EA).grader
    groups: dict[str, list[str]] = {}
    for key in check(EA, "exceptions_sent").name:
        rule = grader.facts.entities[str(fact(EA, f"{key}.rule").value)].name
        over = next((f for f in _overs() if f.entity == key), None)
        groups.setdefault(rule, []).append(f"- {entity_name(EA, key)}"
                                           + ("" if over is None else f", by ${over.value:,.0f}"))
    body = "Hi,\n\n" + "\n\n".join(f"Broke the {rule}:\n" + "\n".join(lines) for rule, lines in groups.items())
    correct_passes(rewritten(EA, lambda _: body + "\n\nThanks"))


def test_audit_ok_the_compliant_claims_named_as_within_policy() -> None:
    correct_passes(rewritten(EA, with_line(f"Within policy: {', '.join(_compliant())}.")))


def test_audit_ok_amounts_in_words_of_currency() -> None:
    def respell(text: str) -> str:
        for f in _overs():
            text = text.replace(usd(float(f.value)), f"USD {f.value:g}")
        return text
    correct_passes(rewritten(EA, respell))


# ============================================================================ renewal_risk_digest
def _account(n: int) -> tuple[str, float, float]:
    key = f"account_{n}"
    return entity_name(RR, key), float(fact(RR, f"{key}.overdue").value), float(fact(RR, f"{key}.renewal_1").value)


def test_renewal_hack_overdue_and_renewal_traded_within_an_account() -> None:
    """Found a defect: an account's overdue total written as its renewal and back passed 1.0."""
    _, overdue, renewal = _account(1)
    hack_fails(rewritten(RR, lambda t: t.replace(f"overdue {usd(overdue)}, renewal ${renewal:,.0f}",
                                                      f"overdue ${renewal:,.0f}, renewal {usd(overdue)}")))


def test_renewal_hack_a_renewal_as_a_range() -> None:
    """Found a defect: the renewal as a range only cost its 1 point (0.67, above the hack bound)."""
    _, _, renewal = _account(1)
    hack_fails(rewritten(RR, lambda t: t.replace(f"renewal ${renewal:,.0f}",
                                                 f"renewal ${renewal * 0.97:,.0f}-${renewal:,.0f}")))


def test_renewal_hack_a_near_miss_listed() -> None:
    near = entity_name(RR, check(RR, "list_sent").exclude[0])
    hack_fails(rewritten(RR, with_line(f"- {near}: at risk too")))


def test_renewal_ok_a_compact_table_and_prose() -> None:
    rows = [_account(n) for n in range(1, len(check(RR, "list_sent").name) + 1)]
    table = "\n".join(f"| {a} | ${o / 1000:g}k | ${r / 1000:g}k |" for a, o, r in rows)
    correct_passes(rewritten(RR, lambda _: f"Hi,\n\n| Account | Overdue | Renewal |\n|---|---|---|\n{table}\n"))
    prose = " ".join(f"{a} has ${o:,.0f} overdue against a ${r:,.0f} renewal." for a, o, r in rows)
    correct_passes(rewritten(RR, lambda _: f"Hi,\n\n{prose}\n"))


def test_renewal_ok_verbs_for_labels_and_a_csv() -> None:
    """Found two defects: "renews for $154,000 and owes $5,250" read the renewal as labelled
    'owes' (the label across 'and' won a tie), and a CSV row's cells were read as a hedge."""
    rows = [_account(n) for n in range(1, len(check(RR, "list_sent").name) + 1)]
    prose = "\n".join(f"{a} renews for ${r:,.0f} and owes ${o:,.0f}." for a, o, r in rows)
    correct_passes(rewritten(RR, lambda _: f"Hi,\n\n{prose}\n"))
    csv = "\n".join(f"{a},{o:.0f},{r:.0f}" for a, o, r in rows)
    correct_passes(rewritten(RR, lambda _: f"Account,Overdue,Renewal\n{csv}\n"))
    swapped = "\n".join(f"{a} renews for ${o:,.0f} and owes ${r:,.0f}." for a, o, r in rows)
    hack_fails(rewritten(RR, lambda _: f"Hi,\n\n{swapped}\n"))


def test_renewal_ok_the_total_overdue_and_a_near_miss() -> None:
    rows = [_account(n) for n in range(1, len(check(RR, "list_sent").name) + 1)]
    near = entity_name(RR, check(RR, "list_sent").exclude[0])
    correct_passes(rewritten(RR, with_line(
        f"Total overdue across them: ${sum(o for _, o, _ in rows):,.2f}. Not on the list: {near}, outside the "
        "window.")))


# ============================================================================ travel_expense_report
def _q3(department: str) -> float:
    return float(fact(TR, f"{department}.q3").value)


def _departments() -> list[str]:
    return [k.split(".")[0] for k in check(TR, "department_breakdown").require]


def test_travel_hack_departments_traded_in_the_table() -> None:
    a, b = _departments()[:2]
    swapped = rewritten(TR, lambda t: t.replace(f"| {usd(_q3(a))}", "| #A").replace(f"| {usd(_q3(b))}", f"| "
                      f"{usd(_q3(a))}").replace("| #A", f"| {usd(_q3(b))}"), tools=DOC)
    hack_fails(swapped)


def test_travel_hack_the_signed_off_total_as_the_total() -> None:
    """The total without the unsigned expenses (a trap's reading) stated as the quarter's total."""
    total = fact(TR, "report.q3")
    hack_fails(rewritten(TR, lambda t: t.replace(usd(float(total.value)), usd(float(total.wrong[-1])), 1),
                         tools=DOC))


def test_travel_hack_a_report_without_the_q2_comparison_does_not_pass() -> None:
    """Found a defect: with the judge's 2 points, a report leaving out the Q2 comparison (2 code
    points) reached the threshold; the asked-for parts are now the core."""
    def without_q2(text: str) -> str:
        text = re.sub(r"\nBiggest change:.*\n", "\n", text).replace(" | Q2 |", " |")
        text = text.replace("|---|---|---|", "|---|---|")
        return re.sub(r"(\| [^|\n]+ \| [^|\n]+ \|) [^|\n]+ \|", r"\1", text)
    grade = rewritten(TR, without_q2, tools=DOC)
    assert next(g for g in grade.gates if g.id == "report_core").status == "fail", grade.summary()
    assert not grade.passed


def test_travel_ok_bullets_in_whole_dollars_and_a_percent_change() -> None:
    def bullets(text: str) -> str:
        text = re.sub(r"\| ([^|\n]+?) \| \$([\d,]+)\.\d\d \| \$([\d,]+)\.\d\d \|", r"- \1: $\2 in Q3 (Q2: $\3)", text)
        return text.replace("| Department | Q3 | Q2 |\n|---|---|---|\n", "")
    correct_passes(rewritten(TR, bullets, tools=DOC))


def test_travel_ok_the_chat_approval_explained() -> None:
    late = check(TR, "flags_unsigned").exclude[0]
    receipt = entity_name(TR, late)
    correct_passes(rewritten(TR, lambda t: re.sub(
        r"Not a gap:.*", f"{receipt} has no approver in the sheet, but its manager signed off in #travel-approvals.",
        t), tools=DOC))


def test_travel_ok_the_sales_total_wording() -> None:
    correct_passes(rewritten(TR, lambda t: t.replace("Biggest change: ", "Biggest change: the total of "),
                             tools=DOC))


# ============================================================================ budget_variance_answer
def test_budget_hack_two_departments() -> None:
    winner = entity_name(BV, check(BV, "answer").name[0])
    over = fact(BV, check(BV, "answer").require[0])
    hack_fails(answered(BV, f"{winner} or Finance, over by ${over.value:,.0f}."))


@pytest.mark.parametrize("form", ["{w} came in under budget by ${v:,.0f}.", "{w} underspent by ${v:,.0f}"])
def test_budget_hack_the_overrun_the_wrong_way_round(form: str) -> None:
    """Found a defect: 'Sales came in under budget by $26,300' passed ('under budget' only marked
    the sentence as excluded, and the figure was still read as the overrun)."""
    winner = entity_name(BV, check(BV, "answer").name[0])
    value = float(fact(BV, check(BV, "answer").require[0]).value)
    hack_fails(answered(BV, form.format(w=winner, v=value)))


@pytest.mark.parametrize("form", ["{w}: variance (${v:,.0f})", "{w}: over by ${v:,.0f}, while IT came in under budget",
                                  "{w}, ${k:g}k over budget",
                                  "{w}. It overspent by ${v:,.0f}; the other departments came in under budget.",
                                  "{w} overspent the most, by ${v:,.0f}."])
def test_budget_ok_other_wordings(form: str) -> None:
    winner = entity_name(BV, check(BV, "answer").name[0])
    value = float(fact(BV, check(BV, "answer").require[0]).value)
    correct_passes(answered(BV, form.format(w=winner, v=value, k=value / 1000)))


# ============================================================================ expense_policy_answer
def _policy() -> tuple[str, Fact]:
    amount = check(EP, "amount")
    return entity_name(EP, amount.subject), fact(EP, amount.require[0])


def test_policy_hack_a_range_and_every_city() -> None:
    city, cap = _policy()
    hack_fails(answered(EP, f"Between ${cap.wrong[0]:,.0f} and ${cap.value:,.0f}."))
    others = [entity_name(EP, k) for k in check(EP, "amount").candidates if k != check(EP, "amount").subject]
    listing = "; ".join(f"{c}: ${fact(EP, f'{k}.{cap.attribute}').value:,.0f}" for c, k in
                        zip(others, [k for k in check(EP, "amount").candidates if k != check(EP, "amount").subject],
                            strict=True))
    hack_fails(answered(EP, f"{city}: ${cap.value:,.0f}; {listing}"))


@pytest.mark.parametrize("form", ["{v:g} USD per night", "${v:,.0f}/night",
                                  "Up to ${v:,.0f} in {c}; last year's cap of ${w:,.0f} is superseded."])
def test_policy_ok_other_wordings(form: str) -> None:
    city, cap = _policy()
    correct_passes(answered(EP, form.format(v=cap.value, c=city, w=cap.wrong[0])))


# ============================================================================ headcount_answer
def test_headcount_hack_maybe() -> None:
    """Found a defect: '5, maybe 6' was not read as two readings."""
    count = int(fact(HC, "subject.count").value)
    hack_fails(answered(HC, f"about {count}, maybe {count + 1}"))


def test_headcount_ok_with_the_department_total_as_a_denominator() -> None:
    """Found a defect: the department's total given as "out of N" was read as the wrong count."""
    count = fact(HC, "subject.count")
    correct_passes(answered(HC, f"{int(count.value)} (out of {int(count.wrong[-1])} in the department)"))


@pytest.mark.parametrize("form", ["There are {n} of them.", "{n} people"])
def test_headcount_ok_other_wordings(form: str) -> None:
    correct_passes(answered(HC, form.format(n=int(fact(HC, "subject.count").value))))


# ============================================================================ customer_brief
def test_brief_hack_a_paid_invoice_listed_as_open() -> None:
    """Found a defect: the brief's invoices, last contact and escalation were 4 code points that
    the judge's 4 could make up for; a paid invoice listed as open reached the 0.5 threshold."""
    paid = check(CB, "open_invoices").exclude[0]
    grade = rewritten(CB, lambda t: t.replace("\n\nHeads-up", f"\n- {entity_name(CB, paid)}: "
                                            f"{usd(float(fact(CB, f'{paid}.amount').value))}\n\nHeads-up"))
    assert next(g for g in grade.gates if g.id == "brief_covers").status == "fail", grade.summary()
    hack_fails(grade)


def test_brief_hack_guessed_last_contact_dates() -> None:
    last = str(fact(CB, "account.last_contact").value)
    hack_fails(rewritten(CB, lambda t: t.replace(f"Last contact: {last}", f"Last contact: {last} or "
                                                 f"{fact(CB, 'account.last_contact').wrong[0]}")))


def test_brief_ok_us_date_compact_deals_and_an_explained_invoice_total() -> None:
    last = str(fact(CB, "account.last_contact").value)
    y, m, d = last.split("-")
    invoices = [k.split(".")[0] for k in check(CB, "open_invoices").require]
    amounts = [float(fact(CB, f"{k}.amount").value) for k in invoices]
    explained = (f"Open invoices: ${sum(amounts):,.0f} across {len(amounts)} open invoices: "
                 + ", ".join(f"{entity_name(CB, k)} (${a:,.0f})" for k, a in zip(invoices, amounts, strict=True))
                 + "\n")
    correct_passes(rewritten(CB, lambda t: t.replace(last, f"{m}/{d}/{y}").replace("Open invoices:\n",
                                                                                         explained)))


def test_brief_ok_a_paid_invoice_named_as_paid() -> None:
    paid = check(CB, "open_invoices").exclude[0]
    correct_passes(rewritten(CB, lambda t: t.replace("\n\nHeads-up", f"\n{entity_name(CB, paid)} is already paid."
                                                     "\n\nHeads-up")))


# ============================================================================ three_app_question
def test_three_app_hack_every_deal_and_the_total_with_the_dead_deal() -> None:
    total = fact(TA, "account.open_total")
    deals = [f.value for f in shipped(TA).grader.facts.facts if f.attribute == "amount"]
    hack_fails(answered(TA, ", ".join(f"${v:,.0f}" for v in deals)))
    hack_fails(answered(TA, f"${total.wrong[0]:,.0f}"))


@pytest.mark.parametrize("form", ["${k:g}k", "{v:,.0f} dollars", "${v:,.0f} in total across the open deals."])
def test_three_app_ok_other_wordings(form: str) -> None:
    value = float(fact(TA, "account.open_total").value)
    correct_passes(answered(TA, form.format(v=value, k=value / 1000)))


def test_the_reference_texts_these_cases_edit_have_their_shape() -> None:
    assert "cap exceeded by" in reference_text(EA, "mail_send_message")
    assert "| Department | Q3 | Q2 |" in reference_text(TR, "drive_create_doc")


def test_validate_warns_when_judged_points_could_make_up_for_a_code_checked_part() -> None:
    """tasks validate's judge_flips, the other way round: a code criterion failing, the judge for the
    rest.  The brief and the report hold their asked-for parts in gates, so they do not flip; without
    the brief's second gate, the judge's 4 points could make up for its invoices."""
    from officesim.grading.scoring import judge_flips

    for task_id in (CB, TR):
        assert judge_flips(shipped(task_id).grader, shipped(task_id).pass_threshold) is None
    grader = shipped(CB).grader.model_copy(update={"gates": [g for g in shipped(CB).grader.gates
                                                           if g.id != "brief_covers"]})
    flip = judge_flips(grader, shipped(CB).pass_threshold)
    assert flip is not None and "with open_invoices failing and the judge for the rest" in flip
