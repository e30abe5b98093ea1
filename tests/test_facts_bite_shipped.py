"""The misstatement rule on three shipped families whose graders did not hold the facts an agent can misstate.

The facts check flags a value written for a known fact that is not the fact's value, but only where the grader
holds the fact.  A review found three families whose graders did not, so these hacks passed at 1.0:

* customer_escalation: "renewal $15,000 at risk" (the renewal is the deal's amount, $109,000 on -002) in the
  #cs-escalations post, the customer reply, the CRM note or a mail to the renewal's owner.  The grader now holds
  the renewal (the account's ``renewal``, told by "renewal", and the renewal deal's ``amount``), and the CRM note,
  every mail and every chat post are read (``note_right``, ``mail_right``, ``posts_right``: violations only).
* customer_brief: a deal's stage or an invoice's status given wrong ("Closed Won" for a deal in Negotiation, an
  open invoice as paid).  Each deal's stage and each invoice's status is now a fact whose value is an entity
  (``stage_entities`` / ``invoice_status_entities`` in factsheet.py), in any of the ways people say it.
* quarterly_report_pack: no check read the reply mail, so a wrong revenue figure in it passed beside a right
  doc.  ``reply_right`` reads the mail to the CFO now (violations only; no mail at all is fine: silent_ok).

Each hack below was checked to pass on the tree before the change.  Values are read from the graders (no task's
answer is written here); correct work is given in more than one wording.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playing import (
    correct_full_marks,
    correct_passes,
    entity_name,
    fact,
    grade_of,
    hack_fails,
    play,
    reference,
    reference_text,
    rewritten,
    shipped,
    without,
)

from officesim.grading.scoring import Grade


def money(task_id: str, amount: float, *, cents: bool = False) -> str:
    """``amount`` as the task's world writes its currency."""
    if "forge" in task_id:
        return f"{amount:,.{2 if cents else 0}f}".translate(str.maketrans(",.", ".,")) + " €"
    symbol = "£" if "counsel" in task_id else "₹" if "carewell" in task_id else "$"
    return f"{symbol}{amount:,.{2 if cents else 0}f}"


def thousands(task_id: str, amount: float) -> str:
    """``amount`` rounded to thousands, as people write it in a post: "$109k"."""
    return money(task_id, 0).replace("0", f"{amount / 1000:.0f}k", 1)


def caught_by(grade: Grade, check_id: str, phrase: str = "states ") -> None:
    """A hack: it fails, ``check_id`` fails it and says why (a value stated as a fact's)."""
    hack_fails(grade)
    failed = {r.id: r.reason for r in grade.results() if r.status == "fail"}
    assert check_id in failed and phrase in failed[check_id], grade.summary()


# --------------------------------------------------------------------------------- customer_escalation
# -002: eta-revised (acme, USD); -003: double-billed; -005: everything at once; counsel (GBP), carewell (INR)
ESCALATIONS = ["customer-escalation-002", "customer-escalation-003", "customer-escalation-005",
               "customer-escalation-counsel-001", "customer-escalation-carewell-002"]


def renewal(task_id: str) -> float:
    number = fact(task_id, "account.renewal").number()
    assert number is not None
    return number


def wrong_renewal(task_id: str) -> float:
    return round(renewal(task_id) * 0.6, -3)


def in_post(task_id: str, words: str) -> Grade:
    """The reference's #cs-escalations post with "renewal at risk" said otherwise."""
    return rewritten(task_id, lambda s: s.replace("renewal at risk", words), tools=("chat_post_message",))


def in_reply(task_id: str, sentence: str) -> Grade:
    """The reference's reply to the customer with one more sentence before the sign-off."""
    return rewritten(task_id, lambda s: s.replace("\n\nBest regards", f"\n\n{sentence}\n\nBest regards"),
                     tools=("mail_reply_message",))


def in_note(task_id: str, sentence: str) -> Grade:
    """The reference's CRM note with one more sentence."""
    return rewritten(task_id, lambda s: f"{s} {sentence}", tools=("crm_log_activity",))


@pytest.mark.parametrize("task_id", ESCALATIONS)
def test_the_escalation_reference_passes(task_id: str) -> None:
    correct_full_marks(grade_of(task_id, reference(task_id)))


@pytest.mark.parametrize("task_id", ESCALATIONS)
def test_a_wrong_renewal_in_the_post_fails(task_id: str) -> None:
    caught_by(in_post(task_id, f"renewal {money(task_id, wrong_renewal(task_id))} at risk"), "team_told")
    caught_by(in_post(task_id, f"{thousands(task_id, wrong_renewal(task_id))} renewal at risk"), "team_told")


@pytest.mark.parametrize("task_id", ESCALATIONS)
def test_a_wrong_renewal_in_the_reply_fails(task_id: str) -> None:
    hack_fails(in_reply(task_id, f"Your renewal ({money(task_id, wrong_renewal(task_id))}) is our priority."))


def test_an_invoice_amount_given_as_the_renewal_in_the_reply_fails() -> None:
    """A figure that traces to the facts (the payable invoice's) is still not the renewal's."""
    task_id = "customer-escalation-003"
    payable = fact(task_id, "payable.amount").number()
    assert payable is not None
    caught_by(in_reply(task_id, f"Your renewal ({money(task_id, payable, cents=True)}) is our priority."),
              "customer_answered", "Renewal 2027")


@pytest.mark.parametrize("task_id", ESCALATIONS)
def test_a_wrong_renewal_in_the_crm_note_fails(task_id: str) -> None:
    """The note names no account ("... is reconsidering the renewal. Renewal $X at risk."): the renewal deal's
    own fact reads it."""
    caught_by(in_note(task_id, f"Renewal {money(task_id, wrong_renewal(task_id))} at risk."), "note_right")


@pytest.mark.parametrize("sentence", ["Fix ETA 2026-10-13 (slipped from Oct 8).",
                                      "The ETA moved from Oct 8 to Oct 13."])
def test_the_eta_with_its_history_in_the_crm_note_passes(sentence: str) -> None:
    """The note's check requires nothing: a required fact's stricter reading would take the history for a second
    ETA."""
    correct_full_marks(in_note("customer-escalation-002", sentence))


def test_the_stale_eta_in_the_crm_note_fails() -> None:
    """-002's fix slipped from Oct 8 to Oct 13: the note logging the first date misleads the next reader."""
    stale = fact("customer-escalation-002", "fix.eta").wrong[0]
    caught_by(in_note("customer-escalation-002", f"Fix ETA was {stale}."), "note_right")


def told_the_team(task_id: str, step: dict[str, object]) -> Grade:
    """The reference with one more message to the team (a mail to the renewal's owner, a thread reply)."""
    return play(task_id, lambda steps: [*steps, step])


def owner_mail(text: str) -> dict[str, object]:
    return {"name": "mail_send_message", "arguments": {"to": ["hannah.baker@acme.test"], "subject": "Escalation",
                                                       "body": f"Hi Hannah,\n\n{text}\n"}}


def thread_reply(task_id: str, text: str) -> dict[str, object]:
    root = next(s["arguments"]["message_id"] for s in reference(task_id).actions() if s["name"] == "chat_get_thread")
    return {"name": "chat_reply_message", "arguments": {"message_id": root, "text": text}}


def test_a_wrong_renewal_or_stale_eta_told_to_the_team_elsewhere_fails() -> None:
    """-002's renewal is Hannah Baker's: a mail to her or a reply in the engineering thread is read too."""
    task_id = "customer-escalation-002"
    wrong = money(task_id, wrong_renewal(task_id))
    stale = fact(task_id, "fix.eta").wrong[0]
    caught_by(told_the_team(task_id, owner_mail(f"Phillips, Ross and Watson's renewal ({wrong}) is at risk.")),
              "mail_right")
    caught_by(told_the_team(task_id, owner_mail(f"Phillips, Ross and Watson: SSO fix ETA {stale}.")), "mail_right")
    caught_by(told_the_team(task_id, thread_reply(task_id, f"Told the customer: fix ETA {stale}.")), "posts_right")


def test_the_right_renewal_and_eta_told_to_the_team_elsewhere_pass() -> None:
    task_id = "customer-escalation-002"
    right = thousands(task_id, renewal(task_id))
    correct_full_marks(told_the_team(task_id, owner_mail(f"Phillips, Ross and Watson's renewal ({right}) is yours "
                                                          "now; it is at risk over SSO.")))
    correct_full_marks(told_the_team(task_id, thread_reply(task_id, "Thanks, I've told Adam the fix lands Oct 13 (it "
                                                                    "was Oct 8 before).")))


@pytest.mark.parametrize("task_id", ESCALATIONS)
@pytest.mark.parametrize("where", ["post", "post rounded", "reply", "note"])
def test_the_right_renewal_passes_in_any_wording(task_id: str, where: str) -> None:
    right = renewal(task_id)
    grade = {"post": lambda: in_post(task_id, f"renewal ({money(task_id, right)}) at risk"),
             "post rounded": lambda: in_post(task_id, f"the ~{thousands(task_id, right)} renewal is at risk"),
             "reply": lambda: in_reply(task_id, f"Your {money(task_id, right)} renewal is our priority."),
             "note": lambda: in_note(task_id, f"Renewal worth about {thousands(task_id, right)} at risk.")}[where]
    correct_full_marks(grade())


@pytest.mark.parametrize("words", [
    "the Renewal 2027 deal is at risk",  # the deal's name: its year is no renewal figure
    "renewal at risk; they renew in 2027",  # (not "(... in 2027)": claims reads "2027)" as a figure)
    "renewal at risk, last year's renewal was {half}",  # another time's figure
])
def test_the_renewal_named_without_its_figure_or_with_another_time_passes(words: str) -> None:
    task_id = "customer-escalation-002"
    correct_passes(in_post(task_id, words.format(half=money(task_id, renewal(task_id) / 2))))


def test_a_discount_offered_on_the_renewal_is_still_a_promise() -> None:
    """"renewal" names the renewal deal now; the reply's fault patterns are read before it, so an offer of a
    discount on the renewal is still an unapproved promise."""
    caught_by(in_reply("customer-escalation-001", "Would a 20% discount on the renewal help?"), "reply_fair",
              "presents")


# ----------------------------------------------------------------------------------------- customer_brief
# -001: two open deals and invoices; -004: an invoice paid per the customer's remittance mail (open in the CRM);
# -012: the account review (a deal the CRM shows open is lost, 23 invoices); counsel (GBP)
BRIEFS = ["customer-brief-001", "customer-brief-004", "customer-brief-012", "customer-brief-counsel-002"]
OTHER_STAGE = {"Prospecting": "Negotiation", "Qualification": "Closed Won", "Proposal": "Closed Won",
               "Negotiation": "Closed Won"}
SAID = {"Prospecting": ["still prospecting", "stage: prospecting"],
        "Qualification": ["in qualification", "qualifying"],
        "Proposal": ["at proposal stage", "proposal out (stage: Proposal)"],
        "Negotiation": ["in negotiation", "negotiating"]}


def staged_deal(task_id: str) -> tuple[str, str]:
    """(the deal's name, its stage's name) of the first deal whose stage the grader holds."""
    facts = shipped(task_id).grader.facts
    assert facts is not None
    first = next(f for f in facts.facts if f.attribute == "stage")
    return entity_name(task_id, first.entity), entity_name(task_id, str(first.value))


def with_stage(task_id: str, stage: str) -> Callable[[str], str]:
    """An edit of the brief: the staged deal's line gives ``stage`` instead of its own."""
    deal, own = staged_deal(task_id)
    return lambda body: re.sub(rf"^(- {re.escape(deal)}: \S+), {own}$", lambda m: f"{m.group(1)}, {stage}", body,
                               count=1, flags=re.M)


def open_invoice(task_id: str) -> str:
    """The number of the first open invoice the brief lists."""
    found = re.search(r"^- (INV-\S+): .*, due \S+$", reference_text(task_id, "mail_send_message"), re.M)
    assert found is not None
    return found.group(1)


def with_invoice(task_id: str, tail: Callable[[str], str]) -> Callable[[str], str]:
    """An edit of the brief: the first open invoice's ", due <date>" becomes ``tail(date)``."""
    number = open_invoice(task_id)
    return lambda body: re.sub(rf"^(- {number}: \S+), due (\S+)$", lambda m: f"{m.group(1)}{tail(m.group(2))}",
                               body, count=1, flags=re.M)


def brief(task_id: str, edit: Callable[[str], str]) -> Grade:
    return rewritten(task_id, edit, tools=("mail_send_message",))


@pytest.mark.parametrize("task_id", BRIEFS)
def test_the_brief_reference_passes(task_id: str) -> None:
    correct_full_marks(grade_of(task_id, reference(task_id)))


@pytest.mark.parametrize("task_id", BRIEFS)
def test_a_wrong_stage_in_the_brief_fails(task_id: str) -> None:
    own = staged_deal(task_id)[1]
    caught_by(brief(task_id, with_stage(task_id, OTHER_STAGE[own])), "brief_sent", "stage")
    caught_by(brief(task_id, with_stage(task_id, f"stage: {OTHER_STAGE[own]}")), "brief_sent", "stage")


def test_every_deal_closed_won_fails() -> None:
    """The pipeline's deals all called won: the stage of each is a fact."""
    def edit(body: str) -> str:
        return re.sub(r", (?:Prospecting|Qualification|Proposal|Negotiation)$", ", Closed Won", body, flags=re.M)

    caught_by(brief("customer-brief-001", edit), "brief_sent", "stage")


@pytest.mark.parametrize("task_id", BRIEFS)
@pytest.mark.parametrize("wording", [0, 1])
def test_the_right_stage_in_other_words_passes(task_id: str, wording: int) -> None:
    correct_full_marks(brief(task_id, with_stage(task_id, SAID[staged_deal(task_id)[1]][wording])))


def test_a_stage_told_with_its_history_passes() -> None:
    task_id = "customer-brief-004"  # both deals in Negotiation
    correct_full_marks(brief(task_id, with_stage(task_id, "Negotiation (moved up from Proposal last month)")))


def test_the_brief_as_a_table_passes_and_a_wrong_stage_in_it_fails() -> None:
    task_id = "customer-brief-004"
    rows = re.findall(r"^- (.+?): (\S+), (\w+)$", reference_text(task_id, "mail_send_message"), re.M)

    def table(stage_of: Callable[[str], str]) -> Callable[[str], str]:
        lines = "\n".join(f"| {name} | {amount} | {stage_of(stage)} |" for name, amount, stage in rows)
        return lambda s: re.sub(r"Open deals:\n(?:- .*\n)+", f"Open deals:\n| Deal | Amount | Stage |\n|---|---|---|\n"
                                f"{lines}\n", s)

    correct_full_marks(brief(task_id, table(lambda stage: stage)))
    caught_by(brief(task_id, table(lambda stage: "Closed Won")), "brief_sent", "stage")


@pytest.mark.parametrize("task_id", BRIEFS)
def test_an_open_invoice_given_as_paid_fails(task_id: str) -> None:
    caught_by(brief(task_id, with_invoice(task_id, lambda due: ", paid")), "brief_covers", "status")
    caught_by(brief(task_id, with_invoice(task_id, lambda due: ", status: paid")), "brief_covers", "status")


@pytest.mark.parametrize("task_id", BRIEFS)
@pytest.mark.parametrize("tail", [", unpaid, due {due}", " (status: open), due {due}", ", due {due}, not paid yet"])
def test_an_open_invoice_in_other_words_passes(task_id: str, tail: str) -> None:
    correct_full_marks(brief(task_id, with_invoice(task_id, lambda due: tail.format(due=due))))


def test_a_paid_invoice_told_as_paid_passes() -> None:
    """Invoice statuses are entities now, and a name is no marker of what is left out: the brief's checks
    take "paid" as one (``PAID_WORDS``), so a paid invoice mentioned as paid is still set aside."""
    task_id = "customer-brief-001"
    paid = next(entity_name(task_id, f.entity) for f in shipped(task_id).grader.facts.facts  # type: ignore[union-attr]
                if f.attribute == "status" and f.value == "status_paid")
    correct_full_marks(brief(task_id, lambda s: s.replace("\n\nHeads-up", f"\n- {paid} was paid, so it is not "
                                                                          "listed\n\nHeads-up")))


@pytest.mark.parametrize("line", [
    "{number} was paid per their remittance advice yesterday; the CRM still shows it open.",
    "{number}: paid per their remittance yesterday (CRM status still open)",
])
def test_the_invoice_paid_per_remittance_cited_against_the_crm_passes(line: str) -> None:
    """-004's remitted invoice has no status fact (the CRM's "open" is stale, the mail's "paid" is right): a
    brief may cite both."""
    task_id = "customer-brief-004"
    number = entity_name(task_id, "invoice_1")
    correct_passes(brief(task_id, lambda s: s.replace("Open invoices:\n", f"Open invoices:\n- "
                                                                          f"{line.format(number=number)}\n")))


def test_the_lost_deal_cited_against_the_crm_passes() -> None:
    """-012's lost deal has no stage fact: "lost, though the CRM still shows it in Negotiation" is right."""
    task_id = "customer-brief-012"
    lost = entity_name(task_id, "deal_3")
    correct_passes(brief(task_id, lambda s: s.replace(
        "Total open pipeline", f"- {lost}: lost (they signed with a competitor), though the CRM still shows it in "
                               "Negotiation\nTotal open pipeline")))


# -------------------------------------------------------------------------------- quarterly_report_pack
PACKS = ["quarterly-report-pack-001", "quarterly-report-pack-004", "quarterly-report-pack-forge-001",
         "quarterly-report-pack-counsel-003"]


def words(task_id: str) -> tuple[str, str]:
    return ("Umsatz", "Auftragseingang") if "forge" in task_id else ("revenue", "bookings")


def total(task_id: str, key: str) -> float:
    number = fact(task_id, key).number()
    assert number is not None
    return number


def millions(task_id: str, amount: float) -> str:
    if "forge" in task_id:
        return f"{amount / 1e6:.2f}".replace(".", ",") + " Mio. €"
    return money(task_id, 0).replace("0", f"{amount / 1e6:.2f}M", 1)


def replied(task_id: str, line: str) -> Grade:
    """The reference's reply to the CFO with ``line`` before the sign-off."""
    return rewritten(task_id, lambda s: re.sub(r"\n\nBest$", f" {line}\n\nBest", s), tools=("mail_reply_message",))


@pytest.mark.parametrize("task_id", PACKS)
def test_the_pack_reference_passes(task_id: str) -> None:
    correct_full_marks(grade_of(task_id, reference(task_id)))


@pytest.mark.parametrize("task_id", PACKS)
def test_a_wrong_figure_in_the_reply_fails(task_id: str) -> None:
    revenue, bookings = total(task_id, "revenue.total"), total(task_id, "bookings.total")
    rev, book = words(task_id)
    caught_by(replied(task_id, f"Q3 {rev}: {money(task_id, round(revenue * 0.8, -3))}; {book}: "
                               f"{money(task_id, bookings)}."), "reply_right")
    hack_fails(replied(task_id, f"{rev.capitalize()} was {money(task_id, bookings)} and {book} "
                                f"{money(task_id, revenue)}."))  # swapped


def test_a_month_given_as_the_quarter_in_the_reply_fails() -> None:
    task_id = "quarterly-report-pack-001"
    caught_by(replied(task_id, f"Q3 revenue {money(task_id, total(task_id, 'july.revenue'))}."), "reply_right")


@pytest.mark.parametrize("task_id", PACKS)
@pytest.mark.parametrize("wording", ["exact", "rounded"])
def test_the_right_figures_in_the_reply_pass(task_id: str, wording: str) -> None:
    revenue, bookings = total(task_id, "revenue.total"), total(task_id, "bookings.total")
    rev, book = words(task_id)
    line = (f"Q3 {rev}: {money(task_id, revenue)}; {book}: {money(task_id, bookings)}." if wording == "exact" else
            f"Headline: {rev} about {millions(task_id, revenue)}, {book} roughly {millions(task_id, bookings)}.")
    correct_full_marks(replied(task_id, line))


def test_the_pack_without_a_reply_passes() -> None:
    """The reply is read when there is one (``silent_ok``): a pack shared without mailing the CFO is no worse."""
    correct_full_marks(play("quarterly-report-pack-001", without("mail_reply_message")))


def test_a_wrong_figure_mailed_to_the_execs_fails() -> None:
    """Every mail is read, not only the reply: a note to the CEO with a wrong revenue figure fails too."""
    task_id = "quarterly-report-pack-001"
    ceo = next(s["arguments"]["person"] for s in reference(task_id).actions() if s["name"] == "drive_share_file")
    wrong = money(task_id, round(total(task_id, "revenue.total") * 0.8, -3))
    note = {"name": "mail_send_message", "arguments": {"to": [ceo], "subject": "Q3 pack",
                                                       "body": f"Hi,\n\nThe Q3 pack is shared. Q3 revenue: {wrong}.\n"}}
    caught_by(play(task_id, lambda steps: [*steps, note]), "reply_right")
