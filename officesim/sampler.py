"""Task distributions: ``TaskSampler`` draws fresh, verified task instances in memory, forever.

A shipped task folder is one instance of a family on one world.  A sampler instead draws
instances on demand: for a *sample seed* ``s`` it picks, with an rng seeded by ``s`` alone,

1. a (family, world) pair among those allowed (the families and worlds given, minus pairs the
   world lacks something for, ``Family.requires``);
2. the world's generation seed among ``world_seeds`` (default: the spec's own seed, so a world is
   one company; give several to vary its people, accounts and documents too);
3. the instance index, in ``[FIRST_INDEX, 2**31)``: it picks the family's near-twin group (its
   variant), the pool items it walks (accounts, deals, documents), and seeds the family's rng,
   which draws names, amounts and dates.

Indices below ``FIRST_INDEX`` are the shipped library's (``tasks generate`` writes ``count``
instances from index 0), so a sampled instance is never a library task.  The same seed gives the
same bytes in any process; different seeds give different instances (see ``instance_stats`` for
how many distinct ones a family yields).  An instance that the world cannot support, or whose
(group, world) is held out, is drawn again from the same seed (a deterministic retry), so
``sample(s)`` is a pure function of the sampler's configuration and ``s``.

Every drawn task went through the writer: its setup rebuilds the planted world and the
reference solution scores 1.0 with the real grader.  Base worlds are generated once per
(spec, seed) and kept, so a draw costs the family's setup, the reference run and one grading.
"""

from __future__ import annotations

import fnmatch
import hashlib
import itertools
import time
import warnings
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from officesim.errors import OfficesimError
from officesim.seeding import derive_seed, rng_for
from officesim.task import Task, world_key
from officesim.taskgen import FAMILIES, Family, GenerationError, WorldLacks, select, world_label
from officesim.taskgen.base import Stage
from officesim.taskgen.writer import (
    RenderedTask,
    WorldChoice,
    base_snapshot,
    render_verified,
    world_choice,
    write_task,
)
from officesim.world import World

FIRST_INDEX = 1000  # indices below are the shipped library's instances
LAST_INDEX = 2**31 - 1
PROBES = 3  # instances tried before a (family, world) pair is declared unable to hold any
MAX_ATTEMPTS = 64  # redraws of one seed before the sampler says its configuration leaves nothing
REF_PREFIX = "officesim-sample:"


@dataclass(frozen=True)
class HeldOut:
    """Held-out (group, world) pairs a training sampler must never draw.

    ``group`` is a task group (``inbox_triage/urgent``), a family (``inbox_triage``, every group of
    it) or a glob (``*``); ``world`` is a world's key (``acme``), label (``acme@3``) or a glob.
    ``("*", "nordwerk")`` holds out a whole company; ``("inbox_triage/urgent", "*")`` a scenario
    on every world.
    """

    pairs: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def parse(cls, items: Iterable[str | tuple[str, str]]) -> HeldOut:
        """From ``(group, world)`` tuples or ``"group@world"`` texts (``"group"`` alone: every world)."""
        pairs = set()
        for item in items:
            if isinstance(item, tuple):
                group, world = item
            else:
                group, _, world = str(item).partition("@")
                world = world or "*"
            if not group or not world:
                raise OfficesimError(f"a held-out pair is GROUP@WORLD (e.g. inbox_triage/urgent@acme, *@nordwerk), "
                                     f"not {item!r}")
            pairs.add((group, world))
        return cls(frozenset(pairs))

    @classmethod
    def of_tasks(cls, tasks: Iterable[Task]) -> HeldOut:
        """The (group, world) pairs of these tasks (e.g. the held-out side of a library split)."""
        return cls(frozenset((task.group, world_key_of(task)) for task in tasks))

    def covers(self, group: str, world: str) -> bool:
        """Whether an instance of ``group`` on ``world`` (a key or ``key@seed`` label) is held out."""
        family = group.split("/", 1)[0]
        key = world.split("@", 1)[0]
        return any((fnmatch.fnmatchcase(group, g) or g == family) and
                   (fnmatch.fnmatchcase(world, w) or fnmatch.fnmatchcase(key, w)) for g, w in self.pairs)

    def __bool__(self) -> bool:
        return bool(self.pairs)


def world_key_of(task: Task) -> str:
    """The key of a task's world (its spec's ``name``, as in ids): what held-out pairs name."""
    return world_key(task.world_spec())


@dataclass(frozen=True)
class SampleRef:
    """The coordinates that rebuild one instance without the sampler: family, world, seed, index."""

    family: str
    spec: str
    world_seed: int
    index: int

    def __str__(self) -> str:
        return f"{REF_PREFIX}{self.family}:{self.world_seed}:{self.index}:{self.spec}"

    @classmethod
    def parse(cls, text: str) -> SampleRef:
        """The inverse of ``str``; a clear error for anything else."""
        if not text.startswith(REF_PREFIX):
            raise OfficesimError(f"{text!r} is not a sample reference ({REF_PREFIX}FAMILY:WORLD_SEED:INDEX:SPEC)")
        try:
            family, seed, index, spec = text[len(REF_PREFIX):].split(":", 3)
            return cls(family, spec, int(seed), int(index))
        except ValueError:
            raise OfficesimError(f"{text!r} is not a sample reference ({REF_PREFIX}FAMILY:WORLD_SEED:INDEX:SPEC)"
                                 ) from None


@dataclass(frozen=True)
class SampledTask:
    """One drawn instance: the verified in-memory task and where it came from.

    Attributes:
        task: the loaded ``Task`` (start state built); ``task.files`` holds its file texts.
        group: its near-twin group (``family/variant``), the unit of held-out splits.
        family: the family name.
        world: the world's label (``acme``, or ``acme@3`` at another generation seed).
        seed: the sample seed it was drawn for (``None`` when rebuilt from its reference).
        ref: the coordinates that rebuild it (``rebuild``), e.g. a dataset's ``task_dir``.
        files: the rendered files (``task.yaml``, ``grader.yaml``, ``solution.yaml``, ``tools.pin``).
    """

    task: Task
    group: str
    family: str
    world: str
    seed: int | None
    ref: SampleRef
    files: dict[str, str]

    def write(self, out_dir: str | Path) -> Path:
        """Write the instance as a task folder under ``out_dir``; returns the folder."""
        return write_task(Path(out_dir), RenderedTask(self.task.id, self.files))


def build(ref: SampleRef, seed: int | None = None, world: WorldChoice | None = None) -> SampledTask:
    """Render and verify the instance ``ref`` names (``WorldLacks`` when its world cannot hold it)."""
    family = FAMILIES[ref.family]
    world = world or world_choice(ref.spec, ref.world_seed)
    label = world_label(world)
    task_id = f"{family.slug}-{label}-i{ref.index}"
    rendered, task = render_verified(family, ref.index, base_snapshot(world), world, task_id)
    return SampledTask(task, task.group, family.name, world.label, seed, ref, rendered.files)


def rebuild(ref: str | SampleRef) -> SampledTask:
    """The instance a ``SampleRef`` (or its text) names, rebuilt byte for byte."""
    return build(SampleRef.parse(ref) if isinstance(ref, str) else ref)


class TaskSampler:
    """An endless, seeded distribution of verified task instances over families and worlds.

    Args:
        families: family names (default: all); an unknown name is an error listing the families.
        worlds: world spec names or paths (default: ``["acme"]``).
        seed: the seed of the stream ``iter(sampler)`` walks (``sample(s)`` ignores it).
        world_seeds: generation seeds each world is drawn at (default: each spec's own seed).
        exclude: held-out pairs never drawn (a ``HeldOut``, or what ``HeldOut.parse`` takes).
        strict: raise when a drawn instance fails its verification (its reference solution does
            not pass, its setup does not rebuild: a bug in the family).  Default: draw again from
            the same seed, warn once per family and list it in ``rejected``, so a trainer's stream
            never stops on one bad instance and the bug is still reported.

    Attributes:
        pairs: the (family, world label) pairs the sampler draws from.
        skipped: (family, world label) -> why that family cannot run on that world.
        rejected: (reference, reason) of every drawn instance that failed its verification.
    """

    def __init__(self, families: Iterable[str] | None = None, worlds: Sequence[str | Path] | None = None,
                 seed: int = 0, *, world_seeds: Sequence[int] | None = None,
                 exclude: HeldOut | Iterable[str | tuple[str, str]] = (), strict: bool = False,
                 cache_size: int = 4) -> None:
        if isinstance(families, str):
            families = [families]
        if isinstance(worlds, str | Path):
            worlds = [worlds]
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise OfficesimError(f"seed must be a non-negative whole number, not {seed!r}")
        self.seed = seed
        self.strict = strict
        self.rejected: list[tuple[SampleRef, str]] = []
        self.families: list[Family] = select(families)
        refs = list(worlds) if worlds is not None else ["acme"]
        if not refs:
            raise OfficesimError("worlds is empty; name at least one world spec (acme, tiny, ...)")
        if world_seeds is not None and (not list(world_seeds) or any(
                isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in world_seeds)):
            raise OfficesimError(f"world_seeds must be non-negative whole numbers, not {world_seeds!r}")
        self.worlds: list[WorldChoice] = [world_choice(str(ref), s) for ref in refs
                                          for s in (world_seeds if world_seeds is not None else [None])]
        self.exclude = exclude if isinstance(exclude, HeldOut) else HeldOut.parse(exclude)
        self.skipped: dict[tuple[str, str], str] = {}
        self.pairs: list[tuple[Family, WorldChoice]] = []
        for world in self.worlds:
            for family in self.families:
                reason = self._lacks(family, world)
                if reason is not None:
                    self.skipped[(family.name, world.label)] = reason
                elif not all(self.exclude.covers(f"{family.name}/{v}", world.label) for v in family.variants):
                    self.pairs.append((family, world))
        if not self.pairs:
            raise OfficesimError("the sampler has nothing to draw: every (family, world) pair is held out or "
                                 f"skipped ({'; '.join(f'{f} on {w}: {r}' for (f, w), r in self.skipped.items())})")
        self._cache: OrderedDict[int, SampledTask] = OrderedDict()
        self._probed: set[tuple[str, str]] = set()  # pairs whose probe instance built
        self.cache_size = cache_size

    # ------------------------------------------------------------------ drawing
    def sample(self, seed: int) -> SampledTask:
        """The instance for sample seed ``seed``: the same task, byte for byte, every time."""
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise OfficesimError(f"a sample seed is a non-negative whole number, not {seed!r}")
        cached = self._cache.get(seed)
        if cached is not None:
            self._cache.move_to_end(seed)
            return cached
        reasons = []
        for attempt in range(MAX_ATTEMPTS):
            ref, world = self.locate(seed, attempt)
            family = FAMILIES[ref.family]
            if self.exclude.covers(f"{family.name}/{family.variant_for(ref.index)}", world.label):
                continue
            if not self._viable(family, world):
                reasons.append(self.skipped[(family.name, world.label)])
                if all((f.name, w.label) in self.skipped for f, w in self.pairs):
                    break
                continue
            try:
                drawn = build(ref, seed, world)
            except WorldLacks as exc:
                reasons.append(str(exc))
                continue
            except GenerationError as exc:  # the instance failed its verification: a family bug
                if self.strict:
                    raise
                self._reject(ref, str(exc))
                reasons.append(str(exc))
                continue
            if self.exclude.covers(drawn.group, world.label):  # a family whose groups do not follow the index
                continue
            self._cache[seed] = drawn
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            return drawn
        raise OfficesimError(f"sample seed {seed}: every draw was held out or skipped"
                             + (f" ({reasons[0]})" if reasons else "") + "; allow more families or worlds")

    def locate(self, seed: int, attempt: int = 0) -> tuple[SampleRef, WorldChoice]:
        """Where attempt ``attempt`` of seed ``seed`` lands (family, world, index), without building it."""
        rng = rng_for(seed, "officesim-sampler", attempt)
        family, world = self.pairs[rng.randrange(len(self.pairs))]
        index = rng.randint(FIRST_INDEX, LAST_INDEX)
        return SampleRef(family.name, world.spec, world.seed, index), world

    def task(self, seed: int) -> Task:
        """The ``Task`` of ``sample(seed)``."""
        return self.sample(seed).task

    def seed_of(self, draw: int) -> int:
        """The sample seed of the stream's ``draw``-th instance (0-based)."""
        return derive_seed(self.seed, "officesim-sampler-stream", draw) % 2**63

    def __iter__(self) -> Iterator[SampledTask]:
        """The endless stream: ``sample(seed_of(0))``, ``sample(seed_of(1))``, ..."""
        for draw in itertools.count():
            yield self.sample(self.seed_of(draw))

    def take(self, n: int) -> list[SampledTask]:
        """The first ``n`` instances of the stream."""
        return list(itertools.islice(self, n))

    # ------------------------------------------------------------------ internals
    def _reject(self, ref: SampleRef, reason: str) -> None:
        """Record an instance that failed verification and warn (once per family): never hidden."""
        if not any(r.family == ref.family for r, _ in self.rejected):
            warnings.warn(f"{ref.family}: a drawn instance failed its verification and was drawn again "
                          f"(TaskSampler.rejected lists them; reproduce with officesim.sampler.rebuild({str(ref)!r})): "
                          f"{reason.splitlines()[0]}", RuntimeWarning, stacklevel=3)
        self.rejected.append((ref, reason))

    def _viable(self, family: Family, world: WorldChoice) -> bool:
        """Whether the pair can hold instances at all: one of its probe instances (indices below
        ``PROBES``, the library's first) builds.  Checked once per pair when first drawn, so a
        family the world is too small for is skipped (``skipped`` says why) instead of redrawn
        again and again.  The answer is a function of the pair alone, so draws stay a pure
        function of the seed.
        """
        key = (family.name, world.label)
        if key in self.skipped:
            return False
        if key not in self._probed:
            reasons = []
            for index in range(PROBES):
                probe = SampleRef(family.name, world.spec, world.seed, index)
                try:
                    build(probe, world=world)
                    break
                except WorldLacks as exc:
                    reasons.append(str(exc))
                except GenerationError as exc:
                    if self.strict:
                        raise
                    self._reject(probe, str(exc))
                    reasons.append(str(exc))
            if len(reasons) == PROBES:
                self.skipped[key] = reasons[0]
                return False
            self._probed.add(key)
        return True

    @staticmethod
    def _lacks(family: Family, world: WorldChoice) -> str | None:
        db = World.restore(base_snapshot(world))
        try:
            return family.requires(Stage(db, _no_steps))
        finally:
            db.close()

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the recent draws (their worlds stay behind; drawing again rebuilds them)."""
        state = self.__dict__.copy()
        state["_cache"] = OrderedDict()
        return state

    def __repr__(self) -> str:
        return (f"TaskSampler({len(self.families)} families, worlds={[w.label for w in self.worlds]}, "
                f"seed={self.seed}, pairs={len(self.pairs)}, held out={len(self.exclude.pairs)})")


def _no_steps(world: World, step: dict[str, Any]) -> None:
    raise OfficesimError("Family.requires only looks at the world; it cannot plant setup steps")


def instance_key(files: dict[str, str]) -> str:
    """What makes two instances the same: their files without the id (instruction, setup, grader, solution)."""
    task_yaml = "\n".join(line for line in files["task.yaml"].splitlines() if not line.startswith("id: "))
    return hashlib.sha256("\x00".join([task_yaml, files["grader.yaml"], files["solution.yaml"]]).encode()).hexdigest()


def instance_stats(families: Iterable[str] | None = None, worlds: Sequence[str | Path] = ("acme",), *,
                   draws: int = 20, world_seeds: Sequence[int] | None = None,
                   progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """How many distinct instances each family yields per world, counted from ``draws`` draws.

    An instance is counted by its content (``instance_key``: instruction, setup, grader and
    solution, the id left out), so two seeds that land on the same scenario with the same numbers
    count once; distinct instructions (what the model reads) and distinct reference solutions
    (what it must do and answer: a repeat there is what blind answers live on) are counted too.
    The sampler's index space is ``LAST_INDEX - FIRST_INDEX + 1`` (about 2.1e9) per world seed,
    an upper bound; the estimate of the real space comes from repeats among the draws:
    with ``c`` equal pairs among ``n`` draws it is ``n(n-1)/2c`` (birthday estimate), and with no
    repeat at least about ``n(n-1)/2``; ``solution_estimate`` is the same for reference solutions.
    """
    rows = []
    for world in worlds:
        for family in select(families):
            try:
                sampler = TaskSampler([family.name], [world], seed=0, world_seeds=world_seeds)
            except OfficesimError as exc:
                rows.append({"family": family.name, "world": str(world), "draws": 0, "distinct": 0,
                             "distinct_instructions": 0, "distinct_solutions": 0, "groups": 0, "repeats": 0,
                             "rejected": 0,
                             "skipped": str(exc), "estimate": "skipped", "solution_estimate": "skipped"})
                continue
            keys: Counter[str] = Counter()
            solutions: Counter[str] = Counter()
            instructions: set[str] = set()
            groups: set[str] = set()
            for choice in sampler.worlds:
                base_snapshot(choice)  # built once per world and memoised: not a draw's cost
            started = time.process_time(), time.perf_counter()
            with warnings.catch_warnings():  # rejects are counted in the row instead
                warnings.simplefilter("ignore", RuntimeWarning)
                taken = sampler.take(draws)
            cpu, wall = time.process_time() - started[0], time.perf_counter() - started[1]
            for drawn in taken:
                keys[instance_key(drawn.files)] += 1
                instructions.add(drawn.task.instruction)
                solutions[drawn.files["solution.yaml"]] += 1
                groups.add(drawn.group)
            repeats = _repeated_pairs(keys)
            rejected = len(sampler.rejected)
            rows.append({"family": family.name, "world": sampler.worlds[0].label, "draws": draws,
                         "distinct": len(keys), "distinct_instructions": len(instructions),
                         "distinct_solutions": len(solutions), "groups": len(groups),
                         "repeats": repeats, "rejected": rejected, "estimate": _birthday(draws, repeats),
                         "solution_estimate": _birthday(draws, _repeated_pairs(solutions)),
                         "index_space": (LAST_INDEX - FIRST_INDEX + 1) * len(sampler.worlds),
                         # what one draw costs a trainer (rejected draws included, the world build not:
                         # it is made once per world and cached)
                         "seconds_per_draw": round(wall / draws, 3), "cpu_seconds_per_draw": round(cpu / draws, 3)})
            if progress is not None:
                progress(f"{family.name} on {sampler.worlds[0].label}: {len(keys)} distinct of {draws}")
    return rows


def family_totals(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per family, over every world of ``rows``: distinct instances drawn and the estimated space.

    Instances on two worlds never coincide (their start states differ), so the counts add up; an
    estimate that is only a lower bound on one world (no repeat seen) makes the total one too.
    """
    totals: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.get("skipped"):
            continue
        total = totals.setdefault(row["family"], {"family": row["family"], "worlds": 0, "draws": 0, "distinct": 0,
                                                  "space": 0.0, "bound": False, "seconds": 0.0})
        total["worlds"] += 1
        total["draws"] += row["draws"]
        total["distinct"] += row["distinct"]
        total["seconds"] += row["seconds_per_draw"] * row["draws"]
        value = row["estimate"].lstrip(">= ~").replace(",", "")
        total["space"] += float(value)
        total["bound"] = total["bound"] or row["estimate"].startswith(">=")
    for total in totals.values():
        total["estimate"] = f"{'>= ' if total['bound'] else ''}~{total['space']:,.0f}"
        total["seconds_per_draw"] = round(total["seconds"] / total["draws"], 3) if total["draws"] else 0.0
        del total["space"], total["bound"], total["seconds"]
    return list(totals.values())


def _repeated_pairs(counts: Counter[str]) -> int:
    return sum(n * (n - 1) // 2 for n in counts.values())


def _birthday(draws: int, repeats: int) -> str:
    """The birthday estimate of a space from ``repeats`` equal pairs among ``draws`` uniform draws."""
    pairs = draws * (draws - 1) / 2
    return f"~{pairs / repeats:,.0f}" if repeats else f">= ~{pairs:,.0f}"
