"""Run recorded tool calls, or play episodes, under whichever officesim is first on ``sys.path``.

This file is copied into a temporary folder and run as a script, with a materialised revision
(or this checkout) first on ``PYTHONPATH``: it is how ``replay --against REV`` and ``regress``
execute another version of the code.  So it imports only what every revision has
(``load_task``, ``SolutionSpec``, ``OfficeEnv``, ``officesim.replay``, ``run_episode``,
``make_agent``, ``attempt_seed``) and never this package.

Tasks are loaded from a copy without ``solution.yaml``: a reference solution written for one
surface does not validate against a surface that renamed its parameters, yet the task (world,
setup, grader) is exactly what a regression run needs.  The solution is attached unvalidated,
so the oracle sends the old calls and the new surface judges them, as it would any agent's.

Input (stdin, JSON): ``{"mode": "replay"|"play", "items": [...], ...}``; output: one JSON line
per item on stdout, in input order.
"""

from __future__ import annotations

import json
import multiprocessing
import shutil
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import yaml

from officesim.agents.registry import make_agent
from officesim.env import OfficeEnv
from officesim.episode import run_episode
from officesim.errors import OfficesimError
from officesim.replay import replay
from officesim.task import SolutionSpec, Task, load_task

# This script's process (and its forked children) keep loaded tasks and one scratch folder.
_TASKS: dict[str, Task | str] = {}
_SCRATCH: list[str] = []


def _copy_without_solution(task_dir: Path) -> Path:
    """The task folder's task and grader files in a scratch folder of the same name."""
    target = Path(tempfile.mkdtemp(dir=_SCRATCH[0])) / task_dir.name
    target.mkdir()
    data = yaml.safe_load((task_dir / "task.yaml").read_text(encoding="utf-8"))
    spec = (data.get("world") or {}).get("spec") if isinstance(data, dict) else None
    if isinstance(spec, str) and (task_dir / spec).is_file():  # a spec relative to the task folder
        data["world"]["spec"] = str((task_dir / spec).resolve())
        (target / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    else:
        shutil.copyfile(task_dir / "task.yaml", target / "task.yaml")
    shutil.copyfile(task_dir / "grader.yaml", target / "grader.yaml")
    return target


def task_for(task_dir: str) -> Task | str:
    """The loaded task (its solution attached unvalidated), or why it does not load with this code."""
    if task_dir not in _TASKS:
        source = Path(task_dir)
        try:
            task = load_task(_copy_without_solution(source))
            solution_file = source / "solution.yaml"
            if solution_file.is_file():
                task.solution = SolutionSpec.model_validate(yaml.safe_load(solution_file.read_text()) or {})
            task.dir = source
            _TASKS[task_dir] = task
        except (OfficesimError, OSError, ValueError) as exc:
            _TASKS[task_dir] = f"the task does not load with this code: {exc}"
    return _TASKS[task_dir]


def _env(task: Task, drift: Any) -> OfficeEnv:
    if drift is None:
        return OfficeEnv(task)
    try:
        return OfficeEnv(task, drift=drift)  # only code that knows drift is asked for it
    except TypeError:
        raise OfficesimError("this version of officesim has no API drift; replay or play drift runs with "
                             "code that has it") from None


def replay_item(item: dict[str, Any]) -> dict[str, Any]:
    """Replay one trajectory's calls; every call's result, and the grade."""
    task = task_for(item["task_dir"])
    if isinstance(task, str):
        return {"key": item["key"], "error": task}
    try:
        env = _env(task, item.get("drift"))
    except OfficesimError as exc:
        return {"key": item["key"], "error": str(exc)}
    grade, after_end = replay(env, item["calls"])
    results = [json.loads(m["content"]) for m in env.transcript if m.get("role") == "tool"]
    return {"key": item["key"], "results": results, "score": grade.score, "passed": grade.passed,
            "after_end": after_end}


def play_item(job: dict[str, Any]) -> dict[str, Any]:
    """Play one attempt with the agent; the result as a small record."""
    task = task_for(job["task_dir"])
    base = {"key": job["key"], "task": Path(job["task_dir"]).name, "attempt": job["attempt"], "seed": job["seed"]}
    if isinstance(task, str):
        return {**base, "status": "crash", "score": 0.0, "passed": False, "error": task}
    try:
        agent = make_agent(job["agent"]["name"], task=task, **job["agent"].get("options", {}))
        env = _env(task, job.get("drift"))
        result = run_episode(env, agent, job["seed"])
    except OfficesimError as exc:
        return {**base, "status": "crash", "score": 0.0, "passed": False, "error": str(exc)}
    errors = [m["content"] for m in result.transcript if m.get("role") == "tool" and '"error"' in m["content"]]
    return {**base, "status": result.status, "score": result.score, "passed": result.passed,
            "steps": result.steps, "error": result.error, "tool_errors": len(errors),
            "first_tool_error": errors[0] if errors else None,
            "drift": getattr(getattr(env, "drift", None), "changes", None)}


def main() -> int:
    request = json.load(sys.stdin)
    items = request["items"]
    handler = replay_item if request["mode"] == "replay" else play_item
    _SCRATCH.append(tempfile.mkdtemp(prefix="officesim-worker-"))
    try:
        return run_items(handler, items, int(request.get("workers", 1)))
    finally:
        shutil.rmtree(_SCRATCH[0], ignore_errors=True)


def run_items(handler: Callable[[dict[str, Any]], dict[str, Any]], items: list[dict[str, Any]], workers: int) -> int:
    """Write ``handler``'s output for every item, in input order; the exit status.

    Several workers are forked children (they inherit this revision's imports and sys.path) of a
    ``ProcessPoolExecutor``, not a ``multiprocessing.Pool``: when a child dies half-way (killed
    for memory, a crash in native code) a ``Pool`` quietly replaces it and waits forever for the
    item it held, so a replay hangs with every process idle; the executor breaks instead, and the
    caller gets an error that says so.
    """
    workers = max(1, min(workers, len(items)))
    if workers == 1:
        _write(map(handler, items))
        return 0
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            _write(pool.map(handler, items, chunksize=max(1, len(items) // (workers * 8))))
    except BrokenProcessPool:
        sys.stderr.write(f"a worker process died while running {len(items)} items with {workers} workers (killed, "
                         "perhaps for memory, or crashed in native code); the items it held have no result. "
                         "Rerun, or with one worker (--workers 1) to see which item it was\n")
        return 1
    return 0


def _write(outputs: Any) -> None:
    for output in outputs:
        sys.stdout.write(json.dumps(output, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
