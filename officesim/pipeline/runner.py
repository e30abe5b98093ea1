"""Run n attempts of every task with one agent, in parallel processes, resumably.

A run lives in one folder (``runs/NAME``):

* ``results.jsonl``: one JSON line per attempt (task, attempt, seed, agent, score, passed, status,
  grade, steps, tokens, wall_time, task metadata, and ``versions``: world spec fingerprint, tools
  hash, task and grader hashes).  Lines are appended and flushed one by one, so a run killed
  half-way resumes where it stopped; a half-written last line is cut off on resume.
* ``transcripts/<task>/<attempt>.json``: the episode's chat transcript (the agent's own when it
  keeps one, harness actions marked; see ``episode.run_episode``), written before its result
  line (a result line always has its transcript).
* ``run.json``: the agent and its options (never the API key), so later steps (calibrate,
  deliver) know what produced the numbers, and a resume cannot silently mix two agents.

Seeds derive from (task id, attempt) with ``derive_seed``, so attempt 3 of a task is the same
episode on any machine and in any order.  Each worker process loads a task once and reuses its
start snapshot for every attempt it plays.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import multiprocessing.context
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from officesim import __version__
from officesim.agents.registry import check_agent, check_endpoint, make_agent
from officesim.env import OfficeEnv
from officesim.episode import run_episode
from officesim.errors import OfficesimError
from officesim.pipeline.attempts import RESULTS, Attempt, read_attempts
from officesim.pipeline.progress import Progress
from officesim.seeding import derive_seed
from officesim.task import Task, load_task
from officesim.toolapi.lock import surface_stamp

TRANSCRIPTS = "transcripts"
RUN_INFO = "run.json"
SECRET_OPTIONS = frozenset({"api_key"})
BACKENDS = ("local", "ray")


class RunError(OfficesimError):
    """A run cannot start or continue (a mismatched resume, a worker that died)."""


@dataclass(frozen=True)
class AgentSpec:
    """Which agent to build in each worker, and with which options (picklable)."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """The spec as recorded in ``run.json``: secrets left out."""
        return {"name": self.name, "options": {k: v for k, v in sorted(self.options.items())
                                               if k not in SECRET_OPTIONS}}


@dataclass
class RunReport:
    """What one call of ``run`` did."""

    out: Path
    planned: int
    skipped: int
    played: int = 0
    passed: int = 0
    errors: int = 0
    crashes: list[str] = field(default_factory=list)


def attempt_seed(task_id: str, attempt: int, base_seed: int = 0) -> int:
    """The episode seed of one attempt: stable across machines, processes and orderings."""
    return derive_seed(base_seed, "attempt", task_id, attempt)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def task_versions(task: Task) -> dict[str, Any]:
    """The versions an attempt's result depends on: world spec, tools, task and grader."""
    tools_file = task.dir / "tools.json"
    return {
        "world": task.world_spec().fingerprint(),
        "world_seed": task.world_seed,
        "start_state": task.start_state_hash(),
        "tools": _sha(tools_file.read_bytes()) if tools_file.is_file() else _tools_hash(task),
        "tool_surface": {k: v for k, v in surface_stamp().items() if k in ("version", "hash")},
        "task": task.task_hash,
        "grader": task.grader_hash,
        "officesim": __version__,
    }


# (the task's tool names, whether it has the wait tool) -> the hash of its exported tool list: a
# library's tasks share a few tool sets, and exporting one as sorted JSON costs a millisecond.
_TOOLS_HASHES: dict[tuple[Any, ...], str] = {}


def _tools_hash(task: Task) -> str:
    key = (tuple(task.spec.tools), bool(task.spec.colleagues or task.spec.events))
    found = _TOOLS_HASHES.get(key)
    if found is None:
        found = _TOOLS_HASHES[key] = _sha(json.dumps(task.tools_json(), sort_keys=True).encode())
    return found


def task_meta(task: Task) -> dict[str, Any]:
    """The metadata copied into every result line (so metrics need not reload tasks)."""
    return {"category": task.category, "difficulty": task.difficulty, "family": task.family,
            "group": task.group}


# ------------------------------------------------------------------ results file
def read_results(path: str | Path) -> list[dict[str, Any]]:
    """The JSON lines of a ``results.jsonl`` (or a run folder) as plain mappings, for scripts.

    The same lines as ``read_attempts`` (which officesim's own readers use), in the same order.
    """
    return [attempt.line() for attempt in read_attempts(path)]


def _cut_partial_line(path: Path) -> None:
    """Drop a half-written last line so the next append starts on a line of its own."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    path.write_bytes(data[: data.rfind(b"\n") + 1])


def _check_run_info(plan: RunPlan, task_dirs: Sequence[Path]) -> None:
    """Write ``run.json``, or refuse to resume a folder made with another agent or seed."""
    info_path = plan.out / RUN_INFO
    wanted = {"agent": plan.agent.public(), "base_seed": plan.base_seed}
    existing: dict[str, Any] = read_run_info(plan.out) or {}
    if existing and (existing.get("agent") != wanted["agent"] or existing.get("base_seed") != plan.base_seed):
        raise RunError(f"{plan.out} holds a run of {existing.get('agent')} (base seed "
                       f"{existing.get('base_seed')}); it cannot be resumed with {wanted['agent']} "
                       f"(base seed {plan.base_seed}). Use another --out folder.")
    tasks = dict(existing.get("tasks", {}))
    tasks.update({t.name: str(t) for t in task_dirs})
    info = {**wanted, "n": max(plan.n, int(existing.get("n", 0))), "tasks": dict(sorted(tasks.items())),
            "officesim": __version__}
    if info != existing:
        info_path.write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def read_run_info(out: str | Path) -> dict[str, Any] | None:
    """The ``run.json`` of a run folder, or None; ``RunError`` when it is not a JSON object."""
    path = Path(out) / RUN_INFO
    if not path.is_file():
        return None
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RunError(f"{path} is not valid JSON ({exc}); restore it or use another run folder") from None
    if not isinstance(info, dict):
        raise RunError(f"{path} is not a run.json (a JSON object); restore it or use another run folder")
    return info


# ------------------------------------------------------------------ playing
@dataclass(frozen=True)
class RunPlan:
    """One agent's share of a run: n attempts per task into one run folder."""

    agent: AgentSpec
    n: int
    out: Path
    base_seed: int = 0
    retry_errors: bool = False


class Player:
    """Plays attempts in one process, loading each task once (whatever agent plays it).

    Loaded tasks hold their start snapshot and start world (a few MB each on acme), so only the
    most recently used ``cache_size`` stay loaded; jobs come task by task, so that is enough.

    Args:
        env_options: keyword arguments for ``OfficeEnv`` (e.g. ``judge``).
        cache_size: how many loaded tasks to keep.
        loaded: tasks the caller has loaded already, by folder (``officesim run`` loads every
            folder up front to check it): played as they are instead of parsed a second time.
    """

    def __init__(self, env_options: dict[str, Any] | None = None, cache_size: int = 8,
                 loaded: Mapping[Path, Task] | None = None) -> None:
        self.env_options = env_options or {}
        self.cache_size = cache_size
        self._loaded = dict(loaded or {})
        self._tasks: OrderedDict[Path, tuple[Task, dict[str, Any], dict[str, Any]]] = OrderedDict()

    def _load(self, task_dir: Path) -> tuple[Task, dict[str, Any], dict[str, Any]]:
        if task_dir in self._tasks:
            self._tasks.move_to_end(task_dir)
        else:
            task = self._loaded.pop(task_dir, None) or load_task(task_dir)
            self._tasks[task_dir] = (task, task_meta(task), task_versions(task))
            while len(self._tasks) > self.cache_size:
                self._tasks.popitem(last=False)[1][0].release()  # its start state goes; the task may stay referenced
        return self._tasks[task_dir]

    def play(self, task_dir: Path, attempt: int, agent: AgentSpec,
             base_seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """One attempt: its result record and transcript (one agent object per episode).

        A crash (an officesim bug, a broken task folder) is recorded as an ``error`` attempt with
        its traceback under ``crash`` and reported at the end of the run, rather than losing
        every other attempt of a long run; nothing of it reaches a model.
        """
        task_id = task_dir.name
        seed = attempt_seed(task_id, attempt, base_seed)
        base = {"task": task_id, "attempt": attempt, "seed": seed, "agent": agent.name}
        if "model" in agent.options:
            base["model"] = agent.options["model"]
        try:
            task, meta, versions = self._load(task_dir)
            actor = make_agent(agent.name, task=task, **agent.options)
            env = OfficeEnv(task, **self.env_options)
            result = run_episode(env, actor, seed)
        except Exception:  # recorded with its traceback and re-surfaced by the run report
            record = {**base, "score": None, "passed": None, "status": "error", "error": "crash",
                      "crash": traceback.format_exc(), "grade": None, "steps": 0, "tokens": None,
                      "wall_time": 0.0}
            return record, []
        record = {**base, **result.to_dict(), **meta, "versions": versions}
        if self.env_options.get("drift") is not None:  # a drifted surface: replay needs the same drift
            record["drift"] = self.env_options["drift"]
        return record, result.transcript


# A job: one task folder and, per plan index, the attempts to play.
Job = tuple[Path, list[tuple[int, list[int]]]]
Outcome = tuple[int, dict[str, Any], list[dict[str, Any]]]


def _play_job(player: Player, job: Job, plans: Sequence[tuple[AgentSpec, int]]) -> Iterator[Outcome]:
    task_dir, work = job
    for index, attempts in work:
        agent, base_seed = plans[index]
        for attempt in attempts:
            yield (index, *player.play(task_dir, attempt, agent, base_seed))


# The worker process's own Player (its task cache lives across the jobs that process plays).
_worker_player: Player | None = None


def _start_worker(env_options: dict[str, Any], cache_size: int = 8) -> None:
    """Pool initializer: one Player per worker process."""
    global _worker_player
    _worker_player = Player(env_options, cache_size=cache_size)


def _play_in_worker(job: Job, plans: list[tuple[AgentSpec, int]]) -> list[Outcome]:
    """A pool task: one job's outcomes, played by this worker's Player."""
    if _worker_player is None:
        raise RunError("a worker was started without its player (the pool initializer did not run)")
    return list(_play_job(_worker_player, job, plans))


def _jobs(pending: dict[Path, list[tuple[int, list[int]]]], workers: int) -> list[Job]:
    """Whole tasks per job when there are plenty (each task loads in one worker only);
    otherwise each plan's attempts split in ``workers`` chunks, so no worker idles."""
    if len(pending) >= 4 * workers:
        return list(pending.items())
    jobs: list[Job] = []
    for task_dir, work in pending.items():
        for index, attempts in work:
            size = max(1, math.ceil(len(attempts) / workers))
            jobs.extend((task_dir, [(index, attempts[i:i + size])]) for i in range(0, len(attempts), size))
    return jobs


def _play_parallel(jobs: list[Job], workers: int, plans: list[tuple[AgentSpec, int]],
                   env_options: dict[str, Any]) -> Iterator[Outcome]:
    """Play ``jobs`` on a pool of ``workers`` processes; each job's outcomes as soon as it is done."""
    # forkserver: workers fork from a clean server process that imported officesim once (fast
    # start, no inherited threads or sockets); spawn where there is no forkserver.
    context: multiprocessing.context.BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["officesim.pipeline.runner"])
    else:
        context = multiprocessing.get_context("spawn")
    # Jobs of whole tasks never bring a task back to a worker: keep one start state, not eight.
    whole_tasks = len({task_dir for task_dir, _ in jobs}) == len(jobs)
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                               initargs=(env_options, 1 if whole_tasks else 8))
    try:
        futures = [pool.submit(_play_in_worker, job, plans) for job in jobs]
        for future in as_completed(futures):
            try:
                outcomes = future.result()
            except BrokenProcessPool:
                raise RunError("a worker process stopped early; finished attempts are saved, run the same "
                               "command again to resume") from None
            yield from outcomes
    finally:  # done, failed or interrupted: drop what has not started, never wait on a stuck worker
        pool.shutdown(wait=False, cancel_futures=True)


def current_hashes(task_dirs: Sequence[Path]) -> dict[str, tuple[str, str]]:
    """Per task id, the (task, grader) hashes of its folder as it is now (broken folders left out)."""
    tasks = []
    for task_dir in task_dirs:
        try:
            tasks.append(load_task(task_dir))
        except OfficesimError:
            continue  # its attempts run again and record the load error
    return hashes_of(tasks)


def hashes_of(tasks: Iterable[Task]) -> dict[str, tuple[str, str]]:
    """Per task id, the (task, grader) hashes of loaded tasks (no second parse of their files)."""
    return {task.id: (task.task_hash, task.grader_hash) for task in tasks}


def is_current(record: Attempt, hashes: Mapping[str, tuple[str, str]]) -> bool:
    """Whether an attempt was made with the task and grader as they are now, without a crash."""
    versions = record.versions or {}
    wanted = hashes.get(record.task)
    if record.crash is not None:
        return False
    if record.status == "error" and not versions:
        return True  # an agent error before the task loaded: its hashes are unknown, keep it
    return wanted is not None and (versions.get("task"), versions.get("grader")) == wanted


def _pending(plan: RunPlan, task_dirs: Sequence[Path],
             hashes: Callable[[], Mapping[str, tuple[str, str]]]) -> dict[Path, list[int]]:
    """Attempts still to play: not recorded, recorded for an older task or grader, crashed, whose
    grade stayed incomplete (a judge failure), or (with ``retry_errors``) ended in an agent error."""
    records = read_attempts(plan.out / RESULTS)
    current = hashes() if records else {}
    done = {r.key for r in records
            if is_current(r, current) and not (r.status == "error" and (
                plan.retry_errors or str(r.error or "").startswith("incomplete grade")))}
    return {t: [a for a in range(plan.n) if (t.name, a) not in done] for t in task_dirs}


def run_plans(
    tasks: Sequence[str | Path],
    plans: Sequence[RunPlan],
    *,
    workers: int = 1,
    env_options: dict[str, Any] | None = None,
    progress: bool = True,
    label: str | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    hashes: Mapping[str, tuple[str, str]] | None = None,
    backend: str = "local",
    address: str | None = None,
    loaded: Mapping[Path, Task] | None = None,
) -> list[RunReport]:
    """Play several agents' attempts over the same tasks in one pool of workers.

    Sharing the pool means each worker loads a task once for all agents (calibration plays the
    oracle, the null agent, every probe and the random agent on every task).

    Args:
        tasks: task folders (discovered with ``officesim.task.find_tasks``).
        plans: per agent, the attempts and the run folder (created when missing).
        workers: processes; 1 plays in this process (handy for debugging).
        env_options: keyword arguments for ``OfficeEnv``.
        progress: show a progress bar with ETA on stderr.
        label: the progress bar's label.
        on_record: called with each new record (after it is saved).
        hashes: the tasks' current (task, grader) hashes when the caller has loaded them
            already (``hashes_of``); otherwise the tasks are loaded to tell stale records.
        backend: ``local`` (processes on this machine) or ``ray`` (``workers`` Ray actors;
            ``officesim.integrations.ray``); results land in the same run folder either way.
        address: the Ray cluster to join (``backend="ray"``); default a local Ray instance.
        loaded: the tasks already loaded by the caller, by folder: a run in this process
            (``workers=1``) plays them instead of loading each folder again.
    """
    if workers < 1:
        raise RunError("workers must be at least 1")
    if backend not in BACKENDS:
        raise RunError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    task_dirs = [Path(t) for t in tasks]
    names = [t.name for t in task_dirs]
    if len(set(names)) != len(names):
        raise RunError("two task folders have the same name; task ids must be unique in a run")
    reports = []
    pending: dict[Path, list[tuple[int, list[int]]]] = {t: [] for t in task_dirs}
    cache: Mapping[str, tuple[str, str]] | None = hashes

    def known_hashes() -> Mapping[str, tuple[str, str]]:
        nonlocal cache
        if cache is None:
            cache = current_hashes(task_dirs)
        return cache

    for index, plan in enumerate(plans):
        if plan.n < 1:
            raise RunError("n must be at least 1")
        check_agent(plan.agent.name, plan.agent.options)
        plan.out.mkdir(parents=True, exist_ok=True)
        _check_run_info(plan, task_dirs)
        _cut_partial_line(plan.out / RESULTS)
        todo = _pending(plan, task_dirs, known_hashes)
        for task_dir, attempts in todo.items():
            if attempts:
                pending[task_dir].append((index, attempts))
        count = sum(len(a) for a in todo.values())
        if count:  # a dead endpoint fails the run now, not each attempt after its retries
            check_endpoint(plan.agent.name, plan.agent.options)
        reports.append(RunReport(out=plan.out, planned=plan.n * len(task_dirs),
                                 skipped=plan.n * len(task_dirs) - count))
    pending = {t: w for t, w in pending.items() if w}
    total = sum(len(a) for work in pending.values() for _, a in work)
    specs = [(p.agent, p.base_seed) for p in plans]
    env_options = env_options or {}
    workers = min(workers, max(1, total))
    if backend == "ray" and total:
        try:  # Ray is an optional extra, imported only for a Ray run
            from officesim.integrations.ray import play_on_ray
        except ImportError as exc:
            raise RunError(str(exc)) from None
        stream: Iterable[Outcome] = play_on_ray(_jobs(pending, workers), workers, specs, env_options, address=address)
    elif workers == 1:
        # Each task is one job here, played once through: keeping the last task's start state is
        # enough, and holding eight (the default) cost the run 4x the memory and a tenth of its speed.
        player = Player(env_options, cache_size=1,
                        loaded={t: loaded[t] for t in pending if t in loaded} if loaded else None)
        stream = (o for job in pending.items() for o in _play_job(player, job, specs))
    else:
        stream = _play_parallel(_jobs(pending, workers), workers, specs, env_options)
    bar = Progress(total, label=label or "+".join(p.agent.name for p in plans), enabled=progress)
    files = [(p.out / RESULTS).open("a", encoding="utf-8") for p in plans]
    made: set[Path] = set()
    try:
        for index, record, transcript in stream:
            _save(plans[index].out, files[index], record, transcript, made)
            report = reports[index]
            report.played += 1
            report.passed += bool(record.get("passed"))
            report.errors += record.get("status") == "error"
            if "crash" in record:
                report.crashes.append(f"{record['task']}#{record['attempt']}")
            if on_record is not None:
                on_record(record)
            bar.advance(extra=f"passed {sum(r.passed for r in reports)} errors {sum(r.errors for r in reports)}")
    finally:
        for handle in files:
            handle.close()
        bar.close()
    return reports


def run(
    tasks: Sequence[str | Path],
    agent: AgentSpec,
    n: int,
    out: str | Path,
    *,
    workers: int = 1,
    base_seed: int = 0,
    retry_errors: bool = False,
    env_options: dict[str, Any] | None = None,
    progress: bool = True,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    hashes: Mapping[str, tuple[str, str]] | None = None,
    backend: str = "local",
    address: str | None = None,
    loaded: Mapping[Path, Task] | None = None,
) -> RunReport:
    """Play ``n`` attempts of each task folder and append them to ``out/results.jsonl``.

    Attempts already recorded there are skipped (``retry_errors`` plays those with status
    ``error`` again).  See ``run_plans`` for the other arguments.
    """
    plan = RunPlan(agent, n, Path(out), base_seed, retry_errors)
    return run_plans(tasks, [plan], workers=workers, env_options=env_options, progress=progress,
                     on_record=on_record, hashes=hashes, backend=backend, address=address, loaded=loaded)[0]


def _save(out: Path, results_file: Any, record: dict[str, Any], transcript: list[dict[str, Any]],
          made: set[Path]) -> None:
    folder = out / TRANSCRIPTS / record["task"]
    if folder not in made:
        folder.mkdir(parents=True, exist_ok=True)
        made.add(folder)
    # One step per line: as readable and diffable as an indented file, and written by the C
    # encoder (``indent`` falls back to the pure-Python one, a third of a cold run's save time).
    text = "[\n" + ",\n".join(json.dumps(step, ensure_ascii=False) for step in transcript) + "\n]\n"
    (folder / f"{record['attempt']}.json").write_text(text, encoding="utf-8")
    results_file.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
    results_file.flush()


def load_transcript(out: str | Path, task: str, attempt: int) -> list[dict[str, Any]]:
    """The stored transcript of one attempt; ``RunError`` when it is missing or unreadable."""
    path = Path(out) / TRANSCRIPTS / task / f"{attempt}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunError(f"{path} is missing: every result line of {out} needs its transcript") from None
    except json.JSONDecodeError as exc:
        raise RunError(f"{path} is not valid JSON ({exc})") from None
