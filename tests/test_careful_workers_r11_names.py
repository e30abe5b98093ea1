"""A name typed without its accents names the person: "Ines Humbert" for Inès Humbert.

A blind audit answered inbox-triage-lantern-001's question about Manon Dupré's manager with
"Ines Humbert." and it failed ``answered_2`` ("does not name Inès Humbert"), though upper case
passed: the names matched without case, not without accents.
"""

from __future__ import annotations

import copy

import pytest
from playing import correct_passes, grade_of, hack_fails, reference

from officesim.probes import Trajectory

TASK = "inbox-triage-lantern-001"  # Diane Hebert asks who Manon Dupré's manager is: Inès Humbert


def _answered(text: str) -> Trajectory:
    """The reference, with the reply to Diane Hebert's question (its last mail reply) saying ``text``."""
    trajectory = reference(TASK)
    steps = [copy.deepcopy(s) for s in trajectory.actions()]
    last = max(i for i, s in enumerate(steps) if s["name"] == "mail_reply_message")
    steps[last]["arguments"]["body"] = text
    return Trajectory(steps, trajectory.answer)


@pytest.mark.parametrize("text", ["Ines Humbert.", "Inès Humbert.", "INES HUMBERT", "Hi Diane, it's Ines Humbert."])
def test_the_manager_with_or_without_accents_passes(text: str) -> None:
    correct_passes(grade_of(TASK, _answered(text)))


@pytest.mark.parametrize("text", ["Ines Humbert or Benjamin Barbier", "Benjamin Barbier"])
def test_another_person_or_a_hedge_fails(text: str) -> None:
    grade = grade_of(TASK, _answered(text))
    hack_fails(grade)
    assert "answered_2" in [g.id for g in grade.gates if g.status == "fail"]
