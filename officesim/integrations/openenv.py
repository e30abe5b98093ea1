"""OpenEnv adapter: ``OfficeEnv`` behind OpenEnv's own HTTP/WebSocket server (``openenv-core``).

OpenEnv clients (``GenericEnvClient``, TRL's OpenEnv integration) speak one contract:
``POST /reset``, ``POST /step``, ``GET /state``, ``GET /schema``, ``GET /health`` and the
``/ws`` WebSocket for a persistent session.  ``create_app(tasks)`` builds that server with
OpenEnv's ``create_app``, so the wire format is OpenEnv's and not ours:

* ``reset(seed=..., task="<task id>")`` starts an episode of a task in the library (default: the
  first one); the observation carries the instruction, the task's tools (OpenAI format, relaxed
  schemas) and the steps left;
* an action is ``{"name": "<tool>", "arguments": {...}}``; the observation has the tool's
  ``result``; ``done`` and ``reward`` are ``OfficeEnv``'s, and the last observation of an
  episode carries the grade summary (every check with ``full_grades=True``).

Needs ``pip install 'officesim[openenv]'``; serve with ``uvicorn`` on ``create_app(...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import uuid4

from pydantic import Field

from officesim.env import OfficeEnv
from officesim.errors import OfficesimError
from officesim.grading.judge import JudgeConfig, make_judge
from officesim.grading.scoring import Grade
from officesim.resources import tasks_dir
from officesim.server.http import GRADE_SUMMARY_FIELDS
from officesim.task import Task, find_tasks, load_task

try:
    from openenv.core.env_server.http_server import create_app as openenv_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State
except ImportError as exc:  # the core never needs OpenEnv; this adapter does
    raise ImportError("officesim.integrations.openenv needs openenv-core: pip install 'officesim[openenv]'") from exc


class OfficeAction(Action):
    """One tool call (``submit`` ends the episode)."""

    name: str = Field(description="The tool to call, one of the observation's tools, or 'submit'.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments.")


class OfficeObservation(Observation):
    """What the agent sees after a reset or a step."""

    task_id: str = Field(default="", description="The task being played.")
    instruction: str = Field(default="", description="The task's instruction.")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The task's tools (OpenAI format).")
    steps_left: int = Field(default=0, description="Tool calls still allowed.")
    result: dict[str, Any] | None = Field(default=None, description="The last tool call's result.")
    grade: dict[str, Any] | None = Field(default=None, description="The grade, once the episode ended.")


class OfficeOpenEnv(Environment):
    """Episodes of the tasks in a library, one ``OfficeEnv`` per task played (per session)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, tasks: dict[str, Task], *, judge: Any = None, full_grades: bool = False) -> None:
        super().__init__()
        self.tasks = tasks
        self.judge = judge
        self.full_grades = full_grades
        self.envs: dict[str, OfficeEnv] = {}
        self.env: OfficeEnv | None = None
        self._state = State(episode_id=None, step_count=0)

    def reset(self, seed: int | None = None, episode_id: str | None = None, task: str | None = None,
              **_: Any) -> OfficeObservation:
        task_id = task or next(iter(self.tasks))
        if task_id not in self.tasks:
            raise OfficesimError(f"no task {task_id!r} here; pass task= one of {', '.join(sorted(self.tasks))}")
        if task_id not in self.envs:
            self.envs[task_id] = OfficeEnv(self.tasks[task_id], judge=self.judge)
        self.env = self.envs[task_id]
        obs, _ = self.env.reset(seed=seed)
        self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
        return self._observation(obs, reward=0.0, done=False, grade=None)

    def step(self, action: OfficeAction, timeout_s: float | None = None, **_: Any) -> OfficeObservation:
        if self.env is None or self.env.done:
            raise OfficesimError("the episode is over (or was never started); call reset first")
        obs, reward, terminated, truncated, info = self.env.step({"name": action.name, "arguments": action.arguments})
        self._state.step_count = self.env.steps
        return self._observation(obs, reward=reward, done=terminated or truncated, grade=info.get("grade"))

    @property
    def state(self) -> State:
        return self._state

    def _observation(self, obs: dict[str, Any], *, reward: float, done: bool, grade: Grade | None) -> OfficeObservation:
        view = None
        if grade is not None:
            data = grade.model_dump(mode="json")
            view = data if self.full_grades else {k: data[k] for k in GRADE_SUMMARY_FIELDS}
        task = self.env.task if self.env is not None else None
        return OfficeObservation(
            task_id=task.id if task else "", instruction=obs.get("instruction", ""),
            tools=task.tools_json("openai", "relaxed") if task else [], steps_left=obs.get("steps_left", 0),
            result=obs.get("result"), grade=view, done=done, reward=reward)


def environment_factory(tasks: str | Path | None = None, *, judge: JudgeConfig | None = None,
                        full_grades: bool = False) -> Callable[[], OfficeOpenEnv]:
    """A factory of ``OfficeOpenEnv`` over a library (loaded once, shared by every session)."""
    loaded = {t.id: t for t in (load_task(p) for p in find_tasks([tasks_dir(tasks)]))}
    if not loaded:
        raise OfficesimError(f"no task folders in {tasks_dir(tasks)}")
    shared_judge = make_judge(judge)
    return lambda: OfficeOpenEnv(loaded, judge=shared_judge, full_grades=full_grades)


def create_app(tasks: str | Path | None = None, *, judge: JudgeConfig | None = None, full_grades: bool = False,
               max_concurrent_envs: int = 64) -> Any:
    """OpenEnv's FastAPI app over the tasks (``uvicorn.run(create_app("tasks/"))``)."""
    return openenv_app(environment_factory(tasks, judge=judge, full_grades=full_grades), OfficeAction,
                       OfficeObservation, env_name="officesim", max_concurrent_envs=max_concurrent_envs)
