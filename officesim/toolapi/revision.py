"""Another version of the code, materialised from git so it can run beside this one.

``git archive`` writes the files of a revision into a temporary folder (no checkout, no change
to the work tree or the index); a subprocess started with that folder first on ``sys.path``
then imports *that* revision's officesim.  The task library (17 MB) is left out unless asked for:
tasks, runs and deliveries are inputs, and are read from where the user points.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from officesim.errors import OfficesimError

# What a revision needs to export its tools, replay calls and play episodes.
CODE_PATHS = ("officesim", "worlds", "rubrics", "tools.lock")


class RevisionError(OfficesimError):
    """A git revision cannot be read (not a repository, unknown revision, git missing)."""


def _git(args: Sequence[str], repo: Path | None, *, binary: bool = False) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=repo or Path.cwd(), capture_output=True, text=not binary)
    except FileNotFoundError:
        raise RevisionError("git is not installed; install it to compare git revisions") from None


def resolve_revision(ref: str, repo: Path | None = None) -> str | None:
    """The commit ``ref`` names in ``repo`` (default: the current folder's repository), or None."""
    if ref.startswith("-"):
        return None
    done = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], repo)
    return done.stdout.strip() if done.returncode == 0 else None


def require_revision(ref: str, repo: Path | None = None) -> str:
    """The commit ``ref`` names, or a ``RevisionError`` saying where it was looked for."""
    commit = resolve_revision(ref, repo)
    if commit is None:
        raise RevisionError(f"{ref!r} is not a git revision of {(repo or Path.cwd()).resolve()} "
                            "(try a branch, a tag, a commit or HEAD~1)")
    return commit


@contextlib.contextmanager
def materialise(commit: str, repo: Path | None = None, *, paths: Sequence[str] = CODE_PATHS) -> Iterator[Path]:
    """A temporary folder holding ``paths`` of ``commit`` (those the revision has); removed afterwards."""
    listed = _git(["ls-tree", "--name-only", commit], repo)
    if listed.returncode != 0:
        raise RevisionError(f"cannot list {commit}: {listed.stderr.strip()}")
    present = [p for p in paths if p in set(listed.stdout.split())]
    if "officesim" not in present:
        raise RevisionError(f"revision {commit[:12]} has no officesim package at its root")
    archive = _git(["archive", "--format=tar", commit, *present], repo, binary=True)
    if archive.returncode != 0:
        raise RevisionError(f"git archive {commit[:12]} failed: {archive.stderr.decode(errors='replace').strip()}")
    with tempfile.TemporaryDirectory(prefix=f"officesim-{commit[:12]}-") as folder:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
        yield Path(folder)
