"""Grade stored trajectories again, to catch graders that do not give the same verdict twice.

A trajectory replayed on the task's start state must reach the same world, so every
deterministic check must give the same verdict; if one does not, the task is *flaky*.  Judge
criteria may legitimately vary; how often they disagree with themselves on the same trajectory
is the task's *ambiguity*.  Replay follows ``officesim grade`` exactly (reset, step every
assistant tool call in order, ``finish`` if the calls never end the episode): both use
``officesim.replay``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from officesim.env import OfficeEnv
from officesim.grading.judge import JudgeConfig
from officesim.replay import replay, tool_calls
from officesim.task import Task

VERDICTS = ("pass", "fail")


def verdicts(grade: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Per gate/criterion id: (check kind, status), from a grade dict."""
    return {item["id"]: (item["check"], item["status"])
            for item in [*grade.get("gates", []), *grade.get("criteria", [])]}


@dataclass
class RegradeReport:
    """What regrading one task's trajectories found."""

    task: str
    trajectories: int = 0
    flaky: list[str] = field(default_factory=list)          # "attempt 3: gate mailed_cfo pass -> fail"
    judge_disagreements: dict[str, int] = field(default_factory=dict)  # criterion id -> trajectories
    judge_trajectories: dict[str, int] = field(default_factory=dict)   # criterion id -> with >= 2 verdicts

    def ambiguity(self) -> dict[str, float]:
        """Per judge criterion: the share of trajectories on which its verdicts disagreed."""
        return {cid: self.judge_disagreements.get(cid, 0) / n for cid, n in self.judge_trajectories.items() if n}


def _uncached(env_options: Mapping[str, Any]) -> dict[str, Any]:
    """Env options whose judge bypasses its cache: a cached verdict always agrees with itself."""
    options = dict(env_options)
    judge = options.get("judge")
    if isinstance(judge, JudgeConfig):
        options["judge"] = dataclasses.replace(judge, cache_dir=None)
    return options


def regrade_task(task: Task, attempts: Iterable[tuple[int, Mapping[str, Any], list[dict[str, Any]]]], *,
                 times: int = 1, env_options: Mapping[str, Any] | None = None) -> RegradeReport:
    """Replay each ``(attempt, stored grade, transcript)`` ``times`` times and compare verdicts.

    Deterministic checks (everything but ``judge``) must agree with the stored grade and with each
    other; judge criteria are tallied for ambiguity.
    """
    report = RegradeReport(task.id)
    env = OfficeEnv(task, **_uncached(env_options or {}))
    for attempt, stored, transcript in attempts:
        calls = tool_calls(transcript)
        gradings = [verdicts(stored)]
        for _ in range(times):
            grade, _ = replay(env, calls)
            gradings.append(verdicts(grade.model_dump(mode="json")))
        report.trajectories += 1
        _compare(report, attempt, gradings)
    return report


def _compare(report: RegradeReport, attempt: int, gradings: list[dict[str, tuple[str, str]]]) -> None:
    first = gradings[0]
    for cid in sorted(set().union(*gradings)):
        kinds = {g[cid][0] for g in gradings if cid in g}
        statuses = [g[cid][1] if cid in g else "missing" for g in gradings]
        if "judge" in kinds:
            judged = [s for s in statuses if s in VERDICTS]
            if len(judged) >= 2:
                report.judge_trajectories[cid] = report.judge_trajectories.get(cid, 0) + 1
                if len(set(judged)) > 1:
                    report.judge_disagreements[cid] = report.judge_disagreements.get(cid, 0) + 1
        elif len(set(statuses)) > 1:
            before = first[cid][1] if cid in first else "missing"
            changed = next(s for s in statuses if s != before)
            report.flaky.append(f"attempt {attempt}: {cid} {before} -> {changed}")
