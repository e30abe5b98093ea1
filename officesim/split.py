"""The held-out split: by group, decided by a hash of the group label, never cutting a group.

Near-twin tasks share a group (same family, same scenario with other numbers); if twins sat on
both sides, a model trained on one would look good on the other for the wrong reason.  A
group's side depends only on its label and the split seed (its hash, read as a number in [0, 1),
is below the fraction or not), so the split is reproducible anywhere and stable as the library
grows: a group held out this month stays held out next month.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


def group_position(group: str, seed: int) -> float:
    """Where a group falls in [0, 1) for a given seed (sha256, so the same on every machine)."""
    digest = hashlib.sha256(f"officesim-split/{seed}/{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class Split:
    """Task ids on each side and the groups behind them (all sorted)."""

    train: tuple[str, ...]
    heldout: tuple[str, ...]
    train_groups: tuple[str, ...]
    heldout_groups: tuple[str, ...]
    fraction: float
    seed: int

    @property
    def realised(self) -> float:
        """The share of tasks actually held out (groups are indivisible, so it differs from ``fraction``)."""
        total = len(self.train) + len(self.heldout)
        return len(self.heldout) / total if total else 0.0


def split_by_group(groups: Mapping[str, str], fraction: float, seed: int = 0) -> Split:
    """Split task ids (mapped to their group labels) into train and held-out.

    Args:
        groups: task id -> group label.
        fraction: the share of groups to hold out, in [0, 1).
        seed: the split seed.

    A group goes to held-out when its position is below ``fraction``.  With at least two groups
    and a fraction above zero, neither side is left empty: if the hash puts every group on one
    side, the group nearest the boundary moves.
    """
    if not 0 <= fraction < 1:
        raise ValueError(f"the held-out fraction must be in [0, 1), not {fraction}")
    labels = sorted(set(groups.values()))
    position = {g: group_position(g, seed) for g in labels}
    held = {g for g in labels if position[g] < fraction}
    if fraction > 0 and len(labels) >= 2:
        if not held:
            held = {min(labels, key=lambda g: position[g])}
        elif len(held) == len(labels):
            held.discard(max(labels, key=lambda g: position[g]))
    heldout = tuple(sorted(t for t, g in groups.items() if g in held))
    train = tuple(sorted(t for t, g in groups.items() if g not in held))
    return Split(train=train, heldout=heldout, train_groups=tuple(g for g in labels if g not in held),
                 heldout_groups=tuple(sorted(held)), fraction=fraction, seed=seed)


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
