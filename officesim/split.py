"""The held-out split: by group, stratified by family, never cutting a group or a pair of near twins.

Near-twin tasks share a group (same family, same scenario with other numbers); if twins sat on
both sides, a model trained on one would look good on the other for the wrong reason.  Groups
joined by a near twin found by content (``officesim.twins``) form one *unit*, and a unit is never
cut.  A unit's side depends only on its label and the split seed (the sha256 position of its
smallest group label, read as a number in [0, 1), is below the fraction or not), so the split is
reproducible anywhere and stable as the library grows: a group held out by its hash this month
stays held out next month.  (The one exception: a unit held out only so that its family has a
held-out side can return to training once another unit of that family falls below the fraction.)

Stratified: the rule is applied within each family (its *stratum*), and a family of two or more
units always has one on each side, so every family a unit boundary allows is covered by the
held-out set; a family that is one unit (all its tasks twins of one another) cannot be, and the
report says so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from officesim.task import Task
from officesim.twins import TwinPair, content_of, find_twins


def group_position(group: str, seed: int) -> float:
    """Where a group falls in [0, 1) for a given seed (sha256, so the same on every machine)."""
    digest = hashlib.sha256(f"officesim-split/{seed}/{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class Split:
    """Task ids on each side and the groups behind them (all sorted).

    ``units`` lists the groups that had to travel together because a near twin joined them
    (units of a single group are left out).
    """

    train: tuple[str, ...]
    heldout: tuple[str, ...]
    train_groups: tuple[str, ...]
    heldout_groups: tuple[str, ...]
    fraction: float
    seed: int
    units: tuple[tuple[str, ...], ...] = ()
    stratified: bool = False

    @property
    def realised(self) -> float:
        """The share of tasks actually held out (groups are indivisible, so it differs from ``fraction``)."""
        total = len(self.train) + len(self.heldout)
        return len(self.heldout) / total if total else 0.0

    def side(self, task: str) -> str:
        """``"heldout"``, ``"train"``, or ``""`` for a task not in the split."""
        return "heldout" if task in self.heldout else "train" if task in self.train else ""


def _units(groups: Mapping[str, str], links: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Group label -> the label of its unit (the smallest label in it), joining linked tasks' groups."""
    parent = {g: g for g in groups.values()}

    def root(label: str) -> str:
        while parent[label] != label:
            parent[label] = parent[parent[label]]
            label = parent[label]
        return label

    for a, b in links:
        if a in groups and b in groups:
            ra, rb = root(groups[a]), root(groups[b])
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    return {g: root(g) for g in parent}


def _choose(units: Sequence[str], position: Mapping[str, float], size: Mapping[str, int], fraction: float) -> set[str]:
    """The held-out units of one stratum: below ``fraction``, and neither side empty given two or more.

    When no unit falls below the fraction, the smallest unit (then the lowest position) is held
    out, which keeps the realised share as near the requested one as whole groups allow.
    """
    held = {u for u in units if position[u] < fraction}
    if fraction > 0 and len(units) >= 2:
        if not held:
            held = {min(units, key=lambda u: (size[u], position[u]))}
        elif len(held) == len(units):
            held.discard(max(units, key=lambda u: position[u]))
    return held


def split_by_group(groups: Mapping[str, str], fraction: float, seed: int = 0, *,
                   strata: Mapping[str, str] | None = None, links: Iterable[tuple[str, str]] = ()) -> Split:
    """Split task ids (mapped to their group labels) into train and held-out.

    Args:
        groups: task id -> group label.
        fraction: the share of units to hold out, in [0, 1).
        seed: the split seed.
        strata: task id -> stratum (the family); the rule runs within each, so each stratum of
            two or more units has held-out tasks.  ``None``: one stratum.
        links: pairs of task ids that must land on the same side (near twins found by content).

    A unit goes to held-out when its position is below ``fraction``.  Within a stratum of at
    least two units and with a fraction above zero, neither side is left empty: if the hash puts
    every unit on one side, the unit nearest the boundary moves.
    """
    if not 0 <= fraction < 1:
        raise ValueError(f"the held-out fraction must be in [0, 1), not {fraction}")
    unit_of = _units(groups, links)
    members: dict[str, list[str]] = {}
    for label in sorted(unit_of):
        members.setdefault(unit_of[label], []).append(label)
    # A unit's position is its label's (its smallest group label): the minimum over its groups
    # would hold out big units far more often than the fraction asks.
    position = {u: group_position(u, seed) for u in members}
    stratum_of: dict[str, str] = {}
    for task, label in sorted(groups.items()):
        stratum = strata.get(task, "") if strata is not None else ""
        unit = unit_of[label]
        stratum_of[unit] = min(stratum_of.get(unit, stratum), stratum)  # a unit across strata: the first
    by_stratum: dict[str, list[str]] = {}
    for unit in sorted(members):
        by_stratum.setdefault(stratum_of[unit], []).append(unit)
    size = {u: sum(1 for g in groups.values() if unit_of[g] == u) for u in members}
    held_units = set().union(*(_choose(us, position, size, fraction) for us in by_stratum.values()))
    held = {g for u in held_units for g in members[u]}
    labels = sorted(unit_of)
    heldout = tuple(sorted(t for t, g in groups.items() if g in held))
    train = tuple(sorted(t for t, g in groups.items() if g not in held))
    return Split(train=train, heldout=heldout, train_groups=tuple(g for g in labels if g not in held),
                 heldout_groups=tuple(sorted(held)), fraction=fraction, seed=seed,
                 units=tuple(tuple(gs) for _, gs in sorted(members.items()) if len(gs) > 1),
                 stratified=strata is not None)


def split_tasks(tasks: Iterable[Task], fraction: float, seed: int = 0) -> tuple[Split, list[TwinPair]]:
    """The split ``officesim deliver`` makes of loaded tasks: by group and near twin, stratified by family.

    Returns the split and every near-twin pair found by content (in one group or across groups;
    those across groups joined units).  None straddles the split, by construction.
    """
    tasks = list(tasks)
    twins = find_twins([content_of(t) for t in tasks], skip_same_group=False)
    split = split_by_group({t.id: t.group for t in tasks}, fraction, seed, strata={t.id: t.family for t in tasks},
                           links=[(p.a, p.b) for p in twins])
    return split, twins


def cut_groups(split: Split, groups: Mapping[str, str]) -> list[str]:
    """Group labels found on both sides (always empty for ``split_by_group``; a check for tests)."""
    train = {groups[t] for t in split.train}
    heldout = {groups[t] for t in split.heldout}
    return sorted(train & heldout)


def tasks_per_group(groups: Mapping[str, str], ids: Sequence[str]) -> dict[str, int]:
    """How many of ``ids`` each group holds."""
    counts: dict[str, int] = {}
    for task in ids:
        counts[groups[task]] = counts.get(groups[task], 0) + 1
    return dict(sorted(counts.items()))
