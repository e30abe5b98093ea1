"""The world object: determinism, snapshots, hashes, diffs, files, clock and identity."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from officesim import World
from officesim.cli import main
from officesim.errors import NotFound, OfficesimError, SpecError
from officesim.world_spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "worlds" / "tiny.yaml"


def _hash_in_subprocess(hash_seed: str) -> str:
    code = f"from officesim import World; print(World.generate({str(TINY)!r}).state_hash())"
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return out.stdout.strip()


def test_same_spec_and_seed_give_the_same_hash_in_two_processes(tiny: World) -> None:
    first, second = _hash_in_subprocess("1"), _hash_in_subprocess("12345")
    assert first == second == tiny.state_hash()


def test_same_seed_gives_identical_snapshot_bytes() -> None:
    assert World.generate(TINY).snapshot() == World.generate(TINY).snapshot()


def test_another_seed_gives_another_world(tiny: World) -> None:
    other = World.generate(TINY, seed=8)
    assert other.state_hash() != tiny.state_hash()
    assert other.meta("seed") == "8"


def test_restore_round_trip_is_exact_and_independent(tiny: World) -> None:
    data = tiny.snapshot()
    copy = World.restore(data)
    assert copy.state_hash() == tiny.state_hash()
    copy.db.execute("UPDATE directory_person SET title = 'Chief Fun Officer' WHERE id = 'p_1'")
    assert copy.state_hash() != tiny.state_hash()
    assert World.restore(data).state_hash() == tiny.state_hash()


def test_state_hash_ignores_physical_row_order(tiny: World) -> None:
    rows = tiny.rows("directory_person")
    shuffled = World.restore(tiny.snapshot())
    shuffled.db.execute("DELETE FROM directory_person")
    columns = list(rows[0])
    shuffled.db.executemany(
        f"INSERT INTO directory_person ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [tuple(r[c] for c in columns) for r in reversed(rows)],
    )
    assert shuffled.state_hash() == tiny.state_hash()


def test_diff_reports_inserts_updates_and_deletes_with_changed_fields(tiny: World) -> None:
    start = World.restore(tiny.snapshot())
    tiny.db.execute("UPDATE directory_person SET title = 'CFO' WHERE id = 'p_2'")
    tiny.db.execute("DELETE FROM directory_person WHERE id = 'p_20'")
    tiny.db.execute("INSERT INTO directory_department (id, name, head_id) VALUES ('dept_99', 'Moonshots', NULL)")
    diff = tiny.diff(start)
    people = diff.table("directory_person")
    assert set(people.updated) == {"p_2"}
    assert people.updated["p_2"]["title"][1] == "CFO"
    assert set(people.updated["p_2"]) == {"title", "_row"}
    assert set(people.deleted) == {"p_20"}
    assert diff.table("directory_department").inserted["dept_99"]["name"] == "Moonshots"
    assert diff.changed_tables() == ["directory_department", "directory_person"]
    fast = tiny.diff(start, use_change_log=True)
    assert fast.to_dict() == diff.to_dict()


def test_diff_of_identical_worlds_is_empty(tiny: World) -> None:
    assert tiny.diff(World.restore(tiny.snapshot())).is_empty()


def test_save_writes_a_real_sqlite_file_that_loads_back(tiny: World, tmp_path: Path) -> None:
    path = tmp_path / "tiny.db"
    tiny.save(path)
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"mail_message", "drive_file", "chat_message", "crm_deal", "directory_person"} <= tables
    assert World.load(path).state_hash() == tiny.state_hash()


def test_clock_advances_and_is_in_the_snapshot(tiny: World) -> None:
    before = tiny.now()
    tiny.tick(90)
    assert tiny.now() - before == timedelta(seconds=90)
    assert World.restore(tiny.snapshot()).now() == tiny.now()


def test_acting_as_switches_identity_and_restores_it(tiny: World) -> None:
    me = tiny.user_id
    cfo = tiny.db.execute("SELECT id FROM directory_person WHERE role = 'cfo'").fetchone()[0]
    with tiny.acting_as(cfo):
        assert tiny.user_id == cfo
    assert tiny.user_id == me
    with pytest.raises(NotFound, match="directory_search_people"):
        tiny.set_user("nobody@nowhere.test")


def test_acting_user_comes_from_the_spec(tiny: World) -> None:
    assert tiny.user["role"] == "ops_manager"


def test_ids_continue_after_generated_rows(tiny: World) -> None:
    count = tiny.counts()["directory_person"]
    assert tiny.new_id("p") == f"p_{count + 1}"


def test_bad_specs_name_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(TINY.read_text().replace("tinyco.test", "tinyco.com"))
    with pytest.raises(SpecError, match=r"domain: .*\.test"):
        load_spec(bad)
    bad.write_text(TINY.read_text().replace("people: 20", "people: many"))
    with pytest.raises(SpecError, match=r"size\.people"):
        load_spec(bad)
    with pytest.raises(SpecError, match="does not exist"):
        load_spec(tmp_path / "missing.yaml")


def test_shipped_specs_have_the_promised_sizes() -> None:
    acme, large = load_spec(ROOT / "worlds" / "acme.yaml"), load_spec(ROOT / "worlds" / "large.yaml")
    assert 60 <= acme.size.people <= 150
    assert large.size.people >= 10 * acme.size.people
    assert acme.domain.endswith(".test")


def test_reset_in_place_returns_exactly_to_the_snapshot(tiny: World, acme_snapshot: bytes) -> None:
    data, expected = tiny.snapshot(), tiny.state_hash()
    channel = tiny.db.execute(
        "SELECT c.name FROM chat_channel c JOIN chat_member m ON m.channel_id = c.id "
        "WHERE m.person_id = ? AND c.kind = 'public'", (tiny.user_id,)).fetchone()[0]
    for round_number in range(50):
        tiny.call("chat_post_message", {"channel": channel, "text": f"round {round_number}"})
        tiny.call("mail_send_message", {"to": ["nobody"], "subject": "x", "body": "y"})  # an error result
        tiny.call("directory_search_people", {"limit": 3})  # a half-consumed page of a larger result
        tiny.reset(data)
        assert tiny.state_hash() == expected
    tiny.reset(acme_snapshot)
    assert tiny.counts()["directory_person"] == 120
    tiny.reset(data)
    assert tiny.state_hash() == expected and tiny.now() == World.restore(data).now()


def test_loading_a_file_that_is_not_a_database_is_one_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    with pytest.raises(OfficesimError, match="is not an officesim world"):
        World.load(junk)


def test_saving_where_nothing_can_be_written_is_one_clear_error(tiny: World, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(OfficesimError, match="cannot write the world"):
        tiny.save(tmp_path / "no" / "such" / "dir.db")
    assert main(["tools", "export", "-o", str(tmp_path / "no" / "tools.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No such file or directory" in err and "Traceback" not in err


def test_reset_to_another_lineage_forgets_the_cached_table_list(tiny: World) -> None:
    clean = tiny.snapshot()
    tiny.db.execute("CREATE TABLE crm_extra (id TEXT PRIMARY KEY)")
    tiny.reset(tiny.snapshot())
    assert "crm_extra" in tiny.tables()
    tiny.reset(clean)
    assert "crm_extra" not in tiny.tables()
