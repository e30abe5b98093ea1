"""Drive spreadsheet tools: read rows with filters, create sheets, append, update and delete rows.

Cells are typed by their column (``cells.py``); access follows the Drive rules in ``access.py``
(any role reads, editors and owners change rows).  Registered through ``tools.py``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

from annotated_types import MaxLen

from officesim.apps.drive.access import require_edit, require_view
from officesim.apps.drive.cells import (
    MAX_COLUMN_NAME,
    CellInput,
    CellUpdate,
    CellValue,
    ColumnType,
    RowFilter,
    check_cell,
    check_rows,
    compile_filters,
    fail,
    infer_types,
    resolve_column,
)
from officesim.apps.drive.files import (
    check_name_free,
    clean_name,
    dump_cells,
    find_sheet,
    new_file,
    render_row,
    require_kind,
    target_folder,
    touch,
)
from officesim.errors import InvalidArgument, NotFound
from officesim.paging import check_limit, decode_cursor, paged
from officesim.tools import tool

if TYPE_CHECKING:
    from officesim.world import World

MAX_COLUMNS = 50
MAX_ROWS_PER_CALL = 1000
MAX_FILTERS = 20
MAX_SHEET_ROWS = 20_000  # rows in one sheet; bigger tables belong in a database, not a shared sheet
LAST_ROW = 2**62  # 'to the end' (and the clamp for huge row numbers)
# Argument types with their maxima (checked by the registry before any work; see toolschema).
Rows = Annotated[list[Annotated[list[CellInput], MaxLen(MAX_COLUMNS)]], MaxLen(MAX_ROWS_PER_CALL)]
Columns = Annotated[list[Annotated[str, MaxLen(MAX_COLUMN_NAME)]], MaxLen(MAX_COLUMNS)]
ColumnTypes = Annotated[list[ColumnType], MaxLen(MAX_COLUMNS)]
RowNumbers = Annotated[list[int], MaxLen(MAX_ROWS_PER_CALL)]
Filters = Annotated[list[RowFilter], MaxLen(MAX_FILTERS)]
Values = Annotated[list[CellUpdate], MaxLen(MAX_COLUMNS)]


# ----------------------------------------------------------------------------- reading
@tool(app="drive", kind="read")
def drive_read_sheet(
    w: World,
    file_id: str,
    sheet: str | None = None,
    start_row: int | None = None,
    end_row: int | None = None,
    filters: Filters | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> dict[str, Any]:
    """Read rows of a spreadsheet as objects {"row": n, <column>: value, ...}.

    Row numbers start at 1 for the first data row (the header is not a row). Also returns the
    columns, their types and total_rows; with filters, matched_rows counts the matching rows.

    Args:
        file_id: The spreadsheet's file id, e.g. 'f_12'.
        sheet: Sheet (tab) name; null for the first sheet. drive_get_file lists a file's sheets.
        start_row: First row number to read (1-based, inclusive); null = from the first row.
        end_row: Last row number to read (inclusive); null = to the last row.
        filters: Conditions rows must all meet, e.g. [{"column": "Amount", "op": "gt", "value": 500}].
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Rows per page, 1 to 100.
    """
    row, tab = _open_sheet(w, file_id, sheet, edit=False)
    columns, types = tab["columns"], tab["column_types"]
    first, last = _row_range(start_row, end_row)
    head = {"file_id": file_id, "name": row["name"], "sheet": tab["name"], "columns": columns,
            "column_types": types}
    total = w.db.execute("SELECT count(*) FROM drive_row WHERE sheet_id = ?", (tab["id"],)).fetchone()[0]
    sql = "SELECT position, cells FROM drive_row WHERE sheet_id = ? AND position BETWEEN ? AND ? ORDER BY position"
    params = (tab["id"], first, last)
    if not filters:
        page = paged(w.db, sql, params, cursor=cursor, limit=limit, key="rows",
                     render=lambda r: render_row(r["position"], json.loads(r["cells"]), columns))
        return {**head, "total_rows": total, **page}
    matches = compile_filters(filters, columns, types)
    offset, limit = decode_cursor(cursor), check_limit(limit)
    hits = []
    for position, cells in w.db.execute(sql, params):
        values = json.loads(cells)
        if matches(values):
            hits.append(render_row(position, values, columns))
    more = len(hits) > offset + limit
    return {**head, "total_rows": total, "matched_rows": len(hits), "rows": hits[offset : offset + limit],
            "next_cursor": f"o{offset + limit}" if more else None}


def _row_range(start_row: int | None, end_row: int | None) -> tuple[int, int]:
    """Inclusive 1-based bounds, clamped so that any integer a model sends fits SQLite."""
    first = 1 if start_row is None else start_row
    last = LAST_ROW if end_row is None else end_row
    if first < 1:
        raise InvalidArgument(f"start_row must be 1 or more (row 1 is the first data row), got {first}")
    if last < first:
        raise InvalidArgument(f"end_row ({last}) is before start_row ({first}); rows are read from start to end")
    return min(first, LAST_ROW), min(last, LAST_ROW)


# ----------------------------------------------------------------------------- creating
def _check_columns(columns: list[str]) -> list[str]:
    cleaned = [c.strip() for c in columns]
    if not cleaned:
        raise InvalidArgument("columns is empty; give the header names, e.g. ['Date', 'Vendor', 'Amount']")
    if len(cleaned) > MAX_COLUMNS:
        raise InvalidArgument(f"a sheet has at most {MAX_COLUMNS} columns, got {len(cleaned)}")
    if any(not c for c in cleaned):
        raise InvalidArgument(f"column {cleaned.index('') + 1} has an empty name; every column needs a header")
    seen: set[str] = set()
    for column in cleaned:
        if column.casefold() in seen:
            raise InvalidArgument(f"column {column!r} appears twice; column names must be unique")
        seen.add(column.casefold())
    return cleaned


def _check_batch(rows: list[list[CellValue]]) -> None:
    if len(rows) > MAX_ROWS_PER_CALL:
        raise InvalidArgument(f"send at most {MAX_ROWS_PER_CALL} rows per call, got {len(rows)}; split them")


def _insert_rows(w: World, sheet_id: str, rows: list[list[CellValue]], first: int) -> None:
    w.db.executemany(
        "INSERT INTO drive_row (id, sheet_id, position, cells) VALUES (?, ?, ?, ?)",
        [(w.new_id("row"), sheet_id, first + i, dump_cells(cells)) for i, cells in enumerate(rows)],
    )


def _open_sheet(w: World, file_id: str, sheet: str | None, *, edit: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The spreadsheet's file row and the named tab, once the user may read (or edit) it."""
    row = (require_edit if edit else require_view)(w, file_id)
    require_kind(row, "sheet")
    return row, find_sheet(w, row, sheet)

@tool(app="drive", kind="write")
def drive_create_sheet(
    w: World,
    name: str,
    columns: Columns,
    column_types: ColumnTypes | None = None,
    rows: Rows | None = None,
    folder_id: str | None = None,
    sheet_name: str | None = None,
) -> dict[str, Any]:
    """Create a spreadsheet that you own, with a header row, typed columns and optional data rows.

    Column types: 'text', 'number' (JSON numbers), 'date' ('YYYY-MM-DD') or 'bool' (true/false).
    Without column_types they are guessed from the rows (text when unsure). At most 50 columns,
    1,000 rows per call and 5,000 characters of text per cell.

    Args:
        name: The spreadsheet's name, e.g. 'Q3 travel expenses'.
        columns: Header names in order, e.g. ['Date', 'Vendor', 'Amount'].
        column_types: One type per column: 'text', 'number', 'date' or 'bool'.
        rows: Data rows, each a list with one value per column (null for an empty cell).
        folder_id: The folder to create it in; null puts it in your My Drive.
        sheet_name: Name of the first sheet (tab). Default 'Sheet1'.
    """
    name = clean_name(name, "spreadsheet")
    tab_name = clean_name(sheet_name or "Sheet1", "sheet")
    header = _check_columns(columns)
    data = rows or []
    _check_batch(data)
    if column_types is None:
        types = infer_types(header, data)
    elif len(column_types) != len(header):
        raise InvalidArgument(
            f"column_types has {len(column_types)} entries but there are {len(header)} columns; "
            "give one type per column, or null to infer them"
        )
    else:
        types = list(column_types)
    cells = check_rows(data, header, types, label=lambda i: f"row {i + 1}")
    parent = target_folder(w, folder_id)
    check_name_free(w, name, parent)
    w.tick()
    created = new_file(w, name, "sheet", parent)
    sheet_id = w.new_id("sh")
    w.db.execute(
        "INSERT INTO drive_sheet (id, file_id, name, position, columns, column_types) VALUES (?, ?, ?, 0, ?, ?)",
        (sheet_id, created["id"], tab_name, dump_cells(header), json.dumps(types)),
    )
    _insert_rows(w, sheet_id, cells, 1)
    return {**created, "sheet": tab_name, "columns": header, "column_types": types, "rows": len(cells)}


# ----------------------------------------------------------------------------- changing rows
@tool(app="drive", kind="write")
def drive_append_rows(
    w: World, file_id: str, rows: Rows, sheet: str | None = None
) -> dict[str, Any]:
    """Add data rows at the end of a spreadsheet's sheet. You need editor access (or ownership).

    Each row is a list with one value per column in header order (null for an empty cell), typed
    like its column: numbers as JSON numbers, dates as 'YYYY-MM-DD', bools as true/false. At most
    1,000 rows per call and 5,000 characters of text per cell; a sheet holds at most 20,000 rows.

    Args:
        file_id: The spreadsheet's file id, e.g. 'f_12'.
        rows: The rows to add, e.g. [['2026-09-14', 'Delta', 412.5]].
        sheet: Sheet (tab) name; null for the first sheet.
    """
    row, tab = _open_sheet(w, file_id, sheet, edit=True)
    if not rows:
        raise InvalidArgument("rows is empty; send at least one row (a list of values, one per column)")
    _check_batch(rows)
    last = w.db.execute(
        "SELECT coalesce(max(position), 0) FROM drive_row WHERE sheet_id = ?", (tab["id"],)
    ).fetchone()[0]
    if last + len(rows) > MAX_SHEET_ROWS:
        raise InvalidArgument(f"sheet {tab['name']!r} has {last:,} rows; a sheet holds at most {MAX_SHEET_ROWS:,}, "
                              f"so {len(rows):,} more do not fit. Start another sheet for the rest")
    cells = check_rows(rows, tab["columns"], tab["column_types"],
                       label=lambda i: f"rows[{i}] (new row {last + 1 + i})")
    w.tick()
    _insert_rows(w, tab["id"], cells, last + 1)
    touch(w, file_id)
    return {"file_id": file_id, "name": row["name"], "sheet": tab["name"], "appended": len(cells),
            "first_row": last + 1, "last_row": last + len(cells), "total_rows": last + len(cells)}


def _target_rows(
    w: World, tab: dict[str, Any], row_numbers: list[int] | None, filters: list[RowFilter] | None
) -> list[tuple[str, int, list[CellValue]]]:
    """(row id, position, cells) of the rows picked by exactly one of row_numbers or filters."""
    if (row_numbers is None) == (filters is None):
        raise InvalidArgument(
            "give exactly one of row_numbers (e.g. [3, 4]) or filters (e.g. [{'column': 'Status', 'op': 'eq', "
            "'value': 'pending'}]) to choose the rows"
        )
    if row_numbers is not None:
        if not row_numbers:
            raise InvalidArgument("row_numbers is empty; list the 1-based row numbers to change")
        if len(row_numbers) > MAX_ROWS_PER_CALL:
            raise InvalidArgument(f"give at most {MAX_ROWS_PER_CALL} row numbers per call, got {len(row_numbers)}")
        wanted = sorted({n for n in row_numbers if 1 <= n <= LAST_ROW})
        marks = ",".join("?" * len(wanted))
        found = [(r[0], r[1], json.loads(r[2])) for r in w.db.execute(
            f"SELECT id, position, cells FROM drive_row WHERE sheet_id = ? AND position IN ({marks}) ORDER BY position",
            (tab["id"], *wanted))]
        missing = sorted(set(row_numbers) - {r[1] for r in found})
        if missing:
            count = w.db.execute("SELECT count(*) FROM drive_row WHERE sheet_id = ?", (tab["id"],)).fetchone()[0]
            span = f"rows 1-{count}" if count else "no data rows"
            listed = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
            raise NotFound(f"sheet {tab['name']!r} has no row {listed}; it has {span}")
        return found
    rows = [(r[0], r[1], json.loads(r[2])) for r in w.db.execute(
        "SELECT id, position, cells FROM drive_row WHERE sheet_id = ? ORDER BY position", (tab["id"],))]
    matches = compile_filters(filters or [], tab["columns"], tab["column_types"])
    picked = [r for r in rows if matches(r[2])]
    if not picked:
        raise NotFound(f"no row of sheet {tab['name']!r} matches the filters; check values with drive_read_sheet")
    return picked


@tool(app="drive", kind="write")
def drive_update_rows(
    w: World,
    file_id: str,
    values: Values,
    row_numbers: RowNumbers | None = None,
    filters: Filters | None = None,
    sheet: str | None = None,
) -> dict[str, Any]:
    """Set columns of existing spreadsheet rows, chosen by row number or by filters (not both).

    Only the columns named in values change; others keep their values. You need editor access.

    Args:
        file_id: The spreadsheet's file id, e.g. 'f_12'.
        values: The new cell values, e.g. [{"column": "Status", "value": "approved"}].
        row_numbers: 1-based row numbers to change, e.g. [3, 7].
        filters: Change every row meeting all these conditions, e.g.
            [{"column": "Vendor", "op": "eq", "value": "Delta"}].
        sheet: Sheet (tab) name; null for the first sheet.
    """
    row, tab = _open_sheet(w, file_id, sheet, edit=True)
    if not values:
        raise InvalidArgument("values is empty; give at least one {column, value} to set")
    columns, types = tab["columns"], tab["column_types"]
    updates: dict[int, CellValue] = {}
    problems: list[str] = []
    for item in values:
        index = resolve_column(columns, item.column)
        if index in updates:
            raise InvalidArgument(f"column {columns[index]!r} is given twice in values; set each column once")
        stored, why = check_cell(item.value, types[index])
        if why:
            problems.append(f"column {columns[index]!r} ({types[index]}): {why}")
        updates[index] = stored
    fail(problems, len(problems), "Fix these values and call again.")
    targets = _target_rows(w, tab, row_numbers, filters)
    w.tick()
    changed = []
    for row_id, position, cells in targets:
        cells = cells + [None] * (len(columns) - len(cells))
        for index, value in updates.items():
            cells[index] = value
        w.db.execute("UPDATE drive_row SET cells = ? WHERE id = ?", (dump_cells(cells), row_id))
        changed.append(render_row(position, cells, columns))
    touch(w, file_id)
    return {"file_id": file_id, "name": row["name"], "sheet": tab["name"], "updated": len(changed),
            "rows": changed[:20]}


@tool(app="drive", kind="write")
def drive_delete_rows(w: World, file_id: str, row_numbers: RowNumbers, sheet: str | None = None) -> dict[str, Any]:
    """Delete rows from a spreadsheet's sheet; the rows below move up (are renumbered).

    You need editor access (or ownership).

    Args:
        file_id: The spreadsheet's file id, e.g. 'f_12'.
        row_numbers: 1-based row numbers to delete, e.g. [4, 5].
        sheet: Sheet (tab) name; null for the first sheet.
    """
    row, tab = _open_sheet(w, file_id, sheet, edit=True)
    targets = _target_rows(w, tab, row_numbers, None)
    w.tick()
    gone = {t[1] for t in targets}
    w.db.executemany("DELETE FROM drive_row WHERE id = ?", [(t[0],) for t in targets])
    remaining = w.db.execute(
        "SELECT id, position FROM drive_row WHERE sheet_id = ? ORDER BY position", (tab["id"],)
    ).fetchall()
    w.db.executemany(
        "UPDATE drive_row SET position = ? WHERE id = ?",
        [(n, r["id"]) for n, r in enumerate(remaining, 1) if r["position"] != n],
    )
    touch(w, file_id)
    return {"file_id": file_id, "name": row["name"], "sheet": tab["name"], "deleted": sorted(gone),
            "total_rows": len(remaining)}
