"""In-place resets never crash the interpreter (SQLite 3.40.1's deserialize use-after-free).

The stress runs in a child process so that a segfault is a failed assertion, not a dead test
run; ``MALLOC_PERTURB_`` fills freed memory with garbage, which turns the use-after-free from a
crash "within a few episodes" into a crash within the first few.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import officesim
from officesim import OfficeEnv, World
from officesim.connection import json_list_has

ROOT = Path(__file__).resolve().parent.parent


def _stress(episodes: int, perturb: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if perturb is not None:
        env["MALLOC_PERTURB_"] = perturb
    return subprocess.run(
        [sys.executable, "-m", "officesim.testing.stress", "--episodes", str(episodes)],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=600,
    )


@pytest.mark.slow
@pytest.mark.parametrize("perturb", [None, "165", "42"])
def test_thousands_of_random_calls_across_resets_never_crash(perturb: str | None) -> None:
    done = _stress(1000, perturb)
    assert done.returncode == 0, f"stress child died with {done.returncode}: {done.stderr[-2000:]}"
    assert "1000 episodes" in done.stdout and "no crash" in done.stdout


def test_the_issue_reproduction_survives_in_a_child() -> None:
    code = (
        "import officesim\n"
        "env = officesim.OfficeEnv(officesim.load_task('tasks/chase-overdue-invoices-001'))\n"
        "for i in range(50):\n"
        "    env.reset(seed=i)\n"
        "    obs, *_ = env.step({'name': 'mail_search_messages', "
        "'arguments': {'query': 'invoice', 'label': 'follow-up'}})\n"
        "    assert 'error' not in obs['result'], obs['result']\n"
        "print('50 resets')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "MALLOC_PERTURB_": "165"}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "50 resets" in done.stdout


@pytest.mark.parametrize("sql", [
    "SELECT j.value FROM mail_entry e, json_each(e.labels) j",
    "SELECT * FROM json_tree('[1]')",
    "SELECT * FROM pragma_table_info('mail_entry')",
])
def test_world_connections_refuse_virtual_tables(sql: str) -> None:
    world = World.generate(ROOT / "worlds" / "tiny.yaml")
    with pytest.raises(sqlite3.DatabaseError, match="prohibited"):
        world.db.execute(sql).fetchall()
    # The guard survives an in-place reset and a fresh restore (it belongs to the connection).
    data = world.snapshot()
    refused_on = world.db
    world.reset(data)
    # The refused statement left a virtual-table object on that connection; resetting it in
    # place would be the crash, so the world moved to a fresh connection.
    assert world.db is not refused_on
    with pytest.raises(sqlite3.DatabaseError, match="prohibited"):
        world.db.execute(sql).fetchall()
    with pytest.raises(sqlite3.DatabaseError, match="prohibited"):
        World.restore(data).db.execute(sql).fetchall()


def test_label_reads_work_without_json_each() -> None:
    env = OfficeEnv(officesim.load_task(ROOT / "tasks" / "chase-overdue-invoices-001"))
    env.reset(seed=0)
    world = env.world
    assert world is not None
    first = world.call("mail_search_messages", {"query": "", "limit": 2})["messages"]
    for message in first:
        done = world.call("mail_label_message", {"message_id": message["id"], "add": ["Follow-Up", "follow-up", "VIP"]})
        assert done["labels"] == ["Follow-Up", "VIP"], done
    again = world.call("mail_label_message", {"message_id": first[0]["id"], "add": ["follow-UP"]})
    assert again["labels"] == ["Follow-Up", "VIP"]  # the stored spelling wins, no duplicate
    labels = {item["name"]: item["total"] for item in world.call("mail_list_folders", {})["labels"]}
    assert labels["Follow-Up"] == 2 and labels["VIP"] == 2
    found = world.call("mail_search_messages", {"query": "", "label": "vip"})["messages"]
    assert {m["id"] for m in found} == {m["id"] for m in first}


def test_json_list_has() -> None:
    assert json_list_has('["Follow-Up", "x"]', "follow-up") == 1
    assert json_list_has('["a"]', "b") == 0
    assert json_list_has("[]", "a") == 0 and json_list_has(None, "a") == 0 and json_list_has("not json", "a") == 0


VIRTUAL_TABLES = re.compile(
    r"\b(json_each|json_tree|pragma_\w+|generate_series|dbstat|sqlite_dbpage|sqlite_stmt|carray)\s*\(")


def test_no_sql_in_officesim_reads_a_virtual_table() -> None:
    offenders = [f"{path.relative_to(ROOT)}:{number}"
                 for path in sorted((ROOT / "officesim").rglob("*.py")) if path.name != "connection.py"
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if VIRTUAL_TABLES.search(line)]
    assert not offenders, f"virtual tables crash in-place resets on SQLite 3.40.1 (officesim.connection): {offenders}"
