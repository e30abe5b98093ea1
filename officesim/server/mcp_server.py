"""MCP adapter: one task's tools (plus ``submit``) or a whole world's, over stdio or streamable HTTP.

Built on the official ``mcp`` SDK (the optional ``mcp`` extra, 2.x).  The tool list comes from
``toolexport`` (relaxed schemas by default: MCP clients omit optional arguments); a call goes
through ``OfficeEnv.step`` (task mode) or ``World.call`` (world mode), so validation,
errors-as-data and grading are those of the in-process path.  A result is one JSON text block
plus the same object as ``structuredContent``; a result that is ``{"error": ...}`` is flagged
``isError``.  Clients such as MCP Inspector type every field as text, so a string that spells a
number or boolean where the schema wants one (``"2"``) is converted before validation.

In task mode the server plays one episode (in revision mode, ``revisions=k``, a submit that does not
pass answers with the public descriptions of what is still wrong and the episode goes on, up to k
times; the final result carries the attempts and the discounted reward).  When it ends (``submit``,
the last allowed step, or the client disconnecting without submitting) the grade is computed, returned in the result of
the call that ended it (``{"status": "submitted", "grade": {...}}``: score, passed and totals;
every check with ``full_grades``, which quotes expected values, so only for trusted harnesses)
and reported through ``on_end``; every further call is an error.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, Protocol

import anyio
import mcp.types as types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from officesim import __version__
from officesim.env import OfficeEnv
from officesim.errors import Conflict
from officesim.grading.judge import Judge, JudgeConfig
from officesim.grading.scoring import Grade
from officesim.server.http import GRADE_SUMMARY_FIELDS
from officesim.task import Task
from officesim.toolexport import SchemaMode, export_tools
from officesim.world import World


class ToolHost(Protocol):
    """What the MCP server serves: a name, instructions for the model, tools and a way to call them."""

    name: str
    instructions: str

    def tools(self) -> list[dict[str, Any]]: ...

    def call(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]: ...

    def close(self) -> None: ...


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
                 on_end: Callable[[OfficeEnv], None] | None = None, full_grades: bool = False,
                 schema: SchemaMode = "relaxed", revisions: int = 0, revision_discount: float = 1.0) -> None:
        self.env = OfficeEnv(task, judge=judge)
        self.env.reset(seed=0, options={"revisions": revisions, "revision_discount": revision_discount})
        self.name = f"officesim-{task.id}"
        again = (f" A submit that does not pass is answered with what is still wrong, and you may keep working "
                 f"and submit again (up to {revisions} times)." if revisions
                 else " Call submit once when you are done.")
        self.instructions = (f"{task.instruction.strip()}\n\n{_who(task.user_info())} You may make at most "
                             f"{task.max_steps} tool calls.{again}")
        self._tools = task.tools_json("mcp", schema)
        self._on_end = on_end
        self._full_grades = full_grades

    def tools(self) -> list[dict[str, Any]]:
        return self._tools

    def grade_view(self, grade: Grade) -> dict[str, Any]:
        """What crosses the protocol: the summary, or every check when ``full_grades``."""
        data = grade.model_dump(mode="json")
        return data if self._full_grades else {key: data[key] for key in GRADE_SUMMARY_FIELDS}

    def call(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        if self.env.done:
            return Conflict(f"the episode is over after {self.env.steps} calls (submit was called or the step "
                            "limit reached); no more tools can be called").to_result()
        obs, reward, terminated, truncated, info = self.env.step({"name": name, "arguments": arguments})
        if not (terminated or truncated):
            return obs["result"]  # in revision mode, a submit that did not pass: what is still wrong
        self._ended()
        ending = {"status": "submitted"} if terminated else {
            **obs["result"], "status": "step_limit",
            "message": f"that was the last of {self.env.task.max_steps} allowed calls; the episode is graded"}
        return {**ending, "grade": self.grade_view(info["grade"]), "attempts": len(info.get("attempts", [])) or 1,
                "reward": reward}

    def close(self) -> None:
        """The client went away: an episode it did not finish is graded as it stands (answer ``None``)."""
        if not self.env.done:
            self.env.finish()
            self._ended()

    def _ended(self) -> None:
        if self._on_end is not None:
            self._on_end(self.env)


class WorldHost:
    """A plain world: every registered tool, no task, no grading."""

    def __init__(self, world: World, label: str, *, schema: SchemaMode = "relaxed") -> None:
        self.world = world
        self.name = f"officesim-{label}"
        self.instructions = f"An office with mail, drive, chat, CRM and a directory. {_who(world.user)}"
        self._tools = export_tools(fmt="mcp", schema=schema)

    def tools(self) -> list[dict[str, Any]]:
        return self._tools

    def call(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        return self.world.call(name, arguments)

    def close(self) -> None:
        """Nothing to grade in a plain world."""


def _coerce(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` converted when it is text spelling the number or boolean ``schema`` asks for."""
    kinds = schema.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    if isinstance(value, list) and "array" in kinds and isinstance(schema.get("items"), dict):
        return [_coerce(item, schema["items"]) for item in value]
    if not isinstance(value, str) or "string" in kinds:
        return value
    text = value.strip()
    if "boolean" in kinds and text.lower() in {"true", "false"}:
        return text.lower() == "true"
    try:
        if "integer" in kinds:
            return int(text)
    except ValueError:
        pass
    try:
        if "number" in kinds and math.isfinite(float(text)):
            return float(text)
    except ValueError:
        pass
    return value


def coerce_arguments(arguments: dict[str, Any] | None, schema: dict[str, Any]) -> dict[str, Any] | None:
    """Top-level arguments (and list items) given as text where the schema wants numbers or booleans."""
    if not isinstance(arguments, dict):
        return arguments
    properties = schema.get("properties", {})
    return {key: _coerce(value, properties[key]) if key in properties else value for key, value in arguments.items()}


def build_server(host: ToolHost) -> Server:
    """An MCP server whose ``tools/list`` and ``tools/call`` are ``host``'s."""
    tools = types.ListToolsResult.model_validate({"tools": host.tools()})
    schemas = {tool["name"]: tool["inputSchema"] for tool in host.tools()}

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return tools

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = coerce_arguments(params.arguments, schemas.get(params.name, {}))
        result = host.call(params.name, arguments)
        return types.CallToolResult.model_validate({
            "content": [{"type": "text", "text": json.dumps(result, ensure_ascii=False, default=str)}],
            "structuredContent": json.loads(json.dumps(result, default=str)),
            "isError": "error" in result,
        })

    return Server(host.name, version=__version__, instructions=host.instructions,
                  on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def serve_stdio(host: ToolHost) -> None:
    """Serve ``host`` over this process's stdin/stdout until the client disconnects, then close it."""
    server = build_server(host)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        host.close()


def run_stdio(host: ToolHost) -> None:
    """Blocking entry point for the CLI."""
    anyio.run(serve_stdio, host)


def run_http(host: ToolHost, *, host_name: str = "127.0.0.1", port: int = 8001) -> None:
    """Serve ``host`` over streamable HTTP at ``http://HOST:PORT/mcp`` until stopped, then close it.

    Over HTTP one server still plays one episode: it ends at ``submit``, at the step limit, or
    when the server stops (an unfinished episode is graded then).
    """
    app = build_server(host).streamable_http_app(host=host_name)
    try:
        uvicorn.run(app, host=host_name, port=port, log_level="warning")
    finally:
        host.close()
