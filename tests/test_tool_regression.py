"""The "done when" scenario of tool regression testing, end to end with real git and subprocesses.

A copy of the project is committed to a fresh git repository; a second commit renames one
parameter (``crm_update_deal.close_date`` -> ``expected_close``), removes one enum value
(``drive_update_doc.mode`` loses ``'append'``) and rewords one description
(``mail_list_folders``).  Then, as a tool owner would from the shell:

* ``tools diff HEAD~1 HEAD`` reports the rename and the removal as breaking, the rewording as docs;
* ``replay tasks --against HEAD~1`` lists exactly the tasks whose reference trajectories pass
  ``close_date`` to ``crm_update_deal``, and their grades drop;
* ``regress`` of the reference agent (a scripted agent) shows exactly those tasks' pass rate fall;
* ``regress --drift`` of the reference agent lists exactly the tasks whose reference trajectory
  fails under drift, while a drift-aware replay of the same solutions still passes (graders work
  on the underlying state).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.task import SUBMIT

ROOT = Path(__file__).resolve().parent.parent
DRIFT_SEED = 7


def _solution_steps(task_dir: Path) -> list[dict]:
    return (yaml.safe_load((task_dir / "solution.yaml").read_text()) or {}).get("steps", [])


def _uses_renamed(task_dir: Path) -> bool:
    return any(s["name"] == "crm_update_deal" and s.get("arguments", {}).get("close_date") is not None
               for s in _solution_steps(task_dir))


def _pick_tasks() -> list[Path]:
    """Every task passing ``close_date``, tasks calling the same tool without it, and a few others."""
    tasks = sorted(p.parent for p in (ROOT / "tasks").glob("*/task.yaml"))
    users = [t for t in tasks if _uses_renamed(t)]
    same_tool = [t for t in tasks if t not in users
                 and any(s["name"] == "crm_update_deal" for s in _solution_steps(t))][::8][:4]
    others = [t for t in tasks if t not in users and t not in same_tool][::60][:5]
    return users + same_tool + others


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=test", "-c", "user.email=test@example.com", *args], cwd=repo,
                          capture_output=True, text=True, check=True)
    return done.stdout


def _officesim(repo: Path, *args: str) -> subprocess.CompletedProcess:
    """``python3 -m officesim ...`` in ``repo``: its own officesim package is first on sys.path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["OFFICESIM_CACHE_DIR"] = str(repo.parent / "cache")  # materialised revisions, kept per commit
    return subprocess.run([sys.executable, "-m", "officesim", *args], cwd=repo, capture_output=True, text=True,
                          env=env)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{path} should contain {old!r} once; update the scenario"
    path.write_text(text.replace(old, new))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository: the project as committed, then one commit with the three changes."""
    repo = tmp_path_factory.mktemp("project")
    shutil.copytree(ROOT / "officesim", repo / "officesim", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("worlds", "rubrics"):
        shutil.copytree(ROOT / folder, repo / folder)
    for name in ("tools.json", "tools.lock"):
        shutil.copyfile(ROOT / name, repo / name)
    for task in _pick_tasks():
        shutil.copytree(task, repo / "tasks" / task.name)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "original surface")
    deals = repo / "officesim" / "apps" / "crm" / "deals.py"
    _edit(deals, "    currency: str | None = None,\n    close_date: str | None = None,",
          "    currency: str | None = None,\n    expected_close: str | None = None,")
    _edit(deals, "        close_date: The new expected", "        expected_close: The new expected")
    _edit(deals, '    if close_date is not None:\n        wanted["close_date"] = lookup.iso_date(close_date, ',
          '    if expected_close is not None:\n        wanted["close_date"] = lookup.iso_date(expected_close, ')
    _edit(deals, 'iso_date(expected_close, "close_date")', 'iso_date(expected_close, "expected_close")')
    _edit(deals, "currency, close_date, next_step, owner", "currency, expected_close, next_step, owner")
    drive = repo / "officesim" / "apps" / "drive" / "tools.py"
    _edit(drive, 'mode: Literal["replace", "append"] = "replace"', 'mode: Literal["replace"] = "replace"')
    mail = repo / "officesim" / "apps" / "mail" / "tools.py"
    _edit(mail, '"""List your mail folders and labels with how many messages',
          '"""Show every mail folder and label of yours, and how many messages')
    _git(repo, "commit", "-qam", "rename close_date, drop append, reword mail_list_folders")
    return repo


@pytest.mark.slow
def test_tools_diff_classifies_the_three_changes(project: Path) -> None:
    done = _officesim(project, "tools", "diff", "HEAD~1", "HEAD", "--json")
    assert done.returncode == 1, done.stderr  # breaking changes gate CI
    report = json.loads(done.stdout)
    found = {(c["kind"], c["where"], c["severity"]) for c in report["changes"]}
    assert found == {
        ("param_renamed", "crm_update_deal.expected_close", "breaking"),
        ("enum_removed", "drive_update_doc.mode", "breaking"),
        ("description_changed", "mail_list_folders", "docs"),
    }
    rename = next(c for c in report["changes"] if c["kind"] == "param_renamed")
    assert "'close_date' -> 'expected_close'" in rename["detail"] and "description 100% similar" in rename["detail"]
    assert report["summary"] == {"breaking": 2, "compatible": 0, "docs": 1}
    table = _officesim(project, "tools", "diff", "HEAD~1", "HEAD")
    assert "2 breaking, 0 compatible, 1 docs" in table.stdout.splitlines()[-1]
    # the lock says which tools changed and how to accept them
    check = _officesim(project, "tools", "lock", "--check")
    assert check.returncode == 1
    assert "crm_update_deal, drive_update_doc, mail_list_folders changed" in check.stderr
    version = json.loads((ROOT / "tools.lock").read_text())["version"]
    major = int(version.split(".")[0])
    assert f"officesim tools lock' (version {version} -> {major + 1}.0.0)" in check.stderr  # breaking: next major


@pytest.mark.slow
def test_replay_lists_exactly_the_tasks_using_the_renamed_parameter(project: Path) -> None:
    done = _officesim(project, "replay", "tasks", "--against", "HEAD~1", "--json", "--workers", "2")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    expected = sorted(t.name for t in (project / "tasks").iterdir() if _uses_renamed(t))
    assert expected and report["tasks_changed"] == expected
    assert report["trajectories"] == len(list((project / "tasks").iterdir()))
    assert "crm_update_deal" in report["by_tool"]
    for trajectory in report["changed"]:
        # the renamed parameter is where each trajectory first differs; a later call may differ as a
        # consequence (a colleague's task mails the update it could not make)
        assert trajectory["calls"][0]["tool"] == "crm_update_deal", trajectory["calls"][0]
        calls = [c for c in trajectory["calls"] if c["tool"] == "crm_update_deal"]
        assert calls and all("ok->error" in c["changes"] for c in calls)
        assert "'close_date' is not a parameter" in calls[0]["error"]
        assert trajectory["base_grade"]["passed"] is True and trajectory["head_grade"]["passed"] is False
    assert report["grade_changes"] == len(expected)


@pytest.mark.slow
def test_regress_shows_the_pass_rate_drop_of_a_scripted_agent(project: Path) -> None:
    done = _officesim(project, "regress", "--tasks", "tasks", "--agent", "oracle", "--base", "HEAD~1",
                      "--json", "--workers", "2")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    dropped = sorted(t["task"] for t in report["tasks"] if t["pass_rate"]["change"] < 0)
    assert dropped == sorted(t.name for t in (project / "tasks").iterdir() if _uses_renamed(t))
    assert report["overall"]["pass_rate"]["base"] == 1.0 and report["overall"]["pass_rate"]["interval"][1] < 0


def _fails_under_drift(task_dir: Path) -> bool:
    task = load_task(task_dir)
    return not play(OfficeEnv(task, drift=DRIFT_SEED), OracleAgent(task)).passed


def _drift_aware_solution_passes(task_dir: Path) -> bool:
    """The solution's calls, translated to the drifted names: graders still read the real state."""
    task = load_task(task_dir)
    env = OfficeEnv(task, drift=DRIFT_SEED)
    env.reset(seed=0)
    drift = env.drift
    for step in task.solution.steps:
        names = drift.renamed.get(step.name, {})
        args = {names.get(k, k): v for k, v in step.arguments.items()}
        env.step({"name": drift.moved.get(step.name, step.name), "arguments": args})
    _, _, _, _, info = env.step({"name": SUBMIT, "arguments": {"answer": task.solution.answer}})
    return info["grade"].passed


@pytest.mark.slow
def test_drift_run_shows_which_reference_trajectories_fail(project: Path) -> None:
    tasks = project / "tasks"
    done = _officesim(project, "regress", "--tasks", "tasks", "--agent", "oracle", "--base", "HEAD~1",
                      "--head", "HEAD~1", "--drift", str(DRIFT_SEED), "--json", "--workers", "2")
    report = json.loads(done.stdout)
    failing = sorted(t["task"] for t in report["tasks"] if t["pass_rate"]["change"] < 0)
    expected = sorted(t.name for t in tasks.iterdir() if _fails_under_drift(ROOT / "tasks" / t.name))
    assert failing == expected and 0 < len(expected) < len(list(tasks.iterdir()))
    assert all(t["pass_rate"]["base"] == 1.0 for t in report["tasks"])  # without drift every oracle passes
    assert done.returncode == 1  # the drop is beyond the interval
    notes = {t["task"]: " ".join(t["notes"]) for t in report["tasks"]}
    assert all("head drift:" in notes[t] for t in failing)
    assert all(_drift_aware_solution_passes(ROOT / "tasks" / t) for t in failing)
