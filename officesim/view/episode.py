"""An episode, replayed: each tool call and its result, the world's diff up to that step, the grade.

A transcript's tool calls are replayed on the task's start state (``officesim.replay``): the
results and diffs shown are what the world did, never what the transcript file claims, and the
grade at the end is computed afresh with every gate and criterion and its reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from officesim.env import OfficeEnv
from officesim.grading.scoring import Grade
from officesim.replay import read_transcript, tool_calls
from officesim.task import Task, load_task
from officesim.view.html import esc, link, pre, status, table

MAX_STEPS_SHOWN = 500


@dataclass
class Step:
    """One replayed call: what was asked, what came back, and what had changed by then."""

    name: str
    arguments: Any
    result: Any
    diff: dict[str, dict[str, int]]
    changes: dict[str, Any]


@dataclass
class Episode:
    """A replayed transcript."""

    task: Task
    steps: list[Step]
    grade: Grade
    ignored: int
    source: str


def replay_episode(task_dir: Path, transcript: Path) -> Episode:
    """Replay ``transcript`` on the task in ``task_dir``, recording every step."""
    task = load_task(task_dir)
    calls = tool_calls(read_transcript(transcript))[:MAX_STEPS_SHOWN]
    env = OfficeEnv(task)
    env.reset(seed=0)
    start = task.start_world()
    steps: list[Step] = []
    grade: Grade | None = None
    ignored = 0
    for index, call in enumerate(calls):
        obs, _, terminated, truncated, info = env.step(call)
        function = call.get("function", call)
        changed = env.world.diff(start) if env.world is not None else None
        steps.append(Step(name=str(function.get("name")), arguments=function.get("arguments"),
                          result=obs.get("result"), diff=changed.summary() if changed else {},
                          changes=changed.to_dict() if changed else {}))
        if terminated or truncated:
            grade, ignored = info["grade"], len(calls) - index - 1
            break
    return Episode(task, steps, grade or env.finish(), ignored, str(transcript))


def render_grade(grade: Grade) -> str:
    rows = [(esc(r.role), esc(r.id), esc(r.check), status(r.status),
             "gate" if r.role == "gate" else f"{r.earned:+g} / {r.points:+g}",
             f"<span class='reason'>{esc(r.reason)}</span>")
            for r in grade.results()]
    notes = "".join(f"<li>{esc(n)}</li>" for n in grade.notes)
    verdict = "<span class='pass'>PASSED</span>" if grade.passed else "<span class='fail'>NOT PASSED</span>"
    return (f"<h2 id='grade'>Grade: {verdict} &nbsp; score {grade.score:.3f}</h2>"
            f"<p>earned {grade.earned:g} of {grade.possible:g} possible; "
            f"threshold {grade.pass_threshold:g}; {grade.unjudged} unjudged, {grade.errors} errored</p>"
            + table(["role", "id", "check", "status", "points", "reason"], rows, css_id="checks")
            + (f"<ul>{notes}</ul>" if notes else "")
            + (f"<p>answer:</p>{pre(grade.answer)}" if grade.answer else ""))


def render_episode(episode: Episode, here: str, step: int | None) -> str:
    """The page: the instruction, a step navigator, the chosen step (or the grade after the last)."""
    total = len(episode.steps)
    current = max(0, min(0 if step is None else step, total))  # opens on the first call; ``total``: the grade
    nav = " ".join(f"<a class='{'current' if i == current else ''}' href='{esc(here)}?step={i}'>"
                   f"{i + 1 if i < total else 'grade'}</a>" for i in range(total + 1))
    prev_link = link(here, "◀ previous", step=current - 1) if current > 0 else ""
    next_link = (f"<a id='next' href='{esc(here)}?step={current + 1}'>next ▶</a>" if current < total else "")
    head = (f"<p>task <strong>{esc(episode.task.id)}</strong> ({esc(episode.task.category)}, "
            f"{esc(episode.task.difficulty)}); transcript <code>{esc(episode.source)}</code>; {total} tool call(s)"
            + (f", {episode.ignored} after the end ignored" if episode.ignored else "") + "</p>"
            f"<h2>Instruction</h2>{pre(episode.task.instruction)}"
            f"<nav class='steps'>steps: {nav}</nav><p>{prev_link} &nbsp; {next_link}</p>")
    if current == total:
        return head + render_grade(episode.grade)
    s = episode.steps[current]
    diff_rows = [(esc(t), str(c["inserted"]), str(c["updated"]), str(c["deleted"])) for t, c in s.diff.items()]
    return (head + f"<h2 id='step'>Step {current + 1} of {total}: <code>{esc(s.name)}</code></h2>"
            f"<h3>arguments</h3>{pre(s.arguments)}<h3>result</h3>{pre(s.result)}"
            f"<h3>world diff from the start up to this step</h3>"
            + (table(["table", "inserted", "updated", "deleted"], diff_rows) + pre(s.changes) if diff_rows
               else "<p class='muted'>nothing changed yet</p>"))
