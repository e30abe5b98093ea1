"""Turn a family's draft into a verified, byte-stable task folder.

For one instance: restore its world (acme, or any spec: ``WorldChoice``), let the family check that
the world has what it needs (``Family.requires``; else ``WorldLacks``: skipped for that world), plant
its facts (recorded as setup),
play the reference solution on the resulting world, grade the oracle with the real grader (it
must pass with score 1.0), rebuild the start state from the rendered ``task.yaml`` (it must equal
what the family planted), and only then render ``task.yaml``, ``grader.yaml``, ``solution.yaml``
and ``tools.pin``.

A task folder pins its tool surface (``tools.pin``: a hash of each allowed tool's parameter shape)
instead of carrying the full ``tools.json``: the OpenAI tool list is derived from the registry
whenever it is needed (``Task.tools_json``), and a delivery writes it into every folder, so the
folders a lab receives stay self-contained while a docstring edit no longer rewrites the library.
"""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from officesim.colleagues import Office
from officesim.errors import SpecError
from officesim.grading.scoring import grade
from officesim.person_refs import person_id, resolve_arguments
from officesim.resources import world_spec_path
from officesim.seeding import rng_for
from officesim.task import Task, load_task_files, world_key, world_snapshot
from officesim.task_setup import SetupStep, apply_setup
from officesim.taskgen.base import Draft, Family, GenerationError, Solver, Stage, WorldLacks
from officesim.taskgen.common import weigh_penalties
from officesim.taskgen.yamlout import dump_yaml
from officesim.toolapi.pin import render_pin
from officesim.world import World
from officesim.world_spec import load_spec

WORLD_SPEC = "acme"
WORLD_SEED = 0
FILES = ("task.yaml", "grader.yaml", "solution.yaml", "tools.pin")
_STEP: TypeAdapter[Any] = TypeAdapter(SetupStep)


def _run_step(world: World, step: dict[str, Any]) -> dict[str, Any] | None:
    """Apply one setup step exactly as the task loader will; return a call step's result.

    Clock, insert and update steps go through the setup executor itself.  The executor does not
    hand back tool results, so a call step repeats its two moves (resolve person references as
    the task's user sees them, then call the tool as the named person) to keep the result.
    """
    parsed = _STEP.validate_python(step)
    if "call" not in step:
        apply_setup(world, [parsed], source="generator")
        return None
    actor = person_id(world, step["as"])
    arguments = resolve_arguments(world, step["arguments"])
    with world.acting_as(actor):
        return world.call(step["call"], arguments)


@dataclass(frozen=True)
class RenderedTask:
    """One task folder as text, ready to be written."""

    task_id: str
    files: dict[str, str]


@dataclass(frozen=True)
class WorldChoice:
    """The world an instance is rendered on, as its ``task.yaml`` records it.

    Attributes:
        spec: how ``task.yaml`` names the spec: a bare name (``acme``) for a known spec, else the
            spec file's absolute path.
        seed: the generation seed.
        key: the spec's own ``name`` as an id part (``acme``, ``nordwerk``): in task ids
            (``<slug>-<key>-NNN``) and in the family's rng labels.
        label: ``key`` at the spec's own seed, else ``key@seed`` (how reports name the world).
    """

    spec: str
    seed: int
    key: str
    label: str  # ``key`` at the spec's own seed, else ``key@seed``


def world_choice(spec: str | Path = WORLD_SPEC, seed: int | None = None) -> WorldChoice:
    """Resolve a world given by name (``acme``) or spec path, with its seed (default: the spec's)."""
    ref = str(spec)
    path = world_spec_path(ref)
    named = len(Path(ref).parts) == 1 and not Path(ref).suffix and not Path(ref).exists()
    loaded = load_spec(path)
    key = world_key(loaded)
    chosen = loaded.seed if seed is None else int(seed)
    return WorldChoice(ref if named else str(path), chosen, key, key if chosen == loaded.seed else f"{key}@{chosen}")


ACME = WorldChoice(WORLD_SPEC, WORLD_SEED, WORLD_SPEC, WORLD_SPEC)


def base_snapshot(world: WorldChoice = ACME) -> bytes:
    """The world every instance on ``world`` starts from (memoised per spec and seed by the task module)."""
    return world_snapshot(world_spec_path(world.spec), world.seed)


def family_rng_labels(family: Family, index: int, world: WorldChoice) -> tuple[object, ...]:
    """The labels of the family's rng for instance ``index`` on ``world`` (seeded with the world seed).

    Acme at seed 0 keeps the labels it had before worlds varied, so the shipped ids stay byte for
    byte; every other world adds its key, so two worlds never draw the same amounts.
    """
    return (family.name, index) if world == ACME else (family.name, index, world.key)


def render_instance(family: Family, index: int, base: bytes | None = None, world: WorldChoice = ACME,
                    task_id: str | None = None) -> RenderedTask:
    """Build, solve, verify and render instance ``index`` of ``family`` on ``world``.

    Raises ``WorldLacks`` (a ``GenerationError``) saying the family is skipped for this world when
    it lacks what the family needs, and ``GenerationError`` for any other failure.
    """
    return render_verified(family, index, base, world, task_id)[0]


def render_verified(family: Family, index: int, base: bytes | None = None, world: WorldChoice = ACME,
                    task_id: str | None = None) -> tuple[RenderedTask, Task]:
    """``render_instance`` plus the verified in-memory ``Task`` (its start state already built)."""
    task_id = task_id or family.task_id(index)
    world_db = World.restore(base_snapshot(world) if base is None else base)
    stage = Stage(world_db, _run_step)
    try:
        reason = family.requires(stage)
        if reason:
            raise WorldLacks(reason)
        try:
            draft = family.build(stage, index, rng_for(world.seed, *family_rng_labels(family, index, world)))
        except (ValueError, IndexError) as exc:
            # A pick from a pool the world has too little of (``rng.sample`` larger than the
            # population, an empty list): the world lacks what the family assumed.
            raise WorldLacks(f"too few of what the family picks ({type(exc).__name__}: {exc})") from None
        except WorldLacks:
            raise
        except SpecError as exc:  # a planted row clashes with the world's own (a name already taken)
            raise WorldLacks(f"planting clashes with this world: {exc}") from None
        except GenerationError as exc:
            # While planting, a family refuses a scenario this world makes ambiguous (its own mail
            # already mentions the topic) or cannot hold: an assumption about the world, not a bug
            # in the oracle (those surface below, after ``build``).
            raise WorldLacks(str(exc)) from None
        if not stage.steps or "clock" not in stage.steps[0]:
            raise GenerationError("setup must start by setting the clock, so the planted story has a time")
        world_db.clear_change_log()
        start = World.restore(world_db.snapshot())
        office = Office(list(draft.colleagues), list(draft.events), world_db) if (
            draft.colleagues or draft.events) else None
        solver = Solver(world_db, frozenset(draft.tools), office=office)
        draft.solve(solver)
        task = _task_dict(family, task_id, draft, stage, len(solver.steps), world)
        grader: dict[str, Any]
        grader = {"gates": draft.gate_dicts(),
                  "criteria": weigh_penalties(draft.criterion_dicts(), keep=draft.fixed_points)}
        if draft.facts is not None:
            if draft.facts.locale == "en_US":  # dates in facts texts are read in the world's locale (10/03/2026)
                draft.facts.locale = world_db.meta("locale") or "en_US"
            grader["facts"] = draft.facts.render()
        solution = {"steps": solver.steps, "answer": solver.answer}
        rendered = RenderedTask(task_id, {
            "task.yaml": dump_yaml(task),
            "grader.yaml": dump_yaml(grader),
            "solution.yaml": dump_yaml(solution),
        })
        loaded = verify(rendered, start, world_db, solver.answer, solver.transcript)
        rendered = RenderedTask(task_id, {**rendered.files, "tools.pin": render_pin(loaded)})
    except WorldLacks as exc:
        raise WorldLacks(f"{task_id}: {family.name} skipped for world {world.label}: {exc}") from None
    except GenerationError as exc:
        raise GenerationError(f"{task_id}: {exc}") from None
    except SpecError as exc:
        raise GenerationError(f"{task_id}: the rendered task does not load: {exc}") from None
    finally:
        world_db.close()
    return rendered, loaded


def verify(rendered: RenderedTask, start: World, final: World, answer: str | None,
           transcript: list[dict[str, Any]] | None = None) -> Task:
    """Load the rendered files like any task; its setup must rebuild ``start`` and the oracle pass.

    Going through the task loader and ``grade`` means the rendered files, not the family's
    in-memory objects, are what was verified.  Returns the loaded task (start state built).
    """
    task = load_task_files(rendered.files)
    rebuilt = task.start_snapshot()
    # Same base bytes and the same statements in the same order give the same bytes; only when
    # they differ is the (slower) content hash asked whether the difference is physical only.
    if rebuilt != start.snapshot() and _content_hash(rebuilt) != start.state_hash():
        raise GenerationError("replaying the rendered setup does not rebuild the planted world")
    result = grade(task, start, final, answer, transcript)
    if not result.passed or result.score < 1.0:
        raise GenerationError(f"the reference solution does not pass:\n{result.summary()}")
    return task


def _content_hash(snapshot: bytes) -> str:
    world = World.restore(snapshot)
    try:
        return world.state_hash()
    finally:
        world.close()


def _task_dict(family: Family, task_id: str, draft: Draft, stage: Stage, solution_steps: int,
               world: WorldChoice) -> dict[str, Any]:
    task: dict[str, Any] = {
        "id": task_id,
        "instruction": draft.instruction.strip() + "\n",
        "world": {"spec": world.spec, "seed": world.seed},
    }
    if stage.acting_user is not None:
        task["acting_user"] = stage.acting_user
    task["setup"] = stage.steps
    if draft.colleagues:
        task["colleagues"] = [c.model_dump(mode="json", by_alias=True, exclude_defaults=True) for c in draft.colleagues]
    if draft.events:
        task["events"] = [e.model_dump(mode="json", by_alias=True, exclude_defaults=True) for e in draft.events]
    task["tools"] = list(draft.tools)
    # Room for twice the reference trajectory (reading around is fine), never less than asked.
    task["max_steps"] = max(draft.max_steps, 2 * (solution_steps + 1))
    threshold = draft.pass_threshold if draft.pass_threshold is not None else judge_free_threshold(draft)
    if threshold is not None:
        task["pass_threshold"] = threshold
    task["category"] = family.category
    task["difficulty"] = draft.difficulty or family.difficulty
    task["family"] = family.name
    task["group"] = f"{family.name}/{draft.variant}"
    task["reviewed_by"] = f"generator:{family.name}@{family.version}"
    if draft.traps:
        task["traps"] = list(draft.traps)
    return task


def judge_free_threshold(draft: Draft) -> float | None:
    """The pass threshold that lets judged points add to the score but never decide ``passed``:
    the share of the positive points that code checks (``None`` when nothing is judged)."""
    positive = [c for c in draft.criterion_dicts() if float(c.get("points") or 0) > 0]
    judged = sum(float(c["points"]) for c in positive if c["check"] == "judge")
    if not judged:
        return None
    total = sum(float(c["points"]) for c in positive)
    return math.floor((total - judged) / total * 10_000) / 10_000


def write_task(out_dir: Path, rendered: RenderedTask) -> Path:
    """Write (replace) one task folder; only the generated files are in it afterwards."""
    folder = out_dir / rendered.task_id
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name in FILES:
        (folder / name).write_text(rendered.files[name], encoding="utf-8")
    return folder
