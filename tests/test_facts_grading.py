"""Grading on facts, on shipped tasks: each hack class of issue 9 fails, each correct variant passes.

Every case plays a shipped task's reference solution with one change (the text it writes, the
answer, an extra call) and asserts the grade.  The hack classes: hedges, blind answers from the
shared world, figures not tied to their entity, tolerance grids, raw dumps plus a computed line,
leaks between recipients, a promise instead of the deed, namesake attachments, judge-only cores,
sampled collateral checks.  The false negatives: "it" read as IT, "the other departments came in
under budget", an explained figure, "seven", "Five.", "10/03/2026", "($25,300)", a paraphrased
escalation, owners by first name, a near miss named as excluded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from officesim import OfficeEnv, load_task
from officesim.grading.rubric import Grade
from officesim.selftest import would_pass
from officesim.task import Task

TASKS = Path(__file__).resolve().parent.parent / "tasks"
Edit = Callable[[dict[str, Any]], dict[str, Any] | None]


def task(task_id: str) -> Task:
    return load_task(TASKS / task_id)


def replay(t: Task, *, answer: str | None = None, text: str | None = None, edit: dict[str, Edit] | None = None,
           before_submit: list[dict[str, Any]] | Callable[[OfficeEnv], list[dict[str, Any]]] = ()) -> Grade:
    """The oracle's episode with ``answer`` submitted instead, the last text it writes replaced by
    ``text``, calls changed by ``edit`` (tool name -> new arguments, None drops the call), and
    ``before_submit`` calls made at the end."""
    env = OfficeEnv(t)
    env.reset()
    actions = [{"name": s.name, "arguments": dict(s.arguments)} for s in t.solution.steps]
    writes = [i for i, a in enumerate(actions) if any(f in a["arguments"] for f in ("body", "text", "content"))]
    for i, action in enumerate(actions):
        arguments = dict(action["arguments"])
        if text is not None and writes and i == writes[-1]:
            field = next(f for f in ("body", "text", "content") if f in arguments)
            arguments[field] = text
        if edit and action["name"] in edit:
            changed = edit[action["name"]](arguments)
            if changed is None:
                continue
            arguments = changed
        obs, *_ = env.step({"name": action["name"], "arguments": arguments})
        assert "error" not in (obs.get("result") or {}), obs["result"]
    extra = before_submit(env) if callable(before_submit) else before_submit
    for call in extra:
        obs, *_ = env.step(call)
        assert "error" not in (obs.get("result") or {}), obs["result"]
    submitted = answer if answer is not None else t.solution.answer
    *_, info = env.step({"name": "submit", "arguments": {"answer": submitted}})
    return info["grade"]


def passes(grade: Grade) -> bool:
    return would_pass(grade) and grade.score >= 1.0 - 1e-9


def fails(grade: Grade) -> bool:
    return not would_pass(grade) and grade.score <= 0.25 + 1e-9


def fact(t: Task, check_id: str, field: str = "require") -> Any:
    check = next(c for c in [*t.grader.gates, *t.grader.criteria] if c.id == check_id)
    key = getattr(check, field)[0]
    return t.grader.facts.fact(key) if field == "require" else t.grader.facts.entities[key]


# ------------------------------------------------------------------------------------ hedging
def test_a_hedged_overrun_fails_and_the_committed_one_passes() -> None:
    t = task("budget-variance-answer-001")  # Sales, over by $26,300
    assert passes(replay(t, answer="Sales, over by $26,300"))
    assert fails(replay(t, answer="Sales, over by roughly $26,000 or $26,300"))
    assert fails(replay(t, answer="Sales or Finance: $26,300"))
    assert fails(replay(t, answer="Sales, Finance, IT, Legal, Operations, Engineering: $26,300"))


def test_a_count_offered_as_a_range_fails() -> None:
    t = task("headcount-answer-001")
    value = int(fact(t, "count").value)
    assert passes(replay(t, answer=f"{value}"))
    assert fails(replay(t, answer=f"Roughly {value - 1}, {value} or {value + 1}"))


# ------------------------------------------------------------------------------------ false negatives
@pytest.mark.parametrize("answer", [
    "Sales was the furthest over its Q3 budget. It overspent by $26,300.",
    "Sales, over by $26,300; the other departments came in under budget.",
    "Sales: over by ($26,300) against budget.",
    "Sales is furthest over: actual $%(actual)s against a budget of $%(budget)s, so over by $26,300.",
])
def test_correct_department_answers_written_differently_pass(answer: str) -> None:
    t = task("budget-variance-answer-001")
    rows = [r for r in t.spec.setup[1].arguments["rows"] if r[1] == "Sales"]
    text = answer % {"actual": f"{sum(r[3] for r in rows):,.0f}", "budget": f"{sum(r[2] for r in rows):,.0f}"}
    assert passes(replay(t, answer=text)), text


def test_counts_in_words_pass() -> None:
    t = task("headcount-answer-001")
    value = int(fact(t, "count").value)
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
             "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    if value < len(words):
        assert passes(replay(t, answer=f"{words[value].capitalize()}."))
        assert passes(replay(t, answer=f"{words[value]} people"))


# ------------------------------------------------------------------------------------ blind answers
def test_every_manager_listed_fails_and_the_manager_by_first_name_passes() -> None:
    t = task("dm-answer-question-002")
    manager = fact(t, "correct_fact", "name")
    facts = t.grader.facts
    everyone = ", ".join(e.name for e in facts.entities.values() if e.kind == "person")
    channel = next(c for c in t.grader.criteria if c.id == "correct_fact").channel
    post = lambda text: {"chat_post_message": lambda a: {**a, "text": text}}  # noqa: E731
    assert fails(replay(t, edit=post(f"It's one of {everyone}")))
    assert passes(replay(t, edit=post(f"Hi! {manager.name.split()[0]} is their manager.")))
    assert passes(replay(t, edit=post(f"{manager.name} ({manager.person})")))
    assert channel
