"""Gymnasium adapter: ``OfficeGymEnv``, a ``gymnasium.Env`` of text actions and text observations.

An LLM policy reads text and writes text, so both spaces are ``gymnasium.spaces.Text``:

* an action is the JSON of one tool call, ``{"name": "<tool>", "arguments": {...}}`` (an OpenAI
  tool call ``{"id", "type", "function": {"name", "arguments"}}`` works too); ``submit`` ends the
  episode.  Text that is not such an object is a mistake of the model, not a crash: it uses up a
  step and its observation carries an ``invalid_argument`` error saying what to send instead.
* an observation is the JSON of ``OfficeEnv``'s observation (instruction, tools, user, steps left,
  the last result); ``json.loads`` gives the dict back.  It is written with ``ensure_ascii`` so
  it always lies in the observation space (printable ASCII).

Rewards, termination, truncation and ``info`` (``info["grade"]`` at the end) are ``OfficeEnv``'s.
Given several tasks, ``reset`` picks one with ``self.np_random``, so ``reset(seed=s)`` picks the
same task for the same ``s`` (Gymnasium-style seeding); ``options={"task": id}`` picks one by id.
Given a ``TaskSampler`` instead, ``reset(seed=s)`` plays the sampler's instance for ``s`` and
``reset()`` one drawn with ``self.np_random``: a fresh instance every episode.

``register_tasks("tasks/")`` registers ``officesim/<task-id>`` for ``gymnasium.make`` with the
task's own step budget as ``max_episode_steps``, so Gymnasium's ``TimeLimit`` cuts exactly where
the task truncates and grades.  For a shorter budget pass ``max_steps=N`` (``make(id, max_steps=N)``):
the step that reaches ``N`` ends the episode with its grade (``info["grade"]``, the reward).
``make(id, max_episode_steps=N)`` with ``N`` below the task's budget is Gymnasium's own wrapper,
which cuts without asking the env, so that episode is not graded: use ``max_steps``.

Envs pickle (for ``AsyncVectorEnv``, Ray, multiprocessing): a task travels as its folder and is
loaded again on the other side (its hashes are checked), and an episode in progress stays behind,
so call ``reset`` after unpickling.  ``gymnasium.make_vec("officesim/<id>", ...)`` and
``AsyncVectorEnv`` of ``gymnasium.make`` callables work as they are.  This is the only module that
imports Gymnasium (``pip install 'officesim[gym]'``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from officesim.env import OfficeEnv, RewardMode, parse_action
from officesim.errors import InvalidArgument, OfficesimError
from officesim.grading.judge import Judge, JudgeConfig, make_judge
from officesim.sampler import TaskSampler
from officesim.task import Task, find_tasks, load_task, read_yaml

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:  # the core never needs Gymnasium; this adapter does
    raise ImportError("officesim.integrations.gymnasium needs Gymnasium: pip install 'officesim[gym]'") from exc

ENTRY_POINT = f"{__name__}:OfficeGymEnv"
NAMESPACE = "officesim"
# What json.dumps writes by default (ensure_ascii): printable ASCII.  Actions may also carry the
# whitespace JSON allows between tokens.  Non-ASCII actions are accepted, they just lie outside the space.
OBSERVATION_CHARSET = frozenset(chr(code) for code in range(0x20, 0x7F))
ACTION_CHARSET = OBSERVATION_CHARSET | frozenset("\t\n\r")
MAX_OBSERVATION_CHARS = 1 << 20  # tool results are bounded (pages, clipped bodies); the tool list dominates
MAX_ACTION_CHARS = 1 << 16
ACTION_FORMAT = ('send one JSON object {"name": "<tool>", "arguments": {...}}, for example '
                 '{"name": "submit", "arguments": {"answer": null}}')

TaskSource = Task | str | Path


def load_tasks(tasks: TaskSource | Sequence[TaskSource]) -> list[Task]:
    """Loaded tasks from a ``Task``, a task folder, a directory of task folders, or a list of those."""
    items: list[TaskSource] = [tasks] if isinstance(tasks, Task | str | Path) else list(tasks)
    loaded: list[Task] = []
    for item in items:
        if isinstance(item, Task):
            loaded.append(item)
        else:
            loaded.extend(load_task(path) for path in find_tasks([item]))
    if not loaded:
        raise OfficesimError(f"no task folders found in {tasks!r}")
    ids = [task.id for task in loaded]
    twice = sorted({task_id for task_id in ids if ids.count(task_id) > 1})
    if twice:
        raise OfficesimError(f"tasks given more than once: {', '.join(twice)}")
    return loaded


def parse_text_action(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """``(tool call, None)`` from an action's JSON text, or ``(None, what is wrong)`` for the model."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"the action is not valid JSON ({exc.msg} at position {exc.pos}); {ACTION_FORMAT}"
    if not isinstance(data, dict):
        return None, f"the action is a JSON {type(data).__name__}, not an object; {ACTION_FORMAT}"
    try:
        parse_action(data)
    except TypeError:
        return None, f"the action names no tool (no 'name' or 'function' key); {ACTION_FORMAT}"
    return data, None


class OfficeGymEnv(gymnasium.Env[str, str]):
    """One or many officesim tasks as a Gymnasium environment with JSON text actions and observations.

    Args:
        tasks: a ``Task``, a task folder, a directory of task folders, or a list of those; each
            ``reset`` plays one of them.  Or a ``TaskSampler``: each reset draws an instance.
        judge: a ``JudgeConfig`` or ``Judge`` for judge criteria; ``None`` leaves them unjudged.
        reward: ``"score"`` (the rubric score at the end) or ``"binary"`` (1.0 when passed); a
            reset's ``options={"reward": ...}`` overrides it for that episode.
        max_observation_chars: the observation space's length bound.
        max_action_chars: the action space's length bound (longer actions are still played).
        max_steps: a step budget below the task's own; reaching it truncates and grades the episode.

    Attributes:
        tasks: the loaded tasks, in the order given (directories sorted by folder); empty over a sampler.
        sampler: the ``TaskSampler`` given, else ``None``.
        env: the ``OfficeEnv`` of the current episode (its ``world``, ``transcript`` and ``grade``),
            or ``None`` before the first reset.
    """

    def __init__(self, tasks: TaskSource | Sequence[TaskSource] | TaskSampler, *,
                 judge: Judge | JudgeConfig | None = None,
                 reward: RewardMode = "score", max_observation_chars: int = MAX_OBSERVATION_CHARS,
                 max_action_chars: int = MAX_ACTION_CHARS, max_steps: int | None = None) -> None:
        if reward not in ("score", "binary"):
            raise OfficesimError(f"reward must be 'score' or 'binary', not {reward!r}")
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise OfficesimError(f"max_steps must be a positive integer, not {max_steps!r}")
        self.max_steps = max_steps
        self.sampler = tasks if isinstance(tasks, TaskSampler) else None
        self.tasks = [] if self.sampler is not None else load_tasks(tasks)  # type: ignore[arg-type]
        self._index = {task.id: index for index, task in enumerate(self.tasks)}
        self._judge_source = judge
        self._judge = make_judge(judge)  # one judge (and its cache) for every task's episodes
        self.reward_mode: RewardMode = reward
        self.observation_space = spaces.Text(max_observation_chars, min_length=0, charset=OBSERVATION_CHARSET)
        self.action_space = spaces.Text(max_action_chars, min_length=0, charset=ACTION_CHARSET)
        self.env: OfficeEnv | None = None

    @property
    def task(self) -> Task | None:
        """The task of the current episode (``None`` before the first reset)."""
        return self.env.task if self.env is not None else None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode: pick a task with ``self.np_random`` (or ``options["task"]``), roll its world back.

        Other options go to ``OfficeEnv.reset`` (``{"reward": "binary"}``).
        """
        super().reset(seed=seed)
        options = dict(options or {})
        if self.sampler is not None:
            return self._reset_sampled(seed, options)
        # Drawn on every reset, even with one task or a task named in options, so that the
        # sequence of tasks after a seeded reset does not depend on anything else.
        index = int(self.np_random.integers(len(self.tasks)))
        chosen = options.pop("task", None)
        if chosen is not None:
            if chosen not in self._index:
                raise OfficesimError(f"options['task'] {chosen!r} is not one of this environment's "
                                     f"{len(self.tasks)} task(s)")
            index = self._index[chosen]
        options.setdefault("reward", self.reward_mode)
        task = self.tasks[index]
        if self.env is None or self.env.task is not task:
            self.close()
            self.env = OfficeEnv(task, judge=self._judge)
        obs, info = self.env.reset(seed=seed, options=options)
        return self._encode(obs), info

    def _reset_sampled(self, seed: int | None, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Over a sampler: the instance of ``seed``, or of a seed drawn with ``np_random``."""
        if "task" in options:
            raise OfficesimError("options['task'] names a task of a folder library; over a sampler pass seed=")
        draw = seed if seed is not None else int(self.np_random.integers(2**63 - 1))
        options.setdefault("reward", self.reward_mode)
        if self.env is None:
            self.env = OfficeEnv(self.sampler, judge=self._judge)  # type: ignore[arg-type]
        obs, info = self.env.reset(seed=draw, options=options)
        return self._encode(obs), info

    def step(self, action: str | Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one action: the JSON text of a tool call (a dict or OpenAI tool-call object also works)."""
        if self.env is None:
            raise OfficesimError("the episode was never started; call reset() first")
        if not isinstance(action, str):
            obs, reward, terminated, truncated, info = self.env.step(action)
            return self._encode(obs), float(reward), terminated, truncated, info
        call, problem = parse_text_action(action)
        if call is not None:
            return self._limited(*self.env.step(call))
        # Not a tool call: it still costs a step (so a policy that never emits one is truncated)
        # and is recorded with its raw text, so replaying the transcript reaches the same end.
        obs, reward, terminated, truncated, info = self.env.step({"name": "", "arguments": action})
        error = InvalidArgument(problem or ACTION_FORMAT).to_result()
        obs["result"] = error
        self.env.transcript[-1]["content"] = json.dumps(error, ensure_ascii=False)
        return self._limited(obs, reward, terminated, truncated, info)

    def _limited(self, obs: dict[str, Any], reward: float, terminated: bool, truncated: bool,
                 info: dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Truncate and grade the episode at ``max_steps`` when that comes before the task's own budget."""
        limit, env = self.max_steps, self.env
        if env is not None and not (terminated or truncated) and limit is not None and env.steps >= limit:
            grade = env.finish()
            info = {**info, "grade": grade}
            reward = (1.0 if grade.passed else 0.0) if env.reward_mode == "binary" else grade.score
            truncated = True
        return self._encode(obs), float(reward), terminated, truncated, info

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the episode in progress (an open SQLite world) and the live judge."""
        state = self.__dict__.copy()
        state["env"] = None
        state["_judge"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._judge = make_judge(self._judge_source)

    def close(self) -> None:
        """Close the current episode's world (a later reset opens a new one)."""
        if self.env is not None and self.env.world is not None:
            self.env.world.close()
        self.env = None

    @staticmethod
    def _encode(obs: dict[str, Any]) -> str:
        return json.dumps(obs, ensure_ascii=True, default=str)


def register_tasks(tasks_dir: str | Path, *, namespace: str = NAMESPACE, **env_kwargs: Any) -> list[str]:
    """Register every task folder under ``tasks_dir`` as ``<namespace>/<task-id>``; returns the ids.

    ``gymnasium.make("officesim/lookup-cfo-email")`` then builds an ``OfficeGymEnv`` of that task;
    ``env_kwargs`` (``judge``, ``reward``, ...) are passed to it.  Tasks are loaded by ``make``, not
    here, so registering the whole library is cheap.  Registering the same folder again with the
    same arguments is a no-op (Gymnasium would warn about overriding).
    """
    ids = []
    for path in find_tasks([tasks_dir]):
        env_id = f"{namespace}/{path.name}"
        kwargs = {"tasks": str(path.resolve()), **env_kwargs}
        steps = _max_steps(path)
        existing = gymnasium.registry.get(env_id)
        if existing is None or existing.entry_point != ENTRY_POINT or existing.kwargs != kwargs \
                or existing.max_episode_steps != steps:
            gymnasium.register(env_id, entry_point=ENTRY_POINT, kwargs=kwargs, max_episode_steps=steps)
        ids.append(env_id)
    return ids


def _max_steps(folder: Path) -> int | None:
    """The task's step budget, read from ``task.yaml`` alone (registration does not load tasks).

    ``None`` for a file without a valid one: ``make`` then loads the task and reports the error.
    """
    data = read_yaml(folder / "task.yaml")
    steps = data.get("max_steps") if isinstance(data, dict) else None
    return steps if isinstance(steps, int) and steps >= 1 else None
