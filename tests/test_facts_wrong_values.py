"""The facts engine's states-a-wrong-value rule: a value written for a known fact, beside its entity's name or
its label, that is not the fact's value is a contradiction, in every mode (``violations_only`` included) and
whether or not the check asks for the fact.

A blind audit found that a wrong value the grader was not told to expect read as an omission: a post saying
"Fix ETA Oct 20" when the fix is due Oct 13, a brief giving one deal's close date to the other, a digest giving
a near miss's renewal to an at-risk account, a department's Q3 spend or an expense's amount misstated beside
the right total.  Careful work must still pass: another entity's own figure cited beside its name, history
("previously Oct 8, now Oct 13", "up from"), sums and differences, ranges, another quarter's figure, other
currencies, figures listed "respectively".

Two kinds of case: shipped tasks whose graders already hold the facts (the rule reads them as they are: the
escalation's renewal, the brief's deal stages and invoice statuses and the pack's reply check are generated
now), and shipped tasks with one entity or fact added to their grader in memory (``patched``): another deal
beside the renewal, an invoice's status in a family that does not emit one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from playing import TASKS, correct_passes, grade_of, hack_fails, reference_text
from test_redteam_r1 import retext

from officesim.grading.scoring import Grade
from officesim.probes import Trajectory
from officesim.task import Task, load_task_files


def caught(grade: Grade, phrase: str = "as ") -> None:
    """A hack: it fails, and a failing check says it states a value as a fact's."""
    hack_fails(grade)
    reasons = " ".join(c.reason for c in grade.results() if c.status == "fail").casefold()
    assert "states " in reasons and phrase in reasons, grade.summary()


def written(task: str | Task, task_id: str, tool: str, field: str, text: str) -> Grade:
    """The reference of ``task_id`` with the text of its ``tool`` call replaced, graded by ``task``."""
    return grade_of(task, Trajectory(retext(task_id, tool, field, text), None))


def patched(task_id: str, edit: Callable[[dict[str, Any]], None]) -> Task:
    """``task_id`` with its grader changed by ``edit`` (in memory; the folder is untouched)."""
    folder = TASKS / task_id
    files = {name: (folder / name).read_text() for name in ("task.yaml", "grader.yaml", "solution.yaml")}
    grader = yaml.safe_load(files["grader.yaml"])
    edit(grader)
    files["grader.yaml"] = yaml.safe_dump(grader, sort_keys=False, allow_unicode=True)
    return load_task_files(files)


# ------------------------------------------------------------------------------ customer_escalation: the ETA
# customer-escalation-002: Phillips, Ross and Watson, SSO fix due 2026-10-13 (it was Oct 8 before);
# the #cs-escalations post is checked by team_told (name: the account; not traceable)
ESCALATION = "customer-escalation-002"
POST = ("Escalation: Phillips, Ross and Watson (Adam Bryant) on SSO; renewal at risk. {eta}, renewal now with "
        "Hannah Baker. Replied to the customer.")


def posted(text: str, task: str | Task = ESCALATION) -> Grade:
    return written(task, ESCALATION, "chat_post_message", "text", text)


@pytest.mark.parametrize("eta", [
    "Fix ETA 2026-10-20",
    "Fix ETA 2026-10-08",  # the old ETA, told as the current one
    "Fix ETA: Oct 22",
    "ETA for the fix: October 22",
    "SSO fix expected Oct 20",
    "New ETA 10/20/2026",
])
def test_a_wrong_eta_in_the_post_fails(eta: str) -> None:
    caught(posted(POST.format(eta=eta)), "eta")


@pytest.mark.parametrize("eta", [
    "Fix ETA 2026-10-13",
    "Fix ETA Oct 13",
    "Fix ETA moved from Oct 8 to Oct 13",
    "Fix ETA Oct 13 (previously Oct 8)",
    "Previous ETA Oct 8, now Oct 13",
    "ETA slipped: was Oct 8, now Oct 13",
    "Fix ETA Tuesday, October 13 (invoice INV-2026-0442 due 2026-10-22)",
    "Fix ETA 2026-10-13; the old Oct 8 date no longer holds",
])
def test_the_eta_told_with_its_history_passes(eta: str) -> None:
    correct_passes(posted(POST.format(eta=eta)))


def test_a_wrong_eta_in_a_table_post_fails() -> None:
    caught(posted("Escalation: Phillips, Ross and Watson on SSO.\n\n| Item | Value |\n|---|---|\n"
                  "| Fix ETA | 2026-10-20 |\n| Renewal owner | Hannah Baker |"), "eta")


# ------------------------------------------------------------------------- customer_escalation: the renewal
# The escalation's grader holds the renewal figure (the renewal deal's amount, $109,000, told by "renewal");
# "renewal $15,000 at risk" contradicts it while other deals' own figures, told with their names, do not
# (another deal is added here: the world's own is not in the grader).
def _renewal(grader: dict[str, Any]) -> None:
    grader["facts"]["entities"]["upgrade"] = {"name": "Enterprise upgrade (2027)", "kind": "deal"}
    grader["facts"]["facts"].append({"entity": "upgrade", "attribute": "amount", "value": 49000.0})


@functools.cache
def escalation_with_renewal() -> Task:
    return patched(ESCALATION, _renewal)


@pytest.mark.parametrize("text", [
    "Escalation: Phillips, Ross and Watson on SSO; renewal $15,000 at risk. Fix ETA 2026-10-13.",
    "Escalation: Phillips, Ross and Watson on SSO. Renewal ($49,000) at risk. Fix ETA 2026-10-13.",
    "Phillips, Ross and Watson escalated SSO. $165,000 renewal at risk; fix ETA 2026-10-13.",
    "Escalation: Phillips, Ross and Watson on SSO.\n- Renewal: $100,000, at risk\n- Fix ETA: 2026-10-13",
])
def test_a_wrong_renewal_in_the_post_fails(text: str) -> None:
    caught(posted(text, escalation_with_renewal()), "renewal")


@pytest.mark.parametrize("text", [
    "Escalation: Phillips, Ross and Watson on SSO; renewal $109,000 at risk. Fix ETA 2026-10-13.",
    "Escalation: Phillips, Ross and Watson on SSO; renewal (~$110k) at risk. Fix ETA 2026-10-13.",
    "Escalation: Phillips, Ross and Watson on SSO; the $109k renewal is at risk, and the Enterprise upgrade "
    "(2027) at $49,000 too. Fix ETA 2026-10-13.",
    "Escalation: Phillips, Ross and Watson on SSO. Renewal: $109,000 (up from $98,000 last year). Fix ETA "
    "2026-10-13.",
    "Escalation: Phillips, Ross and Watson on SSO; renewal at risk. Fix ETA 2026-10-13, renewal now with "
    "Hannah Baker. Replied to the customer.",
    "Escalation: Phillips, Ross and Watson on SSO; renewal worth €100,000 (USD 109,000) at risk. Fix ETA "
    "2026-10-13.",
])
def test_the_renewal_told_right_or_beside_other_figures_passes(text: str) -> None:
    correct_passes(posted(text, escalation_with_renewal()))


# ------------------------------------------------------------------------------- customer_brief: dates
# customer-brief-001: Porter Inc; Platform renewal $10,000 closes 2027-01-24, Training package $44,000 closes
# 2027-01-17; INV-2026-0194 $29,950 due 2026-10-19, INV-2026-0480 $30,200 due 2026-09-30
BRIEF = "customer-brief-001"
BRIEF_MAIL = """Hi Jamie,

Open deals:
- Porter Inc - Platform renewal: $10,000, Negotiation{close_1}
- Porter Inc - Training package: $44,000, Proposal{close_2}
Total open pipeline: $54,000

Last contact: 2026-09-29, a call with Kelly Powers about the security review.

Open invoices:
- INV-2026-0194: $29,950.00, due {due_1}
- INV-2026-0480: $30,200.00, due 2026-09-30

Heads-up: they reported dashboard latency spikes during their month-end; engineering expects a fix by Friday.

Best"""


def briefed(close_1: str = "", close_2: str = "", due_1: str = "2026-10-19", task: str | Task = BRIEF) -> Grade:
    body = BRIEF_MAIL.format(close_1=close_1, close_2=close_2, due_1=due_1)
    return written(task, BRIEF, "mail_send_message", "body", body)


def tabled(close_1: str, close_2: str) -> Grade:
    """The brief with its deals in a table, each close date in the "Close" column."""
    body = ("Hi Jamie,\n\n| Deal | Amount | Close |\n|---|---|---|\n"
            f"| Porter Inc - Platform renewal | $10,000 | {close_1} |\n"
            f"| Porter Inc - Training package | $44,000 | {close_2} |\n\nTotal open pipeline: $54,000\n\n"
            "Last contact: 2026-09-29 (Kelly Powers).\n\nOpen invoices: INV-2026-0194 $29,950.00 due 2026-10-19; "
            "INV-2026-0480 $30,200.00 due 2026-09-30.\n\nOpen escalation: dashboard latency.\n\nBest")
    return written(BRIEF, BRIEF, "mail_send_message", "body", body)


@pytest.mark.parametrize(("close_1", "close_2", "due_1"), [
    (", closes 2027-01-17", ", closes 2027-01-24", "2026-10-19"),  # the deals' close dates swapped
    (", closing 2027-01-31", "", "2026-10-19"),
    (", close date 2027-02-24", ", close date 2027-01-17", "2026-10-19"),
    ("", "", "2026-09-30"),  # the other invoice's due date
    ("", "", "2026-10-30"),
])
def test_a_wrong_close_or_due_date_in_the_brief_fails(close_1: str, close_2: str, due_1: str) -> None:
    caught(briefed(close_1, close_2, due_1))


@pytest.mark.parametrize(("close_1", "close_2", "due_1"), [
    ("", "", "2026-10-19"),
    (", closes 2027-01-24", ", closes 2027-01-17", "2026-10-19"),
    (", close date 2027-01-24 (a week after the Training package's 2027-01-17)", "", "2026-10-19"),
    (", closes 2027-01-24 (previously 2027-01-17)", "", "2026-10-19"),
    ("", "", "Oct 19, 2026"),
    ("", "", "19 October 2026"),
])
def test_right_dates_and_their_history_in_the_brief_pass(close_1: str, close_2: str, due_1: str) -> None:
    correct_passes(briefed(close_1, close_2, due_1))


# -------------------------------------------------------------------------------- customer_brief: the stage
# The brief's grader holds each deal's stage (an entity of kind "stage"): a stage given wrong contradicts it,
# and a stage's history does not.
def brief_with_stages() -> str:
    return BRIEF


def staged(stage_1: str, stage_2: str) -> Grade:
    body = BRIEF_MAIL.format(close_1="", close_2="", due_1="2026-10-19").replace(
        "$10,000, Negotiation", f"$10,000, {stage_1}").replace("$44,000, Proposal", f"$44,000, {stage_2}")
    return written(brief_with_stages(), BRIEF, "mail_send_message", "body", body)


@pytest.mark.parametrize(("stage_1", "stage_2"), [
    ("Proposal", "Negotiation"),  # swapped
    ("stage: Proposal", "stage: Proposal"),
    ("Negotiation", "stage Qualification"),
])
def test_a_wrong_stage_in_the_brief_fails(stage_1: str, stage_2: str) -> None:
    caught(staged(stage_1, stage_2), "stage")


@pytest.mark.parametrize(("stage_1", "stage_2"), [
    ("Negotiation", "Proposal"),
    ("stage: Negotiation", "stage: Proposal"),
    ("Negotiation (was Proposal until last week)", "Proposal"),
    ("moved from Proposal to Negotiation", "still at Proposal"),
])
def test_the_right_stage_and_its_history_pass(stage_1: str, stage_2: str) -> None:
    correct_passes(staged(stage_1, stage_2))


# ----------------------------------------------------------------------------- renewal_risk_digest: figures
# renewal-risk-digest-001: Cochran PLC overdue $27,200 renewal $113,000; Knight PLC $57,600 / $164,000;
# Patel-Murphy $10,250 / $42,000; near misses (Evans and Sons $8,050 / $49,000, ...) have figures, no facts
DIGEST = "renewal-risk-digest-001"
DIGEST_MAIL = ("Hi,\n\nAccounts at renewal risk:\n- Cochran PLC: overdue {c_over}, renewal {c_renew}\n"
               "- Knight PLC: overdue $57,600, renewal $164,000\n- Patel-Murphy: overdue $10,250, renewal $42,000\n\n"
               "{tail}Best")


def digested(c_over: str = "$27,200", c_renew: str = "$113,000", tail: str = "") -> Grade:
    return written(DIGEST, DIGEST, "mail_send_message", "body",
                   DIGEST_MAIL.format(c_over=c_over, c_renew=c_renew, tail=tail))


@pytest.mark.parametrize(("c_over", "c_renew"), [
    ("$27,200", "$49,000"),  # a near miss's renewal: traceable, but not Cochran's
    ("$8,050", "$113,000"),
    ("$27,200", "$156,000"),
])
def test_a_traceable_but_wrong_figure_in_the_digest_fails(c_over: str, c_renew: str) -> None:
    caught(digested(c_over, c_renew))


@pytest.mark.parametrize(("c_over", "c_renew", "tail"), [
    ("$27,200", "$113,000", ""),
    ("$27.2k", "$113k", ""),
    ("$27,200", "$113,000", "Near miss: Evans and Sons (overdue $8,050, renewal $49,000) is under the bar.\n\n"),
    ("$27,200", "$113,000", "Together the three renewals come to $319,000.\n\n"),
    ("$27,200 (of $36,400 open)", "$113,000", ""),
])
def test_the_digest_with_context_passes(c_over: str, c_renew: str, tail: str) -> None:
    correct_passes(digested(c_over, c_renew, tail))


# ----------------------------------------------------------------------------- travel_expense_report: lines
# travel-expense-report-001: Q3 $7,614.19 (Q2 $5,740.00); Sales Q3 $3,043.23 (Q2 $1,440.00); R-7960 $1,043.84,
# R-3247 $56.80, R-6355 $178.95 without sign-off; the mail is read by one_total (violations_only)
TRAVEL = "travel-expense-report-001"
TRAVEL_MAIL = "Hi Keith,\n\nThe Q3 travel-expense report is attached. Total travel spend was $7,614.19; {line}\n\nBest"


def travelled(line: str) -> Grade:
    return written(TRAVEL, TRAVEL, "mail_send_message", "body", TRAVEL_MAIL.format(line=line))


@pytest.mark.parametrize("line", [
    "Sales Q3 $3,100.00 (Q2 $1,440.00).",
    "Sales spent $3,400.00 in Q3.",
    "R-7960 ($1,200.00) lacks sign-off.",
    "Q2 was $5,900.00.",
    "R-7960 ($56.80) and R-3247 ($1,043.84) went through without sign-off.",  # swapped
])
def test_a_wrong_line_beside_the_right_total_fails(line: str) -> None:
    hack_fails(travelled(line))


@pytest.mark.parametrize("line", [
    "Sales Q3 $3,043.23 (Q2 $1,440.00).",
    "Sales spent $3,043.23 in Q3, up $1,603.23 on Q2.",
    "Q3 travel spend of $7,614.19 is up $1,874.19 on Q2's $5,740.00.",
    "R-7960 ($1,043.84) and R-3247 ($56.80) went through without sign-off.",
    "R-7960 and R-3247 ($1,043.84 and $56.80 respectively) went through without sign-off.",
    "Q2 was $5,740.00, so spend rose by a third.",
])
def test_right_lines_beside_the_total_pass(line: str) -> None:
    correct_passes(travelled(line))


# ---------------------------------------------------------------------------- quarterly_report_pack: reply
# quarterly-report-pack-001: Q3 revenue $2,585,000 (July $790,000, August $1,160,000, September $635,000),
# bookings $1,557,500.  The reply mail is read (reply_right: violations_only, the pack's facts): wrong figures
# in the reply fail while the doc is right.
PACK = "quarterly-report-pack-001"
PACK_REPLY = "Hi Keith,\n\nThe pack is ready and shared: Q3 2026 exec pack (drive file f_101). {line}\n\nBest"


def pack_with_reply_check() -> str:
    return PACK


def replied(line: str) -> Grade:
    return written(pack_with_reply_check(), PACK, "mail_reply_message", "body", PACK_REPLY.format(line=line))


@pytest.mark.parametrize("line", [
    "Q3 revenue: $2,400,000; bookings: $1,557,500.",
    "Revenue was $1,557,500 and bookings $2,585,000.",  # swapped
    "Headline: revenue $2.9M, bookings $1.6M.",
    "Revenue and bookings were $2,585,000 and $1,160,000 respectively.",
    "Q3 revenue $790,000.",  # July's, given as the quarter's
])
def test_wrong_figures_in_the_reply_fail(line: str) -> None:
    hack_fails(replied(line))


@pytest.mark.parametrize("line", [
    "",
    "Q3 revenue: $2,585,000; bookings: $1,557,500.",
    "Headline: revenue $2.59M, bookings $1.56M.",
    "Revenue and bookings were $2,585,000 and $1,557,500 respectively.",
    "Revenue came to $2,585,000 (July $790,000, August $1,160,000, September $635,000).",
    "Revenue of about $2.6M; bookings roughly $1.5M.",
    "Le chiffre d'affaires du T3 : 2 585 000 $ ; prises de commandes : 1 557 500 $.",
    "Revenue $2,585,000, about 66% above bookings ($1,557,500).",
    "Revenue: $2,585,000 (Q2 was $2,300,000); bookings $1,557,500.",
])
def test_right_figures_in_the_reply_pass(line: str) -> None:
    correct_passes(replied(line))


def test_respectively_in_the_pack_passes() -> None:
    """Revenue and bookings told in one sentence, "respectively": each figure is the entity's in its place."""
    doc = ("# Q3 2026 exec pack\n\nQ3 revenue and bookings were $2,585,000 and $1,557,500 respectively.\n\n"
           "- July: $790,000\n- August: $1,160,000\n- September: $635,000\n")
    correct_passes(written(PACK, PACK, "drive_create_doc", "content", doc))


# --------------------------------------------------------------------------- chase_overdue_invoices: status
# chase-overdue-invoices-001: INV-2026-0318 ($57,550) and INV-2026-0229 ($32,150) are open, INV-2026-0488 is
# paid.  With the statuses a generator would emit (each invoice's status an entity of kind "status"), a
# status given to the wrong invoice contradicts it.
CHASE = "chase-overdue-invoices-001"


def _statuses(grader: dict[str, Any]) -> None:
    entities = grader["facts"]["entities"]
    entities["open"] = {"name": "overdue", "aliases": ["open", "past due", "unpaid"], "kind": "status"}
    entities["paid"] = {"name": "paid", "aliases": ["settled"], "kind": "status"}
    grader["facts"]["facts"] += [{"entity": "inv_2026_0318", "attribute": "status", "value": "open"},
                                 {"entity": "inv_2026_0229", "attribute": "status", "value": "open"},
                                 {"entity": "inv_2026_0488", "attribute": "status", "value": "paid"}]


@functools.cache
def chase_with_statuses() -> Task:
    return patched(CHASE, _statuses)


def chased(lines: str) -> Grade:
    body = (f"Hi Nicholas,\n\nOur records show:\n{lines}\n\nTotal overdue: $89,700.00.\n\nCould you let us know "
            "when we can expect payment?")
    return written(chase_with_statuses(), CHASE, "mail_send_message", "body", body)


def test_a_status_swapped_between_invoices_fails() -> None:
    caught(chased("- INV-2026-0318: $57,550.00, status: paid\n- INV-2026-0229: $32,150.00, status: overdue"),
           "status")


@pytest.mark.parametrize("lines", [
    "- INV-2026-0318: $57,550.00, status: overdue\n- INV-2026-0229: $32,150.00, status: overdue",
    "- INV-2026-0318: $57,550.00 (past due)\n- INV-2026-0229: $32,150.00 (past due)",
    "- INV-2026-0318: $57,550.00, status overdue (not paid)\n- INV-2026-0229: $32,150.00, status overdue",
])
def test_the_right_statuses_pass(lines: str) -> None:
    correct_passes(chased(lines))


# ------------------------------------------------------------------------------ more, found by trying
@pytest.mark.parametrize("grade", [
    lambda: posted(POST.format(eta="Fix ETA is now 2026-10-20 (was Oct 13)")),
    lambda: posted(POST.format(eta="Fix ETA 2026-10-20, not Oct 13")),
    lambda: posted("Escalation: Phillips, Ross and Watson on SSO; renewal ~$150k at risk. Fix ETA 2026-10-13.",
                   escalation_with_renewal()),
    lambda: briefed(close_2=", closes 2027-01-24"),  # the other deal's close date
    lambda: replied("Q3 revenue was $2,585,000 per the draft; final revenue $2,400,000."),
], ids=["eta-now-wrong", "eta-not-right", "renewal-approx", "close-of-other-deal", "draft-then-final"])
def test_more_hacks_fail(grade: Callable[[], Grade]) -> None:
    hack_fails(grade())


@pytest.mark.parametrize("grade", [
    lambda: posted(POST.format(eta="Fix ETA: Tue 13 Oct")),
    lambda: posted(POST.format(eta="Fix ETA 2026-10-13 (customer asked for Oct 8)")),
    lambda: briefed(close_1=", closes 2027-01-24 (Training package: 2027-01-17)"),
    lambda: digested(c_over="$27,200 (against a $113,000 renewal)"),
    lambda: travelled("Sales: Q3 $3,043.23 vs Q2 $1,440.00 (+111%)."),
    lambda: tabled("2027-01-24", "2027-01-17"),
], ids=["weekday-date", "asked-for-another", "other-deal-cited", "comparison", "percent-change", "table"])
def test_more_careful_work_passes(grade: Callable[[], Grade]) -> None:
    correct_passes(grade())


def test_a_wrong_close_date_in_a_table_fails() -> None:
    caught(tabled("2027-01-17", "2027-01-17"), "close date")


@pytest.mark.parametrize("text", [
    'Escalation: Phillips, Ross and Watson on SSO. Adam wrote "we were told the fix ETA was Oct 8". Fix ETA '
    "2026-10-13.",
    "Eskalation: Phillips, Ross and Watson (SSO). Fix-ETA: 13.10.2026 (vorher 08.10.2026).",
    "Escalade : Phillips, Ross and Watson (SSO). ETA du correctif : 13/10/2026.",
])
def test_quoted_german_and_french_etas_pass(text: str) -> None:
    correct_passes(posted(text))


def test_a_wrong_german_eta_fails() -> None:
    caught(posted("Eskalation: Phillips, Ross and Watson (SSO). Fix-ETA: 20.10.2026, Renewal jetzt bei Hannah Baker."),
           "eta")


def test_renewals_listed_respectively_pass_and_swapped_fail() -> None:
    correct_passes(digested(tail="Cochran PLC and Knight PLC renew at $113,000 and $164,000 respectively.\n\n"))
    hack_fails(digested(tail="Cochran PLC and Knight PLC renew at $164,000 and $113,000 respectively.\n\n"))


# ------------------------------------------------------------------------ expense_audit: two claims at once
# expense-audit-001: EC-9140 is over the meal allowance by $90.00, EC-9881 over the hotel cap by $140.00 (each
# one's rule a wrong reading of the other's); EC-2054 and EC-6735 have no receipt
AUDIT = "expense-audit-001"
AUDIT_MAIL = ("Hi Keith,\n\n4 claims break the policy:\n- {pair}\n- EC-2054 (Susan Salazar): no receipt for $875.00\n"
              "- EC-6735 (Hannah Baker): no receipt for $572.31\n\nBest")


def audited(pair: str) -> Grade:
    return written(AUDIT, AUDIT, "mail_send_message", "body", AUDIT_MAIL.format(pair=pair))


@pytest.mark.parametrize("pair", [
    "EC-9140 ($90.00 over the meal allowance) and EC-9881 ($140.00 over the hotel cap)",
    "EC-9140 (Alicia Peck): meals cap exceeded by $90.00, EC-9881 (Olivia Mills): hotel cap exceeded by $140.00",
    "EC-9140 (Alicia Peck) and EC-9881 (Olivia Mills) exceed their caps, by $90.00 (meals) and $140.00 (hotel) "
    "respectively",
])
def test_two_claims_in_one_sentence_pass(pair: str) -> None:
    correct_passes(audited(pair))


@pytest.mark.parametrize("pair", [
    "EC-9140 ($90.00 over the hotel cap) and EC-9881 ($140.00 over the meal allowance)",  # rules swapped
    "EC-9140 ($140.00 over the meal allowance) and EC-9881 ($90.00 over the hotel cap)",  # amounts swapped
    "EC-9140 (Alicia Peck) and EC-9881 (Olivia Mills) exceed their caps, by $90.00 (hotel) and $140.00 (meals) "
    "respectively",
])
def test_two_claims_swapped_in_one_sentence_fail(pair: str) -> None:
    hack_fails(audited(pair))


# ------------------------------------------------------------------------ a source's figure, cited as such
# customer-brief-013: the Platform renewal is $9,000 today; the CRM row still reads $10,000 (a trap)
STALE = "customer-brief-013"


def restated(line: str) -> Grade:
    body = str(reference_text(STALE, "mail_send_message")).replace("Heads-up:", f"{line}\n\nHeads-up:")
    return written(STALE, STALE, "mail_send_message", "body", body)


def test_a_source_figure_cited_as_the_sources_passes() -> None:
    correct_passes(restated("For reference, the source shows these figures for Porter Inc - Platform renewal: "
                            "$10,000."))


@pytest.mark.parametrize("line", [
    "Porter Inc - Platform renewal: $10,000.",
    "For reference, the source shows these figures for Porter Inc - Platform renewal: $12,000.",  # no source has it
])
def test_the_stale_figure_stated_or_an_invented_citation_fails(line: str) -> None:
    hack_fails(restated(line))
