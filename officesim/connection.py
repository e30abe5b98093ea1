"""The world's SQLite connection, and the guard that keeps resets from crashing the interpreter.

Episodes roll a world back with ``sqlite3_deserialize`` into its own connection (tens of
microseconds, the schema and statements stay warm).  The SQLite that CPython links on a fresh
Debian 12 machine (3.40.1) has a use-after-free there: a statement that reads an *eponymous
virtual table* (``json_each``, ``json_tree``, ``pragma_table_info`` and the other ``pragma_*``
table-valued functions, ``generate_series``, ``dbstat``) after an in-place deserialize reads freed
memory, and a few episodes later the process dies with SIGSEGV.  Ordinary tables, indexes,
triggers and scalar functions (``json_extract`` included) are not affected; SQLite 3.54 fixed it.

Rather than swap the database driver (the packages bundling a current SQLite either lack
``serialize``/``deserialize`` or have another API, and every tool would change), the world never
reads a virtual table: an authorizer lets a statement read only the database's real tables, so code
that tries gets an ``sqlite3.DatabaseError`` ("not authorized") at prepare time, a bug that
surfaces in tests, instead of memory corruption in a user's RL loop.  Queries that used
``json_each`` use the scalar function ``json_list_has`` registered here instead.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

_SQLITE_READ = sqlite3.SQLITE_READ
_CREATES_A_TABLE = frozenset({sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_CREATE_TEMP_TABLE})
_OK = sqlite3.SQLITE_OK
_DENY = sqlite3.SQLITE_DENY
# SQLite's own catalog tables exist in every database without a row in it.
_CATALOG = ("sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema", "sqlite_sequence")


class WorldConnection(sqlite3.Connection):
    """A connection whose statements may read only real tables (never a virtual table).

    Real tables are those in ``sqlite_master`` (virtual tables never are, eponymous ones have no
    row at all) plus SQLite's catalog; the set is re-read after every ``deserialize`` and grows
    when a statement creates a table.  The authorizer runs when a statement is prepared, not per
    row, so the guard costs nothing on the hot path of a cached statement.

    SQLite builds an eponymous virtual table's object while resolving the name, before it asks
    the authorizer, so a refused statement still leaves that object behind: such a connection is
    ``tainted`` and must never be deserialized in place again (``World.reset`` then moves to a
    fresh connection).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.readable: set[str] = set(_CATALOG)
        self.tainted = False
        self.set_authorizer(self._authorize)
        self.create_function("json_list_has", 2, json_list_has, deterministic=True)

    def _authorize(self, action: int, table: str | None, _col: str | None, _db: str | None, _trig: str | None) -> int:
        if action == _SQLITE_READ:
            if table in self.readable:
                return _OK
            # SQLite resolved the virtual table before asking: this connection now holds the
            # object that an in-place deserialize would leave dangling.
            self.tainted = True
            return _DENY
        if action in _CREATES_A_TABLE and table is not None:
            self.readable.add(table)
        return _OK

    def refresh_tables(self) -> None:
        """Re-read which tables exist (after ``deserialize`` or ``backup`` replaced the database)."""
        names = {row[0] for row in super().execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.readable = {*_CATALOG, *names}

    def deserialize(self, data: bytes, /, *, name: str = "main") -> None:  # type: ignore[override]
        super().deserialize(data, name=name)
        self.refresh_tables()


def json_list_has(items: str | None, value: str | None) -> int:
    """1 when the JSON list ``items`` holds ``value`` (case-insensitively); a scalar, not a virtual table."""
    if not items or value is None or items == "[]":
        return 0
    wanted = value.lower()
    try:
        return int(any(isinstance(x, str) and x.lower() == wanted for x in json.loads(items)))
    except (ValueError, TypeError):
        return 0


def connect() -> WorldConnection:
    """A fresh in-memory connection for one world: rows as ``sqlite3.Row``, autocommit, guarded."""
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None, factory=WorldConnection)
    conn.row_factory = sqlite3.Row
    return conn
