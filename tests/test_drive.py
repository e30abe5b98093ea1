"""The drive app: access rules, every tool (valid and invalid input), typed sheets, generation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officesim import World
from officesim.apps.directory import generate as directory_generate
from officesim.apps.drive import generate as drive_generate
from officesim.apps.drive.access import (
    can_edit,
    can_view,
    require_edit,
    require_view,
    visible_files_sql,
)
from officesim.errors import NotFound, PermissionDenied
from officesim.tools import registry
from officesim.world_spec import SizeSpec, load_spec
from officesim.worldgen import GenContext

TINY = Path(__file__).resolve().parent.parent / "worlds" / "tiny.yaml"

# ----------------------------------------------------------------------------- helpers


def call(w: World, tool_name: str, /, **arguments: Any) -> dict[str, Any]:
    """A tool call that must succeed."""
    result = w.call(tool_name, arguments)
    assert "error" not in result, result
    return result


def fails(w: World, tool_name: str, error_type: str, /, *fragments: str, **arguments: Any) -> str:
    """A tool call that must fail with ``error_type``; every fragment must be in the message."""
    result = w.call(tool_name, arguments)
    assert "error" in result, result
    assert result["error"]["type"] == error_type, result
    message = result["error"]["message"]
    for fragment in fragments:
        assert fragment.lower() in message.lower(), message
    return message


def pid(w: World, role: str) -> str:
    return w.db.execute("SELECT id FROM directory_person WHERE role = ?", (role,)).fetchone()[0]


def email(w: World, role: str) -> str:
    return w.db.execute("SELECT email FROM directory_person WHERE role = ?", (role,)).fetchone()[0]


def doc_as(w: World, role: str, name: str, content: str = "", folder_id: str | None = None) -> str:
    with w.acting_as(pid(w, role)):
        return call(w, "drive_create_doc", name=name, content=content, folder_id=folder_id)["id"]


def file_row(w: World, file_id: str) -> dict[str, Any]:
    return dict(w.db.execute("SELECT * FROM drive_file WHERE id = ?", (file_id,)).fetchone())


def sheet_cells(w: World, file_id: str) -> list[list[Any]]:
    rows = w.db.execute(
        "SELECT r.cells FROM drive_row r JOIN drive_sheet s ON s.id = r.sheet_id WHERE s.file_id = ? "
        "ORDER BY s.position, r.position",
        (file_id,),
    ).fetchall()
    return [json.loads(r[0]) for r in rows]


EXPENSE_COLUMNS = ["Date", "Vendor", "Amount", "Receipt"]
EXPENSE_TYPES = ["date", "text", "number", "bool"]
EXPENSES = [
    ["2026-09-01", "Delta", 412.5, True],
    ["2026-09-02", "Marriott", 289, False],
    ["2026-09-03", "Uber", 23.4, True],
    ["2026-09-10", "Delta", 198, True],
]


@pytest.fixture
def sheet(tiny: World) -> str:
    """A spreadsheet owned by the acting user with four expense rows."""
    return call(tiny, "drive_create_sheet", name="Trip costs", columns=EXPENSE_COLUMNS,
                column_types=EXPENSE_TYPES, rows=EXPENSES)["id"]


# ----------------------------------------------------------------------------- registry


def test_every_drive_tool_is_registered_with_the_fixed_names() -> None:
    names = {n for n in registry() if n.startswith("drive_")}
    assert {
        "drive_search_files", "drive_list_folder", "drive_get_file", "drive_get_doc", "drive_read_sheet",
        "drive_create_doc", "drive_create_sheet", "drive_create_folder", "drive_update_doc",
        "drive_append_rows", "drive_update_rows", "drive_share_file", "drive_move_file", "drive_delete_file",
    } <= names
    kinds = {n: registry()[n].kind for n in names}
    assert kinds["drive_read_sheet"] == "read" and kinds["drive_append_rows"] == "write"


# ----------------------------------------------------------------------------- access rules


def test_private_files_of_others_are_denied_without_leaking_content(tiny: World) -> None:
    secret = doc_as(tiny, "cfo", "Board compensation", "salaries: 1,000,000")
    message = fails(tiny, "drive_get_doc", "permission_denied", "not shared with you", file_id=secret)
    assert "salaries" not in message and "Board compensation" not in message
    assert not can_view(tiny, secret)
    with pytest.raises(PermissionDenied):
        require_view(tiny, secret)
    hits = call(tiny, "drive_search_files", query="compensation")["files"]
    assert secret not in [f["id"] for f in hits]


def test_unknown_file_is_not_found_with_a_hint(tiny: World) -> None:
    fails(tiny, "drive_get_file", "not_found", "drive_search_files", file_id="f_999")
    with pytest.raises(NotFound):
        require_view(tiny, "nope")


def test_person_grant_domain_grant_and_folder_inheritance(tiny: World) -> None:
    cfo = pid(tiny, "cfo")
    with tiny.acting_as(cfo):
        folder = call(tiny, "drive_create_folder", name="Close")["id"]
        inner = call(tiny, "drive_create_doc", name="Close checklist", content="x", folder_id=folder)["id"]
        loose = call(tiny, "drive_create_doc", name="Loose note")["id"]
        call(tiny, "drive_share_file", file_id=folder, person=email(tiny, "ops_manager"), role="viewer")
        call(tiny, "drive_share_file", file_id=loose, domain=True, role="editor")
    assert call(tiny, "drive_get_file", file_id=inner)["your_role"] == "viewer"
    assert can_view(tiny, inner) and not can_edit(tiny, inner)
    assert call(tiny, "drive_get_file", file_id=loose)["your_role"] == "editor"
    assert require_edit(tiny, loose)["id"] == loose
    with pytest.raises(PermissionDenied, match="view-only"):
        require_edit(tiny, inner)


def test_folder_owner_edits_colleagues_files_inside_but_cannot_delete_them(tiny: World) -> None:
    folder = call(tiny, "drive_create_folder", name="Ops shared")["id"]
    call(tiny, "drive_share_file", file_id=folder, person=email(tiny, "travel_coordinator"), role="editor")
    theirs = doc_as(tiny, "travel_coordinator", "Hotel list", "a", folder)
    assert call(tiny, "drive_get_file", file_id=theirs)["your_role"] == "editor"
    call(tiny, "drive_update_doc", file_id=theirs, content="b")
    fails(tiny, "drive_delete_file", "permission_denied", "only the owner", file_id=theirs)


def test_visible_files_sql_accepts_extra_positional_parameters(tiny: World) -> None:
    mine = call(tiny, "drive_create_doc", name="Mine")["id"]
    cte, params = visible_files_sql(tiny)
    rows = tiny.db.execute(
        cte + "SELECT f.id, v.rank FROM drive_file f JOIN visible v ON v.id = f.id WHERE f.name = ?",
        [*params, "Mine"],
    ).fetchall()
    assert [tuple(r) for r in rows] == [(mine, 3)]


# ----------------------------------------------------------------------------- search and listing


def test_search_matches_names_doc_text_and_sheet_cells(tiny: World, sheet: str) -> None:
    doc = call(tiny, "drive_create_doc", name="Offsite plan", content="We fly to Lisbon in November.")["id"]
    by_text = call(tiny, "drive_search_files", query="lisbon november")["files"]
    assert [f["id"] for f in by_text] == [doc]
    assert "Lisbon" in by_text[0]["snippet"]
    assert by_text[0]["owner_email"] == tiny.user["email"] and by_text[0]["your_role"] == "owner"
    assert sheet in [f["id"] for f in call(tiny, "drive_search_files", query="Marriott")["files"]]
    assert call(tiny, "drive_search_files", query="lisbon tokyo")["files"] == []


def test_search_filters_by_kind_and_owner_and_pages(tiny: World, sheet: str) -> None:
    sheets = call(tiny, "drive_search_files", kind="sheet", limit=100)["files"]
    assert sheets and all(f["kind"] == "sheet" for f in sheets)
    owned = call(tiny, "drive_search_files", owner=tiny.user["email"], limit=100)["files"]
    assert sheet in [f["id"] for f in owned] and all(f["owner_email"] == tiny.user["email"] for f in owned)
    first = call(tiny, "drive_search_files", limit=2)
    second = call(tiny, "drive_search_files", limit=2, cursor=first["next_cursor"])
    assert first["next_cursor"] == "o2" and len(second["files"]) == 2
    assert not {f["id"] for f in first["files"]} & {f["id"] for f in second["files"]}
    fails(tiny, "drive_search_files", "not_found", "directory_search_people", owner="ghost@nowhere.test")
    fails(tiny, "drive_search_files", "invalid_argument", "limit", limit=500)


def test_search_prefers_whole_name_matches(tiny: World) -> None:
    call(tiny, "drive_create_doc", name="Notes", content="the vendor review happened")
    named = call(tiny, "drive_create_doc", name="Vendor review")["id"]
    assert call(tiny, "drive_search_files", query="vendor review")["files"][0]["id"] == named


def test_list_root_shows_my_drive_then_shared_with_me(tiny: World) -> None:
    mine = call(tiny, "drive_create_doc", name="Scratch")["id"]
    with tiny.acting_as(pid(tiny, "cfo")):
        shared = call(tiny, "drive_create_doc", name="For ops")["id"]
        call(tiny, "drive_share_file", file_id=shared, person=email(tiny, "ops_manager"))
    listing = call(tiny, "drive_list_folder", limit=100)
    assert listing["folder"] == {"id": None, "name": "My Drive"}
    sections = {f["id"]: f["section"] for f in listing["files"]}
    assert sections[mine] == "my_drive" and sections[shared] == "shared_with_me"
    order = [f["section"] for f in listing["files"]]
    assert order == sorted(order)  # my_drive before shared_with_me
    company = next(f for f in listing["files"] if f["name"] == "Company")
    assert company["section"] == "shared_with_me" and company["your_role"] == "viewer"


def test_list_folder_lists_children_folders_first_and_pages(tiny: World) -> None:
    folder = call(tiny, "drive_create_folder", name="Q4")["id"]
    for name in ("b doc", "a doc", "c doc"):
        call(tiny, "drive_create_doc", name=name, folder_id=folder)
    call(tiny, "drive_create_folder", name="z sub", folder_id=folder)
    page = call(tiny, "drive_list_folder", folder_id=folder, limit=3)
    assert [f["name"] for f in page["files"]] == ["z sub", "a doc", "b doc"]
    rest = call(tiny, "drive_list_folder", folder_id=folder, cursor=page["next_cursor"])
    assert [f["name"] for f in rest["files"]] == ["c doc"] and rest["next_cursor"] is None
    assert page["folder"]["name"] == "Q4"


def test_list_folder_rejects_files_and_hidden_folders(tiny: World) -> None:
    doc = call(tiny, "drive_create_doc", name="Flat")["id"]
    fails(tiny, "drive_list_folder", "invalid_argument", "drive_get_doc", folder_id=doc)
    with tiny.acting_as(pid(tiny, "cfo")):
        private = call(tiny, "drive_create_folder", name="Private")["id"]
    fails(tiny, "drive_list_folder", "permission_denied", folder_id=private)


def test_generated_department_folder_is_listed_with_roles(tiny: World) -> None:
    ops = call(tiny, "drive_search_files", query="Operations", kind="folder")["files"][0]
    listing = call(tiny, "drive_list_folder", folder_id=ops["id"], limit=100)["files"]
    assert listing and {f["your_role"] for f in listing} <= {"owner", "editor"}
    assert listing[0]["kind"] == "folder"


# ----------------------------------------------------------------------------- reading


def test_get_file_of_a_sheet_lists_sheets_and_sharing(tiny: World, sheet: str) -> None:
    call(tiny, "drive_share_file", file_id=sheet, person=email(tiny, "cfo"), role="editor")
    info = call(tiny, "drive_get_file", file_id=sheet)
    assert info["kind"] == "sheet" and info["your_role"] == "owner" and info["can_share"]
    assert info["sheets"] == [{"name": "Sheet1", "columns": EXPENSE_COLUMNS, "column_types": EXPENSE_TYPES,
                               "rows": 4}]
    assert info["shared_with"] == [{"principal": "person", "role": "editor", "person_id": pid(tiny, "cfo"),
                                    "name": tiny.person(pid(tiny, "cfo"))["name"], "email": email(tiny, "cfo"),
                                    "inherited_from": None}]
    assert info["owner_email"] == tiny.user["email"] and info["modified_by_email"] == tiny.user["email"]


def test_get_file_shows_inherited_grants_and_hides_sharing_from_viewers(tiny: World) -> None:
    policies = call(tiny, "drive_search_files", query="Travel & Expense Policy")["files"][0]
    info = call(tiny, "drive_get_file", file_id=policies["id"])
    assert info["your_role"] == "viewer" and not info["can_share"] and "shared_with" not in info
    assert [p["name"] for p in info["path"]] == ["Company", "Policies"]
    folder = call(tiny, "drive_create_folder", name="Team")["id"]
    call(tiny, "drive_share_file", file_id=folder, domain=True)
    doc = call(tiny, "drive_create_doc", name="Inside", folder_id=folder)["id"]
    grants = call(tiny, "drive_get_file", file_id=doc)["shared_with"]
    assert grants == [{"principal": "domain", "role": "viewer", "name": "Everyone at Tinyco",
                       "inherited_from": folder}]


def test_get_doc_clips_long_text_and_reads_on(tiny: World) -> None:
    text = "".join(f"line {i:05d}\n" for i in range(800))  # 8,800 characters
    doc = call(tiny, "drive_create_doc", name="Long", content=text)["id"]
    first = call(tiny, "drive_get_doc", file_id=doc)
    assert first["truncated"] and first["next_offset"] == 4000 and first["length"] == len(text)
    assert first["text"].startswith(text[:4000]) and "offset=4000" in first["text"]
    last = call(tiny, "drive_get_doc", file_id=doc, offset=8000)
    assert last["text"] == text[8000:] and not last["truncated"]
    fails(tiny, "drive_get_doc", "invalid_argument", "offset", file_id=doc, offset=-1)


def test_get_doc_on_a_sheet_points_to_read_sheet(tiny: World, sheet: str) -> None:
    fails(tiny, "drive_get_doc", "invalid_argument", "drive_read_sheet", file_id=sheet)


def test_read_sheet_returns_typed_row_objects(tiny: World, sheet: str) -> None:
    result = call(tiny, "drive_read_sheet", file_id=sheet)
    assert result["columns"] == EXPENSE_COLUMNS and result["column_types"] == EXPENSE_TYPES
    assert result["total_rows"] == 4 and result["sheet"] == "Sheet1"
    assert result["rows"][1] == {"row": 2, "Date": "2026-09-02", "Vendor": "Marriott", "Amount": 289,
                                 "Receipt": False}


def test_read_sheet_row_ranges_and_pages(tiny: World, sheet: str) -> None:
    rows = call(tiny, "drive_read_sheet", file_id=sheet, start_row=2, end_row=3)["rows"]
    assert [r["row"] for r in rows] == [2, 3]
    page = call(tiny, "drive_read_sheet", file_id=sheet, limit=3)
    assert page["next_cursor"] == "o3"
    assert [r["row"] for r in call(tiny, "drive_read_sheet", file_id=sheet, cursor="o3")["rows"]] == [4]
    fails(tiny, "drive_read_sheet", "invalid_argument", "start_row", file_id=sheet, start_row=0)
    fails(tiny, "drive_read_sheet", "invalid_argument", "before start_row", file_id=sheet, start_row=3,
          end_row=2)


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ([{"column": "Vendor", "op": "eq", "value": "delta"}], [1, 4]),
        ([{"column": "vendor", "op": "ne", "value": "Delta"}], [2, 3]),
        ([{"column": "Vendor", "op": "contains", "value": "RRI"}], [2]),
        ([{"column": "Amount", "op": "gt", "value": 289}], [1]),
        ([{"column": "Amount", "op": "gte", "value": 289}], [1, 2]),
        ([{"column": "Amount", "op": "lt", "value": "198"}], [3]),
        ([{"column": "Date", "op": "lte", "value": "2026-09-02"}], [1, 2]),
        ([{"column": "Receipt", "op": "eq", "value": False}], [2]),
        ([{"column": "Vendor", "op": "eq", "value": "Delta"}, {"column": "Amount", "op": "lt", "value": 300}], [4]),
    ],
)
def test_read_sheet_filters(tiny: World, sheet: str, filters: list[dict[str, Any]], expected: list[int]) -> None:
    result = call(tiny, "drive_read_sheet", file_id=sheet, filters=filters)
    assert [r["row"] for r in result["rows"]] == expected and result["matched_rows"] == len(expected)


def test_read_sheet_explains_bad_filters_and_sheets(tiny: World, sheet: str) -> None:
    fails(tiny, "drive_read_sheet", "invalid_argument", "did you mean 'Amount'", "Date, Vendor, Amount, Receipt",
          file_id=sheet, filters=[{"column": "Amout", "op": "gt", "value": 1}])
    fails(tiny, "drive_read_sheet", "invalid_argument", "not a date", file_id=sheet,
          filters=[{"column": "Date", "op": "gt", "value": "last week"}])
    fails(tiny, "drive_read_sheet", "invalid_argument", "only eq and ne", file_id=sheet,
          filters=[{"column": "Receipt", "op": "gt", "value": True}])
    fails(tiny, "drive_read_sheet", "invalid_argument", "filters", file_id=sheet,
          filters=[{"column": "Vendor", "op": "like", "value": "x"}])
    fails(tiny, "drive_read_sheet", "not_found", "Sheet1", file_id=sheet, sheet="Summary")
    assert call(tiny, "drive_read_sheet", file_id=sheet, sheet="sheet1")["total_rows"] == 4


def test_read_second_tab_of_generated_budget(tiny: World) -> None:
    budget = tiny.db.execute("SELECT id FROM drive_file WHERE name LIKE 'FY% Budget'").fetchone()[0]
    with tiny.acting_as(pid(tiny, "cfo")):
        actuals = call(tiny, "drive_read_sheet", file_id=budget, sheet="Actuals")
    assert actuals["sheet"] == "Actuals" and actuals["rows"][-1]["Department"] == "Total"


# ----------------------------------------------------------------------------- creating


def test_create_doc_in_a_folder_stamps_time_and_owner(tiny: World) -> None:
    before = tiny.now_ts()
    folder = call(tiny, "drive_create_folder", name="Reports")["id"]
    made = call(tiny, "drive_create_doc", name="  Q3 summary ", content="Total: 42", folder_id=folder)
    row = file_row(tiny, made["id"])
    assert made["name"] == "Q3 summary" and made["parent_id"] == folder and made["length"] == 9
    assert row["owner_id"] == tiny.user_id and row["content"] == "Total: 42" and row["kind"] == "doc"
    assert row["created_at"] > before and row["created_at"] == tiny.now_ts()


def test_create_doc_refuses_duplicates_view_only_folders_and_empty_names(tiny: World) -> None:
    call(tiny, "drive_create_doc", name="Plan")
    fails(tiny, "drive_create_doc", "conflict", "already has a doc named 'Plan'", "drive_update_doc", name="plan")
    policies = call(tiny, "drive_search_files", query="Policies", kind="folder")["files"][0]["id"]
    fails(tiny, "drive_create_doc", "permission_denied", "folder_id=null", name="X", folder_id=policies)
    fails(tiny, "drive_create_doc", "invalid_argument", "name is empty", name="   ")
    fails(tiny, "drive_create_doc", "invalid_argument", "'name' is required")
    doc = call(tiny, "drive_create_doc", name="Not a folder")["id"]
    fails(tiny, "drive_create_doc", "invalid_argument", "not a folder", name="Y", folder_id=doc)


def test_create_folder_nested(tiny: World) -> None:
    outer = call(tiny, "drive_create_folder", name="2026")["id"]
    inner = call(tiny, "drive_create_folder", name="Q4", folder_id=outer)
    assert inner["kind"] == "folder" and inner["parent_id"] == outer
    assert call(tiny, "drive_get_file", file_id=inner["id"])["path"] == [{"id": outer, "name": "2026"}]
    assert call(tiny, "drive_get_file", file_id=outer)["items"] == 1


def test_create_sheet_stores_typed_rows(tiny: World, sheet: str) -> None:
    assert sheet_cells(tiny, sheet) == [["2026-09-01", "Delta", 412.5, True], ["2026-09-02", "Marriott", 289, False],
                                        ["2026-09-03", "Uber", 23.4, True], ["2026-09-10", "Delta", 198, True]]
    tab = tiny.db.execute("SELECT * FROM drive_sheet WHERE file_id = ?", (sheet,)).fetchone()
    assert json.loads(tab["columns"]) == EXPENSE_COLUMNS and json.loads(tab["column_types"]) == EXPENSE_TYPES


def test_create_sheet_infers_types_and_names_the_tab(tiny: World) -> None:
    made = call(tiny, "drive_create_sheet", name="Guess", columns=["When", "Qty", "Ok", "Note"],
                rows=[["2026-01-02", 3, True, "a"], ["2026-01-03", 4.5, None, 7]], sheet_name="Data")
    assert made["column_types"] == ["date", "number", "bool", "text"] and made["sheet"] == "Data"
    assert made["rows"] == 2


def test_create_sheet_names_each_bad_cell_and_writes_nothing(tiny: World) -> None:
    files_before = tiny.counts()["drive_file"]
    message = fails(
        tiny, "drive_create_sheet", "invalid_argument",
        "row 1, column 'Amount' (number)", 'got "1,200"', "JSON number",
        "row 2, column 'Date' (date)", "YYYY-MM-DD", "row 3 has 2 values but the sheet has 4 columns",
        name="Bad", columns=EXPENSE_COLUMNS, column_types=EXPENSE_TYPES,
        rows=[["2026-09-01", "Delta", "1,200", True], ["14/09/2026", "X", 1, True], ["2026-09-01", "Y"]],
    )
    assert "row 1, column 'Receipt'" not in message
    assert tiny.counts()["drive_file"] == files_before


def test_create_sheet_rejects_bad_headers(tiny: World) -> None:
    fails(tiny, "drive_create_sheet", "invalid_argument", "appears twice", name="A", columns=["a", "A"])
    fails(tiny, "drive_create_sheet", "invalid_argument", "columns is empty", name="A", columns=[])
    fails(tiny, "drive_create_sheet", "invalid_argument", "one type per column", name="A", columns=["a", "b"],
          column_types=["text"])
    fails(tiny, "drive_create_sheet", "invalid_argument", "column_types", name="A", columns=["a"],
          column_types=["currency"])


def test_ids_continue_after_generated_rows(tiny: World) -> None:
    generated = tiny.counts()["drive_file"]
    made = call(tiny, "drive_create_doc", name="Fresh")
    assert made["id"] == f"f_{generated + 1}"


# ----------------------------------------------------------------------------- changing content


def test_update_doc_replace_and_append(tiny: World) -> None:
    doc = call(tiny, "drive_create_doc", name="Log", content="first")["id"]
    call(tiny, "drive_update_doc", file_id=doc, content="second", mode="append")
    assert file_row(tiny, doc)["content"] == "first\nsecond"
    result = call(tiny, "drive_update_doc", file_id=doc, content="fresh")
    assert file_row(tiny, doc)["content"] == "fresh" and result["length"] == 5
    assert file_row(tiny, doc)["modified_at"] == tiny.now_ts()


def test_update_doc_needs_edit_access_and_a_doc(tiny: World, sheet: str) -> None:
    policy = call(tiny, "drive_search_files", query="Travel & Expense Policy")["files"][0]["id"]
    before = file_row(tiny, policy)
    fails(tiny, "drive_update_doc", "permission_denied", "view-only", file_id=policy, content="x")
    assert file_row(tiny, policy) == before
    fails(tiny, "drive_update_doc", "invalid_argument", "is a sheet", file_id=sheet, content="x")
    fails(tiny, "drive_update_doc", "invalid_argument", "mode", file_id=policy, content="x", mode="prepend")


def test_append_rows_continues_numbering(tiny: World, sheet: str) -> None:
    result = call(tiny, "drive_append_rows", file_id=sheet, rows=[["2026-09-12", "Hertz", 80, None]])
    assert result["first_row"] == 5 and result["total_rows"] == 5 and result["appended"] == 1
    last = call(tiny, "drive_read_sheet", file_id=sheet, start_row=5)["rows"]
    assert last == [{"row": 5, "Date": "2026-09-12", "Vendor": "Hertz", "Amount": 80, "Receipt": None}]


def test_append_rows_rejects_mistyped_values_atomically(tiny: World, sheet: str) -> None:
    fails(tiny, "drive_append_rows", "invalid_argument", "rows[1] (new row 6), column 'Receipt' (bool)",
          "true or false", file_id=sheet, rows=[["2026-09-12", "Hertz", 80, True], ["2026-09-13", "Avis", 5, "yes"]])
    assert len(sheet_cells(tiny, sheet)) == 4
    fails(tiny, "drive_append_rows", "invalid_argument", "rows is empty", file_id=sheet, rows=[])


def test_update_rows_by_number_and_by_filter(tiny: World, sheet: str) -> None:
    result = call(tiny, "drive_update_rows", file_id=sheet, row_numbers=[2],
                  values=[{"column": "receipt", "value": True}, {"column": "Amount", "value": 250}])
    assert result["updated"] == 1 and result["rows"][0]["Amount"] == 250
    assert sheet_cells(tiny, sheet)[1] == ["2026-09-02", "Marriott", 250, True]
    result = call(tiny, "drive_update_rows", file_id=sheet, values=[{"column": "Vendor", "value": "Delta Air Lines"}],
                  filters=[{"column": "Vendor", "op": "eq", "value": "Delta"}])
    assert result["updated"] == 2
    assert [c[1] for c in sheet_cells(tiny, sheet)] == ["Delta Air Lines", "Marriott", "Uber", "Delta Air Lines"]


def test_update_rows_explains_mistakes(tiny: World, sheet: str) -> None:
    values = [{"column": "Amount", "value": 1}]
    fails(tiny, "drive_update_rows", "invalid_argument", "exactly one of row_numbers", file_id=sheet, values=values)
    fails(tiny, "drive_update_rows", "invalid_argument", "exactly one", file_id=sheet, values=values, row_numbers=[1],
          filters=[{"column": "Amount", "op": "gt", "value": 0}])
    fails(tiny, "drive_update_rows", "not_found", "no row 9", "rows 1-4", file_id=sheet, values=values,
          row_numbers=[9])
    fails(tiny, "drive_update_rows", "not_found", "matches the filters", file_id=sheet, values=values,
          filters=[{"column": "Vendor", "op": "eq", "value": "Nobody"}])
    fails(tiny, "drive_update_rows", "invalid_argument", "column 'Amount' (number)", "JSON number", file_id=sheet,
          values=[{"column": "Amount", "value": "$5"}], row_numbers=[1])
    fails(tiny, "drive_update_rows", "invalid_argument", "given twice", file_id=sheet, row_numbers=[1],
          values=[{"column": "Amount", "value": 1}, {"column": "amount", "value": 2}])
    assert sheet_cells(tiny, sheet)[0] == EXPENSES[0]


def test_delete_rows_renumbers(tiny: World, sheet: str) -> None:
    result = call(tiny, "drive_delete_rows", file_id=sheet, row_numbers=[1, 3])
    assert result["deleted"] == [1, 3] and result["total_rows"] == 2
    rows = call(tiny, "drive_read_sheet", file_id=sheet)["rows"]
    assert [(r["row"], r["Vendor"]) for r in rows] == [(1, "Marriott"), (2, "Delta")]


# ----------------------------------------------------------------------------- sharing, moving, deleting


def test_share_creates_updates_and_removes_a_grant(tiny: World) -> None:
    doc = call(tiny, "drive_create_doc", name="Memo")["id"]
    cfo = email(tiny, "cfo")
    assert call(tiny, "drive_share_file", file_id=doc, person=cfo)["status"] == "created"
    assert call(tiny, "drive_share_file", file_id=doc, person=cfo, role="viewer")["status"] == "unchanged"
    updated = call(tiny, "drive_share_file", file_id=doc, person=pid(tiny, "cfo"), role="editor")
    assert updated["status"] == "updated" and updated["shared_with"][0]["role"] == "editor"
    grants = tiny.db.execute("SELECT principal, person_id, role FROM drive_permission WHERE file_id = ?", (doc,))
    assert [tuple(g) for g in grants] == [("person", pid(tiny, "cfo"), "editor")]
    with tiny.acting_as(pid(tiny, "cfo")):
        assert call(tiny, "drive_get_doc", file_id=doc)["name"] == "Memo"
    assert call(tiny, "drive_share_file", file_id=doc, person=cfo, role="none")["status"] == "removed"
    with tiny.acting_as(pid(tiny, "cfo")):
        assert not can_view(tiny, doc)


def test_share_with_the_domain(tiny: World) -> None:
    doc = call(tiny, "drive_create_doc", name="Announcement")["id"]
    assert call(tiny, "drive_share_file", file_id=doc, domain=True)["principal"] == "domain"
    with tiny.acting_as(pid(tiny, "sales_rep_1")):
        assert call(tiny, "drive_get_file", file_id=doc)["your_role"] == "viewer"


def test_share_explains_mistakes(tiny: World) -> None:
    doc = call(tiny, "drive_create_doc", name="Memo")["id"]
    fails(tiny, "drive_share_file", "not_found", "not an employee", file_id=doc, person="buyer@customer.test")
    fails(tiny, "drive_share_file", "conflict", "already has full access", file_id=doc, person=tiny.user["email"])
    fails(tiny, "drive_share_file", "invalid_argument", "either person", file_id=doc)
    fails(tiny, "drive_share_file", "invalid_argument", "not both", file_id=doc, person=email(tiny, "cfo"),
          domain=True)
    fails(tiny, "drive_share_file", "conflict", "no direct access", file_id=doc, person=email(tiny, "cfo"),
          role="none")
    policy = call(tiny, "drive_search_files", query="Travel & Expense Policy")["files"][0]["id"]
    fails(tiny, "drive_share_file", "permission_denied", "view-only", file_id=policy, person=email(tiny, "cfo"))


def test_move_file_between_folders_and_back(tiny: World) -> None:
    a = call(tiny, "drive_create_folder", name="A")["id"]
    b = call(tiny, "drive_create_folder", name="B", folder_id=a)["id"]
    doc = call(tiny, "drive_create_doc", name="Doc", folder_id=a)["id"]
    moved = call(tiny, "drive_move_file", file_id=doc, folder_id=b)
    assert moved["parent_id"] == b and [p["id"] for p in moved["path"]] == [a, b]
    assert file_row(tiny, doc)["parent_id"] == b
    assert call(tiny, "drive_move_file", file_id=doc)["parent_id"] is None
    fails(tiny, "drive_move_file", "invalid_argument", "into itself", file_id=a, folder_id=b)
    fails(tiny, "drive_move_file", "conflict", "already in", file_id=b, folder_id=a)


def test_move_needs_ownership_and_a_free_name(tiny: World) -> None:
    policy = call(tiny, "drive_search_files", query="Travel & Expense Policy")["files"][0]["id"]
    fails(tiny, "drive_move_file", "permission_denied", "only the owner", "its owner is", file_id=policy)
    target = call(tiny, "drive_create_folder", name="Target")["id"]
    call(tiny, "drive_create_doc", name="Same", folder_id=target)
    doc = call(tiny, "drive_create_doc", name="Same")["id"]
    fails(tiny, "drive_move_file", "conflict", "already has a doc named 'Same'", file_id=doc, folder_id=target)


def test_delete_folder_trashes_its_contents_and_lists_them_in_trash(tiny: World) -> None:
    folder = call(tiny, "drive_create_folder", name="Old")["id"]
    doc = call(tiny, "drive_create_doc", name="Old doc", content="findme", folder_id=folder)["id"]
    result = call(tiny, "drive_delete_file", file_id=folder)
    assert result["trashed"] and result["items_trashed"] == 2
    assert file_row(tiny, doc)["trashed"] == 1 and file_row(tiny, folder)["trashed"] == 1
    fails(tiny, "drive_get_doc", "not_found", "in the trash", file_id=doc)
    assert call(tiny, "drive_search_files", query="findme")["files"] == []
    trash = call(tiny, "drive_list_folder", folder_id="trash")
    assert {f["id"] for f in trash["files"]} == {folder, doc}
    assert folder not in [f["id"] for f in call(tiny, "drive_list_folder", limit=100)["files"]]
    fails(tiny, "drive_delete_file", "not_found", "trash", file_id=folder)


def test_every_write_advances_the_clock_once(tiny: World, sheet: str) -> None:
    before = tiny.now()
    call(tiny, "drive_append_rows", file_id=sheet, rows=[["2026-09-12", "Hertz", 80, True]])
    assert (tiny.now() - before).total_seconds() == 30
    fails(tiny, "drive_append_rows", "invalid_argument", file_id=sheet, rows=[["bad"]])
    assert (tiny.now() - before).total_seconds() == 30


# ----------------------------------------------------------------------------- fuzzing

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 10_000), st.floats(allow_nan=False),
                     st.text(max_size=12), st.sampled_from(["f_1", "f_9", "f_27", "trash", "root", "o2"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["column", "op", "value", "x"]), inner, max_size=3), max_leaves=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(n for n in registry() if n.startswith("drive_"))),
       arguments=st.dictionaries(st.sampled_from(
           ["file_id", "folder_id", "parent_id", "query", "kind", "owner", "limit", "cursor", "offset", "name",
            "content", "columns", "column_types", "rows", "sheet", "filters", "values", "row_numbers", "person",
            "role", "domain", "mode", "start_row", "end_row", "bogus"]), _VALUES, max_size=5))
def test_nothing_a_model_sends_raises(tiny: World, name: str, arguments: dict[str, Any]) -> None:
    result = tiny.call(name, arguments)
    assert isinstance(result, dict)
    if "error" in result:
        assert set(result["error"]) == {"type", "message"} and result["error"]["message"]


# ----------------------------------------------------------------------------- generation


def test_generation_follows_the_size_knobs(tiny: World, acme: World) -> None:
    for world, docs, sheets in ((tiny, 10, 4), (acme, 60, 15)):
        kinds = dict(world.db.execute("SELECT kind, count(*) FROM drive_file GROUP BY kind").fetchall())
        assert kinds["doc"] == docs and kinds["sheet"] == sheets
        names = [r[0] for r in world.db.execute("SELECT name FROM drive_file WHERE kind != 'folder'")]
        assert len(names) == len(set(names))
        assert world.db.execute("SELECT count(*) FROM drive_file WHERE trashed = 1").fetchone()[0] == 0


def test_generated_timestamps_lie_in_the_120_days_before_start(acme: World) -> None:
    start = acme.now_ts()
    low, high = acme.db.execute("SELECT min(created_at), max(modified_at) FROM drive_file").fetchone()
    assert low[:10] >= "2026-06-07" and high <= start
    assert acme.db.execute("SELECT count(*) FROM drive_file WHERE modified_at < created_at").fetchone()[0] == 0


def test_department_folders_are_shared_with_their_members(acme: World) -> None:
    for dept in acme.db.execute("SELECT id, name, head_id FROM directory_department WHERE head_id IS NOT NULL"):
        folder = acme.db.execute(
            "SELECT id, owner_id FROM drive_file WHERE name = ? AND parent_id IS NULL AND kind = 'folder'",
            (dept["name"],),
        ).fetchone()
        assert folder["owner_id"] == dept["head_id"]
        members = {r[0] for r in acme.db.execute(
            "SELECT id FROM directory_person WHERE department_id = ? AND id != ?", (dept["id"], dept["head_id"]))}
        granted = {r[0] for r in acme.db.execute(
            "SELECT person_id FROM drive_permission WHERE file_id = ? AND role = 'editor'", (folder["id"],))}
        assert granted == members


def _sheet(w: World, name: str, tab: str | None = None) -> tuple[list[str], list[list[Any]]]:
    file_id = w.db.execute("SELECT id FROM drive_file WHERE name = ?", (name,)).fetchone()[0]
    row = w.db.execute(
        "SELECT id, columns FROM drive_sheet WHERE file_id = ? AND (? IS NULL OR name = ?) ORDER BY position",
        (file_id, tab, tab),
    ).fetchone()
    cells = [json.loads(r[0]) for r in w.db.execute(
        "SELECT cells FROM drive_row WHERE sheet_id = ? ORDER BY position", (row["id"],))]
    return json.loads(row["columns"]), cells


def test_generated_numbers_add_up(acme: World) -> None:
    for tab in ("Budget", "Actuals"):
        columns, rows = _sheet(acme, "FY2026 Budget", tab)
        *lines, total = rows
        assert total[0] == "Total"
        for index in range(1, len(columns)):
            assert total[index] == sum(r[index] for r in lines)
        for line in rows:
            assert line[-1] == sum(line[1:-1])
    _, heads = _sheet(acme, "Headcount by department")
    counts = dict(acme.db.execute(
        "SELECT d.name, count(p.id) FROM directory_department d LEFT JOIN directory_person p "
        "ON p.department_id = d.id GROUP BY d.id").fetchall())
    assert {r[0]: r[2] for r in heads[:-1]} == counts and heads[-1][2] == 120


def test_generated_pipeline_export_matches_the_crm(acme: World) -> None:
    deals = {r["id"]: r for r in acme.db.execute("SELECT id, stage, amount, close_date FROM crm_deal")}
    if not deals:
        pytest.skip("the CRM generator has not produced deals")
    columns, rows = _sheet(acme, "Sales pipeline export")
    exported = {r[0]: dict(zip(columns, r, strict=True)) for r in rows}
    assert set(exported) == set(deals)
    for deal_id, deal in deals.items():
        assert exported[deal_id]["Stage"] == deal["stage"]
        assert exported[deal_id]["Amount"] == pytest.approx(deal["amount"])
        assert exported[deal_id]["Close date"] == deal["close_date"]


def test_generated_travel_policy_and_expense_log_are_readable_by_the_acting_user(acme: World) -> None:
    policy = call(acme, "drive_search_files", query="Travel & Expense Policy", kind="doc")["files"][0]
    assert "per night" in call(acme, "drive_get_doc", file_id=policy["id"])["text"]
    log = call(acme, "drive_search_files", query="travel expenses", kind="sheet")["files"][0]
    rows = call(acme, "drive_read_sheet", file_id=log["id"], limit=100)
    assert rows["column_types"][rows["columns"].index("Amount")] == "number"
    assert all(isinstance(r["Amount"], int | float) for r in rows["rows"])


_CELLS = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(),
                   st.text(max_size=10), st.sampled_from(["2026-09-01", "2026-02-30", "1,200"]))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(_CELLS, max_size=5), max_size=3),
       filters=st.lists(st.fixed_dictionaries({"column": st.sampled_from(["Date", "amount", "Receipt", "x"]),
                                               "op": st.sampled_from(["eq", "ne", "contains", "gt", "lte"]),
                                               "value": _CELLS}), max_size=2),
       numbers=st.lists(st.integers(-3, 10**30), max_size=2),
       start=st.none() | st.integers(-2, 10**30))
def test_sheet_tools_never_raise_on_odd_values(
    tiny: World, sheet: str, rows: list[list[Any]], filters: list[dict[str, Any]], numbers: list[int],
    start: int | None,
) -> None:
    results = [
        tiny.call("drive_append_rows", {"file_id": sheet, "rows": rows}),
        tiny.call("drive_read_sheet", {"file_id": sheet, "filters": filters, "start_row": start}),
        tiny.call("drive_update_rows", {"file_id": sheet, "row_numbers": numbers or None,
                                        "filters": None if numbers else filters,
                                        "values": [{"column": f["column"], "value": f["value"]} for f in filters]}),
        tiny.call("drive_create_sheet", {"name": "Fuzz", "columns": ["a", "b"], "rows": rows}),
    ]
    for result in results:
        assert isinstance(result, dict)
    for cells in sheet_cells(tiny, sheet):  # whatever was accepted is stored with its column's type
        assert len(cells) == 4 and (cells[2] is None or isinstance(cells[2], int | float))
        assert cells[3] is None or isinstance(cells[3], bool)


def test_generation_without_crm_data_and_with_few_people() -> None:
    spec = load_spec(TINY).model_copy(update={"size": SizeSpec(people=5, departments=3, docs=7, sheets=6)})
    world = World.empty(clock=spec.start, meta={"company": spec.company})
    ctx = GenContext(world=world, spec=spec, seed=3)
    directory_generate.generate(ctx)  # no CRM: account plans and the pipeline export are skipped
    drive_generate.generate(ctx)
    kinds = dict(world.db.execute("SELECT kind, count(*) FROM drive_file GROUP BY kind").fetchall())
    assert kinds["doc"] == 7 and kinds["sheet"] == 6
    assert world.db.execute("SELECT count(*) FROM drive_file WHERE name LIKE 'Account plan%'").fetchone()[0] == 0
    owners = {r[0] for r in world.db.execute("SELECT owner_id FROM drive_file")}
    assert owners <= {p["id"] for p in ctx.people}


# ----------------------------------------------------------------------------- deleting others' files, trash


def _subtree(w: World, folder: str) -> dict[str, str]:
    rows = w.db.execute(
        "WITH RECURSIVE d(id) AS (SELECT ? UNION SELECT f.id FROM drive_file f JOIN d ON f.parent_id = d.id) "
        "SELECT f.id, f.owner_id FROM drive_file f JOIN d ON d.id = f.id", (folder,)).fetchall()
    return {r[0]: r[1] for r in rows}


def test_deleting_your_folder_leaves_other_peoples_files_with_their_owners(acme: World) -> None:
    # As p_6, deleting f_23 trashed 10 files of others, and nothing restored them.
    acme.set_user("p_6")
    before = _subtree(acme, "f_23")
    theirs = {f: owner for f, owner in before.items() if owner != "p_6"}
    assert len(theirs) == 10
    result = call(acme, "drive_delete_file", file_id="f_23")
    assert result["items_trashed"] == len(before) - 10 and len(result["moved_to_their_owners"]) == 10
    for file_id, owner in theirs.items():
        row = file_row(acme, file_id)
        assert row["trashed"] == 0 and row["parent_id"] is None  # in their owner's My Drive
        acme.set_user(owner)
        top = call(acme, "drive_list_folder", limit=100)["files"]
        assert {"id": file_id, "section": "my_drive"}.items() <= next(f for f in top if f["id"] == file_id).items()
        assert file_id in {f["id"] for f in call(acme, "drive_search_files", query=row["name"])["files"]}
    acme.set_user("p_6")
    assert {f["id"] for f in call(acme, "drive_list_folder", folder_id="trash", limit=100)["files"]} == {
        f for f, owner in before.items() if owner == "p_6"}


def test_a_rescued_file_gets_a_free_name_in_its_owners_my_drive(tiny: World) -> None:
    me, colleague = tiny.user_id, "p_2"
    folder = call(tiny, "drive_create_folder", name="Shared work")["id"]
    call(tiny, "drive_share_file", file_id=folder, person=colleague, role="editor")
    with tiny.acting_as(colleague):
        call(tiny, "drive_create_doc", name="Notes", content="mine at the top")
        inside = call(tiny, "drive_create_doc", name="Notes", content="mine in the folder", folder_id=folder)["id"]
    assert tiny.user_id == me
    call(tiny, "drive_delete_file", file_id=folder)
    assert file_row(tiny, inside)["name"] == "Notes (2)" and file_row(tiny, inside)["parent_id"] is None


def test_only_the_owner_restores_and_a_file_goes_back_where_it_was(tiny: World) -> None:
    folder = call(tiny, "drive_create_folder", name="Q3 close")["id"]
    doc = call(tiny, "drive_create_doc", name="Close notes", content="done", folder_id=folder)["id"]
    call(tiny, "drive_delete_file", file_id=folder)
    fails(tiny, "drive_get_doc", "not_found", "in the trash", file_id=doc)
    restored = call(tiny, "drive_restore_file", file_id=folder)
    assert restored["items_restored"] == 2 and restored["parent_id"] is None
    assert call(tiny, "drive_get_doc", file_id=doc)["text"] == "done"
    assert call(tiny, "drive_list_folder", folder_id="trash")["files"] == []
    fails(tiny, "drive_restore_file", "conflict", "is not in the trash", file_id=doc)
    call(tiny, "drive_delete_file", file_id=doc)
    call(tiny, "drive_delete_file", file_id=folder)
    back = call(tiny, "drive_restore_file", file_id=doc)  # its folder is in the trash: My Drive instead
    assert back["parent_id"] is None and file_row(tiny, folder)["trashed"] == 1
    policy = call(tiny, "drive_search_files", query="Travel & Expense Policy")["files"][0]["id"]
    fails(tiny, "drive_restore_file", "permission_denied", "only the owner", file_id=policy)
    fails(tiny, "drive_restore_file", "not_found", file_id="f_99999")
