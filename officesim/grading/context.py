"""What every check reads: start and final worlds, their diff, the transcript and the answer.

Derived facts several checks need (the mail the agent sent, who the agent is) are computed once
per grading and kept here, so a grader with ten mail checks reads the diff once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, cast

from officesim.grading.facts import Reader
from officesim.person_refs import emails_of, looks_like_ref, resolve_column_value, resolve_person

if TYPE_CHECKING:
    from officesim.grading.facts import FactsSpec
    from officesim.grading.judge import Judge
    from officesim.grading.judge_rubrics import Rubric
    from officesim.world import World, WorldDiff


T = TypeVar("T")


@dataclass(frozen=True)
class SentMail:
    """A message the acting user sent during the episode, with its address lists parsed."""

    id: str
    thread_id: str
    to: tuple[str, ...]
    cc: tuple[str, ...]
    bcc: tuple[str, ...]
    subject: str
    body: str
    sent_at: str
    in_reply_to: str | None
    attachments: tuple[str, ...]

    def recipients(self) -> set[str]:
        return {*self.to, *self.cc, *self.bcc}

    def summary(self) -> dict[str, Any]:
        """A compact description for grade evidence."""
        out: dict[str, Any] = {"id": self.id, "to": list(self.to), "subject": self.subject}
        if self.cc:
            out["cc"] = list(self.cc)
        if self.bcc:
            out["bcc"] = list(self.bcc)
        if self.attachments:
            out["attachments"] = list(self.attachments)
        return out


def _addresses(text: str | None) -> tuple[str, ...]:
    values = json.loads(text or "[]")
    return tuple(str(v).strip().lower() for v in values)


@dataclass
class GradeContext:
    """Inputs of one grading, with lazily derived facts.

    Attributes:
        instruction: the task's instruction (judge prompts quote it).
        start: the world at the episode's start (read only).
        final: the world at the end.
        diff: ``final.diff(start, use_change_log=True)``.
        answer: what was passed to ``submit`` (``None``: nothing, or no submit at all).
        transcript: the episode in OpenAI chat messages.
        judge: the LLM judge, or ``None`` when none is configured.
        rubrics: the rubrics the grader names, as loaded with the task.
        facts: the grader's ``facts:`` section (the scenario's entities and facts), if any.
    """

    instruction: str
    start: World
    final: World
    diff: WorldDiff
    answer: str | None
    transcript: list[dict[str, Any]] = field(default_factory=list)
    judge: Judge | None = None
    rubrics: dict[str, Rubric] = field(default_factory=dict)
    facts: FactsSpec | None = None
    # person refs resolved in this grading (the final world does not change while it is graded)
    _people: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False)
    _refs: dict[tuple[str, str], Any] = field(default_factory=dict, init=False, repr=False)
    _emails: dict[tuple[str, ...], set[str]] = field(default_factory=dict, init=False, repr=False)
    # what checks derive from this episode alone, kept for the other checks of this grading
    # (key: the deriving function's name and its arguments)
    memo: dict[tuple[Any, ...], Any] = field(default_factory=dict, init=False, repr=False)

    def release(self) -> None:
        """Drop what this grading derived (its caches, the fact reader) once the grade is made.

        The fact reader refers back to this context, so without this every grading's derived rows,
        claims and weak references would wait for Python's cyclic garbage collector, which then runs
        more often and promotes them to the old generation: in a training loop that costs more CPU
        than many checks do.  The inputs (worlds, answer, transcript) stay.
        """
        declared = fields(self)
        for f in declared:
            if not f.init:  # the per-grading caches, fresh from their own factories
                setattr(self, f.name, f.default_factory())  # type: ignore[operator]
        for name in set(vars(self)) - {f.name for f in declared}:  # the cached properties
            del vars(self)[name]

    def remember(self, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        """``make()`` worked out once per grading for ``key`` (the final world does not change while it is
        graded): what several checks, or one check for several people, derive from the same rows."""
        if key not in self.memo:
            self.memo[key] = make()
        return cast(T, self.memo[key])

    @cached_property
    def user(self) -> dict[str, Any]:
        return self.final.user

    @cached_property
    def user_email(self) -> str:
        return str(self.user["email"]).lower()

    @cached_property
    def domain(self) -> str:
        return (self.final.meta("domain") or self.user_email.rsplit("@", 1)[-1]).lower()

    @cached_property
    def sent_mail(self) -> list[SentMail]:
        """Messages the acting user sent during the episode (drafts created and sent included)."""
        table = self.diff.table("mail_message")
        rows = [*table.inserted.values(), *(change["_row"] for change in table.updated.values())]
        sent = [
            SentMail(
                id=row["id"], thread_id=row["thread_id"], to=_addresses(row["to"]), cc=_addresses(row["cc"]),
                bcc=_addresses(row["bcc"]), subject=row["subject"] or "", body=row["body"] or "",
                sent_at=row["sent_at"] or "", in_reply_to=row["in_reply_to"],
                attachments=tuple(json.loads(row["attachments"] or "[]")),
            )
            for row in rows
            if row["status"] == "sent" and str(row["sender"]).lower() == self.user_email
        ]
        return sorted(sent, key=lambda m: (m.sent_at, m.id))

    @cached_property
    def fact_reader(self) -> Reader:
        """The facts ready to read texts with (aliases and traceable figures computed once)."""
        if self.facts is None:
            raise ValueError("this grader has no facts: section")
        return Reader(self.facts, self)

    @cached_property
    def now_year(self) -> int:
        return self.final.now().year

    def person(self, ref: str) -> dict[str, Any]:
        """The directory row of a person ref (in the final world)."""
        found = self._people.get(ref)
        if found is None:
            found = self._people[ref] = resolve_person(self.final, ref)
        return dict(found)

    def person_id(self, ref: str) -> str:
        return str(self.person(ref)["id"])

    def emails(self, refs: list[str]) -> set[str]:
        """Person references as emails (resolved in the final world)."""
        key = tuple(refs)
        found = self._emails.get(key)
        if found is None:
            found = self._emails[key] = emails_of(self.final, refs)
        return set(found)

    def resolve(self, column: str, value: Any) -> Any:
        """A grader value with person references resolved for ``column`` (operators included)."""
        if isinstance(value, dict):
            return {op: self._resolved(column, arg) for op, arg in value.items()}
        return self._resolved(column, value)

    def _resolved(self, column: str, value: Any) -> Any:
        if not looks_like_ref(value):  # not a reference: as it is (lists item by item)
            return resolve_column_value(self.final, column, value)
        key = (column, value)
        found = self._refs.get(key)
        if found is None:
            found = self._refs[key] = resolve_column_value(self.final, column, value)
        return found
