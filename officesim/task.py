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
import threading
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from officesim.errors import InvalidArgument, SpecError
from officesim.grading.rubrics import RUBRICS_DIR, Rubric, load_rubric
from officesim.grading.spec import TABLE_CHECKS, GraderSpec, JudgeCheck, crm_table
from officesim.people import check_ref_syntax, person_id
from officesim.setup import SetupStep, apply_setup, check_table_fields
from officesim.spec import WorldSpec, format_validation_error, load_spec
from officesim.toolexport import export_tools
from officesim.tools import registry
from officesim.world import World

WORLDS_DIR = Path(__file__).resolve().parents[1] / "worlds"
TASK_ID = r"^[a-z0-9][a-z0-9-]*$"
SUBMIT = "submit"
MAX_ANSWER = 20_000  # characters of the submitted answer
SUBMIT_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": SUBMIT,
        "description": "Finish the task. Call this once, when the work is done; pass your final answer if the "
        "task asks a question, otherwise null. No other tool can be called afterwards.",
        "parameters": {
            "type": "object",
            "properties": {
                "answer": {
                    "type": ["string", "null"],
                    "description": "The final answer to the task's question, or null when the task only asks "
                    f"you to do things. At most {MAX_ANSWER:,} characters.",
                }
            },
            "required": ["answer"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}


# The C loader (libyaml) when present: loading ~400 task folders is 5x faster with it.
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A safe loader that keeps dates and timestamps as text (the models parse what needs parsing)."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


def read_yaml(path: Path) -> Any:
    """Parse a YAML file with dates kept as strings; ``SpecError`` naming the file on failure."""
    try:
        return yaml.load(path.read_bytes(), Loader=_Loader)  # a SafeLoader subclass: no arbitrary objects
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
    tools: list[str] = Field(min_length=1, description="The tools the model may call (submit is always added).")
    max_steps: int = Field(ge=1, le=10_000, description="Tool calls allowed, submit included.")
    pass_threshold: float = Field(1.0, ge=0, le=1, description="The score needed to pass (with every gate held).")
    category: str = Field(min_length=1, description="Metadata: one of the library's categories.")
    difficulty: Literal["easy", "medium", "hard"] = Field(description="Metadata: easy, medium or hard.")
    family: str = Field(min_length=1, description="Metadata: the generator family the task comes from.")
    group: str | None = Field(None, description="Metadata: near twins share a group; default: the family.")
    reviewed_by: str | None = Field(None, description="Metadata: who reviewed it (a person or generator@version).")

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
        if SUBMIT in value:
            raise ValueError("submit is built in; do not list it")
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
    """A world spec named in a task: a path (relative to the task folder or cwd) or a name in worlds/."""
    candidates = [base / spec, Path(spec), WORLDS_DIR / spec, WORLDS_DIR / f"{spec}.yaml"]
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    known = ", ".join(sorted(p.stem for p in WORLDS_DIR.glob("*.yaml")))
    raise SpecError(f"world spec {spec!r} is neither a file nor a name in {WORLDS_DIR} (known: {known})")


@functools.lru_cache(maxsize=8)
def _generated(spec_json: str, seed: int) -> bytes:
    return World.generate(WorldSpec.model_validate_json(spec_json), seed).snapshot()


def world_snapshot(spec: WorldSpec | str | Path, seed: int | None = None) -> bytes:
    """The snapshot of a generated world, memoised per (spec content, seed) in this process.

    Generation is a pure function of the spec and seed and the bytes are immutable, so sharing
    them cannot couple two worlds; it saves ~1 s per task on acme.
    """
    loaded = load_spec(spec)
    return _generated(loaded.model_dump_json(), loaded.seed if seed is None else seed)


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
        dir: the task folder.
        task_hash: sha256 of ``task.yaml``'s bytes.
        grader_hash: sha256 of ``grader.yaml``'s bytes followed by those of every rubric it names.
        spec_path: the world spec file.
        rubrics: the rubrics the grader names, loaded with the task (grading never rereads them).
    """

    def __init__(self, spec: TaskSpec, grader: GraderSpec, solution: SolutionSpec | None, directory: Path,
                 *, task_hash: str, grader_hash: str, spec_path: Path,
                 rubrics: dict[str, Rubric] | None = None) -> None:
        self.spec = spec
        self.grader = grader
        self.solution = solution
        self.dir = directory
        self.task_hash = task_hash
        self.grader_hash = grader_hash
        self.spec_path = spec_path
        self.rubrics = rubrics or {}
        self._lock = threading.Lock()
        self._snapshot: bytes | None = None
        self._start_world: World | None = None
        self._start_state_hash: str | None = None
        self._tools_json: list[dict[str, Any]] | None = None
        self._user: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"Task({self.id!r})"

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
    def tools_json(self) -> list[dict[str, Any]]:
        """The OpenAI chat function list of the allowed tools plus ``submit`` (computed once)."""
        if self._tools_json is None:
            self._tools_json = [*export_tools(self.spec.tools), SUBMIT_TOOL]
        return self._tools_json

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
        """The content hash of the start state: spec, seed, generator code and setup in one value.

        A spec fingerprint alone misses a change in the world generator; results record this so
        that runs made against different start states are never mixed.
        """
        if self._start_state_hash is None:
            self._start_state_hash = self.start_world().state_hash()
        return self._start_state_hash

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
        world = World.restore(world_snapshot(self.spec_path, self.spec.world.seed))
        try:
            if self.spec.acting_user is not None:
                try:
                    world.set_user(person_id(world, self.spec.acting_user))
                except SpecError as exc:
                    raise SpecError(f"{self.dir / 'task.yaml'}: acting_user: {exc}") from None
            # No enclosing transaction: setup tool calls open their own, as in an episode.
            apply_setup(world, list(self.spec.setup), source=str(self.dir / "task.yaml"))
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


def _check_grader(grader: GraderSpec, path: Path) -> tuple[dict[str, Rubric], list[bytes]]:
    """Tables, columns and rubric names exist; returns the rubrics used and their bytes (for the hash)."""
    rubrics: dict[str, Rubric] = {}
    rubric_bytes: list[bytes] = []
    for section in ("gates", "criteria"):
        for index, check in enumerate(getattr(grader, section)):
            where = f"{path} is invalid:\n  {section}.{index} ({check.id})"
            if isinstance(check, TABLE_CHECKS):
                fields = [*check.match, *getattr(check, "expect", {}), *(getattr(check, "fields", None) or [])]
                problem = check_table_fields(check.table, fields)
                if problem:
                    raise SpecError(f"{where}: {problem}")
            elif check.check == "allowed_changes":
                for table, columns in check.allowed().items():
                    problem = check_table_fields(table, columns or [])
                    if problem:
                        raise SpecError(f"{where}.tables: {problem}")
            elif isinstance(check, JudgeCheck):
                for form in [*check.evidence, *check.source]:
                    if form.startswith("crm:"):
                        problem = check_table_fields(crm_table(form), [])
                        if problem:
                            raise SpecError(f"{where}: {form}: {problem}")
                if check.rubric is not None:
                    try:
                        rubric = load_rubric(check.rubric)
                    except SpecError as exc:
                        raise SpecError(f"{where}.rubric: {exc}") from None
                    rubrics[rubric.name] = rubric
                    rubric_bytes.append(f"\x00rubric:{rubric.name}\x00".encode())
                    rubric_bytes.append((RUBRICS_DIR / f"{rubric.name}.yaml").read_bytes())
    return rubrics, rubric_bytes


def _check_solution(spec: TaskSpec, solution: SolutionSpec, path: Path) -> None:
    tools = registry()
    for index, step in enumerate(solution.steps):
        where = f"{path} is invalid:\n  steps.{index}"
        if step.name not in spec.tools:
            raise SpecError(f"{where}.name: {step.name!r} is not among the task's tools ({', '.join(spec.tools)})")
        try:
            tools[step.name].validate(step.arguments)
        except InvalidArgument as exc:
            raise SpecError(f"{where}.arguments: {exc.message}") from None


def load_task(path: str | Path) -> Task:
    """Load and validate a task folder; ``SpecError`` names the file and the field that is wrong."""
    directory = Path(path)
    task_file, grader_file, solution_file = (directory / n for n in ("task.yaml", "grader.yaml", "solution.yaml"))
    if not task_file.is_file():
        raise SpecError(f"{directory} is not a task folder: it has no task.yaml")
    if not grader_file.is_file():
        raise SpecError(f"{directory} has no grader.yaml; every task needs a grader")
    spec: TaskSpec = _validate(TaskSpec, read_yaml(task_file), task_file)
    if spec.id != directory.resolve().name:
        raise SpecError(f"{task_file} is invalid:\n  id: {spec.id!r} must equal the folder name "
                        f"{directory.resolve().name!r}")
    _check_tools(spec, task_file)
    for index, step in enumerate(spec.setup):
        kind = type(step).__name__
        table = getattr(step, "insert", None) or getattr(step, "update", None)
        if table is not None:
            columns = dict.fromkeys(k for row in getattr(step, "rows", []) for k in row)
            fields = [*getattr(step, "match", {}), *getattr(step, "set", {}), *columns]
            problem = check_table_fields(table, fields)
            if problem:
                raise SpecError(f"{task_file} is invalid:\n  setup.{index} ({kind}): {problem}")
        call = getattr(step, "call", None)
        if call is not None and call not in registry():
            raise SpecError(f"{task_file} is invalid:\n  setup.{index}.call: no tool {call!r} is registered")
    spec_path = resolve_spec_path(spec.world.spec, directory)
    grader: GraderSpec = _validate(GraderSpec, read_yaml(grader_file), grader_file)
    rubrics, rubric_bytes = _check_grader(grader, grader_file)
    solution: SolutionSpec | None = None
    if solution_file.is_file():
        solution = _validate(SolutionSpec, read_yaml(solution_file) or {}, solution_file)
        _check_solution(spec, solution, solution_file)
    return Task(
        spec, grader, solution, directory,
        task_hash=_sha256(task_file.read_bytes()),
        grader_hash=_sha256(grader_file.read_bytes(), *rubric_bytes),
        spec_path=spec_path, rubrics=rubrics,
    )


def find_tasks(paths: list[str | Path]) -> list[Path]:
    """Every task folder (a folder with task.yaml) at or under the given paths, sorted."""
    found: set[Path] = set()
    for path in map(Path, paths):
        if (path / "task.yaml").is_file():
            found.add(path)
        elif path.is_dir():
            found.update(p.parent for p in path.rglob("task.yaml"))
        else:
            raise SpecError(f"{path} is neither a task folder nor a directory of tasks")
    return sorted(found)


def published_schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schemas of the task files, as published in ``officesim/schemas/``."""
    return {
        "task.schema.json": TaskSpec.model_json_schema(by_alias=True),
        "grader.schema.json": GraderSpec.model_json_schema(by_alias=True),
        "solution.schema.json": SolutionSpec.model_json_schema(by_alias=True),
        "rubric.schema.json": Rubric.model_json_schema(by_alias=True),
    }


def published_schema_files() -> dict[str, str]:
    """The text of each published schema file, exactly as ``officesim tasks schemas`` writes it."""
    schemas = published_schemas()
    return {name: json.dumps(schema, indent=2, ensure_ascii=False) + "\n" for name, schema in schemas.items()}
