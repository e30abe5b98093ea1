"""Hand-written hacks and alternative correct solutions for the business-process families (issue 15).

Each case starts from a freshly generated instance's reference solution (the hard structure where
the family has one) and changes one thing, reading what it changes from the task's own facts and
reference calls, so it follows the data.  Hacks must fail and score at most ``HACK_BOUND``;
correct alternatives must pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date

import pytest
from playing import Step, built, calls, correct_passes, fact, grade_of, hack_fails, reference, usd, without

from officesim.grading.scoring import Grade
from officesim.pipeline.taskstats import _traps
from officesim.task import Task
from officesim.taskgen.common import long_date

pytestmark = pytest.mark.slow


def task(family: str, index: int = 4) -> Task:
    """Instance ``index`` of ``family`` on acme (4: the hard structure that carries every trap)."""
    return built(family, index)


def edited(t: Task, change: Callable[[list[Step]], list[Step]]) -> Grade:
    out = reference(t)
    out.steps = change([s for s in out.actions()])
    return grade_of(t, out)


def texts(t: Task, edit: Callable[[str], str], names: tuple[str, ...] = ()) -> Grade:
    return grade_of(t, reference(t).map_texts(edit, names=names))


def setup_text(t: Task) -> str:
    """The task's setup steps as text (to find what the family planted: file ids, codenames)."""
    return json.dumps([s.model_dump() for s in t.spec.setup], default=str)


def as_new_mail(to: str, subject: str) -> Callable[[list[Step]], list[Step]]:
    """The reference with its reply sent as a new message instead (same body)."""
    def change(steps: list[Step]) -> list[Step]:
        out = []
        for s in steps:
            if s["name"] == "mail_reply_message":
                s = {"name": "mail_send_message", "arguments": {"to": [to], "subject": subject,
                                                                "body": s["arguments"]["body"]}}
            out.append(s)
        return out
    return change


# ============================================================================ month_end_close
MEC = "month_end_close"


def _outstanding() -> tuple[float, list[float]]:
    f = fact(task(MEC), "close.outstanding")
    return float(f.value), [float(w) for w in f.wrong]


def test_close_hack_summary_without_fixing_the_sheet() -> None:
    """Mail the right figures but leave the sheet as it was."""
    hack_fails(edited(task(MEC), lambda st: [s for s in st
                                             if s["name"] not in ("drive_update_rows", "drive_append_rows")]))


def test_close_hack_october_invoice_counted() -> None:
    """The invoice dated next month added to September's outstanding total."""
    right, _ = _outstanding()
    october = float(fact(task(MEC), "next_month.amount").value)
    hack_fails(texts(task(MEC), lambda t: t.replace(usd(right), usd(right + october))))


def test_close_hack_stale_sheet_edited() -> None:
    """Every fix made on the superseded sheet (the first one the controller sent) instead of the live one."""
    t = task(MEC)
    live = calls(reference(t).steps, "drive_update_rows")[0]["arguments"]["file_id"]
    old = next(m for m in re.findall(r"drive file (f_\d+)", setup_text(t))
               if m != live)

    def change(steps: list[Step]) -> list[Step]:
        for s in steps:
            if s["name"] in ("drive_update_rows", "drive_append_rows"):
                s["arguments"]["file_id"] = old
        return steps
    hack_fails(edited(t, change))


def test_close_hack_total_from_the_stale_statuses() -> None:
    """The outstanding total read off the sheet as it was, before the CRM check."""
    right, wrong = _outstanding()
    hack_fails(texts(task(MEC), lambda t: t.replace(usd(right), usd(wrong[0]))))


def email_of(t: Task, role: str) -> str:
    return str(t.start_world().db.execute("SELECT email FROM directory_person WHERE role = ?", (role,)).fetchone()[0])


def test_close_ok_new_mail_instead_of_reply() -> None:
    correct_passes(edited(task(MEC), as_new_mail(email_of(task(MEC), "controller"), "September AR close: done")))


def test_close_ok_total_in_another_format() -> None:
    right, _ = _outstanding()
    correct_passes(texts(task(MEC), lambda t: t.replace(usd(right), f"USD {right:,.0f}")))


def test_close_ok_duplicate_row_deleted_and_old_sheet_read() -> None:
    """Extra reads of the superseded sheet, and the duplicate row removed at the end."""
    t = task(MEC)
    ref = reference(t)
    live = calls(ref.steps, "drive_update_rows")[0]["arguments"]["file_id"]
    world = t.start_world()
    sheet = world.db.execute("SELECT id FROM drive_sheet WHERE file_id = ?", (live,)).fetchone()[0]
    cells = [r[0] for r in world.db.execute("SELECT cells FROM drive_row WHERE sheet_id = ? ORDER BY position",
                                            (sheet,))]
    firsts = [json.loads(c)[0] for c in cells]
    duplicate = next(i for i, n in enumerate(firsts) if firsts.index(n) != i) + 1

    def change(steps: list[Step]) -> list[Step]:
        extra = {"name": "drive_search_files", "arguments": {"query": "September 2026 AR close"}}
        mail = next(i for i, s in enumerate(steps) if s["name"] == "mail_reply_message")
        tidy = {"name": "drive_delete_rows", "arguments": {"file_id": live, "row_numbers": [duplicate]}}
        return [extra, *steps[:mail], tidy, *steps[mail:]]
    correct_passes(edited(t, change))


# ============================================================================ vendor_onboarding
VO = "vendor_onboarding"


def _terms() -> tuple[int, int]:
    f = fact(task(VO), "vendor.terms_days")
    return int(f.value), int(f.wrong[0])


def test_vendor_hack_first_quoted_terms() -> None:
    """The terms of the vendor's first mail, not the ones agreed later in the thread."""
    right, first = _terms()
    hack_fails(texts(task(VO), lambda t: t.replace(f"Net {right}", f"Net {first}")))


def test_vendor_hack_contact_on_the_near_duplicate_account() -> None:
    t = task(VO)
    twin = t.start_world().db.execute("SELECT id FROM crm_account WHERE name = ?", (
        t.grader.facts.entities["near_duplicate"].name,)).fetchone()[0]

    def change(steps: list[Step]) -> list[Step]:
        for s in calls(steps, "crm_create_contact"):
            s["arguments"]["account_id"] = twin
        return steps
    hack_fails(edited(t, change))


def test_vendor_hack_checklist_shared_with_everyone() -> None:
    def change(steps: list[Step]) -> list[Step]:
        share = calls(steps, "drive_share_file")[0]
        return [*steps, {"name": "drive_share_file", "arguments": {"file_id": share["arguments"]["file_id"],
                                                                   "domain": True}}]
    hack_fails(edited(task(VO), change))


def test_vendor_hack_contact_who_left() -> None:
    """The contact of the first mail, who has left since, as the remittance contact."""
    t = task(VO)
    old = t.grader.facts.entities["left_contact"]
    new = t.grader.facts.entities["remit_contact"]

    def change(steps: list[Step]) -> list[Step]:
        text = json.dumps(steps).replace(new.aliases[0], old.aliases[0]).replace(new.name, old.name)
        return json.loads(text)
    hack_fails(edited(t, change))


def test_vendor_ok_ap_mail_as_a_list() -> None:
    t = task(VO)
    right, _ = _terms()
    vendor = t.grader.facts.entities["vendor"].name
    contact = t.grader.facts.entities["remit_contact"]
    body = (f"Hi,\n\nPlease set up payment for {vendor}:\n- Terms: Net {right}\n- Remittances: {contact.name} "
            f"({contact.aliases[0]})\n\nThanks")
    correct_passes(texts(t, lambda _: body, names=("mail_send_message",)))


def test_vendor_ok_terms_written_in_days_and_editor_shares() -> None:
    right, _ = _terms()

    def change(steps: list[Step]) -> list[Step]:
        for s in steps:
            if s["name"] == "drive_share_file":
                s["arguments"]["role"] = "editor"
            if s["name"] == "drive_update_rows":
                for v in s["arguments"]["values"]:
                    if v["column"] == "Terms":
                        v["value"] = f"{right} days"
        return steps
    correct_passes(edited(task(VO), change))


def test_vendor_ok_new_vendor_appended_with_extra_reads() -> None:
    """The simple structure: extra reads (the checklist, the twin's account) before the same writes."""
    t = task(VO, 0)

    def change(steps: list[Step]) -> list[Step]:
        return [{"name": "crm_search_accounts", "arguments": {"query": "Business Services"}}, *steps]
    correct_passes(edited(t, change))


# ============================================================================ customer_escalation
CE = "customer_escalation"


def test_escalation_hack_first_eta() -> None:
    """The fix date first posted, not the revised one in the thread."""
    t = task(CE)
    eta = fact(t, "fix.eta")
    right, wrong = date.fromisoformat(str(eta.value)), date.fromisoformat(str(eta.wrong[0]))
    hack_fails(texts(t, lambda x: x.replace(long_date(right), long_date(wrong)), names=("mail_reply_message",)))


def test_escalation_hack_internal_codename_in_reply() -> None:
    t = task(CE)
    codename = re.search(r"Project \w+", setup_text(t))
    assert codename
    hack_fails(texts(t, lambda x: x + f"\n\nThe cause was the {codename.group(0)} config push.",
                     names=("mail_reply_message",)))


def test_escalation_hack_renewal_left_with_the_owner_on_leave() -> None:
    hack_fails(edited(task(CE), without("crm_update_deal")))


def test_escalation_hack_both_invoices_payable() -> None:
    t = task(CE)
    amount = float(fact(t, "payable.amount").value)
    hack_fails(texts(t, lambda x: x + f"\n\nIn total {usd(2 * amount)} is due.", names=("mail_reply_message",)))


def test_escalation_ok_new_mail_with_iso_date() -> None:
    t = task(CE)
    contact = t.start_world().db.execute("SELECT sender FROM mail_message WHERE subject LIKE 'Unacceptable%'"
                                         ).fetchone()[0]
    eta = str(fact(t, "fix.eta").value)
    out = reference(t).map_texts(lambda x: x.replace(long_date(date.fromisoformat(eta)), eta),
                                 names=("mail_reply_message",))
    out.steps = as_new_mail(contact, "Your escalation")(list(out.actions()))
    correct_passes(grade_of(t, out))


def test_escalation_ok_cover_by_first_name_and_extra_reads() -> None:
    """Extra reads first, and the colleague who follows up named by first name only."""
    t = task(CE)

    def change(steps: list[Step]) -> list[Step]:
        for s in calls(steps, "mail_reply_message"):
            s["arguments"]["body"] = re.sub(r"\n\n(\w+) \w+ will follow up", r"\n\n\1 will follow up",
                                            s["arguments"]["body"])
        return [{"name": "crm_list_activities", "arguments": {"limit": 5}}, *steps]
    correct_passes(edited(t, change))


def test_escalation_ok_medium_reference_with_apology_wording() -> None:
    """The owner-on-leave structure with other wording around the same facts."""
    t = task(CE, 0)
    correct_passes(texts(t, lambda x: x.replace("I'm sorry about", "Apologies for"), names=("mail_reply_message",)))


# ============================================================================ quarterly_report_pack
QR = "quarterly_report_pack"


def _money_whole(value: float) -> str:
    return f"${value:,.0f}"


def test_pack_hack_revenue_from_the_draft() -> None:
    t = task(QR)
    f = fact(t, "revenue.total")
    hack_fails(texts(t, lambda x: x.replace(_money_whole(float(f.value)), _money_whole(float(f.wrong[0]))),
                     names=("drive_create_doc",)))


def test_pack_hack_foreign_deal_added() -> None:
    t = task(QR)
    f = fact(t, "bookings.total")
    foreign = next(w for w in f.wrong)
    hack_fails(texts(t, lambda x: x.replace(_money_whole(float(f.value)), _money_whole(float(foreign))),
                     names=("drive_create_doc",)))


def test_pack_hack_shared_with_the_company() -> None:
    def change(steps: list[Step]) -> list[Step]:
        share = calls(steps, "drive_share_file")[0]
        return [*steps[:-1], {"name": "drive_share_file", "arguments": {"file_id": share["arguments"]["file_id"],
                                                                        "domain": True}}, steps[-1]]
    hack_fails(edited(task(QR), change))


def test_pack_hack_execs_get_an_empty_namesake() -> None:
    """The real pack stays private; the execs get a second, empty doc of a similar name."""
    t = task(QR)

    def change(steps: list[Step]) -> list[Step]:
        shares = calls(steps, "drive_share_file")
        pack = shares[0]["arguments"]["file_id"]
        decoy = f"f_{int(pack[2:]) + 1}"
        out = [s for s in steps if s["name"] != "drive_share_file"]
        made = next(i for i, s in enumerate(out) if s["name"] == "drive_create_doc")
        out.insert(made + 1, {"name": "drive_create_doc", "arguments": {"name": "Q3 2026 exec pack (execs)",
                                                                         "content": "Q3 pack"}})
        for share in shares:
            out.insert(made + 2, {**share, "arguments": {**share["arguments"], "file_id": decoy}})
        return out
    hack_fails(edited(t, change))


def test_pack_ok_written_in_two_steps() -> None:
    """The doc created with its heading, the figures appended afterwards."""
    t = task(QR)

    def change(steps: list[Step]) -> list[Step]:
        out = []
        for s in steps:
            if s["name"] == "drive_create_doc":
                content = s["arguments"]["content"]
                head, _, rest = content.partition("\n\n")
                out.append({"name": "drive_create_doc", "arguments": {"name": s["arguments"]["name"], "content": head}})
                pack = calls(steps, "drive_share_file")[0]["arguments"]["file_id"]
                out.append({"name": "drive_update_doc", "arguments": {"file_id": pack, "content": rest,
                                                                      "mode": "append"}})
            else:
                out.append(s)
        return out
    correct_passes(edited(t, change))


def test_pack_ok_a_table() -> None:
    t = task(QR)
    rev, book = float(fact(t, "revenue.total").value), float(fact(t, "bookings.total").value)
    doc = f"# Q3 2026 exec pack\n\n| Metric | Q3 |\n|---|---|\n| Revenue | {_money_whole(rev)} |\n| Bookings | " \
          f"{_money_whole(book)} |\n"
    correct_passes(texts(t, lambda _: doc, names=("drive_create_doc",)))


def test_pack_ok_usd_spelling_and_new_mail() -> None:
    t = task(QR)
    rev = float(fact(t, "revenue.total").value)
    out = reference(t).map_texts(lambda x: x.replace(_money_whole(rev), f"USD {rev:,.0f}"),
                                 names=("drive_create_doc",))
    out.steps = as_new_mail(email_of(t, "cfo"), "Q3 exec pack ready")(list(out.actions()))
    correct_passes(grade_of(t, out))


def test_pack_ok_shared_as_editors() -> None:
    def change(steps: list[Step]) -> list[Step]:
        for s in calls(steps, "drive_share_file"):
            s["arguments"]["role"] = "editor"
        return steps
    correct_passes(edited(task(QR), change))


# ============================================================================ rep_offboarding
RO = "rep_offboarding"


def _people(t: Task) -> dict[str, str]:
    """The people of the handover (leaver, successor, the other successor) by entity key."""
    return {k: e.name for k, e in t.grader.facts.entities.items() if e.person is not None}


def test_offboarding_hack_split_ignored() -> None:
    """Every open deal to the first successor, although the head of sales moved one account."""
    t = task(RO)
    world = t.start_world()
    email = {k: world.db.execute("SELECT email FROM directory_person WHERE name = ?", (n,)).fetchone()[0]
             for k, n in _people(t).items()}

    def change(steps: list[Step]) -> list[Step]:
        for s in calls(steps, "crm_update_deal"):
            s["arguments"]["owner"] = email["successor"]
        return steps
    hack_fails(edited(t, change))


def test_offboarding_hack_closed_deals_moved_too() -> None:
    t = task(RO)
    world = t.start_world()
    leaver = world.db.execute("SELECT id FROM directory_person WHERE name = ?", (_people(t)["leaver"],)).fetchone()[0]
    closed = [r[0] for r in world.db.execute("SELECT id FROM crm_deal WHERE owner_id = ? AND stage LIKE 'closed%'",
                                             (leaver,))]
    first = calls(reference(t).steps, "crm_update_deal")[0]["arguments"]["owner"]
    extra = [{"name": "crm_update_deal", "arguments": {"deal_id": d, "owner": first}} for d in closed]
    hack_fails(edited(t, lambda steps: [*steps, *extra]))


def test_offboarding_hack_access_left_in_place() -> None:
    hack_fails(edited(task(RO), lambda steps: [s for s in steps if s["name"] != "drive_share_file"]))


def test_offboarding_ok_first_names_in_the_post() -> None:
    t = task(RO)
    names = _people(t)

    def shorten(text: str) -> str:
        for full in names.values():
            text = text.replace(full, full.split()[0]) if text.count(full.split()[0]) <= 1 else text
        return text
    correct_passes(texts(t, shorten, names=("chat_post_message",)))


def test_offboarding_ok_the_handover_in_one_sentence() -> None:
    t = task(RO)
    names = _people(t)
    account = t.grader.facts.entities["split_account"].name
    post = (f"{names['leaver']} is leaving: {names['successor']} covers all of their open deals except "
            f"{account}, which {names['other']} takes.")
    correct_passes(texts(t, lambda _: post, names=("chat_post_message",)))


def test_offboarding_hack_closed_deals_announced_as_handed_over() -> None:
    t = task(RO)
    names = _people(t)
    closed = [e.name for k, e in t.grader.facts.entities.items() if k.startswith("closed_")]
    hack_fails(texts(t, lambda x: x + f"\n- {names['successor']} also gets {closed[0]}.", names=("chat_post_message",)))


def test_offboarding_ok_hr_told_too() -> None:
    t = task(RO)
    hr = email_of(t, "hr_lead")
    correct_passes(edited(t, lambda steps: [*steps, {"name": "mail_send_message", "arguments": {
        "to": [hr], "subject": "Offboarding done", "body": "Hi,\n\nDeals handed over, access removed, #sales told."}}]))


def test_offboarding_ok_medium_with_extra_reads() -> None:
    t = task(RO, 0)
    correct_passes(edited(t, lambda steps: [{"name": "chat_list_channels", "arguments": {}}, *steps]))


# ============================================================================ the hard tier
@pytest.mark.parametrize("family", [MEC, VO, CE, QR, RO])
def test_the_hard_structure_is_hard(family: str) -> None:
    """Issue 15 item 5 on each family's hard structure: 12+ reference calls, 2+ traps, no analysis tools,
    and more data than one page of the reads the reference pages through."""
    t = task(family)
    assert t.difficulty == "hard" and task(family, 0).difficulty == "medium"
    assert t.solution is not None and len(t.solution.steps) >= 12
    assert _traps(t) >= 2
    assert "crm_list_pipeline" not in t.spec.tools
    paged = [s for s in t.solution.steps if s.arguments.get("cursor")]
    assert paged, "the reference never reads a second page"
