"""TRL adapter: an ``environment_factory`` class per task, with only that task's tools, and the reward.

TRL's ``GRPOTrainer(environment_factory=...)`` builds one environment per rollout, calls its
``reset(**row)`` with the dataset row, offers its public methods to the model as tools (their
schemas read by transformers' ``get_json_schema`` from type hints and Google docstrings) and,
when the class has ``get_reward()``, scores the rollout with it.  ``environment_class(task)``
builds such a class for one task: one method per allowed tool plus ``submit``, each a real
function with a typed signature and an ``Args:`` docstring derived from the registry (model
parameters appear as ``dict`` / ``list[dict]``, which transformers reads as JSON objects),
so a prompt carries a dozen tools instead of all of them.

* ``environment_factories(tasks)``: ``{task_id: class}``, for TRL's dict form (each dataset row
  names its ``environment``, so every example gets only its task's tools);
* ``dataset_rows(tasks)``: rows with ``prompt`` (chat messages) and ``environment``;
* ``get_reward()`` is the grade's score (an episode the model did not submit is graded as it
  stands); ``reward_function`` is the same as a TRL reward function over ``environments``.

TRL itself needs torch; the tests check this contract with transformers' real ``get_json_schema``
and TRL's documented discovery rules, without torch.
"""

from __future__ import annotations

import inspect
import json
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from officesim.env import OfficeEnv
from officesim.grading.judge import JudgeConfig, make_judge
from officesim.integrations.dataset import DEFAULT_SYSTEM_PROMPT, task_record
from officesim.task import Task, load_task

_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict,
                               "array": list}


def _python_type(schema: dict[str, Any]) -> Any:
    """The annotation transformers turns back into ``schema`` (objects as plain ``dict``)."""
    kinds = schema.get("type")
    if kinds is None and "anyOf" in schema:
        members = [_python_type(s) for s in schema["anyOf"] if s.get("type") != "null"]
        annotation = members[0]
        for member in members[1:]:
            annotation = annotation | member
        return annotation
    names: list[str] = [str(k) for k in (kinds if isinstance(kinds, list) else [kinds]) if k != "null"]
    if names == ["array"]:
        return types.GenericAlias(list, (_python_type(schema.get("items", {"type": "string"})),))
    annotation = _JSON_TYPES[names[0]]
    for name in names[1:]:
        annotation = annotation | _JSON_TYPES[name]
    return annotation


class OfficeToolEnv:
    """Base of the per-task classes: one ``OfficeEnv`` episode per ``reset``."""

    task: Task
    judge: Any = None

    def __init__(self) -> None:
        self.env = OfficeEnv(self.task, judge=self.judge)
        self.env.reset(seed=0)

    def reset(self, **row: Any) -> None:
        """Start a fresh episode of this class's task (TRL passes the dataset row; it is not needed)."""
        self.env.reset(seed=row.get("seed"))

    def get_reward(self) -> float:
        """The grade's score; an episode without ``submit`` is graded as it stands."""
        return self.env.finish().score

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.env.done:
            return json.dumps({"error": {"type": "conflict", "message": "the episode is over; no more tools can "
                                         "be called"}})
        obs, *_ = self.env.step({"name": name, "arguments": arguments})
        return json.dumps(obs["result"], ensure_ascii=False, default=str)


def _method(name: str, description: str, parameters: dict[str, Any]) -> Callable[..., str]:
    """A tool method whose signature and docstring say exactly what the tool's schema says."""
    required = set(parameters.get("required", []))
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    lines = [description.strip(), "", "Args:"]
    for key, prop in parameters["properties"].items():
        annotation = _python_type(prop)
        default = inspect.Parameter.empty if key in required else None
        if default is None:
            annotation = annotation | None
        params.append(inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
        annotations[key] = annotation
        lines.append(f"    {key}: {' '.join(prop.get('description', key).split())}")
    if len(lines) == 3:
        lines = lines[:1]
    lines += ["", "Returns:", "    The tool's JSON result (an error object when the call was wrong)."]
    annotations["return"] = str

    def call(self: OfficeToolEnv, **arguments: Any) -> str:
        return self._call(name, {k: v for k, v in arguments.items() if v is not None or k in required})

    call.__name__ = call.__qualname__ = name
    call.__doc__ = "\n".join(lines)
    call.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    call.__annotations__ = annotations
    return call


def environment_class(task: Task | str | Path, *, judge: JudgeConfig | None = None) -> type[OfficeToolEnv]:
    """A TRL environment class for one task: its tools and ``submit`` as methods, ``get_reward``."""
    loaded = task if isinstance(task, Task) else load_task(task)
    methods: dict[str, Any] = {}
    for entry in loaded.tools_json("openai", "relaxed"):
        function = entry["function"]
        methods[function["name"]] = _method(function["name"], function["description"], function["parameters"])
    name = "Office_" + loaded.id.replace("-", "_")
    return type(name, (OfficeToolEnv,), {**methods, "task": loaded, "judge": make_judge(judge),
                                         "__doc__": f"officesim task {loaded.id}: {loaded.instruction.strip()}"})


def environment_factories(tasks: Sequence[Task | str | Path], *,
                          judge: JudgeConfig | None = None) -> dict[str, type[OfficeToolEnv]]:
    """``{task_id: class}``: TRL's dict ``environment_factory`` (rows name theirs in ``environment``)."""
    classes = [environment_class(t, judge=judge) for t in tasks]
    return {cls.task.id: cls for cls in classes}


def dataset_rows(tasks: Sequence[Task | str | Path], *,
                 system_prompt: str | None = DEFAULT_SYSTEM_PROMPT) -> list[dict[str, Any]]:
    """One row per task: ``prompt`` (chat messages), ``environment`` (the task id), ``task_id``."""
    loaded = [t if isinstance(t, Task) else load_task(t) for t in tasks]
    return [{"prompt": task_record(t, system_prompt=system_prompt)["prompt"], "environment": t.id, "task_id": t.id}
            for t in loaded]


def reward_function(environments: Sequence[OfficeToolEnv], **_columns: Any) -> list[float]:
    """A TRL reward function over ``environments``: each rollout's grade (``get_reward`` already is one
    that TRL adds by itself; pass this instead when your environments are wrapped or subclassed)."""
    return [environment.get_reward() for environment in environments]

