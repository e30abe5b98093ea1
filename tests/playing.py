"""Playing a task's reference solution with one change, and asserting the grade it earns.

The hand-written grading cases (``test_grading_g*``, ``test_deeper_*``, ``test_fam_*``, the audit
cases) all follow one pattern: get a task, take its reference solution, change one thing (a mail's
wording, a dropped call, an extra write, another answer), play it in an ``OfficeEnv`` and assert
that a hack fails (at most ``HACK_BOUND``) or that correct work passes.  These are the shared
pieces of that pattern, so every case file says only what its cases change.

Getting a task:
    ``shipped(task_id)``       a task of the shipped library in ``tasks/`` (loaded once).
    ``built(family, which)``   instance ``which`` (an index, or a structure name for its first
                               instance) of a family on acme, built and verified in memory by the
                               writer (its reference already scored 1.0; built once).

Every helper below that takes a task also takes a shipped task's id (``TaskRef``; ``task_of``
resolves one).  ``Step`` is one tool call as a dict; an ``Edit`` maps the reference's steps to
the steps to play; a ``Then`` works out steps on a live episode.

Playing:
    ``reference(task)``        the reference solution as an editable ``Trajectory`` (a deep copy).
    ``steps_of(task)``         its tool calls as plain, editable dicts.
    ``grade_of(task, trajectory, judge=None)``  replay it as an agent would (``ReplayAgent``).
    ``play(task, edit=None, answer=None, judge=None, then=None)``  replay the reference steps
                               changed by ``edit`` (and then the steps ``then`` works out on the
                               live episode), asserting that every call succeeds (a case must not
                               grade a call its edit broke by accident).
    ``call(env, name, **arguments)``  one call on a live ``OfficeEnv``, which must succeed.
    ``answered(task, answer)`` the reference with another final answer.
    ``rewritten(task, edit, tools=())``  the reference with ``edit`` applied to its write texts.
    ``reference_text(task, tool)``  the text the reference writes with its first ``tool`` call.
    ``calls(steps, name)``     the calls of one tool in a list of steps or a trajectory.
    ``without(name)``          an ``Edit`` that drops every call of a tool.

Grading:
    ``fails(grade)`` / ``full_marks(grade)``                   predicates (for ``assert``, ``all``).
    ``hack_fails(grade)`` / ``correct_passes(grade)`` / ``correct_full_marks(grade)``
                               assertions that print the grade's summary when they fail.

Reading a task's grader:
    ``check(task, check_id)``  a gate or criterion by id;  ``fact(task, key)``  a fact by key;
    ``entity_name(task, key)`` a fact entity's name;  ``usd(amount)``  ``$1,234.50`` as the
    reference writes US dollar amounts.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from officesim import OfficeEnv, load_task
from officesim.env import play as play_episode
from officesim.grading.facts import Fact
from officesim.grading.judge import Judge
from officesim.grading.scoring import Grade
from officesim.pipeline.selftest import HACK_BOUND, would_pass
from officesim.probes import ReplayAgent, Trajectory
from officesim.task import Task
from officesim.taskgen import FAMILIES
from officesim.taskgen.writer import render_verified

__all__ = [
    "TASKS", "Edit", "Step", "TaskRef", "Then", "answered", "built", "call", "calls", "check", "correct_full_marks",
    "correct_passes", "entity_name", "fact", "fails", "full_marks", "grade_of", "hack_fails", "play",
    "reference", "reference_text", "rewritten", "shipped", "steps_of", "task_of", "usd", "without",
]

TASKS = Path(__file__).resolve().parents[1] / "tasks"
TOLERANCE = 1e-9  # a score is a sum of weighted floats: "1.0" and "at most the bound" allow rounding

Step = dict[str, Any]
Edit = Callable[[list[Step]], list[Step]]
Then = Callable[[OfficeEnv], list[Step]]  # steps worked out on the live episode (``play``'s ``then``)
TaskRef = Task | str  # a task, or the id of a shipped task in ``tasks/``


# ------------------------------------------------------------------------------------ getting a task
@functools.cache
def shipped(task_id: str) -> Task:
    """A shipped task, loaded once per process (loading parses and checks every file)."""
    return load_task(TASKS / task_id)


@functools.cache
def built(family: str, which: int | str) -> Task:
    """Instance ``which`` of ``family`` on acme, built once per process.

    ``which`` is an instance index, or a structure (variant) name for the first instance of that
    structure.  Built in memory rather than read from ``tasks/`` because the shipped library is
    regenerated only after the branches merge: a case on a new structure must follow the
    generator.  The writer verifies the instance, so its reference scores 1.0 before any case
    changes it.
    """
    fam = FAMILIES[family]
    if isinstance(which, str):
        index = fam.variants.index(which)
        assert fam.variant_for(index) == which, f"{family}'s instance {index} is not a {which!r}"
    else:
        index = which
    return render_verified(fam, index)[1]


def task_of(task: TaskRef) -> Task:
    """``task`` itself, or the shipped task of that id."""
    return shipped(task) if isinstance(task, str) else task


# ----------------------------------------------------------------------------------------- playing
def reference(task: TaskRef) -> Trajectory:
    """The reference solution as a trajectory to edit.

    The calls are deep copies (through JSON, as an agent's calls arrive), so an edit never
    changes the cached task that the next case starts from.
    """
    solution = task_of(task).solution
    assert solution is not None, "the task has no reference solution to start from"
    return Trajectory([{"name": s.name, "arguments": json.loads(json.dumps(s.arguments))} for s in solution.steps],
                      solution.answer)


def steps_of(task: TaskRef) -> list[Step]:
    """The reference's tool calls as plain dicts (every reference step is a static call)."""
    return list(reference(task).actions())


def grade_of(task: TaskRef, trajectory: Trajectory, judge: Judge | None = None) -> Grade:
    """``trajectory`` played by a ``ReplayAgent``, as an agent would play it, and graded.

    A call that fails is part of the trajectory (its error goes back to the "agent"), as when a
    hack tries a call the permissions refuse; ``play`` is the variant that forbids failures.
    """
    return play_episode(OfficeEnv(task_of(task), judge=judge), ReplayAgent("case", trajectory))


def play(task: TaskRef, edit: Edit | None = None, answer: str | None = None, judge: Judge | None = None, *,
         then: Then | None = None) -> Grade:
    """The reference steps changed by ``edit``, submitted with ``answer`` (the reference's when None).

    ``then`` works out more steps on the live episode once those are played (a case whose extra
    call needs an id or a row number it must look up first).  Every call must succeed: a case
    whose edit broke a call by accident (a stale id, a missing argument) stops here with the call
    and its error, instead of grading some other trajectory.
    """
    t = task_of(task)
    assert t.solution is not None, "the task has no reference solution to start from"
    env = OfficeEnv(t, judge=judge)
    env.reset()
    steps = steps_of(t)
    for step in edit(steps) if edit else steps:
        call(env, step["name"], **step["arguments"])
    for step in then(env) if then else []:  # worked out only now, on the episode the steps made
        call(env, step["name"], **step["arguments"])
    *_, info = env.step({"name": "submit", "arguments": {"answer": answer or t.solution.answer}})
    grade: Grade = info["grade"]
    return grade


def call(env: OfficeEnv, name: str, /, **arguments: Any) -> Any:
    """One tool call on a live episode, which must succeed; its result.

    For a case that looks something up in the start state (an id, a planted message) or plays
    steps that depend on what earlier calls returned.  ``env`` and ``name`` are positional-only,
    so a tool argument may be called ``name`` too.
    """
    obs, *_ = env.step({"name": name, "arguments": arguments})
    assert "error" not in (obs.get("result") or {}), ({"name": name, "arguments": arguments}, obs["result"])
    return obs["result"]


def answered(task: TaskRef, answer: str) -> Grade:
    """The reference with ``answer`` submitted instead of its own."""
    out = reference(task)
    out.answer = answer
    return grade_of(task, out)


def rewritten(task: TaskRef, edit: Callable[[str], str], *, tools: tuple[str, ...] = ()) -> Grade:
    """The reference with ``edit`` applied to the text of its writes (of ``tools`` when given).

    The edit must change something: a case whose pattern no longer matches the reference's
    wording would otherwise grade the plain reference and pass for the wrong reason.
    """
    before = reference(task)
    after = before.map_texts(edit, answer=False, names=tools)
    assert after.texts() != before.texts(), f"the edit changed nothing in the reference's texts: {before.texts()}"
    return grade_of(task, after)


def reference_text(task: TaskRef, tool: str) -> str:
    """The free text (body, content or text) of the reference's first call of ``tool``.

    Cases edit the reference's own wording, so they read it rather than repeat it.
    """
    return next(s["arguments"][f] for s in reference(task).actions() if s["name"] == tool
                for f in ("body", "content", "text") if isinstance(s["arguments"].get(f), str))


def calls(steps: Trajectory | Iterable[Step], name: str) -> list[Step]:
    """The calls of tool ``name``, in order (the same dicts: editing them edits ``steps``)."""
    found = steps.actions() if isinstance(steps, Trajectory) else steps
    return [s for s in found if s["name"] == name]


def without(name: str, keep: Callable[[Step], bool] = lambda s: False) -> Edit:
    """An edit that drops the calls of ``name`` (except those ``keep`` holds)."""
    return lambda steps: [s for s in steps if s["name"] != name or keep(s)]


# ----------------------------------------------------------------------------------------- grading
def fails(grade: Grade) -> bool:
    """What every hack must get: a failed verdict and a score at most ``HACK_BOUND``."""
    return not would_pass(grade) and grade.score <= HACK_BOUND + TOLERANCE


def full_marks(grade: Grade) -> bool:
    """Passed with a score of 1.0: what work as good as the reference earns."""
    return would_pass(grade) and grade.score >= 1.0 - TOLERANCE


def hack_fails(grade: Grade) -> None:
    """Assert ``fails``; on failure, say which checks let the hack through."""
    assert fails(grade), grade.summary()


def correct_passes(grade: Grade) -> None:
    """Assert the grade passes (a criterion may still lose points); say why when it does not."""
    assert would_pass(grade), grade.summary()


def correct_full_marks(grade: Grade) -> None:
    """Assert ``full_marks``; say which check took points off when it does not."""
    assert full_marks(grade), grade.summary()


# ----------------------------------------------------------------------------- reading the grader
def check(task: TaskRef, check_id: str) -> Any:
    """The gate or criterion ``check_id`` of the task's grader (cases read their targets there)."""
    return next(c for c in task_of(task).grader.checks() if c.id == check_id)


def fact(task: TaskRef, key: str) -> Fact:
    """The grader's fact ``key`` (``entity.attribute``): the value a case writes right or wrong."""
    facts = task_of(task).grader.facts
    assert facts is not None, "the task's grader has no facts"
    return facts.fact(key)


def entity_name(task: TaskRef, key: str) -> str:
    """The name of the grader's fact entity ``key`` (an invoice number, an account, a person)."""
    facts = task_of(task).grader.facts
    assert facts is not None, "the task's grader has no facts"
    return facts.entities[key].name


def usd(amount: float) -> str:
    """``amount`` as the acme references write dollars: ``$1,234.50``."""
    return f"${amount:,.2f}"
