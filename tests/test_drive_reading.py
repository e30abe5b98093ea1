"""Drive's read interface: one rule for "the file named X", shared by checks, judge evidence and mail."""

from __future__ import annotations

from officesim.apps.drive.reading import find_files, sheet_csv, sheet_tabs
from officesim.grading.evidence import _files, render_file
from officesim.world import World


def _doc(world: World, name: str, content: str = "text") -> str:
    return world.call("drive_create_doc", {"name": name, "content": content})["id"]


def test_one_rule_for_the_file_named_x(tiny: World) -> None:
    trashed = _doc(tiny, "Q3 plan", "in the trash")
    assert tiny.call("drive_delete_file", {"file_id": trashed}).get("error") is None
    plan = _doc(tiny, "Q3 Plan", "the plan")
    spaced = _doc(tiny, "q3   PLAN ", "the same name, spaced")
    _doc(tiny, "Q3 Plan (draft)", "a longer name is another file")
    assert [f["id"] for f in find_files(tiny, "Q3 Plan", "doc")] == [plan, spaced]
    assert [f["id"] for f in find_files(tiny, plan, "doc")] == [plan]
    assert find_files(tiny, "Q3 Plan", "sheet") == []
    # the judge is shown exactly the files a doc_contains check of that name reads, not a namesake by substring
    shown = _files(tiny, "Q3 Plan", "doc")
    assert plan in shown and spaced in shown and "(draft)" not in shown and trashed not in shown


def test_a_sheet_reads_the_same_as_rows_as_csv_and_as_an_attachment(tiny: World) -> None:
    made = tiny.call("drive_create_sheet", {"name": "Vendors", "columns": ["Vendor", "Amount"],
                                            "rows": [["Acme", 1200], ["Globex", None]]})
    tabs = sheet_tabs(tiny, made["id"])
    assert [(t.columns, t.rows) for t in tabs] == [(["Vendor", "Amount"], [["Acme", 1200], ["Globex", None]])]
    text = sheet_csv(tiny, made["id"])
    assert text == f"## sheet: {tabs[0].name}\nVendor,Amount\nAcme,1200\nGlobex,\n"
    assert render_file(tiny, made["id"]).endswith(text)
    me = tiny.user["email"]
    sent = tiny.call("mail_send_message", {"to": [me], "subject": "vendors", "body": "attached",
                                           "attachments": [made["id"]]})
    copy = tiny.call("mail_get_attachment", {"message_id": sent["id"], "file_id": made["id"]})
    assert copy["text"] == text
