"""DDL for the world database, compiled once from the apps' SQLModel tables.

SQLModel defines the tables and their typed rows; the hot path then runs on one raw ``sqlite3``
connection (an ORM session per call costs 10x more, see DESIGN.md).  This module turns the
SQLModel metadata into plain SQL and adds the change-log triggers that make grading diffs cheap.
"""

from __future__ import annotations

from functools import cache

from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import SQLModel

from officesim.apps.registry import registry_version, table_prefixes

META_TABLE = "_meta"
CHANGES_TABLE = "_changes"


def app_tables() -> list:
    """The SQLAlchemy tables of every app, sorted by name (import the apps first)."""
    return sorted(
        (t for t in SQLModel.metadata.tables.values() if t.name.startswith(table_prefixes())),
        key=lambda t: t.name,
    )


def world_ddl() -> tuple[str, ...]:
    """Every statement that creates an empty world: app tables, indexes, meta, change log."""
    return _world_ddl(registry_version())


@cache
def _world_ddl(_apps_version: int) -> tuple[str, ...]:
    """``world_ddl`` for one state of the app registry (compiled once per state)."""
    dialect = sqlite.dialect()
    statements = [
        f"CREATE TABLE {META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        f"CREATE TABLE {CHANGES_TABLE} (tbl TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (tbl, id))",
    ]
    for table in app_tables():
        statements.append(str(CreateTable(table).compile(dialect=dialect)).strip())
        for index in sorted(table.indexes, key=lambda i: i.name or ""):
            statements.append(str(CreateIndex(index).compile(dialect=dialect)).strip())
        for event, ref in (("INSERT", "NEW"), ("UPDATE", "OLD"), ("DELETE", "OLD")):
            statements.append(
                f"CREATE TRIGGER _log_{table.name}_{event.lower()} AFTER {event} ON {table.name} "
                f"BEGIN INSERT OR IGNORE INTO {CHANGES_TABLE} VALUES ('{table.name}', {ref}.id); END"
            )
    return tuple(statements)
