"""Turn a family's draft into a verified, byte-stable task folder.

For one instance: restore the acme world, let the family plant its facts (recorded as setup),
play the reference solution on the resulting world, grade the oracle with the real grader (it
must pass with score 1.0), rebuild the start state from the rendered ``task.yaml`` (it must equal
what the family planted), and only then render ``task.yaml``, ``grader.yaml``, ``solution.yaml``
and ``tools.json``.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from officesim.errors import SpecError
from officesim.grading.rubric import grade
from officesim.people import person_id, resolve_arguments
from officesim.seeding import rng_for
from officesim.setup import SetupStep, apply_setup
from officesim.task import SUBMIT_TOOL, load_task, resolve_spec_path, world_snapshot
from officesim.taskgen.base import Draft, Family, GenerationError, Solver, Stage
from officesim.taskgen.common import weigh_penalties
from officesim.taskgen.yamlout import dump_yaml
from officesim.toolexport import dumps, export_tools
from officesim.world import World

WORLD_SPEC = "acme"
WORLD_SEED = 0
FILES = ("task.yaml", "grader.yaml", "solution.yaml", "tools.json")
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


def base_snapshot() -> bytes:
    """The acme world every instance starts from (the task module's own memoised generation)."""
    return world_snapshot(resolve_spec_path(WORLD_SPEC, Path.cwd()), WORLD_SEED)


def render_instance(family: Family, index: int, base: bytes) -> RenderedTask:
    """Build, solve, verify and render instance ``index`` of ``family``."""
    task_id = family.task_id(index)
    world = World.restore(base)
    stage = Stage(world, _run_step)
    try:
        draft = family.build(stage, index, rng_for(WORLD_SEED, family.name, index))
        if not stage.steps or "clock" not in stage.steps[0]:
            raise GenerationError("setup must start by setting the clock, so the planted story has a time")
        world.clear_change_log()
        start = World.restore(world.snapshot())
        solver = Solver(world, frozenset(draft.tools))
        draft.solve(solver)
        task = _task_dict(family, index, draft, stage, len(solver.steps))
        grader: dict[str, Any]
        grader = {"gates": draft.gates, "criteria": weigh_penalties(draft.criteria, keep=draft.fixed_points)}
        if draft.facts is not None:
            grader["facts"] = draft.facts.render()
        solution = {"steps": solver.steps, "answer": solver.answer}
        rendered = RenderedTask(task_id, {
            "task.yaml": dump_yaml(task),
            "grader.yaml": dump_yaml(grader),
            "solution.yaml": dump_yaml(solution),
            "tools.json": dumps([*export_tools(task["tools"]), SUBMIT_TOOL]),
        })
        verify(rendered, start, world, solver.answer)
    except GenerationError as exc:
        raise GenerationError(f"{task_id}: {exc}") from None
    except SpecError as exc:
        raise GenerationError(f"{task_id}: the rendered task does not load: {exc}") from None
    finally:
        world.close()
    return rendered


def verify(rendered: RenderedTask, start: World, final: World, answer: str | None) -> None:
    """Load the rendered folder like any task; its setup must rebuild ``start`` and the oracle pass.

    Going through ``load_task`` and ``grade`` means the checked-in files, not the family's
    in-memory objects, are what was verified.
    """
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_task(Path(tmp), rendered)
        task = load_task(folder)
        rebuilt = task.start_snapshot()
        # Same base bytes and the same statements in the same order give the same bytes; only when
        # they differ is the (slower) content hash asked whether the difference is physical only.
        if rebuilt != start.snapshot() and _content_hash(rebuilt) != start.state_hash():
            raise GenerationError("replaying the rendered setup does not rebuild the planted world")
        result = grade(task, start, final, answer)
    if not result.passed or result.score < 1.0:
        raise GenerationError(f"the reference solution does not pass:\n{result.summary()}")


def _content_hash(snapshot: bytes) -> str:
    world = World.restore(snapshot)
    try:
        return world.state_hash()
    finally:
        world.close()


def _task_dict(family: Family, index: int, draft: Draft, stage: Stage, solution_steps: int) -> dict[str, Any]:
    task: dict[str, Any] = {
        "id": family.task_id(index),
        "instruction": draft.instruction.strip() + "\n",
        "world": {"spec": WORLD_SPEC, "seed": WORLD_SEED},
    }
    if stage.acting_user is not None:
        task["acting_user"] = stage.acting_user
    task["setup"] = stage.steps
    task["tools"] = list(draft.tools)
    # Room for twice the reference trajectory (reading around is fine), never less than asked.
    task["max_steps"] = max(draft.max_steps, 2 * (solution_steps + 1))
    threshold = draft.pass_threshold if draft.pass_threshold is not None else judge_free_threshold(draft)
    if threshold is not None:
        task["pass_threshold"] = threshold
    task["category"] = family.category
    task["difficulty"] = family.difficulty
    task["family"] = family.name
    task["group"] = f"{family.name}/{draft.variant}"
    task["reviewed_by"] = f"generator:{family.name}@{family.version}"
    return task


def judge_free_threshold(draft: Draft) -> float | None:
    """The pass threshold that lets judged points add to the score but never decide ``passed``:
    the share of the positive points that code checks (``None`` when nothing is judged)."""
    positive = [c for c in draft.criteria if float(c.get("points") or 0) > 0]
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
