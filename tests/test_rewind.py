"""``World.rewind``: a reset that puts back only the rows an episode touched, exactly.

"Exactly" is checked physically, not only by ``state_hash``: every table's rows with their rowids
(the order an unordered query returns), ``_meta`` included and the change log empty, so an episode
after a rewind cannot tell it from one after a deserialize.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

import officesim.world as world_module
from officesim import OfficeEnv, World, load_task
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.task import find_tasks

ROOT = Path(__file__).resolve().parent.parent


def physical(world: World) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows in rowid order, rowids included (the app tables, ``_meta`` and ``_changes``)."""
    return {table: [tuple(r) for r in world.db.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid")]
            for table in [*world.tables(), "_meta", "_changes"]}


def _public_channel(world: World) -> str:
    return str(world.db.execute(
        "SELECT c.name FROM chat_channel c JOIN chat_member m ON m.channel_id = c.id "
        "WHERE m.person_id = ? AND c.kind = 'public'", (world.user_id,)).fetchone()[0])


def _episode(world: World) -> None:
    """Inserts, updates and deletes over several apps, id counters and the clock moved."""
    world.call("chat_post_message", {"channel": _public_channel(world), "text": "Q3 numbers are in."})
    world.call("mail_send_message", {"to": [world.user["email"]], "subject": "note", "body": "to self"})
    deal = world.db.execute("SELECT id FROM crm_deal ORDER BY id LIMIT 1").fetchone()[0]
    world.call("crm_update_deal", {"deal_id": deal, "amount": 12345})
    world.db.execute("DELETE FROM directory_person WHERE id = (SELECT max(id) FROM directory_person)")
    world.tick(600)


def test_a_rewind_puts_every_row_back_with_its_rowid(tiny_snapshot: bytes) -> None:
    origin, world = World.restore(tiny_snapshot), World.restore(tiny_snapshot)
    expected = physical(origin)
    for _ in range(3):
        _episode(world)
        assert physical(world) != expected
        assert world.rewind(tiny_snapshot, origin) is True
        assert physical(world) == expected
        assert world.now() == origin.now() and world.meta("seq:msg") == origin.meta("seq:msg")
    # the next episode writes exactly what it would after a deserialize
    _episode(world)
    fresh = World.restore(tiny_snapshot)
    _episode(fresh)
    assert physical(world) == physical(fresh)


def test_reset_with_an_origin_rewinds_and_says_nothing_else_changed(tiny_snapshot: bytes) -> None:
    origin, world = World.restore(tiny_snapshot), World.restore(tiny_snapshot)
    _episode(world)
    connection = world.db
    world.reset(tiny_snapshot, origin=origin)
    assert world.db is connection and world._rewinds == 1
    assert world.state_hash() == origin.state_hash()


def test_no_rewind_where_it_could_not_be_exact(tiny_snapshot: bytes) -> None:
    origin = World.restore(tiny_snapshot)
    # bytes the world was not built from (an equal copy is not the same snapshot)
    world, copy = World.restore(tiny_snapshot), bytes(bytearray(tiny_snapshot))
    assert copy == tiny_snapshot and copy is not tiny_snapshot
    assert world.rewind(copy, origin) is False
    # an origin from other bytes, or one that was changed
    other = World.restore(copy)
    assert world.rewind(tiny_snapshot, other) is False
    touched = World.restore(tiny_snapshot)
    touched.call("chat_post_message", {"channel": _public_channel(touched), "text": "written in the origin"})
    assert world.rewind(tiny_snapshot, touched) is False
    # a change log cleared since: it no longer lists every change
    _episode(world)
    world.clear_change_log()
    assert world.rewind(tiny_snapshot, origin) is False
    world.reset(tiny_snapshot, origin=origin)  # falls back to a deserialize, exact all the same
    assert physical(world) == physical(origin) and world._rewinds == 0
    # a schema change in the episode
    world.db.execute("CREATE TABLE crm_extra (id TEXT PRIMARY KEY)")
    assert world.rewind(tiny_snapshot, origin) is False
    world.reset(tiny_snapshot, origin=origin)
    assert "crm_extra" not in world.tables() and physical(world) == physical(origin)
    # a connection that touched a virtual table is never reused in place
    with pytest.raises(Exception, match="prohibited"):
        world.db.execute("SELECT * FROM json_each('[1]')").fetchall()
    assert world.rewind(tiny_snapshot, origin) is False


def test_the_bytes_are_deserialized_again_every_so_often(tiny_snapshot: bytes,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(world_module, "REWINDS_PER_DESERIALIZE", 2)
    origin, world = World.restore(tiny_snapshot), World.restore(tiny_snapshot)
    counts = []
    for _ in range(4):
        _episode(world)
        world.reset(tiny_snapshot, origin=origin)
        counts.append(world._rewinds)
        assert physical(world) == physical(origin)
    assert counts == [1, 2, 0, 1]


def _one_task_per_family() -> list[Path]:
    by_family: dict[str, list[Path]] = defaultdict(list)
    for path in find_tasks([str(ROOT / "tasks")]):
        by_family[path.name.rsplit("-", 1)[0]].append(path)
    return [paths[0] for _, paths in sorted(by_family.items())]


def _check_episodes_rewind_exactly(paths: list[Path]) -> None:
    for path in paths:
        task = load_task(path)
        if task.solution is None:
            continue
        env, oracle = OfficeEnv(task), OracleAgent(task)
        first = play(env, oracle)
        second = play(env, oracle)  # started by a rewind
        assert env.world is not None and env.world._rewinds == 1, task.id
        assert second.comparable() == first.comparable(), task.id
        env.reset()
        assert physical(env.world) == physical(task.start_world()), task.id
        task.release()


def test_episodes_of_shipped_tasks_rewind_exactly() -> None:
    _check_episodes_rewind_exactly(_one_task_per_family()[::3])


@pytest.mark.slow
def test_every_shipped_task_rewinds_exactly() -> None:
    _check_episodes_rewind_exactly(list(find_tasks([str(ROOT / "tasks")])))
