"""Task folders: ``task.yaml``, ``grader.yaml``, ``solution.yaml``, loaded strictly.

A task is the instruction a model sees, the world it works in (spec, seed, setup), the tools it
may call, and the sealed grader and reference solution that it never sees.  Loading validates
everything that can be checked without running an episode (fields, tool names, tables and
columns, rubric names, person-reference syntax) and reports the file and field that is wrong.

Building the start state costs a world generation (~1 s on acme) plus the setup; hundreds of
tasks share a handful of worlds, so generated worlds are memoised per (spec, seed) and each Task
keeps its start snapshot bytes: an episode reset is then one ``deserialize``.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from officesim.colleagues import Colleague, TimedEvent
from officesim.episode_tools import SUBMIT
from officesim.errors import InvalidArgument, OfficesimError, SpecError
from officesim.grading.grader_spec import GraderSpec
from officesim.grading.judge_rubrics import Rubric, load_rubric_file
from officesim.grading.spec_base import CheckBase
from officesim.person_refs import check_ref_syntax, person_id
from officesim.resources import PACKAGED_WORLDS, resolve_task, rubric_path, world_spec_path
from officesim.schema_sql import META_TABLE
from officesim.task_setup import SetupStep, apply_setup, check_table_fields
from officesim.toolexport import WAIT, ExportFormat, SchemaMode, export_tools
from officesim.tools import registry
from officesim.world import World
from officesim.world_spec import WorldSpec, format_validation_error, load_spec

WORLDS_DIR = PACKAGED_WORLDS  # the packaged specs (in a checkout: the top-level worlds/)
TASK_ID = r"^[a-z0-9][a-z0-9-]*$"
SUBMIT_TOOL: dict[str, Any] = export_tools([], submit=True)[0]  # OpenAI strict, as in every tools.json


# The C loader (libyaml) when present: loading ~400 task folders is 5x faster with it.
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A safe loader that keeps dates and timestamps as text (the models parse what needs parsing)."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


def read_yaml(path: Path, text: str | bytes | None = None) -> Any:
    """Parse a YAML file (or ``text``, named ``path`` in errors) with dates kept as strings;
    ``SpecError`` naming the file on failure."""
    try:  # a SafeLoader subclass: no arbitrary objects
        return yaml.load(path.read_bytes() if text is None else text, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise SpecError(f"{path} is not valid YAML: {exc}") from exc


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WorldRef(_Strict):
    """Which world the task runs in."""

    spec: str = Field(description="A spec name in worlds/ (acme, tiny) or a path to a spec YAML.")
    seed: int | None = Field(None, description="The generation seed; default: the spec's own seed.")


class TaskSpec(_Strict):
    """``task.yaml``: what the model is asked, where, with which tools; plus metadata it never sees."""

    id: str = Field(pattern=TASK_ID, description="Unique task id; equals the folder name.")
    instruction: str = Field(min_length=1, description="The only text the model sees about the task.")
    world: WorldRef = Field(description="The world spec and seed.")
    acting_user: str | None = Field(None, description="Who the agent acts as (a person ref); default: the spec's.")
    setup: list[SetupStep] = Field(default_factory=list, description="What happened before the agent arrived.")
    colleagues: list[Colleague] = Field(default_factory=list, max_length=50,
                                        description="Colleagues who answer the agent's mail and DMs, scripted.")
    events: list[TimedEvent] = Field(default_factory=list, max_length=100,
                                     description="Setup steps that run during the episode, on the simulated clock.")
    tools: list[str] = Field(min_length=1, description="The tools the model may call (submit is always added).")
    max_steps: int = Field(ge=1, le=10_000, description="Tool calls allowed, submit included.")
    pass_threshold: float = Field(1.0, ge=0, le=1, description="The score needed to pass (with every gate held).")
    category: str = Field(min_length=1, description="Metadata: one of the library's categories.")
    difficulty: Literal["easy", "medium", "hard"] = Field(description="Metadata: easy, medium or hard.")
    family: str = Field(min_length=1, description="Metadata: the generator family the task comes from.")
    group: str | None = Field(None, description="Metadata: near twins share a group; default: the family.")
    reviewed_by: str | None = Field(None, description="Metadata: who reviewed it (a person or generator@version).")
    traps: list[Annotated[str, Field(min_length=1, max_length=300)]] = Field(
        default_factory=list, max_length=50,
        description="Metadata: what a quick reading gets wrong and the grader catches, one line each.")

    @field_validator("acting_user")
    @classmethod
    def _ref(cls, value: str | None) -> str | None:
        problem = check_ref_syntax(value) if value is not None else None
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("tools")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("tools are listed twice")
        if SUBMIT in value or WAIT in value:
            raise ValueError("submit and wait are built in; do not list them")
        return value


class SolutionStep(_Strict):
    """One tool call of the reference trajectory."""

    name: str = Field(description="The tool name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Its arguments, with literal ids.")


class SolutionSpec(_Strict):
    """``solution.yaml``: the reference trajectory and final answer (never shown to the model)."""

    steps: list[SolutionStep] = Field(default_factory=list, description="Tool calls in order.")
    answer: str | None = Field(None, description="The answer passed to submit, if any.")


def resolve_spec_path(spec: str, base: Path) -> Path:
    """A world spec named in a task: a path (relative to the task folder or cwd) or a name (``acme``).

    A name is looked up beside the task library first (a delivery's ``worlds/``), then in
    ``$OFFICESIM_WORLDS`` and the packaged specs: see ``officesim.resources``.
    """
    return world_spec_path(spec, base)


@functools.lru_cache(maxsize=16)  # a sampler over many worlds and world seeds keeps them warm
def _generated(spec_json: str, seed: int) -> bytes:
    return World.generate(WorldSpec.model_validate_json(spec_json), seed).snapshot()


@functools.lru_cache(maxsize=16)  # a sampler over many worlds and world seeds keeps them warm
def _generated_hash(spec_json: str, seed: int) -> str:
    world = World.restore(_generated(spec_json, seed))
    try:
        return world.state_hash()
    finally:
        world.close()


def world_key(spec: WorldSpec) -> str:
    """A world's short name as task ids, samplers and splits use it: the spec's ``name``, as an id part."""
    return re.sub(r"[^a-z0-9]+", "-", spec.name.lower()).strip("-") or "world"


def world_snapshot(spec: WorldSpec | str | Path, seed: int | None = None) -> bytes:
    """The snapshot of a generated world, memoised per (spec content, seed) in this process.

    Generation is a pure function of the spec and seed and the bytes are immutable, so sharing
    them cannot couple two worlds; it saves ~1 s per task on acme.
    """
    loaded = load_spec(spec)
    return _generated(loaded.model_dump_json(), loaded.seed_for(seed))


def world_content_hash(spec: WorldSpec | str | Path, seed: int | None = None) -> str:
    """``state_hash()`` of the generated world, memoised like ``world_snapshot`` (once per world).

    A whole-database hash costs ~30 ms on acme and ~250 ms on large: paid once per world and
    process, never per task.
    """
    loaded = load_spec(spec)
    return _generated_hash(loaded.model_dump_json(), loaded.seed_for(seed))


def _setup_hash(base_hash: str, world: World) -> str:
    """The start state's identity: the generated world's content hash plus what setup changed.

    The change log names every app row setup touched; their final content (or their absence) and
    the whole ``_meta`` table (clock, acting user, id counters) are hashed on top of the base
    world's content hash.  Equal base content and equal changes give equal hashes, and any change
    in the generator, the spec, the seed or the setup changes it, at the cost of a few queries.
    """
    digest = hashlib.sha256(f"start-state:v2\x00{base_hash}".encode())
    for table, ids in sorted(world.changed_keys().items()):
        digest.update(f"\x00table:{table}\x00".encode())
        rows = {row["id"]: tuple(row) for row in world.db.execute(
            f"SELECT * FROM {table} WHERE id IN ({','.join('?' * len(ids))})", tuple(ids))}
        for key in sorted(ids):
            row = rows.get(key)
            digest.update(json.dumps([key, row], separators=(",", ":"), default=str).encode())
    for key, value in world.db.execute(f"SELECT key, value FROM {META_TABLE} ORDER BY key"):
        digest.update(json.dumps([key, value]).encode())
    return digest.hexdigest()


def _sha256(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return digest.hexdigest()


class Task:
    """A loaded task folder: specs, hashes, and its cached start state.

    Attributes:
        spec: the validated ``task.yaml``.
        grader: the validated ``grader.yaml`` (sealed: never passed through the tool layer).
        solution: the validated ``solution.yaml``, or ``None`` when the folder has none.
        dir: the task folder (for a task built in memory, a placeholder path that does not exist).
        task_hash: sha256 of ``task.yaml``'s bytes.
        grader_hash: sha256 of ``grader.yaml``'s bytes followed by those of every rubric it names.
        spec_path: the world spec file.
        rubrics: the rubrics the grader names, loaded with the task (grading never rereads them).
    """

    def __init__(self, spec: TaskSpec, grader: GraderSpec, solution: SolutionSpec | None, directory: Path,
                 *, task_hash: str, grader_hash: str, spec_path: Path,
                 rubrics: dict[str, Rubric] | None = None, files: dict[str, str] | None = None) -> None:
        self.spec = spec
        self.grader = grader
        self.solution = solution
        self.dir = directory
        self.task_hash = task_hash
        self.grader_hash = grader_hash
        self.spec_path = spec_path
        self.rubrics = rubrics or {}
        self.files = files  # the file texts of a task built in memory (a sampled one), else None
        self._lock = threading.Lock()
        self._snapshot: bytes | None = None
        self._start_world: World | None = None
        self._start_state_hash: str | None = None
        self._tools_json: dict[tuple[str, str | None], list[dict[str, Any]]] = {}
        self._user: dict[str, Any] | None = None
        self._world_spec: WorldSpec | None = None

    def __repr__(self) -> str:
        return f"Task({self.id!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """A task pickles as its folder and hashes (an in-memory task as its file texts);
        unpickling loads it again (worlds stay behind)."""
        if self.files is not None:
            return load_task_files, (self.files,)
        return _reload, (str(self.dir.resolve()), self.task_hash, self.grader_hash)

    # ----------------------------------------------------------------- fields
    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def instruction(self) -> str:
        return self.spec.instruction

    @property
    def tools(self) -> list[str]:
        return list(self.spec.tools)

    @property
    def max_steps(self) -> int:
        return self.spec.max_steps

    @property
    def pass_threshold(self) -> float:
        return self.spec.pass_threshold

    @property
    def category(self) -> str:
        return self.spec.category

    @property
    def difficulty(self) -> str:
        return self.spec.difficulty

    @property
    def family(self) -> str:
        return self.spec.family

    @property
    def group(self) -> str:
        return self.spec.group or self.spec.family

    @property
    def reviewed_by(self) -> str | None:
        return self.spec.reviewed_by

    # ----------------------------------------------------------------- derived
    def tools_json(self, fmt: ExportFormat = "openai", schema: SchemaMode | None = None) -> list[dict[str, Any]]:
        """The allowed tools plus ``submit`` in any export format and schema mode (computed once each).

        The default, OpenAI chat with strict schemas, is the task's ``tools.json``.
        """
        key = (fmt, schema)
        if key not in self._tools_json:
            self._tools_json[key] = export_tools(self.spec.tools, fmt, schema, submit=True,
                                                 wait=bool(self.spec.colleagues or self.spec.events))
        return self._tools_json[key]

    def start_snapshot(self) -> bytes:
        """The world after setup, as snapshot bytes (built on first use, then cached on the Task)."""
        if self._snapshot is None:
            with self._lock:
                if self._snapshot is None:
                    self._snapshot = self._build()
        return self._snapshot

    def start_world(self) -> World:
        """The start state, restored once and shared read-only (grading diffs against it)."""
        if self._start_world is None:
            snapshot = self.start_snapshot()
            with self._lock:
                if self._start_world is None:
                    self._start_world = World.restore(snapshot)
        return self._start_world

    def start_state_hash(self) -> str:
        """The identity of the start state: spec, seed, generator code and setup in one value.

        A spec fingerprint alone misses a change in the world generator; results record this so
        that runs made against different start states are never mixed.  It is computed while the
        start state is built (see ``_setup_hash``: the generated world's content hash, once per
        world, plus the rows setup changed), so it costs a few queries per task, not a scan of
        the whole database.
        """
        if self._start_state_hash is None:
            self.start_snapshot()
        if self._start_state_hash is None:  # built before the hash was known (cannot happen today)
            raise OfficesimError(f"task {self.id}: the start state was built without its hash")
        return self._start_state_hash

    def world_spec(self) -> WorldSpec:
        """The task's world spec, parsed once per Task: the one place anything reads it from.

        The build, the runner's version record and the delivery all take the spec (and the
        effective seed, ``world_seed``) from here, never by loading ``spec_path`` again.
        """
        if self._world_spec is None:
            self._world_spec = load_spec(self.spec_path)
        return self._world_spec

    @property
    def world_seed(self) -> int:
        """The generation seed: the task's own, else its spec's."""
        return self.world_spec().seed_for(self.spec.world.seed)

    def release(self) -> None:
        """Drop the cached start state (about twice the world's size); it is rebuilt on next use.

        A process that works through hundreds of tasks one after another calls this when done
        with a task, instead of holding every task's snapshot and start world at once.
        """
        with self._lock:
            self._snapshot = None
            self._start_world = None
            # the hash stays valid: the state it describes is rebuilt identically

    def user_info(self) -> dict[str, Any]:
        """Who the agent is: id, name, email, title (shown in the observation)."""
        if self._user is None:
            user = self.start_world().user
            self._user = {key: user[key] for key in ("id", "name", "email", "title")}
        return dict(self._user)

    def _build(self) -> bytes:
        world = World.restore(world_snapshot(self.world_spec(), self.world_seed))
        try:
            if self.spec.acting_user is not None:
                try:
                    world.set_user(person_id(world, self.spec.acting_user))
                except SpecError as exc:
                    raise SpecError(f"{self.dir / 'task.yaml'}: acting_user: {exc}") from None
            # No enclosing transaction: setup tool calls open their own, as in an episode.
            apply_setup(world, list(self.spec.setup), source=str(self.dir / "task.yaml"))
            if self._start_state_hash is None:
                self._start_state_hash = _setup_hash(world_content_hash(self.world_spec(), self.world_seed), world)
            world.clear_change_log()
            return world.snapshot()
        finally:
            world.close()


def _validate(model: type[BaseModel], data: Any, path: Path) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise SpecError(format_validation_error(str(path), exc)) from exc


def _check_tools(spec: TaskSpec, path: Path) -> None:
    known = registry()
    for index, name in enumerate(spec.tools):
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SpecError(f"{path} is invalid:\n  tools.{index}: no tool {name!r} is registered{hint}")


def _check_grader(grader: GraderSpec, path: Path, near: Path | None) -> tuple[dict[str, Rubric], list[bytes]]:
    """Tables, columns and rubric names exist; returns the rubrics used and their bytes (for the hash)."""
    rubrics: dict[str, Rubric] = {}
    rubric_bytes: list[bytes] = []
    sections: tuple[tuple[str, list[CheckBase]], ...] = (("gates", list(grader.gates)),
                                                         ("criteria", list(grader.criteria)))
    for section, checks in sections:
        for index, check in enumerate(checks):
            where = f"{path} is invalid:\n  {section}.{index} ({check.id})"
            problems = check.world_problems()
            if problems:
                raise SpecError(f"{where}{problems[0]}")
            for name in check.references().rubrics:
                try:
                    rubric_file = rubric_path(name, near)
                    rubric = load_rubric_file(rubric_file)
                except SpecError as exc:
                    raise SpecError(f"{where}.rubric: {exc}") from None
                rubrics[rubric.name] = rubric
                rubric_bytes.append(f"\x00rubric:{rubric.name}\x00".encode())
                rubric_bytes.append(rubric_file.read_bytes())
    return rubrics, rubric_bytes


def _check_solution(spec: TaskSpec, solution: SolutionSpec, path: Path) -> None:
    tools = registry()
    for index, step in enumerate(solution.steps):
        where = f"{path} is invalid:\n  steps.{index}"
        if step.name == WAIT and (spec.colleagues or spec.events):
            continue
        if step.name not in spec.tools:
            raise SpecError(f"{where}.name: {step.name!r} is not among the task's tools ({', '.join(spec.tools)})")
        try:
            tools[step.name].validate(step.arguments)
        except InvalidArgument as exc:
            raise SpecError(f"{where}.arguments: {exc.message}") from None


def load_task(path: str | Path, tasks: str | Path | None = None) -> Task:
    """Load and validate a task folder; ``SpecError`` names the file and the field that is wrong.

    Args:
        path: a task folder, or a task id looked up in the tasks directory.
        tasks: the tasks directory for an id (default ``$OFFICESIM_TASKS``, ``./tasks``, the packaged one).
    """
    directory = resolve_task(path, tasks)
    task_file, grader_file, solution_file = (directory / n for n in ("task.yaml", "grader.yaml", "solution.yaml"))
    if not task_file.is_file():
        raise SpecError(f"{directory} is not a task folder: it has no task.yaml")
    if not grader_file.is_file():
        raise SpecError(f"{directory} has no grader.yaml; every task needs a grader")
    texts = {"task.yaml": task_file.read_bytes(), "grader.yaml": grader_file.read_bytes()}
    if solution_file.is_file():
        texts["solution.yaml"] = solution_file.read_bytes()
    return _from_texts(texts, directory, folder=True)


IN_MEMORY = Path("<in-memory>")  # the parent of an in-memory task's placeholder folder


def load_task_files(files: Mapping[str, str]) -> Task:
    """A task from its file texts (``task.yaml``, ``grader.yaml``, optional ``solution.yaml``), no folder.

    Validated exactly like ``load_task``; errors name ``<in-memory>/<id>/<file>``.  This is how a
    sampler hands out fresh instances without writing folders; the texts are kept on
    ``Task.files`` (so the task pickles as them).  A world spec named in the task is looked up
    from the cwd, ``$OFFICESIM_WORLDS`` and the packaged specs; rubrics likewise.
    """
    for name in ("task.yaml", "grader.yaml"):
        if name not in files:
            raise SpecError(f"an in-memory task needs {name} (got {', '.join(sorted(files)) or 'no files'})")
    texts = {name: text.encode("utf-8") for name, text in files.items() if name in _TASK_FILES}
    spec = read_yaml(IN_MEMORY / "task.yaml", texts["task.yaml"])
    given = spec.get("id") if isinstance(spec, dict) else None
    task_id = given if isinstance(given, str) else "task"
    task = _from_texts(texts, IN_MEMORY / task_id, folder=False)
    task.files = dict(files)
    return task


_TASK_FILES = ("task.yaml", "grader.yaml", "solution.yaml")


def _from_texts(texts: Mapping[str, bytes], directory: Path, *, folder: bool) -> Task:
    """Validate a task's file bytes; ``directory`` names the files in errors (and, for a real
    ``folder``, is where world specs and rubrics are looked up first and must match the id)."""
    task_file, grader_file, solution_file = (directory / n for n in _TASK_FILES)
    near = directory if folder else None
    spec: TaskSpec = _validate(TaskSpec, read_yaml(task_file, texts["task.yaml"]), task_file)
    if folder and spec.id != directory.resolve().name:
        raise SpecError(f"{task_file} is invalid:\n  id: {spec.id!r} must equal the folder name "
                        f"{directory.resolve().name!r}")
    _check_tools(spec, task_file)
    staged = [(f"setup.{i}", step) for i, step in enumerate(spec.setup)]
    staged += [(f"events.{e}.steps.{i}", step) for e, event in enumerate(spec.events) for i, step in
               enumerate(event.steps)]
    for where, step in staged:
        kind = type(step).__name__
        table = getattr(step, "insert", None) or getattr(step, "update", None)
        if table is not None:
            columns = dict.fromkeys(k for row in getattr(step, "rows", []) for k in row)
            fields = [*getattr(step, "match", {}), *getattr(step, "set", {}), *columns]
            problem = check_table_fields(table, fields)
            if problem:
                raise SpecError(f"{task_file} is invalid:\n  {where} ({kind}): {problem}")
        call = getattr(step, "call", None)
        if call is not None and call not in registry():
            raise SpecError(f"{task_file} is invalid:\n  {where}.call: no tool {call!r} is registered")
    spec_path = resolve_spec_path(spec.world.spec, directory) if folder else world_spec_path(spec.world.spec)
    grader: GraderSpec = _validate(GraderSpec, read_yaml(grader_file, texts["grader.yaml"]), grader_file)
    rubrics, rubric_bytes = _check_grader(grader, grader_file, near)
    solution: SolutionSpec | None = None
    if "solution.yaml" in texts:
        solution = _validate(SolutionSpec, read_yaml(solution_file, texts["solution.yaml"]) or {}, solution_file)
        _check_solution(spec, solution, solution_file)
    return Task(
        spec, grader, solution, directory,
        task_hash=_sha256(texts["task.yaml"]),
        grader_hash=_sha256(texts["grader.yaml"], *rubric_bytes),
        spec_path=spec_path, rubrics=rubrics,
    )


def _reload(folder: str, task_hash: str, grader_hash: str) -> Task:
    """Unpickle a task: load its folder and check that it is still the task that was pickled."""
    task = load_task(folder)
    if (task.task_hash, task.grader_hash) != (task_hash, grader_hash):
        raise SpecError(f"{folder} changed since this task was pickled (its task or grader hash differs); "
                        "load the task again where the folder is current")
    return task


def find_tasks(paths: list[str | Path]) -> list[Path]:
    """Every task folder (a folder with task.yaml) at or under the given paths (or task ids), sorted."""
    found: set[Path] = set()
    for path in map(Path, paths):
        if (path / "task.yaml").is_file():
            found.add(path)
        elif path.is_dir():
            found.update(p.parent for p in path.rglob("task.yaml"))
        elif not path.exists() and len(path.parts) == 1:
            found.add(resolve_task(path))  # a task id, in $OFFICESIM_TASKS, ./tasks or the packaged library
        else:
            raise SpecError(f"{path} is neither a task folder nor a directory of tasks")
    return sorted(found)


def published_schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schemas of the task files and world specs, as published in ``officesim/schemas/``."""
    return {
        "world.schema.json": WorldSpec.model_json_schema(),
        "task.schema.json": TaskSpec.model_json_schema(by_alias=True),
        "grader.schema.json": GraderSpec.model_json_schema(by_alias=True),
        "solution.schema.json": SolutionSpec.model_json_schema(by_alias=True),
        "rubric.schema.json": Rubric.model_json_schema(by_alias=True),
    }


def published_schema_files() -> dict[str, str]:
    """The text of each published schema file, exactly as ``officesim tasks schemas`` writes it."""
    schemas = published_schemas()
    return {name: json.dumps(schema, indent=2, ensure_ascii=False) + "\n" for name, schema in schemas.items()}
