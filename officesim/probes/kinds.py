"""The registry of variant and probe kinds, and what every kind is built from.

A *variant* is an alternative correct solution: it must pass.  A *probe* is a cheap hack: it
must fail and score at most ``HACK_BOUND``.  Both are functions of a ``Context`` (the reference
solution played once, the task's facts, its family's facts) returning a ``Trajectory`` to play,
or ``None`` when the kind does not apply to this instance (no dates to respell, one recipient
only...).  Families declare which kinds apply to them, and why, in ``families.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from officesim.probes import wording
from officesim.probes.facts import Facts
from officesim.probes.trajectory import Reference, Trajectory
from officesim.task import Task


@dataclass
class Context:
    """Everything a kind may build from."""

    ref: Reference
    facts: Facts
    family: list[Facts] = field(default_factory=list)

    @property
    def task(self) -> Task:
        return self.ref.task

    @cached_property
    def tools(self) -> set[str]:
        return set(self.task.tools)

    @cached_property
    def _currency(self) -> tuple[str, str]:
        spec = self.task.world_spec()
        return spec.currency, spec.locale

    def money(self, value: float) -> str:
        """An amount in the task world's currency and locale, as a probe or variant writes it into an
        answer or message (``$26,300``; ``26.300 €`` on a de_DE world in EUR)."""
        return wording.money(value, *self._currency)

    @cached_property
    def forbids_promise(self) -> bool:
        """Whether the grader holds a promise to send (a facts entity of kind ``promise``) as what a reply
        must not make: a refusal's task."""
        spec = self.task.grader.facts
        return spec is not None and any(e.kind == "promise" for e in spec.entities.values())

    @cached_property
    def people(self) -> list[dict[str, Any]]:
        """The directory at the start (name, email, id, role)."""
        return self.task.start_world().rows("directory_person")

    @cached_property
    def user_email(self) -> str:
        return str(self.task.user_info().get("email", ""))

    def inbox_from(self, email: str) -> list[dict[str, Any]]:
        """Messages in the acting user's inbox sent by ``email`` at the start, newest first."""
        world = self.task.start_world()
        user = world.user_id
        rows = world.db.execute(
            "SELECT m.id, m.subject, m.thread_id FROM mail_message m JOIN mail_entry e ON e.message_id = m.id "
            "WHERE e.owner_id = ? AND e.folder = 'inbox' AND lower(m.sender) = lower(?) "
            "ORDER BY m.sent_at DESC", (user, email)).fetchall()
        return [{"id": r[0], "subject": r[1], "thread_id": r[2]} for r in rows]


Build = Callable[[Context], Trajectory | None]


@dataclass(frozen=True)
class Kind:
    """One way to vary the reference solution."""

    name: str
    expect: Literal["pass", "fail"]
    build: Build
    doc: str


VARIANTS: dict[str, Kind] = {}
PROBES: dict[str, Kind] = {}


def variant(name: str) -> Callable[[Build], Build]:
    """Register an alternative correct solution (it must pass)."""
    def register(build: Build) -> Build:
        VARIANTS[name] = Kind(name, "pass", build, (build.__doc__ or "").strip().splitlines()[0])
        return build
    return register


def probe(name: str) -> Callable[[Build], Build]:
    """Register a hack (it must fail and score at most ``HACK_BOUND``)."""
    def register(build: Build) -> Build:
        PROBES[name] = Kind(name, "fail", build, (build.__doc__ or "").strip().splitlines()[0])
        return build
    return register
