"""``tools.lock``: the reviewed tool surface, with a version people can cite.

The lock holds the whole canonical surface, its hash and a semantic version.  Accepting a change
(``officesim tools lock``) diffs the code's surface against the lock and bumps the version by
the worst change: breaking -> major, compatible -> minor, docs only -> patch.  A test compares
the lock with the code, so a change nobody reviewed fails CI with the list of changed tools and
the command that accepts them.

Every export, run record and delivery carries the *stamp* of the surface it used: the locked
version and the content hash.  Code whose surface differs from its lock says so in the version
(``1.2.0+unreviewed.3f9a0c1d2b4e``), so an unreviewed surface can never pass for a released one.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import officesim
from officesim.toolapi.diff import SurfaceDiff, diff_surfaces, render
from officesim.toolapi.surface import Surface, SurfaceError, read_tools_file, registry_surface, surface_hash

LOCK_FILE = Path(officesim.__file__).resolve().parents[1] / "tools.lock"
FIRST_VERSION = "1.0.0"


@dataclass(frozen=True)
class Lock:
    """A read ``tools.lock``."""

    version: str
    hash: str
    surface: Surface


def read_lock(path: Path = LOCK_FILE) -> Lock | None:
    """The lock at ``path``, or None when there is none."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    version = data.get("version") if isinstance(data, dict) else None
    if not isinstance(version, str):
        raise SurfaceError(f"{path} has no 'version'; write it again with 'officesim tools lock'")
    tools = read_tools_file(path)
    return Lock(version, surface_hash(tools), Surface(tools, str(path), version))


def bump(version: str, result: SurfaceDiff) -> str:
    """The version after ``result``: major for breaking, minor for compatible, patch for docs."""
    try:
        major, minor, patch = (int(part) for part in version.split("+")[0].split("."))
    except ValueError:
        raise SurfaceError(f"lock version {version!r} is not MAJOR.MINOR.PATCH") from None
    counts = result.counts()
    if counts["breaking"]:
        return f"{major + 1}.0.0"
    if counts["compatible"]:
        return f"{major}.{minor + 1}.0"
    if counts["docs"]:
        return f"{major}.{minor}.{patch + 1}"
    return version


def lock_text(surface: Surface, version: str) -> str:
    """The text of a lock file for ``surface`` at ``version`` (stable, reviewable in a diff)."""
    body = {"version": version, "hash": surface.hash, "tools": surface.tools}
    return json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def current_surface() -> Surface:
    """The surface of the code in this process."""
    return Surface(registry_surface(), "registry")


def write_lock(path: Path = LOCK_FILE) -> tuple[str, str, SurfaceDiff | None]:
    """Lock the code's surface: returns (old version, new version, diff from the old lock)."""
    surface = current_surface()
    old = read_lock(path)
    if old is None:
        path.write_text(lock_text(surface, FIRST_VERSION), encoding="utf-8")
        return "", FIRST_VERSION, None
    result = diff_surfaces(old.surface, surface)
    version = bump(old.version, result)
    path.write_text(lock_text(Surface(surface.tools, surface.source, version), version), encoding="utf-8")
    return old.version, version, result


def check_lock(path: Path = LOCK_FILE) -> str | None:
    """None when the lock matches the code; otherwise what changed and how to accept it."""
    surface = current_surface()
    old = read_lock(path)
    if old is None:
        return f"{path} is missing; create it with 'python3 -m officesim tools lock'"
    if old.hash == surface.hash:
        return None
    result = diff_surfaces(old.surface, surface)
    return (f"the tool surface differs from {path} (version {old.version}): "
            f"{', '.join(result.changed_tools()) or 'key order or formatting only'} changed.\n"
            f"{render(result)}\n"
            "If these changes are intended, review them and accept them with "
            f"'python3 -m officesim tools lock' (version {old.version} -> {bump(old.version, result)}); "
            "commit tools.lock with the change.")


@functools.lru_cache(maxsize=1)
def surface_stamp() -> dict[str, Any]:
    """``{"version", "hash", "tools"}`` of this process's surface, as recorded with every result.

    The registry is fixed once the apps are imported, so this is computed once per process.
    """
    surface = current_surface()
    try:
        lock = read_lock()
    except (SurfaceError, json.JSONDecodeError):
        lock = None
    if lock is None:
        version = f"0.0.0+unlocked.{surface.hash[7:19]}"
    elif lock.hash == surface.hash:
        version = lock.version
    else:
        version = f"{lock.version}+unreviewed.{surface.hash[7:19]}"
    return {"version": version, "hash": surface.hash, "tools": len(surface.tools)}
