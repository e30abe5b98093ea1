"""The World: one simulated company in one in-memory SQLite database.

A World owns a single persistent ``sqlite3`` connection.  Snapshots are the database's own
serialization, so ``restore`` costs about as much as a bare ``deserialize`` (no regeneration, no
ORM).  The simulated clock, the acting user and id counters live in the ``_meta`` table, so a
snapshot carries them.  No module-level state: many worlds can live in one process.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import officesim.apps  # noqa: F401 - registers every app's tables and tools
from officesim.budget import default_budget
from officesim.clock import format_ts, parse_ts
from officesim.connection import connect
from officesim.errors import NotFound, OfficesimError
from officesim.schema_sql import CHANGES_TABLE, META_TABLE, world_ddl
from officesim.tools import dispatch
from officesim.world_spec import WorldSpec, load_spec
from officesim.worldgen import StageCallback, populate


@dataclass
class TableDiff:
    """Rows of one table that differ between two worlds, keyed by primary key."""

    inserted: dict[str, dict[str, Any]] = field(default_factory=dict)
    deleted: dict[str, dict[str, Any]] = field(default_factory=dict)
    # id -> {field: (old, new)} for the fields that changed, plus the full new row under "_row".
    updated: dict[str, dict[str, Any]] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not (self.inserted or self.deleted or self.updated)


@dataclass
class WorldDiff:
    """What changed from one world to another, per table."""

    tables: dict[str, TableDiff] = field(default_factory=dict)

    def table(self, name: str) -> TableDiff:
        """The diff of ``name`` (empty when nothing changed there)."""
        return self.tables.get(name, TableDiff())

    def changed_tables(self) -> list[str]:
        return sorted(name for name, diff in self.tables.items() if not diff.is_empty())

    def is_empty(self) -> bool:
        return not self.changed_tables()

    def summary(self) -> dict[str, dict[str, int]]:
        """Counts per changed table, for reports."""
        return {
            name: {
                "inserted": len(d.inserted),
                "updated": len(d.updated),
                "deleted": len(d.deleted),
            }
            for name, d in sorted(self.tables.items())
            if not d.is_empty()
        }

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.changed_tables():
            d = self.tables[name]
            out[name] = {
                "inserted": d.inserted,
                "deleted": d.deleted,
                "updated": {k: {f: list(v) for f, v in ch.items() if f != "_row"} for k, ch in d.updated.items()},
            }
        return out


class World:
    """A simulated company: the database, its clock and the employee the agent acts as."""

    def __init__(self, conn: sqlite3.Connection, *, meta: bool = True) -> None:
        """A world over ``conn``; ``meta=False`` leaves reading ``_meta`` to the caller (``restore`` keeps the rows)."""
        self.db = conn
        self._tables: list[str] | None = None
        # the _meta rows (rowid, key, value) of the bytes last deserialized; see ``reset``
        self._reset_meta: tuple[bytes, list[tuple[int, str, str]]] | None = None
        # The bytes this world was last restored or deserialized from while its change log still
        # lists every row written since (see ``rewind``), and how often it was rewound since.
        self._base: bytes | None = None
        self._base_schema = 0  # the schema's version at that deserialize
        self._rewinds = 0
        # Seconds one tool call may run (None: no limit); see officesim.budget.
        self.time_budget: float | None = default_budget()
        if meta:
            self.reload_meta()

    def reload_meta(self) -> list[tuple[int, str, str]]:
        """Re-read clock, acting user and id counters (after a restore or a rolled-back call); the rows read."""
        rows = self._meta_rows()
        self._load_meta(rows)
        return rows

    def _meta_rows(self) -> list[tuple[int, str, str]]:
        """The ``_meta`` rows as (rowid, key, value), in rowid order."""
        cursor = self.db.cursor()
        cursor.row_factory = None  # plain tuples, as they are compared and written back
        return cursor.execute(f"SELECT rowid, key, value FROM {META_TABLE} ORDER BY rowid").fetchall()

    def _load_meta(self, rows: list[tuple[int, str, str]]) -> None:
        """Take clock, acting user and counters from ``_meta`` rows (see ``_meta_rows``)."""
        self._meta_cache: dict[str, str] = {key: value for _, key, value in rows}
        self._clock = parse_ts(self._meta_cache["clock"])
        self._user_id = self._meta_cache["user_id"]

    # ----------------------------------------------------------------- construction
    @classmethod
    def empty(cls, *, clock: datetime, meta: dict[str, str] | None = None) -> World:
        """A world with every app's tables and no rows (the generator fills it)."""
        conn = connect()
        conn.execute("PRAGMA foreign_keys = OFF")
        for statement in world_ddl():
            conn.execute(statement)
        values = {"clock": format_ts(clock), "user_id": "", **(meta or {})}
        conn.executemany(f"INSERT INTO {META_TABLE} VALUES (?, ?)", sorted(values.items()))
        return cls(conn)

    @classmethod
    def generate(cls, spec: WorldSpec | str | Path, seed: int | None = None, *,
                 on_stage: StageCallback | None = None) -> World:
        """Generate a world from a ``WorldSpec`` or a path to a YAML spec (``seed`` overrides).

        The same spec and seed give the same ``state_hash()`` (and snapshot bytes) anywhere.
        ``on_stage(app, index, apps)`` is called before each app generates (for progress).
        """
        spec = load_spec(spec)
        seed = spec.seed_for(seed)
        world = cls.empty(
            clock=spec.start,
            meta={"spec": spec.name, "spec_fingerprint": spec.fingerprint(), "seed": str(seed),
                  "company": spec.company, "domain": spec.domain, "currency": spec.currency,
                  # Recorded when not the default, so worlds built before these existed keep their hash.
                  **({"locale": spec.locale} if spec.locale != "en_US" else {}),
                  **({"industry": spec.industry} if spec.industry != "software" else {})},
        )
        populate(world, spec, seed, on_stage=on_stage)
        world.clear_change_log()
        world.reserve_headroom()
        return world

    def reserve_headroom(self, fraction: float = 0.05, minimum: int = 64 * 1024) -> None:
        """Leave free pages in the database so writes after a restore do not grow the buffer.

        A deserialized database is exactly as large as its bytes; the first insert that needs a
        new page makes SQLite reallocate the whole buffer (~17 ms on a 33 MB world).  Freed pages
        stay in the file (no auto-vacuum), so snapshots carry them and inserts reuse them.  The
        content, and so ``state_hash()``, is unchanged.
        """
        page_size = self.db.execute("PRAGMA page_size").fetchone()[0]
        used = page_size * self.db.execute("PRAGMA page_count").fetchone()[0]
        size = max(minimum, int(used * fraction))
        self.db.execute("CREATE TABLE _headroom (pad BLOB)")
        self.db.execute("INSERT INTO _headroom VALUES (zeroblob(?))", (size,))
        self.db.execute("DROP TABLE _headroom")

    def snapshot(self) -> bytes:
        """The whole database as bytes; ``World.restore`` brings it back exactly."""
        return self.db.serialize()

    @classmethod
    def restore(cls, data: bytes) -> World:
        """A fresh, independent world from ``snapshot()`` bytes (into a fresh connection)."""
        conn = connect()
        conn.deserialize(data)
        world = cls(conn, meta=False)
        world._base, world._base_schema, world._reset_meta = data, _schema_version(conn), (data, world.reload_meta())
        return world

    def reset(self, data: bytes, *, origin: World | None = None) -> None:
        """Roll this world back to ``data`` in place, keeping its connection (for episode loops).

        Deserializing into the same connection keeps SQLite's parsed schema and Python's prepared
        statements warm, so a reset costs ~10 us instead of the ~400 us a fresh connection pays
        to parse the schema and re-prepare every statement.  Safe for snapshots of this world's
        lineage (``World.generate`` always lays out the schema the same way; SQLite re-prepares
        a statement if the schema differs).  No cursor on ``self.db`` may be left half-read
        across a reset (SQLite frees the pages under it): tools always read results in full.

        With ``origin``, an untouched world restored from these very bytes (a task's start world),
        the world is rewound instead when it can be (see ``rewind``): only the rows the episode
        touched are put back, about a tenth of a millisecond whatever the world's size.
        """
        if self.db.in_transaction:
            raise OfficesimError("cannot reset a world in the middle of a transaction")
        if origin is not None and self.rewind(data, origin):
            return
        if getattr(self.db, "tainted", False):
            # A statement once touched a virtual table here; see officesim.connection.
            self.db.close()
            self.db = connect()
        self.db.deserialize(data)
        self._tables = None
        # Episodes reset to the same snapshot again and again: its _meta rows are those read after
        # the previous reset to these very bytes (bytes are immutable), so skip the query.
        if self._reset_meta is None or self._reset_meta[0] is not data:
            self._reset_meta = (data, self._meta_rows())
        self._load_meta(self._reset_meta[1])
        self._base, self._base_schema, self._rewinds = data, _schema_version(self.db), 0

    def rewind(self, data: bytes, origin: World) -> bool:
        """Put back only what changed since this world was last deserialized from ``data``; False when
        that cannot be done exactly (the caller then deserializes).

        A deserialize copies the whole database (2.5 MB for acme, 19 MB for large); an episode
        touches a few rows.  The change log lists every row written since the last deserialize (its
        triggers fire on every app table), so each listed row is made ``origin``'s again
        (``_copy_back``: deleted, inserted with its rowid, or its differing columns written): tables,
        indexes and rowids end as they were, so every query, ordered or not, returns what it returns
        after a deserialize.  ``_meta`` (no trigger logs it) gets back the values read at the
        deserialize (``_meta_back``), and the log is emptied.

        Exact only under conditions checked here: this world and ``origin`` both come from ``data``
        itself (the same bytes object), ``origin``'s rows are unchanged (an empty log), this world's
        schema is unchanged, its log was never cleared since, and its connection never touched a
        virtual table.  Every ``REWINDS_PER_DESERIALIZE`` rewinds the bytes are deserialized again
        all the same, so that no page layout drifts over millions of episodes.
        """
        if (self._base is not data or origin._base is not data or self._reset_meta is None
                or self._reset_meta[0] is not data or self._rewinds >= REWINDS_PER_DESERIALIZE
                or getattr(self.db, "tainted", False) or origin.db.in_transaction):
            return False
        if (_schema_version(self.db) != self._base_schema
                or origin.db.execute(f"SELECT 1 FROM {CHANGES_TABLE} LIMIT 1").fetchone() is not None):
            return False
        db = self.db
        db.execute("BEGIN")
        try:
            for table, ids in self.changed_keys().items():
                keys = sorted(ids)
                for at in range(0, len(keys), _IDS_PER_STATEMENT):
                    _copy_back(db, origin.db, table, keys[at:at + _IDS_PER_STATEMENT])
            meta = self._reset_meta[1]
            self._meta_back(meta)
            db.execute(f"DELETE FROM {CHANGES_TABLE}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        self._load_meta(meta)
        self._rewinds += 1
        return True

    def _meta_back(self, rows: list[tuple[int, str, str]]) -> None:
        """Write ``_meta`` back to ``rows`` (rowid, key, value): the values that differ and the keys added.

        The cache mirrors the table (``set_meta`` writes both, a failed call reloads it) and
        ``set_meta`` keeps each key's rowid, so the clock and the few counters an episode moved are
        all there is to write.
        """
        wanted = {key: value for _, key, value in rows}
        changed = [(value, key) for key, value in wanted.items() if self._meta_cache.get(key) != value]
        added = [(key,) for key in self._meta_cache if key not in wanted]
        if changed:
            self.db.executemany(f"UPDATE {META_TABLE} SET value = ? WHERE key = ?", changed)
        if added:
            self.db.executemany(f"DELETE FROM {META_TABLE} WHERE key = ?", added)

    def save(self, path: str | Path) -> None:
        """Write the world to a real SQLite file that any SQLite tool can open."""
        target = Path(path)
        if target.exists():
            target.unlink()
        try:
            out = sqlite3.connect(target)
        except sqlite3.OperationalError as exc:
            raise OfficesimError(f"cannot write the world to {target}: {exc}") from None
        try:
            self.db.backup(out)
        finally:
            out.close()

    @classmethod
    def load(cls, path: str | Path) -> World:
        """Load a world saved with ``save`` into memory."""
        source = Path(path)
        if not source.exists():
            raise OfficesimError(f"world file {source} does not exist (build one with 'officesim world build')")
        src = sqlite3.connect(source)
        conn = connect()
        try:
            src.backup(conn)
            conn.refresh_tables()
            return cls(conn)
        except (sqlite3.DatabaseError, KeyError) as exc:
            conn.close()
            raise OfficesimError(f"{source} is not an officesim world: {exc}") from exc
        finally:
            src.close()

    def close(self) -> None:
        self.db.close()

    # ----------------------------------------------------------------- meta, clock, user
    def meta(self, key: str, default: str | None = None) -> str | None:
        return self._meta_cache.get(key, default)

    def set_meta(self, key: str, value: str) -> None:
        # An upsert keeps the row (and its rowid) where a replace would delete and insert it again:
        # cheaper on every tick of the clock, and ``rewind`` writes back only the values.
        self.db.execute(f"INSERT INTO {META_TABLE} VALUES (?, ?) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
        self._meta_cache[key] = value

    def now(self) -> datetime:
        """The simulated time."""
        return self._clock

    def now_ts(self) -> str:
        """The simulated time as stored text."""
        return self._meta_cache["clock"]

    def set_clock(self, moment: datetime | str) -> None:
        moment = parse_ts(moment) if isinstance(moment, str) else moment
        self._clock = moment
        self.set_meta("clock", format_ts(moment))

    def tick(self, seconds: int = 30) -> None:
        """Advance the clock; write tools call this so every action has its own time."""
        self.set_clock(self._clock + timedelta(seconds=seconds))

    @property
    def user_id(self) -> str:
        """The id of the employee the agent acts as."""
        return self._user_id

    @property
    def user(self) -> dict[str, Any]:
        """The acting employee's directory row."""
        return self.person(self._user_id)

    def person(self, ref: str) -> dict[str, Any]:
        """A person by id or email; ``NotFound`` when nobody matches."""
        # Emails are stored lower-case; two indexed lookups beat one OR that scans the table.
        column, key = ("email", ref.strip().lower()) if "@" in ref else ("id", ref)
        row = self.db.execute(f"SELECT * FROM directory_person WHERE {column} = ?", (key,)).fetchone()
        if row is None:
            raise NotFound(f"no person with id or email {ref!r}; use directory_search_people to find people")
        return dict(row)

    def set_user(self, ref: str) -> None:
        """Make ``ref`` (id or email) the acting employee."""
        person = self.person(ref)
        self._user_id = person["id"]
        self.set_meta("user_id", person["id"])

    @contextmanager
    def acting_as(self, ref: str) -> Iterator[None]:
        """Temporarily act as someone else (task setup: colleagues send mail, post, edit)."""
        previous = self._user_id
        self.set_user(ref)
        try:
            yield
        finally:
            self.set_user(previous)

    def new_id(self, prefix: str) -> str:
        """The next id for ``prefix`` (``msg_41``); counters live in the database."""
        key = f"seq:{prefix}"
        number = int(self._meta_cache.get(key, "0")) + 1
        self.set_meta(key, str(number))
        return f"{prefix}_{number}"

    # ----------------------------------------------------------------- tools
    def call(self, name: str, arguments: dict[str, Any] | str | None = None) -> dict[str, Any]:
        """Run one tool as the acting user and return its JSON result (errors included)."""
        return dispatch(self, name, arguments)

    # ----------------------------------------------------------------- inspection
    def tables(self) -> list[str]:
        """Names of the app tables (not the internal ``_meta``/``_changes``)."""
        if self._tables is None:
            rows = self.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' "
                "ORDER BY name"
            ).fetchall()
            self._tables = [r[0] for r in rows]
        return self._tables

    def counts(self) -> dict[str, int]:
        """Rows per table."""
        return {t: self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in self.tables()}

    def rows(self, table: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute(f"SELECT * FROM {table} ORDER BY id")]

    def state_hash(self) -> str:
        """A hash of the content: equal for equal rows, whatever their physical order."""
        digest = hashlib.sha256()
        for table in [*self.tables(), META_TABLE]:
            key_col = "key" if table == META_TABLE else "id"
            digest.update(f"\x00table:{table}\x00".encode())
            cursor = self.db.execute(f"SELECT * FROM {table} ORDER BY {key_col}")
            columns = [d[0] for d in cursor.description]
            digest.update(json.dumps(columns).encode())
            for row in cursor:
                digest.update(json.dumps(tuple(row), separators=(",", ":"), default=str).encode())
        return digest.hexdigest()

    def clear_change_log(self) -> None:
        """Forget recorded changes; the next ``diff`` against this state can use the log."""
        self.db.execute(f"DELETE FROM {CHANGES_TABLE}")
        self._base = None  # the log no longer lists every change since the bytes: no rewind to them

    def changed_keys(self) -> dict[str, set[str]]:
        """Ids touched since the change log was last cleared, per table."""
        keys: dict[str, set[str]] = {}
        for tbl, row_id in self.db.execute(f"SELECT tbl, id FROM {CHANGES_TABLE}"):
            keys.setdefault(tbl, set()).add(row_id)
        return keys

    def diff(self, other: World, *, use_change_log: bool = False) -> WorldDiff:
        """What changed going from ``other`` (the earlier state) to this world.

        With ``use_change_log`` only rows this world's change log touched are compared: exact
        when ``other`` is the state the log was cleared at (an episode's start), and it costs
        microseconds instead of a scan of every table.
        """
        result = WorldDiff()
        if use_change_log:
            for table, ids in self.changed_keys().items():
                result.tables[table] = _diff_rows(_fetch(other.db, table, ids), _fetch(self.db, table, ids))
            return result
        for table in self.tables():
            before = {r["id"]: r for r in other.rows(table)} if table in other.tables() else {}
            after = {r["id"]: r for r in self.rows(table)}
            diff = _diff_rows(before, after)
            if not diff.is_empty():
                result.tables[table] = diff
        return result


REWINDS_PER_DESERIALIZE = 1000  # see ``World.rewind``
_IDS_PER_STATEMENT = 500  # ids bound in one ``IN (...)``: far below SQLite's limit on variables


def _schema_version(conn: sqlite3.Connection) -> int:
    """SQLite's count of schema changes in this database (a table created in an episode changes it)."""
    return int(conn.execute("PRAGMA schema_version").fetchone()[0])


def _copy_back(db: sqlite3.Connection, origin: sqlite3.Connection, table: str, ids: list[str]) -> None:
    """Make the rows ``ids`` of ``table`` in ``db`` exactly those of ``origin``, rowids included.

    A row ``origin`` lacks is deleted, one ``db`` lacks is inserted with its rowid (so unordered
    reads keep their order), and a row both have gets only its differing columns written: a
    delete and insert would rewrite every index of the table.
    """
    marks = ",".join("?" * len(ids))
    select = f"SELECT rowid, * FROM {table} WHERE id IN ({marks})"
    cursor = origin.cursor()
    cursor.row_factory = None
    wanted = cursor.execute(select, ids).fetchall()
    columns = [d[0] for d in cursor.description]
    key = columns.index("id")
    mine = db.cursor()
    mine.row_factory = None
    have = {row[key]: row for row in mine.execute(select, ids)}
    back = []
    for row in wanted:
        now = have.pop(row[key], None)
        if now is None or now[0] != row[0]:  # gone, or deleted and inserted again under a new rowid
            if now is not None:
                db.execute(f"DELETE FROM {table} WHERE rowid = ?", (now[0],))
            back.append(row)
        elif now != row:
            differ = [i for i in range(1, len(row)) if now[i] != row[i]]
            assignments = ", ".join(f'"{columns[i]}" = ?' for i in differ)
            db.execute(f"UPDATE {table} SET {assignments} WHERE rowid = ?", (*(row[i] for i in differ), row[0]))
    if have:  # rows the episode inserted
        db.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(row[0],) for row in have.values()])
    if back:
        names = ", ".join(f'"{name}"' for name in columns)
        db.executemany(f"INSERT INTO {table} ({names}) VALUES ({','.join('?' * len(columns))})", back)


def _fetch(conn: sqlite3.Connection, table: str, ids: set[str]) -> dict[str, dict[str, Any]]:
    marks = ",".join("?" * len(ids))
    return {r["id"]: dict(r) for r in conn.execute(f"SELECT * FROM {table} WHERE id IN ({marks})", tuple(ids))}


def _diff_rows(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> TableDiff:
    diff = TableDiff()
    for key, row in after.items():
        old = before.get(key)
        if old is None:
            diff.inserted[key] = row
        elif old != row:
            changes: dict[str, Any] = {f: (old.get(f), v) for f, v in row.items() if old.get(f) != v}
            changes["_row"] = row
            diff.updated[key] = changes
    for key, row in before.items():
        if key not in after:
            diff.deleted[key] = row
    return diff
