"""Where world specs, rubrics and tasks are found: one resolver, the same in a checkout and a wheel.

The data ships inside the package (``officesim/worlds``, ``officesim/rubrics``, ``officesim/tasks``;
in a checkout these are links to the top-level folders people edit), so ``pip install officesim``
works from any directory.  Lookups go, in order, through:

1. an explicit path (a file or folder that exists);
2. the folders beside a task library: a task in ``ROOT/tasks/<id>/`` finds ``ROOT/worlds/`` and
   ``ROOT/rubrics/`` first, which is how a delivery carries the specs and rubrics of its tasks;
3. an explicit tasks directory (``--tasks``), else ``$OFFICESIM_TASKS``, else ``./tasks`` when it
   exists, else the packaged library (for worlds and rubrics: ``$OFFICESIM_WORLDS`` /
   ``$OFFICESIM_RUBRICS``, then the packaged ones).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from pathlib import Path

from officesim.errors import SpecError

PACKAGE_DIR = Path(__file__).resolve().parent
PACKAGED_WORLDS = PACKAGE_DIR / "worlds"
PACKAGED_RUBRICS = PACKAGE_DIR / "rubrics"
PACKAGED_TASKS = PACKAGE_DIR / "tasks"
TASKS_ENV, WORLDS_ENV, RUBRICS_ENV = "OFFICESIM_TASKS", "OFFICESIM_WORLDS", "OFFICESIM_RUBRICS"


def tasks_dir(explicit: str | Path | None = None) -> Path:
    """The task library to use: ``explicit``, then ``$OFFICESIM_TASKS``, ``./tasks``, the packaged one."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_dir():
            raise SpecError(f"tasks directory {path} does not exist; pass a folder of task folders "
                            f"(write one with 'officesim tasks generate -o {path}')")
        return path
    env = os.environ.get(TASKS_ENV)
    if env:
        if not Path(env).is_dir():
            raise SpecError(f"${TASKS_ENV} is {env!r}, which is not a folder; unset it or point it at a task library")
        return Path(env)
    local = Path("tasks")
    return local if local.is_dir() else PACKAGED_TASKS


def resolve_task(ref: str | Path, tasks: str | Path | None = None) -> Path:
    """A task folder given by path, or by id in the tasks directory (see ``tasks_dir``)."""
    path = Path(ref)
    if path.exists():
        return path  # a folder given by path (load_task says what it lacks, if anything)
    library = tasks_dir(tasks)
    by_id = library / str(ref)
    if path.name == str(ref) and (by_id / "task.yaml").is_file():
        return by_id
    ids = sorted(p.parent.name for p in library.glob("*/task.yaml"))
    close = difflib.get_close_matches(str(ref), ids, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise SpecError(f"{ref} is neither a task folder nor a task id in {library} ({len(ids)} tasks).{hint} "
                    f"Pass a folder with task.yaml, or --tasks DIR / ${TASKS_ENV} for another library.")


def _search(name: str, near: Path | None, folder: str, env: str, packaged: Path) -> tuple[Path | None, list[Path]]:
    roots: list[Path] = []
    if near is not None and (near / "task.yaml").is_file():  # beside a task's library, never beside any folder
        roots += [parent / folder for parent in list(near.resolve().parents)[:2]]
    if os.environ.get(env):
        roots.append(Path(os.environ[env]))
    roots.append(packaged)
    for root in roots:
        for candidate in (root / name, root / f"{name}.yaml", root / Path(name).name):
            if candidate.is_file():
                return candidate.resolve(), roots
    return None, roots


def _known(roots: Iterable[Path]) -> str:
    return ", ".join(sorted({p.stem for root in roots if root.is_dir() for p in root.glob("*.yaml")})) or "none"


def world_spec_path(ref: str | Path, near: Path | None = None) -> Path:
    """A world spec: a YAML path (relative to ``near``, a task folder, or the cwd) or a name like ``acme``."""
    for candidate in ([near / ref] if near is not None else []) + [Path(ref)]:
        if candidate.is_file():
            return candidate.resolve()
    found, roots = _search(str(ref), near, "worlds", WORLDS_ENV, PACKAGED_WORLDS)
    if found is None:
        raise SpecError(f"world spec {str(ref)!r} is neither a file nor a known name (known: {_known(roots)}); "
                        "pass a spec YAML path or one of those names")
    return found


def rubric_path(name: str, near: Path | None = None) -> Path:
    """The file of the rubric called ``name``: beside the task library, ``$OFFICESIM_RUBRICS``, or packaged."""
    found, roots = _search(name, near, "rubrics", RUBRICS_ENV, PACKAGED_RUBRICS)
    if found is None or found.suffix != ".yaml":
        raise SpecError(f"there is no rubric {name!r} (known: {_known(roots)}); add rubrics/{name}.yaml "
                        "beside the task library or name a known one")
    return found
