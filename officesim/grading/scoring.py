"""Gates, points and the Grade: turning check outcomes into a score and a pass/fail.

``score = max(0, earned) / sum of positive points`` over the criteria that got a verdict; any
failing gate makes the score 0; ``passed`` = every gate holds and ``score >= pass_threshold``.
A criterion without a verdict (``error``: the judge or the grader broke; ``unjudged``: no judge
configured) counts neither way and the grade says how many there were.  An ``error`` makes the
grade ``incomplete``: it is never passed, whatever the other points say (a judge that times out
must not leave a leak unpunished).  ``unjudged`` is the deliberate mode without a judge: the
deterministic core every task has decides ``passed``, and the grade says judged points are missing.

Statuses are from the agent's side: a criterion with positive points is ``pass`` when its check
holds; a penalty (negative points) is ``fail`` when its check holds (the bad thing happened).
``holds`` keeps the raw truth value of the check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from officesim.errors import SpecError
from officesim.grading.context import GradeContext
from officesim.grading.normalize import reading_locale
from officesim.grading.spec_base import Outcome

if TYPE_CHECKING:
    from officesim.grading.grader_spec import CheckBase, GraderSpec
    from officesim.grading.judge import Judge
    from officesim.task import Task
    from officesim.world import World

Status = Literal["pass", "fail", "error", "unjudged"]


class CheckResult(BaseModel):
    """One gate or criterion as graded."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The check's id in grader.yaml.")
    check: str = Field(description="The check kind (mail_sent, record, judge, ...).")
    role: Literal["gate", "criterion"] = Field(description="Gate (must hold) or criterion (worth points).")
    description: str | None = Field(None, description="The check's description from grader.yaml.")
    points: float | None = Field(None, description="Criterion points (negative: a penalty); None for gates.")
    holds: bool | None = Field(description="Whether the check's condition held; None without a verdict.")
    status: Status = Field(description="pass/fail from the agent's side, or error/unjudged.")
    earned: float = Field(0.0, description="Points earned (criteria only).")
    reason: str = Field(description="Why, in words a person can act on.")
    evidence: Any = Field(None, description="What the check looked at (ids, counts, answer).")


class Grade(BaseModel):
    """The verdict on one episode: score, pass/fail, and every gate and criterion with its reason."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    score: float = Field(description="In [0, 1]: max(0, earned) / positive points, 0 when a gate failed.")
    passed: bool = Field(description="Every gate holds and score >= pass_threshold.")
    pass_threshold: float
    earned: float = Field(description="Sum of points earned over criteria with a verdict.")
    possible: float = Field(description="Sum of positive points over criteria with a verdict.")
    gates: list[CheckResult]
    criteria: list[CheckResult]
    unjudged: int = Field(description="Gates and criteria not judged (no judge configured).")
    errors: int = Field(description="Gates and criteria whose check or judge failed.")
    complete: bool = Field(description="No error and nothing unjudged: the score is the full verdict.")
    incomplete: bool = Field(False, description="A check has no verdict because it failed (the judge erred, timed "
                             "out or answered garbage; the grader is broken): never passed; callers choose its "
                             "reward (reward_on_incomplete) and runs record it as an error.")
    answer: str | None = Field(None, description="The submitted answer.")
    notes: list[str] = Field(default_factory=list, description="Why the score and pass are what they are.")
    task_hash: str
    grader_hash: str

    def results(self) -> list[CheckResult]:
        return [*self.gates, *self.criteria]

    def comparable(self) -> dict[str, Any]:
        """The grade without fields that may legitimately differ between identical gradings (cache hits)."""
        data = self.model_dump()
        for item in [*data["gates"], *data["criteria"]]:
            if isinstance(item.get("evidence"), dict):
                item["evidence"].pop("cached", None)
        return data

    def summary(self) -> str:
        """A readable report: one line per gate and criterion, then the score."""
        lines = [f"task {self.task_id}: {'PASSED' if self.passed else 'NOT PASSED'}  score {self.score:.3f} "
                 f"(earned {self.earned:g} of {self.possible:g}, threshold {self.pass_threshold:g})"]
        for result in self.results():
            points = "gate" if result.role == "gate" else f"{result.earned:+g}/{result.points:+g}"
            lines.append(f"  [{result.status:^8}] {result.id:<28} {points:>10}  {result.reason}")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def _status(check: CheckBase, role: str, outcome: Outcome) -> Status:
    if outcome.verdict != "verdict" or outcome.holds is None:
        return "error" if outcome.verdict == "error" else "unjudged"
    good = outcome.holds if role == "gate" or (check.points or 0) > 0 else not outcome.holds
    return "pass" if good else "fail"


def judge_flips(grader: GraderSpec, pass_threshold: float) -> str | None:
    """Why ``passed`` could depend on the judge (``None`` when code decides it), for ``tasks validate``.

    A task's point must be checked by code; judged criteria may add quality points on top.  It
    flips when a judge gate exists, or when every code check holding and every judged point going
    against the agent leaves the score under the threshold (or when nothing positive is code-checked).
    """
    if any(g.check == "judge" for g in grader.gates):
        return "a gate is judged: its verdict decides passed"
    code = sum(c.points or 0 for c in grader.criteria if c.check != "judge" and (c.points or 0) > 0)
    judged = sum(c.points or 0 for c in grader.criteria if c.check == "judge" and (c.points or 0) > 0)
    penalties = -sum(c.points or 0 for c in grader.criteria if c.check == "judge" and (c.points or 0) < 0)
    if not judged and not penalties:
        return None
    if code == 0 and not grader.gates:
        return "nothing is checked by code: the judge alone decides passed"
    worst = max(0.0, code - penalties) / (code + judged) if code + judged else 1.0
    if worst < pass_threshold - 1e-9:
        return (f"passed could flip on judged points: with every code check holding and the judge against it, "
                f"the score is {worst:.3f} < threshold {pass_threshold:g}")
    # the other way: a code-checked part missing, the judge's points making up for it
    for criterion in grader.criteria:
        points = criterion.points or 0
        if criterion.check == "judge" or points <= 0 or _gated(criterion, grader.gates):
            continue
        best = (code - points + judged) / (code + judged)
        if best >= pass_threshold - 1e-9:
            return (f"passed could flip on judged points: with {criterion.id} failing and the judge for the rest, "
                    f"the score is {best:.3f} >= threshold {pass_threshold:g} (make the part a gate, or weigh it "
                    "more than the judged points)")
    return None


_FREE_FIELDS = {"id", "points", "description"}


def _gated(criterion: CheckBase, gates: Sequence[CheckBase]) -> bool:
    """Whether a gate already demands what ``criterion`` checks, so it cannot fail while the gates hold:
    the same check, or a facts check on the same text requiring at least the same facts."""
    mine = criterion.model_dump(exclude=_FREE_FIELDS)
    for gate in gates:
        theirs = gate.model_dump(exclude=_FREE_FIELDS)
        if theirs == mine:
            return True
        if criterion.check == "facts" and gate.check == "facts" and all(
                theirs.get(k) == mine.get(k) for k in ("text", "to", "channel")) and all(
                set(map(str, mine.get(k) or [])) <= set(map(str, theirs.get(k) or []))
                for k in ("require", "require_any", "name", "exclude")):
            return True
    return False


def run_check(check: CheckBase, role: Literal["gate", "criterion"], ctx: GradeContext) -> CheckResult:
    """Run one check; a broken grader (``SpecError``) becomes an ``error`` result, bugs propagate."""
    try:
        outcome = check.evaluate(ctx)
    except SpecError as exc:
        outcome = Outcome(None, f"the grader is broken: {exc}", verdict="error")
    status = _status(check, role, outcome)
    earned = float(check.points or 0) if role == "criterion" and outcome.holds else 0.0
    return CheckResult(
        id=check.id, check=check.check, role=role, description=check.description,
        points=check.points if role == "criterion" else None, holds=outcome.holds, status=status,
        earned=earned, reason=outcome.reason, evidence=outcome.evidence,
    )


def failed_gates(gates: list[CheckResult]) -> list[str]:
    return [g.id for g in gates if g.status == "fail"]


def score_of(gates: list[CheckResult], criteria: list[CheckResult]) -> tuple[float, float, float, list[str]]:
    """(score, earned, possible, notes) from graded gates and criteria."""
    notes: list[str] = []
    judged = [c for c in criteria if c.status in ("pass", "fail")]
    earned = sum(c.earned for c in judged)
    possible = sum(c.points or 0 for c in judged if (c.points or 0) > 0)
    if possible > 0:
        score = min(1.0, max(0.0, earned) / possible)
    elif not criteria or (judged and len(judged) == len(criteria)):
        score = 1.0 if earned >= 0 else 0.0  # gates only, or penalties only
    else:
        score = 0.0
        notes.append("no criterion with positive points got a verdict, so the score is 0")
    failed = [g.id for g in gates if g.status == "fail"]
    if failed:
        notes.append(f"gate(s) failed: {', '.join(failed)}; the score is 0")
        score = 0.0
    return score, earned, possible, notes


def grade(
    task: Task,
    start: World,
    final: World,
    answer: str | None,
    transcript: list[dict[str, Any]] | None = None,
    judge: Judge | None = None,
) -> Grade:
    """Grade an episode of ``task`` from its start and final worlds, answer and transcript."""
    ctx = GradeContext(
        instruction=task.instruction, start=start, final=final, diff=final.diff(start, use_change_log=True),
        answer=answer, transcript=transcript or [], judge=judge, rubrics=task.rubrics,
        facts=task.grader.facts,
    )
    try:
        with reading_locale(start.meta("locale")):  # "12.450 €" is 12450 in a German world
            gates = [run_check(check, "gate", ctx) for check in task.grader.gates]
            criteria = [run_check(check, "criterion", ctx) for check in task.grader.criteria]
    finally:
        ctx.release()
    score, earned, possible, notes = score_of(gates, criteria)
    results = [*gates, *criteria]
    unjudged = sum(r.status == "unjudged" for r in results)
    errors = sum(r.status == "error" for r in results)
    if unjudged:
        notes.append(f"{unjudged} check(s) unjudged: no judge is configured (they count neither way)")
    if errors:
        notes.append(f"{errors} check(s) errored (they count neither way): see their reasons")
    gates_hold = all(g.status == "pass" for g in gates)
    if not gates_hold and not any(g.status == "fail" for g in gates):
        notes.append("not passed: a gate has no verdict")
    incomplete = errors > 0
    if incomplete:
        notes.append("incomplete: a check has no verdict (see the errors), so the episode cannot pass")
    # A threshold below 1 says judged points are extra: unjudged ones count as not earned for the
    # decision, so without a judge, as with one, the code-checked core alone has to reach it.
    decisive = score
    if task.pass_threshold < 1.0 and unjudged:
        missing = sum(c.points or 0 for c in criteria if c.status == "unjudged" and (c.points or 0) > 0)
        decisive = max(0.0, earned) / (possible + missing) if possible + missing else score
        if failed_gates(gates):
            decisive = 0.0
    passed = gates_hold and decisive >= task.pass_threshold - 1e-9 and not incomplete
    return Grade(
        task_id=task.id, score=round(score, 6), passed=passed, pass_threshold=task.pass_threshold,
        earned=earned, possible=possible, gates=gates, criteria=criteria, unjudged=unjudged, errors=errors,
        complete=not unjudged and not errors, incomplete=incomplete, answer=answer, notes=notes,
        task_hash=task.task_hash, grader_hash=task.grader_hash,
    )
