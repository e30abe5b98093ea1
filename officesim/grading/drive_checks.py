"""Check kinds about Drive files: ``sheet_cells`` and ``doc_contains``.

Each kind is one class: its fields (validated on load), what it references and how it is
evaluated against an episode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator

from officesim.apps.drive.reading import find_files, sheet_tabs
from officesim.grading.normalize import (
    contains_phrase,
    matcher,
    normalize_text,
    plain_text,
    text_has_number,
    trimmed,
)
from officesim.grading.spec_base import (
    CheckBase,
    NumberSpec,
    Outcome,
    References,
    _number_shorthand_schema,
    _numbers,
    listed,
    show,
    texts_match,
)

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext


class SheetCellsCheck(CheckBase):
    """Holds when a sheet has, for each expected row, a row with those column values."""

    check: Literal["sheet_cells"] = Field(description="The kind of check.")
    file: str = Field(description="The spreadsheet's name or id.")
    sheet: str | None = Field(None, description="The tab name; default: any tab of the file.")
    rows: list[dict[str, Any]] = Field(min_length=1, description="Expected rows as {column header: value}.")
    tolerance: float = Field(1e-6, ge=0, description="Relative tolerance for numbers.")

    def references(self) -> References:
        return References(files=(self.file,))

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _sheet_cells(self, ctx)


class DocContainsCheck(CheckBase):
    """Holds when a document contains every string and number."""

    check: Literal["doc_contains"] = Field(description="The kind of check.")
    file: str = Field(description="The document's name or id.")
    contains: list[str] = Field(default_factory=list, description="Strings that must appear (case/space-insensitive).")
    numbers: list[NumberSpec] = Field(default_factory=list, description="Numbers that must appear in any format.",
                                      json_schema_extra=_number_shorthand_schema)

    _nums = field_validator("numbers", mode="before")(_numbers)

    def references(self) -> References:
        return References(files=(self.file,))

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _doc_contains(self, ctx)


def _sheet_rows(ctx: GradeContext, file_id: str, tab: str | None) -> list[dict[str, Any]]:
    """Every data row of the file's tabs as {normalised header: cell}."""
    out = []
    for sheet in sheet_tabs(ctx.final, file_id):
        if tab is not None and not texts_match(sheet.name, tab):
            continue
        headers = [normalize_text(h) for h in sheet.columns]
        out += [dict(zip(headers, cells, strict=False)) for cells in sheet.rows]
    return out


class _RowLookup:
    """A sheet's rows, found by their plain text cells: whether some row has an expected row's values.

    A plain text value (``plain_text``) matches exactly the cells that read as the same trimmed
    text, so the rows it can match are looked up in a per-column index; the other values (numbers,
    dates, lists, operators) are then compared with ``matcher`` on those rows only.
    """

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self._by_column: dict[str, dict[str, list[int]]] = {}

    def _column(self, column: str) -> dict[str, list[int]]:
        found = self._by_column.get(column)
        if found is None:
            found = self._by_column[column] = {}
            for i, row in enumerate(self.rows):
                value = row.get(column)
                if value is not None:
                    found.setdefault(trimmed(value), []).append(i)
        return found

    def has(self, expected: dict[str, Any], tolerance: float) -> bool:
        candidates: set[int] | None = None
        tests = []
        for key, value in expected.items():
            column = normalize_text(key)
            text = plain_text(value)
            if text is None:
                tests.append((column, matcher(value, tolerance)))
                continue
            hits = self._column(column).get(text, ())
            candidates = set(hits) if candidates is None else candidates.intersection(hits)
            if not candidates:
                return False
        chosen = self.rows if candidates is None else [self.rows[i] for i in sorted(candidates)]
        return any(all(test(row.get(k)) for k, test in tests) for row in chosen)


def _lookup(ctx: GradeContext, file_id: str, tab: str | None) -> _RowLookup:
    """The rows of a file's tabs, read and indexed once per grading: a grader's checks on one sheet
    (the rows that must change, the rows that must stay) read the same rows, which no check changes."""
    return ctx.remember(("sheet rows", file_id, tab), lambda: _RowLookup(_sheet_rows(ctx, file_id, tab)))


def _sheet_cells(check: SheetCellsCheck, ctx: GradeContext) -> Outcome:
    files = find_files(ctx.final, check.file, "sheet")
    if not files:
        return Outcome(False, f"no spreadsheet named {check.file!r} exists", {})
    best: list[str] = []
    for file in files:
        lookup = _lookup(ctx, file["id"], check.sheet)
        missing = []
        for expected in check.rows:
            if not lookup.has(expected, check.tolerance):
                missing.append(show(expected))
        if not missing:
            return Outcome(True, f"{file['name']} ({file['id']}) has all {len(check.rows)} expected rows",
                           {"file": file["id"]})
        if not best or len(missing) < len(best):
            best = [f"{file['name']} ({file['id']}) lacks a row {m}" for m in missing]
    return Outcome(False, listed(best), {"files": [f["id"] for f in files]})


def _doc_contains(check: DocContainsCheck, ctx: GradeContext) -> Outcome:
    docs = find_files(ctx.final, check.file, "doc")
    if not docs:
        return Outcome(False, f"no document named {check.file!r} exists", {})
    best: list[str] = []
    for doc in docs:
        content = doc["content"] or ""
        missing = [f"{s!r}" for s in check.contains if not contains_phrase(content, s)]
        missing += [f"the number {n.value:g}" for n in check.numbers
                    if not text_has_number(content, n.value, n.tolerance)]
        if not missing:
            return Outcome(True, f"{doc['name']} ({doc['id']}) contains everything expected", {"file": doc["id"]})
        if not best or len(missing) < len(best):
            best = [f"{doc['name']} ({doc['id']}) lacks {m}" for m in missing]
    return Outcome(False, listed(best), {"files": [d["id"] for d in docs]})
