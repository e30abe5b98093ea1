"""The finance and customer families on worlds other than acme (issue 10): hacks and correct work.

customer_brief and three_app_question ran only on US worlds; expense_audit on forge rejected most
draws.  These cases play sampled instances on a GBP, an INR and a EUR world: cheap tricks must fail
(score at most ``HACK_BOUND``), other ways a careful worker there writes the right answer must
pass.  Each case starts from the instance's reference solution and changes one thing, reading what
it changes from the instance's own facts.
"""

from __future__ import annotations

import functools
import re
import warnings

import pytest
from playing import answered, correct_passes, grade_of, hack_fails, reference, rewritten

from officesim.sampler import TaskSampler
from officesim.task import Task


@functools.cache
def drawn(family: str, world: str, group: str) -> Task:
    """The first sampled instance of ``family`` on ``world`` in ``group`` (seeds 0, 1, ...: deterministic)."""
    sampler = TaskSampler([family], [world], strict=True)
    for seed in range(30):
        one = sampler.sample(seed)
        if one.group.endswith(f"/{group}"):
            return one.task
    raise AssertionError(f"no {group} instance of {family} on {world} in 30 seeds")


def value(t: Task, entity: str, attribute: str) -> float | str:
    return t.grader.facts.fact(f"{entity}.{attribute}").value


# ============================================================================ customer_brief on counsel (GBP)
@pytest.fixture(scope="module")
def brief() -> Task:
    return drawn("customer_brief", "counsel", "renewal-call")


def test_a_brief_on_a_uk_world_is_in_pounds_with_the_firms_own_work(brief: Task) -> None:
    world = brief.start_world()
    account = brief.grader.facts.entities["account"].name
    deals = world.db.execute("SELECT d.name, d.currency FROM crm_deal d JOIN crm_account a ON a.id = d.account_id "
                             "WHERE a.name = ?", (account,)).fetchall()
    assert deals and {d["currency"] for d in deals} == {"GBP"}
    mail = reference(brief).texts()[0]
    assert "£" in mail and "$" not in mail
    # a law firm sells legal work, not software seats; its customers raise what any client would
    products = {d["name"].split(" - ", 1)[1] for d in deals}
    assert not products & {"Seat expansion", "Premium Support", "Forecasting module"}
    assert brief.grader.facts.entities["escalation"].name not in ("SSO", "API rate limits", "data export")


def test_brief_hack_a_paid_invoice_listed_as_open(brief: Task) -> None:
    paid = [k for k in brief.grader.facts.entities if k.startswith("invoice_")
            and brief.grader.facts.entities[k].name not in reference(brief).texts()[0]]
    assert paid, "the instance has no paid invoice to list"
    name = brief.grader.facts.entities[paid[0]].name
    amount = float(value(brief, paid[0], "amount"))
    hack_fails(rewritten(brief, lambda t: t.replace("\n\nHeads-up", f"\n- {name}: £{amount:,.2f}, open\n\nHeads-up")))


def test_brief_hack_every_deal_counted_in_the_pipeline(brief: Task) -> None:
    """The total of all the account's deals, closed ones too, is a wrong reading of the open pipeline."""
    right = float(value(brief, "account", "open_pipeline"))
    everything = brief.grader.facts.fact("account.open_pipeline").wrong[0]
    hack_fails(rewritten(brief, lambda t: t.replace(f"£{right:,.0f}", f"£{everything:,.0f}")))


def test_brief_ok_dates_day_first_and_amounts_in_gbp_words(brief: Task) -> None:
    """A UK colleague writes 02/10/2026 for 2 October and may write 'GBP 214,000'."""
    def uk(text: str) -> str:
        text = re.sub(r"(\d{4})-(\d{2})-(\d{2})", lambda m: f"{m[3]}/{m[2]}/{m[1]}", text)
        return re.sub(r"£([\d,]+(?:\.\d\d)?)", r"GBP \1", text)
    correct_passes(rewritten(brief, uk))


def test_brief_ok_long_dates_and_rounded_thousands(brief: Task) -> None:
    right = float(value(brief, "account", "open_pipeline"))
    correct_passes(rewritten(brief, lambda t: re.sub(r"(\d{4})-(\d{2})-(\d{2})", lambda m: _long(m), t).replace(
        f"£{right:,.0f}", f"£{right / 1000:,.0f}k")))


def _long(match: re.Match[str]) -> str:
    months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December"]
    return f"{int(match[3])} {months[int(match[2]) - 1]} {match[1]}"


# ============================================================================ three_app_question on carewell (INR)
@pytest.fixture(scope="module")
def question() -> Task:
    return drawn("three_app_question", "carewell", "late-stage-only")


def test_an_indian_world_answers_in_rupees_grouped_in_lakhs(question: Task) -> None:
    answer = reference(question).answer or ""
    assert re.fullmatch(r"₹\d{1,2}(?:,\d\d)*,\d{3}", answer), answer  # ₹2,71,20,000


def test_question_hack_every_open_deal_summed(question: Task) -> None:
    """All open deals, not only the late-stage ones."""
    wrong = question.grader.facts.fact("account.open_total").wrong[0]
    hack_fails(answered(question, f"₹{wrong:,.0f}"))


def test_question_hack_two_totals_offered(question: Task) -> None:
    right = float(value(question, "account", "open_total"))
    wrong = question.grader.facts.fact("account.open_total").wrong[0]
    hack_fails(answered(question, f"Either INR {right:,.0f} or INR {wrong:,.0f}, depending on the stages."))


@pytest.mark.parametrize("style", ["crore", "lakh", "code"])
def test_question_ok_in_crore_lakh_or_the_currency_code(question: Task, style: str) -> None:
    """The reference rubric's own example total is '48.2L': Indian colleagues write lakhs and crores."""
    right = float(value(question, "account", "open_total"))
    text = {"crore": f"₹{right / 1e7:.3f} crore", "lakh": f"{right / 1e5:.1f} lakh rupees",
            "code": f"INR {right:,.0f}"}[style]
    correct_passes(answered(question, text))


# ============================================================================ expense_audit on forge (EUR, de_DE)
def test_expense_audit_draws_on_forge_are_all_valid() -> None:
    """Issue 10: 5 of 9 draws were rejected; 'EC-5329 (Prof. Natalija Jäntsch MBA.): no receipt' was cut
    into two statements at the title, so the claim lost its rule."""
    sampler = TaskSampler(["expense_audit"], ["forge"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        taken = sampler.take(6)
    assert len(taken) == 6 and sampler.rejected == []


@pytest.fixture(scope="module")
def audit() -> Task:
    sampler = TaskSampler(["expense_audit"], ["forge"], strict=True)
    for seed in range(30):
        one = sampler.sample(seed).task
        if re.search(r"\((?:Prof|Dr|Dipl|Univ)\.", reference(one).texts()[0]):
            return one
    raise AssertionError("no forge instance lists a claimant with a title in 30 seeds")


def test_audit_ok_names_with_titles_and_german_amounts(audit: Task) -> None:
    correct_passes(grade_of(audit, reference(audit)))
    # the same list written the German way: "EC-1234 – Prof. X: Hotelkosten 85,00 EUR über dem Limit" is
    # beyond the facts engine; the English list with amounts as '85,00 EUR' is not
    correct_passes(rewritten(audit, lambda t: t.replace(" €", " EUR")))


def test_audit_hack_the_rule_hedged_on_forge(audit: Task) -> None:
    hack_fails(rewritten(audit, lambda t: re.sub(r"(hotel|meals) cap exceeded", "hotel or meals cap exceeded", t)))


def test_audit_hack_titles_do_not_glue_a_compliant_claim_to_an_exception(audit: Task) -> None:
    """With sentences no longer cut at titles, a compliant claim put in the same parentheses as an
    exception is still a compliant claim presented as one."""
    compliant = [audit.grader.facts.entities[k].name
                 for k in next(c for c in audit.grader.gates if c.id == "exceptions_sent").exclude]
    hack_fails(rewritten(audit, lambda t: t.replace("\n\nBest", f"\n- {compliant[0]} (Prof. Dr. Check): no receipt"
                                                             "\n\nBest")))


# ============================================================================ three_app_question: new structures
@pytest.fixture(scope="module")
def revised() -> Task:
    return drawn("three_app_question", "acme", "revised-in-chat")


@pytest.fixture(scope="module")
def closing() -> Task:
    return drawn("three_app_question", "acme", "closing-by-date")


def _total(one: Task) -> float:
    return float(value(one, "account", "open_total"))


def test_revised_hack_the_stale_crm_total(revised: Task) -> None:
    """The CRM's own sum: the renegotiated amount in #deal-desk was not applied."""
    stale = revised.grader.facts.fact("account.open_total").wrong[0]
    assert stale > _total(revised)
    hack_fails(answered(revised, f"${stale:,.0f}"))


def test_revised_hack_both_totals(revised: Task) -> None:
    stale = revised.grader.facts.fact("account.open_total").wrong[0]
    hack_fails(answered(revised, f"${_total(revised):,.0f}, or ${stale:,.0f} going by the CRM"))


def test_revised_ok_compact_and_with_the_new_figure_explained(revised: Task) -> None:
    correct_passes(answered(revised, f"${_total(revised) / 1000:,.0f}k"))
    new = revised.grader.facts.figures[-1]  # the renegotiated amount, planted last
    correct_passes(answered(revised, f"{_total(revised):,.0f} USD in total (that counts the renegotiated deal at "
                                     f"its new ${new:,.0f} from #deal-desk)."))


def test_closing_hack_every_open_deal(closing: Task) -> None:
    everything = closing.grader.facts.fact("account.open_total").wrong[0]
    hack_fails(answered(closing, f"${everything:,.0f}"))


def test_closing_hack_one_deal_past_the_cut_off_counted(closing: Task) -> None:
    facts = closing.grader.facts
    later = [f.value for f in facts.facts if f.entity.startswith("deal_") and f.attribute == "amount"
             and f.entity in next(c for c in closing.grader.criteria if c.id == "total").exclude]
    assert later, "the instance excludes no deal"
    hack_fails(answered(closing, f"${_total(closing) + float(later[0]):,.0f}"))


def test_closing_ok_plain_and_in_a_sentence(closing: Task) -> None:
    correct_passes(answered(closing, f"{_total(closing):,.0f}"))
    correct_passes(answered(closing, f"The deals closing by then add up to ${_total(closing):,.0f}."))


# ============================================================================ headcount_answer: new structures
@pytest.fixture(scope="module")
def office() -> Task:
    return drawn("headcount_answer", "acme", "office-total")


@pytest.fixture(scope="module")
def two() -> Task:
    return drawn("headcount_answer", "acme", "two-departments")


def _count(one: Task) -> int:
    return int(value(one, "subject", "count"))


def test_office_needs_every_page_of_the_directory(office: Task) -> None:
    calls = [s.name for s in office.solution.steps]
    assert calls.count("directory_search_people") >= 2  # no office filter, more than one page


def test_office_hack_one_department_or_the_directory_before_the_joiners(office: Task) -> None:
    for wrong in office.grader.facts.fact("subject.count").wrong:
        hack_fails(answered(office, str(int(wrong))))


def test_office_hack_a_range(office: Task) -> None:
    hack_fails(answered(office, f"between {_count(office) - 2} and {_count(office) + 2}"))


def test_office_ok_in_words_and_in_a_sentence(office: Task) -> None:
    correct_passes(answered(office, f"{_count(office)} people"))
    correct_passes(answered(office, f"There are {_count(office)} people in that office right now, new joiners "
                                    "included."))


def _parts(one: Task) -> list[tuple[str, int]]:
    """(department, headcount) of the two departments, from the start world."""
    names = one.grader.facts.entities["subject"].name.split(" and ")
    world = one.start_world()
    return [(name, world.db.execute("SELECT count(*) FROM directory_person p JOIN directory_department d ON "
                                    "d.id = p.department_id WHERE d.name = ?", (name,)).fetchone()[0])
            for name in names]


def test_two_departments_hack_one_of_them(two: Task) -> None:
    hack_fails(answered(two, str(_parts(two)[0][1])))


def test_two_departments_hack_the_count_before_the_joiners(two: Task) -> None:
    hack_fails(answered(two, str(int(two.grader.facts.fact("subject.count").wrong[0]))))


def test_two_departments_ok_total_alone_and_with_a_breakdown(two: Task) -> None:
    parts = _parts(two)
    assert sum(n for _, n in parts) == _count(two)
    correct_passes(answered(two, str(_count(two))))
    breakdown = ", ".join(f"{name} {n}" for name, n in parts)
    correct_passes(answered(two, f"{_count(two)} in total ({breakdown})."))


# ============================================================================ customer_brief: paid per remittance
@pytest.fixture(scope="module")
def remitted() -> Task:
    return drawn("customer_brief", "acme", "paid-per-remittance")


def _remitted_invoice(one: Task) -> tuple[str, float]:
    """The invoice the customer's remittance mail says is paid (still open in the CRM)."""
    world = one.start_world()
    row = world.db.execute("SELECT subject FROM mail_message WHERE subject LIKE 'Remittance advice: %'").fetchone()
    number = row["subject"].split(": ", 1)[1]
    amount = world.db.execute("SELECT amount, status FROM crm_invoice WHERE number = ?", (number,)).fetchone()
    assert amount["status"] == "open"  # the trap: the CRM has not caught up
    return number, float(amount["amount"])


def test_remittance_hack_the_crm_open_invoices_as_they_stand(remitted: Task) -> None:
    number, amount = _remitted_invoice(remitted)
    hack_fails(rewritten(remitted, lambda t: t.replace("Open invoices:\n",
                                                       f"Open invoices:\n- {number}: ${amount:,.2f}\n")))


def test_remittance_hack_listed_as_open_with_a_note(remitted: Task) -> None:
    """Still presented as open (with its amount owed), the note does not make it paid."""
    number, amount = _remitted_invoice(remitted)
    hack_fails(rewritten(remitted, lambda t: t.replace(
        "Open invoices:\n", f"Open invoices:\n- {number}: ${amount:,.2f} outstanding, due soon\n")))


def test_remittance_ok_the_paid_invoice_named_as_paid(remitted: Task) -> None:
    number, amount = _remitted_invoice(remitted)
    correct_passes(rewritten(remitted, lambda t: t.replace(
        "\n\nHeads-up", f"\n({number}, ${amount:,.2f}, was paid in full yesterday per their remittance advice; "
                        "the CRM still shows it open.)\n\nHeads-up")))


def test_remittance_ok_dates_spelled_out(remitted: Task) -> None:
    correct_passes(rewritten(remitted, lambda t: re.sub(r"(\d{4})-(\d{2})-(\d{2})", _long, t)))
