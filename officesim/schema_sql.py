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


# Indexes for the lookups the tools make beyond the models' own ``index=True`` columns: names a
# model may type in any case (``= ? COLLATE NOCASE`` is served only by an index built with that
# collation) and foreign keys that grading and the CRM tools follow.  Without them each lookup
# scans its table, and costs grow with the world (see benchmarks/bench_tools.py).
LOOKUP_INDEXES: tuple[tuple[str, str, str], ...] = (
    ("ix_chat_channel_name_nocase", "chat_channel", "name COLLATE NOCASE"),
    ("ix_crm_account_name_nocase", "crm_account", "name COLLATE NOCASE"),
    ("ix_crm_contact_email_nocase", "crm_contact", "email COLLATE NOCASE"),
    ("ix_crm_deal_name_nocase", "crm_deal", "name COLLATE NOCASE"),
    ("ix_crm_deal_account_name_nocase", "crm_deal", "account_id, name COLLATE NOCASE"),
    ("ix_crm_invoice_number_nocase", "crm_invoice", "number COLLATE NOCASE"),
    ("ix_crm_invoice_deal_id", "crm_invoice", "deal_id"),
    ("ix_directory_person_name_nocase", "directory_person", "name COLLATE NOCASE"),
    ("ix_directory_department_name_nocase", "directory_department", "name COLLATE NOCASE"),
    ("ix_drive_file_name_nocase", "drive_file", "name COLLATE NOCASE"),
    # The orders of the paged lists over whole tables: with them a page walks the index from
    # its cursor instead of sorting every matching row for every page.
    ("ix_crm_account_name_id", "crm_account", "name, id"),
    ("ix_crm_contact_name_id", "crm_contact", "name, id"),
    ("ix_crm_deal_close_date_id", "crm_deal", "close_date, id"),
    ("ix_crm_invoice_due_on_id", "crm_invoice", "due_on, id"),
    ("ix_crm_activity_at_id", "crm_activity", "at, id"),
    ("ix_directory_person_name_id", "directory_person", "name, id"),
    # Labelling a message looks up the mailbox's labels (their stored spelling): a partial index
    # holding only the labelled entries, and the labels, so the lookup reads neither the rest.
    ("ix_mail_entry_owner_labels", "mail_entry", "owner_id, labels WHERE labels != '[]'"),
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
        for name, indexed, columns in LOOKUP_INDEXES:
            if indexed == table.name:
                columns, _, where = columns.partition(" WHERE ")  # a partial index
                partial = f" WHERE {where}" if where else ""
                statements.append(f"CREATE INDEX {name} ON {indexed} ({columns}){partial}")
        for event, ref in (("INSERT", "NEW"), ("UPDATE", "OLD"), ("DELETE", "OLD")):
            statements.append(
                f"CREATE TRIGGER _log_{table.name}_{event.lower()} AFTER {event} ON {table.name} "
                f"BEGIN INSERT OR IGNORE INTO {CHANGES_TABLE} VALUES ('{table.name}', {ref}.id); END"
            )
    return tuple(statements)
