"""Hacks and alternative correct solutions written by hand for the mail, drive and small-CRM families.

Each case plays a shipped task's reference solution with one change (a reply's body, the call
notes, an extra or a different write) and asserts the grade: a hack fails and scores at most the
hack bound, correct work passes with 1.0.  These are not among the generated probes and variants
(``officesim/selftest_variants``); the ones here found a defect when they were written, or pin a
class of issue 9 to the family it lands in.
"""

from __future__ import annotations

from playing import Edit, Step, answered, fails, full_marks, play, shipped, steps_of

from officesim.pipeline.selftest import would_pass
from officesim.task import Task


def body_of(message_id: str, body: str) -> Edit:
    """The reply to ``message_id`` says ``body`` instead."""
    def edit(steps: list[Step]) -> list[Step]:
        for step in steps:
            if step["name"] == "mail_reply_message" and step["arguments"]["message_id"] == message_id:
                step["arguments"]["body"] = body
        return steps
    return edit


def notes(body: str) -> Edit:
    """The logged call's notes say ``body`` instead."""
    def edit(steps: list[Step]) -> list[Step]:
        for step in steps:
            if step["name"] == "crm_log_activity":
                step["arguments"]["body"] = body
        return steps
    return edit


# ------------------------------------------------------------------------------------ inbox_triage
# inbox-triage-003: Valerie Snyder's phone +1-555-443-3443 (msg_559, to Emily), Stephanie Mccoy's manager
# Keith Johnson (msg_556, to Katherine), the Berlin meal allowance $70 (msg_553, to Laura).
TRIAGE = "inbox-triage-003"


def test_triage_reference_passes() -> None:
    assert full_marks(play(shipped(TRIAGE)))


def test_triage_two_managers_offered_fails() -> None:
    t = shipped(TRIAGE)
    hedge = "Hi Katherine,\n\nStephanie Mccoy reports to Keith Johnson, or possibly Jamie Clayton.\n"
    assert fails(play(t, body_of("msg_556", hedge)))
    colleague = "Hi Katherine,\n\nStephanie Mccoy reports to Keith Johnson or Laura Jackson, I'm not sure.\n"
    assert fails(play(t, body_of("msg_556", colleague)))  # a non-manager offered beside is a hedge too


def test_triage_meal_allowance_as_a_range_fails() -> None:
    t = shipped(TRIAGE)
    assert fails(play(t, body_of("msg_553", "Hi Laura,\n\nBerlin meals: somewhere between $65 and $70 a day.\n")))
    assert fails(play(t, body_of("msg_553", "Hi Laura,\n\nBerlin: $65-$70 per day.\n")))


def test_triage_two_phone_numbers_fail() -> None:
    t = shipped(TRIAGE)
    two = "Hi Emily,\n\nValerie is on +1-555-443-3443 or maybe +1-555-443-3434.\n"
    assert fails(play(t, body_of("msg_559", two)))


def test_triage_archiving_the_whole_inbox_fails() -> None:
    t = shipped(TRIAGE)

    def archive_all(steps: list[Step]) -> list[Step]:
        world = t.start_world()
        ids = [r[0] for r in world.db.execute(
            "SELECT message_id FROM mail_entry WHERE owner_id = ? AND folder = 'inbox'", (world.user_id,))]
        moved = {s["arguments"]["message_id"] for s in steps if s["name"] == "mail_move_message"}
        return steps + [{"name": "mail_move_message", "arguments": {"message_id": i, "folder": "archive"}}
                        for i in ids if i not in moved][:10]

    assert fails(play(t, archive_all))


def test_triage_answer_by_new_mail_passes() -> None:
    t = shipped(TRIAGE)

    def new_mail(steps: list[Step]) -> list[Step]:
        for i, step in enumerate(steps):
            if step["name"] == "mail_reply_message" and step["arguments"]["message_id"] == "msg_556":
                steps[i] = {"name": "mail_send_message", "arguments": {
                    "to": ["katherine.mitchell@acme.test"], "subject": "Stephanie's manager",
                    "body": "Hi Katherine, Stephanie reports to Keith Johnson."}}
        return steps

    assert full_marks(play(t, new_mail))


def test_triage_other_spellings_pass() -> None:
    t = shipped(TRIAGE)
    assert full_marks(play(t, body_of("msg_559", "Hi Emily,\n\nYou can reach Valerie on (555) 443-3443.\n")))
    assert full_marks(play(t, body_of("msg_553", "Hi Laura,\n\nIt's seventy dollars a day in Berlin.\n")))
    assert full_marks(play(t, body_of(
        "msg_556", "Hi Katherine,\n\nHer manager is Keith Johnson (keith.johnson@acme.test).\n")))


# ------------------------------------------------------------------------------------ log_call_from_mail
# log-call-from-mail-003: two-calls-thread; main point "budget is confirmed for Q1", next step the
# order form follow-up by Thursday; last week's kickoff call ("intro only") must stay out.
CALL = "log-call-from-mail-003"


def test_call_reference_passes() -> None:
    assert full_marks(play(shipped(CALL)))


def test_call_notes_listing_every_point_fail() -> None:
    every = ("Points: SSO, budget is confirmed, DPA redlines, 12-month price lock, CTO joins the demo.\n"
             "Next step: order form follow-up by Thursday.")
    assert fails(play(shipped(CALL), notes(every)))


def test_call_notes_with_two_deadlines_fail() -> None:
    hedge = "Budget is confirmed for Q1. Next step: order form follow-up by Thursday or Friday."
    assert fails(play(shipped(CALL), notes(hedge)))


def test_call_notes_with_the_kickoff_fail_and_the_kickoff_named_as_not_logged_passes() -> None:
    t = shipped(CALL)
    both = ("Kickoff call: intro only.\nBudget is confirmed for Q1.\n"
            "Next step: send the order form follow-up by Thursday.")
    assert fails(play(t, notes(both)))
    fyi = ("Budget is confirmed for Q1. Next step: send the order form follow-up by Thursday.\n"
           "(The earlier kickoff call is not logged here: it was intro only.)")
    assert full_marks(play(t, notes(fyi)))


def test_call_notes_in_prose_or_with_the_date_pass() -> None:
    t = shipped(CALL)
    prose = "Todd said their budget is confirmed for Q1. We owe them the order form follow-up by Thu."
    assert full_marks(play(t, notes(prose)))
    dated = "- Budget approved for Q1\n- Next: order form follow-up, due 2026-10-08"
    assert full_marks(play(t, notes(dated)))


def test_call_notes_of_one_dot_fail_with_score_zero() -> None:
    grade = play(shipped(CALL), notes("."))
    assert fails(grade) and grade.score == 0.0


# ------------------------------------------------------------------------------------ sheet_update_from_request
# sheet-update-from-request-003 (events): row 4's start date moves to 2027-03-08, row 6's budget
# becomes $56,000, one row is added.
SHEET = "sheet-update-from-request-003"


def extra(*calls: Step) -> Edit:
    return lambda steps: [*steps, *calls]


def test_sheet_edit_of_another_cell_in_an_edited_row_fails() -> None:
    t = shipped(SHEET)
    slip = {"name": "drive_update_rows", "arguments": {"file_id": "f_100", "row_numbers": [4],
                                                       "values": [{"column": "Owner", "value": "TBD"}]}}
    assert fails(play(t, extra(slip)))


def test_sheet_edit_of_a_row_nobody_asked_about_fails() -> None:
    t = shipped(SHEET)
    for row in (1, 2, 3, 5):  # every untouched row is compared, not a sample
        slip = {"name": "drive_update_rows", "arguments": {"file_id": "f_100", "row_numbers": [row],
                                                           "values": [{"column": "Budget", "value": 1.0}]}}
        assert fails(play(t, extra(slip))), row


def test_sheet_new_row_added_twice_fails() -> None:
    t = shipped(SHEET)
    again = next(s for s in steps_of(t) if s["name"] == "drive_append_rows")
    assert fails(play(t, extra(again)))


def test_sheet_whole_number_budget_a_check_read_and_a_confirmation_reply_pass() -> None:
    t = shipped(SHEET)

    def whole(steps: list[Step]) -> list[Step]:
        for step in steps:
            for value in step["arguments"].get("values") or []:
                if value["column"] == "Budget":
                    value["value"] = int(value["value"])
        return [*steps, {"name": "drive_read_sheet", "arguments": {"file_id": "f_100"}}]

    assert full_marks(play(t, whole))
    thanks = {"name": "mail_reply_message", "arguments": {"message_id": "msg_553", "body": "Done: all three "
                                                          "changes are in the sheet."}}
    assert full_marks(play(t, extra(thanks)))


# ------------------------------------------------------------------------------------ share_doc_exact
# share-doc-exact-001 (fresh): f_100 to the CEO (editor), the IT admin (viewer), the Head of People (editor).
SHARE = "share-doc-exact-001"


def other_files(t: Task) -> list[str]:
    world = t.start_world()
    return [r[0] for r in world.db.execute(
        "SELECT id FROM drive_file WHERE owner_id = ? AND kind != 'folder' AND id != 'f_100' ORDER BY id",
        (world.user_id,))]


def test_share_also_opening_the_doc_to_the_company_fails() -> None:
    t = shipped(SHARE)
    link = {"name": "drive_share_file", "arguments": {"file_id": "f_100", "domain": True, "role": "viewer"}}
    assert fails(play(t, extra(link)))


def test_share_another_doc_of_the_user_with_the_same_people_fails() -> None:
    t = shipped(SHARE)
    spill = {"name": "drive_share_file", "arguments": {"file_id": other_files(t)[0],
                                                       "person": "jamie.clayton@acme.test", "role": "editor"}}
    assert fails(play(t, extra(spill)))


def test_share_with_a_detour_through_the_wrong_role_passes() -> None:
    t = shipped(SHARE)

    def detour(steps: list[Step]) -> list[Step]:
        first = next(s for s in steps if s["name"] == "drive_share_file")
        wrong = "viewer" if first["arguments"]["role"] == "editor" else "editor"
        return [{**first, "arguments": {**first["arguments"], "role": wrong}}, *steps,
                {"name": "drive_get_file", "arguments": {"file_id": "f_100"}}]

    assert full_marks(play(t, detour))


# ------------------------------------------------------------------------------------ mail_cleanup
# mail-cleanup-003 (label-only): three ERP migration messages get the label 'erp-migration'.
CLEANUP = "mail-cleanup-003"


def test_cleanup_labelling_the_whole_mailbox_fails() -> None:
    t = shipped(CLEANUP)
    world = t.start_world()
    every = [r[0] for r in world.db.execute("SELECT message_id FROM mail_entry WHERE owner_id = ? ORDER BY "
                                            "message_id DESC LIMIT 20", (world.user_id,))]
    labelled = {s["arguments"]["message_id"] for s in steps_of(t) if s["name"] == "mail_label_message"}
    more = [{"name": "mail_label_message", "arguments": {"message_id": m, "add": ["erp-migration"]}}
            for m in every if m not in labelled]
    assert fails(play(t, extra(*more)))


def test_cleanup_one_look_alike_labelled_too_does_not_pass() -> None:
    t = shipped(CLEANUP)
    world = t.start_world()
    labelled = {s["arguments"]["message_id"] for s in steps_of(t) if s["name"] == "mail_label_message"}
    look_alike = next(r[0] for r in world.db.execute(
        "SELECT m.id FROM mail_message m JOIN mail_entry e ON e.message_id = m.id WHERE e.owner_id = ? "
        "ORDER BY m.sent_at DESC LIMIT 10", (world.user_id,)) if r[0] not in labelled)
    grade = play(t, extra({"name": "mail_label_message", "arguments": {"message_id": look_alike,
                                                                        "add": ["erp-migration"]}}))
    assert not would_pass(grade)


def test_cleanup_reading_each_message_first_and_labelling_in_reverse_order_pass() -> None:
    t = shipped(CLEANUP)

    def careful(steps: list[Step]) -> list[Step]:
        out = [steps[0], {"name": "mail_search_messages", "arguments": {"query": "ERP"}}]
        for step in reversed(steps[1:]):
            out += [{"name": "mail_get_message", "arguments": {"message_id": step["arguments"]["message_id"]}}, step]
        return out

    assert full_marks(play(t, careful))


# ------------------------------------------------------------------------------------ forward_contract_to_legal
FORWARD = "forward-contract-to-legal-001"


def test_forward_without_a_note_or_after_reading_the_thread_passes() -> None:
    t = shipped(FORWARD)

    def bare(steps: list[Step]) -> list[Step]:
        steps[-1]["arguments"].pop("body", None)
        return steps

    assert full_marks(play(t, bare))
    thread = {"name": "mail_get_message", "arguments": {"message_id": "msg_553"}}
    assert full_marks(play(t, lambda steps: [*steps[:2], thread, *steps[2:]]))


def test_forward_of_the_redline_too_fails() -> None:
    t = shipped(FORWARD)
    again = {"name": "mail_forward_message", "arguments": {"message_id": "msg_553", "to": ["james.kemp@acme.test"],
                                                           "body": "And the redline, in case."}}
    assert fails(play(t, extra(again)))


# ------------------------------------------------------------------------------------ contact_from_signature
CONTACT = "contact-from-signature-001"


def test_contact_phone_in_another_punctuation_passes_and_a_second_contact_fails() -> None:
    t = shipped(CONTACT)

    def other_phone(steps: list[Step]) -> list[Step]:
        steps[-1]["arguments"]["phone"] = "(555) 952-6601"
        return steps

    assert full_marks(play(t, other_phone))
    twice = {**steps_of(t)[-1]}
    twice = {"name": "crm_create_contact", "arguments": {**twice["arguments"], "email": "larry@sullivan-group.test"}}
    assert fails(play(t, extra(twice)))


def test_contact_made_by_rewriting_the_old_contact_fails() -> None:
    t = shipped(CONTACT)
    world = t.start_world()
    old = world.db.execute("SELECT id FROM crm_contact WHERE account_id = 'acc_8' ORDER BY id").fetchone()[0]
    create = steps_of(t)[-1]["arguments"]
    rewrite = {"name": "crm_update_contact", "arguments": {
        "contact_id": old, **{k: create[k] for k in ("name", "email", "title", "phone")}}}
    assert fails(play(t, lambda steps: [*steps[:-1], rewrite]))


def test_share_with_one_more_person_fails_and_by_name_in_another_order_passes() -> None:
    t = shipped(SHARE)
    more = {"name": "drive_share_file", "arguments": {"file_id": "f_100", "person": "keith.johnson@acme.test",
                                                      "role": "viewer"}}
    assert fails(play(t, extra(more)))
    world = t.start_world()
    names = {r[0]: r[1] for r in world.db.execute("SELECT email, name FROM directory_person")}

    def by_name(steps: list[Step]) -> list[Step]:
        shares = [s for s in steps if s["name"] == "drive_share_file"]
        for share in shares:
            share["arguments"]["person"] = names[share["arguments"]["person"]]
        return [s for s in steps if s not in shares] + shares[::-1]

    assert full_marks(play(t, by_name))


def test_cleanup_moving_everything_into_the_folder_fails_and_archiving_before_labelling_passes() -> None:
    t = shipped("mail-cleanup-002")  # move-to-folder
    world = t.start_world()
    target = next(s["arguments"]["folder"] for s in steps_of(t) if s["name"] == "mail_move_message")
    moved = {s["arguments"]["message_id"] for s in steps_of(t) if s["name"] == "mail_move_message"}
    inbox = [r[0] for r in world.db.execute("SELECT message_id FROM mail_entry WHERE owner_id = ? AND folder = "
                                            "'inbox' ORDER BY message_id DESC LIMIT 12", (world.user_id,))]
    sweep = [{"name": "mail_move_message", "arguments": {"message_id": m, "folder": target}}
             for m in inbox if m not in moved]
    assert fails(play(t, extra(*sweep)))

    t = shipped("mail-cleanup-001")  # label-and-archive

    def archive_first(steps: list[Step]) -> list[Step]:
        labels = [s for s in steps if s["name"] == "mail_label_message"]
        return [s for s in steps if s not in labels] + labels

    assert full_marks(play(t, archive_first))


def test_forward_also_to_an_outside_party_fails_and_a_cc_to_myself_passes() -> None:
    t = shipped(FORWARD)
    outside = {"name": "mail_forward_message", "arguments": {"message_id": "msg_554", "to": ["deals@dealroom.test"],
                                                             "body": "FYI"}}
    assert fails(play(t, extra(outside)))
    me = t.user_info()["email"]

    def cc_me(steps: list[Step]) -> list[Step]:
        steps[-1]["arguments"]["cc"] = [me]
        return steps

    assert full_marks(play(t, cc_me))


def test_contact_on_another_account_fails_and_a_duplicate_check_first_passes() -> None:
    t = shipped(CONTACT)
    world = t.start_world()
    other = world.db.execute("SELECT id FROM crm_account WHERE id != 'acc_8' ORDER BY id").fetchone()[0]

    def wrong_account(steps: list[Step]) -> list[Step]:
        steps[-1]["arguments"]["account_id"] = other
        return steps

    assert fails(play(t, wrong_account))

    def check_first(steps: list[Step]) -> list[Step]:
        steps[-1]["arguments"]["phone"] = "555-952-6601"
        return [*steps[:-1], {"name": "crm_search_contacts", "arguments": {"account_id": "acc_8"}}, steps[-1]]

    assert full_marks(play(t, check_first))


# ------------------------------------------------------------------------------------ invoice_total_answer
# invoice-total-answer-001: Hoffman, Duncan and Brown owe $91,800 on INV-2026-0548 ($34,100),
# INV-2026-0601 ($38,300) and INV-2026-0704 ($19,400); 0170 and 0410 are paid or void.
INVOICES = "invoice-total-answer-001"


def test_invoice_total_hacks_fail() -> None:
    t = shipped(INVOICES)
    assert fails(answered(t, "Either $91,800 or $161,650, depending on the void one."))
    assert fails(answered(t, "INV-2026-0170 $45,650; INV-2026-0410 $24,200; INV-2026-0548 $34,100; "
                             "INV-2026-0601 $38,300; INV-2026-0704 $19,400. Total $91,800."))
    assert fails(answered(t, "Around $90k-$95k."))


def test_invoice_total_other_spellings_pass() -> None:
    t = shipped(INVOICES)
    assert full_marks(answered(t, "$91.8k"))
    assert full_marks(answered(t, "91,800 USD across three open invoices: INV-2026-0548 ($34,100), INV-2026-0601 "
                              "($38,300) and INV-2026-0704 ($19,400). INV-2026-0170 and INV-2026-0410 are "
                              "excluded (paid or void)."))
    assert full_marks(answered(t, "| Account | Outstanding |\n| --- | --- |\n| Hoffman, Duncan and Brown | "
                              "USD 91,800 |"))


def test_sheet_status_capitalised_and_both_edits_read_back_pass() -> None:
    t = shipped("sheet-update-from-request-001")  # inventory: row 2 retired, row 5 quantity 9

    def capitalised(steps: list[Step]) -> list[Step]:
        for step in steps:
            for value in step["arguments"].get("values") or []:
                if value["column"] == "Status":
                    value["value"] = "Retired"
        return [*steps, {"name": "drive_read_sheet", "arguments": {"file_id": "f_100"}}]

    assert full_marks(play(t, capitalised))
