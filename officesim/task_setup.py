"""Task setup: what happened in the office before the agent arrived.

Steps run in order on a freshly generated world: set the clock, make tool calls as a named
colleague (the CFO mails a request, a rep posts in #sales), insert records, update records.  Tool
calls go through the same registry the agent uses, so setup data looks exactly like real activity
(mailbox entries, threads, timestamps).  A step that cannot run is a broken task: ``SpecError``
names the step; a setup tool call that returns an error is one too.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator
from sqlalchemy.sql.schema import ScalarElementColumnDefault

from officesim.apps.registry import id_prefixes
from officesim.clock import format_ts
from officesim.errors import SpecError
from officesim.person_refs import check_ref_syntax, person_id, resolve_arguments, resolve_column_value
from officesim.schema_sql import app_tables

if TYPE_CHECKING:
    from sqlalchemy import Table

    from officesim.world import World

# Columns filled from the clock when an inserted row leaves them out.
# What a bad insert/update raises: constraint violations, unknown values, wrong types.
_DB_ERRORS = (sqlite3.IntegrityError, sqlite3.OperationalError, sqlite3.InterfaceError, sqlite3.ProgrammingError,
              OverflowError)
_CLOCK_COLUMNS = frozenset({"created_at", "updated_at", "modified_at", "sent_at", "posted_at", "joined_at", "at"})


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ClockStep(_Step):
    """Set the simulated clock (later steps and the episode start from here)."""

    clock: AwareDatetime = Field(description="An ISO datetime with a timezone, e.g. 2026-10-05T08:00:00Z.")


class CallStep(_Step):
    """A tool call made by a named person (person refs in to/cc/bcc/person fields are resolved)."""

    as_: str = Field("user", alias="as", description="Who makes the call: role:<key>, p_<n>, an email or user.")
    call: str = Field(description="A registered tool name, e.g. mail_send_message.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments.")

    @field_validator("as_")
    @classmethod
    def _ref(cls, value: str) -> str:
        problem = check_ref_syntax(value)
        if problem:
            raise ValueError(problem)
        return value


class InsertStep(_Step):
    """Rows written directly into a table (ids, defaults and timestamps filled when omitted)."""

    insert: str = Field(description="A world table, e.g. crm_invoice.")
    rows: list[dict[str, Any]] = Field(min_length=1, description="Rows as column: value; lists are stored as JSON.")


class UpdateStep(_Step):
    """Change columns of the rows that match exactly (at least one row must match)."""

    update: str = Field(description="A world table.")
    match: dict[str, Any] = Field(min_length=1, description="column: value pairs selecting the rows (exact).")
    set: dict[str, Any] = Field(min_length=1, description="column: new value.")


def _step_kind(value: Any) -> str | None:
    if isinstance(value, dict):
        for key in ("clock", "call", "insert", "update"):
            if key in value:
                return key
        return None
    kinds: dict[type, str] = {ClockStep: "clock", CallStep: "call", InsertStep: "insert", UpdateStep: "update"}
    return kinds.get(type(value))


SetupStep = Annotated[
    Annotated[ClockStep, Tag("clock")] | Annotated[CallStep, Tag("call")]
    | Annotated[InsertStep, Tag("insert")] | Annotated[UpdateStep, Tag("update")],
    Discriminator(
        _step_kind,
        custom_error_type="setup_step",
        custom_error_message="a setup step has one of the keys clock, call (with as/arguments), insert or update",
    ),
]


def tables_by_name() -> dict[str, Table]:
    """The SQLAlchemy table of every app table, by name (for column checks and defaults)."""
    return {table.name: table for table in app_tables()}


def check_table_fields(table: str, fields: list[str]) -> str | None:
    """Why ``table``/``fields`` do not exist in the world schema, or ``None`` when they do."""
    tables = tables_by_name()
    if table not in tables:
        return f"there is no table {table!r} (tables: {', '.join(sorted(tables))})"
    columns = [c.name for c in tables[table].columns]
    unknown = [f for f in fields if f not in columns]
    if unknown:
        return f"{table} has no column {unknown[0]!r} (columns: {', '.join(columns)})"
    return None


def apply_setup(world: World, steps: list[Any], *, source: str = "task.yaml") -> None:
    """Run every setup step on ``world`` in order; ``SpecError`` names the step that failed."""
    for index, step in enumerate(steps):
        where = f"{source}: setup[{index}]"
        if isinstance(step, ClockStep):
            world.set_clock(step.clock)
        elif isinstance(step, CallStep):
            _call(world, step, where)
        elif isinstance(step, InsertStep):
            _insert(world, step, where)
        elif isinstance(step, UpdateStep):
            _update(world, step, where)
        else:
            raise SpecError(f"{where}: unknown step {step!r}")


def _call(world: World, step: CallStep, where: str) -> None:
    try:
        actor = person_id(world, step.as_)
        arguments = resolve_arguments(world, step.arguments)
    except SpecError as exc:
        raise SpecError(f"{where} ({step.call}): {exc}") from None
    with world.acting_as(actor):
        result = world.call(step.call, arguments)
    if isinstance(result, dict) and "error" in result:
        error = result["error"]
        raise SpecError(f"{where} ({step.call} as {step.as_}) returned an error, so the task is broken: "
                        f"{error.get('type')}: {error.get('message')}")


def _stored(world: World, column: str, value: Any) -> Any:
    """A value as the database stores it: refs resolved, lists/dicts as JSON text."""
    value = resolve_column_value(world, column, value)
    if isinstance(value, list | dict):
        return json.dumps(value)
    if isinstance(value, datetime):
        return format_ts(value)
    return value


def _insert(world: World, step: InsertStep, where: str) -> None:
    tables = tables_by_name()
    for number, row in enumerate(step.rows):
        problem = check_table_fields(step.insert, list(row))
        if problem:
            raise SpecError(f"{where}.rows[{number}]: {problem}")
        table = tables[step.insert]
        try:
            values = {column: _stored(world, column, value) for column, value in row.items()}
        except SpecError as exc:
            raise SpecError(f"{where}.rows[{number}]: {exc}") from None
        for column in table.columns:
            if column.name in values:
                continue
            if column.name == "id":
                values["id"] = world.new_id(_prefix(world, step.insert, where))
            elif column.name == "thread_id" and step.insert == "mail_message":
                values["thread_id"] = world.new_id("thr")
            elif isinstance(column.default, ScalarElementColumnDefault):
                values[column.name] = column.default.arg
            elif column.name in _CLOCK_COLUMNS and not column.nullable:
                values[column.name] = world.now_ts()
        columns = list(values)
        quoted = ", ".join(f'"{c}"' for c in columns)
        sql = f"INSERT INTO {step.insert} ({quoted}) VALUES ({', '.join('?' * len(columns))})"
        try:
            world.db.execute(sql, tuple(values[c] for c in columns))
        except _DB_ERRORS as exc:
            raise SpecError(f"{where}.rows[{number}]: cannot insert into {step.insert}: {exc}") from None


def _update(world: World, step: UpdateStep, where: str) -> None:
    problem = check_table_fields(step.update, [*step.match, *step.set])
    if problem:
        raise SpecError(f"{where}: {problem}")
    try:
        match = {c: _stored(world, c, v) for c, v in step.match.items()}
        changes = {c: _stored(world, c, v) for c, v in step.set.items()}
    except SpecError as exc:
        raise SpecError(f"{where}: {exc}") from None
    assignments = ", ".join(f'"{c}" = ?' for c in changes)
    condition = " AND ".join(f'"{c}" IS ?' for c in match)
    try:
        cursor = world.db.execute(
            f"UPDATE {step.update} SET {assignments} WHERE {condition}", (*changes.values(), *match.values())
        )
    except _DB_ERRORS as exc:
        raise SpecError(f"{where}: cannot update {step.update}: {exc}") from None
    if cursor.rowcount == 0:
        raise SpecError(f"{where}: no row of {step.update} matches {step.match}; the update changed nothing")


def _prefix(world: World, table: str, where: str) -> str:
    prefixes = id_prefixes()
    if table in prefixes:
        return prefixes[table]
    row = world.db.execute(f"SELECT id FROM {table} LIMIT 1").fetchone()
    if row is None or "_" not in row[0]:
        raise SpecError(f"{where}: cannot tell the id prefix of {table}; give every row an id")
    return str(row[0]).rsplit("_", 1)[0]
