"""Typed spreadsheet cells: validating values against column types, and row filters.

A sheet's columns each have a type (``text``, ``number``, ``date``, ``bool``).  Values a model
writes are checked here, and every problem is reported with its row and column so the model can
fix exactly that cell.  Filters (``drive_read_sheet``, ``drive_update_rows``) are compiled here
into predicates over a row's cells, comparing by the column's type.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Sequence
from datetime import date
from typing import Annotated, Any, Literal, TypeGuard

from annotated_types import MaxLen
from pydantic import BaseModel, ConfigDict, Field

from officesim.errors import InvalidArgument

MAX_CELL_CHARS = 5000  # text in one cell; a sheet is a table, long text belongs in a doc
MAX_COLUMN_NAME = 200
CellValue = str | int | float | bool | None
# A cell as a model sends it: text is bounded before anything reads it.
CellInput = Annotated[str, MaxLen(MAX_CELL_CHARS)] | int | float | bool | None
ColumnType = Literal["text", "number", "date", "bool"]
FilterOp = Literal["eq", "ne", "contains", "gt", "gte", "lt", "lte"]
COLUMN_TYPES: tuple[str, ...] = ("text", "number", "date", "bool")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HINTS = {
    "text": "a string",
    "number": "a JSON number such as 1200 or 86.5 (no quotes, currency signs or thousands separators; "
    "at most 1e15 in size)",
    "date": "an ISO date string 'YYYY-MM-DD' such as '2026-09-14'",
    "bool": "true or false (JSON booleans, no quotes)",
}
MAX_PROBLEMS = 5  # problems listed in one error message; enough to fix a batch, short to read
MAX_MAGNITUDE = 1e15  # larger numbers are mistakes (and lose precision as JSON doubles)


class RowFilter(BaseModel):
    """One condition on a sheet column; several filters are combined with AND."""

    model_config = ConfigDict(extra="forbid")

    column: str = Field(max_length=MAX_COLUMN_NAME, description="Column name as in the sheet's header "
                        "(case-insensitive).")
    op: FilterOp = Field(
        description="eq (equals; case-insensitive for text), ne (not equal), contains (substring, "
        "case-insensitive), gt/gte/lt/lte (greater/less than, for number and date columns)."
    )
    value: CellInput = Field(
        description="Value to compare with: a number for number columns, 'YYYY-MM-DD' for date "
        "columns, true/false for bool columns, text otherwise. null with eq/ne matches empty/non-empty cells."
    )


class CellUpdate(BaseModel):
    """A new value for one column of the rows being updated."""

    model_config = ConfigDict(extra="forbid")

    column: str = Field(max_length=MAX_COLUMN_NAME, description="Column name as in the sheet's header "
                        "(case-insensitive).")
    value: CellInput = Field(
        description="The new value, typed like the column (number, 'YYYY-MM-DD', true/false, text); "
        f"null empties the cell. Text holds at most {MAX_CELL_CHARS:,} characters."
    )


def is_iso_date(value: object) -> bool:
    """Whether ``value`` is a string holding a real calendar date ``YYYY-MM-DD``."""
    if not isinstance(value, str) or not _DATE.match(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _storable(value: int | float) -> bool:
    """Finite and of a sane size (NaN and infinities compare false; huge ints would overflow floats)."""
    return abs(value) <= MAX_MAGNITUDE


def _number(value: int | float) -> int | float:
    """Integral floats are stored as ints so that 1200.0 and 1200 are the same cell."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def check_cell(value: CellValue, column_type: str) -> tuple[CellValue, str | None]:
    """The stored form of ``value`` for a column of ``column_type``, or an explanation of why not.

    ``None`` (an empty cell) fits every type.  Text columns also take numbers (stored as text).
    """
    if value is None:
        return None, None
    if isinstance(value, str) and len(value) > MAX_CELL_CHARS:
        return None, (f"text of {len(value):,} characters; a cell holds at most {MAX_CELL_CHARS:,} (put long "
                      "text in a doc)")
    if column_type == "number":
        if _is_number(value) and _storable(value):
            return _number(value), None
    elif column_type == "date":
        if is_iso_date(value):
            return value, None
    elif column_type == "bool":
        if isinstance(value, bool):
            return value, None
    elif isinstance(value, str):
        return value, None
    elif _is_number(value) and _storable(value):
        return str(_number(value)), None
    return None, f"got {json.dumps(value)}; send {_HINTS[column_type]}"


def fail(problems: list[str], total: int, advice: str) -> None:
    """Raise one InvalidArgument listing the first few problems, if there are any."""
    if not problems:
        return
    more = f" (and {total - len(problems)} more)" if total > len(problems) else ""
    raise InvalidArgument("; ".join(problems) + more + ". " + advice)


def check_rows(
    rows: Sequence[Sequence[CellValue]],
    columns: Sequence[str],
    types: Sequence[str],
    *,
    label: Callable[[int], str],
) -> list[list[CellValue]]:
    """Validate whole rows (one value per column); ``label(i)`` names the i-th row in messages."""
    problems: list[str] = []
    total = 0
    out: list[list[CellValue]] = []
    header = ", ".join(columns)
    for offset, row in enumerate(rows):
        if len(row) != len(columns):
            total += 1
            if len(problems) < MAX_PROBLEMS:
                problems.append(
                    f"{label(offset)} has {len(row)} values but the sheet has {len(columns)} columns ({header})"
                )
            continue
        cells: list[CellValue] = []
        for value, column, column_type in zip(row, columns, types, strict=True):
            stored, why = check_cell(value, column_type)
            if why:
                total += 1
                if len(problems) < MAX_PROBLEMS:
                    problems.append(f"{label(offset)}, column {column!r} ({column_type}): {why}")
            cells.append(stored)
        out.append(cells)
    fail(problems, total, "Send one value per column in header order, null for an empty cell.")
    return out


def infer_types(columns: Sequence[str], rows: Sequence[Sequence[CellValue]]) -> list[str]:
    """Column types guessed from the values: bool, number or date when every value is one, else text."""
    types = []
    for index in range(len(columns)):
        values = [r[index] for r in rows if index < len(r) and r[index] is not None]
        if values and all(isinstance(v, bool) for v in values):
            types.append("bool")
        elif values and all(_is_number(v) for v in values):
            types.append("number")
        elif values and all(is_iso_date(v) for v in values):
            types.append("date")
        else:
            types.append("text")
    return types


def resolve_column(columns: Sequence[str], name: str) -> int:
    """The index of column ``name`` (case-insensitive), or InvalidArgument suggesting the closest."""
    wanted = name.strip().casefold()
    for index, column in enumerate(columns):
        if column.casefold() == wanted:
            return index
    close = difflib.get_close_matches(name, list(columns), n=1, cutoff=0.5)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise InvalidArgument(f"the sheet has no column {name!r}; {hint}its columns are: {', '.join(columns)}")


def cell_text(value: CellValue) -> str:
    """A cell as text, for substring matching ('contains')."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _operand(value: CellValue, column: str, column_type: str, op: str) -> Any:
    """The filter value in the column's type (filters forgive numbers sent as strings)."""
    if value is None:
        if op not in ("eq", "ne"):
            raise InvalidArgument(f"filter on {column!r}: op {op!r} needs a value; null only works with eq/ne")
        return None
    if op == "contains":
        return cell_text(value).casefold()
    if column_type == "number":
        if isinstance(value, str):
            try:
                value = float(value.replace(",", "").strip())
            except ValueError:
                raise InvalidArgument(
                    f"filter on number column {column!r}: {value!r} is not a number; send e.g. 1200"
                ) from None
        if not _is_number(value):
            raise InvalidArgument(f"filter on number column {column!r}: send a number, not {json.dumps(value)}")
        return value
    if column_type == "date":
        if not is_iso_date(value):
            raise InvalidArgument(
                f"filter on date column {column!r}: {json.dumps(value)} is not a date; send 'YYYY-MM-DD'"
            )
        return value
    if column_type == "bool":
        if op not in ("eq", "ne"):
            raise InvalidArgument(f"filter on bool column {column!r}: only eq and ne work on true/false values")
        if not isinstance(value, bool):
            raise InvalidArgument(f"filter on bool column {column!r}: send true or false, not {json.dumps(value)}")
        return value
    return cell_text(value).casefold()


def _compare(cell: CellValue, op: str, operand: Any, column_type: str) -> bool:
    if op == "contains":
        return operand in cell_text(cell).casefold()
    if operand is None:
        return (cell is None or cell == "") == (op == "eq")
    if cell is None:
        return op == "ne"
    if column_type == "number":
        if not _is_number(cell):
            return op == "ne"
        left: Any = cell
    elif column_type in ("date", "bool"):
        left = cell
    else:
        left = cell_text(cell).casefold()
    if op == "eq":
        return left == operand
    if op == "ne":
        return left != operand
    try:
        if op == "gt":
            return left > operand
        if op == "gte":
            return left >= operand
        if op == "lt":
            return left < operand
        return left <= operand
    except TypeError:  # a stray value of another type in the column never matches an ordering
        return False


def compile_filters(
    filters: Sequence[RowFilter], columns: Sequence[str], types: Sequence[str]
) -> Callable[[Sequence[CellValue]], bool]:
    """One predicate over a row's cells that holds when every filter holds (AND)."""
    tests: list[tuple[int, str, Any, str]] = []
    for item in filters:
        index = resolve_column(columns, item.column)
        column_type = types[index]
        tests.append((index, item.op, _operand(item.value, columns[index], column_type, item.op), column_type))

    def matches(cells: Sequence[CellValue]) -> bool:
        return all(
            _compare(cells[i] if i < len(cells) else None, op, operand, ctype) for i, op, operand, ctype in tests
        )

    return matches
