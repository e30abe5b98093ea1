"""inspect_ai adapter: an ``@task`` over a tasks directory, with each task's own tools and our grade.

``inspect eval officesim/officesim -T tasks=tasks/ -T ids=a,b --model officesim/reference`` (or any
provider; the task is found through the package's ``inspect_ai`` entry point) runs it; so does
``inspect_ai.eval(officesim(...), model=...)``.

* dataset: one ``Sample`` per task folder: the system prompt naming the employee, the instruction,
  the task id and folder in ``metadata`` (nothing from the grader or the solution);
* solver: plays one ``OfficeEnv`` episode per sample with that task's tools plus ``submit`` (as
  inspect ``ToolDef``s with relaxed schemas: inspect, like most clients, omits optional
  arguments).  ``submit`` or the task's step budget ends the episode; a model that stops calling
  tools ends it too, and it is graded as it stands;
* scorer: our grade: ``score`` (in [0, 1]) and ``passed`` (1/0), with every gate and criterion and
  its reason in the explanation and the whole grade in ``metadata``.

``--model officesim/reference`` is a scripted model that plays each task's reference solution
through inspect's own model and tool loop (offline, no tokenizer download): reference solutions
score 1.0 through the adapter.  ``mockllm/model`` works from Python with ``custom_outputs`` (see
``reference_outputs``); from the command line its default output needs tiktoken's
``o200k_base`` file for token counts, which inspect downloads unless it is in
``$TIKTOKEN_CACHE_DIR``.

Needs ``pip install 'officesim[inspect]'``; the ``officesim`` model provider is registered
through the package's ``inspect_ai`` entry point.  Model input and episodes are those of every other
path: the same registry, ``dispatch`` and grader.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from officesim.env import OfficeEnv
from officesim.grading.judge import JudgeConfig, make_judge
from officesim.integrations.dataset import DEFAULT_SYSTEM_PROMPT, task_record
from officesim.pipeline.split import split_by_group
from officesim.resources import tasks_dir
from officesim.task import Task, find_tasks, load_task

try:
    from inspect_ai import Task as InspectTask
    from inspect_ai import task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
    from inspect_ai.scorer import Score, Target, mean, scorer, stderr
    from inspect_ai.solver import Generate, Solver, TaskState, solver
    from inspect_ai.tool import ToolChoice, ToolDef, ToolInfo, ToolParams
    from inspect_ai.util import store
except ImportError as exc:  # the core never needs inspect_ai; this adapter does
    raise ImportError("officesim.integrations.inspect needs inspect_ai: pip install 'officesim[inspect]'") from exc

SPLITS = ("all", "train", "heldout")
TASK_DIR_KEY = "officesim_task_dir"


def load_library(tasks: str | Path | None = None, *, ids: list[str] | None = None, split: str = "all",
                 heldout: float = 0.2, split_seed: int = 0) -> list[Task]:
    """The tasks to evaluate: a tasks directory (default ``$OFFICESIM_TASKS``, ``./tasks``, packaged).

    Args:
        tasks: a task folder or a directory of them.
        ids: only these task ids.
        split: ``all``, or the ``train``/``heldout`` side of the delivery's group-aware split.
        heldout: the held-out share of groups (as ``officesim deliver``).
        split_seed: the split seed.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    root = Path(tasks) if tasks is not None and (Path(tasks) / "task.yaml").is_file() else tasks_dir(tasks)
    loaded = [load_task(path) for path in find_tasks([root])]
    if ids is not None:
        wanted = set(ids)
        unknown = wanted - {t.id for t in loaded}
        if unknown:
            raise ValueError(f"no tasks {', '.join(sorted(unknown))} in {root}")
        loaded = [t for t in loaded if t.id in wanted]
    if split != "all":
        sides = split_by_group({t.id: t.group for t in loaded}, heldout, split_seed)
        keep = set(sides.train if split == "train" else sides.heldout)
        loaded = [t for t in loaded if t.id in keep]
    return loaded


def sample(task_: Task, system_prompt: str | None = DEFAULT_SYSTEM_PROMPT) -> Sample:
    """One task as an inspect ``Sample`` (prompt messages; id and folder in metadata)."""
    record = task_record(task_, system_prompt=system_prompt)
    return Sample(input=record["prompt"], id=task_.id, metadata={
        "task_dir": record["task_dir"], "category": task_.category, "difficulty": task_.difficulty,
        "family": task_.family, "group": task_.group, "max_steps": task_.max_steps})


def tool_defs(env: OfficeEnv, state: TaskState) -> list[ToolDef]:
    """The episode's tools as inspect ``ToolDef``s; each call is one ``env.step``.

    The episode ending (``submit`` or the step budget) marks the sample completed, so inspect's
    generate loop stops there.
    """
    defs = []
    for entry in env.task.tools_json("openai", "relaxed"):
        function = entry["function"]
        defs.append(ToolDef(_stepper(env, state, function["name"]), name=function["name"],
                            description=function["description"],
                            parameters=ToolParams.model_validate(function["parameters"])))
    return defs


def _stepper(env: OfficeEnv, state: TaskState, name: str) -> Any:
    async def execute(**arguments: Any) -> str:
        obs, *_ = env.step({"name": name, "arguments": arguments})
        if env.done:
            state.completed = True
        return json.dumps(obs["result"], ensure_ascii=False, default=str)

    return execute


Episodes = dict[tuple[str, int], OfficeEnv]


def _key(state: TaskState) -> tuple[str, int]:
    return str(state.sample_id), state.epoch


@solver
def office_agent(episodes: Episodes, judge: JudgeConfig | None = None) -> Solver:
    """Play the sample's task: its tools in inspect's tool loop, one ``OfficeEnv`` episode.

    Args:
        episodes: where the solver leaves each sample's episode for ``office_grade`` (one per task).
        judge: the judge for judge criteria (``None``: unjudged).
    """
    shared_judge = make_judge(judge)
    loaded: dict[str, Task] = {}

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        folder = state.metadata["task_dir"]
        if folder not in loaded:
            loaded[folder] = load_task(folder)
        env = OfficeEnv(loaded[folder], judge=shared_judge)
        env.reset(seed=state.epoch)
        episodes[_key(state)] = env
        store().set(TASK_DIR_KEY, folder)  # what the officesim/reference model reads
        state.tools = [d.as_tool() for d in tool_defs(env, state)]
        return await generate(state, tool_calls="loop")

    return solve


@scorer(metrics={"score": [mean(), stderr()], "passed": [mean()]})
def office_grade(episodes: Episodes) -> Any:
    """Our grade of the episode: score and passed, every check in the explanation."""

    async def score(state: TaskState, target: Target) -> Score:
        env = episodes.pop(_key(state), None)
        if env is None:
            return Score(value={"score": 0.0, "passed": 0}, explanation="no officesim episode was played")
        grade = env.finish()  # the grade of submit or the step limit, or the episode as it stands
        return Score(value={"score": grade.score, "passed": int(grade.passed)}, answer=env.answer or "",
                     explanation=grade.summary(), metadata={"grade": grade.model_dump(mode="json")})

    return score


@task
def officesim(tasks: str | None = None, ids: str | list[str] | None = None, split: str = "all", heldout: float = 0.2,
              split_seed: int = 0, judge_model: str | None = None, judge_base_url: str | None = None) -> InspectTask:
    """officesim tasks as an inspect task (``-T tasks=DIR -T ids=a,b -T split=heldout``).

    Args:
        tasks: a tasks directory or one task folder (default ``$OFFICESIM_TASKS``, ``./tasks``, packaged).
        ids: task ids to keep (a list, or comma-separated text).
        split: ``all``, ``train`` or ``heldout``.
        heldout: the held-out share of groups.
        split_seed: the split seed.
        judge_model: the judge model for judge criteria (default ``$OFFICESIM_JUDGE_MODEL``).
        judge_base_url: the judge endpoint (default ``$OFFICESIM_JUDGE_BASE_URL``).
    """
    listed = ids.split(",") if isinstance(ids, str) else list(ids or [])
    chosen = [i.strip() for i in listed if i.strip()] or None
    library = load_library(tasks, ids=chosen, split=split, heldout=heldout, split_seed=split_seed)
    overrides = {k: v for k, v in (("model", judge_model), ("base_url", judge_base_url)) if v}
    episodes: Episodes = {}
    return InspectTask(dataset=MemoryDataset([sample(t) for t in library], name="officesim"),
                       solver=office_agent(episodes, JudgeConfig.from_env(**overrides)),
                       scorer=office_grade(episodes),
                       message_limit=max(t.max_steps for t in library) * 2 + 4)


_reference_task = functools.lru_cache(maxsize=64)(load_task)  # tasks the reference model plays, kept loaded


def _reference_step(messages: list[ChatMessage], folder: str) -> ModelOutput:
    """The next call of the task's reference solution, given the conversation so far."""
    task_ = _reference_task(folder)
    if task_.solution is None:
        raise ValueError(f"{folder} has no solution.yaml; the reference model cannot play it")
    steps = [(s.name, s.arguments) for s in task_.solution.steps] + [("submit", {"answer": task_.solution.answer})]
    done = sum(1 for message in messages if message.role == "assistant")
    usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
    if done >= len(steps):
        output = ModelOutput.from_content("officesim/reference", "Done.")
    else:
        name, arguments = steps[done]
        output = ModelOutput.for_tool_call("officesim/reference", name,
                                           {k: v for k, v in arguments.items() if v is not None})
    output.usage = usage
    return output


def reference_outputs(messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                      config: GenerateConfig) -> ModelOutput:
    """``mockllm``'s ``custom_outputs``: play the current sample's reference solution.

    ``get_model("mockllm/model", custom_outputs=reference_outputs)``; optional arguments that
    are null in the solution are left out, as inspect's own models do.
    """
    return _reference_step(messages, store().get(TASK_DIR_KEY))


@modelapi(name="officesim")
def _reference_provider() -> type[ModelAPI]:
    return ReferenceModel


class ReferenceModel(ModelAPI):
    """``officesim/reference``: plays the current sample's reference solution (for checking the plumbing)."""

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        return reference_outputs(input, tools, tool_choice, config)
