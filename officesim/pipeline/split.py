"""The held-out split: by group, sized to the requested share, covering every family and category it can.

Near-twin tasks share a group (same family, same scenario with other numbers); if twins sat on
both sides, a model trained on one would look good on the other for the wrong reason.  Groups
joined by a near twin found by content (``officesim.pipeline.twins``) form one *unit*, and a unit is never
cut.

A lab asking for 20% must get about 20%, so the held-out side is a budget of tasks
(``fraction`` x tasks) spent in two passes, both deterministic given the split seed:

1. *coverage*: while a unit would hold out a family or category (or world) with no held-out
   task yet, the unit with the fewest tasks per newly covered value goes in (ties by its sha256
   position), as long as the held-out side stays within ``TOLERANCE`` of the budget; then, while
   the side is still under the budget, families that are one unit, held out whole;
2. *fill*: the other units, in sha256 order of their label (with the seed), go in whenever they
   bring the held-out count nearer the budget.

A family of two or more units always keeps one in training; a family that is one unit (all its
tasks twins of one another) cannot sit on both sides, so it is held out whole or not at all
(second coverage step or fill).  Whatever is left uncovered is listed in ``Split.uncovered``
with the reason, and the delivery report warns about it.  Because the budget is shared, a unit's side can
change when the library grows; the sha256 order keeps most of them where they were.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from officesim.pipeline.twins import TwinPair, content_of, find_twins
from officesim.task import Task, world_key


def group_position(group: str, seed: int) -> float:
    """Where a group falls in [0, 1) for a given seed (sha256, so the same on every machine)."""
    digest = hashlib.sha256(f"officesim-split/{seed}/{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class Split:
    """Task ids on each side and the groups behind them (all sorted).

    ``units`` lists the groups that had to travel together because a near twin joined them
    (units of a single group are left out); ``uncovered`` the values (``family:...``,
    ``category:...``, ``world:...``) with no held-out task and why.
    """

    train: tuple[str, ...]
    heldout: tuple[str, ...]
    train_groups: tuple[str, ...]
    heldout_groups: tuple[str, ...]
    fraction: float
    seed: int
    units: tuple[tuple[str, ...], ...] = ()
    stratified: bool = False
    uncovered: tuple[tuple[str, str], ...] = ()  # ("family:x", why) for each value with no held-out task
    by: str = "group"  # "group", "world" (whole companies held out) or "both"
    heldout_worlds: tuple[str, ...] = ()  # the worlds (spec names) held out whole, by world or both
    # training tasks moved to the held-out side because their instruction text was held out (by world)
    moved_for_text: tuple[str, ...] = ()

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


TOLERANCE = 0.03
"""How far (share of tasks) the coverage pass may take the held-out side past the requested share."""


def _pick(units: Sequence[str], size: Mapping[str, int], labels: Mapping[str, frozenset[str]],
          family: Mapping[str, str], position: Mapping[str, float], fraction: float) -> tuple[set[str], dict[str, str]]:
    """The held-out units (coverage pass, then fill) and, for each label left uncovered, why."""
    total = sum(size.values())
    target, ceiling = fraction * total, (fraction + TOLERANCE) * total
    units_in: dict[str, int] = {}
    for unit in units:
        units_in[family[unit]] = units_in.get(family[unit], 0) + 1
    in_train = dict(units_in)
    held: set[str] = set()
    count = 0

    def allowed(unit: str) -> bool:  # a family of two or more units keeps one in training
        return unit not in held and (units_in[family[unit]] == 1 or in_train[family[unit]] > 1)

    def hold(unit: str) -> None:
        nonlocal count
        held.add(unit)
        count += size[unit]
        in_train[family[unit]] -= 1

    if fraction <= 0:
        return held, {}
    covered: set[str] = set()
    # First units of families that keep training tasks (up to the ceiling); then families that are
    # one unit, held out whole, only while the side stays within the request.
    for whole, limit in ((False, ceiling), (True, target)):
        while True:
            gains = {u: len(labels[u] - covered) for u in units
                     if allowed(u) and (units_in[family[u]] == 1) == whole and labels[u] - covered}
            fits = [u for u in gains if count + size[u] <= limit or not held]
            if not fits:
                break
            best = min(fits, key=lambda u: (size[u] / gains[u], position[u], u))
            hold(best)
            covered |= labels[best]
    for unit in sorted(units, key=lambda u: (position[u], u)):
        if allowed(unit) and abs(count + size[unit] - target) < abs(count - target):
            hold(unit)
            covered |= labels[unit]
    everything = set().union(*labels.values()) if labels else set()
    why: dict[str, str] = {}
    for label in sorted(everything - covered):
        mine = [u for u in units if label in labels[u]]
        if all(units_in[family[u]] == 1 for u in mine):
            why[label] = ("a single unit of near twins, which cannot sit on both sides and did not fit the "
                          "budget whole")
        else:
            smallest = min(size[u] for u in mine if units_in[family[u]] > 1)
            why[label] = (f"its smallest unit, of {smallest} task{'s' if smallest != 1 else ''}, did not fit the "
                          "held-out budget")
    return held, why


def split_by_group(groups: Mapping[str, str], fraction: float, seed: int = 0, *,
                   strata: Mapping[str, str] | None = None, links: Iterable[tuple[str, str]] = (),
                   cover: Mapping[str, Iterable[str]] | None = None) -> Split:
    """Split task ids (mapped to their group labels) into train and held-out.

    Args:
        groups: task id -> group label.
        fraction: the share of tasks to hold out, in [0, 1).
        seed: the split seed.
        strata: task id -> family; a family of two or more units keeps one in training, and the
            families are values to cover.  ``None``: one family.
        links: pairs of task ids that must land on the same side (near twins found by content).
        cover: task id -> further values the held-out side should cover (``"category:..."``).

    The held-out side holds about ``fraction`` of the tasks (see the module docstring); with a
    fraction above zero it is never empty, and two units or more never all go to it.
    """
    if not 0 <= fraction < 1:
        raise ValueError(f"the held-out fraction must be in [0, 1), not {fraction}")
    unit_of = _units(groups, links)
    members: dict[str, list[str]] = {}
    for label in sorted(unit_of):
        members.setdefault(unit_of[label], []).append(label)
    position = {u: group_position(u, seed) for u in members}
    family_of: dict[str, str] = {}
    labels: dict[str, set[str]] = {u: set() for u in members}
    size = dict.fromkeys(members, 0)
    for task, label in sorted(groups.items()):
        family = strata.get(task, "") if strata is not None else ""
        unit = unit_of[label]
        family_of[unit] = min(family_of.get(unit, family), family)  # a unit across families: the first
        size[unit] += 1
        labels[unit].add(f"family:{family}")
        labels[unit].update(cover.get(task, ()) if cover is not None else ())
    held_units, why = _pick(sorted(members), size, {u: frozenset(v) for u, v in labels.items()}, family_of,
                            position, fraction)
    held = {g for u in held_units for g in members[u]}
    names = sorted(unit_of)
    heldout = tuple(sorted(t for t, g in groups.items() if g in held))
    train = tuple(sorted(t for t, g in groups.items() if g not in held))
    return Split(train=train, heldout=heldout, train_groups=tuple(g for g in names if g not in held),
                 heldout_groups=tuple(sorted(held)), fraction=fraction, seed=seed,
                 units=tuple(tuple(gs) for _, gs in sorted(members.items()) if len(gs) > 1),
                 stratified=strata is not None, uncovered=tuple(sorted(why.items())))


def world_name(task: Task) -> str:
    """The world a task runs in, as the delivery names it: ``spec@seed`` (the effective seed)."""
    return f"{task.spec_path.stem}@{task.world_seed}"


SplitBy = Literal["group", "world", "both"]


def world_of(task: Task) -> str:
    """The company a task runs in: its world spec's key (every seed of a spec is one company)."""
    return world_key(task.world_spec())


def pick_worlds(counts: Mapping[str, int], fraction: float, seed: int) -> tuple[str, ...]:
    """Whole worlds to hold out, about ``fraction`` of the tasks: in sha256 order (with the seed),
    each world goes in when it brings the held-out count nearer the budget; at least one world
    when ``fraction`` > 0, never every world."""
    if len(counts) < 2:
        raise ValueError(f"a split by world needs tasks on two worlds or more, not {len(counts)} "
                         f"({', '.join(counts) or 'none'})")
    budget = fraction * sum(counts.values())
    order = sorted(counts, key=lambda w: group_position(f"world:{w}", seed))
    held: list[str] = []
    for world in order:
        total = sum(counts[w] for w in held)
        if len(held) < len(counts) - 1 and abs(total + counts[world] - budget) < abs(total - budget):
            held.append(world)
    if not held and fraction > 0:  # every world overshoots: the one nearest the budget
        held.append(min(order, key=lambda w: abs(counts[w] - budget)))
    return tuple(sorted(held))


def split_by_world(tasks: Iterable[Task], fraction: float, seed: int = 0,
                   worlds: Sequence[str] | None = None) -> Split:
    """Hold out whole worlds (companies never seen in training): every task on them, none elsewhere.

    ``worlds`` names them (spec names); default ``pick_worlds``.  Groups do straddle such a split
    on purpose: the kind of scenario is seen in training, the company is not.
    """
    tasks = list(tasks)
    if not 0 <= fraction < 1:
        raise ValueError(f"the held-out fraction must be in [0, 1), not {fraction}")
    key = {t.id: world_of(t) for t in tasks}
    counts: dict[str, int] = {}
    for world in key.values():
        counts[world] = counts.get(world, 0) + 1
    if worlds is not None:
        unknown = sorted(set(worlds) - set(counts))
        if unknown:
            raise ValueError(f"no task runs on {', '.join(unknown)}; the worlds here are {', '.join(sorted(counts))}")
        if set(worlds) >= set(counts):
            raise ValueError("holding out every world leaves nothing to train on")
    held = tuple(sorted(worlds)) if worlds is not None else pick_worlds(counts, fraction, seed)
    heldout = tuple(sorted(t for t, w in key.items() if w in held))
    train = tuple(sorted(t for t, w in key.items() if w not in held))
    groups = {t.id: t.group for t in tasks}
    split = Split(train=train, heldout=heldout, train_groups=tuple(sorted({groups[t] for t in train})),
                  heldout_groups=tuple(sorted({groups[t] for t in heldout})), fraction=fraction, seed=seed,
                  by="world", heldout_worlds=held)
    return _hold_same_texts(split, tasks)


def split_tasks(tasks: Iterable[Task], fraction: float, seed: int = 0, *, by: SplitBy = "group",
                worlds: Sequence[str] | None = None) -> tuple[Split, list[TwinPair]]:
    """The split ``officesim deliver`` makes of loaded tasks: by group and near twin, covering families,
    categories and worlds.

    ``by="world"`` holds out whole worlds instead (``split_by_world``; ``worlds`` names them);
    ``by="both"`` holds out worlds for about half the share and then, on the other worlds, groups
    for the rest: a group held out there is held out on every world, so training sees neither
    the held-out companies nor the held-out scenarios.

    Returns the split and every near-twin pair found by content (in one group or across groups;
    those across groups joined units).  None straddles a group split, by construction.
    """
    tasks = list(tasks)
    if by not in ("group", "world", "both"):
        raise ValueError(f"a split is by 'group', 'world' or 'both', not {by!r}")
    if by == "world":
        return split_by_world(tasks, fraction, seed, worlds), []
    if by == "both":
        return _split_both(tasks, fraction, seed, worlds)
    twins = find_twins([content_of(t) for t in tasks], skip_same_group=False)
    split = split_by_group({t.id: t.group for t in tasks}, fraction, seed, strata={t.id: t.family for t in tasks},
                           links=[*((p.a, p.b) for p in twins), *same_instruction_links(tasks)],
                           cover={t.id: (f"category:{t.category}", f"world:{world_name(t)}") for t in tasks})
    return split, twins


def _split_both(tasks: list[Task], fraction: float, seed: int,
                worlds: Sequence[str] | None) -> tuple[Split, list[TwinPair]]:
    by_world = split_by_world(tasks, fraction / 2, seed, worlds)
    rest = [t for t in tasks if t.id in set(by_world.train)]
    remaining = max(0.0, fraction - by_world.realised) / max(1e-9, 1 - by_world.realised)
    by_group, twins = split_tasks(rest, min(remaining, 0.95), seed)
    held_groups = set(by_group.heldout_groups)
    heldout = tuple(sorted({*by_world.heldout, *(t.id for t in tasks if t.group in held_groups)}))
    train = tuple(sorted(t.id for t in tasks if t.id not in set(heldout)))
    groups = {t.id: t.group for t in tasks}
    split = Split(train=train, heldout=heldout, train_groups=tuple(sorted({groups[t] for t in train})),
                  heldout_groups=tuple(sorted({groups[t] for t in heldout})), fraction=fraction, seed=seed,
                  units=by_group.units, stratified=True, uncovered=by_group.uncovered, by="both",
                  heldout_worlds=by_world.heldout_worlds)
    return _hold_same_texts(split, tasks), twins


def instruction_key(text: str) -> str:
    """An instruction as a model reads it, for "the same text": case and runs of white space ignored."""
    return " ".join(text.split()).casefold()


def same_instruction_links(tasks: Iterable[Task]) -> list[tuple[str, str]]:
    """Pairs of task ids with the same instruction text (each task linked to the first that has it).

    Word shingles find most of these as near twins, but not an instruction of one or two words, and
    a shingle threshold is a heuristic; a split must guarantee that no text sits on both sides.
    """
    first: dict[str, str] = {}
    links = []
    for task in sorted(tasks, key=lambda t: t.id):
        key = instruction_key(task.instruction)
        if key in first:
            links.append((first[key], task.id))
        else:
            first[key] = task.id
    return links


def shared_instructions(split: Split, tasks: Iterable[Task]) -> dict[str, tuple[list[str], list[str]]]:
    """Instruction texts found on both sides of ``split``: text -> (training ids, held-out ids)."""
    sides: dict[str, tuple[list[str], list[str]]] = {}
    held = set(split.heldout)
    for task in sorted(tasks, key=lambda t: t.id):
        train_ids, held_ids = sides.setdefault(instruction_key(task.instruction), ([], []))
        (held_ids if task.id in held else train_ids).append(task.id)
    return {text: ids for text, ids in sides.items() if ids[0] and ids[1]}


def _hold_same_texts(split: Split, tasks: list[Task]) -> Split:
    """``split`` with every training task whose instruction text is also held out moved to the held-out
    side (a world split holds whole worlds; their texts must not be seen in training either)."""
    moved = {t for train_ids, _ in shared_instructions(split, tasks).values() for t in train_ids}
    if not moved:
        return split
    groups = {t.id: t.group for t in tasks}
    heldout = tuple(sorted({*split.heldout, *moved}))
    train = tuple(t for t in split.train if t not in moved)
    return replace(split, train=train, heldout=heldout, train_groups=tuple(sorted({groups[t] for t in train})),
                   heldout_groups=tuple(sorted({groups[t] for t in heldout})), moved_for_text=tuple(sorted(moved)))


def heldout_pairs(split: Split, tasks: Iterable[Task]) -> list[str]:
    """The held-out side as ``group@world`` pairs for ``TaskSampler(exclude=...)``: a sampler that
    excludes them never draws a scenario of a held-out group on its world (and nothing on a
    held-out world)."""
    held = set(split.heldout)
    pairs = {f"{t.group}@{world_of(t)}" for t in tasks if t.id in held}
    pairs |= {f"*@{world}" for world in split.heldout_worlds}
    return sorted(pairs)


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
