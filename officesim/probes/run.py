"""Play a task's variants and probes on its cached start state and say which came out wrong."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from officesim.env import play
from officesim.probes import claims, messages, order, paths, picks, probes, replies, variants  # noqa: F401  (they register the kinds)
from officesim.probes.facts import facts_for, family_facts
from officesim.probes.families import kinds_for
from officesim.probes.kinds import PROBES, VARIANTS, Context, Kind
from officesim.probes.trajectory import Reference, ReplayAgent

if TYPE_CHECKING:
    from officesim.env import OfficeEnv
    from officesim.grading.scoring import Grade


@dataclass
class KindRun:
    """One variant or probe played on one task."""

    kind: str
    expect: str  # "pass" (variant) or "fail" (probe)
    score: float
    passed: bool
    grade: Grade


def context(reference: Reference) -> Context:
    return Context(reference, facts_for(reference.task), family_facts(reference.task))


def build_all(ctx: Context, names: list[str], table: dict[str, Kind]) -> list[tuple[Kind, Any]]:
    """The trajectories of the kinds that apply to this instance."""
    built = []
    for name in names:
        kind = table[name]
        trajectory = kind.build(ctx)
        if trajectory is not None:
            built.append((kind, trajectory))
    return built


def play_kinds(env: OfficeEnv, reference: Reference) -> list[KindRun]:
    """Build and play every variant and probe the task's family declares."""
    ctx = context(reference)
    family = kinds_for(reference.task.family)
    runs = []
    for kind, trajectory in [*build_all(ctx, family.variants(), VARIANTS), *build_all(ctx, family.probes(), PROBES)]:
        role = "variant" if kind.expect == "pass" else "probe"
        grade = play(env, ReplayAgent(f"{role}:{kind.name}", trajectory))
        runs.append(KindRun(kind.name, kind.expect, grade.score, grade.passed, grade))
    return runs
