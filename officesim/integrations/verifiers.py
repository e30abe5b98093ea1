"""verifiers adapter (the v1 API): officesim tasks as a ``Taskset``, their tools as an MCP ``Toolset``.

verifiers 0.4 keeps only ``verifiers.v1``: a *taskset* yields typed tasks, a task names the tool
servers (*toolsets*) its rollout needs, a *harness* program plays the model against them, and the
task's ``@vf.reward`` methods score the finished trace.  This module maps officesim onto that:

- ``OfficesimTaskset`` yields one ``OfficesimTask`` per task folder (a directory, a delivery's
  ``tasks/``, or ids in the packaged library).  The prompt is the instruction with the employee the
  model acts as and the call budget; nothing from the grader or the solution is in the task data.
- ``OfficesimToolset`` is a per-rollout MCP server holding one ``OfficeEnv`` episode: it lists
  exactly that task's tools plus ``submit`` (relaxed schemas by default, as MCP clients omit
  optional arguments) and answers every call through ``OfficeEnv.step``, so validation,
  errors-as-data and the step budget are those of the in-process path.
- Each call is also recorded in the rollout's shared state (``OfficesimState.calls``).  The reward
  replays those calls on the task's start state host-side (``officesim.replay``) and grades the
  world they reach: officesim is deterministic, so the replay reaches the same world, and the reward
  never trusts what a tool server or a transcript claims.

The module is importable under the taskset id ``officesim-verifiers`` through the top-level
``officesim_verifiers`` package (verifiers resolves plugin ids to top-level modules), so::

    vf-eval officesim-verifiers --env.taskset.ids '["crm-invoice-total-answer-000"]' ...

runs it, and ``load_environment(...)`` builds the same env in Python.  Install with
``pip install "officesim[verifiers]"``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import verifiers.v1 as vf
from pydantic import Field

from officesim.agents.openai_agent import DEFAULT_SYSTEM_PROMPT, describe_user
from officesim.env import OfficeEnv
from officesim.errors import Conflict, OfficesimError
from officesim.grading.judge import JudgeConfig
from officesim.grading.scoring import Grade
from officesim.replay import replay
from officesim.resources import tasks_dir
from officesim.server.mcp_server import coerce_arguments
from officesim.task import Task, find_tasks, load_task

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["OfficesimConfig", "OfficesimData", "OfficesimState", "OfficesimTask", "OfficesimTaskset",
           "OfficesimToolset", "grade_calls", "load_environment"]

SchemaName = Literal["relaxed", "strict"]


class OfficesimConfig(vf.TasksetConfig):
    """Which officesim tasks the taskset yields."""

    tasks: str | None = None
    """A tasks directory or one task folder (default: ``$OFFICESIM_TASKS``, ``./tasks``, the packaged library)."""
    ids: list[str] = Field(default_factory=list)
    """Only these task ids (default: every task found)."""
    schema_mode: SchemaName = "relaxed"
    """Tool schemas as MCP clients expect them (``relaxed``: optional arguments may be omitted)."""
    reward: Literal["score", "binary"] = "score"
    """``score``: the grade's score in [0, 1]; ``binary``: 1.0 only for a passing grade."""


class OfficesimData(vf.TaskData):
    """What a rollout needs to find its task again, in the tool server and in scoring."""

    task_id: str
    task_dir: str
    max_steps: int
    schema_mode: SchemaName = "relaxed"
    reward: Literal["score", "binary"] = "score"


class OfficesimState(vf.State):
    """The rollout's calls, shared between the tool server and the host (replayed for the reward)."""

    calls: list[dict[str, Any]] = Field(default_factory=list)
    ended: bool = False


def _prompt(task: Task) -> tuple[str, str]:
    """The system prompt (who the model is) and the user prompt (the instruction and the budget)."""
    system = DEFAULT_SYSTEM_PROMPT.replace("{user}", describe_user(task.user_info()))
    user = (f"{task.instruction.strip()}\n\nYou may make at most {task.max_steps} tool calls; call `submit` "
            "once when you are done.")
    return system, user


def grade_calls(data: OfficesimData, calls: list[dict[str, Any]], *, judge: JudgeConfig | None = None) -> Grade:
    """The grade of ``calls`` replayed on the task's start state (an unfinished episode is ended unanswered)."""
    task = load_task(data.task_dir)
    grade, _ = replay(OfficeEnv(task, judge=judge), calls)
    task.release()
    return grade


class OfficesimToolsetConfig(vf.ToolsetConfig):
    """The tool server runs beside the harness in the rollout's runtime (the default, a subprocess)."""


class OfficesimToolset(vf.Toolset[OfficesimToolsetConfig, OfficesimState]):
    """One officesim episode served over MCP: the task's tools plus ``submit``.

    verifiers starts one server per rollout and calls ``setup_task`` with the rollout's task before
    any tool call, so the episode belongs to exactly one rollout.
    """

    TOOL_PREFIX = None  # the model sees officesim's own tool names (mail_search_messages, submit)

    def __init__(self, config: OfficesimToolsetConfig) -> None:
        super().__init__(config)
        self._env: OfficeEnv | None = None
        self._tools: list[dict[str, Any]] = []
        self._schemas: dict[str, dict[str, Any]] = {}

    async def setup_task(self, task: OfficesimData | OfficesimTask) -> None:
        """Start the rollout's episode (verifiers hands over the task's data, fetched from the host)."""
        data = task.data if isinstance(task, OfficesimTask) else task
        loaded = load_task(data.task_dir)
        self._env = OfficeEnv(loaded)
        self._env.reset(seed=0)
        self._tools = loaded.tools_json("mcp", data.schema_mode)
        self._schemas = {tool["name"]: tool.get("inputSchema", {}) for tool in self._tools}

    def register(self, mcp: MCPServer) -> None:
        """Serve the task's exact schemas and officesim's results (errors as data, not exceptions).

        MCPServer derives schemas from Python signatures; officesim's tools already have strict,
        derived JSON Schemas per task, so listing and calling are answered here instead.
        """
        from mcp.types import CallToolResult, TextContent
        from mcp.types import Tool as MCPTool

        async def list_tools() -> list[MCPTool]:
            return [MCPTool.model_validate(tool) for tool in self._tools]

        async def call(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
            return self._call(name, arguments)

        synced_call = self._with_state(call)

        async def call_tool(name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
            result = await synced_call(name, arguments)
            text = json.dumps(result, ensure_ascii=False, default=str)
            return CallToolResult(content=[TextContent(type="text", text=text)],
                                  structured_content=json.loads(text), is_error="error" in result)

        mcp.list_tools = list_tools  # type: ignore[method-assign]
        mcp.call_tool = call_tool  # type: ignore[method-assign]

    def _call(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        env = self._env
        if env is None:
            return Conflict("the officesim episode has not started (no task was set up)").to_result()
        if env.done:
            return Conflict(f"the episode is over after {env.steps} calls (submit was called or the step limit "
                            "reached); no more tools can be called").to_result()
        arguments = coerce_arguments(arguments, self._schemas.get(name, {}))
        call = {"name": name, "arguments": arguments or {}}
        obs, _, terminated, truncated, _ = env.step(call)
        state = self.state
        state.calls.append(call)
        if terminated or truncated:
            state.ended = True
            message = "submitted; the episode is graded" if terminated else (
                f"that was the last of {env.task.max_steps} allowed calls; the episode is graded")
            return {**obs["result"], "status": "submitted" if terminated else "step_limit", "message": message}
        return dict(obs["result"])


class OfficesimTask(vf.Task[OfficesimData, OfficesimState]):
    """One officesim task; its reward is the grade of the calls the rollout made."""

    @classmethod
    def toolsets(cls, config: vf.TaskConfig) -> list[vf.Toolset]:
        return [OfficesimToolset(OfficesimToolsetConfig())]

    @property
    def key(self) -> str:
        return self.data.task_id

    @vf.reward
    async def officesim(self, task: OfficesimData, trace: vf.Trace) -> float:
        """The grade of the replayed calls (verifiers passes the task's data as ``task``)."""
        grade = grade_calls(task, list(trace.state.calls))
        trace.info["officesim_grade"] = {"score": grade.score, "passed": grade.passed,
                                         "status": getattr(grade, "status", None),
                                         "calls": len(trace.state.calls)}
        if task.reward == "binary":
            return 1.0 if grade.passed else 0.0
        return float(grade.score)


class OfficesimTaskset(vf.Taskset[OfficesimTask, OfficesimConfig]):
    """officesim tasks as a verifiers taskset (finite; ``.shuffle()``/``.take()`` views work)."""

    def load(self) -> Iterator[OfficesimTask]:
        config = self.config
        root = Path(config.tasks) if config.tasks else tasks_dir()
        folders = find_tasks([root])
        if config.ids:
            by_id = {folder.name: folder for folder in folders}
            missing = [task_id for task_id in config.ids if task_id not in by_id]
            if missing:
                raise OfficesimError(f"no task {', '.join(map(repr, missing))} under {root}; "
                                     "`officesim tasks list` shows the ids")
            folders = [by_id[task_id] for task_id in config.ids]
        for folder in folders:
            task = load_task(folder)
            system, prompt = _prompt(task)
            data = OfficesimData(id=task.id, name=task.id, description=task.group, prompt=prompt,
                                 system_prompt=system, task_id=task.id, task_dir=str(folder.resolve()),
                                 max_steps=task.max_steps, schema_mode=config.schema_mode, reward=config.reward)
            task.release()
            yield OfficesimTask(data, config.task)


def load_environment(tasks: str | Path | None = None, ids: list[str] | None = None, *,
                     schema_mode: SchemaName = "relaxed", reward: Literal["score", "binary"] = "score",
                     **env_fields: Any) -> vf.Env:
    """A verifiers ``Env`` over officesim tasks (the single-agent env verifiers pairs with a taskset).

    Args:
        tasks: a tasks directory or task folder (default: the packaged library).
        ids: only these task ids.
        schema_mode: ``relaxed`` (default) or ``strict`` tool schemas.
        reward: ``score`` (default) or ``binary``.
        env_fields: further ``SingleAgentEnvConfig`` fields (e.g. ``agent={"harness": {"id": "null"}}``).
    """
    taskset = {"id": "officesim-verifiers", "tasks": str(tasks) if tasks is not None else None,
               "ids": list(ids or []), "schema_mode": schema_mode, "reward": reward}
    config = vf.SingleAgentEnvConfig.model_validate({"taskset": taskset, **env_fields})
    return vf.SingleAgentEnv(config)


if __name__ == "__main__":  # verifiers starts each rollout's tool server as `python -m <this module>`
    OfficesimToolset.run()
