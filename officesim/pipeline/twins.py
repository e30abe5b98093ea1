"""Near twins by content: tasks so alike that training on one teaches the other.

Group labels come from the generators and say which tasks they meant as variants of one
scenario, but a generator can write the same instruction for two groups (the delivery once held
10 instructions word for word on both sides of its split).  So the split and its audit also
compare what a task *is*:

* the instruction, as word 3-shingles (Jaccard similarity; 1.0 for the same words);
* the facts it turns on: emails, record ids, numbers, quoted titles and capitalised names found
  in the instruction, the setup and the reference solution (Jaccard over those sets);
* the solution's shape: the sequence of tools the reference calls (difflib ratio).

A pair is a near twin when the instructions are nearly the same (>= ``INSTRUCTION_TWIN``), or
are alike and share most facts, or when the facts and the solution shape both match closely:
each rule catches a way a model could score on one task by having memorised the other.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from officesim.task import Task

INSTRUCTION_TWIN = 0.9       # instructions this alike are twins whatever the data
INSTRUCTION_ALIKE = 0.6      # ... this alike, twins when they also share FACTS_ALIKE of their facts
FACTS_ALIKE = 0.5
FACTS_TWIN = 0.7             # facts this shared, twins when the solutions have the same shape
SHAPE_TWIN = 0.9

_WORD = re.compile(r"[a-z0-9][a-z0-9@._'-]*")
_FACT = re.compile(
    r"[\w.+-]+@[\w.-]+\w"                       # emails
    r"|\b[a-z]+_\d+\b"                          # record ids: deal_10, f_9, p_3
    r"|\d[\d,.]+\d"                             # numbers of three characters or more
    r"|'[^'\n]{3,80}'"                          # quoted titles
    r"|\b[A-Z][a-z]+(?: [A-Z][a-z]+)+"          # capitalised names
)


@dataclass(frozen=True)
class Content:
    """What a task is made of, for comparison."""

    task: str
    family: str
    group: str
    shingles: frozenset[tuple[str, ...]]
    facts: frozenset[str]
    shape: tuple[str, ...]


@dataclass(frozen=True)
class TwinPair:
    """Two tasks found alike, with the evidence (each in [0, 1])."""

    a: str
    b: str
    instruction: float
    facts: float
    shape: float
    shared: tuple[str, ...]

    def why(self) -> str:
        shared = ", ".join(self.shared[:4]) + (", ..." if len(self.shared) > 4 else "")
        return (f"instruction similarity {self.instruction:.2f}, shared facts {self.facts:.2f}"
                f"{f' ({shared})' if shared else ''}, solution shape {self.shape:.2f}")

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "instruction": round(self.instruction, 3), "facts": round(self.facts, 3),
                "shape": round(self.shape, 3), "shared": list(self.shared)}


def _shingles(text: str) -> frozenset[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    if len(words) < 3:
        return frozenset([tuple(words)])
    return frozenset(zip(words, words[1:], words[2:], strict=False))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def facts_in(texts: Iterable[str]) -> frozenset[str]:
    """The normalised facts (emails, ids, numbers, quoted titles, names) found in ``texts``."""
    found = set()
    for text in texts:
        for match in _FACT.findall(text):
            fact = match.strip("'").lower()
            found.add(fact.replace(",", "") if fact[:1].isdigit() else fact)
    return frozenset(found)


def content_of(task: Task) -> Content:
    """The content of a loaded task (instruction, setup, reference solution)."""
    setup = [step.model_dump(exclude_none=True, exclude={"clock"}) for step in task.spec.setup]
    steps = task.solution.steps if task.solution else []
    solution = [[s.arguments for s in steps], task.solution.answer if task.solution else None]
    return Content(
        task=task.id, family=task.family, group=task.group, shingles=_shingles(task.instruction),
        facts=facts_in([task.instruction, *_strings(setup), *_strings(solution)]),
        shape=tuple(s.name for s in steps),
    )


def _jaccard(a: frozenset[Any], b: frozenset[Any]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def compare(a: Content, b: Content) -> TwinPair | None:
    """The pair's evidence when ``a`` and ``b`` are near twins, else None."""
    instruction = _jaccard(a.shingles, b.shingles)
    facts = _jaccard(a.facts, b.facts)
    if instruction < INSTRUCTION_ALIKE and facts < FACTS_TWIN:
        return None  # the common case, decided without the (slower) shape ratio
    shape = difflib.SequenceMatcher(None, a.shape, b.shape, autojunk=False).ratio() if a.shape or b.shape else 1.0
    twin = (instruction >= INSTRUCTION_TWIN or (instruction >= INSTRUCTION_ALIKE and facts >= FACTS_ALIKE)
            or (facts >= FACTS_TWIN and shape >= SHAPE_TWIN))
    if not twin:
        return None
    first, second = sorted((a.task, b.task))
    return TwinPair(first, second, instruction, facts, shape, tuple(sorted(a.facts & b.facts)))


def find_twins(contents: Sequence[Content], *, across: Mapping[str, str] | None = None,
               skip_same_group: bool = True) -> list[TwinPair]:
    """Every near-twin pair among ``contents``, sorted.

    Args:
        contents: the tasks to compare.
        across: task id -> side; when given, only pairs on different sides are compared (the audit).
        skip_same_group: pairs in one group are twins by declaration; leave them out.
    """
    pairs = []
    for a, b in itertools.combinations(sorted(contents, key=lambda c: c.task), 2):
        if skip_same_group and a.group == b.group:
            continue
        if across is not None and across.get(a.task) == across.get(b.task):
            continue
        pair = compare(a, b)
        if pair is not None:
            pairs.append(pair)
    return sorted(pairs, key=lambda p: (p.a, p.b))
