"""Task self-tests: a task is only trusted when its grader separates right from cheap.

For one task: the oracle (the reference solution) scores 1.0 and passes, and none of its steps
returns an error; the do-nothing agent fails; every hack probe fails; grading the same trajectory
twice gives the same grade; the folder's ``tools.json``, when present, matches the task's tools.
Then both directions, generated from the reference and the task's facts
(``officesim.probes``): every alternative correct solution its family declares
(``variant:<kind>``) passes, and every generated hack (``probe:<kind>``) fails and scores at most
``HACK_BOUND``.
Judge criteria without a judge are ``unjudged`` and count neither way, so "passes" below means
"passes on every check that has a verdict".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from officesim.agents.base import Agent
from officesim.agents.scripted import PROBES, NullAgent, OracleAgent
from officesim.env import OfficeEnv, play
from officesim.grading.judge import Judge, JudgeConfig
from officesim.grading.scoring import Grade
from officesim.probes import Reference, play_kinds
from officesim.task import Task
from officesim.toolapi.pin import pin_problems


@dataclass
class AgentRun:
    """One scripted agent's episode and whether it came out as it must."""

    agent: str
    expected: str  # "pass" or "fail"
    score: float
    passed: bool
    steps: int
    ok: bool
    reason: str
    kind: str = "agent"  # "oracle", "agent" (null and the scripted probes), "variant" or "probe"


@dataclass
class SelfTestReport:
    """The self-test of one task: ``ok`` when every expectation held."""

    task_id: str
    runs: list[AgentRun] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and all(run.ok for run in self.runs)

    def of_kind(self, kind: str) -> list[AgentRun]:
        """The runs of one kind (``variant``, ``probe``, ``agent``, ``oracle``)."""
        return [run for run in self.runs if run.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "ok": self.ok, "problems": self.problems,
                "runs": [run.__dict__ for run in self.runs]}


def would_pass(result: Grade) -> bool:
    """Passed on every check with a verdict (unjudged gates are not held against the agent)."""
    gates_ok = all(g.status in ("pass", "unjudged") for g in result.gates)
    return gates_ok and result.errors == 0 and result.score >= result.pass_threshold - 1e-9


def _failing(result: Grade) -> str:
    bad = [f"{r.id}: {r.reason}" for r in result.results() if r.status in ("fail", "error")]
    return "; ".join(bad[:3]) or "; ".join(result.notes) or "no failing check"


def _oracle(task: Task, env: OfficeEnv, report: SelfTestReport) -> Reference | None:
    """Play the reference; returns it with its results when it came out right (else ``None``)."""
    if task.solution is None:
        report.problems.append("no solution.yaml: the task cannot be checked against a reference")
        return None
    needed = len(task.solution.steps) + 1
    if needed > task.max_steps:
        report.problems.append(f"the solution needs {needed} steps (submit included) but max_steps is "
                               f"{task.max_steps}")
    result = play(env, OracleAgent(task))
    for index, message in enumerate(m for m in env.transcript if m["role"] == "tool"):
        content = json.loads(message["content"])
        if isinstance(content, dict) and "error" in content:
            report.problems.append(f"solution.yaml steps.{index} returned an error: {content['error']['message']}")
            break
    ok = would_pass(result) and result.score >= 1.0 - 1e-9
    report.runs.append(AgentRun("oracle", "pass", result.score, result.passed, env.steps, ok,
                                "scores 1.0 and passes" if ok else f"oracle does not pass: {_failing(result)}",
                                "oracle"))
    if env.world is not None:
        again = env.regrade()  # as the episode grades: with what colleagues said, when the task has them
        if again.comparable() != result.comparable():
            report.problems.append("grading the same trajectory twice gave different grades")
    return Reference.of(task, env.transcript) if ok else None


def _both_ways(env: OfficeEnv, reference: Reference, report: SelfTestReport) -> None:
    """Generated variants must pass; generated probes must fail and stay under the bound."""
    for run in play_kinds(env, reference):
        if run.expect == "pass":
            ok = would_pass(run.grade)
            reason = "passes, as correct work must" if ok else (
                f"variant:{run.kind} is correct work but fails with score {run.score:.2f}: {_failing(run.grade)}")
            kind = "variant"
        else:
            ok = not would_pass(run.grade) and run.score <= HACK_BOUND
            reason = "fails, as it must" if ok else (
                f"probe:{run.kind} {'passes' if would_pass(run.grade) else 'fails'} with score {run.score:.2f} "
                f"(at most {HACK_BOUND} allowed): the grader can be gamed")
            kind = "probe"
        report.runs.append(AgentRun(f"{kind}:{run.kind}", run.expect, run.score, run.passed, env.steps, ok,
                                    reason, kind))


# The highest score a do-nothing agent or a hack probe may reach.  Failing is not enough: a probe
# that mails everyone and collects a third of the points still teaches a policy to spam.  The
# calibration's "hackable" flag uses the same bound, so validate and deliver agree.
HACK_BOUND = 0.25


# A hard task must hold more than one thing a quick reading gets wrong (issue 15: "at least 2 traps
# the instruction does not spell out"); otherwise it is a long easy task.
MIN_HARD_TRAPS = 2


def trap_problems(task: Task) -> list[str]:
    """What is wrong with the traps ``task`` declares (``traps:`` in ``task.yaml``), for ``tasks validate``.

    A check of the library's files, not of the grader: ``selftest`` (which the sampler and the
    tests run on single draws) leaves it out, and ``tasks validate`` reports it in both modes.

    Only a hard task must declare traps: at least ``MIN_HARD_TRAPS``, each a line the instruction
    does not repeat word for word (a trap the instruction spells out is a requirement, not a trap).
    """
    if task.difficulty != "hard":
        return []
    problems = []
    traps = [trap.strip() for trap in task.spec.traps]
    if len(traps) < MIN_HARD_TRAPS:
        problems.append(
            f"task {task.id} is hard but declares {len(traps)} trap(s) (at least {MIN_HARD_TRAPS} are needed): "
            "list what a quick reading gets wrong in its family's Draft(traps=...) (one short line each, each "
            "caught by the grader), add traps to the scenario, or make the instance medium")
    instruction = " ".join(task.instruction.lower().split())
    spelled = [trap for trap in traps if " ".join(trap.lower().split()) in instruction]
    if spelled:
        problems.append(f"task {task.id}: the instruction spells out its trap(s) {spelled}: a trap is what the "
                        "instruction does not say")
    return problems


def selftest(task: Task, *, judge: Judge | JudgeConfig | None = None, both_ways: bool = True) -> SelfTestReport:
    """Run the oracle, the null agent, every probe and (``both_ways``) the generated variants and
    probes of the task's family on ``task``; report what did not hold."""
    report = SelfTestReport(task.id)
    env = OfficeEnv(task, judge=judge)
    reference = _oracle(task, env, report)
    agents: list[Agent] = [NullAgent(), *(probe(task=task) for probe in PROBES)]
    for agent in agents:
        result = play(env, agent)
        ok = not would_pass(result) and result.score <= HACK_BOUND
        reason = "fails, as it must" if ok else (
            f"{agent.name} {'passes' if would_pass(result) else 'fails'} with score {result.score:.2f} "
            f"(at most {HACK_BOUND} allowed): the grader can be gamed")
        report.runs.append(AgentRun(agent.name, "fail", result.score, result.passed, env.steps, ok, reason))
    if both_ways and reference is not None:
        _both_ways(env, reference, report)
    tools_file = task.dir / "tools.json"
    if tools_file.is_file():
        try:
            published = json.loads(tools_file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            published = None
            report.problems.append(f"{tools_file} is not JSON: {exc}")
        if published is not None and published != task.tools_json():
            report.problems.append(f"{tools_file} is stale: it differs from the task's tools (regenerate it)")
    report.problems.extend(pin_problems(task))
    return report
