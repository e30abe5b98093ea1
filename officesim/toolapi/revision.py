"""Another version of the code, materialised from git so it can run beside this one.

``git archive`` writes the files of a revision into a cache folder (no checkout, no change to the
work tree or the index); a subprocess started with that folder first on ``sys.path`` then
imports *that* revision's officesim.  The task library (17 MB) is left out unless asked for:
tasks, runs and deliveries are inputs, and are read from where the user points.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

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


def cache_dir() -> Path:
    """Where materialised revisions are kept: ``$OFFICESIM_CACHE_DIR`` or ``~/.cache/officesim``."""
    return Path(os.environ.get("OFFICESIM_CACHE_DIR") or Path.home() / ".cache" / "officesim") / "revisions"


@contextlib.contextmanager
def materialise(commit: str, repo: Path | None = None, *, paths: Sequence[str] = CODE_PATHS) -> Iterator[Path]:
    """A folder holding ``paths`` of ``commit`` (those the revision has).

    A commit's files never change, so each is extracted once into the cache and reused: the
    second run of a revision also finds its compiled bytecode there, which on a busy machine
    saves more time than the extraction itself.
    """
    target = cache_dir() / f"{commit}-{'-'.join(sorted(p.replace('.', '_') for p in paths))}"
    if not (target / ".complete").is_file():
        listed = _git(["ls-tree", "--name-only", commit], repo)
        if listed.returncode != 0:
            raise RevisionError(f"cannot list {commit}: {listed.stderr.strip()}")
        present = [p for p in paths if p in set(listed.stdout.split())]
        if "officesim" not in present:
            raise RevisionError(f"revision {commit[:12]} has no officesim package at its root")
        archive = _git(["archive", "--format=tar", commit, *present], repo, binary=True)
        if archive.returncode != 0:
            message = archive.stderr.decode(errors="replace").strip()
            raise RevisionError(f"git archive {commit[:12]} failed: {message}")
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{commit[:12]}-", dir=target.parent))
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(staging, filter="data")
        (staging / ".complete").write_text(commit + "\n")
        if target.exists():  # left half-made by a process that was killed
            shutil.rmtree(target, ignore_errors=True)
        try:
            staging.rename(target)
        except OSError:  # another process finished the same revision first
            shutil.rmtree(staging, ignore_errors=True)
    yield target

WORKER = Path(__file__).with_name("worker.py")


def code_env(root: Path) -> dict[str, str]:
    """The environment of a subprocess that must import officesim from ``root`` (first on sys.path)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    return env


def checkout_root() -> Path:
    """The folder holding the officesim package of this process (its code, worlds and rubrics)."""
    return Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def code_at(rev: str | None, repo: Path | None = None) -> Iterator[Path]:
    """The root of the code to run: this checkout for None, else the materialised revision."""
    if rev is None:
        yield checkout_root()
        return
    with materialise(require_revision(rev, repo), repo) as root:
        yield root


def run_worker(root: Path, request: dict[str, Any]) -> list[dict[str, Any]]:
    """Run ``worker.py`` under the code in ``root`` (first on ``sys.path``); its output lines.

    The script is copied into a folder of its own, so nothing of this checkout sits on the
    subprocess's path ahead of ``root``.
    """
    with tempfile.TemporaryDirectory(prefix="officesim-run-") as folder:
        script = Path(folder) / "officesim_worker.py"
        shutil.copyfile(WORKER, script)
        done = subprocess.run([sys.executable, str(script)], input=json.dumps(request), capture_output=True,
                              text=True, env=code_env(root))
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RevisionError(f"the code in {root} failed to run the calls:\n{tail}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
