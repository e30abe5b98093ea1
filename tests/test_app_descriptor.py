"""Adding an app is one package and one line: a throwaway app registers and works everywhere.

The ``notes`` app below lives outside officesim (in a temporary folder) and is named in
``OFFICESIM_APPS``, the one line a user adds; nothing else in officesim is edited.  It runs in a
child process so that the registration does not leak into the other tests' registry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from officesim.apps import apps, get_app
from officesim.apps.registry import id_prefixes, table_prefixes
from officesim.schema_sql import app_tables
from officesim.taskgen.common import DISTRACTOR_WRITES, READS
from officesim.tools import registry
from officesim.world_spec import SizeSpec

ROOT = Path(__file__).resolve().parent.parent

NOTES_APP = {
    "__init__.py": '''
        """A throwaway app: one table of notes, a read and a write."""
        from officesim.apps.descriptor import AppDescriptor, SizeKnob

        APP = AppDescriptor(
            name="notes", package=__name__, id_prefixes={"notes_note": "note"}, after=("directory",),
            size={"notes_per_person": SizeKnob(2, "Notes each of the first three people wrote.", ge=0, le=20)},
            reads=("notes_list_notes",), distractor_writes=("notes_create_note",),
        )
    ''',
    "models.py": '''
        from sqlmodel import Field, SQLModel

        class NotesNote(SQLModel, table=True):
            __tablename__ = "notes_note"
            id: str = Field(primary_key=True)
            owner_id: str = Field(index=True)
            text: str
            created_at: str
    ''',
    "tools.py": '''
        from typing import Any
        from officesim.tools import tool

        @tool(app="notes", kind="read")
        def notes_list_notes(w: Any, limit: int = 10) -> dict[str, Any]:
            """List your notes, newest first.

            Args:
                limit: How many notes to return (1-50).
            """
            rows = w.db.execute("SELECT id, text FROM notes_note WHERE owner_id = ? ORDER BY id DESC LIMIT ?",
                                (w.user_id, limit)).fetchall()
            return {"notes": [dict(r) for r in rows]}

        @tool(app="notes", kind="write")
        def notes_create_note(w: Any, text: str) -> dict[str, Any]:
            """Write a note to yourself.

            Args:
                text: The note.
            """
            w.tick()
            note = {"id": w.new_id("note"), "owner_id": w.user_id, "text": text, "created_at": w.now_ts()}
            w.db.execute("INSERT INTO notes_note VALUES (:id, :owner_id, :text, :created_at)", note)
            return {"id": note["id"]}
    ''',
    "generate.py": '''
        def generate(ctx):
            rows = [{"id": f"note_{i}", "owner_id": person["id"], "text": f"note {i}",
                     "created_at": "2026-10-01T09:00:00Z"}
                    for i, person in enumerate(
                        (p for p in ctx.people[:3] for _ in range(ctx.spec.size.notes_per_person)), 1)]
            ctx.insert("notes_note", rows)
            ctx.set_counter("note", len(rows))
    ''',
}

PROBE = '''
import json
from officesim import World
from officesim.apps.registry import app_names, id_prefixes
from pydantic import ValidationError
from officesim.world_spec import WorldSpec, load_spec
from officesim.taskgen.common import toolset
from officesim.toolexport import export_tools

spec = load_spec("worlds/tiny.yaml")
world = World.generate(spec)
fewer = World.generate(spec.model_copy(update={"size": spec.size.model_copy(update={"notes_per_person": 1})}))
user = world.user_id
world.set_user(world.db.execute("SELECT owner_id FROM notes_note LIMIT 1").fetchone()[0])
listed = world.call("notes_list_notes", {})
generated = len(world.rows("notes_note"))
start = World.restore(world.snapshot())
created = world.call("notes_create_note", {"text": "remember the offsite"})
bad = world.call("notes_create_note", {"text": 5})
try:
    WorldSpec.model_validate({**spec.model_dump(mode="json"), "size": {**spec.size.model_dump(), "notes_per_persn": 1}})
    typo = "accepted"
except ValidationError as exc:
    typo = str(exc)
print(json.dumps({
    "apps": list(app_names()),
    "tables": world.tables(),
    "rows": generated, "fewer": len(fewer.rows("notes_note")),
    "listed": len(listed["notes"]), "created": created, "bad": bad["error"]["type"],
    "diff": world.diff(start).summary(),
    "prefix": id_prefixes()["notes_note"],
    "exported": sorted(t["function"]["name"] for t in export_tools() if t["function"]["name"].startswith("notes_")),
    "toolset": [n for n in toolset(["notes"], distractors=["notes"]) if n.startswith("notes_")],
    "typo": typo,
}))
'''


def test_a_throwaway_app_is_one_package_and_one_line(tmp_path: Path) -> None:
    package = tmp_path / "notes_app"
    package.mkdir()
    for name, text in NOTES_APP.items():
        (package / name).write_text(textwrap.dedent(text), encoding="utf-8")
    env = {**os.environ, "OFFICESIM_APPS": "notes_app",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["apps"][-1] == "notes" and "notes_note" in seen["tables"]
    assert seen["rows"] == 6 and seen["fewer"] == 3  # generated after the directory, sized by its own knob
    assert seen["listed"] == 2
    assert seen["created"] == {"id": "note_7"}  # ids continue after the generated ones
    assert seen["bad"] == "invalid_argument"
    assert seen["diff"] == {"notes_note": {"inserted": 1, "updated": 0, "deleted": 0}}  # the change log covers it
    assert seen["prefix"] == "note"
    assert seen["exported"] == ["notes_create_note", "notes_list_notes"]
    assert seen["toolset"] == ["notes_create_note", "notes_list_notes"]
    assert "notes_per_persn" in seen["typo"]


def test_everything_that_lists_apps_derives_from_the_descriptors() -> None:
    names = [app.name for app in apps()]
    assert names == ["directory", "crm", "drive", "chat", "mail", "calendar"]
    assert table_prefixes() == tuple(f"{n}_" for n in names)
    assert {t.name for t in app_tables()} == set(id_prefixes())  # every table has its id prefix declared
    assert {tool.app for tool in registry().values()} == set(names)
    assert set(SizeSpec.model_fields) == {k for app in apps() for k in app.size}
    assert {app.name: app.reads for app in apps()} == READS
    assert {app.name: app.distractor_writes for app in apps() if app.distractor_writes} == DISTRACTOR_WRITES
    for app in apps():
        assert all(registry()[name].kind == "read" for name in app.reads), app.name
        assert all(registry()[name].kind == "write" for name in app.distractor_writes), app.name
        assert {n for n, t in registry().items() if t.app == app.name and t.kind == "read"} == set(app.reads), (
            f"{app.name}'s descriptor must list every read tool of the app")
        for other in app.after:
            assert names.index(other) < names.index(app.name)
    assert get_app("mail").generate.__module__ == "officesim.apps.mail.generate"
