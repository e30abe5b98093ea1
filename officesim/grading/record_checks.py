"""Check kinds about rows of the world: ``record``, ``no_record``, ``changed``, ``allowed_changes``.

Each kind is one class: its fields (validated on load, tables and columns against the world
schema), what it references and how it is evaluated against an episode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator

from officesim.grading.normalize import matcher, matches
from officesim.grading.spec_base import (
    CheckBase,
    Outcome,
    References,
    TableRef,
    _check_values,
    listed,
    show,
)

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext


class RecordCheck(CheckBase):
    """Holds when ``count`` rows (default: at least one) match ``match`` and each has ``expect``."""

    check: Literal["record"] = Field(description="The kind of check.")
    table: str = Field(description="A world table, e.g. crm_deal.")
    match: dict[str, Any] = Field(
        default_factory=dict,
        description="field: value pairs that select rows (tolerant comparison; {gt: 5}-style operators).",
    )
    expect: dict[str, Any] = Field(default_factory=dict, description="field: value pairs each selected row must have.")
    count: int | None = Field(None, ge=0, description="Exactly this many rows must match; default at least one.")
    tolerance: float = Field(1e-6, ge=0, description="Relative tolerance for numbers.")

    _values = field_validator("match", "expect")(_check_values)

    def references(self) -> References:
        return References(tables=(TableRef(self.table, (*self.match, *self.expect)),))

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _record(self, ctx)


class NoRecordCheck(CheckBase):
    """Holds when no row of ``table`` matches ``match``."""

    check: Literal["no_record"] = Field(description="The kind of check.")
    table: str = Field(description="A world table.")
    match: dict[str, Any] = Field(default_factory=dict, description="field: value pairs that select rows.")
    tolerance: float = Field(1e-6, ge=0, description="Relative tolerance for numbers.")

    _values = field_validator("match")(_check_values)

    def references(self) -> References:
        return References(tables=(TableRef(self.table, (*self.match,)),))

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _no_record(self, ctx)


class ChangedCheck(CheckBase):
    """Holds when rows of ``table`` matching ``match`` were changed in the episode (as ``op``)."""

    check: Literal["changed"] = Field(description="The kind of check.")
    table: str = Field(description="A world table.")
    match: dict[str, Any] = Field(
        default_factory=dict, description="field: value pairs the row must have (after the change; deleted: before)."
    )
    op: Literal["insert", "update", "delete", "any"] = Field("any", description="Which kind of change counts.")
    fields: list[str] | None = Field(None, description="For updates: all of these fields must have changed.")
    tolerance: float = Field(1e-6, ge=0, description="Relative tolerance for numbers.")

    _values = field_validator("match")(_check_values)

    def references(self) -> References:
        return References(tables=(TableRef(self.table, (*self.match, *(self.fields or []))),))

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _changed(self, ctx)


class AllowedChangesCheck(CheckBase):
    """Holds when nothing changed outside the listed tables (and fields)."""

    check: Literal["allowed_changes"] = Field(description="The kind of check.")
    tables: list[str | dict[str, list[str]]] = Field(
        description="Table names, or {table: [fields]} to allow only updates of those fields (inserts and "
        "deletes of such a table are not allowed)."
    )
    max_rows: int | None = Field(None, ge=0, description="At most this many rows changed in each table.")

    def allowed(self) -> dict[str, list[str] | None]:
        """Table -> allowed fields (``None``: any change)."""
        out: dict[str, list[str] | None] = {}
        for item in self.tables:
            if isinstance(item, str):
                out[item] = None
            else:
                out.update(item)
        return out

    def references(self) -> References:
        return References(tables=tuple(TableRef(table, tuple(columns or ()), ".tables")
                                       for table, columns in self.allowed().items()))

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _allowed_changes(self, ctx)


def _row_matches(row: dict[str, Any], conditions: dict[str, Any], tolerance: float) -> list[str]:
    """The fields of ``row`` that miss ``conditions`` (empty: the row matches)."""
    return [name for name, expected in conditions.items() if not matches(row.get(name), expected, tolerance)]


def _resolved(ctx: GradeContext, conditions: dict[str, Any]) -> dict[str, Any]:
    return {name: ctx.resolve(name, value) for name, value in conditions.items()}


def _select(ctx: GradeContext, table: str, match: dict[str, Any], tolerance: float) -> list[dict[str, Any]]:
    """Rows of ``table`` in the final world matching ``match`` (tolerantly).

    Ids (``id`` and ``*_id`` columns given as plain text) are canonical, so they are compared in
    SQL, on an index; only the other conditions are compared tolerantly, row by row.
    """
    exact = {c: v for c, v in match.items() if (c == "id" or c.endswith("_id")) and isinstance(v, str)}
    rest = {c: v for c, v in match.items() if c not in exact}
    where = " AND ".join(f'"{c}" = ?' for c in exact) or "1"
    cursor = ctx.final.db.execute(f"SELECT * FROM {table} WHERE {where} ORDER BY id", tuple(exact.values()))
    if not rest:
        return [dict(r) for r in cursor]
    # Each condition prepared once and read by position: a large world's table has thousands of rows.
    columns = {d[0]: i for i, d in enumerate(cursor.description)}
    tests = [(columns.get(c), matcher(v, tolerance)) for c, v in rest.items()]
    return [dict(r) for r in cursor if all(test(None if i is None else r[i]) for i, test in tests)]


def _record(check: RecordCheck, ctx: GradeContext) -> Outcome:
    match, expect = _resolved(ctx, check.match), _resolved(ctx, check.expect)
    rows = _select(ctx, check.table, match, check.tolerance)
    wrong = []
    for row in rows:
        for name in _row_matches(row, expect, check.tolerance):
            wrong.append(f"{row['id']}.{name} is {show(row.get(name))}, expected {show(check.expect[name])}")
    evidence = {"rows": [r["id"] for r in rows[:20]], "count": len(rows)}
    where = f"{check.table} rows matching {show(check.match)}"
    if check.count is not None and len(rows) != check.count:
        return Outcome(False, f"{len(rows)} {where}, expected exactly {check.count}", evidence)
    if check.count is None and not rows:
        return Outcome(False, f"no {where}", evidence)
    if wrong:
        return Outcome(False, f"{listed(wrong)}", evidence)
    detail = f" with {show(check.expect)}" if check.expect else ""
    return Outcome(True, f"{len(rows)} {where}{detail}", evidence)


def _no_record(check: NoRecordCheck, ctx: GradeContext) -> Outcome:
    rows = _select(ctx, check.table, _resolved(ctx, check.match), check.tolerance)
    if rows:
        ids = [r["id"] for r in rows]
        return Outcome(False, f"{len(rows)} {check.table} rows match {show(check.match)}: {', '.join(ids[:10])}",
                       {"rows": ids[:20]})
    return Outcome(True, f"no {check.table} row matches {show(check.match)}", {})


def _changed(check: ChangedCheck, ctx: GradeContext) -> Outcome:
    diff = ctx.diff.table(check.table)
    match = _resolved(ctx, check.match)
    candidates: list[tuple[str, str, dict[str, Any], set[str]]] = []
    if check.op in ("insert", "any"):
        candidates += [("insert", k, row, set(row)) for k, row in diff.inserted.items()]
    if check.op in ("update", "any"):
        candidates += [("update", k, ch["_row"], set(ch) - {"_row"}) for k, ch in diff.updated.items()]
    if check.op in ("delete", "any"):
        candidates += [("delete", k, row, set()) for k, row in diff.deleted.items()]
    hits, near = [], []
    tests = [(name, matcher(expected, check.tolerance)) for name, expected in match.items()]
    for op, key, row, fields in candidates:
        if not all(test(row.get(name)) for name, test in tests):
            continue
        missing = sorted(set(check.fields or []) - fields) if op == "update" else []
        if missing:
            near.append(f"{key} was updated but not {', '.join(missing)}")
        else:
            hits.append(f"{op} {key}")
    if hits:
        return Outcome(True, f"{check.table}: {listed(hits)}", {"changes": hits[:20]})
    what = {"any": "changed", "insert": "inserted", "update": "updated", "delete": "deleted"}[check.op]
    reason = f"no {check.table} row matching {show(check.match)} was {what} during the episode"
    return Outcome(False, reason + (f" ({listed(near)})" if near else ""), {"near": near[:20]})


def _allowed_changes(check: AllowedChangesCheck, ctx: GradeContext) -> Outcome:
    allowed = check.allowed()
    violations: list[str] = []
    for table in ctx.diff.changed_tables():
        diff = ctx.diff.table(table)
        rows = len(diff.inserted) + len(diff.updated) + len(diff.deleted)
        if table not in allowed:
            violations.append(f"{table} changed ({rows} rows) but is not allowed")
            continue
        fields = allowed[table]
        if fields is not None:
            if diff.inserted or diff.deleted:
                violations.append(f"{table}: rows inserted/deleted, only updates of {fields} are allowed")
            for key, change in diff.updated.items():
                extra = sorted(set(change) - {"_row"} - set(fields))
                if extra:
                    violations.append(f"{table} {key}: {', '.join(extra)} changed (allowed: {', '.join(fields)})")
        if check.max_rows is not None and rows > check.max_rows:
            violations.append(f"{table}: {rows} rows changed, at most {check.max_rows} allowed")
    summary = ctx.diff.summary()
    if violations:
        return Outcome(False, listed(violations), summary)
    return Outcome(True, f"changes stayed within {', '.join(sorted(allowed))}" if summary else "nothing changed",
                   summary)
