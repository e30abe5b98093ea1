"""A task's start-state identity: cheap (no whole-database hash per task) yet sensitive to
everything the start state depends on (generated world, acting user, setup)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from officesim import load_task
from officesim.world import World

FIXTURE = Path(__file__).parent / "fixtures" / "tasks" / "budget-summary-to-cfo"


def copy(tmp_path: Path, name: str, edit: tuple[str, str] | None = None) -> Path:
    folder = tmp_path / name
    shutil.copytree(FIXTURE, folder)
    task_file = folder / "task.yaml"
    text = task_file.read_text().replace("id: budget-summary-to-cfo", f"id: {name}")
    if edit is not None:
        assert edit[0] in text
        text = text.replace(*edit)
    task_file.write_text(text)
    return folder


def test_the_same_task_has_the_same_start_state_identity(tmp_path: Path) -> None:
    first, second = load_task(FIXTURE), load_task(copy(tmp_path, "budget-copy"))
    assert first.start_state_hash() == second.start_state_hash()
    first.release()
    assert first.start_state_hash() == second.start_state_hash()  # kept across a release


@pytest.mark.parametrize("edit", [
    ("Travel 12,400", "Travel 12,500"),                # what setup wrote
    ('clock: "2026-10-05T08:00:00Z"', 'clock: "2026-10-05T09:00:00Z"'),  # the clock (and so sent_at)
    ("seed: 7", "seed: 8"),                            # the generated world
    ("reviewed_by: test-fixture", "reviewed_by: test-fixture\nacting_user: role:controller"),
])
def test_any_change_to_the_start_state_changes_its_identity(tmp_path: Path, edit: tuple[str, str]) -> None:
    base, changed = load_task(FIXTURE), load_task(copy(tmp_path, "budget-edited", edit))
    assert base.start_state_hash() != changed.start_state_hash()


def test_copies_share_an_identity_built_without_a_whole_database_hash_each(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Building the identity hashes the generated world at most once per process, never per task."""
    calls = []
    original = World.state_hash
    monkeypatch.setattr(World, "state_hash", lambda self: calls.append(1) or original(self))
    tasks = [load_task(copy(tmp_path, f"budget-{i}")) for i in range(3)]
    assert len({t.start_state_hash() for t in tasks}) == 1
    assert len(calls) <= 1  # the generated world's content hash, once per process (memoised)
