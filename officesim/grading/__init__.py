"""Grading: declarative checks over the final state, gates and points, and the LLM judge.

``grade(task, start, final, answer, transcript, judge)`` returns a ``Grade``; ``JudgeConfig``
configures the judge (the ``openai`` client is only imported when a judge is first called).
"""

from officesim.grading.judge import Judge, JudgeConfig
from officesim.grading.scoring import CheckResult, Grade, grade

__all__ = ["CheckResult", "Grade", "Judge", "JudgeConfig", "grade"]
