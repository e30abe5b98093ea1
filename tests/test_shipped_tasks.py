"""Shipped tasks pass validation and their grader self-tests, exactly as `officesim tasks validate` runs them.

The default run validates a sample: every family's first task on acme and its first on another
world (so every family and every world the library spans is self-tested, whatever the library's
size).  The whole library, folder by folder, is the slow sweep (``pytest -m slow``, which
``.ci/run`` runs too).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from officesim.cli import main
from officesim.task import find_tasks

ROOT = Path(__file__).resolve().parent.parent
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _family_and_world(folder: Path) -> tuple[str, str]:
    data = yaml.load((folder / "task.yaml").read_bytes(), Loader=_LOADER)
    return str(data["family"]), str(data["world"]["spec"])


def sample(folders: list[Path]) -> list[Path]:
    """Per family, its first folder (by name) on acme and its first on any other world; then the
    first folder of each world no family's pick is on."""
    chosen: dict[tuple[str, bool], Path] = {}
    first_on: dict[str, Path] = {}
    for folder in sorted(folders, key=lambda f: f.name):
        family, world = _family_and_world(folder)
        chosen.setdefault((family, world == "acme"), folder)
        first_on.setdefault(world, folder)
    picked = set(chosen.values())
    covered = {_family_and_world(f)[1] for f in picked}
    picked |= {folder for world, folder in first_on.items() if world not in covered}
    return sorted(picked)


def _validate(folders: list[Path], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["tasks", "validate", *map(str, folders)])
    out = capsys.readouterr().out
    assert code == 0, out[-4000:]
    last = [line for line in out.splitlines() if line.strip()][-1]
    assert last.startswith("all ") and "valid" in last, last
    assert int(last.split()[1]) == len(folders), last
    return out


def test_a_sample_of_every_family_and_world_validates_and_passes_its_selftests(
        capsys: pytest.CaptureFixture[str]) -> None:
    folders = find_tasks([str(ROOT / "tasks")])
    chosen = sample(folders)
    families = {_family_and_world(f)[0] for f in folders}
    worlds = {_family_and_world(f)[1] for f in folders}
    assert {_family_and_world(f)[0] for f in chosen} == families
    assert {_family_and_world(f)[1] for f in chosen} == worlds and len(chosen) < len(folders)
    out = _validate(chosen, capsys)
    for family in families:  # the family table lists each family it validated
        assert family in out, family


@pytest.mark.slow
def test_every_shipped_task_validates_and_passes_its_selftests(capsys: pytest.CaptureFixture[str]) -> None:
    folders = find_tasks([str(ROOT / "tasks")])
    out = _validate(folders, capsys)
    assert "travel_expense_report" in out
    assert len(folders) >= 300
