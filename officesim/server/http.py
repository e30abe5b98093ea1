"""HTTP adapter: episodes and plain worlds over FastAPI, for remote agents and trainers.

A thin layer over ``OfficeEnv`` and ``World.call``: it resolves names, keeps sessions in memory
and maps the few failures a client can cause to HTTP status codes.  Tool calls, validation,
errors-as-data and grading are exactly those of the in-process path.

Cheap steps, resets and code-only grading run on the event loop; a step that may wait on the
judge (a ``submit`` or the budget's last step, when the grader has judged checks) and any call of
a tool that was slow lately run in a worker thread, where a judge call or a long search stalls no
other session (``officesim.server.scheduling`` says why and how; ``threaded_steps=True`` sends
every step to a thread).  Each session has a lock, so two requests
on one session never interleave; threaded sessions run in parallel (SQLite releases the GIL
while it works).  Loaded tasks are kept in a bounded LRU cache (a task holds its start
state, a few MB); a session keeps its own task alive however the cache moves.

The observation carries the instruction, the user and the tool list on ``POST /sessions`` (and
on request: ``?observation=full`` on a step, or ``GET /tools?task=ID``), never again on each step:
a step answers with the result and the step budget only, about a tenth of the bytes.

Nothing here returns a grader or a solution: by default the final grade is summarised (score,
passed, totals and hashes), because the reasons of individual checks quote expected values.
``create_app(grade_detail="full")`` returns every gate and criterion, for trusted trainers.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import re
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from starlette.types import Receive, Scope, Send

from officesim import __version__
from officesim.env import OfficeEnv
from officesim.errors import OfficesimError
from officesim.grading.judge import Judge, JudgeConfig, make_judge
from officesim.grading.scoring import Grade
from officesim.server.fastpath import FastPath, FastRoute
from officesim.server.scheduling import StepScheduler
from officesim.task import WORLDS_DIR, Task, find_tasks, load_task, world_snapshot
from officesim.toolexport import FORMATS, export_tools
from officesim.world import World

GradeDetail = Literal["summary", "full"]
# What a summarised grade keeps: the verdict and its provenance, never a check's reason or evidence.
GRADE_SUMMARY_FIELDS = ("task_id", "score", "passed", "pass_threshold", "earned", "possible", "unjudged",
                        "errors", "complete", "answer", "task_hash", "grader_hash")
_SUMMARY = frozenset(GRADE_SUMMARY_FIELDS)
UNPROCESSABLE = 422  # spelt differently across Starlette versions
# Freed envs kept for reuse: a new session's first reset then costs a deserialize into a warm
# connection (~50 us on acme) instead of a fresh connection that parses the schema and prepares
# every statement again (~2 ms).  Each holds a world (a few MB on acme).
IDLE_ENVS = 16
MAX_REFS = 4096  # task refs remembered with their folders
WORLD_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
ToolFormat = Literal["openai", "responses", "anthropic", "mcp"]  # officesim.toolexport.FORMATS (a test pins it)
ToolSchema = Literal["strict", "relaxed"]  # officesim.toolexport.SCHEMA_MODES
ObservationDetail = Literal["lean", "full"]
T = TypeVar("T")
# The worker threads of every app in the process (started on demand, as many as anyio's default).
WORKERS = ThreadPoolExecutor(max_workers=40, thread_name_prefix="officesim-http")


async def run_in_threadpool(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` in a worker thread, awaited on the event loop.

    The loop's own executor hand-off: FastAPI's ``run_in_threadpool`` (anyio) does the same with
    a capacity limiter and cancellation scopes around it, several times the cost of a tool call.
    Like anyio's, it is not abandoned when the request is cancelled: a thread cannot be stopped,
    and the session's lock the caller holds must outlive the work on the session's env.
    """
    future = asyncio.get_running_loop().run_in_executor(WORKERS, partial(func, *args, **kwargs))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        while not future.done():
            try:
                await asyncio.wait([future])
            except asyncio.CancelledError:
                continue
        raise


# --------------------------------------------------------------------------- request/response models
class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateSession(_Request):
    """Start an episode of a task."""

    task: str = Field(min_length=1, max_length=1024,
                      description="A task id, or a task folder's path inside the server's tasks directory.")
    seed: int | None = Field(None, description="Recorded in info; the task fixes the world, so it changes nothing.")
    reward: Literal["score", "binary"] = Field("score", description="Final reward: the score, or passed as 1/0.")
    revisions: int = Field(0, ge=0, le=10, description="Revision mode: a submit that does not pass answers with "
                           "what is still wrong (no expected values) and the episode goes on, this many times.")
    revision_discount: float = Field(1.0, gt=0, le=1, description="The final reward's factor per revision used.")


class ToolCall(_Request):
    """One tool call, as a model would send it."""

    name: str = Field(description="The tool name (one of the observation's tools, or submit).")
    arguments: dict[str, Any] | str | None = Field(None, description="A JSON object, or its text.")
    id: str | None = Field(None, description="The call id recorded in the transcript (default call_<step>).")

    def action(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "id": self.id}


class FunctionCall(_Request):
    """The ``function`` of an OpenAI tool call."""

    name: str = Field(description="The tool name.")
    arguments: dict[str, Any] | str | None = Field(None, description="The arguments' JSON text (or an object).")


class OpenAIToolCall(_Request):
    """One tool call exactly as the OpenAI chat API returns it (``message.tool_calls[i]``)."""

    id: str | None = Field(None, description="The call id, recorded in the transcript.")
    type: Literal["function"] = Field("function", description="Always function.")
    function: FunctionCall

    def action(self) -> dict[str, Any]:
        return {"name": self.function.name, "arguments": self.function.arguments, "id": self.id}


class ErrorDetail(BaseModel):
    """What went wrong and how to go on (every 4xx answer)."""

    detail: Any = Field(description="A sentence saying what was wrong and what to do (422: the invalid fields).")


class UserInfo(BaseModel):
    """The employee the agent acts as."""

    id: str
    name: str
    email: str
    title: str


class Observation(BaseModel):
    """What the agent sees at the start: the task, its tools, who it is (and a null result)."""

    instruction: str
    tools: list[dict[str, Any]] = Field(description="OpenAI chat function list: the task's tools plus submit.")
    user: UserInfo
    max_steps: int
    steps_left: int
    result: dict[str, Any] | None = Field(description="The last tool result (errors as data); null after reset.")


class StepObservation(BaseModel):
    """What a step adds to what the agent saw at the start: the result and the step budget."""

    max_steps: int
    steps_left: int
    result: dict[str, Any] | None = Field(description="The tool's result (errors as data).")


class SessionCreated(BaseModel):
    session_id: str
    observation: Observation
    info: dict[str, Any] = Field(description="task_id, task_hash, grader_hash and seed.")


class StepResult(BaseModel):
    observation: StepObservation | Observation = Field(
        description="The result and the step budget; the whole observation with ?observation=full.")
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any] = Field(description="step, tool, error; the final step adds grade.")


class SessionForked(BaseModel):
    """A new session that goes on from where another one stands."""

    session_id: str = Field(description="The new session's id; step, fork and DELETE it like any session.")
    forked_from: str = Field(description="The session it was copied from (which goes on unchanged).")
    steps: int = Field(description="Steps already taken (the same as the original's at the fork).")
    max_steps: int
    steps_left: int
    revisions_left: int = Field(description="Revisions the fork may still use (revision mode; else 0).")


class Transcript(BaseModel):
    session_id: str
    task_id: str
    steps: int
    done: bool
    messages: list[dict[str, Any]] = Field(description="The episode as OpenAI chat messages.")


class TaskList(BaseModel):
    tasks: list[str] = Field(description="Task ids under the server's tasks directory.")


class WorldCallResult(BaseModel):
    world: str
    result: dict[str, Any] = Field(description="The tool's JSON result, or {error: {type, message}}.")
    error: bool


# --------------------------------------------------------------------------- state owned by one app
@dataclass
class Session:
    """One episode and the lock that keeps its requests in order."""

    id: str
    env: OfficeEnv
    last_used: float = 0.0  # the server's monotonic clock, for idle expiry
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class _PlainWorld:
    snapshot: bytes
    world: World
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class ServerState:
    """Sessions, loaded tasks and plain worlds of one app instance (never shared between apps)."""

    def __init__(self, tasks_dir: Path, worlds_dir: Path, *, judge: Judge | JudgeConfig | None,
                 max_sessions: int, grade_detail: GradeDetail, session_ttl: float | None = None,
                 clock: Callable[[], float] = time.monotonic, task_cache: int = 64,
                 threaded_steps: bool = False) -> None:
        self.tasks_dir = tasks_dir.resolve()
        self.worlds_dir = worlds_dir.resolve()
        self.judge = make_judge(judge)  # one judge (and HTTP client) for every session of the app
        self.max_sessions = max_sessions
        self.grade_detail = grade_detail
        self.session_ttl = session_ttl
        self.clock = clock
        self.sessions: dict[str, Session] = {}
        self.task_cache = task_cache
        self._tasks: OrderedDict[Path, Task] = OrderedDict()  # least recently used first
        self._task_locks: dict[Path, asyncio.Lock] = {}
        self._task_index: dict[str, list[Path]] = {}
        self._worlds: dict[str, _PlainWorld] = {}
        self._load_lock = asyncio.Lock()
        self._idle: list[OfficeEnv] = []  # ended episodes' envs, most recently freed last
        self.idle_envs = IDLE_ENVS
        self.scheduler = StepScheduler(threaded=threaded_steps)
        # Each task's tool list (~30 KB) as encoded JSON, encoded once, not on every session's creation.
        self._encoded_tools: weakref.WeakKeyDictionary[Task, bytes] = weakref.WeakKeyDictionary()
        self._dirs: dict[str, Path] = {}  # refs already found, so a session's creation costs no filesystem walk

    # ----------------------------------------------------------------- tasks
    def task_ids(self) -> list[str]:
        self._task_index = _index(self.tasks_dir)
        return sorted(self._task_index)

    def task_dir(self, ref: str) -> Path:
        """The folder of a task given as an id or a path under the tasks directory (never outside it).

        A ref found once is remembered (at most ``MAX_REFS`` of them, since refs come from clients):
        a loaded task is served from the cache until the server restarts anyway.
        """
        found_before = self._dirs.get(ref)
        if found_before is not None:
            return found_before
        directory = self._find_dir(ref)
        if len(self._dirs) >= MAX_REFS:
            self._dirs.clear()
        self._dirs[ref] = directory
        return directory

    def _find_dir(self, ref: str) -> Path:
        try:
            direct = (self.tasks_dir / ref).resolve()
            if direct.is_relative_to(self.tasks_dir) and (direct / "task.yaml").is_file():
                return direct
        except (OSError, ValueError):  # a NUL byte or an over-long name: no such folder, look it up as an id
            pass
        if ref not in self._task_index:
            self._task_index = _index(self.tasks_dir)  # tasks may have been added since
        found = self._task_index.get(ref, [])
        if len(found) > 1:
            paths = ", ".join(str(p.relative_to(self.tasks_dir)) for p in found)
            raise HTTPException(UNPROCESSABLE,
                                f"task id {ref!r} names several folders ({paths}); pass the folder's path")
        if not found:
            close = difflib.get_close_matches(ref, list(self._task_index), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else " GET /tasks lists them."
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no task {ref!r} in the server's tasks directory.{hint}")
        return found[0]

    async def task(self, ref: str) -> Task:
        """A loaded task with its start state built (the build runs in a thread, once per cache stay).

        Only requests for the same task wait for its build; the cache keeps the ``task_cache``
        most recently used tasks.
        """
        directory = self.task_dir(ref)
        found = self._tasks.get(directory)
        if found is None:
            lock = self._task_locks.setdefault(directory, asyncio.Lock())
            async with lock:
                found = self._tasks.get(directory)
                if found is None:
                    try:
                        found = await run_in_threadpool(_prepare_task, directory)
                    except OfficesimError as exc:  # a bad file, a setup step that fails, an unknown person
                        raise HTTPException(UNPROCESSABLE, f"task {ref!r} is broken: {exc}") from exc
                    finally:
                        self._task_locks.pop(directory, None)
                    self._tasks[directory] = found
        self._tasks.move_to_end(directory)
        while len(self._tasks) > self.task_cache:
            _, dropped = self._tasks.popitem(last=False)
            self._idle = [env for env in self._idle if env.task is not dropped]
        return found

    # ----------------------------------------------------------------- envs
    def env(self, task: Task) -> OfficeEnv:
        """An env for a new episode of ``task``: a freed one of the task when there is one, else a new
        env on the oldest freed env's world.  Either way the first reset rolls a warm connection
        (SQLite's parsed schema and Python's prepared statements) to the task's start in place:
        every world has the same schema, and a fresh connection would cost ~2 ms more."""
        for index in range(len(self._idle) - 1, -1, -1):
            if self._idle[index].task is task:
                return self._idle.pop(index)
        env = OfficeEnv(task, judge=self.judge)
        if self._idle:
            env.world = self._idle.pop(0).world  # reset() rolls it to this task's start in place
        return env

    def free(self, env: OfficeEnv) -> None:
        """Keep an ended session's env for the next episode of its task (the oldest beyond
        ``idle_envs`` are dropped)."""
        self._idle.append(env)
        del self._idle[:-self.idle_envs]

    # ----------------------------------------------------------------- sessions
    def session(self, session_id: str) -> Session:
        found = self.sessions.get(session_id)
        if found is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND,
                                f"no session {session_id!r}: it was never created, was deleted, or expired after "
                                f"{self.session_ttl or 0:g}s idle; start one with POST /sessions")
        found.last_used = self.clock()
        return found

    def make_room(self) -> None:
        """Drop sessions idle for longer than ``session_ttl``; 429 when ``max_sessions`` are still open."""
        now = self.clock()
        if self.session_ttl is not None:
            for stale in [sid for sid, s in self.sessions.items()
                          if now - s.last_used > self.session_ttl and not s.lock.locked()]:
                del self.sessions[stale]
        if len(self.sessions) >= self.max_sessions:
            raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS,
                                f"{len(self.sessions)} sessions are open (the limit); DELETE finished ones first")

    def add_session(self, env: OfficeEnv) -> Session:
        """Register a new episode, first dropping sessions idle for longer than ``session_ttl``.

        Trainers crash and clients forget to DELETE; without expiry their worlds would hold
        memory and count against ``max_sessions`` forever.
        """
        self.make_room()
        session = Session(secrets.token_hex(16), env, last_used=self.clock())
        self.sessions[session.id] = session
        return session

    def encoded_tools(self, task: Task) -> bytes:
        """``task.tools_json()`` as JSON, encoded once per loaded task."""
        encoded = self._encoded_tools.get(task)
        if encoded is None:
            encoded = self._encoded_tools[task] = _encode(task.tools_json())
        return encoded

    def grade_view(self, grade: Grade) -> dict[str, Any]:
        if self.grade_detail == "full":
            return grade.model_dump(mode="json")
        return grade.model_dump(mode="json", include=set(_SUMMARY))  # not every check's reason and evidence

    # ----------------------------------------------------------------- plain worlds
    async def world(self, name: str) -> _PlainWorld:
        """The app's copy of a world spec in the worlds directory (generated once, in a thread)."""
        path = self.worlds_dir / f"{name}.yaml"
        if not WORLD_NAME.match(name) or not path.is_file():
            known = ", ".join(sorted(p.stem for p in self.worlds_dir.glob("*.yaml"))) or "none"
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no world spec {name!r} (known: {known})")
        async with self._load_lock:
            if name not in self._worlds:
                snapshot = await run_in_threadpool(world_snapshot, path)
                self._worlds[name] = _PlainWorld(snapshot, World.restore(snapshot))
            return self._worlds[name]


def _index(root: Path) -> dict[str, list[Path]]:
    index: dict[str, list[Path]] = {}
    for directory in find_tasks([root]):
        index.setdefault(directory.name, []).append(directory.resolve())
    return index


def _prepare_task(directory: Path) -> Task:
    task = load_task(directory)
    task.start_snapshot()
    task.start_world()
    task.user_info()
    task.tools_json()
    return task


def _timed(func: Callable[..., T], /, *args: Any) -> tuple[T, float]:
    """``func(*args)`` and the seconds it took (where it ran: queueing for a thread is not the call's cost)."""
    started = time.perf_counter()
    result = func(*args)
    return result, time.perf_counter() - started


def _encode_object(members: dict[str, bytes]) -> bytes:
    """A JSON object from its members' names and their values already encoded (as ``_encode`` would)."""
    return b"{" + b",".join(_encode(name) + b":" + value for name, value in members.items()) + b"}"


def _encode(content: Any) -> bytes:
    """A JSON body encoded once, as it is: what ``OfficeEnv`` returns is plain JSON data already,
    so validating it again against the response model (as FastAPI does for returned objects) would
    only cost time on every step.  The route's ``response_model`` still documents it."""
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")


def _lean(obs: dict[str, Any]) -> dict[str, Any]:
    return {"max_steps": obs["max_steps"], "steps_left": obs["steps_left"], "result": obs["result"]}


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for the 4xx codes a route can answer, each with what it means."""
    meaning = {
        404: "No such task, session or world (the detail says which, and how to list them).",
        409: "The session's episode is over: read its transcript, then DELETE it.",
        422: "The request is invalid (the detail names the fields), or the task folder is broken.",
        429: "Too many open sessions: DELETE finished ones (idle ones expire after the session TTL).",
    }
    return {code: {"model": ErrorDetail, "description": meaning[code]} for code in codes}


async def _state(request: Request) -> ServerState:
    # async: a plain ``def`` dependency would cost a thread hand-off on every request.
    return request.app.state.officesim


State = Annotated[ServerState, Depends(_state)]
router = APIRouter()


# --------------------------------------------------------------------------- routes
@router.get("/tools", tags=["tools"], responses=_errors(404, 422))
async def list_tools(
    state: State,
    task: str | None = None,
    format: Annotated[ToolFormat, Query(description="The list's shape: " + ", ".join(FORMATS) + ".")] = "openai",
    schema: Annotated[ToolSchema | None, Query(
        description="strict (every property required, optional ones nullable: OpenAI strict mode) or relaxed "
        "(optional properties not required); default: the format's own (strict for openai and responses, "
        "relaxed for anthropic and mcp).")] = None,
) -> list[dict[str, Any]]:
    """Every registered tool, or a task's tools plus submit, in any export format and schema mode."""
    if task is None:
        return export_tools(None, format, schema)
    return (await state.task(task)).tools_json(format, schema)


@router.get("/tasks", tags=["tasks"])
async def list_tasks(state: State) -> TaskList:
    """The ids of the tasks this server can run (metadata, graders and solutions stay here)."""
    return TaskList(tasks=state.task_ids())


@router.post("/sessions", status_code=status.HTTP_201_CREATED, tags=["sessions"], responses=_errors(404, 422, 429),
             response_model=SessionCreated)
async def create_session(body: CreateSession, state: State) -> Response:
    """Start an episode: the task's start state, restored for this session alone."""
    return Response(await open_session(state, body), status_code=status.HTTP_201_CREATED,
                    media_type="application/json")


async def open_session(state: ServerState, body: CreateSession) -> bytes:
    """A new session, as the JSON body of ``POST /sessions`` (its route and the fast path)."""
    task = await state.task(body.task)
    env = state.env(task)
    options = {"reward": body.reward, "revisions": body.revisions, "revision_discount": body.revision_discount}
    if state.scheduler.threaded:
        obs, info = await run_in_threadpool(env.reset, seed=body.seed, options=options)
    else:  # a restore of the task's start: bounded by the task, not by anything a client sends
        obs, info = env.reset(seed=body.seed, options=options)
    try:
        session = state.add_session(env)
    except HTTPException:
        state.free(env)
        raise
    # The observation is the env's, encoded as it is (not validated again); the tool list (~30 KB,
    # most of the body) is the task's, encoded once for every session of the task.
    tools = obs["tools"]
    observation = _encode_object({key: state.encoded_tools(task) if key == "tools" and tools is task.tools_json()
                                  else _encode(value) for key, value in obs.items()})
    return _encode_object({"session_id": _encode(session.id), "observation": observation, "info": _encode(info)})


@router.post("/sessions/{session_id}/step", tags=["sessions"], responses=_errors(404, 409, 422),
             response_model=StepResult)
async def step(
    session_id: str,
    body: ToolCall | OpenAIToolCall,
    request: Request,
    observation: Annotated[ObservationDetail, Query(
        description="lean: the result and the step budget (the instruction, user and tools came with the "
        "session); full: the whole observation, tools included.")] = "lean",
) -> Response:
    """Run one tool call (or submit); a bad call comes back as an error result and costs a step.

    The body is ``{name, arguments, id}`` or an OpenAI tool call ``{id, type, function: {name,
    arguments}}`` as the chat API returns it.
    """
    state: ServerState = request.app.state.officesim  # not a dependency: this is the hot path
    return Response(await run_step(state, session_id, body.action(), observation), media_type="application/json")


async def run_step(state: ServerState, session_id: str, action: dict[str, Any],
                   observation: ObservationDetail = "lean") -> bytes:
    """One step of a session, as the JSON body of ``POST /sessions/{id}/step`` (its route and the fast path)."""
    session = state.session(session_id)
    async with session.lock:
        env = session.env
        if env.done:
            raise HTTPException(status.HTTP_409_CONFLICT,
                                f"session {session_id!r} is over (it ended after {env.steps} steps, at submit or "
                                f"max_steps); read GET /sessions/{session_id}/transcript, then DELETE it")
        tool = str(action["name"])
        if state.scheduler.inline(tool, waits=env.may_ask_judge(tool)):
            (obs, reward, terminated, truncated, info), seconds = _timed(env.step, action)
        else:  # off the event loop: a slow call or a judge's answer must not stall other sessions
            (obs, reward, terminated, truncated, info), seconds = await run_in_threadpool(_timed, env.step, action)
        state.scheduler.observe(tool, seconds)
    views: dict[int, dict[str, Any]] = {}  # the final grade is also the last attempt's: viewed once

    def view(grade: Grade) -> dict[str, Any]:
        if id(grade) not in views:
            views[id(grade)] = state.grade_view(grade)
        return views[id(grade)]

    if "grade" in info:
        info = {**info, "grade": view(info["grade"])}
    if "attempts" in info:  # revision mode: every submit's grade, summarised like the final one
        info = {**info, "attempts": [view(g) for g in info["attempts"]]}
    if "revision" in info:
        info = {**info, "revision": {**info["revision"], "grade": view(info["revision"]["grade"])}}
    shown = obs if observation == "full" else _lean(obs)
    return _encode({"observation": shown, "reward": reward, "terminated": terminated, "truncated": truncated,
                    "info": info})


@router.post("/sessions/{session_id}/fork", status_code=status.HTTP_201_CREATED, tags=["sessions"],
             responses=_errors(404, 409, 429))
async def fork_session(session_id: str, state: State) -> SessionForked:
    """Branch an episode: a new, independent session at the current step (world, clock, colleagues,
    transcript, steps and revisions left), for branching rollouts and tree search.

    Stepping either session leaves the other as it was; each is deleted on its own.
    """
    session = state.session(session_id)
    async with session.lock:  # never while one of its steps runs in a thread
        if session.env.done:
            raise HTTPException(status.HTTP_409_CONFLICT,
                                f"session {session_id!r} is over, so there is nothing to branch from; start a new "
                                "session with POST /sessions")
        state.make_room()  # before copying a world that would only be thrown away
        env = await run_in_threadpool(session.env.fork)  # a snapshot and a restore: off the event loop
    twin = state.add_session(env)
    task = env.task
    return SessionForked(session_id=twin.id, forked_from=session.id, steps=env.steps, max_steps=task.max_steps,
                         steps_left=task.max_steps - env.steps, revisions_left=env.revisions_left)


@router.get("/sessions/{session_id}/transcript", tags=["sessions"], responses=_errors(404))
async def transcript(session_id: str, state: State) -> Transcript:
    """The episode so far as OpenAI chat messages (instruction, tool calls, tool results)."""
    session = state.session(session_id)
    async with session.lock:  # not while a step that ends the episode is being graded in a thread
        env = session.env
        return Transcript(session_id=session.id, task_id=env.task.id, steps=env.steps, done=env.done,
                          messages=list(env.transcript))


@router.delete("/sessions/{session_id}", status_code=status.HTTP_204_NO_CONTENT, tags=["sessions"],
               responses=_errors(404))
async def delete_session(session_id: str, state: State) -> None:
    """Forget a session; its world is reset for a later session of the same task, or freed."""
    await end_session(state, session_id)


async def end_session(state: ServerState, session_id: str) -> None:
    """Forget a session and keep its env for reuse (``DELETE /sessions/{id}``: its route and the fast path)."""
    session = state.session(session_id)
    async with session.lock:  # never while one of its steps runs in a thread
        if state.sessions.pop(session_id, None) is not None:
            state.free(session.env)


@router.post("/worlds/{name}/call", tags=["worlds"], responses=_errors(404, 422))
async def world_call(name: str, body: ToolCall | OpenAIToolCall, state: State) -> WorldCallResult:
    """Run any tool on the server's copy of a plain world (a sandbox without task or grading)."""
    plain = await state.world(name)
    action = body.action()
    tool = str(action["name"])
    async with plain.lock:
        if state.scheduler.inline(tool, waits=False):
            result, seconds = _timed(plain.world.call, tool, action["arguments"])
        else:
            result, seconds = await run_in_threadpool(_timed, plain.world.call, tool, action["arguments"])
        state.scheduler.observe(tool, seconds)
    return WorldCallResult(world=name, result=result, error="error" in result)


@router.delete("/worlds/{name}", status_code=status.HTTP_204_NO_CONTENT, tags=["worlds"], responses=_errors(404))
async def reset_world(name: str, state: State) -> None:
    """Throw away the changes made to a plain world: the next call starts from the generated state."""
    plain = await state.world(name)
    async with plain.lock:
        await run_in_threadpool(plain.world.reset, plain.snapshot)


async def _fast_step(state: ServerState, session_id: str, body: ToolCall | OpenAIToolCall) -> bytes:
    return await run_step(state, session_id, body.action())


async def _fast_delete(state: ServerState, session_id: str) -> None:
    await end_session(state, session_id)


FAST_ROUTES = [
    FastRoute("POST", re.compile(r"/sessions"), open_session, status.HTTP_201_CREATED, TypeAdapter(CreateSession)),
    FastRoute("POST", re.compile(r"/sessions/([^/]+)/step"), _fast_step, status.HTTP_200_OK,
              TypeAdapter(ToolCall | OpenAIToolCall)),
    FastRoute("DELETE", re.compile(r"/sessions/([^/]+)"), _fast_delete, status.HTTP_204_NO_CONTENT),
]


# --------------------------------------------------------------------------- the app
def create_app(
    tasks_dir: str | Path = "tasks",
    worlds_dir: str | Path = WORLDS_DIR,
    *,
    judge: Judge | JudgeConfig | None = None,
    max_sessions: int = 256,
    grade_detail: GradeDetail = "summary",
    session_ttl: float | None = 3600.0,
    clock: Callable[[], float] = time.monotonic,
    task_cache: int = 64,
    threaded_steps: bool = False,
) -> FastAPI:
    """A FastAPI app serving the tasks under ``tasks_dir`` and the world specs in ``worlds_dir``.

    Each app owns its sessions, task cache and worlds, so two apps in one process share nothing.

    Args:
        tasks_dir: the task library; sessions name a task by id or by a path inside it.
        worlds_dir: the world specs ``POST /worlds/{name}/call`` may use (``name.yaml``).
        judge: the LLM judge for judge criteria; ``None`` leaves them unjudged.
        max_sessions: open sessions allowed at once (each holds a world in memory).
        grade_detail: ``summary`` (score, passed, totals, hashes) or ``full`` (every check with
            its reason and evidence, which quote expected values: for trusted trainers only).
        session_ttl: seconds a session may sit idle before a new session may evict it (``None``:
            never).
        clock: the monotonic clock used for idle times (tests pass a fake one).
        task_cache: loaded tasks kept (least recently used dropped first); each holds its start
            state, a few MB on acme.
        threaded_steps: run every step and reset in a worker thread, never on the event loop
            (default: cheap ones on the loop, see ``officesim.server.scheduling``).
    """
    tasks_path, worlds_path = Path(tasks_dir), Path(worlds_dir)
    for label, path in (("tasks", tasks_path), ("worlds", worlds_path)):
        if not path.is_dir():
            raise OfficesimError(f"the {label} directory {path} does not exist")
    if max_sessions < 1:
        raise OfficesimError("max_sessions must be at least 1")
    if task_cache < 1:
        raise OfficesimError("task_cache must be at least 1")
    app = OfficesimAPI(
        title="officesim",
        version=__version__,
        description="Episodes of officesim tasks and calls on plain worlds. Tool errors are results "
        "({error: {type, message}}), not HTTP errors; graders and solutions never leave the server.",
    )
    app.state.officesim = ServerState(tasks_path, worlds_path, judge=judge, max_sessions=max_sessions,
                                      grade_detail=grade_detail, session_ttl=session_ttl, clock=clock,
                                      task_cache=task_cache, threaded_steps=threaded_steps)
    app.include_router(router)
    # An episode's requests skip FastAPI's middleware and routing (see officesim.server.fastpath).
    app.fast_path = FastPath(app.serve_routed, routes=FAST_ROUTES, state=app.state.officesim)
    return app


class OfficesimAPI(FastAPI):
    """FastAPI, with an episode's well-formed requests answered before its middleware stack.

    FastAPI's stack (error pages, telemetry hooks, the body limit, the router) costs tens of
    microseconds a request, on every step; the fast path answers those requests with the same
    handlers and models and sends everything else through the whole stack (``serve_routed``).
    An exception a fast handler does not turn into an HTTP error reaches the server, which logs
    it and answers 500, as the stack's error middleware would.
    """

    fast_path: FastPath | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.fast_path is None:
            await super().__call__(scope, receive, send)
        else:
            await self.fast_path(scope, receive, send)

    async def serve_routed(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The request through FastAPI's middleware and router, as a plain FastAPI app serves it."""
        await super().__call__(scope, receive, send)
