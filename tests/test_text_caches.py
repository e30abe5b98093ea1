"""The text caches only save time: a grading with them emptied gives the very same grade.

``forget_texts`` is what the episode benchmark calls to measure grading as a never-seen answer
costs it; if emptying a cache changed a verdict, the cache would be deciding grades.
"""

from __future__ import annotations

import pytest
from playing import answered, shipped

from officesim import OfficeEnv
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.grading.scoring import grade
from officesim.grading.text_caches import TEXT_CACHES, forget_texts

TASKS = ["travel-expense-report-001", "month-end-close-001", "headcount-answer-001", "beyond-permissions-001"]


def _verdicts(task_id: str) -> tuple[bool, float, list[tuple[str, str]]]:
    task = shipped(task_id)
    env = OfficeEnv(task)
    play(env, OracleAgent(task))
    result = grade(task, task.start_world(), env.world, env.answer, env.transcript, None)
    return result.passed, result.score, [(r.id, r.status) for r in result.results()]


@pytest.mark.parametrize("task_id", TASKS)
def test_a_grading_with_the_text_caches_emptied_is_the_same_grade(task_id: str) -> None:
    warm = _verdicts(task_id)
    assert any(cached.cache_info().currsize for cached in TEXT_CACHES)  # type: ignore[attr-defined]
    forget_texts()
    assert all(cached.cache_info().currsize == 0 for cached in TEXT_CACHES)  # type: ignore[attr-defined]
    assert _verdicts(task_id) == warm
    assert warm[0]


def test_a_wrong_answer_is_failed_with_the_caches_warm_and_emptied() -> None:
    warm = answered("headcount-answer-001", "14")
    forget_texts()
    cold = answered("headcount-answer-001", "14")
    assert [(r.id, r.status) for r in warm.results()] == [(r.id, r.status) for r in cold.results()]
    assert not cold.passed and any(r.id == "count" and r.status == "fail" for r in cold.results())
