"""Ray: ``officesim run --backend ray`` across a cluster, and a pool of environments as Ray actors.

Both ship the task folders to the workers as bytes (``task.yaml``, ``grader.yaml``,
``solution.yaml``, ``tools.json``, plus the world specs and rubrics they name, in a delivery's
layout), so a worker node needs officesim installed but not the driver's files; each worker
writes them once to a private temporary folder and loads every task once.

* ``play_on_ray`` is the runner's Ray backend: one ``Player`` actor per worker plays whole jobs
  (a task's attempts) and the outcomes stream back in completion order, so the driver appends
  them to the same resumable run folder as a local run does.
* ``EnvPool`` gives trainers ``size`` ``OfficeEnv`` episodes running in actors: ``reset`` and
  ``step`` take one item per env and return the results in order (grades as plain dicts).

Needs ``pip install 'officesim[ray]'``.  ``ray.init`` is called when Ray is not initialised
yet: ``address`` joins a running cluster (``ray://HOST:10001`` or ``auto``), none starts a local
instance with one CPU per worker.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from officesim.env import OfficeEnv
from officesim.errors import OfficesimError
from officesim.pipeline.runner import Job, Outcome, Player, _play_job
from officesim.resources import rubric_path
from officesim.task import Task, load_task

try:
    import ray
except ImportError as exc:  # the core never needs Ray; this adapter does
    raise ImportError("officesim.integrations.ray needs Ray: pip install 'officesim[ray]'") from exc

TASK_FILES = ("task.yaml", "grader.yaml", "solution.yaml", "tools.json", "tools.pin")
Bundle = dict[str, bytes]


def bundle(tasks: Sequence[Task]) -> Bundle:
    """The files a worker needs for ``tasks``, by path relative to a library root."""
    files: Bundle = {}
    for task in tasks:
        for name in TASK_FILES:
            path = task.dir / name
            if path.is_file():
                files[f"tasks/{task.id}/{name}"] = path.read_bytes()
        files.setdefault(f"worlds/{Path(task.spec.world.spec).stem}.yaml", task.spec_path.read_bytes())
        for rubric in task.rubrics:
            files.setdefault(f"rubrics/{rubric}.yaml", rubric_path(rubric, task.dir).read_bytes())
    return files


def unpack(files: Mapping[str, bytes]) -> Path:
    """Write a bundle into a new temporary library; returns its root (``root/tasks/<id>``)."""
    root = Path(tempfile.mkdtemp(prefix="officesim-ray-"))
    for relative, data in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def ensure_ray(address: str | None, num_cpus: int | None) -> None:
    """Join ``address`` or start a local Ray instance, unless this process already did."""
    if ray.is_initialized():
        return
    if address is not None:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)


# ----------------------------------------------------------------- the runner's backend
class _PlayerActor:
    """One worker of a Ray run: a ``Player`` over the bundled tasks (each loaded once)."""

    def __init__(self, files: Bundle, env_options: dict[str, Any]) -> None:
        self.root = unpack(files)
        self.player = Player(env_options, cache_size=len(files))

    def play(self, job: Job, plans: list[Any]) -> list[Outcome]:
        task_dir, work = job
        local = self.root / "tasks" / Path(task_dir).name
        return list(_play_job(self.player, (local, work), plans))

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def play_on_ray(jobs: Sequence[Job], workers: int, plans: list[Any], env_options: dict[str, Any], *,
                address: str | None = None) -> Iterator[Outcome]:
    """Play the runner's jobs on ``workers`` Ray actors; yields outcomes as jobs finish.

    Jobs are handed out one at a time per actor (the next as soon as one is done), so a slow
    task does not hold back the others; each job's outcomes come back together.
    """
    ensure_ray(address, workers)
    tasks = [load_task(Path(task_dir)) for task_dir, _ in {str(j[0]): j for j in jobs}.values()]
    files = ray.put(bundle(tasks))
    actor_class = ray.remote(num_cpus=1)(_PlayerActor)
    actors: list[Any] = [actor_class.remote(files, env_options) for _ in range(workers)]  # Ray handles: untyped
    queue = list(jobs)
    running: dict[Any, Any] = {}
    try:
        for actor in actors:
            if queue:
                running[actor.play.remote(queue.pop(0), plans)] = actor
        while running:
            (done,), _ = ray.wait(list(running), num_returns=1)
            actor = running.pop(done)
            if queue:
                running[actor.play.remote(queue.pop(0), plans)] = actor
            yield from ray.get(done)
    finally:
        for actor in actors:
            actor.close.remote()
            ray.kill(actor, no_restart=True)


# ----------------------------------------------------------------- envs for trainers
class _EnvActor:
    """``OfficeEnv`` episodes of the bundled tasks in one actor; grades cross as plain dicts."""

    def __init__(self, files: Bundle, env_options: dict[str, Any]) -> None:
        self.root = unpack(files)
        self.tasks = {p.parent.name: load_task(p.parent) for p in sorted((self.root / "tasks").glob("*/task.yaml"))}
        self.env_options = env_options
        self.envs: dict[str, OfficeEnv] = {}
        self.env: OfficeEnv | None = None

    def reset(self, task_id: str, seed: int | None, options: dict[str, Any] | None) -> tuple[dict, dict]:
        if task_id not in self.tasks:
            raise OfficesimError(f"no task {task_id!r} in this pool ({', '.join(sorted(self.tasks))})")
        if task_id not in self.envs:
            self.envs[task_id] = OfficeEnv(self.tasks[task_id], **self.env_options)
        self.env = self.envs[task_id]
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.env is None:
            raise OfficesimError("call reset before step")
        obs, reward, terminated, truncated, info = self.env.step(action)
        if "grade" in info:
            info = {**info, "grade": info["grade"].model_dump(mode="json")}
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class EnvPool:
    """``size`` officesim environments as Ray actors, stepped together.

    Args:
        tasks: task folders, ids, or loaded ``Task``s the pool may play.
        size: how many environments (one actor each).
        address: a Ray cluster to join; default a local instance (or the one already running).
        env_options: keyword arguments for ``OfficeEnv`` (``judge=JudgeConfig(...)``).
    """

    def __init__(self, tasks: Sequence[Task | str | Path], size: int, *, address: str | None = None,
                 env_options: dict[str, Any] | None = None) -> None:
        if size < 1:
            raise OfficesimError("an EnvPool needs at least one environment")
        loaded = [t if isinstance(t, Task) else load_task(t) for t in tasks]
        self.task_ids = [t.id for t in loaded]
        ensure_ray(address, size)
        files = ray.put(bundle(loaded))
        actor_class = ray.remote(num_cpus=0.5)(_EnvActor)
        self.actors: list[Any] = [actor_class.remote(files, env_options or {}) for _ in range(size)]  # untyped

    def __len__(self) -> int:
        return len(self.actors)

    def reset(self, task_ids: Sequence[str], seeds: Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> list[tuple[dict, dict]]:
        """Start one episode per env (``task_ids[i]`` in env ``i``); ``(obs, info)`` per env."""
        self._check(task_ids)
        seeds = list(seeds) if seeds is not None else [None] * len(self.actors)
        return ray.get([a.reset.remote(t, s, options) for a, t, s in zip(self.actors, task_ids, seeds, strict=True)])

    def step(self, actions: Sequence[Any]) -> list[tuple[dict, float, bool, bool, dict]]:
        """One action per env; ``(obs, reward, terminated, truncated, info)`` per env."""
        self._check(actions)
        return ray.get([a.step.remote(action) for a, action in zip(self.actors, actions, strict=True)])

    def close(self) -> None:
        """Stop the actors and remove their task copies."""
        ray.get([a.close.remote() for a in self.actors])
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors = []

    def _check(self, items: Sequence[Any]) -> None:
        if len(items) != len(self.actors):
            raise OfficesimError(f"pass one item per environment: got {len(items)} for {len(self.actors)}")
