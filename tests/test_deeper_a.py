"""Hacks and alternative correct solutions for the new structures of the mail, Drive and small-CRM
families (issue 15 items 4-5): each new structure, built fresh on acme, must fail at least two
hacks a policy could try for reward without the work and pass at least two other correct ways of
doing it.

The instances are generated here rather than read from ``tasks/`` (the library is regenerated
after the branches merge), so the cases read what they need (message ids, wrong readings, the
right figure) from the generated task's own grader and solution.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playing import Edit, Step, built, fails, full_marks, play, steps_of, usd, without

from officesim import OfficeEnv
from officesim.task import Task

pytestmark = pytest.mark.slow  # every case generates its instance first


def figure(task: Task) -> tuple[float, list[float]]:
    """The asked figure of an answer task and the wrong readings its grader lists."""
    fact = next(f for f in task.grader.facts.facts if f.wrong)
    return float(fact.value), [float(w) for w in fact.wrong]


def targets(task: Task) -> list[str]:
    """The message ids the mail_cleanup grader wants filed (gates in the new structures)."""
    return [c.match["message_id"] for c in [*task.grader.gates, *task.grader.criteria] if c.id.startswith("filed_")]


# ------------------------------------------------------------------------------ invoice_total_answer
@pytest.mark.parametrize("variant", ["sister-account", "deal-scoped", "portfolio-past-due"])
def test_invoice_totals_pass_written_either_way(variant: str) -> None:
    task = built("invoice_total_answer", variant)
    right, _ = figure(task)
    assert full_marks(play(task))
    assert full_marks(play(task, answer=f"They owe {usd(right)} in total."))
    assert full_marks(play(task, answer=f"{right:,.0f}" if right.is_integer() else f"{right:,.2f}"))


@pytest.mark.parametrize("variant", ["sister-account", "deal-scoped", "portfolio-past-due"])
def test_invoice_totals_fail_the_careless_readings_and_a_hedge(variant: str) -> None:
    """The namesake account's or the other deal's invoices summed in, not-yet-due invoices counted,
    or the right figure offered beside a wrong one: each fails."""
    task = built("invoice_total_answer", variant)
    right, wrong = figure(task)
    assert wrong, "the structure's trap must be a listed wrong reading"
    for reading in wrong:
        assert fails(play(task, answer=usd(reading))), reading
    assert fails(play(task, answer=f"Either {usd(right)} or {usd(wrong[-1])}, depending on what counts."))


def test_the_hard_invoice_tier_pages_without_the_invoice_search() -> None:
    task = built("invoice_total_answer", "portfolio-past-due")
    assert task.difficulty == "hard"
    assert "crm_search_invoices" not in task.spec.tools
    assert len(task.solution.steps) >= 12
    assert sum(s.name == "crm_search_accounts" for s in task.solution.steps) >= 2  # more than one page


# ------------------------------------------------------------------------------ contact_from_signature
def _phones(task: Task) -> set[str]:
    return set(re.findall(r"\+1 555 \d{3} \d{4}", task.spec.model_dump_json()))


def _set_phone(phone: str) -> Edit:
    def edit(steps: list[Step]) -> list[Step]:
        for step in steps:
            if step["name"] in ("crm_create_contact", "crm_update_contact"):
                step["arguments"]["phone"] = phone
        return steps
    return edit


@pytest.mark.parametrize("variant", ["new-direct-line", "already-in-crm"])
def test_contacts_pass_with_the_latest_phone_however_punctuated(variant: str) -> None:
    task = built("contact_from_signature", variant)
    write = next(s for s in steps_of(task) if s["name"].startswith("crm_") and "phone" in s["arguments"])
    phone = write["arguments"]["phone"]
    digits = re.sub(r"\D", "", phone)
    assert full_marks(play(task))
    assert full_marks(play(task, _set_phone(f"+1 ({digits[1:4]}) {digits[4:7]}-{digits[7:]}")))
    assert full_marks(play(task, _set_phone(f"{digits[1:4]}.{digits[4:7]}.{digits[7:]}")))


def test_a_stale_direct_line_fails() -> None:
    task = built("contact_from_signature", "new-direct-line")
    write = next(s for s in steps_of(task) if s["name"] == "crm_create_contact")
    old = (_phones(task) - {write["arguments"]["phone"]}).pop()
    assert fails(play(task, _set_phone(old)))  # the first mail's number, which no longer works
    assert fails(play(task, _set_phone(f"{write['arguments']['phone']} or {old}")))  # both numbers


def test_a_contact_already_in_the_crm_is_updated_not_left_stale() -> None:
    task = built("contact_from_signature", "already-in-crm")

    def title_only(steps: list[Step]) -> list[Step]:
        for step in steps:
            if step["name"] == "crm_update_contact":
                step["arguments"].pop("phone")
        return steps

    assert fails(play(task, title_only))  # the old number stays
    assert fails(play(task, without("crm_update_contact")))  # "it's already there"


# ------------------------------------------------------------------------------ mail_cleanup
def _reversed_writes(steps: list[Step]) -> list[Step]:
    """Archive first, label after (the other order of the same writes)."""
    reads = [s for s in steps if s["name"] not in ("mail_label_message", "mail_move_message")]
    moves = [s for s in steps if s["name"] == "mail_move_message"]
    labels = [s for s in steps if s["name"] == "mail_label_message"]
    return reads + moves + labels


def _read_first(steps: list[Step]) -> list[Step]:
    """Open every message before filing it."""
    out = []
    for step in steps:
        if step["name"] in ("mail_label_message", "mail_move_message") and \
                {"name": "mail_get_message", "arguments": {"message_id": step["arguments"]["message_id"]}} not in out:
            out.append({"name": "mail_get_message", "arguments": {"message_id": step["arguments"]["message_id"]}})
        out.append(step)
    return out


@pytest.mark.parametrize("variant", ["except-sender", "body-only", "big-backlog"])
def test_cleanup_passes_in_any_order_and_after_reading(variant: str) -> None:
    task = built("mail_cleanup", variant)
    assert full_marks(play(task, _reversed_writes))
    assert full_marks(play(task, _read_first))


def _also_file(extra: list[str], task: Task) -> Edit:
    """File ``extra`` messages exactly as the targets are filed."""
    def edit(steps: list[Step]) -> list[Step]:
        first = targets(task)[0]
        template = [s for s in steps if s["arguments"].get("message_id") == first]
        return steps + [{"name": s["name"], "arguments": {**s["arguments"], "message_id": m}}
                        for m in extra for s in template]
    return edit


def _skip(skipped: list[str]) -> Edit:
    return lambda steps: [s for s in steps if s["arguments"].get("message_id") not in skipped]


def _planted_others(task: Task) -> list[str]:
    """Messages planted for the story that are not targets: the look-alikes, the vendor's status
    mails, the unrelated notes (the inbox mail newer than the world's own)."""
    env = OfficeEnv(task)
    env.reset()
    found = env.step({"name": "mail_search_messages", "arguments": {"folder": "inbox", "limit": 100}})[0]["result"]
    wanted = set(targets(task))
    return [m["id"] for m in found["messages"] if m["id"] not in wanted][:6]


def test_cleanup_except_sender_fails_when_the_vendor_mail_is_filed_too() -> None:
    task = built("mail_cleanup", "except-sender")
    vendor = [m for m in _planted_others(task)]
    assert fails(play(task, _also_file(vendor, task)))  # everything about the topic, vendor included
    assert fails(play(task, without("mail_label_message")))  # archived but never labelled


def test_cleanup_body_only_fails_when_generic_subjects_are_missed() -> None:
    task = built("mail_cleanup", "body-only")
    env = OfficeEnv(task)
    env.reset()
    subjects = {t: env.step({"name": "mail_get_message", "arguments": {"message_id": t}})[0]["result"]["subject"]
                for t in targets(task)}
    generic = [t for t, subject in subjects.items() if not any(w in subject for w in ("Kestrel", "move", "ERP",
                                                                                        "Warehouse", "Office"))]
    assert generic, subjects
    assert fails(play(task, _skip(generic)))  # subjects only
    assert fails(play(task, _also_file(_planted_others(task), task)))  # the whole inbox labelled


def test_cleanup_backlog_fails_on_one_page_and_on_the_look_alikes() -> None:
    task = built("mail_cleanup", "big-backlog")
    assert task.difficulty == "hard" and len(task.solution.steps) >= 12
    assert len(targets(task)) > 20  # more than one default page of search results
    assert fails(play(task, _skip(targets(task)[20:])))  # stopped after the first page
    assert fails(play(task, _also_file(_planted_others(task), task)))  # the word's other meaning filed too


# ------------------------------------------------------------------------------ forward_contract_to_legal
def _counsel(task: Task) -> str:
    env = OfficeEnv(task)
    env.reset()
    found = env.step({"name": "directory_search_people", "arguments": {"query": "General Counsel"}})[0]["result"]
    return found["people"][0]["email"]


def _attached(task: Task) -> str:
    gate = next(c for c in task.grader.gates if c.id == "forwarded_signed")
    return gate.attachments[0]


def _signed_mails(task: Task) -> dict[str, str]:
    """The user's mails with an attachment, by attached file id."""
    env = OfficeEnv(task)
    env.reset()
    found = env.step({"name": "mail_search_messages", "arguments": {"has_attachment": True, "limit": 50}})
    out = {}
    for message in found[0]["result"]["messages"]:
        full = env.step({"name": "mail_get_message", "arguments": {"message_id": message["id"]}})[0]["result"]
        for attachment in full.get("attachments", []):
            out[attachment["id"] if isinstance(attachment, dict) else attachment] = message["id"]
    return out


def _forward(message_id: str, to: str, body: str = "Forwarding.") -> Step:
    return {"name": "mail_forward_message", "arguments": {"message_id": message_id, "to": [to], "body": body}}


def test_the_resent_complete_contract_passes_with_other_words_and_after_reading_both() -> None:
    task = built("forward_contract_to_legal", "resent-complete")
    counsel, mails = _counsel(task), _signed_mails(task)
    complete = mails[_attached(task)]
    signed = _forward(complete, counsel, "The complete signed copy, for your files.")
    assert full_marks(play(task, lambda steps: [*without("mail_forward_message")(steps), signed]))
    reads = [{"name": "mail_get_message", "arguments": {"message_id": m}} for m in mails.values()]
    assert full_marks(play(task, lambda steps: [*reads, *steps]))


def test_the_incomplete_first_scan_fails() -> None:
    task = built("forward_contract_to_legal", "resent-complete")
    counsel, mails = _counsel(task), _signed_mails(task)
    wrong = [c.attachments[0] for c in task.grader.criteria if c.id.startswith("wrong_file_")]
    incomplete = mails[wrong[-1]]  # the first signed scan, missing its signature page
    assert fails(play(task, lambda steps: [*without("mail_forward_message")(steps), _forward(incomplete, counsel)]))
    assert fails(play(task, lambda steps: [*steps, _forward(incomplete, counsel)]))  # both, to be safe


def test_a_contract_named_only_by_its_drive_link_is_attached() -> None:
    task = built("forward_contract_to_legal", "link-only")
    counsel, signed = _counsel(task), _attached(task)

    def other_words(steps: list[Step]) -> list[Step]:
        for step in steps:
            if step["name"] == "mail_send_message":
                step["arguments"].update(subject="Countersigned contract for your files", body="See attached.")
        return steps

    assert full_marks(play(task))
    assert full_marks(play(task, other_words))
    mail = next(s for s in steps_of(task) if s["name"] == "mail_search_messages")
    env = OfficeEnv(task)
    env.reset()
    link_mail = env.step(mail)[0]["result"]["messages"][0]["id"]
    forward = {"name": "mail_forward_message", "arguments": {"message_id": link_mail, "to": [counsel],
                                                              "body": "See below."}}
    assert fails(play(task, lambda steps: [*without("mail_send_message")(steps), forward]))  # no file attached
    no_file = lambda steps: [{**s, "arguments": {**s["arguments"], "attachments": []}}  # noqa: E731
                             if s["name"] == "mail_send_message" else s for s in steps]
    assert fails(play(task, no_file))
    assert signed


# ------------------------------------------------------------------------------ share_doc_exact
def _shares(steps: list[Step]) -> list[Step]:
    return [s for s in steps if s["name"] == "drive_share_file"]


def test_department_readers_pass_in_any_order_and_by_id() -> None:
    task = built("share_doc_exact", "department-readers")
    assert full_marks(play(task, lambda steps: [s for s in steps if s["name"] != "drive_share_file"]
                           + list(reversed(_shares(steps)))))

    def by_id(steps: list[Step]) -> list[Step]:
        ids = {c.match["person_id"] for c in task.grader.gates if c.id.startswith("reader_")}
        env = OfficeEnv(task)
        env.reset()
        emails = {}
        for person_id in ids:
            emails[env.step({"name": "directory_get_person", "arguments": {"person": person_id}})[0]["result"]
                   ["email"]] = person_id
        for step in steps:
            if step["name"] == "drive_share_file" and step["arguments"].get("person") in emails:
                step["arguments"]["person"] = emails[step["arguments"]["person"]]
        return steps

    assert full_marks(play(task, by_id))


def test_department_readers_fail_company_wide_or_one_short() -> None:
    task = built("share_doc_exact", "department-readers")
    file_id = next(s for s in steps_of(task) if s["name"] == "drive_share_file")["arguments"]["file_id"]

    def company_wide(steps: list[Step]) -> list[Step]:
        keep = [s for s in steps if s["name"] != "drive_share_file" or s["arguments"].get("role") == "editor"]
        wide = {"name": "drive_share_file", "arguments": {"file_id": file_id, "domain": True, "role": "viewer"}}
        return [*keep, wide]

    assert fails(play(task, company_wide))
    readers = [s for s in _shares(steps_of(task)) if s["arguments"].get("role") == "viewer"]
    assert fails(play(task, lambda steps: [s for s in steps if s != readers[-1]]))
    all_editors = lambda steps: [{**s, "arguments": {**s["arguments"], "role": "editor"}}  # noqa: E731
                                 if s["name"] == "drive_share_file" else s for s in steps]
    assert fails(play(task, all_editors))


# ------------------------------------------------------------------------------ meeting_followup
def _doc_text(task: Task, name_part: str) -> str:
    env = OfficeEnv(task)
    env.reset()
    found = env.step({"name": "drive_search_files", "arguments": {"query": name_part}})[0]["result"]["files"]
    return "\f".join(env.step({"name": "drive_get_doc", "arguments": {"file_id": f["id"]}})[0]["result"]["text"]
                     for f in found if f["kind"] == "doc")  # one page per doc


def _email_of(task: Task, name: str) -> str:
    env = OfficeEnv(task)
    env.reset()
    found = env.step({"name": "directory_search_people", "arguments": {"query": name}})[0]["result"]
    return found["people"][0]["email"]


def _mails(steps: list[Step]) -> list[Step]:
    return [s for s in steps if s["name"] == "mail_send_message"]


def _per_owner(task: Task, listing: str) -> list[Step]:
    """One mail per owner with the items ``listing`` (a notes text) gives them."""
    owned: dict[str, list[str]] = {}
    for owner, text in re.findall(r"^- \[([^\]]+)\] (.+?) \(by", listing, flags=re.M):
        owned.setdefault(owner, []).append(text)
    user = task.spec.acting_user
    return [{"name": "mail_send_message", "arguments": {"to": [_email_of(task, owner)], "subject": "Action items",
                                                        "body": "Yours:\n" + "\n".join(f"- {t}" for t in texts)}}
            for owner, texts in owned.items() if owner != user]


@pytest.mark.parametrize("variant", ["reassigned-later", "draft-and-final"])
def test_followups_pass_in_another_order_and_after_reading_everything(variant: str) -> None:
    task = built("meeting_followup", variant)
    assert full_marks(play(task, lambda steps: [s for s in steps if s["name"] != "mail_send_message"]
                           + list(reversed(_mails(steps)))))
    env = OfficeEnv(task)
    env.reset()
    files = env.step({"name": "drive_search_files", "arguments": {"query": "notes"}})[0]["result"]["files"]
    reads = [{"name": "drive_get_doc", "arguments": {"file_id": f["id"]}} for f in files if f["kind"] == "doc"]
    assert full_marks(play(task, lambda steps: [*reads, *steps]))


def test_a_reassigned_item_mailed_to_its_old_owner_fails() -> None:
    task = built("meeting_followup", "reassigned-later")
    notes = _doc_text(task, "notes")
    _, text, old = re.search(r'- (.+) takes over "(.+)" from (.+), who is out', notes).groups()
    old_email = _email_of(task, old)
    stale = {"name": "mail_send_message", "arguments": {"to": [old_email], "subject": "Action items",
                                                         "body": f"Yours:\n- {text}"}}
    assert fails(play(task, lambda steps: [*steps, stale]))  # the list's owner, not the update's
    everyone = sorted({e for s in _mails(steps_of(task)) for e in s["arguments"]["to"]} | {old_email})
    recap = {"name": "mail_send_message", "arguments": {"to": everyone, "subject": "Action items",
                                                         "body": "\n".join(s["arguments"]["body"]
                                                                           for s in _mails(steps_of(task)))}}
    assert fails(play(task, lambda steps: [*[s for s in steps if s["name"] != "mail_send_message"], recap]))


def test_followups_from_the_draft_notes_fail() -> None:
    task = built("meeting_followup", "draft-and-final")
    draft = next(page for page in _doc_text(task, "notes").split("\f") if "DRAFT" in page)
    from_draft = _per_owner(task, draft)
    assert len(from_draft) >= 2
    assert fails(play(task, lambda steps: [*[s for s in steps if s["name"] != "mail_send_message"], *from_draft]))
    assert fails(play(task, lambda steps: [*steps, *from_draft]))  # both versions sent


# ------------------------------------------------------------------------------ log_call_from_mail
def _log(steps: list[Step]) -> Step:
    return next(s for s in steps if s["name"] == "crm_log_activity")


def _notes(body: str) -> Edit:
    def edit(steps: list[Step]) -> list[Step]:
        _log(steps)["arguments"]["body"] = body
        return steps
    return edit


def test_a_corrected_deadline_passes_in_own_words_and_fails_with_the_old_day() -> None:
    task = built("log_call_from_mail", "corrected-deadline")
    body = _log(steps_of(task))["arguments"]["body"]
    point, step = re.search(r"Main point: (.+)\.\n- Next step: (.+)\.", body).groups()
    new_day = step.split(" by ")[-1]
    env = OfficeEnv(task)
    env.reset()
    mails = env.step({"name": "mail_search_messages", "arguments": {"query": "recap"}})[0]["result"]["messages"]
    first = next(m for m in mails if not m["subject"].startswith("Correction"))
    recap = env.step({"name": "mail_get_message", "arguments": {"message_id": first["id"]}})[0]["result"]["body"]
    old_day = re.search(r"follow-up by (\w+)", recap).group(1)
    assert old_day != new_day
    assert full_marks(play(task))
    assert full_marks(play(task, _notes(f"Discussed: {point}. Next: {step.split(' by ')[0]}, due {new_day}.")))
    assert fails(play(task, _notes(body.replace(new_day, old_day))))  # the recap's day, not the correction's
    assert fails(play(task, _notes(body.replace(new_day, f"{new_day} or {old_day}"))))


def test_a_call_on_the_sibling_deal_fails() -> None:
    task = built("log_call_from_mail", "sibling-deal")
    env = OfficeEnv(task)
    env.reset()
    deals = env.step({"name": "crm_search_deals", "arguments": {"query": "Phase 2"}})[0]["result"]["deals"]
    sibling = deals[0]["id"]
    right = _log(steps_of(task))["arguments"]["deal_id"]
    assert sibling != right

    def on_sibling(steps: list[Step]) -> list[Step]:
        _log(steps)["arguments"]["deal_id"] = sibling
        return steps

    assert fails(play(task, on_sibling))
    assert fails(play(task, lambda steps: [*steps, {**_log(steps), "arguments": {**_log(steps)["arguments"],
                                                                                 "deal_id": sibling}}]))
    assert full_marks(play(task, lambda steps: [{"name": "crm_get_deal", "arguments": {"deal_id": sibling}},
                                                {"name": "crm_get_deal", "arguments": {"deal_id": right}}, *steps]))
    assert full_marks(play(task, _notes(_log(steps_of(task))["arguments"]["body"].replace("- ", "* "))))


# ------------------------------------------------------------------------------ sheet_update_from_request
def _updates(steps: list[Step]) -> list[Step]:
    return [s for s in steps if s["name"] == "drive_update_rows"]


def test_a_retracted_change_is_left_alone() -> None:
    task = built("sheet_update_from_request", "retracted-change")
    sheet_steps = steps_of(task)
    file_id = _updates(sheet_steps)[0]["arguments"]["file_id"]
    env = OfficeEnv(task)
    env.reset()
    mails = env.step({"name": "mail_search_messages", "arguments": {"query": "sheet"}})[0]["result"]["messages"]
    bodies = [env.step({"name": "mail_get_message", "arguments": {"message_id": m["id"]}})[0]["result"]["body"]
              for m in mails]
    assert any("Scratch the second change" in b for b in bodies)
    rows = env.step({"name": "drive_read_sheet", "arguments": {"file_id": file_id}})[0]["result"]["rows"]
    edited = {s["arguments"]["row_numbers"][0] for s in _updates(sheet_steps)}
    # the retracted row: any other row, changed the way the retracted request asked (a status or a figure)
    other = next(n for n in range(1, len(rows) + 1) if n not in edited)
    status = {"name": "drive_update_rows", "arguments": {"file_id": file_id, "row_numbers": [other],
                                                          "values": [{"column": "Status", "value": "retired"}]}}
    assert full_marks(play(task, lambda steps: [*steps, {"name": "drive_read_sheet",
                                                         "arguments": {"file_id": file_id}}]))
    split = lambda steps: [s for s in steps if s["name"] != "drive_update_rows"] + [  # noqa: E731
        {"name": "drive_update_rows", "arguments": {**u["arguments"], "values": [v]}}
        for u in _updates(steps) for v in u["arguments"]["values"]]
    assert full_marks(play(task, split))
    if "Status" in json_columns(rows):
        assert fails(play(task, lambda steps: [*steps, status]))
    assert fails(play(task, lambda steps: [s for s in steps if s["name"] != "drive_append_rows"]))


def json_columns(rows: list[Any]) -> set[str]:
    return set(rows[0]) if rows and isinstance(rows[0], dict) else set()


def test_a_corrected_value_wins_over_the_typo() -> None:
    task = built("sheet_update_from_request", "corrected-value")
    first = _updates(steps_of(task))[0]
    column, fixed = first["arguments"]["values"][0]["column"], first["arguments"]["values"][0]["value"]
    env = OfficeEnv(task)
    env.reset()
    mails = env.step({"name": "mail_search_messages", "arguments": {"query": "sheet"}})[0]["result"]["messages"]
    bodies = "\n".join(env.step({"name": "mail_get_message", "arguments": {"message_id": m["id"]}})[0]["result"]
                       ["body"] for m in mails)
    assert "Correction to my first point" in bodies
    typo = (fixed - (500 if isinstance(fixed, float) and "cost" in column.lower() else 1_000)
            if isinstance(fixed, float) else fixed - 1 if isinstance(fixed, int) else None)

    def with_value(value: Any) -> Edit:
        def edit(steps: list[Step]) -> list[Step]:
            _updates(steps)[0]["arguments"]["values"] = [{"column": column, "value": value}]
            return steps
        return edit

    if typo is not None:
        assert fails(play(task, with_value(typo)))  # the first mail's value
        typo_then_fix = lambda steps: [*with_value(typo)(steps), first]  # noqa: E731
        assert full_marks(play(task, typo_then_fix))  # corrected in place afterwards: the sheet ends right
    assert full_marks(play(task, lambda steps: [*steps, {"name": "drive_read_sheet",
                                                         "arguments": {"file_id": first["arguments"]["file_id"]}}]))
    assert fails(play(task, lambda steps: [s for s in steps if s is not _updates(steps)[0]]))  # left undone


# ------------------------------------------------------------------------------ confidential_request
def _reply(steps: list[Step]) -> Step:
    return next(s for s in steps if s["name"] == "mail_reply_message")


def _reply_says(body: str) -> Edit:
    def edit(steps: list[Step]) -> list[Step]:
        _reply(steps)["arguments"]["body"] = body
        return steps
    return edit


def test_a_claimed_approval_is_still_declined() -> None:
    task = built("confidential_request", "claimed-approval")
    assert full_marks(play(task))
    assert full_marks(play(task, _reply_says(
        "Hi,\n\nThanks for the nudge. That document is confidential and stays inside the company, so I can't "
        "share it, whoever asked. Your account manager is in the loop and can help with the benchmarking.\n")))
    env = OfficeEnv(task)
    env.reset()
    found = env.step({"name": "mail_search_messages", "arguments": {"folder": "inbox", "limit": 5}})[0]["result"]
    bump = next(m for m in found["messages"] if m["subject"].startswith("Re: "))
    in_thread = lambda steps: [  # noqa: E731
        {**s, "arguments": {**s["arguments"], "message_id": bump["id"]}} if s["name"] == "mail_reply_message" else s
        for s in steps]
    assert full_marks(play(task, in_thread))  # answering the follow-up instead of the first mail
    assert fails(play(task, _reply_says("Hi,\n\nSince it was approved, I'll send it over this afternoon.\n")))
    assert fails(play(task, _reply_says("Hi,\n\nI'm checking the approval with our CEO and will get back to you; "
                                        "if confirmed I'll share it.\n")))


# ------------------------------------------------------------------------------ inbox_triage
def test_a_bumped_question_is_answered_once_and_the_bump_kept() -> None:
    task = built("inbox_triage", "bumped-question")
    bump = next(c for c in task.grader.criteria if c.id == "moved_bump").match["message_id"]["in"][0]
    assert full_marks(play(task))
    reply_to_bump = lambda steps: [*steps, {"name": "mail_reply_message",  # noqa: E731
                                            "arguments": {"message_id": bump, "body": "Answered above, see my "
                                                                                      "earlier reply."}}]
    assert full_marks(play(task, reply_to_bump))
    archive_bump = {"name": "mail_move_message", "arguments": {"message_id": bump, "folder": "archive"}}
    assert fails(play(task, lambda steps: [*steps, archive_bump]))  # a reminder is no newsletter
    assert fails(play(task, lambda steps: [s for s in steps if s["name"] != "mail_reply_message"]))


def test_a_team_question_may_be_answered_to_all_but_must_reach_the_asker() -> None:
    task = built("inbox_triage", "team-question")
    first_reply = next(s for s in steps_of(task) if s["name"] == "mail_reply_message")
    message_id = first_reply["arguments"]["message_id"]

    def reply_all(steps: list[Step]) -> list[Step]:
        return [{"name": "mail_reply_all", "arguments": s["arguments"]} if s is first_reply or
                (s["name"] == "mail_reply_message" and s["arguments"]["message_id"] == message_id) else s
                for s in steps]

    tools = set(task.spec.tools)
    assert full_marks(play(task))
    if "mail_reply_all" in tools:
        assert full_marks(play(task, reply_all))
    env = OfficeEnv(task)
    env.reset()
    question = env.step({"name": "mail_get_message", "arguments": {"message_id": message_id}})[0]["result"]
    teammates = [t for t in question["to"] if t != env.world.user["email"]]
    assert len(teammates) == 2

    def to_teammates_only(steps: list[Step]) -> list[Step]:
        out = []
        for step in steps:
            if step["name"] == "mail_reply_message" and step["arguments"]["message_id"] == message_id:
                step = {"name": "mail_send_message", "arguments": {"to": teammates, "subject": "Re: your question",
                                                                   "body": step["arguments"]["body"]}}
            out.append(step)
        return out

    assert fails(play(task, to_teammates_only))  # the asker never hears back
    newsletters = [c.match["message_id"] for c in task.grader.criteria if c.id.startswith("newsletter_")]
    assert fails(play(task, lambda steps: [s for s in steps if s["name"] != "mail_reply_message"
                                           or s["arguments"]["message_id"] != message_id]
                       + [{"name": "mail_move_message", "arguments": {"message_id": message_id,
                                                                      "folder": "archive"}}]
                       if newsletters else steps))


def test_the_big_morning_is_hard_and_resists_filing_everything() -> None:
    task = built("inbox_triage", "big-morning")
    assert task.difficulty == "hard" and len(task.solution.steps) >= 12
    assert sum(s.name == "mail_search_messages" for s in task.solution.steps) >= 2  # more than a page
    env = OfficeEnv(task)
    env.reset()
    page = env.step({"name": "mail_search_messages", "arguments": {"folder": "inbox", "limit": 100}})[0]["result"]
    morning = [m["id"] for m in page["messages"]]
    replies = {s["arguments"]["message_id"] for s in steps_of(task) if s["name"] == "mail_reply_message"}
    filed = {s["arguments"]["message_id"] for s in steps_of(task) if s["name"] == "mail_move_message"}
    everything_else = [m for m in morning if m not in replies | filed][:12]
    archive = [{"name": "mail_move_message", "arguments": {"message_id": m, "folder": "archive"}}
               for m in everything_else]
    assert fails(play(task, lambda steps: [*steps, *archive]))  # inbox zero: the notes and the bump filed too
    assert fails(play(task, lambda steps: [s for s in steps if s["name"] != "mail_reply_message"
                                           or s["arguments"]["message_id"] != sorted(replies)[-1]]))
    assert full_marks(play(task, lambda steps: [*[s for s in steps if s["name"] != "mail_move_message"],
                                                *reversed([s for s in steps if s["name"] == "mail_move_message"])]))
    reads = [{"name": "mail_get_message", "arguments": {"message_id": m}} for m in morning[:15]]
    assert full_marks(play(task, lambda steps: [*reads, *steps]))


def test_the_big_inventory_is_hard_and_follows_both_follow_ups() -> None:
    task = built("sheet_update_from_request", "big-inventory")
    assert task.difficulty == "hard" and len(task.solution.steps) >= 12
    assert sum(s.name == "drive_read_sheet" for s in task.solution.steps) >= 2  # 70 rows: two pages
    updates = _updates(steps_of(task))
    file_id = updates[0]["arguments"]["file_id"]
    env = OfficeEnv(task)
    env.reset()
    mails = env.step({"name": "mail_search_messages", "arguments": {"query": "sheet"}})[0]["result"]["messages"]
    follow_up = next(env.step({"name": "mail_get_message", "arguments": {"message_id": m["id"]}})[0]["result"]["body"]
                     for m in mails if m["subject"].startswith("Re: "))
    typo = int(re.search(r"not (\d+) \(typo\)", follow_up).group(1))
    fixed = int(re.search(r"is (\d+), not", follow_up).group(1))
    corrected = next(u for u in updates if u["arguments"]["values"][0]["value"] == fixed)

    def with_typo(steps: list[Step]) -> list[Step]:
        for step in steps:
            if step == corrected:
                step["arguments"]["values"] = [{"column": "Quantity", "value": typo}]
        return steps

    assert fails(play(task, with_typo))  # the first mail's figure
    rows = env.step({"name": "drive_read_sheet", "arguments": {"file_id": file_id, "limit": 100}})[0]["result"]["rows"]
    item, place = re.search(r"forget the (.+?) count in (.+?), that", follow_up).groups()
    retracted = next(r["row"] for r in rows if r["Item"] == item and r["Location"] == place)
    redo = {"name": "drive_update_rows", "arguments": {"file_id": file_id, "row_numbers": [retracted],
                                                        "values": [{"column": "Quantity", "value": 99}]}}
    assert fails(play(task, lambda steps: [*steps, redo]))  # the retracted count changed anyway
    assert full_marks(play(task, lambda steps: [*[s for s in steps if s["name"] != "drive_update_rows"],
                                                *reversed(_updates(steps))]))
    one_read = lambda steps: [s for s in steps if s["name"] != "drive_read_sheet"] + [  # noqa: E731
        {"name": "drive_read_sheet", "arguments": {"file_id": file_id, "limit": 100}}]
    assert full_marks(play(task, one_read))
