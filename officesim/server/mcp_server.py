"""MCP adapter: one task's tools (plus ``submit``) or a whole world's, served over stdio.

Built on the official ``mcp`` SDK (the optional ``mcp`` extra, 2.x).  The tool list comes from
``toolexport.as_mcp``; a call goes through ``OfficeEnv.step`` (task mode) or ``World.call``
(world mode), so validation, errors-as-data and grading are those of the in-process path.  A
result is one JSON text block; a result that is ``{"error": ...}`` is flagged ``isError``.

One stdio connection serves one client, so calls run inline on the event loop, in the order they
arrive.  In task mode the server plays one episode: after ``submit`` (or the last allowed step)
it reports the grade through ``on_end`` (the CLI prints it to stderr and can write a record) and
answers every further call with an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from officesim import __version__
from officesim.env import OfficeEnv
from officesim.errors import Conflict
from officesim.grading.judge import Judge, JudgeConfig
from officesim.task import SUBMIT_TOOL, Task
from officesim.toolexport import as_mcp, export_tools
from officesim.tools import registry
from officesim.world import World


class ToolHost(Protocol):
    """What the MCP server serves: a name, instructions for the model, tools and a way to call them."""

    name: str
    instructions: str

    def tools(self) -> list[dict[str, Any]]: ...

    def call(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]: ...


def submit_as_mcp() -> dict[str, Any]:
    """The built-in ``submit`` tool in the MCP ``tools/list`` shape."""
    function = SUBMIT_TOOL["function"]
    return {
        "name": function["name"],
        "title": "submit",
        "description": function["description"],
        "inputSchema": function["parameters"],
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
                        "openWorldHint": False},
    }


def _who(user: dict[str, Any]) -> str:
    return f"You act as {user['name']} <{user['email']}>, {user['title']}."


class TaskHost:
    """One episode of a task: its tools plus ``submit``, through ``OfficeEnv``.

    Args:
        task: the loaded task.
        judge: the LLM judge for judge criteria; ``None`` leaves them unjudged.
        on_end: called once with the env when the episode ends (``env.grade``, ``env.transcript``).
    """

    def __init__(self, task: Task, *, judge: Judge | JudgeConfig | None = None,
                 on_end: Callable[[OfficeEnv], None] | None = None) -> None:
        self.env = OfficeEnv(task, judge=judge)
        self.env.reset(seed=0)
        self.name = f"officesim-{task.id}"
        self.instructions = (f"{task.instruction.strip()}\n\n{_who(task.user_info())} You may make at most "
                             f"{task.max_steps} tool calls; call submit once when you are done.")
        self._tools = [as_mcp(registry()[name]) for name in task.tools] + [submit_as_mcp()]
        self._on_end = on_end

    def tools(self) -> list[dict[str, Any]]:
        return self._tools

    def call(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        if self.env.done:
            return Conflict(f"the episode is over after {self.env.steps} calls (submit was called or the step "
                            "limit reached); no more tools can be called").to_result()
        obs, _, terminated, truncated, _ = self.env.step({"name": name, "arguments": arguments})
        if (terminated or truncated) and self._on_end is not None:
            self._on_end(self.env)
        return obs["result"]


class WorldHost:
    """A plain world: every registered tool, no task, no grading."""

    def __init__(self, world: World, label: str) -> None:
        self.world = world
        self.name = f"officesim-{label}"
        self.instructions = f"An office with mail, drive, chat, CRM and a directory. {_who(world.user)}"
        self._tools = export_tools(fmt="mcp")

    def tools(self) -> list[dict[str, Any]]:
        return self._tools

    def call(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        return self.world.call(name, arguments)


def build_server(host: ToolHost) -> Server:
    """An MCP server whose ``tools/list`` and ``tools/call`` are ``host``'s."""
    tools = types.ListToolsResult.model_validate({"tools": host.tools()})

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return tools

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        result = host.call(params.name, params.arguments)
        return types.CallToolResult.model_validate({
            "content": [{"type": "text", "text": json.dumps(result, ensure_ascii=False, default=str)}],
            "isError": "error" in result,
        })

    return Server(host.name, version=__version__, instructions=host.instructions,
                  on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def serve_stdio(host: ToolHost) -> None:
    """Serve ``host`` over this process's stdin/stdout until the client disconnects."""
    server = build_server(host)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(host: ToolHost) -> None:
    """Blocking entry point for the CLI."""
    anyio.run(serve_stdio, host)
